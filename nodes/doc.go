// Package nodes defines pgfed's plan trees: immutable plan nodes and the
// typed, resolved expressions they carry.
//
// Contract:
//   - Nodes and expressions are built by the planner and never modified
//     afterwards; the executor builds runtime state from them (one runtime
//     copy per parallel worker may be built from the same plan), so a plan
//     may be executed many times and concurrently.
//   - Every node can be printed by EXPLAIN without running: it carries its
//     output columns, its estimates (rows, width, costs) and the properties
//     EXPLAIN shows (Filter, Sort Key, Group Key ...). Expressions print in
//     PostgreSQL's EXPLAIN spelling ("((b % 10) = 0)", "'x'::text").
//   - Each node has an ID unique within its plan (depth-first numbering),
//     the key under which package instrument keeps its runtime counters.
//   - Expressions refer to the input columns of the node that evaluates them
//     by position (ColumnRef.Index): for a scan, its scanned columns; for
//     other nodes, the output columns of their (single) child; for
//     Aggregate's targets and HAVING, the group keys then the aggregates.
package nodes
