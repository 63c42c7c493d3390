package executor

// Hash Join. The build side is the Hash node's child: the join reads it
// whole, evaluates InnerKeys per batch, normalizes and hashes the keys a
// column at a time and sorts the rows into the buckets of a flat table
// (hash_table.go). Then it reads the outer side a batch at a time: keys,
// hashes, the bucket of every row, then a walk of the buckets that
// collects (outer row, build row) pairs with equal keys, at most
// BatchSize at a time.
// The pairs become a batch by take (outer columns, then inner columns),
// the JoinFilter drops pairs, and what is left, plus the rows the join
// type null-extends, goes through the node's own Filter and Targets.
//
// Join types, as PostgreSQL's ExecHashJoin:
//
//   - inner: matching pairs;
//   - left (and full): outer rows without a match, null-extended, at the
//     end of their batch (a flag per outer row);
//   - right (and full): build rows without a match, null-extended on the
//     outer side, after the whole outer side (a bitmap over build rows);
//   - semi: each outer row with a match, once (without a JoinFilter the
//     walk stops at the first match); anti: those without;
//   - right semi / right anti (PostgreSQL 18's and 16's, for a semi or
//     anti join whose returned side is the small one, so it is hashed):
//     the build rows with a match, or without one, after the whole outer
//     side (the right join's bitmap), or as soon as every build row with
//     a key has matched (then no probe row can change the answer);
//   - NullAware anti (NOT IN): no row at all once a build key is NULL,
//     and no outer row with a NULL key unless the build side is empty.
//
// NULL keys match nothing: build rows with one are dropped unless the
// join returns unmatched build rows, probe rows with one are unmatched.
//
// Shortcuts, as PostgreSQL's: unless the join returns unmatched build
// rows, the first outer batch is fetched before building when the outer
// side is cheap to start (or the join returns unmatched outer rows), and
// an empty outer side then skips the build ("never executed"); an empty
// build side skips the outer side, unless the join returns unmatched
// outer rows. Children are opened when first needed.
//
// The build side's batches and table count against work_mem x
// hash_mem_multiplier; beyond it the join spills by hash partition (a
// grace hash join, PostgreSQL's batches): hash_join_spill.go.
//
// EXPLAIN ANALYZE: the join's wrapper counts its rows; the Hash node,
// which has no operator, gets loops=1, rows = the build rows, the time
// of the build, and its Buckets, Batches and peak memory; the join
// counts "Rows Removed by Join Filter".

