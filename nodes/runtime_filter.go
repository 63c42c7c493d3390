package nodes

import "strings"

// Runtime filters (DuckDB's and DataFusion's dynamic join filters, a
// semi join reduction inside one plan): a hash join that drops the probe
// rows without a match publishes, once its table is built, a filter of
// the build side's keys; a Seq Scan on its probe side that produces those
// keys drops the rows that cannot match before they reach the operators
// between the two (aggregates, other joins) or the join itself. The
// filter may pass rows that do not match (it is a Bloom filter), never
// drops one that does, and a scan that runs before the filter is
// published passes every row. The planner places filters only where
// dropping such rows cannot change the join's result
// (planner/runtime_filter.go).

// RuntimeFilterSource is what a Hash Join publishes: the filter ID and
// which of its key pairs the filter covers.
type RuntimeFilterSource struct {
	ID   int
	Keys []int // positions in OuterKeys / InnerKeys
}

// RuntimeFilter is a scan's use of a published filter: Keys read the
// scan's own rows (before its Filter) and correspond, one for one, to
// the source's keys; BuildKeys are the join's inner keys they are
// checked against, for EXPLAIN.
type RuntimeFilter struct {
	ID        int
	Keys      []Expr
	BuildKeys []Expr
}

// Cond is the filter as EXPLAIN prints it: the equalities a row must be
// able to satisfy.
func (f *RuntimeFilter) Cond(key func(Expr) string) string {
	parts := make([]string, len(f.Keys))
	for i, k := range f.Keys {
		parts[i] = "(" + key(k) + " = " + f.BuildKeys[i].String() + ")"
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, " AND ") + ")"
}
