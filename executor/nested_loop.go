package executor

// Nested Loop: every outer row against every inner row, for joins
// without an equality to hash on (and cross joins). The inner side is
// read once, on the first outer batch: from a Materialize child its
// buffered batches are used in place (rowBuffer), else the loop keeps
// the batches it read itself (counted against the memory pools, 53200
// beyond them; no spilling). Then each outer batch is paired with each
// inner batch in chunks of at most BatchSize pairs, the outer row
// indexes repeated and the inner ones tiled, and the JoinFilter is
// evaluated over each chunk at once. No JoinFilter makes a cross join.
//
// Join types as for the hash join (hash_join.go): left, full and anti
// joins flag the outer rows of the batch that matched, right and full
// joins keep a bitmap over all inner rows and return the unmatched ones
// at the end; semi and anti joins pair only the outer rows without a
// match yet, and without a JoinFilter need no pairs at all.
//
// Under EXPLAIN ANALYZE a Materialize inner side shows what PostgreSQL's
// would, rescanned once per outer row: loops = outer rows, and all its
// rows in every loop.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
)

type nlState uint8

const (
	nlStart nlState = iota
	nlNextOuter
	nlPair
	nlUnmatchedInner
	nlDone
)

type nestedLoop struct {
	plan        *nodes.NestedLoop
	ec          *ExecContext
	outer       Operator
	inner       Operator
	shape       *joinShape
	filter      evaluator
	qual        *qual
	joinRemoved *int64
	matStats    *instrument.NodeStats // a Materialize inner side's counters

	state     nlState
	outerOpen bool
	outerDone bool
	innerOpen bool

	innerRows   []arrow.RecordBatch
	innerStarts []int // each inner batch's first row among all inner rows
	innerTotal  int
	ownInner    bool // innerRows were read here (else a rowBuffer's)
	mem         reservation
	innerHit    bitmap // right and full joins: inner rows that matched

	ob       arrow.RecordBatch // the outer batch being paired
	orows    []int32           // its rows to pair with inner batch ib
	matched  []bool
	matchBuf []bool
	ib, pos  int // inner batch, and next pair within orows x that batch
	// unmatched is the next inner row to look at for right and full joins.
	unmatched int
	outerSeen int64
	ready     []arrow.RecordBatch
	oi, ii    []int32
	sel       []int32
}

func (*nestedLoop) ownsQual() {}

func newNestedLoop(p *nodes.NestedLoop, ec *ExecContext) (Operator, error) {
	n := &nestedLoop{plan: p, ec: ec}
	n.shape = newJoinShape(p.Type, p.Outer.Base().Out, p.Inner.Base().Out)
	var err error
	if p.JoinFilter != nil {
		if n.filter, err = compileExpr(p.JoinFilter, ec); err != nil {
			return nil, err
		}
	}
	if n.qual, err = newQual(&p.PlanBase, ec); err != nil {
		return nil, err
	}
	if ec.Stats != nil {
		n.joinRemoved = &ec.Stats.Node(p.ID).RowsRemovedByJoinFilter
		if m, ok := p.Inner.(*nodes.Material); ok {
			n.matStats = ec.Stats.Node(m.ID)
		}
	}
	if n.outer, err = Build(p.Outer, ec); err != nil {
		return nil, err
	}
	if n.inner, err = Build(p.Inner, ec); err != nil {
		n.outer.Close()
		return nil, err
	}
	return n, nil
}

func (n *nestedLoop) Open(ctx context.Context) error {
	n.state = nlStart
	n.mem = reservation{pool: n.ec.Memory}
	return nil
}

func (n *nestedLoop) outerNext(ctx context.Context) (arrow.RecordBatch, error) {
	if n.outerDone {
		return nil, io.EOF
	}
	if !n.outerOpen {
		n.outerOpen = true
		if err := n.outer.Open(ctx); err != nil {
			n.outerDone = true
			return nil, err
		}
	}
	b, err := n.outer.Next(ctx)
	if err != nil {
		n.outerDone = true
		return nil, err
	}
	return conform(b, n.shape.outer, "outer")
}

