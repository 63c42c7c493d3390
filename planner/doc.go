// Package planner turns pg_query_go parse trees into plans: it resolves
// names against the catalog and the search_path, types every expression
// with PostgreSQL's coercion rules, collects aggregates, prunes
// partitions with constant predicates, and estimates rows and costs.
// After planning it marks async Append children (foreign.go) and, for a
// SELECT, puts a Gather or Gather Merge where a parallel plan costs less
// (parallel.go). Functions and aggregates resolve against the registry
// (package funcs); settings come from the session's guc.Settings, whose
// definitions hold every default. UPDATE and DELETE are planned as scans
// of their target that produce the SET values and the row identity
// (dml.go), as in PostgreSQL.
//
// Contract: Plan returns an immutable, numbered plan (nodes package) or a
// *pgerr.Error with PostgreSQL's SQLSTATE and, where it can, the cursor
// position of the offending token. Constructs pgfed does not support
// (joins, subqueries in expressions, window functions, CTEs ...) are
// refused with 0A000 naming the construct. The planner never touches
// table data, only the catalog and statistics.
package planner
