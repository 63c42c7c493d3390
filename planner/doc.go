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
// FROM clauses with several items are analysed into a range table and a
// join tree (join_analyze.go, join_scope.go) whose expressions use
// query-wide column ids, mapped to input positions when each node is
// built (join.go); inner joins are ordered by cost (join_order.go).
// Subqueries in expressions become semi / anti joins (sublink.go), joins
// with grouped subqueries (decorrelate.go), InitPlans (initplan.go) or
// SubPlans (subplan.go); a query's references to enclosing queries are
// Params of the SubPlan (or LATERAL item, lateral.go) that sets them.
//
// Contract: Plan returns an immutable, numbered plan (nodes package) or a
// *pgerr.Error with PostgreSQL's SQLSTATE and, where it can, the cursor
// position of the offending token. Constructs pgfed does not support
// (ARRAY subqueries, data-modifying WITH, SEARCH / CYCLE ...) are
// refused with 0A000 naming the construct. The planner never touches
// table data, only the catalog and statistics.
package planner
