package planner

// Parallel plans. After a SELECT is planned and estimated, parallelize
// looks for the place where a Gather could go and keeps the parallel
// alternative when its estimated cost is lower, as PostgreSQL does with
// its partial paths:
//
//	aggregate over a scan    Finalize Agg <- Gather <- Partial Agg <- partial scan
//	sort over a scan         Gather Merge <- Sort <- partial scan  (LIMIT's bound goes to each Sort)
//	plain scan               Gather <- partial scan
//
// A partial scan is a Parallel Seq Scan of a local table, or a Parallel
// Append of Parallel Seq Scans (the partitions of a partitioned table)
// and of foreign scans, each of which one participant runs whole, or an
// inner, left, semi or anti join whose outer side is a partial scan
// (each participant then reads the inner side whole, or, for a Parallel
// Hash Join, its share of a partial inner side: partialJoin). An
// Append with async foreign children stays an async Append.
// Aggregates that cannot be split (DISTINCT, ORDER BY, WITHIN GROUP,
// string_agg, the variance family) keep the Agg above the Gather.
//
// The number of workers follows PostgreSQL's compute_parallel_worker:
// none below min_parallel_table_scan_size, then one more each time the
// table is three times larger, at most max_parallel_workers_per_gather.
// Costs: a parallel scan divides its CPU cost (not its page cost) by the
// parallel divisor (workers, plus a leader's share that shrinks as workers
// are added); a Gather adds parallel_setup_cost and parallel_tuple_cost
// per row it passes.
//
// debug_parallel_query = on puts a single-copy Gather (one worker, the
// leader not running the plan) on top of a plan that has none, so that
// tests run every query through a worker; regress hides that Gather from
// EXPLAIN.

import (
	"math"

	"github.com/pgfed/pgfed/nodes"
)

// parallelParams are the session's parallel query settings.
type parallelParams struct {
	maxWorkers  int // max_parallel_workers_per_gather
	leader      bool
	setupCost   float64
	tupleCost   float64
	minScanKB   float64
	debug       string  // debug_parallel_query: off, on, regress
	enableAppnd bool    // enable_parallel_append
	enableHash  bool    // enable_parallel_hash
	hashMem     float64 // work_mem x hash_mem_multiplier, in bytes
}

// maxGatherWorkers caps the workers of one Gather (Gather Merge numbers
// its inputs in a byte).
const maxGatherWorkers = 64

func (pc *planCtx) parallelParams() parallelParams {
	set := pc.settings()
	return parallelParams{
		maxWorkers:  min(int(set.Int("max_parallel_workers_per_gather")), maxGatherWorkers),
		leader:      set.Bool("parallel_leader_participation"),
		setupCost:   set.Real("parallel_setup_cost"),
		tupleCost:   set.Real("parallel_tuple_cost"),
		minScanKB:   float64(set.Int("min_parallel_table_scan_size")),
		debug:       set.Get("debug_parallel_query"),
		enableAppnd: set.Bool("enable_parallel_append"),
		enableHash:  set.Bool("enable_parallel_hash"),
		hashMem:     float64(set.Int("work_mem")) * 1024 * math.Max(1, set.Real("hash_mem_multiplier")),
	}
}

// divisor is PostgreSQL's parallel divisor: the share of the work each
// worker's copy does, counting the leader's part while it has time left
// over from reading the workers' rows.
func divisor(workers int, leader bool) float64 {
	d := float64(workers)
	if leader {
		if share := 1.0 - 0.3*float64(workers); share > 0 {
			d += share
		}
	}
	return d
}

// parallelize returns p or a cheaper parallel plan for it; p is estimated.
func (pc *planCtx) parallelize(p nodes.Plan) nodes.Plan {
	pp := pc.parallelParams()
	out := p
	if pp.maxWorkers > 0 && !readsCTE(p) {
		out = pc.parallelNode(p, pp)
	}
	if pp.debug != "off" && !hasGather(out) && parallelSafe(out) {
		g := &nodes.Gather{Child: out, Workers: 1, SingleCopy: true, Invisible: pp.debug == "regress",
			SetupCost: pp.setupCost, TupleCost: pp.tupleCost}
		g.Out = out.Base().Out
		out = g
	}
	if out != p {
		estimate(out)
	}
	return out
}

