// Package pgfed is the embedding API of the pgfed query engine: open an
// in-memory engine, run PostgreSQL SQL in sessions, and read results as
// rows or Arrow record batches.
//
//	db, _ := pgfed.Open()
//	defer db.Close()
//	rows, err := db.Query(ctx, "SELECT sum(a) FROM t")
//
// Contract: every error returned is a *pgerr.Error carrying a SQLSTATE; a
// panic inside the engine is recovered at the statement boundary and
// returned as XX000, leaving the session usable. A Session is not safe for
// concurrent use (like a connection); a DB is, and its sessions run
// concurrently.
package pgfed
