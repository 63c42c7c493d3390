// Package remote talks to remote PostgreSQL servers for foreign tables, in
// the manner of postgres_fdw: pgx connections cached per (server, user
// mapping) in each session, remote transactions, cursors whose FETCH
// results are decoded from the binary format straight into Arrow batches,
// SQL deparsing with correct quoting, and cancellation that reaches the
// remote server.
//
// Contract:
//   - A Manager belongs to one pgfed session; it is not safe for
//     concurrent use except where a method says so (Cancel-related paths
//     go through pgx's context watcher). A Conn runs one command at a
//     time (another goroutine's command waits), and EndTransaction
//     cancels a command still running on a connection it aborts. One connection
//     per ConnSpec.Key (server + user mapping) is opened on first use and
//     shared by every foreign table of that server, as in postgres_fdw, so
//     several scans of one statement see one snapshot.
//   - Beyond postgres_fdw, ConnSpec.Slot 1, 2 ... asks for extra
//     connections of a Key, so that scans of one server can fetch in
//     parallel (Cursor.Fetch on different Conns may run concurrently).
//     They keep the one snapshot: when a statement first uses an extra
//     slot, the primary connection (slot 0) runs SELECT
//     pg_export_snapshot() (once per transaction) and the extra one starts
//     its transaction with SET TRANSACTION SNAPSHOT. The exporting
//     transaction stays open until EndTransaction, which ends the extra
//     slots first. Extra slots are for reading: once the transaction
//     wrote through a primary (Conn.Exec), asking for an extra slot gives
//     the primary, whose snapshot has the writes.
//   - Conn.FetchTogether runs the FETCHes of several cursors of one
//     connection in one round trip (one pipeline, one Sync): still one
//     request at a time on the connection, serving every cursor in it.
//     Each FETCH text is prepared on its connection at first use (in the
//     same pipeline) and later only bound and executed; the statement
//     names the cursor, so later statements' cursors of that name reuse it.
//   - Each new connection is set up so that deparsed literals mean the same
//     thing remotely: search_path = pg_catalog, TimeZone = UTC,
//     DateStyle = ISO, IntervalStyle = postgres, extra_float_digits = 3,
//     sent in the startup message (no round trip).
//   - Remote transactions follow the local one (xact.go): the Manager is
//     an xact.Callback and SubCallback of its session's transaction. The
//     first use of a connection in a local transaction opens START
//     TRANSACTION ISOLATION LEVEL REPEATABLE READ (SERIALIZABLE if the
//     local one is), and a use inside local savepoints creates remote
//     ones (s2, s3 ...), both only queued: every command goes out in one
//     pipeline with the commands pending on its connection (request.go),
//     so they cost no round trip, and CLOSE of a cursor and RELEASE of a
//     savepoint wait for the next command (COMMIT drops them). ROLLBACK TO
//     sends ROLLBACK TO SAVEPOINT + RELEASE SAVEPOINT in one round trip;
//     COMMIT and ABORT one each. With the server options parallel_commit
//     and parallel_abort they go to every server before any answer is
//     read. A connection whose transaction state a failed command left
//     unknown is "lost" for the rest of the transaction and closed at
//     its end.
//   - Writes (modify.go): Conn.ExecAll runs data-changing commands in one
//     round trip, prepared once per connection, and marks the connection
//     written, which makes its commit matter and sends later reads to the
//     primary slot. deparse_dml.go writes postgres_fdw's INSERT, UPDATE
//     and DELETE by ctid, shipped UPDATE/DELETE, and TRUNCATE.
//   - pgfed.two_phase_commit (twophase.go): a commit of two or more
//     written servers prepares all but one, commits that one as the
//     decision, then commits the prepared ones; Resolve finds and settles
//     pgfed's prepared transactions by asking the decision server.
//   - ValidateOption is the one validator of server, user mapping, table
//     and column options, driven by the connection code's own list of
//     libpq keywords, with postgres_fdw's messages. A connection found broken is
//     discarded and reopened on next use (outside a remote transaction).
//   - Errors are *pgerr.Error: remote errors keep the remote SQLSTATE,
//     message, DETAIL and HINT and get CONTEXT "remote SQL command: ...";
//     an unreachable server gives 08001 naming the server. Secrets
//     (passwords) never appear in errors or logs.
//   - Cancelling the context of a running remote command sends a real
//     PostgreSQL cancel request; the connection stays usable afterwards.
package remote
