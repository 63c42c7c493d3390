package executor

// Parallel execution: what the participants of one Gather (or Gather
// Merge) share, and the workers that run copies of its subplan.
//
// A Gather builds its subplan once per participant: once per worker, and
// once for the leader (itself) when the leader takes part. Operators are
// never shared between goroutines; each copy has an ExecContext of its own
// (its constants, its counters) that points at one parallelShared, where
// the parallel-aware nodes of the copies meet: a Parallel Seq Scan claims
// the table's batches one morsel at a time through an atomic cursor, so
// that every row goes to exactly one participant.
//
// A worker sends whole batches to a bounded queue of its own (a channel);
// a batch's ownership moves with it, so nothing is copied or re-projected
// on the way. Per batch the worker makes one channel send and one
// non-blocking signal on the Gather's wake channel; the leader blocks on
// the wake channel only after a lap over all queues found none ready. With
// batches of tens of thousands of rows, synchronization costs a few
// channel operations per batch, not per row.
//
// Errors: the first error of any worker (a panic becomes XX000) cancels
// the others and is the statement's error. Cancellation: the workers run
// under a context derived from the statement's; the Gather's Close cancels
// it, drains and releases undelivered batches, and waits for every worker
// before it returns, so that no goroutine outlives the statement.

import (
	"context"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/remote"
)

// WorkerPool bounds the parallel workers running at once across the
// sessions of a database (max_parallel_workers); the zero value is ready.
type WorkerPool struct {
	running atomic.Int64
	// max bounds the workers of all sessions (max_worker_processes); 0:
	// only each Gather's limit applies.
	max int
}

// SetLimit bounds the workers running at once in every session that
// shares the pool (0: no bound of the pool's own). Call it before use.
func (p *WorkerPool) SetLimit(n int) { p.max = n }

// reserve takes up to want workers while fewer than limit (and the
// pool's own bound) run, and returns how many it got.
func (p *WorkerPool) reserve(want, limit int) int {
	if p.max > 0 {
		limit = min(limit, p.max)
	}
	for {
		cur := p.running.Load()
		n := min(int64(want), int64(limit)-cur)
		if n <= 0 {
			return 0
		}
		if p.running.CompareAndSwap(cur, cur+n) {
			return int(n)
		}
	}
}

func (p *WorkerPool) release(n int) { p.running.Add(-int64(n)) }

// Running is the number of workers running now.
func (p *WorkerPool) Running() int { return int(p.running.Load()) }

// gatherQueueDepth is the number of batches a worker may have sent that
// the leader has not taken yet: enough to keep a worker busy while the
// leader works, few enough to bound memory.
const gatherQueueDepth = 8

// parallelShared is the state the participants of one Gather share.
type parallelShared struct {
	// remote is the session's connector, made safe for the participants.
	remote RemoteConnector
	mu     sync.Mutex
	scans  map[int]*parallelScan
	// participants is the number of copies running (for where each
	// starts in a Parallel Append).
	participants int
	// ownedShares is set under a Gather Merge (see parallelScan).
	ownedShares bool
	// appends are the claims of Parallel Appends' non-partial children.
	appends map[int][]atomic.Bool
	// planned is the number of workers the Gather planned (Parallel
	// Hash's memory budget counts them, as PostgreSQL's does).
	planned int
	// hashes are the shared builds of Parallel Hash Joins
	// (parallel_hash.go), and stealAll the Parallel Seq Scans below their
	// Parallel Hashes (and, once a build spilled, on their outer sides),
	// whose morsels any participant may take even under a Gather Merge:
	// a participant that comes after the build (or the spilled outer
	// side's partitioning) has ended no longer reads that side.
	hashes   map[int]*sharedHash
	stealAll map[int]bool
	// inits are the InitPlans of nodes under the Gather, by Param: the
	// first participant to open such a node runs it, the others wait for
	// its value (PostgreSQL evaluates them once, in the leader).
	inits map[int]*sharedInit
}

// sharedInit is one InitPlan's run, shared by the participants.
type sharedInit struct {
	once  sync.Once
	value any
	err   error
}

// initPlan returns the shared run of the InitPlan setting Param id.
func (s *parallelShared) initPlan(id int) *sharedInit {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inits == nil {
		s.inits = map[int]*sharedInit{}
	}
	si := s.inits[id]
	if si == nil {
		si = &sharedInit{}
		s.inits[id] = si
	}
	return si
}

