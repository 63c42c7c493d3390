package executor

// Merge Join. Both inputs arrive sorted on the merge keys (the planner
// puts Sorts below those not already sorted; ascending NULLS LAST unless
// an input's order says otherwise: the direction each key names is
// followed). The join walks them side by side, as PostgreSQL's
// ExecMergeJoin, a batch at a time:
//
//   - the outer side is read a batch at a time, its keys evaluated per
//     batch; the inner side likewise, with a head (the next inner row not
//     yet looked at);
//   - for each outer row, inner rows with smaller keys are skipped (right
//     and full joins return them, null-extended); when the head's keys
//     equal the outer row's, the run of inner rows with those keys is
//     collected, across inner batches if need be (segments of retained
//     batches), and every outer row with the same keys is paired with the
//     whole run (duplicates on both sides: the cross product);
//   - the run is dropped when an outer row with greater keys comes, its
//     rows that matched nothing returned by right and full joins.
//
// Keys compare with the typed comparators of the sorts (keySources,
// sort.go), in the keys' order; a row with a NULL key matches nothing and
// is skipped on either side (returned null-extended by the join types
// that return unmatched rows), which leaves the others in order. Pairs
// are collected as (outer row, run row) indexes, at most BatchSize at a
// time, become a batch by pairBatch, and the JoinFilter drops pairs.
// Outer rows are returned unmatched (left, full, anti) or matched (semi)
// at the end of their batch, from a flag per row. So an inner join's
// pairs, and a semi or anti join's rows, come in outer order (the
// planner relies on it to skip a Sort above: planner/pathkeys.go); a
// left or full join's do not.
//
// As PostgreSQL's, the outer side is read first: an empty one ends the
// join without starting the inner side, unless the join returns
// unmatched inner rows; once the inner side is exhausted and no run is
// left, joins that return no unmatched outer rows stop reading the outer
// side.
//
// Memory: the run's batches are counted against the statement's memory
// pool (53200 beyond it). The run is not spilled: a run of equal keys
// larger than the pool fails, a documented limit (work_mem does not
// bound it, as nothing else could hold those rows).
//
// Cancellation is checked between steps, each bounded by a batch.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
)

// Sources of the key comparators.
const (
	mjOuter   = 0 // the current outer batch
	mjInner   = 1 // the inner head's batch
	mjRunKeys = 2 // the batch of the run's first row
)

type mergeJoin struct {
	plan        *nodes.MergeJoin
	ec          *ExecContext
	outer       Operator
	inner       Operator
	shape       *joinShape
	okeys       []evaluator
	ikeys       []evaluator
	cmps        []*keySources
	filter      evaluator
	qual        *qual
	joinRemoved *int64
	mem         reservation

	outerOpen, outerDone bool
	innerOpen, innerDone bool
	done                 bool

	ob       mjBatch // the current outer batch
	op       int     // its next row
	omatched []bool  // its rows that matched
	ib       mjBatch // the inner head's batch (nil rows: none yet or exhausted)
	ip       int     // the inner head
	isel     []int32 // unmatched inner rows of ib, not yet returned

	inRun   bool
	run     []mjSegment
	runKeys []arrow.Array // the key arrays of the run's first row's batch
	runRow  int           // that row
	runHit  []bool        // right and full joins: the run's rows that matched
	// fillInner: the join returns unmatched inner rows (right, full).
	fillInner bool
	// pairing: the current outer row is being paired with the run, from
	// segment pseg, row prow.
	pairing    bool
	pseg, prow int
	// pending pairs of the current outer batch with inner batch pendB
	// (retained), which is run segment pendSeg while the run lasts (-1
	// after). They outlive the run, so that runs of one row each still
	// make batches of BatchSize pairs.
	pendB    arrow.RecordBatch
	pendSeg  int
	poi, pii []int32

	ready []arrow.RecordBatch
	sel   []int32
}

// mjBatch is a batch of one side with its keys.
type mjBatch struct {
	b    arrow.RecordBatch
	keys []arrow.Array
	null []bool // rows with a NULL key (nil: none)
}

func (x *mjBatch) rows() int {
	if x.b == nil {
		return 0
	}
	return int(x.b.NumRows())
}

func (x *mjBatch) release() {
	if x.b != nil {
		x.b.Release()
	}
	releaseAll(x.keys)
	*x = mjBatch{}
}

