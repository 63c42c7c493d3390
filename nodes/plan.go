package nodes

import (
	"strings"

	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// Plan is a node of a plan tree.
type Plan interface {
	// Base returns the properties every node has.
	Base() *PlanBase
	// Children returns the node's inputs, in order.
	Children() []Plan
	// NodeType is the name EXPLAIN prints ("Seq Scan", "Aggregate" ...).
	NodeType() string
}

// Compile-time checks.
var (
	_ Plan = (*SeqScan)(nil)
	_ Plan = (*Result)(nil)
	_ Plan = (*ValuesScan)(nil)
	_ Plan = (*FunctionScan)(nil)
	_ Plan = (*SubqueryScan)(nil)
	_ Plan = (*Append)(nil)
	_ Plan = (*Agg)(nil)
	_ Plan = (*Sort)(nil)
	_ Plan = (*Limit)(nil)
	_ Plan = (*ModifyTable)(nil)
	_ Plan = (*Gather)(nil)
	_ Plan = (*GatherMerge)(nil)
)

// Field is an output column of a node.
type Field struct {
	Name string
	T    types.T
}

// PlanBase holds what all nodes share: identity, the filter and projection
// applied to the node's own rows (PostgreSQL's qual and targetlist), the
// output columns, and the planner's estimates.
type PlanBase struct {
	ID int
	// Filter, if set, keeps the rows for which it is true; it reads the
	// node's own rows (before projection).
	Filter Expr
	// Targets, if set, projects the node's (filtered) rows; nil passes them
	// through unchanged.
	Targets []Expr
	// Out describes the node's output columns (after projection).
	Out []Field

	// InitPlans run once before the node starts (their Params are
	// constants for it and everything below it).
	InitPlans []*InitPlan
	// CTEs are the plans of the CTEs computed once that the node's
	// query level defines, read by CTE Scans below it (cte.go).
	CTEs []*CTE
	// SubPlans are the SubPlans in the node's expressions, printed and
	// numbered after its children (set once planning is done).
	SubPlans []*SubPlan

	Rows                   float64 // estimated output rows
	Width                  int     // estimated bytes per output row
	StartupCost, TotalCost float64
}

func (b *PlanBase) Base() *PlanBase { return b }

// SeqScan reads a local table; Columns are the table column indexes read,
// in the order of the scan's own rows.
type SeqScan struct {
	PlanBase
	Table   *storage.Table
	Alias   string
	Columns []int
	// Parallel marks a parallel-aware scan under a Gather: the copies run
	// by the participants share the table out, each returning a disjoint
	// part of it ("Parallel Seq Scan").
	Parallel bool
	// RuntimeFilters are the hash joins' build-side key filters the scan
	// applies before its Filter (runtime_filter.go).
	RuntimeFilters []*RuntimeFilter
}

func (*SeqScan) Children() []Plan { return nil }
func (s *SeqScan) NodeType() string {
	if s.Parallel {
		return "Parallel Seq Scan"
	}
	return "Seq Scan"
}

// Result produces one row with no columns (then projected by Targets), or
// nothing when a constant-false One-Time Filter prunes everything.
type Result struct {
	PlanBase
	// Empty makes the node produce no rows (every partition was pruned).
	Empty bool
}

func (*Result) Children() []Plan { return nil }
func (*Result) NodeType() string { return "Result" }

// ValuesScan produces the rows of a VALUES list; each row's expressions
// are evaluated once, without input columns.
type ValuesScan struct {
	PlanBase
	Rows  [][]Expr
	Types []types.T // the row's own column types
}

func (*ValuesScan) Children() []Plan { return nil }
func (*ValuesScan) NodeType() string { return "Values Scan" }

// FunctionScan runs a set-returning function: generate_series (one
// column of type T), or postgres_fdw_get_connections (columns Cols).
type FunctionScan struct {
	PlanBase
	Func  string
	Args  []Expr
	T     types.T
	Cols  []Field
	Alias string
}

func (*FunctionScan) Children() []Plan { return nil }
func (*FunctionScan) NodeType() string { return "Function Scan" }

// SubqueryScan filters or projects the rows of a subquery in FROM.
type SubqueryScan struct {
	PlanBase
	Child Plan
	Alias string
}

func (s *SubqueryScan) Children() []Plan { return []Plan{s.Child} }
func (*SubqueryScan) NodeType() string   { return "Subquery Scan" }

// Append returns the rows of each child in turn (UNION ALL, partitions).
type Append struct {
	PlanBase
	Kids []Plan
	// Parallel marks a parallel-aware Append under a Gather: its children
	// are Parallel Seq Scans, which the participants work through together,
	// each starting at a different child ("Parallel Append").
	Parallel bool
}

func (a *Append) Children() []Plan { return a.Kids }
func (a *Append) NodeType() string {
	if a.Parallel {
		return "Parallel Append"
	}
	return "Append"
}

// AggStrategy is how an Agg groups.
type AggStrategy uint8

const (
	AggPlain  AggStrategy = iota // no GROUP BY: one output row
	AggHashed                    // hash table on the group keys
)

// AggCall is one aggregate function call.
type AggCall struct {
	Name     string // count, sum, avg, min, max, bool_and, bool_or, string_agg
	Args     []Expr // evaluated over the Agg's input; empty for count(*)
	Distinct bool
	Star     bool
	Filter   Expr // FILTER (WHERE ...), nil if none
	// OrderBy sorts each group's input rows before they are aggregated
	// (string_agg(x, ',' ORDER BY x)). For an ordered-set aggregate
	// (WithinGroup) it is the WITHIN GROUP (ORDER BY ...) list, whose
	// expressions are the aggregated arguments, and Args are the direct
	// arguments (percentile_cont(0.5) WITHIN GROUP (ORDER BY x)).
	OrderBy     []SortKey
	WithinGroup bool
	T           types.T
	// Display, when set, is what EXPLAIN prints for the call (a finalize
	// step shows the aggregate it completes, not its combine function).
	Display string
}

func (a *AggCall) String() string {
	if a.Display != "" {
		return a.Display
	}
	var s string
	if a.Star {
		s = a.Name + "(*)"
	} else {
		s = a.Name + "("
		if a.Distinct {
			s += "DISTINCT "
		}
		s += joinExprs(a.Args, ", ")
		keys := make([]string, len(a.OrderBy))
		for i, k := range a.OrderBy {
			keys[i] = k.String()
		}
		switch {
		case a.WithinGroup:
			s += ") WITHIN GROUP (ORDER BY " + strings.Join(keys, ", ") + ")"
		case len(a.OrderBy) > 0:
			s += " ORDER BY " + strings.Join(keys, ", ") + ")"
		default:
			s += ")"
		}
	}
	if a.Filter != nil {
		// As ruleutils' get_agg_expr: the qual as any expression prints
		// (an operator clause in parentheses, a bare column without).
		s += " FILTER (WHERE " + a.Filter.String() + ")"
	}
	return s
}

// Agg computes aggregates, grouped by GroupKeys. Its own rows are the
// group key values followed by the aggregate results.
type Agg struct {
	PlanBase
	Child     Plan
	Strategy  AggStrategy
	GroupKeys []Expr
	Aggs      []*AggCall
	// Split is "" for a whole aggregate, "Partial" for per-partition
	// partial states and "Finalize" for the step that combines them
	// (partitionwise aggregation), as in PostgreSQL's EXPLAIN.
	Split string
	// GroupingSets, for GROUPING SETS, ROLLUP and CUBE, are the sets
	// grouped by, each a list of GroupKeys positions in EXPLAIN's order
	// (empty: the grand total, "()"). A hashed Agg fills one hash table
	// per non-empty set in one pass over its input (MixedAggregate when
	// an empty set is computed beside them); a key outside a row's set
	// is NULL in it. Nil for a plain GROUP BY.
	GroupingSets [][]int
	// Groupings are the grouping() calls, each its arguments' GroupKeys
	// positions; their int4 values follow the aggregates in the Agg's
	// own rows.
	Groupings [][]int
}

// HasEmptySet reports whether one of the grouping sets is ().
func (a *Agg) HasEmptySet() bool {
	for _, s := range a.GroupingSets {
		if len(s) == 0 {
			return true
		}
	}
	return false
}

func (a *Agg) Children() []Plan { return []Plan{a.Child} }
func (a *Agg) NodeType() string {
	name := "Aggregate"
	if a.Strategy == AggHashed {
		name = "HashAggregate"
		if a.HasEmptySet() {
			name = "MixedAggregate"
		}
	}
	if a.Split != "" {
		name = a.Split + " " + name
	}
	return name
}

// SortKey is one ORDER BY item over the node's input.
type SortKey struct {
	Expr       Expr
	Desc       bool
	NullsFirst bool
}

func (k SortKey) String() string {
	s := k.Expr.String()
	if k.Desc {
		s += " DESC"
		if !k.NullsFirst {
			s += " NULLS LAST"
		}
	} else if k.NullsFirst {
		s += " NULLS FIRST"
	}
	return s
}

// Sort orders its input. With Bound > 0 (a LIMIT above), it keeps only
// the first Bound rows (top-N heapsort).
type Sort struct {
	PlanBase
	Child Plan
	Keys  []SortKey
	Bound int64
}

func (s *Sort) Children() []Plan { return []Plan{s.Child} }
func (*Sort) NodeType() string   { return "Sort" }

// Limit applies OFFSET then LIMIT; Count nil means no limit. Count and
// Offset are constant expressions, evaluated at start.
type Limit struct {
	PlanBase
	Child         Plan
	Count, Offset Expr
}

func (l *Limit) Children() []Plan { return []Plan{l.Child} }
func (*Limit) NodeType() string   { return "Limit" }

// ModifyOp is INSERT, UPDATE or DELETE.
type ModifyOp uint8

const (
	Insert ModifyOp = iota
	Update
	Delete
)

// ModifyTable changes a table.
//
// For Insert, Child produces complete rows of Table (defaults filled,
// values coerced to the column types); rows are routed to partitions.
// For Update and Delete, Child scans the rows to change (the WHERE is its
// filter) and produces, per row, the new values of the columns SetCols
// (Update only), then the row's identity: tableoid (for a partitioned
// Table) and ctid (storage's system columns). The node fetches the old
// row by its identity from Leaves, the tables Child scans. Updated rows
// whose partition changes are routed again. Returning, if set, is
// evaluated over the full new (or deleted) row.
//
// Foreign leaves are written through Foreign, one ForeignWrite per
// foreign table the statement writes row by row (INSERT's routing
// targets, or UPDATE and DELETE leaves whose Child scan gives the remote
// ctid), or by a ForeignModify in Child that ships the whole change.
// For an UPDATE with WholeRow, Child gives the old row's columns after
// the SET values (before the identity), for foreign leaves whose rows
// may move to another partition.
type ModifyTable struct {
	PlanBase
	Op        ModifyOp
	Table     *storage.Table
	Child     Plan
	Leaves    []*storage.Table
	SetCols   []int
	Returning []Expr
	Foreign   []*ForeignWrite
	WholeRow  bool
	// MayRepeat: the child may give one target row several times (UPDATE
	// ... FROM, DELETE ... USING joining it to several rows); only the
	// first counts, as PostgreSQL changes a row once per statement.
	MayRepeat bool
}

// ForeignWriteFor returns the ForeignWrite of leaf t for op, or nil.
func (m *ModifyTable) ForeignWriteFor(t *storage.Table, op ModifyOp) *ForeignWrite {
	for _, f := range m.Foreign {
		if f.Table == t && f.Op == op {
			return f
		}
	}
	return nil
}

// ForeignWrite is how a ModifyTable writes rows of one foreign table, as
// postgres_fdw's ForeignModify does: RemoteSQL is the INSERT of one
// row (BatchSize rows go in one INSERT, with the VALUES list repeated),
// or the UPDATE or DELETE of the row whose remote ctid is $1 (an
// UPDATE's new values of SetCols follow as $2, $3 ...). Returning lists
// the table columns the remote RETURNING gives back, for the statement's
// RETURNING. Options are read from the catalog at execution.
type ForeignWrite struct {
	Table      *storage.Table
	Alias      string
	Op         ModifyOp
	RemoteSQL  string
	BatchSize  int
	Returning  []int
	Server     string
	MappingKey string
	// ReadOnly marks a table whose updatable option is off: writing a row
	// to it fails (an INSERT routed to a foreign partition fails only if
	// a row goes there).
	ReadOnly bool
}

// ForeignModify ships an UPDATE or DELETE of a foreign table whole
// (postgres_fdw's direct modification, EXPLAIN's "Foreign Update"): the
// WHERE and SET expressions are part of RemoteSQL. It sits in its
// ModifyTable's Child, where a scan of Table would be, and tells the
// ModifyTable the rows changed and what the remote RETURNING (of the
// table columns Returning) gave.
type ForeignModify struct {
	PlanBase
	Op         ModifyOp
	Table      *storage.Table
	Alias      string
	RemoteSQL  string
	Returning  []int
	Server     string
	MappingKey string
}

func (*ForeignModify) Children() []Plan { return nil }
func (f *ForeignModify) NodeType() string {
	if f.Op == Delete {
		return "Foreign Delete"
	}
	return "Foreign Update"
}

var _ Plan = (*ForeignModify)(nil)

func (m *ModifyTable) Children() []Plan {
	if m.Child == nil {
		return nil
	}
	return []Plan{m.Child}
}
func (m *ModifyTable) NodeType() string {
	return [...]string{"Insert", "Update", "Delete"}[m.Op]
}

// Walk calls fn for p and its descendants, depth first, parents first;
// a node's CTEs and InitPlans come before its children.
func Walk(p Plan, fn func(Plan)) {
	fn(p)
	for _, c := range p.Base().CTEs {
		Walk(c.Plan, fn)
	}
	for _, ip := range p.Base().InitPlans {
		Walk(ip.Plan, fn)
	}
	for _, c := range p.Children() {
		Walk(c, fn)
	}
	for _, sp := range p.Base().SubPlans {
		Walk(sp.Plan, fn)
	}
}

// Number assigns depth-first IDs starting at 0 and returns the count.
func Number(p Plan) int {
	n := 0
	Walk(p, func(q Plan) { q.Base().ID = n; n++ })
	return n
}

// Unique keeps the first row of each run of rows whose Keys (column
// indexes of its input) are equal: DISTINCT ON over sorted input.
type Unique struct {
	PlanBase
	Child Plan
	Keys  []int
}

func (u *Unique) Children() []Plan { return []Plan{u.Child} }
func (*Unique) NodeType() string   { return "Unique" }

var _ Plan = (*Unique)(nil)

// ForeignScan reads a foreign table through a remote cursor. Its own rows
// are the fetched columns (Columns of the foreign table, in order), or,
// when an aggregate was pushed down (Aggs set), the pushed group keys
// followed by the aggregate results. RemoteSQL is exactly what is sent;
// conditions that could not be shipped stay in the node's Filter.
type ForeignScan struct {
	PlanBase
	Table *storage.Table
	Alias string
	// Columns are the table columns fetched (when no aggregate is pushed).
	Columns []int
	// Types are the SQL types of the node's own rows, in order.
	Types []types.T
	// RemoteSQL is the remote query (EXPLAIN VERBOSE's "Remote SQL:").
	RemoteSQL string
	// Relations names a pushed-down aggregate's input for EXPLAIN
	// ("Aggregate on (public.ft t)"); empty for plain scans.
	Relations string
	// Pushed-down parts, kept for EXPLAIN and later rewrites.
	// RemoteConds read scan positions, or table column numbers when
	// CondsOnTable is set.
	RemoteConds  []Expr
	CondsOnTable bool
	// Grouped marks a pushed-down aggregate (GroupKeys and Aggs, either
	// possibly empty: GROUP BY without aggregates is grouped too).
	Grouped   bool
	GroupKeys []Expr
	Aggs      []*AggCall
	OrderBy   []SortKey
	Limit     Expr
	// Connection: the server and the user mapping's key. Options are read
	// from the catalog at execution (never printed).
	Server     string
	MappingKey string
	FetchSize  int
	// FDWStartupCost and FDWTupleCost are the server's cost options
	// (postgres_fdw's fdw_startup_cost, fdw_tuple_cost).
	FDWStartupCost, FDWTupleCost float64
	// AsyncCapable comes from the async_capable option (table over
	// server); Async marks a scan the planner made an async child of an
	// Append (enable_async_append), printed "Async Foreign Scan".
	AsyncCapable bool
	Async        bool
	// AsyncConnections is the server's async_connections option (1 when
	// unset); ConnSlot picks which of those connections this scan uses
	// (0 = the server's primary connection).
	AsyncConnections int
	ConnSlot         int
	// ForUpdate marks the scan of an UPDATE or DELETE: it locks the rows
	// remotely (FOR UPDATE); Columns may then hold storage.CtidColumn,
	// fetched remotely, and storage.TableOIDColumn, the local table's.
	ForUpdate bool
	// Join is set on a pushed-down join (Relations names it) and on an
	// aggregate, ORDER BY or LIMIT pushed above one: the parts of its
	// remote query, which such a push extends.
	Join *RemoteJoin
	// KeyFilter, set by a hash join passing its keys (HashJoin.PassKeys),
	// makes RemoteSQL read only the rows whose key is among them.
	KeyFilter *KeyFilter
	// Params are RemoteSQL's $1, $2 ...: outer values (a correlated
	// subquery's, a parameterized Nested Loop's, an InitPlan's) its WHERE
	// reads, sent with the query each time the scan opens.
	Params []*Param
}

// KeyFilter is a foreign scan's `key = ANY ($1::type[])`: RemoteSQL has
// it, with Param's value (the keys, as an array's text) as $1; Unfiltered
// is the query without it, run when the join could not pass the keys.
type KeyFilter struct {
	Param      int
	Unfiltered string
}

// RemoteJoin is the remote query of a pushed-down join, as SQL text:
// "SELECT Cols FROM From WHERE Where GROUP BY 1..GroupBy HAVING Having
// ORDER BY ... LIMIT ...". Cols are the SQL of the scan's own rows, in
// order (with Grouped, the group keys then the aggregates).
type RemoteJoin struct {
	From    string
	Where   []string
	Cols    []string
	GroupBy int
	Having  []string
	OrderBy []string // each "expr ASC NULLS LAST"
	Limit   string   // " LIMIT n::bigint OFFSET m::bigint", or ""
}

// RemoteTypes are the types of the columns fetched remotely: Types
// without the tableoid the scan adds itself.
func (f *ForeignScan) RemoteTypes() []types.T {
	out := make([]types.T, 0, len(f.Types))
	for i, t := range f.Types {
		if i < len(f.Columns) && f.Columns[i] == storage.TableOIDColumn && !f.Grouped {
			continue
		}
		out = append(out, t)
	}
	return out
}

func (*ForeignScan) Children() []Plan { return nil }
func (f *ForeignScan) NodeType() string {
	if f.Async {
		return "Async Foreign Scan"
	}
	return "Foreign Scan"
}

var _ Plan = (*ForeignScan)(nil)

// Gather runs copies of Child in parallel workers, plus one in the leader
// when LeaderParticipates, and returns their rows in no particular order.
// Child is a partial plan: each copy returns a disjoint part of the rows
// (it contains a parallel-aware scan), unless SingleCopy, where exactly
// one worker runs the whole of Child (debug_parallel_query).
type Gather struct {
	PlanBase
	Child   Plan
	Workers int // Workers Planned
	// LeaderParticipates is parallel_leader_participation at planning: the
	// leader runs a copy too while no worker has rows ready.
	LeaderParticipates bool
	SingleCopy         bool
	// Invisible hides a Gather that debug_parallel_query = regress added
	// from EXPLAIN, as PostgreSQL does.
	Invisible bool
	// SetupCost and TupleCost are parallel_setup_cost and
	// parallel_tuple_cost at planning, for the estimates.
	SetupCost, TupleCost float64
}

func (g *Gather) Children() []Plan { return []Plan{g.Child} }
func (*Gather) NodeType() string   { return "Gather" }

// GatherMerge is Gather for a Child whose copies each return sorted rows
// (a Sort over a partial plan): it merges them under Keys, so its output
// is sorted too. Keys are evaluated over Child's rows.
type GatherMerge struct {
	PlanBase
	Child              Plan
	Workers            int
	LeaderParticipates bool
	Keys               []SortKey
	SetupCost          float64
	TupleCost          float64
}

func (g *GatherMerge) Children() []Plan { return []Plan{g.Child} }
func (*GatherMerge) NodeType() string   { return "Gather Merge" }
