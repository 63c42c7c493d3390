package planner

// Join order for a group of inner-joined items (base relations and outer
// joins, which keep their place inside) and the semi and anti joins of
// WHERE's IN and EXISTS sublinks above them. As PostgreSQL's
// standard_join_search: level-wise dynamic programming over the subsets
// of items, joining only subsets that a condition connects unless
// nothing does (then a cross join); above dpItemLimit items, greedy:
// repeatedly join the connected pair with the fewest estimated rows. The
// cost of a tree is the sum of its joins' estimated rows (each row a join
// produces is work for the join above it).
//
// A semi or anti join's right side is an item of the group too, but a
// special one (PostgreSQL's SpecialJoinInfo and join_is_legal): it joins
// only alone, as the right side of its own semi (anti) join, against a
// side holding every item its conditions name (min_lefthand); its
// columns are gone above. So `o.k IN (SELECT ...)` may filter orders
// before orders meet lineitem rather than after. Such a join commutes
// with the inner joins because it only keeps or drops rows of its left
// side, by their own columns; that holds for NOT IN's NULL-aware anti
// join too. Its estimated rows are its left side's times eqjoinsel_semi's
// selectivity (one minus it for an anti join).
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
	"github.com/pgfed/pgfed/pgerr"
)

// dpItemLimit is the most items searched exhaustively.
const dpItemLimit = 10

// edge is a condition over several items of a group.
type edge struct {
	expr  nodes.Expr
	items uint64 // the items it reads
	sel   float64
	// semi is the index of the semi or anti join whose condition it is
	// (its items include that join's right side), -1 for an inner join's.
	semi int
}

// semiSpec is a semi or anti join taking part in a group's join order.
type semiSpec struct {
	node    *jtNode
	rhs     int    // the item of its right side
	minLeft uint64 // the other items its conditions name
	sel     float64
}

// joinGraph is what the join order search knows of a group: the items'
// estimated rows, their conditions, semi and anti joins, LATERAL needs
// (needs[i]: the items item i's references name) and servers (remote[i]:
// the server and user mapping a foreign item can be joined on, "" for a
// local one).
type joinGraph struct {
	rows   []float64
	edges  []edge
	semis  []semiSpec
	needs  []uint64
	remote []string
	rhs    uint64 // the items that are semi or anti joins' right sides
}

// orderNode is a node of a chosen join tree over item indexes.
type orderNode struct {
	item        int // leaf: item index; -1 for a join
	left, right *orderNode
	set         uint64
	// semi, for a join, is the semi or anti join it is (its right side
	// the lone item of that join's right side), -1 for an inner join.
	semi int
}

// flattensSemi reports whether semi or anti join n takes part in the
// join order of the items under it: not when its right side names other
// relations through LATERAL (that needs a per-row loop, which the join
// refuses wherever it is).
func (ja *joinAnalysis) flattensSemi(n *jtNode) bool {
	return n.rel < 0 && n.typ.OwnRowsAreOuter() && !ja.lateralNeeds(n.right.rels, ^n.right.rels)
}