import (
	"context"
	"io"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

type hjState uint8

const (
	hjStart          hjState = iota
	hjProbe                  // joining probe batches against the table
	hjUnmatched              // returning the table's unmatched build rows
	hjPartitionProbe         // writing the probe side to partition files
	hjNextPartition          // taking the next spilled partition
	hjNullBuild              // returning spilled NULL-keyed build rows
	hjDone
)

type hashJoin struct {
	plan      *nodes.HashJoin
	ec        *ExecContext
	outer     Operator
	inner     Operator // the Hash node's child
	shape     *joinShape
	outerKeys []evaluator
	innerKeys []evaluator
	forms     []keyForm
	filter    evaluator // JoinFilter; nil: none
	hashQual  *qual     // the Hash node's own Filter and Targets (never set by PostgreSQL's planner)
	qual      *qual

	hashStats   *instrument.NodeStats // nil without ANALYZE
	joinRemoved *int64

	state      hjState
	outerOpen  bool
	outerDone  bool
	innerOpen  bool
	prefetched arrow.RecordBatch // the first outer batch, read before the build

	table     *hashTable
	bld       tableBuilder
	probe     probeBatch
	probeSrc  func(context.Context) (arrow.RecordBatch, error)
	probeFile *spillFile // the probe side of the partition being joined
	probeRead *spillReader
	// probeShared reads a claimed Parallel Hash partition's outer files
	// (the shared build's, never closed here).
	probeShared *sharedReader
	unmatched   int // hjUnmatched: the next build row to look at
	ready       []arrow.RecordBatch
	spill       joinSpill
	mem         reservation
	in          *interrupter

	// matchable is how many rows of the table have no NULL key, and
	// innerMatched how many of them matched (right semi and right anti
	// joins stop probing when all have).
	matchable, innerMatched int

	oi, ii      []int32
	oi2, ii2    []int32 // sortPairs' other buffers
	sel         []int32
	level       int   // of the table being built
	buildRows   int64 // rows the Hash node returned
	innerSeen   int64 // rows the Hash node read, NULL keys included
	innerNull   bool  // one of them had a NULL key
	buckets     int   // the most buckets of a table built
	origBuckets int   // the buckets sized by the planner's estimate

	// par is the build this copy of a Parallel Hash Join shares with the
	// other participants of its Gather (parallel_hash.go); nil otherwise.
	par         *sharedHash
	parShared   *parallelShared // the Gather's, which par is part of
	tableShared bool            // j.table is par's: never released here
	sharedPeak  int64           // the shared table's memory, for EXPLAIN

	// rf publishes the build keys to the outer side's scans
	// (runtime_filter.go); nil without a RuntimeFilter.
	rf *joinFilter
}

func (*hashJoin) ownsQual() {}

func newHashJoin(p *nodes.HashJoin, ec *ExecContext) (Operator, error) {
	if p.Inner == nil || len(p.OuterKeys) == 0 || len(p.OuterKeys) != len(p.InnerKeys) {
		return nil, pgerr.Internal("executor: a Hash Join needs a Hash and as many outer as inner keys")
	}
	j := &hashJoin{plan: p, ec: ec}
	for i := range p.OuterKeys {
		ot, it := p.OuterKeys[i].Type(), p.InnerKeys[i].Type()
		if !hashJoinable(ot) || types.HashFamily(ot) != types.HashFamily(it) {
			return nil, pgerr.Internal("executor: cannot hash join %s with %s", ot, it)
		}
		j.forms = append(j.forms, keyFormOf(ot))
	}
	innerOut := p.Inner.Out
	if len(innerOut) == 0 && p.Inner.Targets == nil {
		innerOut = p.Inner.Child.Base().Out
	}
	j.shape = newJoinShape(p.Type, p.Outer.Base().Out, innerOut)
	var err error
	if j.outerKeys, err = compileExprs(p.OuterKeys, ec); err != nil {
		return nil, err
	}
	if j.innerKeys, err = compileExprs(p.InnerKeys, ec); err != nil {
		return nil, err
	}
	if p.RuntimeFilter != nil {
		j.rf = newJoinFilter(j)
	}
	if p.JoinFilter != nil {
		if j.filter, err = compileExpr(p.JoinFilter, ec); err != nil {
			return nil, err
		}
	}
	if j.qual, err = newQual(&p.PlanBase, ec); err != nil {
		return nil, err
	}
	if j.hashQual, err = newQual(&p.Inner.PlanBase, ec); err != nil {
		return nil, err
	}
	if ec.Stats != nil {
		j.hashStats = ec.Stats.Node(p.Inner.ID)
		j.joinRemoved = &ec.Stats.Node(p.ID).RowsRemovedByJoinFilter
	}
	j.origBuckets = plannedBuckets(p.Inner.Rows, usualHashMem(ec))
	if p.Parallel && ec.parallel != nil {
		j.joinShared(ec.parallel)
	}
	if j.outer, err = Build(p.Outer, ec); err != nil {
		return nil, err
	}
	if j.inner, err = Build(p.Inner.Child, ec); err != nil {
		j.outer.Close()
		return nil, err
	}
	return j, nil
}

// hashJoinable reports whether keys of type t can be hashed and compared.
func hashJoinable(t types.T) bool {
	switch t.ID {
	case types.Bool, types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric,
		types.Text, types.Varchar, types.Bpchar, types.Name, types.Unknown, types.Date, types.Timestamp, types.TimestampTZ,
		types.IntervalType:
		return true
	}
	return false
}

// plannedBuckets sizes the bucket array from the planner's estimate of
// the build rows, as ExecChooseHashTableSize does for one batch: a power
// of two of at least 1024, and no more than the pointers hash_mem holds.
func plannedBuckets(rows float64, hashMem int64) int {
	limit := 1024
	for int64(limit)*2*8 <= hashMem && limit < 1<<30 {
		limit <<= 1
	}
	want := 1024
	for float64(want) < rows && want < limit {
		want <<= 1
	}
	return want
}

func (j *hashJoin) Open(ctx context.Context) error {
	if j.rf != nil {
		j.rf.begin() // a filter of an earlier run must not reach the scans
	}
	j.state = hjStart
	j.mem = reservation{pool: j.ec.Memory}
	return nil
}

func (j *hashJoin) openOuter(ctx context.Context) error {
	if j.outerOpen {
		return nil
	}
	j.outerOpen = true
	return j.outer.Open(ctx)
}

// outerNext is the probe source of the first pass: the outer child.
func (j *hashJoin) outerNext(ctx context.Context) (arrow.RecordBatch, error) {
	if b := j.prefetched; b != nil {
		j.prefetched = nil
		return b, nil
	}
	if j.outerDone {
		return nil, io.EOF
	}
	if err := j.openOuter(ctx); err != nil {
		j.outerDone = true
		return nil, err
	}
	b, err := j.outer.Next(ctx)
	if err != nil {
		j.outerDone = true
		return nil, err
	}
	return conform(b, j.shape.outer, "outer")
}

// innerNext is the build source of the first pass: the Hash's child,
// through the Hash's own qual.
func (j *hashJoin) innerNext(ctx context.Context) (arrow.RecordBatch, error) {
	if !j.innerOpen {
		j.innerOpen = true
		if err := j.inner.Open(ctx); err != nil {
			return nil, err
		}
	}
	return j.hashQual.next(func() (arrow.RecordBatch, error) {
		b, err := j.inner.Next(ctx)
		if err != nil {
			return nil, err
		}
		return conform(b, j.shape.inner, "inner")
	})
}

func (j *hashJoin) Next(ctx context.Context) (b arrow.RecordBatch, err error) {
	if j.in == nil || j.in.ctx != ctx {
		j.in = newInterrupter(ctx)
	}
	defer catchInterrupt(ctx, &err)
	return j.qual.next(func() (arrow.RecordBatch, error) { return j.produce(ctx) })
}

// produce returns the next batch of the join's own rows, or io.EOF.
func (j *hashJoin) produce(ctx context.Context) (arrow.RecordBatch, error) {
	typ := j.plan.Type
	for {
		if len(j.ready) > 0 {
			b := j.ready[0]
			j.ready = j.ready[1:]
			return b, nil
		}
		switch j.state {
		case hjStart:
			if err := j.start(ctx); err != nil {
				return nil, err
			}
		case hjProbe:
			if j.probe.b == nil {
				if err := checkCtx(ctx); err != nil {
					return nil, err
				}
				b, err := j.probeSrc(ctx)
				if err == io.EOF {
					j.endProbeSource()
					j.state = hjNextPartition
					if innerMatches(typ) {
						j.toUnmatched()
					}
					continue
				}
				if err != nil {
					return nil, err
				}
				if err := j.startProbe(b); err != nil {
					return nil, err
				}
				continue
			}
			if err := checkCtx(ctx); err != nil {
				return nil, err
			}
			out, err := j.probeStep()
			if err != nil || out != nil {
				return out, err
			}
		case hjUnmatched:
			if err := checkCtx(ctx); err != nil {
				return nil, err
			}
			t := j.table
			if t == nil || j.unmatched >= t.rows {
				j.state = hjNextPartition
				continue
			}
			var sel []int32
			if typ == nodes.JoinRightSemi {
				sel, j.unmatched = t.matched.matchedRows(j.sel[:0], j.unmatched, t.rows, j.ec.BatchSize)
			} else {
				sel, j.unmatched = t.matched.unmatchedRows(j.sel[:0], j.unmatched, t.rows, j.ec.BatchSize)
			}
			j.sel = sel
			if len(sel) > 0 {
				return j.shape.innerRows(t.batch, sel), nil
			}
		case hjPartitionProbe:
			if err := j.partitionProbe(ctx); err != nil {
				return nil, err
			}
		case hjNextPartition:
			if err := j.nextPartition(ctx); err != nil {
				return nil, err
			}
		case hjNullBuild:
			if err := j.nullBuildStep(ctx); err != nil {
				return nil, err
			}
		case hjDone:
			return nil, io.EOF
		}
	}
}

// start runs the first build (or skips it), as ExecHashJoin's
// HJ_BUILD_HASHTABLE.
func (j *hashJoin) start(ctx context.Context) error {
	if j.par != nil {
		return j.startShared(ctx)
	}
	typ := j.plan.Type
	if j.rf != nil {
		j.rf.begin()
	}
	if !fillInner(typ) && j.plan.PassKeys == nil && j.prefetchFiltered() && (fillOuter(typ) || j.plan.Outer.Base().StartupCost < j.plan.Inner.TotalCost) {
		b, err := j.outerNext(ctx)
		if err == io.EOF {
			j.state = hjDone
			return nil
		}
		if err != nil {
			return err
		}
		j.prefetched = b
	}
	var began time.Time
	if j.hashStats != nil {
		j.hashStats.StartLoop()
		if j.ec.Stats.Timing {
			began = time.Now()
		}
	}
	split, err := j.build(ctx, j.innerNext, 0, 0, 0)
	if j.hashStats != nil {
		if j.ec.Stats.Timing {
			j.hashStats.AddTime(time.Since(began))
		}
		j.hashStats.Rows = j.buildRows
		j.recordHash()
	}
	if err != nil {
		return err
	}
	if j.plan.NullAware && j.innerNull {
		// x NOT IN (... NULL ...) is never true.
		j.state = hjDone
		return nil
	}
	j.probeSrc = j.outerNext
	if j.rf != nil {
		j.rf.publish()
		if j.prefetched != nil {
			if j.prefetched, err = j.rf.filterEarly(j.prefetched); err != nil {
				return err
			}
		}
	}
	if j.plan.PassKeys != nil {
		if err := j.passKeys(split); err != nil {
			return err
		}
	}
	if split {
		j.state = hjPartitionProbe
		return nil
	}
	j.afterBuild()
	return nil
}

// prefetchFiltered reports whether reading an outer batch before the
// build keeps the runtime filter useful: it does when the outer side is
// the filtered scan itself (one batch goes unfiltered), not when an
// aggregate or join on the way would read all its input unfiltered.
func (j *hashJoin) prefetchFiltered() bool {
	if j.rf == nil {
		return true
	}
	_, scan := j.plan.Outer.(*nodes.SeqScan)
	return scan
}

// afterBuild starts probing the table just built, unless it is empty and
// no outer row could be returned.
func (j *hashJoin) afterBuild() {
	if j.table.rows == 0 && !fillOuter(j.plan.Type) {
		j.endProbeSource()
		j.state = hjNextPartition
		return
	}
	j.state = hjProbe
}

// endProbeSource drops what is left of the current probe source.
func (j *hashJoin) endProbeSource() {
	if j.prefetched != nil {
		j.prefetched.Release()
		j.prefetched = nil
	}
	if j.probeRead != nil {
		j.probeRead.close()
		j.probeRead = nil
	}
	if j.probeShared != nil {
		j.probeShared.close()
		j.probeShared = nil
	}
	if j.probeFile != nil {
		j.probeFile.close()
		j.probeFile = nil
	}
	j.probeSrc = emptySource
}

func emptySource(context.Context) (arrow.RecordBatch, error) { return nil, io.EOF }

// evalKeys evaluates key expressions over b.
func evalKeys(evs []evaluator, b arrow.RecordBatch) ([]arrow.Array, error) {
	arrs := make([]arrow.Array, len(evs))
	for i, ev := range evs {
		a, err := ev.eval(b)
		if err != nil {
			releaseAll(arrs)
			return nil, err
		}
		arrs[i] = a
	}
	return arrs, nil
}

// keyScratch holds one batch's normalized keys and hashes.
type keyScratch struct {
	keys    []keyVec
	hashes  []uint64
	nulls   []bool
	nullBuf []bool
	arrs    []arrow.Array // the evaluated keys (keys may alias them)
}

// load evaluates evs over b into s.
func (s *keyScratch) load(evs []evaluator, forms []keyForm, b arrow.RecordBatch) error {
	s.release()
	arrs, err := evalKeys(evs, b)
	if err != nil {
		return err
	}
	s.arrs = arrs
	n := int(b.NumRows())
	if len(s.keys) != len(forms) {
		s.keys = make([]keyVec, len(forms))
	}
	s.nulls = keyNulls(arrs, s.nullBuf)
	if s.nulls != nil {
		s.nullBuf = s.nulls
	}
	for c, a := range arrs {
		s.keys[c].load(a, forms[c])
	}
	if cap(s.hashes) < n {
		s.hashes = make([]uint64, n)
	}
	s.hashes = s.hashes[:n]
	hashKeys(s.keys, forms, 0, n, s.hashes)
	return nil
}

func (s *keyScratch) release() {
	releaseAll(s.arrs)
	s.arrs = nil
}

// startProbe takes over b as the probe batch.
func (j *hashJoin) startProbe(b arrow.RecordBatch) error {
	p := &j.probe
	ks := keyScratch{keys: p.keys, hashes: p.hashes, nullBuf: p.nullBuf}
	if err := ks.load(j.outerKeys, j.forms, b); err != nil {
		b.Release()
		return err
	}
	p.b, p.n = b, int(b.NumRows())
	p.keys, p.hashes, p.nulls, p.nullBuf, p.arrs = ks.keys, ks.hashes, ks.nulls, ks.nullBuf, ks.arrs
	typ := j.plan.Type
	p.matched = nil
	if fillOuter(typ) || typ == nodes.JoinSemi {
		if cap(p.matchBuf) < p.n {
			p.matchBuf = make([]bool, p.n)
		}
		p.matched = p.matchBuf[:p.n]
		clear(p.matched)
	}
	p.start(j.table)
	return nil
}

// release releases the probe batch.
func (p *probeBatch) release() {
	if p.b != nil {
		p.b.Release()
		p.b = nil
	}
	releaseAll(p.arrs)
	p.arrs = nil
}

// probeStep joins the next pairs of the probe batch, or finishes it;
// it returns a batch, or nil when this step made none.
func (j *hashJoin) probeStep() (arrow.RecordBatch, error) {
	p, t, typ := &j.probe, j.table, j.plan.Type
	if !p.walked {
		outerOnly := typ.OwnRowsAreOuter()
		var skip []bool
		if outerOnly {
			skip = p.matched // a semi or anti join needs one match per row
		}
		oi, ii := t.probe(p, j.oi[:0], j.ii[:0], j.ec.BatchSize, outerOnly && j.filter == nil, skip, j.in)
		j.oi, j.ii = oi, ii
		if len(oi) == 0 {
			return nil, nil
		}
		out, err := j.joinPairs(oi, ii)
		if err == nil && typ.OwnRowsAreInner() && j.allMatched() {
			j.probedEnough()
		}
		return out, err
	}
	// The batch's buckets are walked: its unmatched (or, for semi joins,
	// matched) outer rows.
	sel := j.sel[:0]
	switch typ {
	case nodes.JoinSemi:
		for i, m := range p.matched {
			if m {
				sel = append(sel, int32(i))
			}
		}
	case nodes.JoinLeft, nodes.JoinFull, nodes.JoinAnti:
		dropNull := j.dropNullOuter() && p.nulls != nil
		for i, m := range p.matched {
			if !m && !(dropNull && p.nulls[i]) {
				sel = append(sel, int32(i))
			}
		}
	}
	j.sel = sel
	if len(sel) == p.n && p.n > 0 && typ.OwnRowsAreOuter() && p.n <= j.ec.BatchSize {
		b := p.b // every row, as it is
		p.b = nil
		p.release()
		return b, nil
	}
	j.ready = j.shape.outerRowsInPieces(j.ready, p.b, sel, j.ec.BatchSize)
	p.release()
	return nil, nil
}

// probedEnough ends the probe side of a right semi or right anti join
// once every build row of the table has matched: no later probe row can
// change which build rows it returns.
func (j *hashJoin) probedEnough() {
	j.probe.release()
	j.endProbeSource()
	j.toUnmatched()
}

// toUnmatched ends the probe of a join that returns inner rows by their
// matches: they come next, unless the table is shared, where the last
// participant to finish probing returns them all (parallel_hash.go).
func (j *hashJoin) toUnmatched() {
	j.state, j.unmatched = hjUnmatched, 0
	if j.tableShared && !j.par.lastProber() {
		j.state = hjNextPartition
	}
}

// allMatched reports whether every matchable row of the table matched.
func (j *hashJoin) allMatched() bool {
	if j.tableShared {
		return j.par.innerMatched.Load() == j.par.matchable
	}
	return j.innerMatched == j.matchable
}

// dropNullOuter: outer rows with a NULL key are not returned (NOT IN
// over a build side with rows: NULL NOT IN (1, 2) is unknown).
func (j *hashJoin) dropNullOuter() bool { return j.plan.NullAware && j.innerSeen > 0 }

// joinPairs applies the JoinFilter to pairs with equal keys, records the
// matches, and returns the pairs' own rows (nil for semi and anti joins,
// whose rows come out at the end of the probe batch, and right semi and
// right anti joins, whose rows come out after the probe side).
func (j *hashJoin) joinPairs(oi, ii []int32) (arrow.RecordBatch, error) {
	p, t := &j.probe, j.table
	oneSide := j.plan.Type.OwnRowsAreOuter() || j.plan.Type.OwnRowsAreInner()
	if !oneSide {
		oi, ii = j.sortPairs(oi, ii, p.n)
	}
	var pairs arrow.RecordBatch
	if j.filter != nil {
		pairs = j.shape.pairBatch(p.b, t.batch, oi, ii)
		sel, all, err := filterPairs(j.filter, pairs, j.joinRemoved)
		if err != nil {
			pairs.Release()
			return nil, err
		}
		if !all {
			oi, ii = compactPairs(oi, ii, sel)
			if len(sel) == 0 || oneSide {
				pairs.Release()
				pairs = nil
			} else {
				kept := takeBatch(pairs, sel)
				pairs.Release()
				pairs = kept
			}
		}
	}
	if p.matched != nil {
		for _, i := range oi {
			p.matched[i] = true
		}
	}
	if t.matched != nil {
		if j.tableShared {
			j.par.innerMatched.Add(int64(t.matched.setNewShared(ii)))
		} else {
			j.innerMatched += t.matched.setNew(ii)
		}
	}
	if oneSide || len(oi) == 0 {
		if pairs != nil {
			pairs.Release()
		}
		return nil, nil
	}
	if pairs == nil {
		pairs = j.shape.pairBatch(p.b, t.batch, oi, ii)
	}
	return pairs, nil
}

// sortPairs puts pairs in outer row order when they are one match for
// each of a run of outer rows, as when every row of a probe batch matches
// one build row (a foreign key join): the run is then sliced by
// takeColumns instead of copied. Pairs of one round are in row order
// already; other pairs are left as they are (sorting them would cost
// about what it saves).
func (j *hashJoin) sortPairs(oi, ii []int32, n int) ([]int32, []int32) {
	if len(oi) < 2 {
		return oi, ii
	}
	lo, hi, sorted := oi[0], oi[0], true
	for k := 1; k < len(oi); k++ {
		i := oi[k]
		sorted = sorted && i >= oi[k-1]
		lo, hi = min(lo, i), max(hi, i)
	}
	if sorted || int(hi-lo)+1 != len(oi) {
		return oi, ii
	}
	if cap(j.oi2) < len(oi) {
		j.oi2, j.ii2 = make([]int32, len(oi)), make([]int32, len(oi))
	}
	so, si := j.oi2[:len(oi)], j.ii2[:len(oi)]
	for k := range si {
		si[k] = -1
	}
	for k, i := range oi {
		at := i - lo
		if si[at] >= 0 {
			return oi, ii // a row with two matches: no run
		}
		so[at], si[at] = i, ii[k]
	}
	// The sorted pairs take the place of the others' buffers.
	j.oi, j.oi2, j.ii, j.ii2 = so, oi[:0], si, ii[:0]
	return so, si
}

// tableBuilder gathers build rows until they become a table (or spill).
type tableBuilder struct {
	batches []arrow.RecordBatch
	keys    []keyVec
	hashes  []uint64
	nullKey []bool
	anyNull bool
	rows    int
	bytes   int64
	hist    [joinFanout]int // rows per 4-bit slot of the hash at the build's level
}

// nullKeys is how many of the builder's rows have a NULL key (kept only
// by joins that return unmatched build rows).
func (bd *tableBuilder) nullKeys() int {
	n := 0
	if bd.anyNull {
		for _, null := range bd.nullKey[:bd.rows] {
			n += int(b2u(null))
		}
	}
	return n
}

func (bd *tableBuilder) reset() {
	releaseBatches(bd.batches)
	*bd = tableBuilder{}
}

// estimate is the memory a table of the builder's rows would take.
func (j *hashJoin) estimate() int64 {
	bd := &j.bld
	return bd.bytes + tableBytes(bd.rows, bucketsFor(bd.rows, j.minBuckets()), bd.keys, innerMatches(j.plan.Type))
}

// minBuckets is the fewest buckets of a table built: PostgreSQL's 1024.
// The table is sized by the rows it holds, not by the planner's estimate
// as PostgreSQL sizes it: an estimate far above the rows (TPC-H Q18's 60
// rows planned as a million) would spread every probe over megabytes of
// buckets. EXPLAIN shows both ("Buckets: 1024 (originally 1048576)").
func (j *hashJoin) minBuckets() int { return 1024 }

// build reads the build rows of one pass (level 0: the Hash's child; else
// a partition of rows rows and bytes bytes) into j.table, or, when they
// pass the memory budget, into partition files by the hash bits of
// level; it reports whether it did the latter.
func (j *hashJoin) build(ctx context.Context, next func(context.Context) (arrow.RecordBatch, error), level int, rows, bytes int64) (bool, error) {
	j.releaseTable()
	j.level = level
	fanout := j.fanoutFor(level, rows, bytes)
	bd := &j.bld
	bd.reset()
	bd.keys = make([]keyVec, len(j.forms))
	keepNulls := fillInner(j.plan.Type)
	split := false
	var scratch keyScratch
	defer scratch.release()
	for {
		if err := checkCtx(ctx); err != nil {
			return false, err
		}
		b, err := next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return false, err
		}
		if level == 0 && j.rf != nil {
			if err := j.rf.add(b); err != nil {
				b.Release()
				return false, err
			}
		}
		if split {
			err = j.writeBuild(&scratch, b, level)
			b.Release()
			if err != nil {
				return false, err
			}
			continue
		}
		if b, err = j.addBuild(b, keepNulls, level); err != nil {
			return false, err
		}
		if b == nil {
			continue
		}
		over, err := j.overBudget(level, fanout)
		if err != nil {
			return false, err
		}
		if over {
			j.spill.level, j.spill.fanout = level, fanout
			if err := j.splitBuilt(level); err != nil {
				return false, err
			}
			split = true
		}
	}
	if split {
		j.spill.batches += fanout - 1
		j.recordHash()
		return true, nil
	}
	return false, j.finishTable()
}

