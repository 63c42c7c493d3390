// Package storage holds pgfed's local data: Arrow-backed tables, the
// catalog of schemas, tables and partitions that names resolve against,
// and what every write goes through: the partition router (Router), the
// constraint checks (CheckRows) and a session's write set (WriteSet),
// which publishes a transaction's writes when it commits.
//
// Contract:
//   - A Table's data is a list of immutable Arrow record batches. Readers take
//     a Snapshot (the batch list with a reference each) and never see a
//     later write; only a WriteSet's commit replaces or extends the list,
//     under the table's write lock (which UPDATE and DELETE hold from their
//     snapshot to the commit). Every batch handed out is retained for the
//     caller, who releases it.
//   - Rows have an identity while their table is locked: ctid (batch and
//     row) and tableoid, system columns scans read at negative column
//     numbers.
//   - The Catalog is safe for concurrent use; DDL takes its write lock.
//   - Statistics (row counts, per-column distinct estimates) are kept up to
//     date by the writers, for the planner's estimates.
//   - storage imports only types, pgerr and xact; everything else imports it.
package storage
