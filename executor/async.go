package executor

// The async protocol between a driver (Append, or a foreign scan
// prefetching for itself) and its async-capable children (ForeignScans on
// async_capable servers); see the package doc.
//
//	driver                                  fetcher goroutine (one per connection)
//	  Open(children) ---------------------->
//	  startAsync: group children by          loop:
//	  AsyncResource, go fetcher.run -------->   child := <-demand   (a token)
//	                                            FetchAsync(child)   (one FETCH)
//	  <- events  <--------------------------    deliver(batch) / finish(err)
//	  demand <- child (after consuming)
//
// Children on one connection are served by one goroutine, which sends the
// next request the moment the previous result is read: a connection
// carries one request at a time, and handing it from one goroutine to
// another between requests would add a goroutine wake-up to every round
// trip. Each request serves every child of the connection that holds a
// token (foreign scans put one FETCH per cursor into one pipeline), so no
// child waits for the others' turns and N partitions on one connection
// need the round trips of one.
//
// A child fetches only with a demand token, and the driver hands a token
// back only once it has passed a batch up. The driver starts each child
// with asyncDemand tokens, so a child's next FETCH is under way while the
// driver still holds (or has not yet taken) the previous batch, and at
// most asyncDemand batches per child are undelivered or unconsumed.
// Cancelling ctx (the driver's stop) makes the fetchers return; the
// driver waits for them before closing the children.

import (
	"context"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
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

// AsyncCapable is implemented by operators that can fetch batches out of
// band for a driver. The driver calls Open first (synchronously), then
// AsyncResource once; from then on only the driver's fetcher goroutine
// calls FetchAsync, and the driver never calls Next. Close comes after
// the fetcher has returned.
type AsyncCapable interface {
	Operator
	// AsyncResource identifies what the operator's requests run on (its
	// remote connection): operators with the same resource are fetched by
	// one goroutine, one request at a time (each request serving every
	// operator of the resource that wants rows, when they can combine).
	AsyncResource() any
	// FetchAsync makes one request and returns its rows (nil when none
	// came back) and whether the stream has ended.
	FetchAsync(ctx context.Context) (b arrow.RecordBatch, eof bool, err error)
}

// asyncEvent is what a fetcher sends its driver for a child: a batch, or
// the end (err nil) or failure of the child's stream.
type asyncEvent struct {
	child int
	batch arrow.RecordBatch
	err   error
	done  bool
}

// asyncChild is one child as its driver registers it.
type asyncChild struct {
	index int // the driver's number for it, reported in its events
	op    AsyncCapable
	// stats are the child's counters (nil without ANALYZE): deliveries
	// bypass the child's instrumented Next, so they are counted here.
	stats *instrument.NodeStats
}

// asyncDriver is the driver's side of the protocol: the event channel,
// one fetcher per resource, and the counters the fetchers update.
type asyncDriver struct {
	events chan asyncEvent
	// requests is the context remote requests run on: the statement's,
	// so that a user cancel or statement_timeout cancels them, and
	// cancelled by the driver itself once a child failed (the statement
	// is failing). Otherwise stop ends the fetchers between requests.
	requests      context.Context
	abortRequests context.CancelFunc
	// tokenOf maps a child's index to its fetcher and the child's number
	// there, to hand its demand tokens back.
	tokenOf []token
	// live counts the children that have not sent their end.
	live   int
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// driverStats are the driver's counters (nil without ANALYZE); its
	// AsyncRows count the delivered rows too. mu guards them and the
	// children's stats, which fetchers update from their goroutines.
	driverStats *instrument.NodeStats
	mu          sync.Mutex
}

type token struct {
	f     *asyncFetcher
	local int
}

// asyncFetcher serves the children that share one resource.
type asyncFetcher struct {
	d      *asyncDriver
	kids   []asyncChild
	demand chan int // tokens: numbers in kids
}

// startAsync groups the opened children by resource and starts one
// fetcher per group, with demand tokens for every child.
func startAsync(ctx context.Context, kids []asyncChild, demand int, driverStats *instrument.NodeStats) *asyncDriver {
	actx, cancel := context.WithCancel(ctx)
	rctx, rcancel := context.WithCancel(ctx)
	d := &asyncDriver{
		// Room for every batch the children may fetch ahead, and their
		// ends, so that a fetcher never waits on the driver.
		events:        make(chan asyncEvent, len(kids)*(demand+1)),
		live:          len(kids),
		cancel:        cancel,
		driverStats:   driverStats,
		requests:      rctx,
		abortRequests: rcancel,
	}
	n := 0
	for _, k := range kids {
		n = max(n, k.index+1)
	}
	d.tokenOf = make([]token, n)
	byResource := map[any]*asyncFetcher{}
	var fetchers []*asyncFetcher
	for _, k := range kids {
		r := k.op.AsyncResource()
		f := byResource[r]
		if f == nil {
			f = &asyncFetcher{d: d}
			byResource[r] = f
			fetchers = append(fetchers, f)
		}
		d.tokenOf[k.index] = token{f, len(f.kids)}
		f.kids = append(f.kids, k)
	}
	for _, f := range fetchers {
		f.demand = make(chan int, len(f.kids)*demand)
		// Interleaved, so that the first round trips serve every child.
		for range demand {
			for i := range f.kids {
				f.demand <- i
			}
		}
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			f.run(actx)
		}()
	}
	return d
}