// parallelNode rewrites the node where a Gather fits best, below the
// nodes that must stay above it.
func (pc *planCtx) parallelNode(p nodes.Plan, pp parallelParams) nodes.Plan {
	switch n := p.(type) {
	case *nodes.Limit, *nodes.Unique, *nodes.SubqueryScan:
		return pc.parallelBelow(p, pp)
	case *nodes.Sort:
		scan, workers := partialScan(n.Child, pp)
		if scan == nil || n.Targets != nil || n.Filter != nil {
			return pc.parallelBelow(p, pp) // a sort over an aggregate or a subquery
		}
		sort := *n
		sort.Child = scan
		gm := &nodes.GatherMerge{Child: &sort, Workers: workers, LeaderParticipates: pp.leader, Keys: n.Keys,
			SetupCost: pp.setupCost, TupleCost: pp.tupleCost}
		gm.Out = n.Out
		return cheaper(p, gm)
	case *nodes.Agg:
		if n.Split != "" {
			return p
		}
		scan, workers := partialScan(n.Child, pp)
		split, ok := splitAgg(n)
		if scan == nil || !ok {
			return pc.parallelBelow(p, pp) // over a subquery, or not splittable
		}
		partial := split.partial(scan, true)
		g := &nodes.Gather{Child: partial, Workers: workers, LeaderParticipates: pp.leader,
			SetupCost: pp.setupCost, TupleCost: pp.tupleCost}
		g.Out = partial.Out
		return cheaper(p, split.finalize(g))
	case *nodes.SeqScan, *nodes.Append, *nodes.HashJoin, *nodes.NestedLoop:
		scan, workers := partialScan(p, pp)
		if scan == nil {
			return p
		}
		g := &nodes.Gather{Child: scan, Workers: workers, LeaderParticipates: pp.leader,
			SetupCost: pp.setupCost, TupleCost: pp.tupleCost}
		g.Out = p.Base().Out
		return cheaper(p, g)
	}
	return p
}

// parallelBelow parallelizes the only child of p, which stays serial
// above it, and returns p with the new child (p itself if nothing
// changed).
func (pc *planCtx) parallelBelow(p nodes.Plan, pp parallelParams) nodes.Plan {
	var child *nodes.Plan
	var cp nodes.Plan
	switch n := p.(type) {
	case *nodes.Limit:
		c := *n
		cp, child = &c, &c.Child
	case *nodes.Unique:
		c := *n
		cp, child = &c, &c.Child
	case *nodes.SubqueryScan:
		c := *n
		cp, child = &c, &c.Child
	case *nodes.Sort:
		c := *n
		cp, child = &c, &c.Child
	case *nodes.Agg:
		c := *n
		cp, child = &c, &c.Child
	default:
		return p
	}
	orig := *child
	if *child = pc.parallelNode(orig, pp); *child == orig {
		return p
	}
	return cp
}

// cheaper estimates the parallel alternative alt and returns it if it
// costs less than serial by more than PostgreSQL's fuzz factor: add_path
// takes costs within 1% (STD_FUZZ_FACTOR) for equal, and a parallel plan
// that saves less than that does not pay for its workers (TPC-H Q18's
// saved 0.04%, and ran two to three times slower on two cores).
func cheaper(serial, alt nodes.Plan) nodes.Plan {
	estimate(alt)
	if alt.Base().TotalCost*stdFuzzFactor < serial.Base().TotalCost {
		return alt
	}
	return serial
}

// stdFuzzFactor is PostgreSQL's STD_FUZZ_FACTOR (pathnode.c).
const stdFuzzFactor = 1.01

