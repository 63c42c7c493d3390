package planner

// Runtime filters (nodes/runtime_filter.go): after planning, each hash
// join that drops its unmatched probe rows hands a Bloom filter of its
// build keys to the Seq Scan on its probe side that produces them, so
// that rows which cannot match are dropped where they are read, before
// an aggregate groups them or other joins probe with them. TPC-H's Q17
// and Q20 aggregate all of lineitem for a decorrelated subquery of which
// the join keeps a few hundred groups; with the filter they aggregate
// only the rows of those groups.
//
// When: pgfed.runtime_filters is on; the join is an inner, right, semi,
// right semi or right anti join (the types that return no probe row
// without a match); the estimated build side has at most
// maxFilteredBuild rows (maxSharedFilteredBuild for a Parallel Hash
// Join, where each participant hashes the whole shared table for its
// filter once the build is done); and the estimates say at most half
// of the probe rows have a match (a larger share when an aggregate or a
// join lies between the scan and the join: see pays). The keys are followed down the probe side
// through what keeps a row's key and drops no other row for the scan's
// dropping it: projections of plain columns, Subquery Scans, Sorts, the
// group keys of plain and partial aggregates, and the outer side of
// other joins. They stop at Gathers (another participant's rows), a
// Material or a CTE (rows kept across rescans of the join, which
// publishes a new filter each time it builds), and a LIMIT or a
// DISTINCT ON (which rows survive depends on all of them).