// consumed hands a demand token back for child after the driver passed
// its batch up. It never blocks: a child has at most demand tokens out.
func (d *asyncDriver) consumed(child int) {
	t := d.tokenOf[child]
	t.f.demand <- t.local
}

// take handles one event: a batch to pass up (its token is handed back,
// as the caller passes it up now), a child's end (ok false), or its error.
func (d *asyncDriver) take(ev asyncEvent) (b arrow.RecordBatch, err error, ok bool) {
	if ev.done {
		d.live--
		if ev.err != nil {
			// The statement fails: requests still in flight are of no use.
			d.abortRequests()
		}
		return nil, ev.err, ev.err != nil
	}
	d.consumed(ev.child)
	return ev.batch, nil, true
}

// stop cancels the fetchers, releases undelivered batches and waits for
// the fetchers to return (requests in flight finish unless the statement
// failed or was cancelled).
func (d *asyncDriver) stop() {
	d.cancel()
	defer d.abortRequests()
	go func() {
		d.wg.Wait()
		close(d.events)
	}()
	for ev := range d.events {
		if ev.batch != nil {
			ev.batch.Release()
		}
	}
}

// asyncCombiner is implemented by async children whose requests can go
// out together with those of other children on the same resource, in one
// round trip (foreign scans: one pipeline of FETCHes, one per cursor).
type asyncCombiner interface {
	AsyncCapable
	// fetchTogether makes one request for each of ops, which share the
	// receiver's resource, and returns their outcomes in order.
	fetchTogether(ctx context.Context, ops []AsyncCapable) []asyncResult
}

// asyncResult is the outcome of one FetchAsync.
type asyncResult struct {
	batch arrow.RecordBatch
	eof   bool
	err   error
}

