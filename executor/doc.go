// Package executor runs plan trees (package nodes) batch at a time: a
// pull-based ("volcano") executor over Arrow record batches, built so that
// nodes waiting on the network need not stall the rest of the tree.
//
// # Node lifecycle
//
// Build turns an immutable plan into a tree of Operators (one runtime
// object per plan node; a plan can be built many times, e.g. once per
// parallel worker). Each Operator is used as:
//
//	Open(ctx)   once, before anything else; opens its children.
//	Next(ctx)   repeatedly; returns (batch, nil) with batch.NumRows() > 0,
//	            or (nil, io.EOF) at the end of data, or (nil, err).
//	            After io.EOF or an error, Next is not called again.
//	Close()     exactly once, also after a failed Open or an error, also
//	            when the parent stops early (LIMIT); closes its children.
//	            Close must be safe when Open was never called.
//
// Close is where a node releases everything it holds: batches it buffers,
// goroutines it started (it waits for them), remote requests in flight
// (cancelled or drained) and connections it reserved.
//
// # Batch ownership
//
// Next transfers ownership of the returned batch to the caller, who must
// Release it (or hand it on). Batches are immutable and never reused by
// their producer: a node that wants to keep a batch Retains it. Arrays
// inside may be shared between batches (zero-copy projection) through
// Arrow's reference counts. Because ownership moves, producers on other
// goroutines (parallel workers, async remote fetchers) can hand batches
// over through channels without a "consumer is done" barrier.
//
// # Errors and cancellation
//
// Every error a node returns is a *pgerr.Error with a SQLSTATE. Nodes check
// ctx at batch boundaries; a cancelled context yields 57014 "canceling
// statement due to user request", an expired statement_timeout 57014
// "canceling statement due to statement timeout". A panic inside a node is
// recovered at the statement boundary (package pgfed) and becomes XX000.
//
// # Instrumentation
//
// With EXPLAIN ANALYZE, Build wraps every operator in an instrumented
// operator that counts loops, rows and time of Next into the plan node's
// instrument.NodeStats; without ANALYZE no wrapper exists, so it costs
// nothing. Rows removed by a node's Filter are counted by the node itself.
// Rows that bypass Next (async delivery, below) are counted by the code
// that delivers them, never by the wrapper.
//
// # Asynchronous execution (the seam for async Append)
//
// An operator that waits on the network may implement AsyncCapable. A
// driver node (Append is the only one, as in PostgreSQL) registers each
// async-capable child with itself: it opens the child, then calls
// RunAsync(ctx, req) once on a goroutine the driver owns, where req is an
// *AsyncRequest naming the child's index and holding the driver's single
// event channel. From then on the child never sees Next:
//
//   - Who registers: the driver, on its first Next, for every async child at
//     once, so that all remote requests go out together.
//   - Who delivers: the child's goroutine calls req.deliver(batch) and, at
//     its end, req.finish(err), which send an asyncEvent on the driver's
//     channel. A delivered batch is owned by the driver from then on.
//   - Flow control: a child fetches only with a demand token; the driver
//     starts it with asyncDemand (4) tokens and returns one each time it
//     passes a batch up (PostgreSQL's needrequest, but batches ahead), so at
//     most four batches per child are fetched and not yet consumed, and the
//     next round trip is already under way while the driver works.
//   - Who counts: deliver adds the rows to the child's NodeStats (Rows and
//     AsyncRows) and to the driver's AsyncRows, because those rows never
//     pass through the child's Next wrapper; the driver adds the time it
//     was blocked waiting for a child to that child's Waited.
//   - When the driver blocks: between batches of its synchronous children the
//     driver polls the event channel without blocking (so slow synchronous
//     children do not starve async ones); only when no synchronous work is
//     left does it block on the channel (and on ctx.Done()).
//   - Teardown: Close of the driver cancels the children's context and
//     waits for their goroutines; undelivered batches are released.
//
// # Parallel execution (Gather, Gather Merge)
//
// A Gather or Gather Merge builds its child plan once per participant: per
// worker goroutine, and for the leader itself when it takes part
// (parallel_leader_participation; always when no worker could start).
// Operators are never shared between goroutines: each copy has its own
// ExecContext (participantContext) with its own constants and counters,
// and a pointer to the state the participants share (parallelShared),
// where Parallel Seq Scans claim morsels of one table snapshot through an
// atomic cursor. Workers are reserved from the database's WorkerPool
// (max_parallel_workers) on the first Next and released when they end.
//
//   - Batches: each worker sends whole batches through a bounded queue of
//     its own; ownership moves with the batch (no copy, no re-projection).
//     The leader reads a queue until it is empty, then laps the others,
//     and blocks on one wake channel only after an empty lap.
//   - Who counts: each copy counts into its own instrument.Stats; the
//     Gather folds the workers' counters into the statement's at Close
//     (loops = participants, as in PostgreSQL) and records each worker's
//     share (NodeStats.Workers) and the workers launched.
//   - Errors: the first error of a worker (a panic becomes XX000) cancels
//     the others and is returned by the Gather.
//   - Teardown: Close cancels the workers, drains and releases their
//     queued batches, waits for every goroutine, then frees the shared
//     snapshot; no goroutine outlives the statement.
package executor
