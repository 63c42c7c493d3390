package planner

// The join method of an equi-join, and Merge Join plans.
//
// A hash join stays the default: pgfed has no indexes, so inputs rarely
// arrive sorted, and sorting both sides costs more than hashing one. As
// PostgreSQL's add_paths_to_joinrel does with the enable_hashjoin,
// enable_mergejoin and enable_nestloop settings, a disabled method is
// used only when no enabled one can do the join (disable_cost); and a
// FULL join never becomes a nested loop when it has a hash or merge
// clause (PostgreSQL's nested loop cannot return unmatched inner rows).
// A merge join is also chosen, whatever the settings, for a FULL join
// whose equalities can be sorted but not hashed.
//
// A Merge Join sorts both inputs on its keys, ascending NULLS LAST (the
// default btree order, as PostgreSQL's sort_inner_and_outer), with Sort
// nodes below it; its merge clauses are the equalities of one sortable
// type across the two sides, and every other condition is its Join
// Filter.

import (
	"math"

	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// joinMethodKind is how a join is executed.
type joinMethodKind uint8

const (
	nestLoopMethod joinMethodKind = iota
	hashMethod
	mergeMethod
)

// joinMethod chooses the method of a join of type typ whose conditions
// quals (between outer and inner) include hashable equalities when
// hashKeys is set; hashOnly forces a hash join (NOT IN's null-aware
// anti join, which only the hash join does).
func (ja *joinAnalysis) joinMethod(typ nodes.JoinType, outer, inner *planned, quals []nodes.Expr, hashKeys, hashOnly bool) joinMethodKind {
	if hashOnly {
		return hashMethod
	}
	mergeKeys, others := false, false
	for _, q := range quals {
		if _, _, ok := ja.mergeClause(q, outer.rels, inner.rels); ok {
			mergeKeys = true
		} else {
			others = true
		}
	}
	if others && (typ == nodes.JoinRight || typ == nodes.JoinFull) {
		// select_mergejoin_clauses: PostgreSQL's merge join returns the
		// unmatched rows of a right or full join only when every join
		// clause is a merge clause.
		mergeKeys = false
	}
	if typ == nodes.JoinFull && mergeKeys && !hashKeys {
		return mergeMethod
	}
	set := ja.pc.settings()
	candidates := []struct {
		m        joinMethodKind
		possible bool
		enabled  bool
	}{
		{hashMethod, hashKeys, set.Bool("enable_hashjoin")},
		{mergeMethod, mergeKeys, set.Bool("enable_mergejoin")},
		{nestLoopMethod, !(typ == nodes.JoinFull && (hashKeys || mergeKeys)), set.Bool("enable_nestloop")},
	}
	for _, c := range candidates {
		if c.possible && c.enabled {
			return c.m
		}
	}
	for _, c := range candidates {
		if c.possible {
			return c.m
		}
	}
	return nestLoopMethod
}

// mergeClause reports whether q is an equality of an expression over
// outer with one over inner, of one sortable type, and returns the two
// sides.
func (ja *joinAnalysis) mergeClause(q nodes.Expr, outer, inner relSet) (nodes.Expr, nodes.Expr, bool) {
	return ja.equalitySides(q, outer, inner, sortable)
}

// sortable reports whether the executor's sorts and merge joins can
// order t (types.Compare's types). Today these are exactly the hashable
// types; the FULL JOIN rule above matters once a type is only sortable.
func sortable(t types.T) bool {
	switch t.ID {
	case types.Bool, types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric,
		types.Text, types.Varchar, types.Name, types.Bpchar, types.Date, types.Timestamp, types.TimestampTZ, types.IntervalType:
		return true
	}
	return false
}

// mergeJoinPlan builds the Merge Join of outer and inner on the merge
// clauses among quals, each input under a Sort on its keys; the other
// quals make its JoinFilter, over pairs (the layout of its pairs).
func (ja *joinAnalysis) mergeJoinPlan(typ nodes.JoinType, outer, inner *planned, quals []nodes.Expr, pairs []int) (*nodes.MergeJoin, error) {
	var okeys, ikeys, rest []nodes.Expr
	for _, q := range quals {
		if l, r, ok := ja.mergeClause(q, outer.rels, inner.rels); ok {
			okeys, ikeys = append(okeys, l), append(ikeys, r)
		} else {
			rest = append(rest, q)
		}
	}
	fo, err := ja.fix(okeys, outer.layout)
	if err != nil {
		return nil, err
	}
	fi, err := ja.fix(ikeys, inner.layout)
	if err != nil {
		return nil, err
	}
	mj := &nodes.MergeJoin{Type: typ}
	for i := range fo {
		mj.MergeKeys = append(mj.MergeKeys, nodes.MergeKey{Outer: fo[i], Inner: fi[i]})
	}
	if len(rest) > 0 {
		if mj.JoinFilter, err = ja.fix1(andOf(rest), pairs); err != nil {
			return nil, err
		}
	}
	mj.Outer = sortedOn(outer.plan, fo)
	mj.Inner = sortedOn(inner.plan, fi)
	return mj, nil
}

// sortedOn puts p under a Sort on keys, ascending NULLS LAST.
func sortedOn(p nodes.Plan, keys []nodes.Expr) nodes.Plan {
	s := &nodes.Sort{Child: p}
	for _, k := range keys {
		s.Keys = append(s.Keys, nodes.SortKey{Expr: k})
	}
	s.Out = p.Base().Out
	estimate(s)
	return s
}

// estimateMergeJoin estimates a merge join as the hash join's
// selectivity over both sorted inputs read once (initial_cost_mergejoin
// without the partial-scan refinements), plus the comparisons.
func estimateMergeJoin(n *nodes.MergeJoin) (rows, startup, total float64) {
	ob, ib := n.Outer.Base(), n.Inner.Base()
	keySels := make([]float64, len(n.MergeKeys))
	for i, k := range n.MergeKeys {
		keySels[i] = keySelectivity(n.Outer, k.Outer, n.Inner, k.Inner)
	}
	sel := selectivity(n.JoinFilter) * combinedSelectivity(keySels)
	rows = joinRows(n.Type, ob.Rows, ib.Rows, sel)
	keys := float64(len(n.MergeKeys))
	startup = ob.StartupCost + ib.StartupCost
	total = ob.TotalCost + ib.TotalCost + (ob.Rows+ib.Rows)*cpuOperatorCost*keys +
		rows*(cpuTupleCost+cpuOperatorCost*math.Max(0, countOps(n.JoinFilter)))
	return rows, startup, total
}