// loadInner reads the inner side, once.
func (n *nestedLoop) loadInner(ctx context.Context) error {
	n.innerOpen = true
	if err := n.inner.Open(ctx); err != nil {
		return err
	}
	if rb, ok := unwrapOperator(n.inner).(rowBuffer); ok {
		rows, err := rb.bufferedRows(ctx)
		if err != nil {
			return err
		}
		for _, b := range rows {
			if err := checkColumns(b, n.shape.inner, "inner"); err != nil {
				return err
			}
		}
		n.innerRows = rows
	} else {
		n.ownInner = true
		var bytes int64
		for {
			if err := checkCtx(ctx); err != nil {
				return err
			}
			b, err := n.inner.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			if b, err = conform(b, n.shape.inner, "inner"); err != nil {
				return err
			}
			n.innerRows = append(n.innerRows, b)
			bytes += batchBytes(b)
			if err := n.mem.resize(bytes); err != nil {
				return err
			}
		}
	}
	for _, b := range n.innerRows {
		n.innerStarts = append(n.innerStarts, n.innerTotal)
		n.innerTotal += int(b.NumRows())
	}
	if fillInner(n.plan.Type) {
		n.innerHit = newBitmap(n.innerTotal)
		if err := n.mem.resize(n.mem.bytes + n.innerHit.bytes()); err != nil {
			return err
		}
	}
	return nil
}

func (n *nestedLoop) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return n.qual.next(func() (arrow.RecordBatch, error) { return n.produce(ctx) })
}

func (n *nestedLoop) produce(ctx context.Context) (arrow.RecordBatch, error) {
	typ := n.plan.Type
	for {
		if len(n.ready) > 0 {
			b := n.ready[0]
			n.ready = n.ready[1:]
			return b, nil
		}
		if err := checkCtx(ctx); err != nil {
			return nil, err
		}
		switch n.state {
		case nlStart, nlNextOuter:
			b, err := n.outerNext(ctx)
			if err == io.EOF {
				n.state = nlDone
				if fillInner(typ) {
					if !n.innerOpen {
						if err := n.loadInner(ctx); err != nil {
							return nil, err
						}
					}
					n.state = nlUnmatchedInner
				}
				continue
			}
			if err != nil {
				return nil, err
			}
			if !n.innerOpen {
				if err := n.loadInner(ctx); err != nil {
					b.Release()
					return nil, err
				}
				if n.innerTotal == 0 && !fillOuter(typ) {
					// Nothing can match, and no outer row is returned alone.
					b.Release()
					n.state = nlDone
					continue
				}
			}
			n.startOuter(b)
		case nlPair:
			out, err := n.pairStep()
			if err != nil || out != nil {
				return out, err
			}
		case nlUnmatchedInner:
			if n.unmatched >= n.innerTotal {
				n.state = nlDone
				continue
			}
			n.unmatchedStep()
		case nlDone:
			return nil, io.EOF
		}
	}
}

// startOuter takes over outer batch b.
func (n *nestedLoop) startOuter(b arrow.RecordBatch) {
	typ := n.plan.Type
	rows := int(b.NumRows())
	n.outerSeen += int64(rows)
	if typ.OwnRowsAreOuter() && n.filter == nil {
		// Every pair matches: a semi join returns the batch if there are
		// inner rows, an anti join if there are none.
		if (n.innerTotal > 0) == (typ == nodes.JoinSemi) {
			n.ready = n.wholeBatch(n.ready, b)
		}
		b.Release()
		n.state = nlNextOuter
		return
	}
	n.ob = b
	n.orows = n.orows[:0]
	for i := 0; i < rows; i++ {
		n.orows = append(n.orows, int32(i))
	}
	n.matched = nil
	if fillOuter(typ) || typ == nodes.JoinSemi {
		if cap(n.matchBuf) < rows {
			n.matchBuf = make([]bool, rows)
		}
		n.matched = n.matchBuf[:rows]
		clear(n.matched)
	}
	n.ib, n.pos = 0, 0
	n.state = nlPair
}

// wholeBatch appends b's rows (retained) in pieces of at most BatchSize.
func (n *nestedLoop) wholeBatch(out []arrow.RecordBatch, b arrow.RecordBatch) []arrow.RecordBatch {
	rows, size := b.NumRows(), int64(n.ec.BatchSize)
	if rows <= size {
		b.Retain()
		return append(out, b)
	}
	for lo := int64(0); lo < rows; lo += size {
		out = append(out, b.NewSlice(lo, min(lo+size, rows)))
	}
	return out
}