// addBuild adds the build batch b to the builder (taking it over); it
// returns nil when no row of b was kept.
func (j *hashJoin) addBuild(b arrow.RecordBatch, keepNulls bool, level int) (arrow.RecordBatch, error) {
	bd := &j.bld
	arrs, err := evalKeys(j.innerKeys, b)
	if err != nil {
		b.Release()
		return nil, err
	}
	defer func() { releaseAll(arrs) }()
	nulls := keyNulls(arrs, nil)
	if level == 0 {
		j.innerSeen += b.NumRows()
		j.innerNull = j.innerNull || nulls != nil
	}
	if nulls != nil && !keepNulls {
		sel := j.sel[:0]
		for i, null := range nulls {
			if !null {
				sel = append(sel, int32(i))
			}
		}
		j.sel = sel
		if len(sel) == 0 {
			b.Release()
			return nil, nil
		}
		kept := takeBatch(b, sel)
		b.Release()
		b = kept
		for c, a := range arrs {
			arrs[c] = takeArray(a, sel)
			a.Release()
		}
		nulls = nil
	}
	n := int(b.NumRows())
	if n == 0 {
		b.Release()
		return nil, nil
	}
	if level == 0 {
		j.buildRows += int64(n)
	}
	base := bd.rows
	for c, a := range arrs {
		bd.keys[c].appendFrom(a, j.forms[c])
	}
	bd.hashes = slices.Grow(bd.hashes, n)[:base+n]
	hashKeys(bd.keys, j.forms, base, base+n, bd.hashes[base:])
	if keepNulls {
		bd.nullKey = slices.Grow(bd.nullKey, n)[:base+n]
		if nulls != nil {
			copy(bd.nullKey[base:], nulls)
			bd.anyNull = true
		} else {
			clear(bd.nullKey[base:])
		}
	}
	if level < joinMaxDepth {
		for r, h := range bd.hashes[base:] {
			if nulls == nil || !nulls[r] {
				bd.hist[partOf(h, level)]++
			}
		}
	}
	bd.rows += n
	bd.bytes += batchBytes(b)
	bd.batches = append(bd.batches, b)
	return b, nil
}