// mjSegment is the rows [lo, hi) of one inner batch in the run; their
// flags are runHit[off:off+hi-lo].
type mjSegment struct {
	b      arrow.RecordBatch
	lo, hi int
	off    int
}

func (*mergeJoin) ownsQual() {}

func newMergeJoin(p *nodes.MergeJoin, ec *ExecContext) (Operator, error) {
	m := &mergeJoin{plan: p, ec: ec, fillInner: fillInner(p.Type), pendSeg: -1}
	m.shape = newJoinShape(p.Type, p.Outer.Base().Out, p.Inner.Base().Out)
	for _, k := range p.MergeKeys {
		oe, err := compileExpr(k.Outer, ec)
		if err != nil {
			return nil, err
		}
		ie, err := compileExpr(k.Inner, ec)
		if err != nil {
			return nil, err
		}
		m.okeys, m.ikeys = append(m.okeys, oe), append(m.ikeys, ie)
		sk := nodes.SortKey{Expr: k.Outer, Desc: k.Desc, NullsFirst: k.NullsFirst}
		m.cmps = append(m.cmps, newKeySources(sk, 3))
	}
	var err error
	if p.JoinFilter != nil {
		if m.filter, err = compileExpr(p.JoinFilter, ec); err != nil {
			return nil, err
		}
	}
	if m.qual, err = newQual(&p.PlanBase, ec); err != nil {
		return nil, err
	}
	if ec.Stats != nil {
		m.joinRemoved = &ec.Stats.Node(p.ID).RowsRemovedByJoinFilter
	}
	if m.outer, err = Build(p.Outer, ec); err != nil {
		return nil, err
	}
	if m.inner, err = Build(p.Inner, ec); err != nil {
		m.outer.Close()
		return nil, err
	}
	return m, nil
}

func (m *mergeJoin) Open(ctx context.Context) error {
	m.mem = reservation{pool: m.ec.Memory}
	return nil
}

func (m *mergeJoin) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return m.qual.next(func() (arrow.RecordBatch, error) { return m.produce(ctx) })
}

func (m *mergeJoin) produce(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if len(m.ready) > 0 {
			b := m.ready[0]
			m.ready = m.ready[1:]
			return b, nil
		}
		if m.done {
			return nil, io.EOF
		}
		if err := checkCtx(ctx); err != nil {
			return nil, err
		}
		if err := m.step(ctx); err != nil {
			return nil, err
		}
	}
}

// step does one bounded piece of work: a new outer batch, the outer
// batch's rows until something is ready, or, once the outer side is
// exhausted, the inner rows left.
func (m *mergeJoin) step(ctx context.Context) error {
	if m.outerDone {
		return m.finishInner(ctx)
	}
	if m.ob.b == nil {
		return m.nextOuter(ctx)
	}
	pairs := 0 // the pairs this step made: a step makes about a batch
	for m.op < m.ob.rows() && len(m.ready) == 0 && pairs < m.ec.BatchSize {
		if m.pairing {
			n, err := m.pairStep()
			if err != nil {
				return err
			}
			pairs += n
			continue
		}
		o := m.op
		if m.ob.null != nil && m.ob.null[o] {
			m.op++ // matches nothing
			continue
		}
		if m.inRun {
			if m.compareRun(o) == 0 {
				m.startPairing()
			} else if err := m.dropRun(); err != nil {
				return err
			}
			continue
		}
		if m.innerDone && m.ib.b == nil && !fillOuter(m.plan.Type) {
			// Nothing more can match, and no outer row is returned alone.
			m.op = m.ob.rows()
			m.outerDone = true
			break
		}
		c, paused, err := m.seek(ctx, o)
		switch {
		case err != nil:
			return err
		case paused:
			// A new inner batch: o is looked at again in the next step.
			return nil
		case c == 0:
			if err := m.collectRun(ctx); err != nil {
				return err
			}
		default:
			m.op++ // the inner side has no such keys
		}
	}
	if m.op >= m.ob.rows() && !m.pairing {
		return m.endOuterBatch()
	}
	return nil
}

// nextOuter reads the next outer batch, or ends the outer side.
func (m *mergeJoin) nextOuter(ctx context.Context) error {
	b, err := m.fetch(ctx, m.outer, &m.outerOpen, m.shape.outer, "outer")
	if err == io.EOF {
		m.outerDone = true
		return nil
	}
	if err != nil {
		return err
	}
	if m.ob, err = m.withKeys(b, m.okeys, mjOuter); err != nil {
		return err
	}
	m.op = 0
	n := m.ob.rows()
	if cap(m.omatched) < n {
		m.omatched = make([]bool, n)
	}
	m.omatched = m.omatched[:n]
	clear(m.omatched)
	return nil
}

