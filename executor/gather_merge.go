package executor

// GatherMerge runs copies of a sorted subplan (a Sort over a partial
// plan) in parallel workers, as Gather does, and merges their sorted
// streams into one, as PostgreSQL's nodeGatherMerge.c does.
//
// Inputs are the workers' queues plus, when it takes part, the leader's
// own copy (run synchronously when its turn comes). The merge starts once
// every input has produced its first batch or ended; it then needs the
// next batch of an input exactly when that input's current batch is used
// up, and waits for that input alone (as PostgreSQL does).
//
// Merging works on runs, not rows: the input with the smallest head row
// gives rows as long as they do not sort after the best head of the other
// inputs, so that inputs with long runs of equal or clustered keys cost
// few comparisons. An output batch is cut when it is full or when an
// input's batch is used up. It is built from the rows each input gave, a
// contiguous range of that input's batch: a single run is returned as a
// zero-copy slice; otherwise the ranges are concatenated and the rows
// taken in merged order.
//
// A LIMIT above stops early: Close stops the workers (whose Sorts were
// given the bound already), releases what they queued and waits for them.
// Errors and cancellation are Gather's.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
)

type gatherMergeOp struct {
	gatherBase
	plan   *nodes.GatherMerge
	keys   []evaluator // over the child's rows, evaluated by the leader
	inputs []*mergeInput
	cmp    func(a, b topEntry) int // over the inputs' current batches
	setCmp func(src int, keys []arrow.Array)
}

// mergeInput is one sorted stream: a worker's queue or the leader's copy.
type mergeInput struct {
	queue  chan arrow.RecordBatch
	worker int // index of the worker, for its error
	op     Operator
	batch  arrow.RecordBatch
	keys   []arrow.Array
	pos    int64 // next row of batch
	start  int64 // first row of batch not yet in an output batch
	done   bool
}

var _ Operator = (*gatherMergeOp)(nil)

func newGatherMerge(p *nodes.GatherMerge, ec *ExecContext) (Operator, error) {
	g := &gatherMergeOp{plan: p, gatherBase: gatherBase{ec: ec, build: Build}}
	for _, k := range p.Keys {
		ev, err := compileExpr(k.Expr, ec)
		if err != nil {
			return nil, err
		}
		g.keys = append(g.keys, ev)
	}
	if ec.Stats != nil {
		g.stats = ec.Stats.Node(p.ID)
	}
	return g, nil
}

func (g *gatherMergeOp) Open(ctx context.Context) error {
	if g.started {
		return g.shutdown()
	}
	return nil
}

func (g *gatherMergeOp) start(ctx context.Context) error {
	// A Sort claims its input for free: shares stay with their owners.
	op, err := g.launch(ctx, g.plan.Child, g.plan.Workers, g.plan.LeaderParticipates, true)
	if op != nil {
		// The leader's input comes first, as PostgreSQL's slot 0.
		g.inputs = append(g.inputs, &mergeInput{op: op})
	}
	if g.ws != nil {
		for i, q := range g.ws.queues {
			g.inputs = append(g.inputs, &mergeInput{queue: q, worker: i})
		}
	}
	if err != nil {
		return err
	}
	// The merge needs every input's first batch.
	for _, in := range g.inputs {
		if err := g.advance(ctx, in); err != nil {
			return err
		}
	}
	return g.rebuildComparator()
}

// advance releases in's used-up batch and reads its next one (blocking),
// evaluating the sort keys over it.
func (g *gatherMergeOp) advance(ctx context.Context, in *mergeInput) error {
	if in.batch != nil {
		in.batch.Release()
		releaseAll(in.keys)
		in.batch, in.keys = nil, nil
	}
	for !in.done {
		b, err := g.read(ctx, in)
		if err == io.EOF {
			in.done = true
			return nil
		}
		if err != nil {
			return err
		}
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		keys := make([]arrow.Array, len(g.keys))
		for i, k := range g.keys {
			arr, err := k.eval(b)
			if err != nil {
				releaseAll(keys[:i])
				b.Release()
				return err
			}
			keys[i] = arr
		}
		in.batch, in.keys, in.pos, in.start = b, keys, 0, 0
		return nil
	}
	return nil
}

// read returns in's next batch, waiting for it.
func (g *gatherMergeOp) read(ctx context.Context, in *mergeInput) (arrow.RecordBatch, error) {
	if in.op != nil {
		b, err := in.op.Next(ctx)
		if err != nil && err != io.EOF {
			if werr := g.workerErr(); werr != nil {
				return nil, werr
			}
		}
		return b, err
	}
	select {
	case b, open := <-in.queue:
		if !open {
			if g.ws.errs[in.worker] != nil {
				return nil, g.ws.err()
			}
			return nil, io.EOF
		}
		return b, nil
	case <-ctx.Done():
		return nil, CtxError(ctx)
	}
}