// appendClaims returns the claim flags of the children of the Parallel
// Append with plan node id.
func (ps *parallelShared) appendClaims(id, n int) []atomic.Bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.appends == nil {
		ps.appends = map[int][]atomic.Bool{}
	}
	c, ok := ps.appends[id]
	if !ok {
		c = make([]atomic.Bool, n)
		ps.appends[id] = c
	}
	return c
}

// lockedConnector serializes the participants' requests for remote
// connections: the session's connection cache belongs to one goroutine.
// Commands on one connection are serialized by the connection itself.
type lockedConnector struct {
	mu *sync.Mutex
	RemoteConnector
}

func (l lockedConnector) Conn(ctx context.Context, server, mappingKey string, slot int) (*remote.Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.RemoteConnector.Conn(ctx, server, mappingKey, slot)
}

func newParallelShared(participants int, remote RemoteConnector) *parallelShared {
	ps := &parallelShared{scans: map[int]*parallelScan{}, participants: participants}
	if remote != nil {
		ps.remote = lockedConnector{mu: &sync.Mutex{}, RemoteConnector: remote}
	}
	return ps
}

// scan returns the shared state of the Parallel Seq Scan with plan node
// id, taking the table's snapshot on first use.
func (ps *parallelShared) scan(id int, batches func() []arrow.RecordBatch, morselRows int) *parallelScan {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	s := ps.scans[id]
	if s == nil {
		s = newParallelScan(batches(), morselRows, ps.participants)
		s.ownedShares.Store(ps.ownedShares && !ps.stealAll[id])
		ps.scans[id] = s
	}
	return s
}

// release frees the snapshots and the shared hash tables; every
// participant must be done.
func (ps *parallelShared) release() {
	for _, s := range ps.scans {
		s.release()
	}
	ps.scans = nil
	for _, h := range ps.hashes {
		h.release()
	}
	ps.hashes = nil
}

// parallelScan shares a table's batches out in morsels of at most
// morselRows rows.
//
// The morsels are split into one contiguous range per participant, each
// with its own atomic cursor: a participant claims from its own range
// first, then steals from the ranges of participants that have started.
// How far stealing goes depends on the consumer. Under a Gather the
// participants stream (aggregate or filter each batch as it comes), so
// claiming is the work and anyone may steal from anyone: a participant
// the scheduler starts late (three participants on two cores) finds its
// share done. Under a Gather Merge each participant's Sort only collects
// its input and works at the end, so claiming is free and a participant
// that started first would take the whole table before the others run,
// and sort it alone: there a participant steals only from participants
// that have started, which keeps each share for its owner until it runs
// and still evens out the end of the scan. Every participant runs its
// copy, so no share is left unread.
type parallelScan struct {
	batches []arrow.RecordBatch // the snapshot, owned here
	morsels []morsel
	ranges  []scanRange
	// ownedShares: steal only from started participants (Gather Merge);
	// cleared when a spilled Parallel Hash Join needs its outer side read
	// to the end by whoever runs (parallel_hash_probe.go).
	ownedShares atomic.Bool
}

type morsel struct {
	batch     int
	off, rows int64
}

// scanRange is one participant's share of the morsels, [next, end).
type scanRange struct {
	next    atomic.Int64
	end     int64
	started atomic.Bool
	_       [40]byte // keep cursors on separate cache lines
}

func newParallelScan(batches []arrow.RecordBatch, morselRows, participants int) *parallelScan {
	s := &parallelScan{batches: batches}
	for i, b := range batches {
		n := b.NumRows()
		for off := int64(0); off < n; off += int64(morselRows) {
			s.morsels = append(s.morsels, morsel{batch: i, off: off, rows: min(int64(morselRows), n-off)})
		}
	}
	participants = max(participants, 1)
	s.ranges = make([]scanRange, participants)
	m := int64(len(s.morsels))
	for p := range s.ranges {
		s.ranges[p].next.Store(m * int64(p) / int64(participants))
		s.ranges[p].end = m * int64(p+1) / int64(participants)
	}
	return s
}

// claim returns the next morsel for participant p as a batch the caller
// owns, or nil when none is left.
func (s *parallelScan) claim(p int) arrow.RecordBatch {
	p %= len(s.ranges)
	own := &s.ranges[p]
	own.started.Store(true)
	if i := own.next.Add(1) - 1; i < own.end {
		return s.morsel(i)
	}
	for k := 1; k < len(s.ranges); k++ {
		r := &s.ranges[(p+k)%len(s.ranges)]
		if s.ownedShares.Load() && !r.started.Load() || r.next.Load() >= r.end {
			continue
		}
		if i := r.next.Add(1) - 1; i < r.end {
			return s.morsel(i)
		}
	}
	return nil
}