// partialScan returns the parallel-aware form of a scan (a Parallel Seq
// Scan, or a Parallel Append of them) and its number of workers, or nil
// when p is not such a scan or too small.
func partialScan(p nodes.Plan, pp parallelParams) (nodes.Plan, int) {
	if holdsSubPlan(p) {
		return nil, 0 // parallel-restricted (subplan.go)
	}
	switch n := p.(type) {
	case *nodes.HashJoin:
		if ph, w := sharedMatchJoin(n, pp); ph != nil {
			return ph, w
		}
		if u := unswappedJoin(n); u != nil {
			if spillsShared(u.Inner.Child, pp) {
				return nil, 0
			}
			n = u
		}
		return partialJoin(n, n.Outer, n.Inner, n.Type, pp)
	case *nodes.NestedLoop:
		return partialJoin(p, n.Outer, n.Inner, n.Type, pp)
	case *nodes.SeqScan:
		w := scanWorkers(float64(n.Table.Rows()), pp)
		if w == 0 {
			return nil, 0
		}
		cp := *n
		cp.Parallel = true
		return &cp, w
	case *nodes.Append:
		if !pp.enableAppnd || len(n.Kids) == 0 {
			return nil, 0
		}
		var rows float64
		nonPartial := 0
		kids := make([]nodes.Plan, len(n.Kids))
		for i, k := range n.Kids {
			if holdsSubPlan(k) {
				return nil, 0
			}
			switch s := k.(type) {
			case *nodes.SeqScan:
				rows += float64(s.Table.Rows())
				cp := *s
				cp.Parallel = true
				kids[i] = &cp
			case *nodes.ForeignScan:
				// Run whole by one participant; an async Append reads
				// async-capable ones better.
				if s.Async {
					return nil, 0
				}
				nonPartial++
				kids[i] = s
			default:
				return nil, 0
			}
		}
		w := scanWorkers(rows, pp)
		if nonPartial > 0 {
			// As PostgreSQL: enough workers for the children run whole.
			w = max(w, min(nonPartial, pp.maxWorkers))
		}
		if w == 0 {
			return nil, 0
		}
		cp := *n
		cp.Kids, cp.Parallel = kids, true
		return &cp, w
	}
	return nil, 0
}

// unswappedJoin is the semi or anti join that right semi or right anti
// join j was made from (join.go builds the table on the smaller side),
// with its sides back, since only the rows a join returns can be split
// among participants; nil for other joins, and for one that passes its
// keys to the foreign scan on its outer side.
func unswappedJoin(j *nodes.HashJoin) *nodes.HashJoin {
	typ, ok := j.Type.Swapped()
	if !j.Type.OwnRowsAreInner() || !ok || j.PassKeys != nil {
		return nil
	}
	h := &nodes.Hash{Child: j.Outer}
	h.Out = j.Outer.Base().Out
	u := &nodes.HashJoin{PlanBase: j.PlanBase, Type: typ, Outer: j.Inner.Child, Inner: h,
		OuterKeys: j.InnerKeys, InnerKeys: j.OuterKeys}
	if j.JoinFilter != nil {
		// The filter reads pairs: the outer side's columns, then the
		// inner side's, which trade places.
		nOuter, nInner := len(j.Outer.Base().Out), len(j.Inner.Child.Base().Out)
		u.JoinFilter = mapColumns(j.JoinFilter, func(i int) int {
			if i < nOuter {
				return i + nInner
			}
			return i - nOuter
		})
	}
	return u
}

// sharedMatchJoin is the Parallel Hash form of a join that returns inner
// rows by their matches (right, full, right semi, right anti): its
// participants probe one shared table with their shares of the outer
// side, setting its match flags, and the last of them to finish returns
// the inner rows by them, as PostgreSQL 16's parallel right and full hash
// joins do. Both sides must have partial forms; nil otherwise.
func sharedMatchJoin(j *nodes.HashJoin, pp parallelParams) (nodes.Plan, int) {
	matches := j.Type == nodes.JoinRight || j.Type == nodes.JoinFull || j.Type.OwnRowsAreInner()
	if !matches || !pp.enableHash || j.PassKeys != nil || !parallelSafe(j.Inner.Child) || hasGather(j.Inner.Child) {
		return nil, 0
	}
	outer, workers := partialScan(j.Outer, pp)
	if outer == nil {
		return nil, 0
	}
	inner, _ := partialScan(j.Inner.Child, pp)
	if inner == nil {
		return nil, 0
	}
	h := *j.Inner
	h.Child, h.Parallel = inner, true
	ph := *j
	ph.Outer, ph.Inner, ph.Parallel = outer, &h, true
	estimateShare(&ph, divisor(workers, pp.leader))
	return &ph, workers
}