// planInnerGroup plans a tree of inner joins, and the semi and anti joins
// above them, as one group.
func (ja *joinAnalysis) planInnerGroup(n *jtNode, filters, want []nodes.Expr, out []nodes.Field) (*planned, error) {
	var items []*jtNode
	var quals []nodes.Expr
	var semis []semiSpec
	var flatten func(x *jtNode)
	flatten = func(x *jtNode) {
		switch {
		case x.rel < 0 && x.typ == nodes.JoinInner:
			flatten(x.left)
			flatten(x.right)
			quals = append(quals, x.quals...)
		case ja.flattensSemi(x):
			flatten(x.left)
			items = append(items, x.right)
			semis = append(semis, semiSpec{node: x, rhs: len(items) - 1})
		default:
			items = append(items, x)
		}
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
			edges = append(edges, edge{expr: q, items: set, semi: -1})
			// An OR over several items may still restrict each one.
			for i := range items {
				if r := ja.restrictionOr(q, items[i].rels); r != nil {
					itemFilters[i] = append(itemFilters[i], r)
				}
			}
		}
	}
	// A semi join's conditions on its right side alone filter that side
	// (as a left join's on its nullable side); the others are its join
	// conditions, evaluated where its right side joins.
	var rhs uint64
	for k := range semis {
		s := &semis[k]
		rhs |= 1 << s.rhs
		for _, q := range s.node.quals {
			r := ja.refs(q)
			if r.subsetOf(s.node.right.rels) {
				itemFilters[s.rhs] = append(itemFilters[s.rhs], q)
				continue
			}
			set := ja.itemsOf(items, r&^s.node.right.rels)
			s.minLeft |= set
			edges = append(edges, edge{expr: q, items: set | 1<<s.rhs, semi: k})
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
		if edges[i].semi < 0 {
			edges[i].sel = ja.edgeSelectivity(edges[i].expr, parts)
		}
	}
	for k := range semis {
		semis[k].sel = ja.semiSelectivity(k, semis, edges, parts)
	}
	remote := make([]string, len(parts))
	for i, p := range parts {
		if p.remote != nil {
			remote[i] = p.remote.scan.Server + "\x00" + p.remote.scan.MappingKey
		}
	}
	g := &joinGraph{rows: rows, edges: edges, semis: semis, needs: ja.lateralItemNeeds(items), remote: remote, rhs: rhs}
	tree := g.chooseJoinOrder()
	if tree == nil {
		return nil, pgerr.Internal("planner: no legal join order")
	}
	return ja.buildOrder(tree, items, parts, g, want, out, true)
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
// conditions that its two sides together complete (a semi join, its
// own).
func (ja *joinAnalysis) buildOrder(t *orderNode, items []*jtNode, parts []*planned, g *joinGraph, want []nodes.Expr, out []nodes.Field, top bool) (*planned, error) {
	if t.item >= 0 {
		return parts[t.item], nil
	}
	var here, later []nodes.Expr
	for _, e := range g.edges {
		switch {
		case e.items&^t.set == 0 && e.items&^t.left.set != 0 && e.items&^t.right.set != 0:
			here = append(here, e.expr)
		case e.items&^t.set != 0:
			later = append(later, e.expr)
		}
	}
	l, err := ja.buildOrder(t.left, items, parts, g, want, out, false)
	if err != nil {
		return nil, err
	}
	r, err := ja.buildOrder(t.right, items, parts, g, want, out, false)
	if err != nil {
		return nil, err
	}
	if !top {
		// The right sides of the semi joins done so far have no columns
		// here.
		var visible relSet
		for s := t.set &^ g.rhs; s != 0; s &= s - 1 {
			visible |= items[bits.TrailingZeros64(s)].rels
		}
		want, out = ja.columnsIn(visible, append(append(append([]nodes.Expr(nil), want...), later...), ja.lateralArgs()...)...)
	}
	if t.semi < 0 {
		return ja.join(nodes.JoinInner, l, r, here, nil, want, out)
	}
	sj := g.semis[t.semi].node
	if t.left.item == g.semis[t.semi].rhs {
		l, r = r, l
	}
	if sj.nullAware {
		return ja.nullAwareJoin(l, r, here, nil, want, out)
	}
	return ja.join(sj.typ, l, r, here, nil, want, out)
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
	nd, nf, isDefault := ja.columnDistinct(g)
	if isDefault {
		for _, p := range parts {
			if p.rels&(relSet(1)<<ja.js.used[g].rel) != 0 {
				nd = math.Min(nd, math.Max(p.plan.Base().Rows, 1))
			}
		}
	}
	return nd, nf
}

// columnDistinct returns column g's distinct count and null fraction
// from its table's statistics, or DEFAULT_NUM_DISTINCT (isDefault) when
// it has none.
func (ja *joinAnalysis) columnDistinct(g int) (nd, nullFrac float64, isDefault bool) {
	u := ja.js.used[g]
	if r := ja.js.rels[u.rel]; r.table != nil {
		if st := r.table.Stats(); st != nil && u.col < len(st) {
			return st[u.col].NDistinct, st[u.col].NullFrac, false
		}
	}
	return 200, 0, true
}

// semiSelectivity is the fraction of its left side's rows semi join k
// keeps (an anti join, the rest): the product over its conditions of
// eqjoinsel_semi's for an equality and the scan selectivity for most
// others. A <> alone keeps every row (with more than one value on the
// right, every left row finds an unequal one, as neqjoinsel says); next
// to an equality it chooses among the rows of equal keys, often only the
// row itself (TPC-H Q21's other supplier of the same order), so what it
// keeps is unknown: eqjoinsel_semi's default, 0.5. (Taken as 1 there, Q21's
// anti join would keep no rows and go below every join, where it keeps
// most of lineitem.)
func (ja *joinAnalysis) semiSelectivity(k int, semis []semiSpec, edges []edge, parts []*planned) float64 {
	s := semis[k]
	var eqs, others []nodes.Expr
	for _, e := range edges {
		if e.semi != k {
			continue
		}
		if op, ok := e.expr.(*nodes.OpExpr); ok && op.Op == "=" {
			eqs = append(eqs, e.expr)
		} else {
			others = append(others, e.expr)
		}
	}
	sel := 1.0
	for _, q := range eqs {
		sel *= ja.eqSemiSelectivity(q.(*nodes.OpExpr), parts[s.rhs])
	}
	for _, q := range others {
		switch op, ok := q.(*nodes.OpExpr); {
		case ok && op.Op == "<>" && len(eqs) > 0:
			sel *= 0.5
		case ok && op.Op == "<>":
		default:
			sel *= selectivity(q)
		}
	}
	if s.node.typ == nodes.JoinAnti {
		return 1 - sel
	}
	return sel
}

// eqSemiSelectivity is eqjoinsel_semi without most-common values: with
// distinct counts nd1 on the left and nd2 on the right (at most the
// right side's rows), a left value finds a match with probability
// min(nd2/nd1, 1); 0.5 when either count is a default. A left NULL never
// matches.
func (ja *joinAnalysis) eqSemiSelectivity(op *nodes.OpExpr, rhs *planned) float64 {
	left, right := op.Left, op.Right
	if ja.refs(left).subsetOf(rhs.rels) {
		left, right = right, left
	}
	nd1, nf1, def1 := 200.0, 0.0, true
	if c, ok := left.(*nodes.ColumnRef); ok {
		nd1, nf1, def1 = ja.columnDistinct(c.Index)
	}
	nd2, def2 := 200.0, true
	if c, ok := right.(*nodes.ColumnRef); ok {
		nd2, _, def2 = ja.columnDistinct(c.Index)
	}
	if rows := math.Max(rhs.plan.Base().Rows, 1); nd2 >= rows {
		nd2, def2 = rows, false // the right side has no more values than rows
	}
	switch {
	case def1 || def2:
		return 0.5 * (1 - nf1)
	case nd1 <= nd2:
		return 1 - nf1
	}
	return nd2 / nd1 * (1 - nf1)
}

// chooseJoinOrder picks the join tree of least total estimated rows (nil
// when no order is legal).
func (g *joinGraph) chooseJoinOrder() *orderNode {
	if len(g.rows) <= dpItemLimit {
		return g.dpJoinOrder()
	}
	return g.greedyJoinOrder()
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

// joinable reports whether sides l and r may be joined, and as which
// semi join (-1: an inner join), as join_is_legal: LATERAL references
// cross one way only, and a semi join's right side joins alone, against
// a side with its min_lefthand (and so some item of the group's own).
func (g *joinGraph) joinable(l, r uint64) (int, bool) {
	if !splittable(l, r, g.needs) {
		return -1, false
	}
	lOnlyRHS, rOnlyRHS := l&^g.rhs == 0, r&^g.rhs == 0
	switch {
	case lOnlyRHS && rOnlyRHS:
		return -1, false
	case lOnlyRHS:
		return g.semiOf(l, r)
	case rOnlyRHS:
		return g.semiOf(r, l)
	}
	return -1, true
}

// semiOf is the semi join whose right side is rhs, if left may be its
// left side.
func (g *joinGraph) semiOf(rhs, left uint64) (int, bool) {
	for k, s := range g.semis {
		if rhs == 1<<s.rhs {
			return k, s.minLeft&^left == 0
		}
	}
	return -1, false
}

// card is the estimated rows of the join of the items in set: a semi
// join's right side adds no rows, its selectivity.
func (g *joinGraph) card(set uint64) float64 {
	c := 1.0
	for s := set &^ g.rhs; s != 0; s &= s - 1 {
		c *= g.rows[bits.TrailingZeros64(s)]
	}
	// Equalities between the same two items combine with backoff, as a
	// hash join's keys do (combinedSelectivity).
	byPair := map[uint64][]float64{}
	for _, e := range g.edges {
		if e.semi < 0 && e.items&^set == 0 {
			byPair[e.items] = append(byPair[e.items], e.sel)
		}
	}
	for pair, sels := range byPair {
		rows := [2]float64{1, 1}
		for k, s := 0, pair; s != 0 && k < 2; k, s = k+1, s&(s-1) {
			rows[k] = g.rows[bits.TrailingZeros64(s)]
		}
		c *= combinedSelectivity(sels, rows[0], rows[1])
	}
	for _, s := range g.semis {
		if set&(1<<s.rhs) != 0 {
			c *= s.sel
		}
	}
	return math.Max(c, 1)
}

// connected reports whether an inner join's condition joins a and b.
func (g *joinGraph) connected(a, b uint64) bool {
	for _, e := range g.edges {
		if e.semi < 0 && e.items&a != 0 && e.items&b != 0 && e.items&^(a|b) == 0 {
			return true
		}
	}
	return false
}

// joinCost is the rows that joining l and r (as semi join semi, or -1)
// adds to the cost of a tree: its own; for a semi join, to break ties,
// also a millionth of those it reads from its left side, so that one
// removing no rows goes where it reads the fewest.
func (g *joinGraph) joinCost(l, r uint64, semi int) float64 {
	c := g.card(l | r)
	if semi >= 0 {
		c += 1e-6 * g.card((l|r)&^(1<<g.semis[semi].rhs))
	}
	return c
}

// dpJoinOrder counts every row an item produces and every row a join
// produces, except that a join of items on one server (pushed down,
// foreign_join.go) counts only its result: its inputs never leave the
// server. Without foreign items this is the sum of the joins' rows plus
// a constant, and the order the same.
func (g *joinGraph) dpJoinOrder() *orderNode {
	n := len(g.rows)
	full := uint64(1)<<n - 1
	best := make([]*orderNode, full+1)
	cost := make([]float64, full+1)
	for i := 0; i < n; i++ {
		best[1<<i] = &orderNode{item: i, set: 1 << i, semi: -1}
		cost[1<<i] = g.rows[i]
	}
	for size := 2; size <= n; size++ {
		for set := uint64(1); set <= full; set++ {
			if bits.OnesCount64(set) != size {
				continue
			}
			for _, cross := range []bool{false, true} {
				// Enumerate the splits of set into two non-empty halves.
				for l := (set - 1) & set; l != 0; l = (l - 1) & set {
					r := set &^ l
					if bits.TrailingZeros64(r) < bits.TrailingZeros64(l) {
						continue // each split once, the side with the first item on the left
					}
					if best[l] == nil || best[r] == nil {
						continue
					}
					semi, ok := g.joinable(l, r)
					if !ok || semi < 0 && !cross && !g.connected(l, r) {
						continue
					}
					total := cost[l] + cost[r] + g.joinCost(l, r, semi)
					if remoteOf(set, g.remote) != "" {
						total = g.card(set)
					}
					if best[set] == nil || total < cost[set] {
						best[set] = &orderNode{item: -1, left: best[l], right: best[r], set: set, semi: semi}
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

// greedyJoinOrder joins the pair of fewest rows first, a semi join like
// any other: one that keeps every row then goes on the smallest side it
// may, as the exhaustive search puts it.
func (g *joinGraph) greedyJoinOrder() *orderNode {
	var trees []*orderNode
	for i := range g.rows {
		trees = append(trees, &orderNode{item: i, set: 1 << i, semi: -1})
	}
	for len(trees) > 1 {
		bi, bj, bsemi, bc, bconn := -1, -1, -1, 0.0, false
		for i := range trees {
			for j := range trees {
				if i == j {
					continue
				}
				semi, ok := g.joinable(trees[i].set, trees[j].set)
				if !ok {
					continue
				}
				conn := semi >= 0 || g.connected(trees[i].set, trees[j].set)
				c := g.card(trees[i].set | trees[j].set)
				if bi < 0 || conn && !bconn || conn == bconn && c < bc {
					bi, bj, bsemi, bc, bconn = i, j, semi, c, conn
				}
			}
		}
		if bi < 0 {
			return nil
		}
		if bits.TrailingZeros64(trees[bj].set) < bits.TrailingZeros64(trees[bi].set) {
			bi, bj = bj, bi // the side with the first item on the left
		}
		t := &orderNode{item: -1, left: trees[bi], right: trees[bj], set: trees[bi].set | trees[bj].set, semi: bsemi}
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