// fetch returns the next non-empty batch of a child, opening it first.
func (m *mergeJoin) fetch(ctx context.Context, child Operator, open *bool, s *arrow.Schema, side string) (arrow.RecordBatch, error) {
	if !*open {
		*open = true
		if err := child.Open(ctx); err != nil {
			return nil, err
		}
	}
	for {
		b, err := child.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b.NumRows() > 0 {
			return conform(b, s, side)
		}
		b.Release()
	}
}

// withKeys evaluates a batch's keys and points comparator source src at
// them; it takes over b.
func (m *mergeJoin) withKeys(b arrow.RecordBatch, evs []evaluator, src int) (mjBatch, error) {
	x := mjBatch{b: b}
	for _, ev := range evs {
		k, err := ev.eval(b)
		if err != nil {
			x.release()
			return mjBatch{}, err
		}
		x.keys = append(x.keys, k)
	}
	n := int(b.NumRows())
	for i, k := range x.keys {
		m.cmps[i].set(src, k)
		if k.NullN() == 0 {
			continue
		}
		if x.null == nil {
			x.null = make([]bool, n)
		}
		valid := validity(k)
		for r := 0; r < n; r++ {
			x.null[r] = x.null[r] || !isValid(valid, r)
		}
	}
	return x, nil
}

// compare orders row a of source sa against row b of source sb by the
// keys, both free of NULLs.
func (m *mergeJoin) compare(sa uint8, a int, sb uint8, b int) int {
	ea, eb := topEntry{src: sa, row: int32(a)}, topEntry{src: sb, row: int32(b)}
	for _, c := range m.cmps {
		if r := c.compare(ea, eb); r != 0 {
			return r
		}
	}
	return 0
}

func (m *mergeJoin) compareRun(o int) int { return m.compare(mjOuter, o, mjRunKeys, m.runRow) }

// seek moves the inner head past the rows with keys below outer row o's
// (and those with a NULL key), which match nothing. It returns how the
// head's keys compare with o's (1 also when the inner side is
// exhausted), or paused when it read a new inner batch (so that a step
// reads at most one).
func (m *mergeJoin) seek(ctx context.Context, o int) (c int, paused bool, err error) {
	for {
		if m.ip >= m.ib.rows() {
			if err := m.nextInner(ctx); err != nil {
				return 0, false, err
			}
			if m.ib.b == nil {
				return 1, false, nil
			}
			return 0, true, nil
		}
		for ; m.ip < m.ib.rows(); m.ip++ {
			if m.ib.null == nil || !m.ib.null[m.ip] {
				if c := m.compare(mjInner, m.ip, mjOuter, o); c >= 0 {
					return c, false, nil
				}
			}
			m.unmatchedInner(m.ip)
		}
	}
}

// unmatchedInner notes inner head row i, which matched nothing.
func (m *mergeJoin) unmatchedInner(i int) {
	if fillInner(m.plan.Type) {
		m.isel = append(m.isel, int32(i))
		if len(m.isel) >= m.ec.BatchSize {
			m.flushInnerSel()
		}
	}
}

// flushInnerSel returns the unmatched rows of the head's batch noted.
func (m *mergeJoin) flushInnerSel() {
	if len(m.isel) > 0 {
		m.ready = append(m.ready, m.shape.innerRows(m.ib.b, m.isel))
		m.isel = m.isel[:0]
	}
}

// nextInner replaces the head's batch with the next inner batch (the
// head's batch nil when the inner side is exhausted).
func (m *mergeJoin) nextInner(ctx context.Context) error {
	m.flushInnerSel()
	m.ib.release()
	m.ip = 0
	if m.innerDone {
		return nil
	}
	b, err := m.fetch(ctx, m.inner, &m.innerOpen, m.shape.inner, "inner")
	if err == io.EOF {
		m.innerDone = true
		return nil
	}
	if err != nil {
		return err
	}
	m.ib, err = m.withKeys(b, m.ikeys, mjInner)
	return err
}

