package executor

// The async protocol between a driver (Append) and its async-capable
// children (ForeignScans on async_capable servers); see the package doc.
//
//	Append                                  async child (goroutine)
//	  Open(child) ------------------------>  connect, DECLARE cursor
//	  go RunAsync(ctx, req) -------------->  loop:
//	                                           <- req.demand (a token)
//	                                           FETCH n
//	  <- events  <------------------------     req.deliver(batch) / finish(err)
//	  req.demand <- token (after consuming)
//
// A child fetches only after taking a demand token, and the driver hands
// a token back only once it has passed a batch up. The driver starts each
// child with asyncDemand tokens, so a child fetches its next batch while
// the driver still holds (or has not yet taken) the previous one: the
// round trip is never waiting on the driver, and at most asyncDemand
// batches per child are undelivered or unconsumed. Cancelling ctx (the
// driver's Close) makes the child stop; the driver waits for it before
// closing the child.

import (
	"context"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/instrument"
)

// asyncDemand is the number of batches an async child may have fetched
// and not yet seen consumed. One would leave the connection idle from the
// moment a batch arrives until the driver has passed it up and handed the
// token back; more keep a request in flight across that gap, as long as
// the driver hands tokens back within the round trips they cover. Four
// cover even a driver that takes milliseconds to be scheduled (waking a
// parked goroutine on an idle vCPU was measured at ~1.8 ms here, a 1 ms
// link's round trip is ~2.7 ms) at the cost of four small batches.
const asyncDemand = 4

// AsyncCapable is implemented by operators that can deliver batches out
// of band to a driver. The driver calls Open first (synchronously), then
// RunAsync once on a goroutine the driver owns; from then on it never
// calls Next, and it calls Close only after RunAsync has returned.
type AsyncCapable interface {
	Operator
	// RunAsync produces batches for req until end of data, an error, or
	// ctx is done, and calls req.finish exactly once before returning.
	RunAsync(ctx context.Context, req *AsyncRequest)
}

// asyncEvent is what a child sends its driver: a batch, or the end (err
// nil) or failure of its stream.
type asyncEvent struct {
	child int
	batch arrow.RecordBatch
	err   error
	done  bool
}

// AsyncRequest is one (driver, async child) pair, reused for every batch.
type AsyncRequest struct {
	child  int
	events chan<- asyncEvent
	demand chan struct{}
	// stats are the child's counters (nil without ANALYZE): deliveries
	// bypass the child's instrumented Next, so they are counted here.
	stats *instrument.NodeStats
	// driverStats are the Append's; its AsyncRows count these rows too.
	driverStats *instrument.NodeStats
	// mu is shared by all requests of one driver: children update their
	// own and the driver's counters from their goroutines.
	mu *sync.Mutex
}

// wait blocks until the driver wants another batch; false when ctx ended.
func (r *AsyncRequest) wait(ctx context.Context) bool {
	select {
	case <-r.demand:
		return true
	case <-ctx.Done():
		return false
	}
}

// deliver hands a batch to the driver (ownership moves with it); if the
// driver is gone (ctx done) the batch is released here.
func (r *AsyncRequest) deliver(ctx context.Context, b arrow.RecordBatch) bool {
	if r.stats != nil {
		r.mu.Lock()
		n := b.NumRows()
		r.stats.Rows += n
		r.stats.AsyncRows += n
		r.stats.Batches++
		if r.driverStats != nil {
			r.driverStats.AsyncRows += n
		}
		r.mu.Unlock()
	}
	select {
	case r.events <- asyncEvent{child: r.child, batch: b}:
		return true
	case <-ctx.Done():
		b.Release()
		return false
	}
}

// request counts a remote round trip of the child (EXPLAIN's Requests).
func (r *AsyncRequest) request(d time.Duration) {
	if r.stats != nil {
		r.mu.Lock()
		r.stats.Requests++
		r.stats.Total += d
		r.mu.Unlock()
	}
}

// finish reports the end of the child's stream (err nil) or its failure.
func (r *AsyncRequest) finish(ctx context.Context, err error) {
	select {
	case r.events <- asyncEvent{child: r.child, err: err, done: true}:
	case <-ctx.Done():
	}
}

// unwrapAsync finds the AsyncCapable operator under instrumentation.
func unwrapAsync(op Operator) (AsyncCapable, *instrumented) {
	if w, ok := op.(*instrumented); ok {
		a, _ := w.Operator.(AsyncCapable)
		return a, w
	}
	a, _ := op.(AsyncCapable)
	return a, nil
}
