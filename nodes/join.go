package nodes

// Join nodes. A join reads two inputs, the outer (left in EXPLAIN, the
// probe side of a hash join) and the inner. Its own rows, which its
// JoinFilter, Filter and Targets read, are the outer row's columns
// followed by the inner row's, except for semi and anti joins, whose own
// rows are the outer rows alone (their JoinFilter still reads both). The
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
)

// String is the join type as EXPLAIN names it ("" for inner).
func (t JoinType) String() string {
	return [...]string{"", "Left", "Full", "Right", "Semi", "Anti"}[t]
}

// SQL is the join type as SQL writes it (INNER, LEFT ...).
func (t JoinType) SQL() string {
	return [...]string{"INNER", "LEFT", "FULL", "RIGHT", "SEMI", "ANTI"}[t]
}

// OwnRowsAreOuter reports whether the join's own rows are the outer rows
// alone (semi and anti joins).
func (t JoinType) OwnRowsAreOuter() bool { return t == JoinSemi || t == JoinAnti }

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
}

func (j *HashJoin) Children() []Plan { return []Plan{j.Outer, j.Inner} }
func (j *HashJoin) NodeType() string { return joinName("Hash", j.Type) }

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
}

func (h *Hash) Children() []Plan { return []Plan{h.Child} }
func (*Hash) NodeType() string   { return "Hash" }

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
}

func (j *NestedLoop) Children() []Plan { return []Plan{j.Outer, j.Inner} }
func (j *NestedLoop) NodeType() string { return joinName("Nested Loop", j.Type) }

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
	_ Plan = (*Material)(nil)
)