func (s *parallelScan) morsel(i int64) arrow.RecordBatch {
	m := s.morsels[i]
	b := s.batches[m.batch]
	if m.off == 0 && m.rows == b.NumRows() {
		b.Retain()
		return b
	}
	return b.NewSlice(m.off, m.off+m.rows)
}

func (s *parallelScan) release() {
	for _, b := range s.batches {
		b.Release()
	}
	s.batches = nil
}

// participantContext is the ExecContext of one participant's copy of a
// Gather's subplan: the statement's settings, shared parallel state, and
// counters of its own (stats; nil without ANALYZE).
func (ec *ExecContext) participantContext(shared *parallelShared, participant int, stats *instrument.Stats) *ExecContext {
	return &ExecContext{
		Stats:              stats,
		Now:                ec.Now,
		BatchSize:          ec.BatchSize,
		Remote:             shared.remote,
		View:               ec.View,
		LockTimeout:        ec.LockTimeout,
		Workers:            ec.Workers,
		MaxParallelWorkers: ec.MaxParallelWorkers,
		WorkMem:            ec.WorkMem,
		HashMemMultiplier:  ec.HashMemMultiplier,
		DebugSpill:         ec.DebugSpill,
		TempDir:            ec.TempDir,
		Memory:             ec.Memory,
		params:             ec.params,
		parallel:           shared,
		participant:        participant,
	}
}

// workerSet runs copies of a subplan in worker goroutines, each sending
// its batches to its own queue.
type workerSet struct {
	queues []chan arrow.RecordBatch
	errs   []error // errs[i] is set by worker i before it closes queues[i]
	wake   chan struct{}
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup

	firstMu  sync.Mutex
	firstErr error

	ecs      []*ExecContext
	pool     *WorkerPool
	reserved int
}

// copyBuilder builds one participant's copy of a subplan: Build, or a
// fake in tests.
type copyBuilder func(nodes.Plan, *ExecContext) (Operator, error)

// startWorkers builds n copies of plan (participants first, first+1, ...)
// and starts them. Building happens here, in the caller's goroutine, so
// that a plan that cannot be built fails before any worker starts. The n
// workers are already reserved from ec.Workers; on failure they are
// given back.
func startWorkers(ctx context.Context, plan nodes.Plan, ec *ExecContext, shared *parallelShared, n, first int, build copyBuilder) (*workerSet, error) {
	ws := &workerSet{wake: make(chan struct{}, 1), pool: ec.Workers, reserved: n}
	ops := make([]Operator, n)
	for i := range n {
		var stats *instrument.Stats
		if ec.Stats != nil {
			stats = instrument.NewStats(len(ec.Stats.Nodes), ec.Stats.Timing)
		}
		wec := ec.participantContext(shared, first+i, stats)
		op, err := build(plan, wec)
		if err != nil {
			for _, o := range ops[:i] {
				o.Close()
			}
			for _, e := range ws.ecs {
				e.Release()
			}
			wec.Release()
			if ws.pool != nil {
				ws.pool.release(n)
			}
			return nil, err
		}
		ops[i] = op
		ws.ecs = append(ws.ecs, wec)
	}
	ws.launch(ctx, ops)
	return ws, nil
}

// launch starts a worker goroutine per operator (ws.ecs[i] is op i's
// context).
func (ws *workerSet) launch(ctx context.Context, ops []Operator) {
	wctx, cancel := context.WithCancelCause(ctx)
	ws.cancel = cancel
	ws.queues = make([]chan arrow.RecordBatch, len(ops))
	ws.errs = make([]error, len(ops))
	for i, op := range ops {
		ws.queues[i] = make(chan arrow.RecordBatch, gatherQueueDepth)
		ws.wg.Add(1)
		go ws.run(wctx, i, op)
	}
}

// run is worker i's goroutine: it runs its copy to the end (or an error,
// or cancellation), closes it, and then closes its queue. A panic in the
// copy becomes the worker's error (Drain has closed the copy by then).
func (ws *workerSet) run(ctx context.Context, i int, op Operator) {
	defer ws.wg.Done()
	q := ws.queues[i]
	var err error
	defer func() {
		if r := recover(); r != nil {
			err = pgerr.Internal("internal error in parallel worker: %v", r).WithDetail("%s", stackHead(12))
		}
		ws.ecs[i].Release()
		if err != nil {
			ws.errs[i] = err
			ws.fail(err)
		}
		close(q)
		ws.signal()
	}()
	err = Drain(ctx, op, func(b arrow.RecordBatch) error {
		b.Retain() // Drain releases its reference; the queue's reader gets this one
		select {
		case q <- b:
		case <-ctx.Done():
			b.Release()
			return CtxError(ctx)
		}
		ws.signal()
		return nil
	})
}

