package nodes

// Join nodes. A join reads two inputs, the outer (left in EXPLAIN, the
// probe side of a hash join) and the inner. Its own rows, which its
// JoinFilter, Filter and Targets read, are the outer row's columns
// followed by the inner row's, except for semi and anti joins, whose own
// rows are the outer rows alone, and right semi and right anti joins,
// whose own rows are the inner rows alone (their JoinFilter still reads
// both). The
// columns of the side an outer join null-extends are NULL in the rows it
// adds.
//
// JoinFilter decides which pairs match (PostgreSQL's joinqual: "Join
// Filter" in EXPLAIN); Filter then removes joined rows (otherqual, applied
// after null-extension: WHERE conditions on the nullable side).

// JoinType is the kind of join.
type JoinType uint8

const (
	JoinInner JoinType = iota
	JoinLeft           // every outer row, null-extended when nothing matches
	JoinFull           // both sides' unmatched rows
	JoinRight          // every inner row
	JoinSemi           // outer rows with at least one match, once each
	JoinAnti           // outer rows with no match
	// JoinRightSemi and JoinRightAnti are semi and anti joins with the
	// sides swapped (PostgreSQL 16's Right Anti Join, 18's Right Semi
	// Join): the rows returned are the inner rows, so that a hash join
	// can build its table on the side whose rows it returns when that
	// side is the small one.
	JoinRightSemi // inner rows with at least one match, once each
	JoinRightAnti // inner rows with no match
)

// String is the join type as EXPLAIN names it ("" for inner).
func (t JoinType) String() string {
	return [...]string{"", "Left", "Full", "Right", "Semi", "Anti", "Right Semi", "Right Anti"}[t]
}

// SQL is the join type as SQL writes it (INNER, LEFT ...).
func (t JoinType) SQL() string {
	return [...]string{"INNER", "LEFT", "FULL", "RIGHT", "SEMI", "ANTI", "RIGHT SEMI", "RIGHT ANTI"}[t]
}

// OwnRowsAreOuter reports whether the join's own rows are the outer rows
// alone (semi and anti joins).
func (t JoinType) OwnRowsAreOuter() bool { return t == JoinSemi || t == JoinAnti }

// OwnRowsAreInner reports whether the join's own rows are the inner rows
// alone (right semi and right anti joins).
func (t JoinType) OwnRowsAreInner() bool { return t == JoinRightSemi || t == JoinRightAnti }

// Swapped is the join type with its sides exchanged, for the types a
// hash join may so turn around (ok false for the others).
func (t JoinType) Swapped() (JoinType, bool) {
	switch t {
	case JoinInner, JoinFull:
		return t, true
	case JoinLeft:
		return JoinRight, true
	case JoinRight:
		return JoinLeft, true
	case JoinSemi:
		return JoinRightSemi, true
	case JoinAnti:
		return JoinRightAnti, true
	case JoinRightSemi:
		return JoinSemi, true
	case JoinRightAnti:
		return JoinAnti, true
	}
	return t, false
}

// HashJoin joins Outer with the hash table its Inner (a Hash) builds, on
// the equalities OuterKeys[i] = InnerKeys[i] (strict: a NULL key matches
// nothing). OuterKeys read outer rows and InnerKeys the Hash's rows; each
// pair has one type, coerced by the planner, so that equal values hash
// alike. A pair that passes the keys matches when JoinFilter (if any)
// holds for it.
type HashJoin struct {
	PlanBase
	Type       JoinType
	Outer      Plan
	Inner      *Hash
	OuterKeys  []Expr
	InnerKeys  []Expr
	JoinFilter Expr
	// NullAware makes an anti join on one key follow NOT IN's rules
	// (PostgreSQL's hashed SubPlan): when the inner side has rows, an outer
	// row whose key is NULL, or any outer row once an inner key is NULL,
	// is not returned; when it has none, every outer row is.
	NullAware bool
	// Parallel marks a parallel-aware join under a Gather (PostgreSQL's
	// Parallel Hash Join): its Inner is a Parallel Hash, whose one table
	// the participants build together from a parallel-aware inner side
	// and then each probe with their share of the outer rows.
	Parallel bool
	// PassKeys, when set, hands the distinct values of inner key
	// PassKeys.Key to the foreign scan on the outer side once the table
	// is built, before the outer side starts (key_passing.go).
	PassKeys *PassKeys
	// RuntimeFilter, when set, publishes a filter of the build side's
	// keys to Seq Scans on the outer side once the table is built
	// (runtime_filter.go).
	RuntimeFilter *RuntimeFilterSource
}

