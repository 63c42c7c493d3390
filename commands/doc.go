// Package commands runs pgfed's utility statements, as PostgreSQL's
// src/backend/commands: DDL of schemas, tables and partitions
// (tablecmds.go), the session's temporary schema and its tables' ON
// COMMIT actions (temptables.go), foreign servers, user mappings,
// foreign tables and IMPORT FOREIGN SCHEMA (foreigncmds.go,
// import_schema.go), COPY
// (copy.go), EXPLAIN (explain.go), SET / SHOW / RESET (variable.go), and
// the catalog descriptions behind the REPL's \d commands (describe.go).
//
// Contract: a command gets the session's resources through an Env and
// returns a Result (a command tag, or rows for EXPLAIN and SHOW) or a
// *pgerr.Error. Commands never end the transaction: the engine commits or
// aborts it after the command returns, and local writes go through the
// session's write set (Env.Writes), so a failed COPY or TRUNCATE changes
// nothing. Plans a command runs (CREATE TABLE AS, COPY TO, EXPLAIN
// ANALYZE) run through Env.Run, inside the statement. OPTIONS and WITH
// lists are read by one DefElem reader (defelem.go); foreign options are
// validated by package remote.
package commands
