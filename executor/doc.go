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
// A node may open a child only when it first needs it: Append its later
// children, the joins (hash_join.go, nested_loop.go) each side, so that
// a side a join never reads (the outer side over an empty hash table)
// shows as never executed, as in PostgreSQL. Close closes every child,
// opened or not.
//
// # Quals and projections
//
// A plan node's Filter and Targets are applied inside the node for every
// scan (qual.go, PostgreSQL's ExecScan), to every batch it produces,
// including batches an async foreign scan delivers out of band (the
// fetcher goroutine filters them): what a scan computes never hides what
// it is. Other nodes (Agg's HAVING) get a filterProject wrapper. A foreign
// scan the plan marks async that is not built as an AsyncCapable operator
// is an internal error at Build, never a silent synchronous run.
//
// # Writes
//
// ModifyTable and COPY (Inserter) never publish anything: they route and
// check rows and put them into the transaction's write set
// (ExecContext.View's), which the engine's transaction publishes at
// commit. UPDATE and DELETE consume their child's rows and find the old
// rows by their identity (ctid, tableoid).
//
// Rows of foreign tables go to their servers instead, into the remote
// transaction (which the remote package commits with the local one): a
// foreignWriter per table buffers INSERTs (batch_size rows each) and
// UPDATEs and DELETEs by remote ctid, and sends them in pipelines of about
// pipelineRows rows, one round trip each, flushed before ModifyTable or
// COPY returns. A ForeignModify in ModifyTable's child ships a whole
// UPDATE or DELETE; it reports its count and RETURNING rows to the
// statement (ExecContext) and gives its parent a batch without columns.
//
// # Params: InitPlans, SubPlans, parameterized loops
//
// A plan reads values set at run time as Params (nodes.Param). An
// InitPlan sets its Param once, when the node holding it opens
// (init_plan.go). A SubPlan (subplan.go) and a parameterized Nested Loop
// (nested_loop_param.go) set theirs per outer row in a layer of their
// own over the statement's values (paramValues.parent), then build their
// inner plan's operators afresh and run them: operators are never
// rescanned. So a Param keeps one value for the life of an operator, and
// an expression reading Params is compiled at its first evaluation with
// their values as constants, taking a constant's kernels (param_bind.go);
// only a SubPlan's test reads Params that change between evaluations.
// A SubPlan's evaluator gets the context of its host node's Open and
// Next (subPlanHost); the planner keeps SubPlans out of parallel workers
// and async fetchers, so it always runs on its host's goroutine.
//
// # Runtime filters
//
// A Hash Join with a RuntimeFilter publishes a Bloom filter of its build
// keys in a slot of its participant's ExecContext once the build is
// complete; the Seq Scans on its outer side with that filter's ID read
// the slot per batch and drop the rows that cannot match, passing every
// row while the slot is empty (runtime_filter.go). The nodes between
// them recompute on every Open, so a join that builds again (a rerun
// SubPlan) publishes a filter its scans' new rows are checked against.
//
// # Order found at run time
//
// A serial Seq Scan can say, once open, that a column of its output
// arrives never decreasing (sortedSource, agg_stream.go): it checks the
// very batches its snapshot captured, which no write can change. A hashed
// Agg over it grouping by that column returns its groups as the column
// moves on, instead of holding (and spilling) all of them; EXPLAIN
// ANALYZE shows it as "Presorted Key". The plan does not claim the order,
// so plain EXPLAIN shows nothing of it.
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
// recovered at the statement boundary (package engine) and becomes XX000.
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
// driver node (Append, as in PostgreSQL; also a foreign scan prefetching
// for its own parent) registers its async-capable children with itself:
// it opens them, groups them by AsyncResource (their remote connection)
// and starts one fetcher goroutine per group, which calls FetchAsync (one
// request) for whichever child of its group has demand. From then on the
// children never see Next:
//
//   - Who registers: the driver, on its first Next, for every async child at
//     once, so that the first requests of all connections go out together.
//   - Who delivers: the fetcher, which sends each child's batches, and at
//     its end its error or nil, as asyncEvents on the driver's one
//     channel. A delivered batch is owned by the driver from then on.
//   - One request per connection: children sharing a connection share a
//     fetcher, which sends the next request the moment a result is read,
//     without handing the connection to another goroutine. A request
//     serves every child of the connection that holds a demand token: foreign
//     scans combine their FETCHes into one pipeline (one round trip), so
//     partitions on one server are read together even over one connection.
//     Synchronous users of the same connection (another scan, a CLOSE, the
//     next statement) wait for the request in flight.
//   - Flow control: a child is fetched only with a demand token; the driver
//     starts it with asyncDemand (4) tokens and returns one each time it
//     passes a batch up (PostgreSQL's needrequest, but batches ahead), so at
//     most four batches per child are fetched and not yet consumed, and the
//     next round trip is already under way while the driver works.
//   - Who counts: the fetcher adds delivered rows (after the child's qual)
//     to the child's NodeStats
//     (Rows and AsyncRows), its round trips to Requests, and the rows to
//     the driver's AsyncRows, because those rows never pass through the
//     child's Next wrapper; the driver adds the time it was blocked
//     waiting for a child to that child's Waited.
//   - When the driver blocks: between batches of its synchronous children the
//     driver polls the event channel without blocking (so slow synchronous
//     children do not starve async ones); only when no synchronous work is
//     left does it block on the channel (and on ctx.Done()).
//   - Teardown: Close of the driver stops the fetchers between requests
//     and waits for their goroutines (a request in flight finishes: its
//     remote transaction stays usable for the rest of a block);
//     undelivered batches are released. Requests run on the statement's
//     context, so a cancel or statement_timeout cancels them at once, as
//     does a child's error (the statement is failing) and the portal
//     closing a statement that failed elsewhere in the plan.
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
//   - Parallel Hash Join: the copies of one join build one hash table
//     together (each hashes its morsels of the inner side), meet at a
//     barrier that counts only the participants that came, and then probe
//     the shared table read-only (parallel_hash.go); the Gather frees it.
package executor
