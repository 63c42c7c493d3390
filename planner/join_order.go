package planner

// Join order for a group of inner-joined items (base relations and outer
// joins, which keep their place inside). As PostgreSQL's
// standard_join_search: level-wise dynamic programming over the subsets
// of items, joining only subsets that a condition connects unless
// nothing does (then a cross join); above dpItemLimit items, greedy:
// repeatedly join the connected pair with the fewest estimated rows. The
// cost of a tree is the sum of its joins' estimated rows (each row a join
// produces is work for the join above it).
//
// Row estimates: an item's rows are those of its planned subtree; a
// condition's selectivity is eqjoinsel's (1-nullfrac1)(1-nullfrac2) /
// max(nd1, nd2) for an equality of two columns with statistics
// (DEFAULT_NUM_DISTINCT, 200, capped at the rows, for a side without),
// else the scan selectivity of the condition.

import (
	"math"
	"math/bits"

	"github.com/pgfed/pgfed/nodes"
)

// dpItemLimit is the most items searched exhaustively.
const dpItemLimit = 10

// edge is a condition over several items of a group.
type edge struct {
	expr  nodes.Expr
	items uint64 // the items it reads
	sel   float64
}

// orderNode is a node of a chosen join tree over item indexes.
type orderNode struct {
	item        int // leaf: item index; -1 for a join
	left, right *orderNode
	set         uint64
}

// planInnerGroup plans a tree of inner joins as one group.
func (ja *joinAnalysis) planInnerGroup(n *jtNode, filters, want []nodes.Expr, out []nodes.Field) (*planned, error) {
	var items []*jtNode
	var quals []nodes.Expr
	var flatten func(x *jtNode)
	flatten = func(x *jtNode) {
		if x.rel < 0 && x.typ == nodes.JoinInner {
			flatten(x.left)
			flatten(x.right)
			quals = append(quals, x.quals...)
			return
		}
		items = append(items, x)
	}
	flatten(n)
	quals = append(quals, filters...)
	itemFilters := make([][]nodes.Expr, len(items))
	var edges []edge
	for _, q := range quals {
		set := ja.itemsOf(items, ja.refs(q))
		switch bits.OnesCount64(set) {
		case 0:
			itemFilters[0] = append(itemFilters[0], q)
		case 1:
			i := bits.TrailingZeros64(set)
			itemFilters[i] = append(itemFilters[i], q)
		default:
			edges = append(edges, edge{expr: q, items: set})
			// An OR over several items may still restrict each one.
			for i := range items {
				if r := ja.restrictionOr(q, items[i].rels); r != nil {
					itemFilters[i] = append(itemFilters[i], r)
				}
			}
		}
	}
	above := append(append([]nodes.Expr(nil), want...), ja.lateralArgs()...)
	for _, e := range edges {
		above = append(above, e.expr)
	}
	parts := make([]*planned, len(items))
	rows := make([]float64, len(items))
	for i, it := range items {
		w, o := ja.columnsIn(it.rels, above...)
		p, err := ja.plan(it, itemFilters[i], w, o)
		if err != nil {
			return nil, err
		}
		estimate(p.plan)
		parts[i], rows[i] = p, p.plan.Base().Rows
	}
	for i := range edges {
		edges[i].sel = ja.edgeSelectivity(edges[i].expr, parts)
	}
	remote := make([]string, len(parts))
	for i, p := range parts {
		if p.remote != nil {
			remote[i] = p.remote.scan.Server + "\x00" + p.remote.scan.MappingKey
		}
	}
	tree := chooseJoinOrder(rows, edges, ja.lateralItemNeeds(items), remote)
	return ja.buildOrder(tree, parts, edges, want, out, true)
}

// itemsOf maps a relation set to the items holding those relations.
func (ja *joinAnalysis) itemsOf(items []*jtNode, rels relSet) uint64 {
	var s uint64
	for i, it := range items {
		if it.rels&rels != 0 {
			s |= 1 << i
		}
	}
	return s
}

