package nodes

import "github.com/pgfed/pgfed/types"

// WindowAgg computes window functions over its child's rows, which
// arrive sorted by PartitionBy and then OrderBy (the planner puts a Sort
// below it when they are not). Its own rows are the child's columns
// followed by one column per function in Funcs, in the child's row order.
// PartitionBy and OrderBy are plain ColumnRefs over the child's rows, as
// are the functions' arguments when they are not constants.
//
// A partition is a run of rows with equal PartitionBy values (NULLs
// equal); peers are rows of a partition with equal OrderBy values (all
// rows of the partition without ORDER BY). Frame picks, for each row, the
// rows an aggregate (and first_value, last_value, nth_value) reads, with
// PostgreSQL 15's rules; row_number, rank, dense_rank, percent_rank,
// cume_dist, ntile, lag and lead ignore the frame.
type WindowAgg struct {
	PlanBase
	Child       Plan
	PartitionBy []Expr
	OrderBy     []SortKey
	Frame       WindowFrame
	Funcs       []*WindowFunc
}

func (w *WindowAgg) Children() []Plan { return []Plan{w.Child} }
func (*WindowAgg) NodeType() string   { return "WindowAgg" }

var _ Plan = (*WindowAgg)(nil)

// WindowFunc is one window function call.
type WindowFunc struct {
	// Name is the function: row_number, rank, dense_rank, percent_rank,
	// cume_dist, ntile, lag, lead, first_value, last_value, nth_value, or
	// (Agg set) an aggregate.
	Name string
	// Args are the function's arguments (lag(x, 2, 0): x, 2, 0); for an
	// aggregate, Agg holds them (with its Star, Distinct and Filter).
	Args []Expr
	Agg  *AggCall
	T    types.T
}

// String is the call as EXPLAIN prints it in PostgreSQL 15, which cannot
// print the window: "row_number() OVER (?)".
func (f *WindowFunc) String() string {
	if f.Agg != nil {
		return f.Agg.String() + " OVER (?)"
	}
	return f.Name + "(" + joinExprs(f.Args, ", ") + ") OVER (?)"
}

// FrameMode is how frame offsets count: RANGE by the ORDER BY value,
// ROWS by rows, GROUPS by peer groups.
type FrameMode uint8

const (
	FrameRange FrameMode = iota
	FrameRows
	FrameGroups
)

// BoundKind is where a frame bound lies.
type BoundKind uint8

const (
	BoundUnboundedPreceding BoundKind = iota
	BoundPreceding                    // Offset before the current row
	BoundCurrentRow                   // the current row (RANGE, GROUPS: its first or last peer)
	BoundFollowing                    // Offset after the current row
	BoundUnboundedFollowing
)

// FrameBound is one end of a frame.
type FrameBound struct {
	Kind BoundKind
	// Offset is a constant expression (no column references): a
	// non-negative bigint for ROWS and GROUPS; for RANGE, of the ORDER BY
	// column's type, or interval for dates and timestamps. It is
	// evaluated once, when the node first runs: NULL is 22004 ("frame
	// starting offset must not be null"), a negative ROWS or GROUPS
	// offset 22013 ("... must not be negative"), and a negative (or NaN)
	// RANGE offset 22013 "invalid preceding or following size in window
	// function" when in_range first compares two rows, as PostgreSQL's.
	Offset Expr
}

// FrameExclude is the frame's EXCLUDE clause.
type FrameExclude uint8

const (
	ExcludeNoOthers FrameExclude = iota
	ExcludeCurrentRow
	ExcludeGroup
	ExcludeTies
)

// WindowFrame is a window's frame clause. The default, RANGE BETWEEN
// UNBOUNDED PRECEDING AND CURRENT ROW, reaches the current row's last
// peer; without ORDER BY every row of the partition is a peer.
type WindowFrame struct {
	Mode       FrameMode
	Start, End FrameBound
	Exclude    FrameExclude
}

// DefaultFrame is the frame of a window without a frame clause.
var DefaultFrame = WindowFrame{Mode: FrameRange, Start: FrameBound{Kind: BoundUnboundedPreceding}, End: FrameBound{Kind: BoundCurrentRow}}