func stackHead(n int) string {
	lines := strings.SplitN(string(debug.Stack()), "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// signal wakes the leader if it waits (never blocks).
func (ws *workerSet) signal() {
	select {
	case ws.wake <- struct{}{}:
	default:
	}
}

// fail records the first worker error and stops the other workers.
func (ws *workerSet) fail(err error) {
	ws.firstMu.Lock()
	defer ws.firstMu.Unlock()
	if ws.firstErr == nil {
		ws.firstErr = err
		ws.cancel(err)
	}
}

// err is the first error of any worker, or nil.
func (ws *workerSet) err() error {
	ws.firstMu.Lock()
	defer ws.firstMu.Unlock()
	return ws.firstErr
}

// shutdown stops the workers, releases the batches they queued, waits for
// them, and folds their counters into stats (nil without ANALYZE).
func (ws *workerSet) shutdown(stats *instrument.Stats) {
	ws.cancel(context.Canceled)
	for _, q := range ws.queues {
		for b := range q {
			b.Release()
		}
	}
	ws.wg.Wait()
	if ws.pool != nil {
		ws.pool.release(ws.reserved)
		ws.pool = nil
	}
	if stats != nil {
		for i, wec := range ws.ecs {
			for id := range wec.Stats.Nodes {
				stats.Nodes[id].MergeWorker(i, &wec.Stats.Nodes[id])
			}
		}
	}
	ws.ecs = nil
}

// gatherBase is what Gather and Gather Merge share: starting the workers
// and the leader's copy of the subplan, and stopping them.
type gatherBase struct {
	ec    *ExecContext
	stats *instrument.NodeStats // nil without ANALYZE
	build copyBuilder

	started  bool
	shared   *parallelShared
	ws       *workerSet // nil when no worker started
	leaderEC *ExecContext
}

// launch starts up to planned workers running child and, when the leader
// takes part (leaderParticipates, or no worker could start), builds and
// opens the leader's copy, which it returns (nil otherwise; also on an
// error, when the caller must close it). ownedShares is parallelScan's.
func (g *gatherBase) launch(ctx context.Context, child nodes.Plan, planned int, leaderParticipates, ownedShares bool) (Operator, error) {
	g.started = true
	launched := launchWorkers(g.ec, planned)
	leads := launched == 0 || leaderParticipates
	participants, first := launched, 0
	if leads {
		participants, first = launched+1, 1
	}
	g.shared = newParallelShared(participants, g.ec.Remote)
	g.shared.ownedShares = ownedShares
	g.shared.planned = planned
	if launched > 0 {
		ws, err := startWorkers(ctx, child, g.ec, g.shared, launched, first, g.build)
		if err != nil {
			return nil, err
		}
		g.ws = ws
		if g.stats != nil {
			g.stats.WorkersLaunched += int64(launched)
		}
	}
	if !leads {
		return nil, nil
	}
	g.leaderEC = g.ec.participantContext(g.shared, 0, g.ec.Stats)
	op, err := g.build(child, g.leaderEC)
	if err != nil {
		return nil, err
	}
	return op, op.Open(ctx)
}

// workerErr is the first worker error, if any worker failed.
func (g *gatherBase) workerErr() error {
	if g.ws == nil {
		return nil
	}
	return g.ws.err()
}

// stop stops the workers (folding their counters into the statement's)
// and frees the shared state; the leader's copy must be closed already.
func (g *gatherBase) stop() {
	if g.ws != nil {
		g.ws.shutdown(g.ec.Stats)
		g.ws = nil
	}
	if g.leaderEC != nil {
		g.leaderEC.Release()
		g.leaderEC = nil
	}
	if g.shared != nil {
		g.shared.release()
		g.shared = nil
	}
	g.started = false
}

// launchWorkers reserves up to planned workers from the database's pool
// (max_parallel_workers); without a pool every planned worker starts.
func launchWorkers(ec *ExecContext, planned int) int {
	if ec.Workers == nil {
		return planned
	}
	return ec.Workers.reserve(planned, ec.MaxParallelWorkers)
}