// overBudget counts the builder's memory and reports whether it should
// spill now: past hash_mem (or refused by a memory pool), at a level
// that may still split, with rows in two of fanout partitions at least
// (rows of one key never split; they are kept in memory past hash_mem,
// bounded by the memory pools: what a pool refuses and no split can
// free fails the statement with 53200).
func (j *hashJoin) overBudget(level, fanout int) (bool, error) {
	est := j.estimate()
	over := est > j.budget(level)
	refused := j.mem.resize(est)
	if refused != nil && pgerr.Code(refused) != pgerr.OutOfMemory {
		return false, refused
	}
	if refused != nil {
		over = true
	}
	if !over || level >= joinMaxDepth {
		return false, refused
	}
	var parts [joinFanout]int
	for slot, n := range j.bld.hist {
		parts[slot&(fanout-1)] += n
	}
	nonEmpty := 0
	for _, n := range parts {
		if n > 0 {
			nonEmpty++
		}
	}
	if nonEmpty < 2 {
		return false, refused
	}
	return true, nil
}

// budget is the memory the table of a pass at level may take: hash_mem,
// or under DebugSpill none at the first joinDebugLevels levels (so that
// small joins split, and split again) and the usual hash_mem below them
// (so that they stop there, after a few dozen files, not thousands).
func (j *hashJoin) budget(level int) int64 {
	if j.ec.DebugSpill && level < joinDebugLevels {
		return 0
	}
	return usualHashMem(j.ec)
}

