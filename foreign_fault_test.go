package pgfed_test

// Remote transactions under failure, from SQL, against real servers: a
// backend killed at each step of a transaction over two servers (first
// use, mid-transaction, before COMMIT, during COMMIT, during ABORT), and
// what each server holds afterwards; two-phase commit and the
// resolution of prepared transactions.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/pgtest"
)

// addServer makes another database on the shared cluster with setup run
// in it, and a server name (with a user mapping) in s's catalog for it.
func addServer(t *testing.T, s *pgfed.Session, name, setup, opts string) *pgx.Conn {
	t.Helper()
	cluster := pgtest.Shared(t)
	ctx := context.Background()
	db := fmt.Sprintf("fdw_%s_%d", name, time.Now().UnixNano())
	if err := cluster.CreateDatabase(ctx, db); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, cluster.DSN(db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if _, err := conn.Exec(ctx, setup); err != nil {
		t.Fatal(err)
	}
	o := fmt.Sprintf("host '127.0.0.1', port '%d', dbname '%s'", cluster.Port(), db)
	if opts != "" {
		o += ", " + opts
	}
	mustExec(t, s, "CREATE SERVER "+name+" FOREIGN DATA WRAPPER postgres_fdw OPTIONS ("+o+")")
	mustExec(t, s, "CREATE USER MAPPING FOR CURRENT_USER SERVER "+name+" OPTIONS (user 'postgres')")
	return conn
}

// twoWriteServers is a session with foreign tables fa and fb (a int) on
// servers sa and sb, and the servers' own connections.
func twoWriteServers(t *testing.T, opts string) (*pgfed.Session, *pgx.Conn, *pgx.Conn) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs PostgreSQL")
	}
	db, err := pgfed.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := db.NewSession()
	ra := addServer(t, s, "sa", "CREATE TABLE public.t (a int)", opts)
	rb := addServer(t, s, "sb", "CREATE TABLE public.t (a int)", opts)
	mustExec(t, s, "CREATE FOREIGN TABLE fa (a int) SERVER sa OPTIONS (table_name 't')")
	mustExec(t, s, "CREATE FOREIGN TABLE fb (a int) SERVER sb OPTIONS (table_name 't')")
	return s, ra, rb
}

// backendOf is the remote backend of s's connection to server.
func backendOf(t *testing.T, s *pgfed.Session, server string) uint32 {
	t.Helper()
	for _, c := range s.RemoteConnections() {
		if c.Server == server {
			return c.BackendPID
		}
	}
	t.Fatalf("no connection to %s", server)
	return 0
}

func kill(t *testing.T, remote *pgx.Conn, pid uint32) {
	t.Helper()
	var ok bool
	if err := remote.QueryRow(context.Background(), "SELECT pg_terminate_backend($1, 5000)", int32(pid)).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend(%d): %v %v", pid, ok, err)
	}
}

// slowCommits makes the COMMIT of a transaction that inserted into t on
// remote's server wait 30 s, in a deferred trigger.
func slowCommits(t *testing.T, remote *pgx.Conn) {
	t.Helper()
	_, err := remote.Exec(context.Background(), `CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN PERFORM pg_sleep(30); RETURN NULL; END $$;
		CREATE CONSTRAINT TRIGGER slow AFTER INSERT ON t DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow()`)
	if err != nil {
		t.Fatal(err)
	}
}

