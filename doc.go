// Package pgfed is the embedding API of the pgfed query engine: open an
// in-memory engine, run PostgreSQL SQL in sessions, and read results as
// rows or Arrow record batches.
//
//	db, _ := pgfed.Open()
//	defer db.Close()
//	rows, err := db.Query(ctx, "SELECT sum(a) FROM t")
//
// Contract: every error returned is an *Error (PostgreSQL's fields, with
// a SQLSTATE); a panic inside the engine is recovered at the statement
// boundary and returned as XX000, leaving the session usable. A Session is
// not safe for concurrent use (like a connection); a DB is, and its
// sessions run concurrently. Outside BEGIN ... COMMIT each statement (or
// each multi-statement Exec or Run) is a transaction of its own: it
// commits when it succeeds (for a query, when its Rows are read to the end
// or closed) and changes nothing when it fails or is cancelled.
//
// This package is the public API only; the engine lives in package engine
// (statements, portals, transactions) and package commands (utility
// statements), and no signature here mentions a storage, remote or
// executor type.
package pgfed
