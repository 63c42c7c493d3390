package planner

// GROUPING SETS, ROLLUP, CUBE and grouping(), analysed as PostgreSQL's
// parse_clause.c (transformGroupClause), parse_agg.c
// (expand_grouping_sets, transformGroupingFunc) and planner.c
// (extract_rollup_sets, reorder_grouping_sets) do:
//
//   - The GROUP BY items resolve to a list of distinct key expressions
//     (PostgreSQL's groupClause) and each grouping set to positions in it.
//   - The sets expand to the cartesian product of the top-level items
//     (GROUP BY a, ROLLUP(b, c) = (a,b,c), (a,b), (a)), each set without
//     duplicate keys but duplicate sets kept (unless GROUP BY DISTINCT),
//     sorted by size; CUBE is limited to 12 elements and the product to
//     4096 sets.
//   - A single non-empty set is a plain GROUP BY; an expansion to empty
//     sets only is a plain aggregate with a row per set.
//   - The sets are ordered as PostgreSQL prints them: chains of sets
//     each contained in the next (a minimal chain cover, by the same
//     Hopcroft-Karp matching), every chain largest set first, its keys in
//     prefix order; the empty sets last.
//
// grouping(a, b) is transformed to a groupingRef over the input; the
// lifter (select.go) replaces it with a column of the Agg's own rows,
// whose value per set is the bit mask of the arguments absent from it
// (the first argument the most significant bit), or the constant 0
// without grouping sets.

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

const (
	maxCubeElements  = 12
	maxGroupingSets  = 4096
	maxGroupingArgs  = 31
	tooManyArguments = "54023"
)

// groupingRef is a grouping() call while planning: its arguments are
// expressions over the Agg's input, which must be group keys.
type groupingRef struct {
	args []nodes.Expr
	locs []int32 // each argument's position in the query text
}

func (g *groupingRef) Type() types.T { return types.Int4T }

// String is ruleutils' GROUPING(a, b).
func (g *groupingRef) String() string {
	parts := make([]string, len(g.args))
	for i, a := range g.args {
		parts[i] = a.String()
	}
	return "GROUPING(" + strings.Join(parts, ", ") + ")"
}

// EqualExpr makes grouping() calls over the same arguments one value, so
// that ORDER BY grouping(a) matches the select list's grouping(a).
func (g *groupingRef) EqualExpr(b nodes.Expr) bool {
	y, ok := b.(*groupingRef)
	return ok && nodes.EqualLists(g.args, y.args)
}

var _ nodes.Equaler = (*groupingRef)(nil)

// groupingFunc transforms grouping(...): allowed where aggregates are,
// never inside one, with fewer than 32 arguments.
func (c *exprCtx) groupingFunc(gf *pg.GroupingFunc) (nodes.Expr, error) {
	if len(gf.Args) > maxGroupingArgs {
		return nil, errAt(pgerr.New(tooManyArguments, "GROUPING must have fewer than 32 arguments"), gf.Location)
	}
	if c.aggs == nil {
		clause := c.clause
		if clause == "" {
			clause = "this context"
		}
		return nil, errAt(pgerr.New(pgerr.GroupingError, "grouping operations are not allowed in %s", clause), gf.Location)
	}
	if c.inAgg {
		return nil, errAt(pgerr.New(pgerr.GroupingError, "aggregate function calls cannot be nested"), gf.Location)
	}
	g := &groupingRef{}
	for _, a := range gf.Args {
		e, err := c.transform(a)
		if err != nil {
			return nil, err
		}
		g.args = append(g.args, e)
		g.locs = append(g.locs, exprLocation(a))
	}
	if outerLevelAggregate(g.args) {
		// PostgreSQL makes it the outer query's grouping(), as it does an
		// aggregate over outer columns only.
		return nil, errAt(pgerr.NotSupported("grouping() in a subquery over only the outer query's columns"), gf.Location)
	}
	return g, nil
}

// hasGroupingRef reports whether any of es calls grouping(), which makes
// a query grouped as an aggregate does.
func hasGroupingRef(es ...nodes.Expr) bool {
	found := false
	for _, e := range es {
		walkAll(e, func(x nodes.Expr) {
			if _, ok := x.(*groupingRef); ok {
				found = true
			}
		})
	}
	return found
}

