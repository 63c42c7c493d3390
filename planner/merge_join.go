package planner

// The join method of an equi-join, and Merge Join plans.
//
// A hash join is the default. A merge join is costed against it, as
// add_paths_to_joinrel keeps the cheaper path, when an input already
// comes sorted on the join keys (pathkeys.go: a Sort, a subquery with
// ORDER BY, another merge join, Gather Merge, a foreign scan's remote
// ORDER BY) or when the merge join's order is the one the query's ORDER
// BY wants (PostgreSQL's query pathkeys: the Sort above is then not
// needed, planSortLimit); then a foreign scan side is asked to sort
// remotely instead of locally, as postgres_fdw does for the query
// pathkeys without use_remote_estimate. With indexes absent, sorting
// both sides only to join them never beats hashing one, so that case is
// not costed. The costs follow initial_cost_mergejoin/final_cost_mergejoin
// (sorts of the unsorted sides, cost_sort's disk passes past work_mem,
// merge clauses per outer row and per inner row read again for runs of
// duplicates) and cost_hashjoin (building, probing, half a bucket of
// comparisons per outer row, and the batch files of a hash table past
// work_mem x hash_mem_multiplier).
//
// As PostgreSQL's add_paths_to_joinrel does with the enable_hashjoin,
// enable_mergejoin and enable_nestloop settings, a disabled method is
// used only when no enabled one can do the join (disable_cost); and a
// FULL join never becomes a nested loop when it has a hash or merge
// clause (PostgreSQL's nested loop cannot return unmatched inner rows).
// A merge join is also chosen, whatever the settings, for a FULL join
// whose equalities can be sorted but not hashed.
//
// A Merge Join's merge clauses are the equalities of one sortable type
// across the two sides, ordered as an input is already sorted (else as
// ORDER BY wants, else as written, ascending NULLS LAST: the default
// btree order of sort_inner_and_outer); a side not in that order goes
// under a Sort, and every other condition is its Join Filter.

