package remote

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/xact"
)

// twoServers are two databases on the test cluster reached as servers
// "a" and "b", each with a table t (a int); every statement is logged.
func twoServers(t *testing.T, opts map[string]string) (a, b *testDB) {
	a, b = newTestDB(t), newTestDB(t)
	for i, db := range []*testDB{a, b} {
		db.spec.Server = string(rune('a' + i))
		db.spec.Key = db.spec.Server + "/postgres"
		for k, v := range opts {
			db.spec.Options[k] = v
		}
		db.exec(t, "ALTER DATABASE "+db.name+" SET log_statement = 'all'")
		db.exec(t, "CREATE TABLE t (a int)")
	}
	return a, b
}

func (db *testDB) rows(t *testing.T) string {
	t.Helper()
	var s string
	if err := db.admin.QueryRow(context.Background(), "SELECT coalesce(string_agg(a::text, ',' ORDER BY a), '') FROM t").Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func (db *testDB) write(t *testing.T, m *Manager, sql string) *Conn {
	t.Helper()
	c := db.conn(t, m)
	if _, _, err := c.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return c
}

func sub(t *testing.T, m *Manager, ev xact.SubEvent, depth int) {
	t.Helper()
	if err := m.OnSubXact(context.Background(), ev, depth); err != nil {
		t.Fatal(err)
	}
}

// The seed transaction of postgres_fdw's parallel abort, on two servers:
// savepoints are created only where used and ahead of the command, and
// each step costs one round trip per server.
func TestSavepointsMirrorLocalNesting(t *testing.T) {
	a, b := twoServers(t, nil)
	m := newManager(t)
	ctx := context.Background()

	sub(t, m, xact.StartSub, 1) // SAVEPOINT s
	ca := a.write(t, m, "INSERT INTO public.t VALUES (10)")
	cb := b.write(t, m, "INSERT INTO public.t VALUES (20)")
	sub(t, m, xact.AbortSub, 1)  // ROLLBACK TO SAVEPOINT s ...
	sub(t, m, xact.StartSub, 1)  // ... which keeps the savepoint
	sub(t, m, xact.CommitSub, 1) // RELEASE SAVEPOINT s
	a.write(t, m, "INSERT INTO public.t VALUES (11)")
	b.write(t, m, "INSERT INTO public.t VALUES (21)")
	// A connection first used inside a savepoint gets its savepoint
	// then; one not used there gets none.
	sub(t, m, xact.StartSub, 1)
	a.write(t, m, "INSERT INTO public.t VALUES (12)")
	sub(t, m, xact.StartSub, 2)
	sub(t, m, xact.CommitSub, 2)
	sub(t, m, xact.CommitSub, 1)
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	if got := a.rows(t) + " " + b.rows(t); got != "11,12 21" {
		t.Errorf("rows %q", got)
	}
	for _, tc := range []struct {
		db   *testDB
		c    *Conn
		want []string
		// trips: INSERT, ROLLBACK TO, INSERT, (INSERT,) COMMIT
		trips int64
	}{
		{a, ca, []string{
			startSQL, "SAVEPOINT s2", "INSERT INTO public.t VALUES (10)",
			"ROLLBACK TO SAVEPOINT s2", "RELEASE SAVEPOINT s2",
			"INSERT INTO public.t VALUES (11)",
			"SAVEPOINT s2", "INSERT INTO public.t VALUES (12)",
			commitSQL,
		}, 5},
		{b, cb, []string{
			startSQL, "SAVEPOINT s2", "INSERT INTO public.t VALUES (20)",
			"ROLLBACK TO SAVEPOINT s2", "RELEASE SAVEPOINT s2",
			"INSERT INTO public.t VALUES (21)",
			commitSQL,
		}, 4},
	} {
		if diff := cmp.Diff(tc.want, tc.db.remoteLog(t, tc.c.pg.PID())); diff != "" {
			t.Errorf("server %s (-want +got):\n%s", tc.c.spec.Server, diff)
		}
		if got := tc.c.roundTrips.Load(); got != tc.trips {
			t.Errorf("server %s: %d round trips, want %d", tc.c.spec.Server, got, tc.trips)
		}
	}
}

// Rolling back to an outer savepoint undoes the inner ones too; a lazy
// RELEASE goes ahead of the next command.
func TestSavepointsNested(t *testing.T) {
	a, _ := twoServers(t, nil)
	m := newManager(t)
	ctx := context.Background()
	a.write(t, m, "INSERT INTO public.t VALUES (1)")
	sub(t, m, xact.StartSub, 1)
	sub(t, m, xact.StartSub, 2)
	a.write(t, m, "INSERT INTO public.t VALUES (2)")
	sub(t, m, xact.CommitSub, 2)
	c := a.write(t, m, "INSERT INTO public.t VALUES (3)")
	sub(t, m, xact.AbortSub, 1)
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	if got := a.rows(t); got != "1" {
		t.Errorf("rows %q, want 1", got)
	}
	want := []string{
		startSQL, "INSERT INTO public.t VALUES (1)",
		"SAVEPOINT s2", "SAVEPOINT s3", "INSERT INTO public.t VALUES (2)",
		"RELEASE SAVEPOINT s3", "INSERT INTO public.t VALUES (3)",
		"ROLLBACK TO SAVEPOINT s2", "RELEASE SAVEPOINT s2",
		commitSQL,
	}
	if diff := cmp.Diff(want, a.remoteLog(t, c.pg.PID())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A savepoint rolled back on a connection that never ran a command at
// its level costs nothing, nor does a transaction that never ran one.
func TestUnusedCostsNothing(t *testing.T) {
	a, _ := twoServers(t, nil)
	m := newManager(t)
	ctx := context.Background()
	c := a.conn(t, m) // asked for, never used
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	c = a.write(t, m, "INSERT INTO public.t VALUES (1)")
	sub(t, m, xact.StartSub, 1)
	a.conn(t, m)
	sub(t, m, xact.AbortSub, 1)
	if err := m.EndTransaction(ctx, false); err != nil {
		t.Fatal(err)
	}
	want := []string{startSQL, "INSERT INTO public.t VALUES (1)", abortSQL}
	if diff := cmp.Diff(want, a.remoteLog(t, c.pg.PID())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := c.roundTrips.Load(); got != 2 {
		t.Errorf("%d round trips, want 2", got)
	}
}

// With parallel_commit and parallel_abort, the commands that end the
// (sub)transactions go to every server before any answer is read;
// without them, one server after another.
func TestParallelEnds(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		opts := map[string]string{"parallel_commit": "false", "parallel_abort": "false"}
		if parallel {
			opts = map[string]string{"parallel_commit": "true", "parallel_abort": "true"}
		}
		a, b := twoServers(t, opts)
		m := newManager(t)
		var steps []string
		m.Trace = func(s string) { steps = append(steps, s) }
		ctx := context.Background()

		run := func(end func()) []string {
			steps = nil
			sub(t, m, xact.StartSub, 1)
			a.write(t, m, "INSERT INTO public.t VALUES (1)")
			b.write(t, m, "INSERT INTO public.t VALUES (2)")
			end()
			return steps
		}
		rollbackTo := run(func() { sub(t, m, xact.AbortSub, 1) })
		abort := run(func() { _ = m.EndTransaction(ctx, false) })
		commit := run(func() {
			sub(t, m, xact.CommitSub, 1)
			if err := m.EndTransaction(ctx, true); err != nil {
				t.Fatal(err)
			}
		})
		order := func(cmds string) []string {
			if parallel {
				return []string{"send a: " + cmds, "send b: " + cmds, "done a: " + cmds, "done b: " + cmds}
			}
			return []string{"send a: " + cmds, "done a: " + cmds, "send b: " + cmds, "done b: " + cmds}
		}
		for _, tc := range []struct {
			name      string
			got, want []string
		}{
			{"ROLLBACK TO", rollbackTo, order("ROLLBACK TO SAVEPOINT s2; RELEASE SAVEPOINT s2")},
			{"ABORT", abort, order(abortSQL)},
			// The RELEASE pending at the COMMIT is dropped: COMMIT releases.
			{"COMMIT", commit, order(commitSQL)},
		} {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("parallel %v, %s (-want +got):\n%s", parallel, tc.name, diff)
			}
		}
		if got := a.rows(t) + " " + b.rows(t); got != "1 2" {
			t.Errorf("parallel %v: rows %q", parallel, got)
		}
	}
}

// Under parallel_commit, both servers run their COMMIT at the same time:
// a deferred trigger makes each COMMIT wait for a lock the test holds,
// and the test sees both waiting before it lets them go.
func TestParallelCommitOverlaps(t *testing.T) {
	a, b := twoServers(t, map[string]string{"parallel_commit": "true"})
	ctx := context.Background()
	for _, db := range []*testDB{a, b} {
		db.exec(t, `CREATE FUNCTION wait_for_test() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN PERFORM pg_advisory_xact_lock_shared(42); RETURN NULL; END $$`)
		db.exec(t, `CREATE CONSTRAINT TRIGGER w AFTER INSERT ON t DEFERRABLE INITIALLY DEFERRED
			FOR EACH ROW EXECUTE FUNCTION wait_for_test()`)
	}
	m := newManager(t)
	ca := a.write(t, m, "INSERT INTO public.t VALUES (1)")
	cb := b.write(t, m, "INSERT INTO public.t VALUES (2)")
	held := []*testDB{a, b}
	for _, db := range held {
		db.exec(t, "SELECT pg_advisory_lock(42)")
	}
	var wg sync.WaitGroup
	var err error
	wg.Add(1)
	go func() {
		defer wg.Done()
		err = m.EndTransaction(ctx, true)
	}()
	waiting := func(db *testDB, pid uint32) bool {
		var n int
		_ = db.admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE pid = $1 AND wait_event_type = 'Lock' AND query = 'COMMIT TRANSACTION'`, int32(pid)).Scan(&n)
		return n == 1
	}
	deadline := time.Now().Add(10 * time.Second)
	for !(waiting(a, ca.pg.PID()) && waiting(b, cb.pg.PID())) {
		if time.Now().After(deadline) {
			for _, db := range held {
				db.exec(t, "SELECT pg_advisory_unlock(42)")
			}
			wg.Wait()
			t.Fatal("the two COMMITs never waited at the same time")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for _, db := range held {
		db.exec(t, "SELECT pg_advisory_unlock(42)")
	}
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if got := a.rows(t) + " " + b.rows(t); got != "1 2" {
		t.Errorf("rows %q", got)
	}
}

// A COMMIT that fails after another server committed says which did.
func TestCommitFailureNamesServers(t *testing.T) {
	for _, parallel := range []string{"false", "true"} {
		a, b := twoServers(t, map[string]string{"parallel_commit": parallel})
		b.exec(t, "ALTER TABLE t ADD CONSTRAINT u UNIQUE (a) DEFERRABLE INITIALLY DEFERRED")
		b.exec(t, "INSERT INTO public.t VALUES (2)")
		m := newManager(t)
		a.write(t, m, "INSERT INTO public.t VALUES (1)")
		b.write(t, m, "INSERT INTO public.t VALUES (2)")
		err := m.EndTransaction(context.Background(), true)
		pe := wantError(t, err, "23505", "^duplicate key value violates unique constraint")
		want := "Key (a)=(2) already exists.\nRemote transactions committed on server \"a\"; rolled back on server \"b\"."
		if pe.Detail != want {
			t.Errorf("parallel_commit %s: detail %q, want %q", parallel, pe.Detail, want)
		}
		if got := a.rows(t) + " " + b.rows(t); got != "1 2" {
			t.Errorf("rows %q", got)
		}
		for _, info := range m.Connections() {
			if info.InXact || !info.Valid {
				t.Errorf("after the failed commit: %+v", info)
			}
		}
	}
}

// A server that fails at COMMIT before the others ran theirs leaves them
// rolled back (serial commit).
func TestCommitFailureAbortsTheRest(t *testing.T) {
	a, b := twoServers(t, nil)
	a.exec(t, "ALTER TABLE t ADD CONSTRAINT u UNIQUE (a) DEFERRABLE INITIALLY DEFERRED")
	a.exec(t, "INSERT INTO public.t VALUES (1)")
	m := newManager(t)
	a.write(t, m, "INSERT INTO public.t VALUES (1)")
	b.write(t, m, "INSERT INTO public.t VALUES (2)")
	pe := wantError(t, m.EndTransaction(context.Background(), true), "23505", "duplicate key")
	if pe.Detail != "Key (a)=(1) already exists." {
		t.Errorf("detail %q", pe.Detail)
	}
	if got := a.rows(t) + " " + b.rows(t); got != "1 " {
		t.Errorf("rows %q", got)
	}
}

// A backend killed mid-transaction is 08006 at its next use and at
// COMMIT; the other server rolls back; the next transaction reconnects.
func TestServerLostInTransaction(t *testing.T) {
	a, b := twoServers(t, nil)
	m := newManager(t)
	ctx := context.Background()
	ca := a.write(t, m, "INSERT INTO public.t VALUES (1)")
	b.write(t, m, "INSERT INTO public.t VALUES (2)")
	pid := ca.pg.PID()
	a.terminate(t, pid)
	_, _, err := ca.Exec(ctx, "INSERT INTO public.t VALUES (3)")
	if code := pgerr.Code(err); code != "57P01" && code != pgerr.ConnectionFailure {
		t.Fatalf("command on a killed connection: %v (%s)", err, code)
	}
	_, err = m.Conn(ctx, a.spec)
	wantError(t, err, pgerr.ConnectionFailure, `^connection to server "a" was lost$`)
	wantError(t, m.EndTransaction(ctx, true), pgerr.ConnectionFailure, `^connection to server "a" was lost$`)
	if got := a.rows(t) + " " + b.rows(t); got != " " {
		t.Errorf("rows %q", got)
	}
	c := a.write(t, m, "INSERT INTO public.t VALUES (4)")
	if c.pg.PID() == pid {
		t.Fatal("did not reconnect")
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	if got := a.rows(t); got != "4" {
		t.Errorf("rows %q", got)
	}
}

// A SERIALIZABLE local transaction opens SERIALIZABLE remote ones.
func TestSerializableRemote(t *testing.T) {
	a, _ := twoServers(t, nil)
	m := NewManager(ManagerConfig{Serializable: func() bool { return true }})
	t.Cleanup(func() { _ = m.Close() })
	c := a.conn(t, m)
	rows := queryText(t, c, "SHOW transaction_isolation")
	if *rows[0][0] != "serializable" {
		t.Errorf("remote isolation %q", *rows[0][0])
	}
	if err := m.EndTransaction(context.Background(), true); err != nil {
		t.Fatal(err)
	}
}