// liftGrouping is the lifter's grouping(): a constant 0 without grouping
// sets, otherwise a column after the aggregates (one per distinct call).
func (l *lifter) liftGrouping(g *groupingRef) (nodes.Expr, error) {
	refs := make([]int, len(g.args))
	for i, a := range g.args {
		refs[i] = slices.IndexFunc(l.keys, func(k nodes.Expr) bool { return nodes.Equal(k, a) })
		if refs[i] < 0 {
			return nil, errAt(pgerr.New(pgerr.GroupingError, "arguments to GROUPING must be grouping expressions of the associated query level"), g.locs[i])
		}
	}
	if l.sets == nil {
		return &nodes.Const{T: types.Int4T, Value: int64(0)}, nil
	}
	idx := slices.IndexFunc(l.groupings, func(r []int) bool { return slices.Equal(r, refs) })
	if idx < 0 {
		idx = len(l.groupings)
		l.groupings = append(l.groupings, refs)
	}
	return &nodes.ColumnRef{Index: l.nkeys + l.naggs + idx, Name: g.String(), T: types.Int4T, Raw: true}, nil
}

// groupingFields are the Agg's own columns of its grouping() calls.
func groupingFields(keys []nodes.Expr, groupings [][]int) []nodes.Field {
	fs := make([]nodes.Field, len(groupings))
	for i, refs := range groupings {
		g := &groupingRef{}
		for _, r := range refs {
			g.args = append(g.args, keys[r])
		}
		fs[i] = nodes.Field{Name: g.String(), T: types.Int4T}
	}
	return fs
}

// hasGroupingSets reports whether GROUP BY needs the grouping-set
// analysis: a ROLLUP, CUBE, GROUPING SETS, (), a parenthesized list or
// GROUP BY DISTINCT.
func hasGroupingSets(s *pg.SelectStmt) bool {
	for _, g := range s.GroupClause {
		switch x := g.Node.(type) {
		case *pg.Node_GroupingSet:
			return true
		case *pg.Node_RowExpr:
			if x.RowExpr.RowFormat == pg.CoercionForm_COERCE_IMPLICIT_CAST {
				return true
			}
		}
	}
	return false
}

// groupingSpec is an analysed GROUP BY with grouping sets: the distinct
// keys and the sets over them (nil sets: a plain GROUP BY of keys).
type groupingSpec struct {
	keys []nodes.Expr
	sets [][]int
}

type groupingAnalyzer struct {
	pc      *planCtx
	ec      *exprCtx
	targets []target // the select list, for ordinals and output names
	all     []target // with ORDER BY's junk entries, for orderKeys
	keys    []nodes.Expr
}

// groupingSets analyses s's GROUP BY into keys and expanded, ordered
// sets; targets are the select list's first visible ones and ORDER BY's
// junk after them. orderBy is the query's ORDER BY, which may fix the
// order of the keys in a single chain of sets, as in PostgreSQL.
func (pc *planCtx) groupingSets(s *pg.SelectStmt, ec *exprCtx, targets []target, visible int, orderBy []nodes.SortKey) (*groupingSpec, error) {
	ga := &groupingAnalyzer{pc: pc, ec: ec, targets: targets[:visible], all: targets}
	var items [][][]int
	count := 1
	for _, g := range s.GroupClause {
		sets, err := ga.item(g)
		if err != nil {
			return nil, err
		}
		if count *= len(sets); count > maxGroupingSets {
			return nil, pgerr.New(pgerr.StatementTooComplex, "too many grouping sets present (maximum %d)", maxGroupingSets)
		}
		items = append(items, sets)
	}
	sets := cartesian(items)
	if s.GroupDistinct && len(sets) > 1 {
		sets = distinctSets(sets)
	} else {
		pgQsort(sets, func(a, b []int) int { return len(a) - len(b) })
	}
	spec := &groupingSpec{keys: ga.keys}
	if len(sets) == 1 && len(ga.keys) > 0 {
		return spec, nil // one set of every key: a plain GROUP BY
	}
	spec.sets = orderSets(sets, ga.orderKeys(orderBy))
	return spec, nil
}

// item expands one GROUP BY item (or an element of a GROUPING SETS list)
// into its sets.
func (ga *groupingAnalyzer) item(n *pg.Node) ([][]int, error) {
	gs := n.GetGroupingSet()
	if gs == nil {
		unit, err := ga.unit(n)
		if err != nil {
			return nil, err
		}
		return [][]int{unit}, nil
	}
	switch gs.Kind {
	case pg.GroupingSetKind_GROUPING_SET_EMPTY:
		return [][]int{{}}, nil
	case pg.GroupingSetKind_GROUPING_SET_SETS:
		var out [][]int
		for _, c := range gs.Content {
			sets, err := ga.item(c)
			if err != nil {
				return nil, err
			}
			out = append(out, sets...)
		}
		return out, nil
	case pg.GroupingSetKind_GROUPING_SET_ROLLUP, pg.GroupingSetKind_GROUPING_SET_CUBE:
		units := make([][]int, len(gs.Content))
		for i, c := range gs.Content {
			u, err := ga.unit(c)
			if err != nil {
				return nil, err
			}
			units[i] = u
		}
		if gs.Kind == pg.GroupingSetKind_GROUPING_SET_ROLLUP {
			return rollupSets(units), nil
		}
		if len(units) > maxCubeElements {
			return nil, errAt(pgerr.New(pgerr.TooManyColumns, "CUBE is limited to 12 elements"), gs.Location)
		}
		return cubeSets(units), nil
	}
	return nil, pgerr.NotSupported("this grouping set")
}