// collectRun collects the run of inner rows whose keys equal the head's,
// from the head on, across inner batches, and moves the head past it.
func (m *mergeJoin) collectRun(ctx context.Context) error {
	m.inRun = true
	for _, k := range m.ib.keys {
		k.Retain()
		m.runKeys = append(m.runKeys, k)
	}
	m.runRow = m.ip
	for _, c := range m.cmps {
		c.alias(mjRunKeys, mjInner)
	}
	for {
		lo := m.ip
		for m.ip < m.ib.rows() && (m.ib.null == nil || !m.ib.null[m.ip]) &&
			m.compare(mjInner, m.ip, mjRunKeys, m.runRow) == 0 {
			m.ip++
		}
		if m.ip > lo {
			if err := m.addSegment(lo, m.ip); err != nil {
				return err
			}
		}
		if m.ip < m.ib.rows() {
			return nil
		}
		if err := checkCtx(ctx); err != nil {
			return err
		}
		if err := m.nextInner(ctx); err != nil {
			return err
		}
		if m.ib.b == nil {
			return nil
		}
	}
}

// addSegment adds rows [lo, hi) of the head's batch to the run.
func (m *mergeJoin) addSegment(lo, hi int) error {
	m.ib.b.Retain()
	seg := mjSegment{b: m.ib.b, lo: lo, hi: hi, off: len(m.runHit)}
	m.run = append(m.run, seg)
	bytes := batchBytes(seg.b) * int64(hi-lo) / int64(seg.b.NumRows())
	if m.fillInner {
		for k := lo; k < hi; k++ {
			m.runHit = append(m.runHit, false)
		}
		bytes += int64(hi - lo)
	}
	return m.mem.resize(m.mem.bytes + bytes)
}

// alias makes source dst read the rows source src reads, without
// decoding them again (a run starts in the inner head's batch).
func (c *keySources) alias(dst, src int) {
	c.valid[dst] = c.valid[src]
	switch {
	case c.ints != nil:
		c.ints[dst] = c.ints[src]
	case c.int32s != nil:
		c.int32s[dst] = c.int32s[src]
	case c.int16s != nil:
		c.int16s[dst] = c.int16s[src]
	case c.f64s != nil:
		c.f64s[dst] = c.f64s[src]
	case c.f32s != nil:
		c.f32s[dst] = c.f32s[src]
	case c.strs != nil:
		c.strs[dst] = c.strs[src]
	default:
		c.datums[dst] = c.datums[src]
	}
}

// startPairing begins pairing the current outer row with the run; a semi
// or anti join without a JoinFilter needs no pairs.
func (m *mergeJoin) startPairing() {
	if m.filter == nil {
		// Every pair matches.
		m.omatched[m.op] = true
		for k := range m.runHit {
			m.runHit[k] = true
		}
		if m.plan.Type.OwnRowsAreOuter() {
			m.op++
			return
		}
	}
	m.pairing, m.pseg, m.prow = true, 0, m.run[0].lo
}

// pairStep adds pairs of the current outer row with the run, until the
// run ends or a batch of pairs is full; it returns how many it added.
func (m *mergeJoin) pairStep() (int, error) {
	o := int32(m.op)
	added := 0
	for m.pseg < len(m.run) {
		seg := &m.run[m.pseg]
		if len(m.poi) > 0 && m.pendB != seg.b {
			if err := m.flushPairs(); err != nil {
				return added, err
			}
		}
		if m.pendB != seg.b {
			if m.pendB != nil {
				m.pendB.Release()
			}
			seg.b.Retain()
			m.pendB = seg.b
		}
		m.pendSeg = m.pseg
		hi := min(seg.hi, m.prow+m.ec.BatchSize-len(m.poi))
		for r := m.prow; r < hi; r++ {
			m.poi, m.pii = append(m.poi, o), append(m.pii, int32(r))
		}
		added += hi - m.prow
		m.prow = hi
		if len(m.poi) >= m.ec.BatchSize {
			if err := m.flushPairs(); err != nil {
				return added, err
			}
		}
		if m.prow < seg.hi {
			return added, nil // more of this segment after the batch just made
		}
		m.pseg++
		if m.pseg < len(m.run) {
			m.prow = m.run[m.pseg].lo
		}
	}
	m.pairing = false
	m.op++
	return added, nil
}