// run fetches for the children that hold demand tokens, until every
// child has ended or ctx is done. Each round trip serves every child of
// the group that holds a token, one FETCH each, when the children can
// combine their requests; otherwise one request per child, in turn.
func (f *asyncFetcher) run(ctx context.Context) {
	live := len(f.kids)
	ended := make([]bool, len(f.kids))
	held := make([]int, len(f.kids)) // demand tokens per child
	tokens := 0
	ready := make([]int, 0, len(f.kids))
	ops := make([]AsyncCapable, 0, len(f.kids))
	for live > 0 && ctx.Err() == nil {
		if tokens == 0 {
			select {
			case i := <-f.demand:
				held[i]++
				tokens++
			case <-ctx.Done():
				return
			}
		}
		for more := true; more; {
			select {
			case i := <-f.demand:
				held[i]++
				tokens++
			default:
				more = false
			}
		}
		ready, ops = ready[:0], ops[:0]
		for i := range f.kids {
			if ended[i] {
				tokens -= held[i]
				held[i] = 0
			} else if held[i] > 0 {
				held[i]--
				tokens--
				ready = append(ready, i)
				ops = append(ops, f.kids[i].op)
			}
		}
		if len(ready) == 0 {
			continue
		}
		start := time.Now()
		// The request runs on the statement's context, not the fetcher's:
		// stopping early (LIMIT) lets a request in flight finish, as
		// postgres_fdw does, instead of cancelling it, which would abort
		// the remote transaction a block goes on using.
		results := f.fetch(f.d.requests, ops)
		took := time.Since(start)
		for j, i := range ready {
			k := &f.kids[i]
			r := results[j]
			f.d.request(k, took)
			if r.batch != nil && r.batch.NumRows() == 0 {
				r.batch.Release()
				r.batch = nil
			}
			switch {
			case r.err != nil:
				ended[i] = true
				live--
				f.d.send(ctx, asyncEvent{child: k.index, err: r.err, done: true})
				continue
			case r.batch != nil:
				f.d.count(k, r.batch.NumRows())
				if !f.d.send(ctx, asyncEvent{child: k.index, batch: r.batch}) {
					r.batch.Release()
					for _, rest := range results[j+1:] {
						if rest.batch != nil {
							rest.batch.Release()
						}
					}
					return
				}
			case !r.eof:
				held[i]++ // no batch went out: the token is still ours
				tokens++
			}
			if r.eof {
				ended[i] = true
				live--
				f.d.send(ctx, asyncEvent{child: k.index, done: true})
			}
		}
	}
}

// fetch makes one request for each of ops: together when they can
// combine them, else one after another.
func (f *asyncFetcher) fetch(ctx context.Context, ops []AsyncCapable) []asyncResult {
	if c, ok := ops[0].(asyncCombiner); ok && len(ops) > 1 {
		return c.fetchTogether(ctx, ops)
	}
	results := make([]asyncResult, len(ops))
	for j, op := range ops {
		results[j].batch, results[j].eof, results[j].err = op.FetchAsync(ctx)
	}
	return results
}

// send passes an event to the driver; false when the driver is gone.
func (d *asyncDriver) send(ctx context.Context, ev asyncEvent) bool {
	select {
	case d.events <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// count adds a delivered batch's rows to the child's and driver's
// counters.
func (d *asyncDriver) count(k *asyncChild, rows int64) {
	if k.stats == nil {
		return
	}
	d.mu.Lock()
	k.stats.Rows += rows
	k.stats.AsyncRows += rows
	k.stats.Batches++
	if d.driverStats != nil {
		d.driverStats.AsyncRows += rows
	}
	d.mu.Unlock()
}

// request counts a remote round trip of the child (EXPLAIN's Requests).
func (d *asyncDriver) request(k *asyncChild, t time.Duration) {
	if k.stats != nil {
		d.mu.Lock()
		k.stats.Requests++
		k.stats.Total += t
		d.mu.Unlock()
	}
}

// unwrapAsync finds the AsyncCapable operator under instrumentation.
// asyncOperator returns the async-capable operator built for a foreign
// scan. A scan the plan marks async must have one: EXPLAIN shows "Async
// Foreign Scan", and running it synchronously instead would make EXPLAIN
// claim what the executor does not do (the wrapper that once hid the
// capability went unnoticed because only results were compared).
func asyncOperator(p *nodes.ForeignScan, op Operator) (AsyncCapable, error) {
	ac, _ := unwrapAsync(op)
	if ac == nil && p.Async {
		return nil, pgerr.Internal("executor: %s (%s) is planned async, but its operator %T cannot fetch asynchronously", p.NodeType(), p.RemoteSQL, op)
	}
	return ac, nil
}

func unwrapAsync(op Operator) (AsyncCapable, *instrumented) {
	if w, ok := op.(*instrumented); ok {
		a, _ := w.Operator.(AsyncCapable)
		return a, w
	}
	a, _ := op.(AsyncCapable)
	return a, nil
}