// unit resolves an expression, or a parenthesized list of them, to key
// positions.
func (ga *groupingAnalyzer) unit(n *pg.Node) ([]int, error) {
	exprs := []*pg.Node{n}
	if r := n.GetRowExpr(); r != nil && r.RowFormat == pg.CoercionForm_COERCE_IMPLICIT_CAST {
		exprs = r.Args
	}
	var refs []int
	for _, x := range exprs {
		if x.GetGroupingSet() != nil {
			return nil, pgerr.NotSupported("a grouping set nested in ROLLUP or CUBE")
		}
		k, err := ga.pc.groupKey(x, ga.ec, ga.targets)
		if err != nil {
			return nil, err
		}
		ref := slices.IndexFunc(ga.keys, func(e nodes.Expr) bool { return nodes.Equal(e, k) })
		if ref < 0 {
			ref = len(ga.keys)
			ga.keys = append(ga.keys, k)
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

// orderKeys are the key positions of ORDER BY's leading items that are
// group keys.
func (ga *groupingAnalyzer) orderKeys(orderBy []nodes.SortKey) []int {
	var refs []int
	for _, sk := range orderBy {
		c, ok := sk.Expr.(*nodes.ColumnRef)
		if !ok || c.Index >= len(ga.all) {
			break
		}
		e := stripImplicit(ga.all[c.Index].expr)
		ref := slices.IndexFunc(ga.keys, func(k nodes.Expr) bool { return nodes.Equal(k, e) })
		if ref < 0 {
			break
		}
		refs = append(refs, ref)
	}
	return refs
}

// rollupSets is ROLLUP(u1, ..., un): (u1..un), (u1..un-1), ..., ().
func rollupSets(units [][]int) [][]int {
	var out [][]int
	for n := len(units); n >= 0; n-- {
		var set []int
		for _, u := range units[:n] {
			set = append(set, u...)
		}
		out = append(out, set)
	}
	return out
}

// cubeSets is CUBE(u1, ..., un): every subset, in the order of the bit
// masks 0 .. 2^n-1 (bit i: ui), as expand_groupingset lists them.
func cubeSets(units [][]int) [][]int {
	var out [][]int
	for mask := 0; mask < 1<<len(units); mask++ {
		set := []int{}
		for i, u := range units {
			if mask&(1<<i) != 0 {
				set = append(set, u...)
			}
		}
		out = append(out, set)
	}
	return out
}

// cartesian combines the items' sets: every combination, each the union
// of its parts without duplicate keys (in order of first appearance).
func cartesian(items [][][]int) [][]int {
	result := [][]int{{}}
	for _, sets := range items {
		var next [][]int
		for _, q := range result {
			for _, p := range sets {
				next = append(next, unionInts(q, p))
			}
		}
		result = next
	}
	return result
}

func unionInts(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	for _, x := range append(slices.Clone(a), b...) {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// distinctSets is GROUP BY DISTINCT's expansion: every set sorted, the
// sets sorted by size and contents, duplicates removed.
func distinctSets(sets [][]int) [][]int {
	for _, s := range sets {
		slices.Sort(s)
	}
	slices.SortStableFunc(sets, func(a, b []int) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return slices.Compare(a, b)
	})
	return slices.CompactFunc(sets, slices.Equal[[]int])
}

// orderSets orders the expanded sets (sorted by size) as PostgreSQL
// plans and prints them: the chains of a minimal chain cover, each
// largest set first with its keys in prefix order (ORDER BY's, when there
// is one chain and it agrees), then the empty sets.
func orderSets(sets [][]int, orderKeys []int) [][]int {
	var empty, rest [][]int
	for _, s := range sets {
		if len(s) == 0 {
			empty = append(empty, s)
		} else {
			rest = append(rest, s)
		}
	}
	chains := rollupChains(rest)
	var out [][]int
	for _, ch := range chains {
		var keys []int
		if len(chains) == 1 {
			keys = orderKeys
		}
		out = append(out, prefixOrder(ch, keys)...)
	}
	return append(out, empty...)
}

// rollupChains splits non-empty sets, sorted by size, into as few chains
// of nested sets as possible, as extract_rollup_sets does: duplicates
// join their first copy, and a maximum matching of each set to a smaller
// subset links the chains.
func rollupChains(sets [][]int) [][][]int {
	if len(sets) == 0 {
		return nil
	}
	// Distinct sets are numbered from 1; 0 is the matching's "nil" vertex.
	orig := [][][]int{nil}
	masks := []map[int]bool{nil}
	adj := [][]int{nil}
	first, size := 0, 0 // first set of the current size
	for _, cand := range sets {
		mask := map[int]bool{}
		for _, k := range cand {
			mask[k] = true
		}
		i := len(orig)
		dup := 0
		if len(cand) == size {
			for k := first; k < i && dup == 0; k++ {
				if k > 0 && sameSet(masks[k], mask) {
					dup = k
				}
			}
		} else if len(cand) > size {
			size, first = len(cand), i
		}
		if dup > 0 {
			orig[dup] = append(orig[dup], cand)
			continue
		}
		// Its possible predecessors: strictly smaller subsets, listed
		// from the first (the order the matching tries them in).
		var a []int
		for k := 1; k < first; k++ {
			if subsetOf(masks[k], mask) {
				a = append(a, k)
			}
		}
		orig, masks, adj = append(orig, [][]int{cand}), append(masks, mask), append(adj, a)
	}
	pairUV, pairVU := bipartiteMatch(adj)
	n := len(orig) - 1
	chainOf := make([]int, n+1)
	nchains := 0
	for i := 1; i <= n; i++ {
		u, v := pairVU[i], pairUV[i]
		switch {
		case u > 0 && u < i:
			chainOf[i] = chainOf[u]
		case v > 0 && v < i:
			chainOf[i] = chainOf[v]
		default:
			nchains++
			chainOf[i] = nchains
		}
	}
	chains := make([][][]int, nchains)
	for i := 1; i <= n; i++ {
		chains[chainOf[i]-1] = append(chains[chainOf[i]-1], orig[i]...)
	}
	return chains
}

func sameSet(a, b map[int]bool) bool { return len(a) == len(b) && subsetOf(a, b) }

func subsetOf(a, b map[int]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// bipartiteMatch is Hopcroft-Karp over vertices 1..n on both sides
// (adj[u]: the v's of u), visiting them in PostgreSQL's order
// (bipartite_match.c), so that ties between maximum matchings fall the
// same way. It returns each u's partner and each v's (0: none).
func bipartiteMatch(adj [][]int) (pairUV, pairVU []int) {
	n := len(adj) - 1
	pairUV, pairVU = make([]int, n+1), make([]int, n+1)
	const inf = 1 << 30
	dist := make([]int, n+1)
	bfs := func() bool {
		var queue []int
		dist[0] = inf
		for u := 1; u <= n; u++ {
			if pairUV[u] == 0 {
				dist[u] = 0
				queue = append(queue, u)
			} else {
				dist[u] = inf
			}
		}
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			if dist[u] >= dist[0] {
				continue
			}
			for _, v := range adj[u] {
				if next := pairVU[v]; dist[next] == inf {
					dist[next] = dist[u] + 1
					queue = append(queue, next)
				}
			}
		}
		return dist[0] != inf
	}
	var dfs func(u int) bool
	dfs = func(u int) bool {
		if u == 0 {
			return true
		}
		if dist[u] == inf {
			return false
		}
		for _, v := range adj[u] {
			if dist[pairVU[v]] == dist[u]+1 && dfs(pairVU[v]) {
				pairVU[v], pairUV[u] = u, v
				return true
			}
		}
		dist[u] = inf
		return false
	}
	for bfs() {
		for u := 1; u <= n; u++ {
			if pairUV[u] == 0 {
				dfs(u)
			}
		}
	}
	return pairUV, pairVU
}

// prefixOrder is reorder_grouping_sets: a chain (smallest set first)
// listed largest first, every set's keys those of the set before it
// followed by its own new ones, ORDER BY's order while it agrees.
func prefixOrder(chain [][]int, orderKeys []int) [][]int {
	var previous []int
	out := make([][]int, len(chain))
	for i, cand := range chain {
		var fresh []int
		for _, k := range cand {
			if !slices.Contains(previous, k) {
				fresh = append(fresh, k)
			}
		}
		for len(orderKeys) > len(previous) && len(fresh) > 0 {
			at := slices.Index(fresh, orderKeys[len(previous)])
			if at < 0 {
				orderKeys = nil // diverged from ORDER BY
				break
			}
			previous = append(previous, fresh[at])
			fresh = slices.Delete(fresh, at, at+1)
		}
		previous = append(previous, fresh...)
		out[len(chain)-1-i] = slices.Clone(previous)
	}
	return out
}

func targetExprs(ts []target) []nodes.Expr {
	es := make([]nodes.Expr, len(ts))
	for i, t := range ts {
		es[i] = t.expr
	}
	return es
}

// pgQsort sorts xs as PostgreSQL's qsort (sort_template.h, Bentley and
// McIlroy's) does, which list_sort uses. It is not stable: sets of the
// same size come out in its order, which decides the chains of nested
// sets and so the plan's order of the sets.
func pgQsort[T any](xs []T, cmp func(a, b T) int) {
	for {
		n := len(xs)
		if n < 7 {
			for m := 1; m < n; m++ {
				for l := m; l > 0 && cmp(xs[l-1], xs[l]) > 0; l-- {
					xs[l], xs[l-1] = xs[l-1], xs[l]
				}
			}
			return
		}
		presorted := true
		for m := 1; m < n && presorted; m++ {
			presorted = cmp(xs[m-1], xs[m]) <= 0
		}
		if presorted {
			return
		}
		pivotAt := pgQsortPivot(xs, cmp)
		xs[0], xs[pivotAt] = xs[pivotAt], xs[0]
		pa, pb, pc, pd := 1, 1, n-1, n-1
		for {
			for pb <= pc {
				r := cmp(xs[pb], xs[0])
				if r > 0 {
					break
				}
				if r == 0 {
					xs[pa], xs[pb] = xs[pb], xs[pa]
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := cmp(xs[pc], xs[0])
				if r < 0 {
					break
				}
				if r == 0 {
					xs[pc], xs[pd] = xs[pd], xs[pc]
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			xs[pb], xs[pc] = xs[pc], xs[pb]
			pb++
			pc--
		}
		swapN(xs, 0, pb-min(pa, pb-pa), min(pa, pb-pa))
		swapN(xs, pb, n-min(pd-pc, n-pd-1), min(pd-pc, n-pd-1))
		d1, d2 := pb-pa, pd-pc
		if d1 <= d2 {
			if d1 > 1 {
				pgQsort(xs[:d1], cmp)
			}
			if d2 <= 1 {
				return
			}
			xs = xs[n-d2:]
		} else {
			if d2 > 1 {
				pgQsort(xs[n-d2:], cmp)
			}
			if d1 <= 1 {
				return
			}
			xs = xs[:d1]
		}
	}
}

// pgQsortPivot is the median of three (of nine past 40 elements).
func pgQsortPivot[T any](xs []T, cmp func(a, b T) int) int {
	n := len(xs)
	med3 := func(a, b, c int) int {
		if cmp(xs[a], xs[b]) < 0 {
			if cmp(xs[b], xs[c]) < 0 {
				return b
			}
			if cmp(xs[a], xs[c]) < 0 {
				return c
			}
			return a
		}
		if cmp(xs[b], xs[c]) > 0 {
			return b
		}
		if cmp(xs[a], xs[c]) < 0 {
			return a
		}
		return c
	}
	pl, pm, pn := 0, n/2, n-1
	if n == 7 {
		return pm
	}
	if n > 40 {
		d := n / 8
		pl = med3(pl, pl+d, pl+2*d)
		pm = med3(pm-d, pm, pm+d)
		pn = med3(pn-2*d, pn-d, pn)
	}
	return med3(pl, pm, pn)
}

// swapN swaps the n elements from i with the n from j.
func swapN[T any](xs []T, i, j, n int) {
	for k := 0; k < n; k++ {
		xs[i+k], xs[j+k] = xs[j+k], xs[i+k]
	}
}

// groupingSetsEstimate is the groups of all the sets together, as
// PostgreSQL adds up each set's estimate (an empty set is one group).
func groupingSetsEstimate(n *nodes.Agg, inRows float64) float64 {
	total := 0.0
	for _, set := range n.GroupingSets {
		if len(set) == 0 {
			total++
			continue
		}
		one := &nodes.Agg{Child: n.Child}
		for _, k := range set {
			one.GroupKeys = append(one.GroupKeys, n.GroupKeys[k])
		}
		total += groupEstimate(one, inRows)
	}
	return total
}