// PassKeys is a hash join's key passing: the build side's distinct
// values of InnerKeys[Key] set Param, which the outer Foreign Scan's
// KeyFilter sends to its server.
type PassKeys struct {
	Key   int
	Param int
}

func (j *HashJoin) Children() []Plan { return []Plan{j.Outer, j.Inner} }
func (j *HashJoin) NodeType() string {
	if j.Parallel {
		return "Parallel " + joinName("Hash", j.Type)
	}
	return joinName("Hash", j.Type)
}

// HashCond is the join's hash clauses as EXPLAIN prints them.
func (j *HashJoin) HashCond() []string {
	out := make([]string, len(j.OuterKeys))
	for i := range j.OuterKeys {
		out[i] = "(" + j.OuterKeys[i].String() + " = " + j.InnerKeys[i].String() + ")"
	}
	return out
}

// Hash builds a hash join's table from its child's rows; it returns no
// rows of its own. Its Out is its child's.
type Hash struct {
	PlanBase
	Child Plan
	// Parallel: the table is shared by the participants of a Gather, each
	// inserting its share of Child's rows ("Parallel Hash"; set with the
	// join's Parallel).
	Parallel bool
	// RowsTotal is a Parallel Hash's estimate of the rows of all the
	// participants together (Rows is one participant's share), which
	// sizes the shared table (PostgreSQL's rows_total).
	RowsTotal float64
}

func (h *Hash) Children() []Plan { return []Plan{h.Child} }
func (h *Hash) NodeType() string {
	if h.Parallel {
		return "Parallel Hash"
	}
	return "Hash"
}

// NestedLoop pairs every outer row with every inner row and keeps the
// pairs for which JoinFilter holds (all of them without one): joins with
// no equality to hash on, and cross joins. The inner side is read once
// per outer batch; the planner puts a Material over it unless it is
// cheap to rerun, as PostgreSQL does.
type NestedLoop struct {
	PlanBase
	Type       JoinType
	Outer      Plan
	Inner      Plan
	JoinFilter Expr
	// Params, when set, make the loop parameterized (LATERAL): before
	// the inner side runs for an outer row, each Param is set to its
	// Expr over that row, and the inner side runs again per outer row.
	Params []NestParam
}

// NestParam is a Param a parameterized Nested Loop sets from its outer
// row (Expr reads the outer side's rows).
type NestParam struct {
	ID   int
	Expr Expr
}

func (j *NestedLoop) Children() []Plan { return []Plan{j.Outer, j.Inner} }
func (j *NestedLoop) NodeType() string { return joinName("Nested Loop", j.Type) }

// MergeJoin joins Outer and Inner, both sorted on the merge keys (by Sort
// nodes below, as the planner puts them), on the equalities
// MergeKeys[i].Outer = MergeKeys[i].Inner (strict: a NULL key matches
// nothing). Outer keys read outer rows and inner keys inner rows; each
// pair has one type. Both inputs arrive in the keys' order (Desc,
// NullsFirst), which the executor follows. A pair with equal keys
// matches when JoinFilter (if any) holds for it.
type MergeJoin struct {
	PlanBase
	Type       JoinType
	Outer      Plan
	Inner      Plan
	MergeKeys  []MergeKey
	JoinFilter Expr
}

// MergeKey is one merge clause and the order both inputs are sorted in.
type MergeKey struct {
	Outer, Inner Expr
	Desc         bool
	NullsFirst   bool
}

func (j *MergeJoin) Children() []Plan { return []Plan{j.Outer, j.Inner} }
func (j *MergeJoin) NodeType() string { return joinName("Merge", j.Type) }

// MergeCond is the join's merge clauses as EXPLAIN prints them.
func (j *MergeJoin) MergeCond() []string {
	out := make([]string, len(j.MergeKeys))
	for i, k := range j.MergeKeys {
		out[i] = "(" + k.Outer.String() + " = " + k.Inner.String() + ")"
	}
	return out
}

// Material keeps its child's rows so that its parent can read them again
// (the inner side of a nested loop): "Materialize" in EXPLAIN.
type Material struct {
	PlanBase
	Child Plan
}

func (m *Material) Children() []Plan { return []Plan{m.Child} }
func (*Material) NodeType() string   { return "Materialize" }

func joinName(method string, t JoinType) string {
	if t == JoinInner {
		if method == "Nested Loop" {
			return method
		}
		return method + " Join"
	}
	return method + " " + t.String() + " Join"
}

var (
	_ Plan = (*HashJoin)(nil)
	_ Plan = (*Hash)(nil)
	_ Plan = (*NestedLoop)(nil)
	_ Plan = (*MergeJoin)(nil)
	_ Plan = (*Material)(nil)
)