// waitRunning waits until a query of another session containing word
// runs on remote's server.
func waitRunning(t *testing.T, remote *pgx.Conn, word string) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var n int
		err := remote.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE state = 'active' AND pid <> pg_backend_pid() AND (query LIKE '%' || $1 || '%' OR wait_event = 'PgSleep')`, word).Scan(&n)
		if err != nil || n > 0 {
			return
		}
	}
	t.Errorf("no query with %q ran", word)
}

func holds(t *testing.T, remote *pgx.Conn) string {
	t.Helper()
	return strings.Join(remoteRows(t, remote, "SELECT a FROM t ORDER BY a"), ",")
}

func wantLost(t *testing.T, err error, server string) {
	t.Helper()
	pe, ok := pgerr.As(err)
	if !ok || !strings.HasPrefix(pe.Code, "08") && pe.Code != "57P01" {
		t.Fatalf("error %v, want a connection failure (08xxx)", err)
	}
	if pe.Code != "57P01" && !strings.Contains(pe.Message, server) {
		t.Errorf("error %q does not name server %s", pe.Message, server)
	}
}

func TestRemoteFaults(t *testing.T) {
	ctx := context.Background()
	t.Run("first use", func(t *testing.T) {
		// Killed while idle between transactions: the next one reconnects.
		s, ra, rb := twoWriteServers(t, "")
		mustExec(t, s, "INSERT INTO fa VALUES (1)")
		kill(t, ra, backendOf(t, s, "sa"))
		mustExec(t, s, "BEGIN; INSERT INTO fa VALUES (2); INSERT INTO fb VALUES (2); COMMIT")
		if a, b := holds(t, ra), holds(t, rb); a != "1,2" || b != "2" {
			t.Errorf("servers hold %q and %q", a, b)
		}
	})
	t.Run("mid-transaction", func(t *testing.T) {
		s, ra, rb := twoWriteServers(t, "")
		mustExec(t, s, "BEGIN")
		mustExec(t, s, "INSERT INTO fa VALUES (1)")
		mustExec(t, s, "INSERT INTO fb VALUES (1)")
		kill(t, ra, backendOf(t, s, "sa"))
		_, err := s.Exec(ctx, "INSERT INTO fa VALUES (2)")
		wantLost(t, err, "sa")
		if _, err := s.Exec(ctx, "SELECT 1"); pgerr.Code(err) != pgerr.InFailedSQLTransaction {
			t.Fatalf("after the failure: %v", err)
		}
		mustExec(t, s, "ROLLBACK")
		if a, b := holds(t, ra), holds(t, rb); a != "" || b != "" {
			t.Errorf("servers hold %q and %q", a, b)
		}
		mustExec(t, s, "INSERT INTO fa VALUES (3)") // usable again, reconnected
		if a := holds(t, ra); a != "3" {
			t.Errorf("sa holds %q", a)
		}
	})
	t.Run("before COMMIT", func(t *testing.T) {
		s, ra, rb := twoWriteServers(t, "parallel_commit 'true'")
		mustExec(t, s, "BEGIN")
		mustExec(t, s, "INSERT INTO fa VALUES (1)")
		mustExec(t, s, "INSERT INTO fb VALUES (1)")
		kill(t, rb, backendOf(t, s, "sb"))
		_, err := s.Exec(ctx, "COMMIT")
		wantLost(t, err, "sb")
		if a, b := holds(t, ra), holds(t, rb); a != "" || b != "" {
			t.Errorf("servers hold %q and %q", a, b)
		}
	})
	t.Run("during COMMIT", func(t *testing.T) {
		// sa's COMMIT runs a deferred trigger that waits; the backend is
		// killed while it waits. sb, committed in parallel, keeps its row,
		// and the error's DETAIL says so.
		s, ra, rb := twoWriteServers(t, "parallel_commit 'true'")
		slowCommits(t, ra)
		mustExec(t, s, "BEGIN")
		mustExec(t, s, "INSERT INTO fa VALUES (1)")
		mustExec(t, s, "INSERT INTO fb VALUES (1)")
		pid := backendOf(t, s, "sa")
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			waitRunning(t, ra, "COMMIT")
			kill(t, ra, pid)
		}()
		_, err := s.Exec(ctx, "COMMIT")
		wg.Wait()
		wantLost(t, err, "sa")
		pe, _ := pgerr.As(err)
		if want := `Remote transactions committed on server "sb"; outcome unknown on server "sa".`; !strings.Contains(pe.Detail, want) {
			t.Errorf("detail %q, want %q", pe.Detail, want)
		}
		if a, b := holds(t, ra), holds(t, rb); a != "" || b != "1" {
			t.Errorf("servers hold %q and %q", a, b)
		}
		mustExec(t, s, "INSERT INTO fb VALUES (2)") // usable again
	})
	t.Run("statement_timeout during COMMIT", func(t *testing.T) {
		// As in PostgreSQL: the COMMIT is cancelled (remotely too), the
		// transaction rolls back everywhere, the session goes on.
		s, ra, rb := twoWriteServers(t, "")
		slowCommits(t, ra)
		// sa commits first (no parallel_commit): sb is never committed.
		mustExec(t, s, "BEGIN")
		mustExec(t, s, "INSERT INTO fa VALUES (1)")
		mustExec(t, s, "INSERT INTO fb VALUES (1)")
		mustExec(t, s, "SET statement_timeout = '300ms'")
		start := time.Now()
		_, err := s.Exec(ctx, "COMMIT")
		if pe, ok := pgerr.As(err); !ok || pe.Code != pgerr.QueryCanceled || pe.Message != "canceling statement due to statement timeout" {
			t.Fatalf("COMMIT: %v", err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("the COMMIT took %v", d)
		}
		mustExec(t, s, "RESET statement_timeout")
		if a, b := holds(t, ra), holds(t, rb); a != "" || b != "" {
			t.Errorf("servers hold %q and %q", a, b)
		}
		mustExec(t, s, "INSERT INTO fb VALUES (2)")
	})
	t.Run("during ABORT", func(t *testing.T) {
		// A statement cancelled while sa runs a long query: the abort
		// cancels it remotely; the backend dies meanwhile. The session
		// goes on, over a new connection.
		s, ra, rb := twoWriteServers(t, "")
		if _, err := ra.Exec(ctx, "CREATE VIEW public.v AS SELECT a, pg_sleep(30) IS NULL AS slept FROM t"); err != nil {
			t.Fatal(err)
		}
		mustExec(t, s, "CREATE FOREIGN TABLE fv (a int, slept bool) SERVER sa OPTIONS (table_name 'v')")
		mustExec(t, s, "BEGIN")
		mustExec(t, s, "INSERT INTO fb VALUES (1)")
		mustExec(t, s, "INSERT INTO fa VALUES (1)")
		pid := backendOf(t, s, "sa")
		cctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			waitRunning(t, ra, "FETCH")
			cancel()
			time.Sleep(20 * time.Millisecond) // the abort is under way
			kill(t, ra, pid)
		}()
		start := time.Now()
		_, err := s.Exec(cctx, "SELECT count(*) FROM fv")
		wg.Wait()
		if err == nil || time.Since(start) > 20*time.Second {
			t.Fatalf("the long query: %v after %v", err, time.Since(start))
		}
		mustExec(t, s, "ROLLBACK")
		if a, b := holds(t, ra), holds(t, rb); a != "" || b != "" {
			t.Errorf("servers hold %q and %q", a, b)
		}
		mustExec(t, s, "INSERT INTO fa VALUES (2)")
		if a := holds(t, ra); a != "2" {
			t.Errorf("sa holds %q", a)
		}
	})
}

// pgfed.two_phase_commit from SQL: a transaction over two written
// servers commits through PREPARE TRANSACTION, leaving nothing prepared;
// pgfed_prepared_xacts and pgfed_resolve_prepared find and resolve the
// prepared transactions whose GIDs are pgfed's.
func TestTwoPhaseCommitSQL(t *testing.T) {
	s, ra, rb := twoWriteServers(t, "")
	ctx := context.Background()
	mustExec(t, s, "SET pgfed.two_phase_commit = on")
	mustExec(t, s, "BEGIN; INSERT INTO fa VALUES (1); INSERT INTO fb VALUES (1); COMMIT")
	if a, b := holds(t, ra), holds(t, rb); a != "1" || b != "1" {
		t.Errorf("servers hold %q and %q", a, b)
	}
	wantRows(t, "nothing prepared", textRows(t, s, "SELECT * FROM pgfed_prepared_xacts('sb')"))

	// Prepared transactions as pgfed would leave them in doubt: one whose
	// decision (a transaction on sa) committed, one whose decision aborted.
	decision := func(commit bool) string {
		tx, err := ra.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var xid string
		if err := tx.QueryRow(ctx, "SELECT pg_current_xact_id()::text").Scan(&xid); err != nil {
			t.Fatal(err)
		}
		if commit {
			err = tx.Commit(ctx)
		} else {
			err = tx.Rollback(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		return xid
	}
	yes, no := decision(true), decision(false)
	for i, xid := range []string{yes, no} {
		if _, err := rb.Exec(ctx, fmt.Sprintf("BEGIN; INSERT INTO t VALUES (%d); PREPARE TRANSACTION 'pgfed:test%d:%s:sa'", 10+i, i, xid)); err != nil {
			t.Fatal(err)
		}
	}
	// Someone else's prepared transaction is left alone.
	if _, err := rb.Exec(ctx, "BEGIN; INSERT INTO t VALUES (99); PREPARE TRANSACTION 'not-pgfeds'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = rb.Exec(context.Background(), "ROLLBACK PREPARED 'not-pgfeds'") })
	wantRows(t, "listed", textRows(t, s, "SELECT gid, decision_server, decision, action FROM pgfed_prepared_xacts('sb') ORDER BY gid"),
		"pgfed:test0:"+yes+":sa|sa|committed|none", "pgfed:test1:"+no+":sa|sa|aborted|none")
	wantRows(t, "resolved", textRows(t, s, "SELECT gid, action FROM pgfed_resolve_prepared('sb') ORDER BY gid"),
		"pgfed:test0:"+yes+":sa|committed", "pgfed:test1:"+no+":sa|rolled back")
	if b := holds(t, rb); b != "1,10" {
		t.Errorf("sb holds %q", b)
	}
	wantCode(t, s, "SELECT * FROM pgfed_resolve_prepared('nosuch')", pgerr.UndefinedObject, `server "nosuch" does not exist`)
}