// usualHashMem is hash_mem, DebugSpill aside.
func usualHashMem(ec *ExecContext) int64 {
	if !ec.DebugSpill {
		return ec.hashMem()
	}
	wm, m := ec.WorkMem, ec.HashMemMultiplier
	if wm <= 0 {
		wm = 4 << 20
	}
	if m <= 0 {
		m = 2
	}
	return int64(float64(wm) * m)
}

// fanoutFor is the number of partitions a pass at level splits into if
// it must: joinFanout for the Hash's child, whose size is unknown; for
// a partition of known size, enough for its parts to fit with room to
// spare (at least 2). DebugSpill splits in joinDebugFanout.
func (j *hashJoin) fanoutFor(level int, rows, bytes int64) int {
	if j.ec.DebugSpill && level < joinDebugLevels {
		return joinDebugFanout
	}
	if level == 0 {
		return joinFanout
	}
	est := bytes + rows*int64(20+8*len(j.forms)) + 4*int64(bucketsFor(int(rows), 1024))
	need := 2*est/max(j.budget(level), 1) + 1
	f := 2
	for int64(f) < need && f < joinFanout {
		f <<= 1
	}
	return f
}

// finishTable makes the builder's rows the table.
func (j *hashJoin) finishTable() error {
	j.matchable, j.innerMatched = j.bld.rows-j.bld.nullKeys(), 0
	t, buckets, err := j.tableOf(&j.bld, j.minBuckets())
	if err != nil {
		return err
	}
	j.table = t
	j.buckets = max(j.buckets, buckets)
	var n int64
	if t.batch != nil {
		n = batchBytes(t.batch)
	}
	if err := j.mem.resize(n + tableBytes(t.rows, buckets, t.keys, t.matched != nil)); err != nil {
		return err
	}
	j.recordHash()
	return nil
}