func (g *gatherMergeOp) rebuildComparator() error {
	srcKeys := make([][]arrow.Array, len(g.inputs))
	for i, in := range g.inputs {
		if in.keys != nil {
			srcKeys[i] = in.keys
		} else {
			srcKeys[i] = make([]arrow.Array, len(g.keys))
		}
	}
	g.cmp, g.setCmp = settableComparator(srcKeys, g.plan.Keys)
	return nil
}

// mergeRun is rows [start, start+n) of input src, in output order.
type mergeRun struct {
	src      int
	start, n int64
}

func (g *gatherMergeOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !g.started {
		if err := g.start(ctx); err != nil {
			return nil, err
		}
	}
	if err := checkCtx(ctx); err != nil {
		return nil, err
	}
	limit := int64(g.ec.BatchSize)
	var runs []mergeRun
	var rows int64
	exhausted := false
	for rows < limit && !exhausted {
		best, second := -1, -1
		for i, in := range g.inputs {
			if in.batch == nil {
				continue
			}
			switch {
			case best < 0:
				best = i
			case g.cmp(g.head(i), g.head(best)) < 0:
				best, second = i, best
			case second < 0 || g.cmp(g.head(i), g.head(second)) < 0:
				second = i
			}
		}
		if best < 0 {
			break // every input ended
		}
		in := g.inputs[best]
		start := in.pos
		end := in.batch.NumRows()
		if second >= 0 {
			// Take rows while they do not sort after the other inputs'
			// best head; ties go to the input found first.
			bound := g.head(second)
			p := start + 1
			for p < end && p-start < limit-rows && g.cmp(topEntry{src: uint8(best), row: int32(p)}, bound) <= 0 {
				p++
			}
			end = p
		} else {
			end = min(end, start+limit-rows)
		}
		if n := len(runs); n > 0 && runs[n-1].src == best && runs[n-1].start+runs[n-1].n == start {
			runs[n-1].n += end - start
		} else {
			runs = append(runs, mergeRun{src: best, start: start, n: end - start})
		}
		rows += end - start
		in.pos = end
		exhausted = in.pos == in.batch.NumRows()
	}
	if rows == 0 {
		return nil, io.EOF
	}
	out, err := g.buildOutput(runs, rows)
	if err != nil {
		return nil, err
	}
	// Inputs whose batch is used up read their next one now.
	for i, in := range g.inputs {
		in.start = in.pos
		if in.batch != nil && in.pos == in.batch.NumRows() {
			if err := g.advance(ctx, in); err != nil {
				out.Release()
				return nil, err
			}
			g.setCmp(i, in.keys)
		}
	}
	return out, nil
}

func (g *gatherMergeOp) head(i int) topEntry {
	return topEntry{src: uint8(i), row: int32(g.inputs[i].pos)}
}

// buildOutput makes the output batch of runs (rows in all).
func (g *gatherMergeOp) buildOutput(runs []mergeRun, rows int64) (arrow.RecordBatch, error) {
	if len(runs) == 1 {
		r := runs[0]
		return g.inputs[r.src].batch.NewSlice(r.start, r.start+r.n), nil
	}
	if rows >= int64(len(runs))*longRun {
		return g.concatRuns(runs)
	}
	// Each input gave a contiguous range of its batch: concatenate the
	// ranges, then take the rows in merged order.
	var parts []arrow.RecordBatch
	offset := make([]int64, len(g.inputs))
	first := make([]int64, len(g.inputs))
	var at int64
	for i, in := range g.inputs {
		if in.batch == nil || in.pos == in.start {
			continue
		}
		parts = append(parts, in.batch.NewSlice(in.start, in.pos))
		offset[i], first[i] = at, in.start
		at += in.pos - in.start
	}
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	all, err := concatBatches(parts)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	sel := make([]int32, 0, rows)
	for _, r := range runs {
		base := int32(offset[r.src] + r.start - first[r.src])
		for j := int32(0); j < int32(r.n); j++ {
			sel = append(sel, base+j)
		}
	}
	return takeBatch(all, sel), nil
}

// longRun is the average run length from which an output batch is built
// by concatenating the runs (one copy) rather than by concatenating each
// input's range and taking rows from it (two copies, but no per-run cost).
const longRun = 64

// concatRuns builds the output batch by concatenating the runs.
func (g *gatherMergeOp) concatRuns(runs []mergeRun) (arrow.RecordBatch, error) {
	parts := make([]arrow.RecordBatch, len(runs))
	for i, r := range runs {
		parts[i] = g.inputs[r.src].batch.NewSlice(r.start, r.start+r.n)
	}
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	return concatBatches(parts)
}

func (g *gatherMergeOp) shutdown() error {
	var err error
	for _, in := range g.inputs {
		if in.batch != nil {
			in.batch.Release()
			releaseAll(in.keys)
			in.batch, in.keys = nil, nil
		}
		if in.op != nil {
			if cerr := in.op.Close(); err == nil {
				err = cerr
			}
			in.op = nil
		}
	}
	g.inputs = nil
	g.stop()
	return err
}

func (g *gatherMergeOp) Close() error { return g.shutdown() }
