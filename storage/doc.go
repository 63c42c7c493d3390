// Package storage holds pgfed's local data: Arrow-backed tables and the
// catalog of schemas, tables and partitions that names resolve against.
//
// Contract:
//   - A Table's data is a list of immutable Arrow record batches. Readers take
//     a Snapshot (the batch list with a reference each) and never see a
//     later write; writers replace or extend the list under the table's lock.
//     Every batch handed out is retained for the caller, who releases it.
//   - The Catalog is safe for concurrent use; DDL takes its write lock.
//   - Statistics (row counts, per-column distinct estimates) are kept up to
//     date by the writers, for the planner's estimates.
//   - storage imports only types and pgerr; everything else imports it.
package storage