// tableOf makes the rows of bd a table of at least minBuckets buckets,
// emptying bd.
func (j *hashJoin) tableOf(bd *tableBuilder, minBuckets int) (*hashTable, int, error) {
	batch, err := concatBuildBatches(j.shape.inner, bd.batches)
	bd.batches = nil
	if err != nil {
		return nil, 0, err
	}
	var nullKey []bool
	if bd.anyNull {
		nullKey = bd.nullKey
	}
	buckets := bucketsFor(bd.rows, minBuckets)
	if bd.rows == 0 {
		buckets = 1
	}
	built := false
	defer func() {
		if !built && batch != nil { // a cancel interrupted the sort
			batch.Release()
		}
	}()
	t := newHashTable(batch, j.forms, bd.keys, bd.hashes, nullKey, buckets, j.in)
	built = true
	if innerMatches(j.plan.Type) {
		t.matched = newBitmap(t.rows)
	}
	*bd = tableBuilder{}
	return t, buckets, nil
}

// releaseTable drops the table of the partition before.
func (j *hashJoin) releaseTable() {
	if j.tableShared {
		j.table, j.tableShared = nil, false // the Gather frees it
		return
	}
	if j.table != nil {
		discarded(j.mem.bytes)
		j.table.release()
		j.table = nil
	}
}

