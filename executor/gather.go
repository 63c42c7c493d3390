package executor

// Gather runs copies of its subplan in parallel workers (parallel.go) and
// returns their batches in whatever order they come, as PostgreSQL's
// nodeGather.c does.
//
// Start: workers are launched on the first Next, not at Open: as many as
// the plan asks for and the database's pool (max_parallel_workers)
// allows; EXPLAIN ANALYZE shows the number as Workers Launched. The
// leader runs a copy of its own when the plan lets it take part
// (parallel_leader_participation), and always when no worker could start.
//
// Reading: the leader keeps taking batches from the queue it last read
// until that queue is empty, then goes round the others without blocking
// (PostgreSQL: "much more efficient" than moving on after every tuple).
// After a lap with nothing ready, a participating leader produces one
// batch of its own copy; a leader that does not take part blocks on the
// wake channel until some worker has sent a batch or finished. Batches are
// handed up as they are: no copy, no projection (Gather has no Targets).
//
// Errors: a worker's error ends the Gather with that error; the other
// workers are stopped. Cancellation and early end (LIMIT): Close stops
// the workers, releases what they queued and waits for them.

import (
	"context"
	"io"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
)

type gatherOp struct {
	gatherBase
	plan *nodes.Gather

	queues     []chan arrow.RecordBatch // nil once a queue is closed
	live       int                      // queues not yet closed
	cur        int                      // the queue read last
	leader     Operator                 // the leader's copy; nil if it does not take part
	leaderLive bool
}

var _ Operator = (*gatherOp)(nil)

func newGather(p *nodes.Gather, ec *ExecContext) (Operator, error) {
	g := &gatherOp{plan: p, gatherBase: gatherBase{ec: ec, build: Build}}
	if ec.Stats != nil {
		g.stats = ec.Stats.Node(p.ID)
	}
	return g, nil
}

func (g *gatherOp) Open(ctx context.Context) error {
	if g.started {
		g.shutdown()
	}
	return nil
}

// start launches the workers and opens the leader's copy.
func (g *gatherOp) start(ctx context.Context) error {
	op, err := g.launch(ctx, g.plan.Child, g.plan.Workers, g.plan.LeaderParticipates && !g.plan.SingleCopy, false)
	g.leader = op
	if g.ws != nil {
		g.queues = append([]chan arrow.RecordBatch(nil), g.ws.queues...)
		g.live = len(g.queues)
	}
	if err != nil {
		return err
	}
	g.leaderLive = op != nil
	return nil
}

func (g *gatherOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !g.started {
		if err := g.start(ctx); err != nil {
			return nil, err
		}
	}
	for {
		if g.live > 0 {
			b, err, ok := g.readQueues()
			if ok {
				return b, err
			}
		}
		if g.leaderLive {
			b, err := g.leader.Next(ctx)
			if err == io.EOF {
				g.leaderLive = false
				continue
			}
			if err != nil {
				if werr := g.workerErr(); werr != nil {
					return nil, werr
				}
				return nil, err
			}
			return b, nil
		}
		if g.live == 0 {
			return nil, io.EOF
		}
		if g.spinForBatch() {
			continue
		}
		select {
		case <-g.ws.wake:
		case <-ctx.Done():
			return nil, CtxError(ctx)
		}
	}
}

// readQueues makes one lap over the worker queues, starting at the one
// read last, without blocking; ok is false when none had a batch.
func (g *gatherOp) readQueues() (arrow.RecordBatch, error, bool) {
	n := len(g.queues)
	for lap := 0; lap < n; lap++ {
		i := (g.cur + lap) % n
		q := g.queues[i]
		if q == nil {
			continue
		}
		select {
		case b, open := <-q:
			if !open {
				g.queues[i] = nil
				g.live--
				if g.ws.errs[i] != nil {
					return nil, g.ws.err(), true
				}
				continue
			}
			g.cur = i
			return b, nil, true
		default:
		}
	}
	return nil, nil, false
}

// spinRounds bounds how long the leader yields and rechecks before it
// parks: a batch is usually a few microseconds away, while waking a
// parked goroutine on an idle (virtual) CPU can take a millisecond.
const spinRounds = 64

// spinForBatch yields the processor a few times, reporting whether a
// worker has signalled meanwhile (and so whether to read the queues).
func (g *gatherOp) spinForBatch() bool {
	for range spinRounds {
		runtime.Gosched()
		select {
		case <-g.ws.wake:
			return true
		default:
		}
	}
	return false
}

// shutdown stops the workers and closes the leader's copy.
func (g *gatherOp) shutdown() error {
	var err error
	if g.leader != nil {
		err = g.leader.Close()
		g.leader = nil
		g.leaderLive = false
	}
	g.queues, g.live = nil, 0
	g.stop()
	return err
}

func (g *gatherOp) Close() error { return g.shutdown() }
