// Package engine runs a session's statements: the statement loop and
// dispatch (PostgreSQL's tcop/postgres.c and utility.c), the portal that
// streams a query's result, the session's settings and its transaction.
//
// Contract:
//   - Every statement runs in a transaction (xact.Transaction). Until the
//     session has BEGIN, each statement is one implicit transaction: it
//     commits when the statement ends well (for a query, when its portal
//     is exhausted or closed without error) and aborts otherwise. The
//     transaction is the one owner of a statement's end: the session's
//     write set publishes local writes at Commit, the remote manager ends
//     remote transactions at PreCommit / Abort, the settings undo an
//     aborted transaction's SETs; each registered once with it.
//   - A statement's context carries statement_timeout; cancelling it (or
//     the caller's context) ends the statement with 57014, remote work
//     included, and a cancelled statement never returns a result.
//   - Every error is a *pgerr.Error; a panic inside the engine is
//     recovered at the statement boundary as XX000, and the session stays
//     usable. A new statement closes a portal left open.
//   - A Session is used by one goroutine at a time; an Engine is safe for
//     concurrent use, and its sessions run concurrently.
package engine