// buildOrder builds the joins of a chosen tree; a join evaluates the
// conditions that its two sides together complete.
func (ja *joinAnalysis) buildOrder(t *orderNode, parts []*planned, edges []edge, want []nodes.Expr, out []nodes.Field, top bool) (*planned, error) {
	if t.item >= 0 {
		return parts[t.item], nil
	}
	var here, later []nodes.Expr
	for _, e := range edges {
		switch {
		case e.items&^t.set == 0 && e.items&^t.left.set != 0 && e.items&^t.right.set != 0:
			here = append(here, e.expr)
		case e.items&^t.set != 0:
			later = append(later, e.expr)
		}
	}
	l, err := ja.buildOrder(t.left, parts, edges, want, out, false)
	if err != nil {
		return nil, err
	}
	r, err := ja.buildOrder(t.right, parts, edges, want, out, false)
	if err != nil {
		return nil, err
	}
	if !top {
		want, out = ja.columnsIn(l.rels|r.rels, append(append(append([]nodes.Expr(nil), want...), later...), ja.lateralArgs()...)...)
	}
	return ja.join(nodes.JoinInner, l, r, here, nil, want, out)
}

// edgeSelectivity estimates the fraction of item pairs a condition keeps.
func (ja *joinAnalysis) edgeSelectivity(q nodes.Expr, parts []*planned) float64 {
	op, ok := q.(*nodes.OpExpr)
	if !ok || op.Op != "=" {
		return selectivity(q)
	}
	lc, lok := op.Left.(*nodes.ColumnRef)
	rc, rok := op.Right.(*nodes.ColumnRef)
	if !lok || !rok {
		return selectivity(q)
	}
	nd1, nf1 := ja.distinct(lc.Index, parts)
	nd2, nf2 := ja.distinct(rc.Index, parts)
	return (1 - nf1) * (1 - nf2) / math.Max(math.Max(nd1, nd2), 1)
}

// distinct returns column g's distinct count and null fraction.
func (ja *joinAnalysis) distinct(g int, parts []*planned) (float64, float64) {
	u := ja.js.used[g]
	r := ja.js.rels[u.rel]
	if r.table != nil {
		if st := r.table.Stats(); st != nil && u.col < len(st) {
			return st[u.col].NDistinct, st[u.col].NullFrac
		}
	}
	nd := 200.0
	for _, p := range parts {
		if p.rels&(relSet(1)<<u.rel) != 0 {
			nd = math.Min(nd, math.Max(p.plan.Base().Rows, 1))
		}
	}
	return nd, 0
}

// chooseJoinOrder picks the join tree of least total estimated rows;
// needs[i] are the items that item i's LATERAL references name, remote[i]
// the server and user mapping a foreign item can be joined on ("" for a
// local one).
func chooseJoinOrder(rows []float64, edges []edge, needs []uint64, remote []string) *orderNode {
	if len(rows) <= dpItemLimit {
		return dpJoinOrder(rows, edges, needs, remote)
	}
	return greedyJoinOrder(rows, edges, needs)
}

// remoteOf is the server and mapping every item of set is on, "" when
// they are not all on one (or some are local).
func remoteOf(set uint64, remote []string) string {
	key := ""
	for s := set; s != 0; s &= s - 1 {
		k := remote[bits.TrailingZeros64(s)]
		if k == "" || key != "" && k != key {
			return ""
		}
		key = k
	}
	return key
}

// splittable reports whether sides l and r can be joined: LATERAL
// references may cross between them one way only (the naming side then
// runs per row of the other).
func splittable(l, r uint64, needs []uint64) bool {
	return !(needsOf(l, needs)&r != 0 && needsOf(r, needs)&l != 0)
}

func needsOf(set uint64, needs []uint64) uint64 {
	var n uint64
	for s := set; s != 0; s &= s - 1 {
		n |= needs[bits.TrailingZeros64(s)]
	}
	return n
}

// card is the estimated rows of the join of the items in set.
func card(set uint64, rows []float64, edges []edge) float64 {
	c := 1.0
	for s := set; s != 0; s &= s - 1 {
		c *= rows[bits.TrailingZeros64(s)]
	}
	// Equalities between the same two items combine with backoff, as a
	// hash join's keys do (combinedSelectivity).
	byPair := map[uint64][]float64{}
	for _, e := range edges {
		if e.items&^set == 0 {
			byPair[e.items] = append(byPair[e.items], e.sel)
		}
	}
	for _, sels := range byPair {
		c *= combinedSelectivity(sels)
	}
	return math.Max(c, 1)
}