// flushPairs turns the pending pairs into a batch, keeps those the
// JoinFilter passes and records their matches.
func (m *mergeJoin) flushPairs() error {
	if len(m.poi) == 0 {
		return nil
	}
	oi, ii := m.poi, m.pii
	m.poi, m.pii = oi[:0], ii[:0]
	pairs := m.shape.pairBatch(m.ob.b, m.pendB, oi, ii)
	if m.filter != nil {
		sel, all, err := filterPairs(m.filter, pairs, m.joinRemoved)
		if err != nil {
			pairs.Release()
			return err
		}
		if !all {
			oi, ii = compactPairs(oi, ii, sel)
			kept := takeBatch(pairs, sel)
			pairs.Release()
			pairs = kept
		}
	}
	for _, i := range oi {
		m.omatched[i] = true
	}
	if m.filter != nil && m.fillInner && m.pendSeg >= 0 {
		// (Without a JoinFilter, startPairing flagged the whole run.)
		seg := &m.run[m.pendSeg]
		for _, i := range ii {
			m.runHit[seg.off+int(i)-seg.lo] = true
		}
	}
	if m.plan.Type.OwnRowsAreOuter() || len(oi) == 0 {
		pairs.Release()
		return nil
	}
	m.ready = append(m.ready, pairs)
	return nil
}

// dropRun ends the run: right and full joins return its rows that
// matched nothing.
func (m *mergeJoin) dropRun() error {
	if m.filter != nil && m.fillInner {
		// The pending pairs' matches decide which rows are unmatched.
		if err := m.flushPairs(); err != nil {
			return err
		}
	}
	m.pendSeg = -1
	for i := range m.run {
		seg := &m.run[i]
		if m.fillInner {
			sel := m.sel[:0]
			for k, hit := range m.runHit[seg.off : seg.off+seg.hi-seg.lo] {
				if !hit {
					sel = append(sel, int32(seg.lo+k))
				}
			}
			m.sel = sel
			for lo := 0; lo < len(sel); lo += m.ec.BatchSize {
				m.ready = append(m.ready, m.shape.innerRows(seg.b, sel[lo:min(lo+m.ec.BatchSize, len(sel))]))
			}
		}
	}
	m.releaseRun()
	return m.mem.resize(0)
}

// releaseRun lets the run's batches and keys go.
func (m *mergeJoin) releaseRun() {
	for _, seg := range m.run {
		seg.b.Release()
	}
	clear(m.run)
	m.run = m.run[:0]
	releaseAll(m.runKeys)
	clear(m.runKeys)
	m.runKeys = m.runKeys[:0]
	m.runHit = m.runHit[:0]
	m.inRun = false
}

// endOuterBatch returns the outer batch's rows that matched nothing
// (left, full, anti) or something (semi), and lets the batch go.
func (m *mergeJoin) endOuterBatch() error {
	if err := m.flushPairs(); err != nil {
		return err
	}
	if m.pendB != nil {
		m.pendB.Release()
		m.pendB = nil
	}
	typ := m.plan.Type
	if fillOuter(typ) || typ == nodes.JoinSemi {
		want := typ == nodes.JoinSemi
		sel := m.sel[:0]
		for i, hit := range m.omatched {
			if hit == want {
				sel = append(sel, int32(i))
			}
		}
		m.sel = sel
		m.ready = m.shape.outerRowsInPieces(m.ready, m.ob.b, sel, m.ec.BatchSize)
	}
	m.ob.release()
	return nil
}

// finishInner, once the outer side is exhausted, ends the run and, for
// right and full joins, returns the inner rows not yet looked at.
func (m *mergeJoin) finishInner(ctx context.Context) error {
	if m.inRun {
		return m.dropRun()
	}
	if !fillInner(m.plan.Type) {
		m.done = true
		return nil
	}
	for ; m.ip < m.ib.rows(); m.ip++ {
		m.unmatchedInner(m.ip)
	}
	if err := m.nextInner(ctx); err != nil {
		return err
	}
	if m.ib.b == nil {
		m.done = true
	}
	return nil
}

func (m *mergeJoin) Close() error {
	m.ob.release()
	m.ib.release()
	m.releaseRun()
	if m.pendB != nil {
		m.pendB.Release()
		m.pendB = nil
	}
	releaseBatches(m.ready)
	m.ready = nil
	m.mem.free()
	m.qual.close()
	err := m.outer.Close()
	if err2 := m.inner.Close(); err == nil {
		err = err2
	}
	m.done = true
	return err
}