// pairStep joins the next chunk of pairs of the outer batch, or ends
// the batch; it returns a batch, or nil when this step made none.
func (n *nestedLoop) pairStep() (arrow.RecordBatch, error) {
	typ := n.plan.Type
	for n.ib < len(n.innerRows) {
		ib := n.innerRows[n.ib]
		m := int(ib.NumRows())
		if n.pos == 0 && typ.OwnRowsAreOuter() {
			// Only rows without a match yet need more pairs.
			rows := n.orows[:0]
			for i, hit := range n.matched {
				if !hit {
					rows = append(rows, int32(i))
				}
			}
			n.orows = rows
		}
		total := len(n.orows) * m
		if n.pos >= total {
			n.ib, n.pos = n.ib+1, 0
			continue
		}
		chunk := min(n.ec.BatchSize, total-n.pos)
		oi, ii := n.oi[:0], n.ii[:0]
		r, c := n.pos/m, n.pos%m
		for k := 0; k < chunk; k++ {
			oi, ii = append(oi, n.orows[r]), append(ii, int32(c))
			if c++; c == m {
				r, c = r+1, 0
			}
		}
		n.oi, n.ii = oi, ii
		n.pos += chunk
		return n.joinChunk(ib, n.innerStarts[n.ib], oi, ii)
	}
	// Every inner batch is done: the outer rows without (or, for semi
	// joins, with) a match.
	sel := n.sel[:0]
	switch typ {
	case nodes.JoinSemi:
		for i, hit := range n.matched {
			if hit {
				sel = append(sel, int32(i))
			}
		}
	case nodes.JoinLeft, nodes.JoinFull, nodes.JoinAnti:
		for i, hit := range n.matched {
			if !hit {
				sel = append(sel, int32(i))
			}
		}
	}
	n.sel = sel
	n.ready = n.shape.outerRowsInPieces(n.ready, n.ob, sel, n.ec.BatchSize)
	n.ob.Release()
	n.ob = nil
	n.state = nlNextOuter
	return nil, nil
}

// joinChunk evaluates the JoinFilter over the pairs (oi, ii) of the outer
// batch and inner batch ib (whose first row is inner row start), records
// the matches and returns the matching pairs' rows (nil for semi and
// anti joins, or when none matched).
func (n *nestedLoop) joinChunk(ib arrow.RecordBatch, start int, oi, ii []int32) (arrow.RecordBatch, error) {
	pairs := n.shape.pairBatch(n.ob, ib, oi, ii)
	if n.filter != nil {
		sel, all, err := filterPairs(n.filter, pairs, n.joinRemoved)
		if err != nil {
			pairs.Release()
			return nil, err
		}
		if !all {
			oi, ii = compactPairs(oi, ii, sel)
			kept := takeBatch(pairs, sel)
			pairs.Release()
			pairs = kept
		}
	}
	if n.matched != nil {
		for _, i := range oi {
			n.matched[i] = true
		}
	}
	if n.innerHit != nil {
		for _, i := range ii {
			n.innerHit.set(int32(start) + i)
		}
	}
	if n.plan.Type.OwnRowsAreOuter() || len(oi) == 0 {
		pairs.Release()
		return nil, nil
	}
	return pairs, nil
}

// unmatchedStep queues the next inner rows that matched nothing
// (right and full joins), null-extended, from one inner batch.
func (n *nestedLoop) unmatchedStep() {
	// The inner batch holding row n.unmatched.
	k := 0
	for k+1 < len(n.innerStarts) && n.innerStarts[k+1] <= n.unmatched {
		k++
	}
	b, start := n.innerRows[k], n.innerStarts[k]
	end := start + int(b.NumRows())
	global, next := n.innerHit.unmatchedRows(n.sel[:0], n.unmatched, end, n.ec.BatchSize)
	n.unmatched = next
	for i := range global {
		global[i] -= int32(start)
	}
	n.sel = global
	if len(global) > 0 {
		n.ready = append(n.ready, n.shape.innerRows(b, global))
	}
}

func (n *nestedLoop) Close() error {
	if n.matStats != nil && n.matStats.Loops > 0 {
		// PostgreSQL rescans the Materialize for every outer row.
		loops := max(n.outerSeen, 1)
		n.matStats.Loops = loops
		n.matStats.Rows = loops * int64(n.innerTotal)
	}
	if n.ob != nil {
		n.ob.Release()
		n.ob = nil
	}
	releaseBatches(n.ready)
	n.ready = nil
	if n.ownInner {
		releaseBatches(n.innerRows)
	}
	n.innerRows = nil
	n.mem.free()
	n.qual.close()
	err := n.outer.Close()
	if err2 := n.inner.Close(); err == nil {
		err = err2
	}
	n.state = nlDone
	return err
}
