// Package engine runs a session's statements: the statement loop and
// dispatch (PostgreSQL's tcop/postgres.c and utility.c), the portal that
// streams a query's result, the session's settings and its transaction.
//
// Contract:
//   - Every statement runs in a transaction (xact.Transaction): an
//     implicit one per statement, one for all the statements of a
//     multi-statement query (Run), or a block (BEGIN ... COMMIT, with
//     savepoints) with PostgreSQL 15's states, messages and codes
//     (xact.go). A statement's end (for a query, when its portal is
//     exhausted or closed) commits an implicit transaction when it went
//     well; an error aborts it, or puts a block in the aborted state. The
//     transaction is the one owner of that end: the session's write set
//     publishes local writes at Commit, the remote manager ends remote
//     transactions at PreCommit / Abort, the DDL log reverts catalog
//     changes at Abort and ROLLBACK TO, the settings undo SETs, the
//     temporary tables' ON COMMIT actions run at PreCommit and Commit;
//     each registered once with it. Closing a session drops its
//     temporary schema.
//   - Isolation (storage's versions, views and table locks): READ
//     COMMITTED reads a snapshot per statement, REPEATABLE READ and
//     SERIALIZABLE one per transaction; statements see their transaction's
//     own writes; readers never wait; writers of one table wait for each
//     other (table granularity), with 40001, 40P01 and lock_timeout as in
//     PostgreSQL.
//   - A statement's context carries statement_timeout; cancelling it (or
//     the caller's context) ends the statement with 57014, remote work
//     included, and a cancelled statement never returns a result.
//   - Every error is a *pgerr.Error; a panic inside the engine is
//     recovered at the statement boundary as XX000, and the session stays
//     usable. A new statement closes a portal left open.
//   - A Session is used by one goroutine at a time; an Engine is safe for
//     concurrent use, and its sessions run concurrently.
package engine