import (
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// maxFilteredBuild bounds the build rows a runtime filter is made for
// (its Bloom filter takes about two bytes a row).
const maxFilteredBuild = 8 << 20

// addRuntimeFilters places the runtime filters of plan p's hash joins.
func (pc *planCtx) addRuntimeFilters(p nodes.Plan) {
	if !pc.settings().Bool("pgfed.runtime_filters") {
		return
	}
	next := 1
	nodes.Walk(p, func(q nodes.Plan) {
		hj, ok := q.(*nodes.HashJoin)
		if !ok || !filtersProbeSide(hj) {
			return
		}
		if placeRuntimeFilter(hj, next) {
			next++
		}
	})
}

// filtersProbeSide reports whether hj may publish a filter at all.
func filtersProbeSide(hj *nodes.HashJoin) bool {
	switch hj.Type {
	case nodes.JoinInner, nodes.JoinRight, nodes.JoinSemi, nodes.JoinRightSemi, nodes.JoinRightAnti:
	default:
		return false
	}
	if hj.Parallel && hj.Inner.RowsTotal > maxSharedFilteredBuild {
		return false
	}
	return !hj.NullAware && hj.RuntimeFilter == nil && hj.Inner.Rows <= maxFilteredBuild
}

// maxSharedFilteredBuild bounds the rows of a Parallel Hash whose filter
// each participant makes from the shared table (all of its rows).
const maxSharedFilteredBuild = 1 << 20

// placeRuntimeFilter gives hj a filter with the given ID when its keys
// reach a Seq Scan that pays for it; the keys that reach one scan
// together (the most of them) are the filter's.
func placeRuntimeFilter(hj *nodes.HashJoin, id int) bool {
	var best *keyTrace
	for k, key := range hj.OuterKeys {
		cr, ok := key.(*nodes.ColumnRef)
		if !ok {
			continue
		}
		tr := traceColumn(hj.Outer, cr.Index, false)
		if tr == nil || types.HashFamily(tr.scan.Table.ColumnType(tr.scan.Columns[tr.col])) != types.HashFamily(key.Type()) {
			continue
		}
		tr.keys = []int{k}
		tr.cols = []int{tr.col}
		if best != nil && best.scan == tr.scan {
			best.keys = append(best.keys, k)
			best.cols = append(best.cols, tr.col)
			best.between = best.between || tr.between
			continue
		}
		if best == nil {
			best = tr
		}
	}
	if best == nil || !pays(hj, best) {
		return false
	}
	rf := &nodes.RuntimeFilter{ID: id}
	for i, k := range best.keys {
		col := best.cols[i]
		rf.Keys = append(rf.Keys, &nodes.ColumnRef{
			Index: col,
			Name:  best.scan.Table.ColumnName(best.scan.Columns[col]),
			T:     best.scan.Table.ColumnType(best.scan.Columns[col]),
		})
		rf.BuildKeys = append(rf.BuildKeys, hj.InnerKeys[k])
	}
	hj.Outer = withRuntimeFilter(hj.Outer, best.scan, rf)
	hj.RuntimeFilter = &nodes.RuntimeFilterSource{ID: id, Keys: best.keys}
	return true
}

// pays says whether the estimates favour the filter: at most half of
// the probe rows have a match (eqjoinsel_semi's fraction for the most
// selective of the filter's keys), or at most betweenShare of them when
// the rows it drops would have gone through an aggregate or another
// join first, which cost more than the filter's check.
func pays(hj *nodes.HashJoin, tr *keyTrace) bool {
	frac := 1.0
	for _, k := range tr.keys {
		outer := joinKey(hj.Outer, hj.OuterKeys[k])
		inner := joinKey(hj.Inner.Child, hj.InnerKeys[k])
		frac = min(frac, eqJoinSelSemi(outer, inner))
	}
	if tr.between {
		return frac <= betweenShare
	}
	return frac <= 0.5
}

// betweenShare is the estimated share of probe rows with a match below
// which a filter pays when an aggregate or a join lies on the way.
const betweenShare = 0.8

// keyTrace is where a probe-side column comes from: column col of the
// scan's own rows; between says an aggregate or a join lies on the way.
type keyTrace struct {
	scan    *nodes.SeqScan
	col     int
	between bool
	keys    []int // the join's key positions traced to scan
	cols    []int // and the scan's columns they read
}

// traceColumn follows output column col of p down to the Seq Scan that
// reads it, through the nodes that may drop rows by it (see above).
func traceColumn(p nodes.Plan, col int, between bool) *keyTrace {
	b := p.Base()
	if b.Targets != nil {
		cr, ok := b.Targets[col].(*nodes.ColumnRef)
		if !ok {
			return nil
		}
		col = cr.Index
	}
	switch x := p.(type) {
	case *nodes.SeqScan:
		if col < 0 || col >= len(x.Columns) || x.Columns[col] < 0 {
			return nil
		}
		return &keyTrace{scan: x, col: col, between: between}
	case *nodes.SubqueryScan:
		return traceColumn(x.Child, col, between)
	case *nodes.Sort:
		return traceColumn(x.Child, col, between)
	case *nodes.Agg:
		if x.GroupingSets != nil || (x.Split != "" && x.Split != "Partial") || col >= len(x.GroupKeys) {
			return nil
		}
		cr, ok := x.GroupKeys[col].(*nodes.ColumnRef)
		if !ok {
			return nil
		}
		return traceColumn(x.Child, cr.Index, true)
	case *nodes.HashJoin:
		return traceOuter(x.Type, x.Outer, col)
	case *nodes.MergeJoin:
		return traceOuter(x.Type, x.Outer, col)
	case *nodes.NestedLoop:
		return traceOuter(x.Type, x.Outer, col)
	}
	return nil
}

// traceOuter follows a join's own column col into its outer side when
// the column is the outer side's.
func traceOuter(t nodes.JoinType, outer nodes.Plan, col int) *keyTrace {
	if t.OwnRowsAreInner() || col >= len(outer.Base().Out) {
		return nil
	}
	return traceColumn(outer, col, true)
}

// withRuntimeFilter is p with scan, somewhere on its outer path, replaced
// by a copy that applies rf; the nodes on the way are copied too, so
// that a plan node shared elsewhere is never changed.
func withRuntimeFilter(p nodes.Plan, scan *nodes.SeqScan, rf *nodes.RuntimeFilter) nodes.Plan {
	switch x := p.(type) {
	case *nodes.SeqScan:
		if x != scan {
			return p
		}
		c := *x
		c.RuntimeFilters = append(append([]*nodes.RuntimeFilter(nil), x.RuntimeFilters...), rf)
		return &c
	case *nodes.SubqueryScan:
		c := *x
		c.Child = withRuntimeFilter(x.Child, scan, rf)
		return &c
	case *nodes.Sort:
		c := *x
		c.Child = withRuntimeFilter(x.Child, scan, rf)
		return &c
	case *nodes.Agg:
		c := *x
		c.Child = withRuntimeFilter(x.Child, scan, rf)
		return &c
	case *nodes.HashJoin:
		c := *x
		c.Outer = withRuntimeFilter(x.Outer, scan, rf)
		return &c
	case *nodes.MergeJoin:
		c := *x
		c.Outer = withRuntimeFilter(x.Outer, scan, rf)
		return &c
	case *nodes.NestedLoop:
		c := *x
		c.Outer = withRuntimeFilter(x.Outer, scan, rf)
		return &c
	}
	return p
}