import (
	"math"

	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/remote"
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
			if c.m == hashMethod && mergeKeys && set.Bool("enable_mergejoin") && ja.mergeCheaper(typ, outer, inner, quals) {
				return mergeMethod
			}
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
// clauses among quals; an input not already sorted on its keys goes under
// a Sort (mergeSpecFor chooses the keys' order and direction). The other
// quals make its JoinFilter, over pairs (the layout of its pairs).
func (ja *joinAnalysis) mergeJoinPlan(typ nodes.JoinType, outer, inner *planned, quals []nodes.Expr, pairs []int) (*nodes.MergeJoin, error) {
	spec, err := ja.mergeSpecFor(typ, outer, inner, quals)
	if err != nil {
		return nil, err
	}
	mj := &nodes.MergeJoin{Type: typ}
	for i := range spec.outerKeys {
		mj.MergeKeys = append(mj.MergeKeys, nodes.MergeKey{Outer: spec.outerKeys[i], Inner: spec.innerKeys[i], Desc: spec.dirs[i].Desc, NullsFirst: spec.dirs[i].NullsFirst})
	}
	if len(spec.rest) > 0 {
		if mj.JoinFilter, err = ja.fix1(andOf(spec.rest), pairs); err != nil {
			return nil, err
		}
	}
	mj.Outer, mj.Inner = outer.plan, inner.plan
	switch {
	case spec.outerSorted:
	case spec.outerRemote != nil:
		mj.Outer = spec.outerRemote
	default:
		mj.Outer = sortedOn(outer.plan, spec.outerKeys, spec.dirs)
	}
	switch {
	case spec.innerSorted:
	case spec.innerRemote != nil:
		mj.Inner = spec.innerRemote
	default:
		mj.Inner = sortedOn(inner.plan, spec.innerKeys, spec.dirs)
	}
	return mj, nil
}

// mergeSpec is how a merge join reads its inputs: its keys over each
// side's rows, in merge order, each key's direction, and whether each
// side already comes in that order (no Sort needed).
type mergeSpec struct {
	outerKeys, innerKeys     []nodes.Expr
	dirs                     []nodes.SortKey // Desc and NullsFirst of each key
	rest                     []nodes.Expr    // the other quals, query-wide
	outerSorted, innerSorted bool
	// wanted: the join's rows come in the order ORDER BY wants
	// (givesWantedOrder); then a foreign scan side not sorted is asked
	// to sort remotely (remoteSorted), as postgres_fdw does for the
	// query's pathkeys.
	wanted                   bool
	outerRemote, innerRemote nodes.Plan
}

// mergeSpecFor orders the merge clauses among quals as
// find_mergeclauses_for_outer_pathkeys does: in the order the outer side
// is already sorted in when it is sorted on all of them, else in the
// inner side's order, else as written and ascending NULLS LAST (the
// order sort_inner_and_outer sorts both sides in).
func (ja *joinAnalysis) mergeSpecFor(typ nodes.JoinType, outer, inner *planned, quals []nodes.Expr) (*mergeSpec, error) {
	var okeys, ikeys []nodes.Expr
	spec := &mergeSpec{}
	for _, q := range quals {
		if l, r, ok := ja.mergeClause(q, outer.rels, inner.rels); ok {
			okeys, ikeys = append(okeys, l), append(ikeys, r)
		} else {
			spec.rest = append(spec.rest, q)
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
	oo, io := outputOrder(outer.plan), outputOrder(inner.plan)
	perm, dirs, n := orderCovering(oo, fo)
	if n < len(fo) {
		perm, dirs, n = orderCovering(io, fi)
	}
	if n < len(fo) {
		// Neither side is sorted: sort them as ORDER BY wants, if it
		// names the keys (else as written, ascending NULLS LAST).
		perm, dirs, _ = orderCovering(ja.wantedOverOuter(typ, outer, inner, fo, fi), fo)
	}
	for _, i := range perm {
		spec.outerKeys, spec.innerKeys = append(spec.outerKeys, fo[i]), append(spec.innerKeys, fi[i])
	}
	spec.dirs = dirs
	spec.outerSorted = oo.satisfies(withDirs(spec.outerKeys, dirs))
	spec.innerSorted = io.satisfies(withDirs(spec.innerKeys, dirs))
	spec.wanted = ja.givesWantedOrder(typ, spec, outer, inner)
	if spec.wanted && ja.pc.pushdown() {
		if !spec.outerSorted {
			spec.outerRemote = ja.pc.remoteSorted(outer.plan, withDirs(spec.outerKeys, dirs))
		}
		if !spec.innerSorted {
			spec.innerRemote = ja.pc.remoteSorted(inner.plan, withDirs(spec.innerKeys, dirs))
		}
	}
	return spec, nil
}

// fdwSortMultiplier is postgres_fdw's DEFAULT_FDW_SORT_MULTIPLIER: without
// remote estimates, a remotely sorted scan costs 5% more.
const fdwSortMultiplier = 1.05

// remoteSorted is p, a plain foreign scan, with keys (over its output)
// shipped as its ORDER BY, or nil when it cannot be: a pushed-down join,
// aggregate or LIMIT, a key that is not a shippable column, or a type
// whose remote order might differ from the merge join's comparisons
// (mergeableRemotely).
func (pc *planCtx) remoteSorted(p nodes.Plan, keys []nodes.SortKey) nodes.Plan {
	fs, ok := p.(*nodes.ForeignScan)
	if !ok || fs.Join != nil || fs.Grouped || fs.Limit != nil || fs.Relations != "" || len(fs.OrderBy) > 0 {
		return nil
	}
	c := *fs
	for _, k := range keys {
		ref, ok := k.Expr.(*nodes.ColumnRef)
		if !ok {
			return nil
		}
		var expr nodes.Expr
		if fs.Targets != nil {
			if expr, ok = fs.Targets[ref.Index].(*nodes.ColumnRef); !ok {
				return nil
			}
		} else {
			expr = &nodes.ColumnRef{Index: ref.Index, Name: fs.Table.Columns[fs.Columns[ref.Index]].Name, T: ref.T}
		}
		if !remote.Shippable(expr) || !mergeableRemotely(expr.Type()) {
			return nil
		}
		c.OrderBy = append(c.OrderBy, nodes.SortKey{Expr: expr, Desc: k.Desc, NullsFirst: k.NullsFirst})
	}
	if err := pc.deparseScan(&c); err != nil {
		return nil
	}
	estimate(&c)
	return &c
}

// orderCovering orders keys as o begins: the keys matching o's first
// keys (each once) in o's order and directions, then the others as
// written, ascending NULLS LAST. It returns the keys' indexes in that
// order, their directions, and how many o's order covers.
func orderCovering(o ordering, keys []nodes.Expr) ([]int, []nodes.SortKey, int) {
	used := make([]bool, len(keys))
	perm := make([]int, 0, len(keys))
	dirs := make([]nodes.SortKey, 0, len(keys))
	for j := 0; j < len(o) && len(perm) < len(keys); j++ {
		found := -1
		for i, k := range keys {
			if !used[i] && o[j].has(k) {
				found = i
				break
			}
		}
		if found < 0 {
			break
		}
		used[found] = true
		perm = append(perm, found)
		dirs = append(dirs, nodes.SortKey{Desc: o[j].desc, NullsFirst: o[j].nullsFirst})
	}
	covered := len(perm)
	for i := range keys {
		if !used[i] {
			perm = append(perm, i)
			dirs = append(dirs, nodes.SortKey{})
		}
	}
	return perm, dirs, covered
}

// wantedOverOuter is ORDER BY's wanted order (ja.wantOrder) over the
// outer side's rows, as far as it names merge keys: a wanted column of
// the outer side, or (inner join) the inner column of merge key fi[j]
// standing for fo[j].
func (ja *joinAnalysis) wantedOverOuter(typ nodes.JoinType, outer, inner *planned, fo, fi []nodes.Expr) ordering {
	var o ordering
	for _, w := range ja.wantOrder {
		ref, ok := w.Expr.(*nodes.ColumnRef)
		if !ok {
			break
		}
		k := orderKey{desc: w.Desc, nullsFirst: w.NullsFirst}
		for j := range fo {
			if c := queryColumn(fo[j], outer.layout); c != nil && sameColumn(c, ref) {
				k.exprs = append(k.exprs, fo[j])
			} else if c := queryColumn(fi[j], inner.layout); c != nil && sameColumn(c, ref) && typ == nodes.JoinInner {
				k.exprs = append(k.exprs, fo[j])
			}
		}
		if len(k.exprs) == 0 {
			break
		}
		o = append(o, k)
	}
	return o
}

// withDirs are sort keys on keys with the directions of dirs.
func withDirs(keys []nodes.Expr, dirs []nodes.SortKey) []nodes.SortKey {
	out := make([]nodes.SortKey, len(keys))
	for i, k := range keys {
		out[i] = nodes.SortKey{Expr: k, Desc: dirs[i].Desc, NullsFirst: dirs[i].NullsFirst}
	}
	return out
}

// sortedOn puts p under a Sort on keys in the directions of dirs.
func sortedOn(p nodes.Plan, keys []nodes.Expr, dirs []nodes.SortKey) nodes.Plan {
	s := &nodes.Sort{Child: p, Keys: withDirs(keys, dirs)}
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
	sel := selectivity(n.JoinFilter) * combinedSelectivity(keySels, ob.Rows, ib.Rows)
	rows = joinRows(n.Type, ob.Rows, ib.Rows, sel)
	keys := float64(len(n.MergeKeys))
	startup = ob.StartupCost + ib.StartupCost
	total = ob.TotalCost + ib.TotalCost + (ob.Rows+ib.Rows)*cpuOperatorCost*keys +
		rows*(cpuTupleCost+cpuOperatorCost*math.Max(0, countOps(n.JoinFilter)))
	return rows, startup, total
}

// PostgreSQL's sizes behind the costs of sorting and hashing to disk.
const (
	blockSize      = 8192 // BLCKSZ
	tupleOverhead  = 24   // relation_byte_size's heap tuple header
	diskPageAccess = 1.75 // cost_sort's 0.75 seq_page_cost + 0.25 random_page_cost
)

// mergeCheaper reports whether the merge join of outer and inner on quals
// costs less than the hash join, as add_paths_to_joinrel keeps the
// cheapest path. It is considered only when an input already comes
// sorted on the keys (a Sort, a sorted subquery, another merge join):
// without indexes, sorting both sides costs more than hashing one
// (sort_inner_and_outer's paths lose), so that case is left to the hash
// join without costing it.
func (ja *joinAnalysis) mergeCheaper(typ nodes.JoinType, outer, inner *planned, quals []nodes.Expr) bool {
	spec, err := ja.mergeSpecFor(typ, outer, inner, quals)
	if err != nil {
		return false
	}
	wanted := spec.wanted
	if !spec.outerSorted && !spec.innerSorted && !wanted {
		return false
	}
	op, ip := outer.plan, inner.plan
	keySels := make([]float64, len(spec.outerKeys))
	for i := range spec.outerKeys {
		keySels[i] = keySelectivity(op, spec.outerKeys[i], ip, spec.innerKeys[i])
	}
	rows := joinRows(typ, op.Base().Rows, ip.Base().Rows, combinedSelectivity(keySels, op.Base().Rows, ip.Base().Rows))
	merge := ja.mergeJoinCost(spec, op, ip, rows)
	hashOuter, hashInner, hashKey := op, ip, spec.innerKeys[0]
	if typ != nodes.JoinSemi && typ != nodes.JoinAnti && bytesOf(op) < bytesOf(ip) {
		hashOuter, hashInner, hashKey = ip, op, spec.outerKeys[0] // joinHow hashes the smaller side
	}
	hash := ja.hashJoinCost(hashOuter, hashInner, hashKey, len(spec.outerKeys), rows)
	if wanted {
		// The hash join's rows need the Sort that the merge join's do not.
		hash += ja.sortCostOf(rows, op.Base().Width+ip.Base().Width)
	}
	return merge < hash
}

// givesWantedOrder reports whether the merge join by spec is the query's
// top join and returns its rows in the order ORDER BY wants (the query
// pathkeys that make PostgreSQL keep a merge path and drop the Sort).
func (ja *joinAnalysis) givesWantedOrder(typ nodes.JoinType, spec *mergeSpec, outer, inner *planned) bool {
	if len(ja.wantOrder) == 0 || ja.root == nil || outer.rels|inner.rels != ja.root.rels {
		return false
	}
	if typ != nodes.JoinInner && typ != nodes.JoinSemi && typ != nodes.JoinAnti {
		return false // mergeJoinOrder: no order
	}
	o := make(ordering, len(spec.outerKeys))
	for i := range spec.outerKeys {
		o[i] = orderKey{desc: spec.dirs[i].Desc, nullsFirst: spec.dirs[i].NullsFirst}
		if c := queryColumn(spec.outerKeys[i], outer.layout); c != nil {
			o[i].exprs = append(o[i].exprs, c)
		}
		if c := queryColumn(spec.innerKeys[i], inner.layout); c != nil && typ == nodes.JoinInner {
			o[i].exprs = append(o[i].exprs, c)
		}
	}
	return o.satisfies(ja.wantOrder)
}

// queryColumn is key, a column at a position of layout, as the
// query-wide column it holds (nil for an expression).
func queryColumn(key nodes.Expr, layout []int) nodes.Expr {
	ref, ok := key.(*nodes.ColumnRef)
	if !ok || ref.Index >= len(layout) {
		return nil
	}
	c := *ref
	c.Index = layout[ref.Index]
	return &c
}

// mergeJoinCost is initial_cost_mergejoin and final_cost_mergejoin
// without the partial-scan refinements: the inputs, a sort of each side
// not already sorted, the merge clauses evaluated for every outer row
// and every inner row as often as runs of duplicates make it read again
// (rescanratio), and cpu_tuple_cost per joined row.
func (ja *joinAnalysis) mergeJoinCost(spec *mergeSpec, outer, inner nodes.Plan, rows float64) float64 {
	ob, ib := outer.Base(), inner.Base()
	cost := ob.TotalCost + ib.TotalCost
	switch {
	case spec.outerSorted:
	case spec.outerRemote != nil:
		cost += ob.TotalCost * (fdwSortMultiplier - 1)
	default:
		cost += ja.sortCost(outer)
	}
	switch {
	case spec.innerSorted:
	case spec.innerRemote != nil:
		cost += ib.TotalCost * (fdwSortMultiplier - 1)
	default:
		cost += ja.sortCost(inner)
	}
	innerRows := math.Max(ib.Rows, 1)
	rescanRatio := 1 + math.Max(0, rows-innerRows)/innerRows
	keys := float64(len(spec.outerKeys))
	return cost + cpuOperatorCost*keys*(ob.Rows+ib.Rows*rescanRatio) + cpuTupleCost*rows
}

// sortCost is what cost_sort adds to its input's cost: two operator costs
// per comparison of an n log n sort, one per row returned, and when the
// rows exceed work_mem the pages written and read by each merge pass.
func (ja *joinAnalysis) sortCost(p nodes.Plan) float64 {
	return ja.sortCostOf(p.Base().Rows, p.Base().Width)
}

// sortCostOf is sortCost of rows of width bytes.
func (ja *joinAnalysis) sortCostOf(rows float64, width int) float64 {
	n := math.Max(rows, 2)
	cost := 2*cpuOperatorCost*n*math.Log2(n) + cpuOperatorCost*rows
	bytes := rows * float64(width+tupleOverhead)
	mem := float64(ja.pc.settings().Int("work_mem")) * 1024
	if mem > 0 && bytes > mem {
		pages := math.Ceil(bytes / blockSize)
		// tuplesort_merge_order: one 32-block buffer and a block of tape
		// overhead per input run.
		order := math.Min(500, math.Max(6, (mem-blockSize)/(33*blockSize)))
		passes := math.Max(1, math.Ceil(math.Log(bytes/mem)/math.Log(order)))
		cost += 2 * pages * passes * diskPageAccess
	}
	return cost
}

// hashJoinCost is initial_cost_hashjoin and final_cost_hashjoin's shape:
// building the table (a hash and a tuple per inner row), hashing each
// outer row, comparing it with half the rows of its bucket (the inner
// rows per distinct key of innerKey), cpu_tuple_cost per joined row;
// an inner side past work_mem x hash_mem_multiplier spills, writing and
// reading the inner pages once and the outer pages twice.
func (ja *joinAnalysis) hashJoinCost(outer, inner nodes.Plan, innerKey nodes.Expr, nkeys int, rows float64) float64 {
	ob, ib := outer.Base(), inner.Base()
	keys := float64(nkeys)
	cost := ib.TotalCost + ib.Rows*(cpuOperatorCost*keys+cpuTupleCost)
	cost += ob.TotalCost + ob.Rows*cpuOperatorCost*keys
	set := ja.pc.settings()
	hashMem := float64(set.Int("work_mem")) * 1024 * math.Max(1, set.Real("hash_mem_multiplier"))
	if innerBytes := ib.Rows * float64(ib.Width+tupleOverhead); hashMem > 0 && innerBytes > hashMem {
		innerPages := math.Ceil(innerBytes / blockSize)
		outerPages := math.Ceil(ob.Rows * float64(ob.Width+tupleOverhead) / blockSize)
		cost += 2*innerPages + 2*outerPages
	}
	cost += cpuOperatorCost * keys * ob.Rows * math.Max(1, ib.Rows/distinctValues(inner, innerKey)) * 0.5
	return cost + cpuTupleCost*rows
}

// distinctValues is the number of distinct values of key in p's rows:
// the column's statistics, else PostgreSQL's default of 200.
func distinctValues(p nodes.Plan, key nodes.Expr) float64 {
	rows := math.Max(p.Base().Rows, 1)
	if c, ok := key.(*nodes.ColumnRef); ok {
		if st := columnStats(p, c.Index); st != nil && st.NDistinct > 0 {
			return math.Min(st.NDistinct, rows)
		}
	}
	return math.Min(200, rows)
}

// mergeableRemotely: the types whose remote order a merge join may trust
// with no local Sort to correct it: integers, numeric, dates and
// timestamps, whose order PostgreSQL and pgfed define alike. Text
// depends on collation; floats and intervals are left out too (NaN,
// and interval's 30-day months, are where the orders could part).
func mergeableRemotely(t types.T) bool {
	return t.IsInteger() || t.ID == types.Numeric || t.IsDatetime()
}
