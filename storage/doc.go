// Package storage holds pgfed's local data: Arrow-backed tables, the
// catalog of schemas, tables and partitions that names resolve against,
// and what every write goes through: the partition router (Router), the
// constraint checks (CheckRows) and a session's write set (WriteSet),
// which publishes a transaction's writes when it commits.
//
// Contract:
//   - A Table's data is versions of a list of immutable Arrow record
//     batches, one per commit that wrote it (mvcc.go). A snapshot reads the
//     versions committed before it; a statement reads through a View (its
//     snapshot plus its transaction's own writes). Only a WriteSet's commit
//     adds a version, under the table's write lock (locks.go), which UPDATE,
//     DELETE and TRUNCATE hold from before they read until their
//     transaction ends. Every batch handed out is retained for the caller,
//     who releases it.
//   - Small writes do not pile up: a write set's lists and each new
//     version have their runs of small batches merged into new batches
//     (compact.go), at amortized O(rows written), so that a table written
//     a row at a time is still scanned as few batches (Table.NumBatches).
//     Older versions and savepoints keep the batches they had.
//   - Catalog changes return a Change (revert at abort, finish at commit):
//     DDL is transactional, though other sessions see it at once. A
//     session's temporary tables are in its own schema, pg_temp_N
//     (CreateTempSchema), which only that session's names resolve in.
//   - Rows have an identity while their table is locked: ctid (batch and
//     row: the position in the statement's View) and tableoid, system
//     columns scans read at negative column numbers.
//   - The Catalog is safe for concurrent use; DDL takes its write lock.
//   - Statistics (row counts, per-column distinct estimates) are kept up to
//     date by the writers, for the planner's estimates.
//   - storage imports only types, pgerr and xact; everything else imports it.
package storage