func connected(a, b uint64, edges []edge) bool {
	for _, e := range edges {
		if e.items&a != 0 && e.items&b != 0 && e.items&^(a|b) == 0 {
			return true
		}
	}
	return false
}

// dpJoinOrder counts every row an item produces and every row a join
// produces, except that a join of items on one server (pushed down,
// foreign_join.go) counts only its result: its inputs never leave the
// server. Without foreign items this is the sum of the joins' rows plus
// a constant, and the order the same.
func dpJoinOrder(rows []float64, edges []edge, needs []uint64, remote []string) *orderNode {
	n := len(rows)
	full := uint64(1)<<n - 1
	best := make([]*orderNode, full+1)
	cost := make([]float64, full+1)
	for i := 0; i < n; i++ {
		best[1<<i] = &orderNode{item: i, set: 1 << i}
		cost[1<<i] = rows[i]
	}
	for size := 2; size <= n; size++ {
		for set := uint64(1); set <= full; set++ {
			if bits.OnesCount64(set) != size {
				continue
			}
			for _, cross := range []bool{false, true} {
				c := card(set, rows, edges)
				// Enumerate the splits of set into two non-empty halves.
				for l := (set - 1) & set; l != 0; l = (l - 1) & set {
					r := set &^ l
					if bits.TrailingZeros64(r) < bits.TrailingZeros64(l) {
						continue // each split once, the side with the first item on the left
					}
					if best[l] == nil || best[r] == nil || (!cross && !connected(l, r, edges)) || !splittable(l, r, needs) {
						continue
					}
					total := cost[l] + cost[r] + c
					if remoteOf(set, remote) != "" {
						total = c
					}
					if best[set] == nil || total < cost[set] {
						best[set] = &orderNode{item: -1, left: best[l], right: best[r], set: set}
						cost[set] = total
					}
				}
				if best[set] != nil {
					break
				}
			}
		}
	}
	return best[full]
}

func greedyJoinOrder(rows []float64, edges []edge, needs []uint64) *orderNode {
	var trees []*orderNode
	for i := range rows {
		trees = append(trees, &orderNode{item: i, set: 1 << i})
	}
	for len(trees) > 1 {
		bi, bj, bc, bconn := -1, -1, 0.0, false
		for i := range trees {
			for j := range trees {
				if i == j || !splittable(trees[i].set, trees[j].set, needs) {
					continue
				}
				conn := connected(trees[i].set, trees[j].set, edges)
				c := card(trees[i].set|trees[j].set, rows, edges)
				if bi < 0 || conn && !bconn || conn == bconn && c < bc {
					bi, bj, bc, bconn = i, j, c, conn
				}
			}
		}
		if bits.TrailingZeros64(trees[bj].set) < bits.TrailingZeros64(trees[bi].set) {
			bi, bj = bj, bi // the side with the first item on the left
		}
		t := &orderNode{item: -1, left: trees[bi], right: trees[bj], set: trees[bi].set | trees[bj].set}
		var next []*orderNode
		for k, x := range trees {
			if k != bi && k != bj {
				next = append(next, x)
			}
		}
		trees = append(next, t)
	}
	return trees[0]
}

// restrictionOr derives from an OR condition over several relations one
// that reads only rels and that every row passing the OR passes too: the
// OR of each arm's conjuncts on rels, when every arm has some
// (PostgreSQL's extract_restriction_or_clauses). The original condition
// stays where it was; the derived one filters rels' scan early (TPC-H
// Q19's part and lineitem conditions). nil when there is none.
func (ja *joinAnalysis) restrictionOr(q nodes.Expr, rels relSet) nodes.Expr {
	or, ok := q.(*nodes.BoolExpr)
	if !ok || or.Op != nodes.Or {
		return nil
	}
	arms := make([]nodes.Expr, 0, len(or.Args))
	for _, a := range or.Args {
		var own []nodes.Expr
		for _, c := range flattenAnd(a) {
			if r := ja.refs(c); r != 0 && r.subsetOf(rels) {
				own = append(own, c)
			}
		}
		if len(own) == 0 {
			return nil
		}
		arms = append(arms, andOf(own))
	}
	return &nodes.BoolExpr{Op: nodes.Or, Args: arms}
}
