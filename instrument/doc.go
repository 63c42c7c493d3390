// Package instrument keeps per-node runtime counters and renders EXPLAIN
// output (TEXT and JSON, in PostgreSQL's layout) from a plan tree plus,
// for EXPLAIN ANALYZE, those counters.
//
// Contract:
//   - Counters are keyed by plan-node ID (nodes.PlanBase.ID), so EXPLAIN
//     without ANALYZE needs no runtime at all.
//   - A NodeStats is written by one goroutine at a time (the one running
//     that node), except AsyncRows/Rows of async children, which the
//     delivering code updates before handing the batch over; readers render
//     only after the statement finished.
//   - Loops follow PostgreSQL: one loop per Open/rescan of the node in each
//     participating process; Rows is the total over loops (displayed per loop).
//   - Parallel workers count into Stats of their own; their Gather folds
//     them into the statement's with MergeWorker once they have ended,
//     keeping each worker's share for EXPLAIN VERBOSE's "Worker N:" lines.
package instrument
