package executor

// Append returns the batches of its children: UNION ALL, the partitions
// of a partitioned table.
//
// Synchronous children are run in turn, opened lazily one at a time and
// closed as soon as they are exhausted, so that at most one of them holds
// resources at a time.
//
// Async-capable children (ForeignScans on async_capable servers, marked
// by the planner) are registered with the Append on its first Next: all
// of them are opened at once and started, each fetching on a goroutine of
// its own and delivering batches through the Append's event channel (see
// async.go). The Append returns async batches as they arrive, interleaved
// with its synchronous children's: between synchronous batches it polls
// the channel without blocking (unlike PostgreSQL, which looks only after
// a synchronous child is exhausted, a slow synchronous child does not
// starve the async ones); it blocks on the channel only when no
// synchronous work is left.
//
// A Parallel Append (under a Gather) runs in every participant: each
// copy starts at a different child. Parallel Seq Scans are run by every
// participant, which share their rows out; any other child (a foreign
// table) is run whole by the first participant that claims it.
//
// Errors: the first error of any child ends the Append with that error.
// Cancellation: ctx reaches the remote fetches; Close (also after LIMIT
// stopped early) cancels the async children, waits for their goroutines,
// releases undelivered batches and closes every child.

import (
	"context"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
)

type appendOp struct {
	ec     *ExecContext
	stats  *instrument.NodeStats
	kids   []Operator
	cur    int // next synchronous child
	opened bool

	// Parallel Append: partial children (Parallel Seq Scans) are run by
	// every participant; any other child by the one that claims it.
	partial []bool
	claim   func(child int) bool

	// async state, set up on the first Next
	async   []bool
	started bool
	driver  *asyncDriver // nil without async children
	waits   []time.Duration
}

func newAppend(p *nodes.Append, ec *ExecContext) (Operator, error) {
	kids, err := buildChildren(p.Kids, ec)
	if err != nil {
		return nil, err
	}
	var claim func(child int) bool
	var orig []int
	if p.Parallel && ec.parallel != nil && len(kids) > 0 {
		// Parallel Append: each participant starts at a different child,
		// so that they spread over the children before meeting in one.
		r := ec.participant % len(kids)
		kids = append(kids[r:], kids[:r]...)
		rotated := append(append([]nodes.Plan(nil), p.Kids[r:]...), p.Kids[:r]...)
		for i := range kids {
			orig = append(orig, (i+r)%len(kids))
		}
		p = &nodes.Append{PlanBase: p.PlanBase, Kids: rotated, Parallel: true}
		shared := ec.parallel.appendClaims(p.ID, len(kids))
		claim = func(child int) bool { return shared[orig[child]].CompareAndSwap(false, true) }
	}
	a := &appendOp{ec: ec, kids: kids, async: make([]bool, len(kids)), claim: claim}
	if claim != nil {
		a.partial = make([]bool, len(kids))
		for i, k := range p.Kids {
			s, ok := k.(*nodes.SeqScan)
			a.partial[i] = ok && s.Parallel
		}
	}
	for i, k := range p.Kids {
		fs, ok := k.(*nodes.ForeignScan)
		if !ok {
			continue
		}
		ac, err := asyncOperator(fs, kids[i])
		if err != nil {
			for _, kid := range kids {
				kid.Close()
			}
			return nil, err
		}
		switch {
		case fs.Async:
			a.async[i] = true
		default:
			// A synchronous child of an Append (enable_async_append off)
			// fetches when asked, as in PostgreSQL: prefetching on a
			// goroutine would hand every batch between goroutines, which
			// costs more than it overlaps when the Append's parent does
			// little per batch.
			if f, ok := ac.(*foreignScan); ok {
				f.noPrefetch = true
			}
		}
	}
	if ec.Stats != nil {
		a.stats = ec.Stats.Node(p.ID)
	}
	return a, nil
}

func (a *appendOp) Open(ctx context.Context) error {
	a.cur, a.opened = 0, false
	return nil
}

// startAsync opens every async child and starts its fetching.
func (a *appendOp) startAsync(ctx context.Context) error {
	a.started = true
	var kids []asyncChild
	// Open every async child before starting any: opening uses the
	// session's connection cache, which is not shared with running fetches.
	for i, is := range a.async {
		if !is {
			continue
		}
		ac, w := unwrapAsync(a.kids[i])
		if err := ac.Open(ctx); err != nil {
			return err
		}
		k := asyncChild{index: i, op: ac}
		if w != nil {
			k.stats = w.stats
			w.stats.Loops++
		}
		kids = append(kids, k)
	}
	if len(kids) == 0 {
		return nil
	}
	a.waits = make([]time.Duration, len(a.kids))
	a.driver = startAsync(ctx, kids, asyncDemand, a.stats)
	return nil
}

func (a *appendOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !a.started {
		if err := a.startAsync(ctx); err != nil {
			return nil, err
		}
	}
	for {
		// Async results that are already there come first.
		if d := a.driver; d != nil && d.live > 0 {
			select {
			case ev := <-d.events:
				if b, err, ok := d.take(ev); ok {
					return b, err
				}
				continue
			default:
			}
		}
		// Then synchronous work.
		if b, err, ok := a.nextSync(ctx); ok {
			return b, err
		}
		d := a.driver
		if d == nil || d.live == 0 {
			return nil, io.EOF
		}
		// Nothing synchronous left: block until an async child delivers.
		start := time.Now()
		select {
		case ev := <-d.events:
			a.waits[ev.child] += time.Since(start)
			if b, err, ok := d.take(ev); ok {
				return b, err
			}
		case <-ctx.Done():
			return nil, CtxError(ctx)
		}
	}
}

// nextSync runs the synchronous children in turn; ok is false when none
// is left.
func (a *appendOp) nextSync(ctx context.Context) (arrow.RecordBatch, error, bool) {
	for a.cur < len(a.kids) {
		if a.async[a.cur] {
			a.cur++
			continue
		}
		kid := a.kids[a.cur]
		if !a.opened && a.claim != nil && !a.partial[a.cur] && !a.claim(a.cur) {
			// Another participant runs this child.
			kid.Close()
			a.kids[a.cur] = nil
			a.cur++
			continue
		}
		if !a.opened {
			if err := kid.Open(ctx); err != nil {
				return nil, err, true
			}
			a.opened = true
		}
		b, err := kid.Next(ctx)
		if err == io.EOF {
			a.kids[a.cur] = nil
			a.cur++
			a.opened = false
			if err := kid.Close(); err != nil {
				return nil, err, true
			}
			continue
		}
		return b, err, true
	}
	return nil, nil, false
}

func (a *appendOp) Close() error {
	if d := a.driver; d != nil {
		a.driver = nil
		d.stop()
		for i, is := range a.async {
			if _, w := unwrapAsync(a.kids[i]); is && w != nil {
				w.stats.Waited += a.waits[i]
			}
		}
	}
	var first error
	for i, k := range a.kids {
		if k != nil {
			if err := k.Close(); err != nil && first == nil {
				first = err
			}
			a.kids[i] = nil
		}
	}
	return first
}