// spillsShared reports whether a shared table of build's rows would
// outgrow the participants' combined hash memory. A right semi or right
// anti join hashes its small side; turned back into a semi or anti join
// so that the participants can share its rows out, it would hash the big
// side instead, and spill it, which the costs (PostgreSQL's, with no
// right semi join to weigh against) do not show: TPC-H Q21 ran five
// times slower so than serial, Q4 four times. Such a join stays serial.
func spillsShared(build nodes.Plan, pp parallelParams) bool {
	b := build.Base()
	bytes := b.Rows * float64(b.Width+tupleOverhead)
	return pp.hashMem > 0 && bytes > pp.hashMem*float64(pp.maxWorkers+1)
}

// partialJoin is the partial form of a join whose outer side has one:
// each participant joins its share of the outer rows with the whole inner
// side, which it reads (and hashes) itself, as PostgreSQL's
// parallel-oblivious joins do. Joins that return unmatched inner rows
// (right, full) cannot be split so: each participant would return them.
func partialJoin(p nodes.Plan, outer, inner nodes.Plan, typ nodes.JoinType, pp parallelParams) (nodes.Plan, int) {
	if typ == nodes.JoinRight || typ == nodes.JoinFull || typ.OwnRowsAreInner() || !parallelSafe(inner) || hasGather(inner) {
		return nil, 0
	}
	scan, workers := partialScan(outer, pp)
	if scan == nil {
		return nil, 0
	}
	switch n := p.(type) {
	case *nodes.HashJoin:
		c := *n
		c.Outer = scan
		if ph := parallelHash(&c, workers, pp); ph != nil {
			return ph, workers
		}
		return &c, workers
	case *nodes.NestedLoop:
		c := *n
		c.Outer = scan
		return &c, workers
	}
	return nil, 0
}

// parallelHash is the Parallel Hash Join alternative to the
// parallel-oblivious partial join j, returned when it is estimated
// cheaper: the participants build one shared table from a partial form
// of the inner side, each hashing its share, instead of each hashing all
// of it, as PostgreSQL's hash_inner_and_outer tries when the inner rel
// has a partial path (a table big enough for a parallel scan) and
// enable_parallel_hash is on. nil when there is none.
func parallelHash(j *nodes.HashJoin, workers int, pp parallelParams) *nodes.HashJoin {
	if !pp.enableHash {
		return nil
	}
	inner, _ := partialScan(j.Inner.Child, pp)
	if inner == nil {
		return nil
	}
	h := *j.Inner
	h.Child, h.Parallel = inner, true
	ph := *j
	ph.Inner, ph.Parallel = &h, true
	div := divisor(workers, pp.leader)
	estimateShare(j, div)
	estimateShare(&ph, div)
	if ph.TotalCost >= j.TotalCost {
		return nil
	}
	return &ph
}

// scanWorkers is compute_parallel_worker for a table of rows rows.
func scanWorkers(rows float64, pp parallelParams) int {
	pages := math.Ceil(rows / rowsPerPage)
	minPages := math.Floor(pp.minScanKB / 8)
	if pages < minPages {
		return 0
	}
	threshold := math.Max(minPages, 1)
	workers := 1
	for pages >= threshold*3 {
		workers++
		threshold *= 3
		if threshold > math.MaxInt32/3 {
			break
		}
	}
	return min(workers, pp.maxWorkers)
}

func hasGather(p nodes.Plan) bool {
	found := false
	nodes.Walk(p, func(q nodes.Plan) {
		switch q.(type) {
		case *nodes.Gather, *nodes.GatherMerge:
			found = true
		}
	})
	return found
}

// parallelSafe reports whether p may run in a worker: not foreign scans
// (their connections belong to the session) nor the functions that read
// the session's connections.
func parallelSafe(p nodes.Plan) bool {
	safe := true
	nodes.Walk(p, func(q nodes.Plan) {
		if holdsSubPlan(q) {
			safe = false // parallel-restricted, as in PostgreSQL (subplan.go)
		}
		switch x := q.(type) {
		case *nodes.ForeignScan, *nodes.ForeignModify, *nodes.ModifyTable, *nodes.CTEScan, *nodes.WorkTableScan:
			safe = false
		case *nodes.FunctionScan:
			if x.Func != "generate_series" {
				safe = false
			}
		}
	})
	return safe
}