// concatBuildBatches makes one batch of bs (taking them over); nil for none.
// Each column is concatenated in turn, so that at most one column is
// held twice.
func concatBuildBatches(s *arrow.Schema, bs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	switch len(bs) {
	case 0:
		return nil, nil
	case 1:
		return bs[0], nil
	}
	rows := 0
	parts := make([][]arrow.Array, s.NumFields())
	for _, b := range bs {
		rows += int(b.NumRows())
		for c := range parts {
			col := b.Column(c)
			col.Retain()
			parts[c] = append(parts[c], col)
		}
		b.Release()
	}
	cols := make([]arrow.Array, len(parts))
	var err error
	for c, arrs := range parts {
		if err == nil {
			cols[c], err = array.Concatenate(arrs, alloc)
		}
		releaseAll(arrs)
	}
	if err != nil {
		releaseAll(cols)
		return nil, pgerr.New(pgerr.ProgramLimitExceeded, "out of memory").
			WithDetail("The build side of a hash join holds too many bytes in one column: %s.", err)
	}
	return makeBatch(s, cols, rows), nil
}

// recordHash records the Hash node's EXPLAIN ANALYZE line.
func (j *hashJoin) recordHash() {
	if j.hashStats == nil || j.hashStats.Loops == 0 {
		return
	}
	// The most buckets of a table built, and those the estimate asked
	// for ("Buckets: 2048 (originally 1024)"), as PostgreSQL shows them.
	buckets := j.buckets
	if buckets == 0 {
		buckets = j.origBuckets
	}
	j.hashStats.Hash = &instrument.HashInfo{
		Buckets:         int64(buckets),
		OriginalBuckets: int64(j.origBuckets),
		Batches:         int64(1 + j.spill.batches),
		OriginalBatches: 1,
		PeakMemory:      max(j.mem.peak, j.sharedPeak),
	}
}

func (j *hashJoin) Close() error {
	j.recordHash()
	if j.prefetched != nil {
		j.prefetched.Release()
		j.prefetched = nil
	}
	j.probe.release()
	releaseBatches(j.ready)
	j.ready = nil
	j.releaseTable()
	j.bld.reset()
	j.endProbeSource()
	j.spill.close()
	j.mem.free()
	j.qual.close()
	j.hashQual.close()
	err := j.outer.Close()
	if err2 := j.inner.Close(); err == nil {
		err = err2
	}
	j.state = hjDone
	return err
}
