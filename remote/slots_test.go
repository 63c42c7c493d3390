package remote

import (
	"context"
	"fmt"
	"maps"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/google/go-cmp/cmp"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// slot is the test database's spec for connection slot n.
func (db *testDB) slot(n int) ConnSpec {
	spec := db.spec
	spec.Slot = n
	return spec
}

// connSlot gets the connection of slot n, failing the test on error.
func (db *testDB) connSlot(t testing.TB, m *Manager, n int) *Conn {
	t.Helper()
	c, err := m.Conn(context.Background(), db.slot(n))
	if err != nil {
		t.Fatalf("Conn(slot %d): %v", n, err)
	}
	return c
}

// intValues fetches a cursor of one integer column to its end.
func intValues(t testing.TB, cu *Cursor) []string {
	t.Helper()
	rows, _ := fetchAll(t, cu, 100, []types.T{types.Int4T})
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = *r[0]
	}
	return out
}

// snapshotIDs matches the snapshot ids in logged commands.
var snapshotIDs = regexp.MustCompile(`SNAPSHOT '[0-9A-F]+-[0-9A-F]+-[0-9]+'`)

func TestSlotsShareSnapshot(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "ALTER DATABASE "+db.name+" SET log_statement = 'all'")
	db.exec(t, "CREATE TABLE t (a int)")
	db.exec(t, "INSERT INTO t VALUES (1), (2), (3)")
	m := newManager(t)
	ctx := context.Background()
	const query = "SELECT a FROM public.t ORDER BY a"

	// The primary's first query takes the statement's snapshot; a row
	// committed after it must stay invisible to the extra slots, which
	// join later.
	c0 := db.connSlot(t, m, 0)
	cu0 := openCursor(t, c0, query)
	db.exec(t, "INSERT INTO t VALUES (4)")
	c1 := db.connSlot(t, m, 1)
	c2 := db.connSlot(t, m, 2)
	if c1 == c0 || c2 == c0 || c1 == c2 || c1.pg.PID() == c0.pg.PID() || c2.pg.PID() == c1.pg.PID() {
		t.Fatal("slots share a connection")
	}
	if db.connSlot(t, m, 1) != c1 || db.connSlot(t, m, 0) != c0 {
		t.Fatal("a slot gave another connection when asked again")
	}
	want := []string{"1", "2", "3"}
	for i, cu := range []*Cursor{cu0, openCursor(t, c1, query), openCursor(t, c2, query)} {
		if got := intValues(t, cu); !cmp.Equal(got, want) {
			t.Errorf("slot %d sees %v, want %v", i, got, want)
		}
	}
	// The server agrees that the snapshots are the same.
	snapshot := func(c *Conn) string {
		rows := queryText(t, c, "SELECT pg_current_snapshot()::text, current_setting('transaction_isolation')")
		return *rows[0][0] + " " + *rows[0][1]
	}
	if s0, s1, s2 := snapshot(c0), snapshot(c1), snapshot(c2); s0 != s1 || s0 != s2 || !strings.HasSuffix(s0, " repeatable read") {
		t.Errorf("snapshots %q, %q, %q", s0, s1, s2)
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}

	// The next statement sees the row on every slot, also when an extra
	// slot comes first, which opens the primary's transaction itself.
	if c := db.connSlot(t, m, 1); c != c1 {
		t.Fatal("slot 1 not reused")
	}
	if c := db.connSlot(t, m, 0); c != c0 {
		t.Fatal("slot 0 not reused")
	}
	want = []string{"1", "2", "3", "4"}
	for i, c := range []*Conn{c0, c1} {
		if got := intValues(t, openCursor(t, c, query)); !cmp.Equal(got, want) {
			t.Errorf("next statement: slot %d sees %v, want %v", i, got, want)
		}
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}

	// The primary exports its snapshot once per statement; extra slots
	// import it first thing.
	const importSQL = "SET TRANSACTION SNAPSHOT '...'"
	for _, tc := range []struct {
		c    *Conn
		want []string
	}{
		{c0, []string{
			startSQL,
			"DECLARE c1 CURSOR FOR " + query,
			exportSQL,
			"FETCH 100 FROM c1",
			"SELECT pg_current_snapshot()::text, current_setting('transaction_isolation')",
			commitSQL,
			startSQL,
			exportSQL,
			"DECLARE c1 CURSOR FOR " + query,
			"FETCH 100 FROM c1",
			commitSQL,
		}},
		{c1, []string{
			startSQL,
			importSQL,
			"DECLARE c2 CURSOR FOR " + query,
			"FETCH 100 FROM c2",
			"SELECT pg_current_snapshot()::text, current_setting('transaction_isolation')",
			commitSQL,
			startSQL,
			importSQL,
			"DECLARE c2 CURSOR FOR " + query,
			"FETCH 100 FROM c2",
			commitSQL,
		}},
	} {
		got := db.remoteLog(t, tc.c.pg.PID())
		for i := range got {
			got[i] = snapshotIDs.ReplaceAllString(got[i], "SNAPSHOT '...'")
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("remote commands of slot %d (-want +got):\n%s", tc.c.spec.Slot, diff)
		}
	}
	// Both extra slots of the first statement imported the same snapshot.
	imported := func(c *Conn) string {
		for _, s := range db.remoteLog(t, c.pg.PID()) {
			if id := snapshotIDs.FindString(s); id != "" {
				return id
			}
		}
		return ""
	}
	if id1, id2 := imported(c1), imported(c2); id1 == "" || id1 != id2 {
		t.Errorf("slots 1 and 2 imported %q and %q", id1, id2)
	}
}

func TestSlotsFetchConcurrently(t *testing.T) {
	const slots = 4
	const rows = 40000
	db := newTestDB(t)
	db.exec(t, fmt.Sprintf("CREATE TABLE big AS SELECT i AS a FROM generate_series(1, %d) AS i", rows))
	m := newManager(t)
	ctx := context.Background()
	cols := []types.T{types.Int4T, types.Int8T}
	schema := schemaFor(cols)

	// As an Append over partitions would: one goroutine gets the
	// connections and opens the cursors, then each is fetched from in a
	// goroutine of its own.
	cursors := make([]*Cursor, slots)
	for s := range cursors {
		cursors[s] = openCursor(t, db.connSlot(t, m, s),
			fmt.Sprintf("SELECT a, a::int8 * 2 FROM public.big WHERE a %% %d = %d", slots, s))
	}
	// Rows committed once the statement has its snapshot are not seen.
	db.exec(t, fmt.Sprintf("INSERT INTO big SELECT generate_series(%d, %d)", rows+1, rows+1000))

	type result struct {
		rows int64
		sum  int64
		err  error
	}
	results := make([]result, slots)
	var wg sync.WaitGroup
	for s, cu := range cursors {
		wg.Go(func() {
			r := &results[s]
			for {
				b, eof, err := cu.Fetch(ctx, 100, schema, cols)
				if err != nil {
					r.err = err
					return
				}
				if b != nil {
					doubled := b.Column(1).(*array.Int64)
					for i := range doubled.Len() {
						r.sum += doubled.Value(i)
					}
					r.rows += b.NumRows()
					b.Release()
				}
				if eof {
					return
				}
			}
		})
	}
	// The Manager's own goroutine may look at the connections meanwhile.
	for range 20 {
		if infos := m.Connections(); len(infos) != slots {
			t.Errorf("%d connections listed, want %d", len(infos), slots)
		}
		time.Sleep(time.Millisecond)
	}
	wg.Wait()
	for s, r := range results {
		var sum int64
		for a := s; a <= rows; a += slots {
			if a > 0 {
				sum += 2 * int64(a)
			}
		}
		if r.err != nil || r.rows != rows/slots || r.sum != sum {
			t.Errorf("slot %d: %d rows summing to %d (%v), want %d rows summing to %d", s, r.rows, r.sum, r.err, rows/slots, sum)
		}
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}

	// The fetches do run in parallel: four slow fetches take the time of
	// about one.
	cols = []types.T{types.TextT}
	schema = schemaFor(cols)
	for s := range cursors {
		cursors[s] = openCursor(t, db.connSlot(t, m, s), "SELECT pg_sleep(0.5)::text")
	}
	errs := make([]error, slots)
	start := time.Now()
	for s, cu := range cursors {
		wg.Go(func() {
			b, _, err := cu.Fetch(ctx, 10, schema, cols)
			if b != nil {
				b.Release()
			}
			errs[s] = err
		})
	}
	wg.Wait()
	if elapsed := time.Since(start); elapsed > 1500*time.Millisecond {
		t.Errorf("%d fetches of 0.5 s each took %v", slots, elapsed)
	}
	for s, err := range errs {
		if err != nil {
			t.Errorf("slot %d: %v", s, err)
		}
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
}

// commitOrder returns the backends that logged COMMIT TRANSACTION or
// ABORT TRANSACTION, in the order they did.
func (db *testDB) commitOrder(t testing.TB) []uint32 {
	t.Helper()
	data, err := os.ReadFile(db.cluster.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	end := regexp.MustCompile(`\[(\d+)\] LOG:  (?:statement|execute [^:]+): (COMMIT|ABORT) TRANSACTION$`)
	var out []uint32
	for _, line := range strings.Split(string(data), "\n") {
		if sub := end.FindStringSubmatch(line); sub != nil {
			var pid uint32
			fmt.Sscan(sub[1], &pid)
			out = append(out, pid)
		}
	}
	return out
}

func TestSlotsEndStatement(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "ALTER DATABASE "+db.name+" SET log_statement = 'all'")
	m := newManager(t)
	ctx := context.Background()
	cols := []types.T{types.Int4T}

	var pids []uint32
	for _, commit := range []bool{true, false, true} {
		// Slot 2 before slot 1, cursors left open and half read.
		conns := []*Conn{db.connSlot(t, m, 0), db.connSlot(t, m, 2), db.connSlot(t, m, 1)}
		for _, c := range conns {
			cu := openCursor(t, c, "SELECT i FROM generate_series(1, 10) AS i")
			b, _, err := cu.Fetch(ctx, 5, schemaFor(cols), cols)
			if err != nil {
				t.Fatal(err)
			}
			b.Release()
		}
		if pids == nil {
			for _, c := range conns {
				pids = append(pids, c.pg.PID())
			}
		}
		for i, c := range conns {
			if c.pg.PID() != pids[i] {
				t.Fatalf("slot %d reconnected", c.spec.Slot)
			}
		}
		if err := m.EndTransaction(ctx, commit); err != nil {
			t.Fatal(err)
		}
		infos := m.Connections()
		if len(infos) != 3 {
			t.Fatalf("Connections() = %+v", infos)
		}
		for _, info := range infos {
			if info.InXact || !info.Valid {
				t.Errorf("after EndStatement(%v): %+v", commit, info)
			}
			if state := db.backendState(t, info.BackendPID); state != "idle" {
				t.Errorf("after EndStatement(%v) backend %d is %q", commit, info.BackendPID, state)
			}
		}
		// The extra slots end first, in the order the statement opened
		// them, then the primary.
		order := db.commitOrder(t)
		if got, want := order[len(order)-3:], []uint32{pids[1], pids[2], pids[0]}; !cmp.Equal(got, want) {
			t.Errorf("transactions ended by backends %v, want %v", got, want)
		}
	}
}

func TestSlotErrors(t *testing.T) {
	db := newTestDB(t)
	m := newManager(t)
	ctx := context.Background()

	if _, err := m.Conn(ctx, db.slot(-1)); pgerr.Code(err) != pgerr.InternalError {
		t.Fatalf("negative slot: %v", err)
	}

	// The primary's transaction failed before the snapshot was exported:
	// the export fails, and so does the extra slot.
	c0 := db.connSlot(t, m, 0)
	if _, err := c0.QueryText(ctx, "SELECT 1/0"); err == nil {
		t.Fatal("no error")
	}
	_, err := m.Conn(ctx, db.slot(1))
	pe := wantError(t, err, pgerr.InFailedSQLTransaction, "^current transaction is aborted")
	if pe.Context != "remote SQL command: "+exportSQL {
		t.Errorf("CONTEXT %q", pe.Context)
	}
	if err := m.EndTransaction(ctx, false); err != nil {
		t.Fatal(err)
	}
	c1 := db.connSlot(t, m, 1)
	queryText(t, c1, "SELECT 1")
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}

	// The primary's connection died in the statement: extra slots joining
	// it fail rather than take another snapshot.
	c0 = db.connSlot(t, m, 0)
	queryText(t, c0, "SELECT 1")
	db.terminate(t, c0.pg.PID())
	_, err = m.Conn(ctx, db.slot(2))
	if code := pgerr.Code(err); code != "57P01" && code != pgerr.ConnectionFailure {
		t.Fatalf("joining a killed primary: %v (%s)", err, code)
	}
	_, err = m.Conn(ctx, db.slot(1))
	wantError(t, err, pgerr.ConnectionFailure, `^connection to server "srv" was lost$`)
	if err := m.EndTransaction(ctx, false); err != nil {
		t.Fatal(err)
	}
	// The next statement reconnects the primary; slot 1 stays.
	if c := db.connSlot(t, m, 1); c != c1 {
		t.Fatal("slot 1 reconnected")
	}
	if c := db.connSlot(t, m, 0); c == c0 {
		t.Fatal("primary not reconnected")
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	if n := len(m.Connections()); n != 2 {
		t.Fatalf("%d connections, want 2", n)
	}
}

func TestSlotChangedOptions(t *testing.T) {
	db := newTestDB(t)
	m := newManager(t)
	ctx := context.Background()
	appName := func(c *Conn) string { return *queryText(t, c, "SHOW application_name")[0][0] }

	// Within a statement an extra slot connects as its primary did, since
	// the snapshot lives there; both are replaced afterwards.
	db.connSlot(t, m, 0)
	changed := db.slot(1)
	changed.Options = maps.Clone(changed.Options)
	changed.Options["application_name"] = "changed"
	c1, err := m.Conn(ctx, changed)
	if err != nil {
		t.Fatal(err)
	}
	if got := appName(c1); got != "pgfed" {
		t.Errorf("extra slot's application_name %q", got)
	}
	for _, info := range m.Connections() {
		if info.Valid {
			t.Errorf("still valid: %+v", info)
		}
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	if n := len(m.Connections()); n != 0 {
		t.Fatalf("%d invalidated connections kept", n)
	}
	if c1, err = m.Conn(ctx, changed); err != nil {
		t.Fatal(err)
	}
	c0 := db.connSlot(t, m, 0) // the old options again: invalidates both
	if appName(c1) != "changed" || appName(c0) != "changed" {
		t.Error("the changed options did not take effect")
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
}

func TestSlotCancel(t *testing.T) {
	db := newTestDB(t)
	m := newManager(t)
	cols := []types.T{types.TextT}
	schema := schemaFor(cols)

	// A cancelled fetch on an extra slot: the remote command is cancelled
	// and the connection stays, as does the primary.
	c0 := db.connSlot(t, m, 0)
	c1 := db.connSlot(t, m, 1)
	pid := c1.pg.PID()
	cu := openCursor(t, c1, "SELECT pg_sleep(10)::text")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, _, err := cu.Fetch(ctx, 100, schema, cols)
	wantError(t, err, pgerr.QueryCanceled, "^canceling statement due to user request$")
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("cancel took %v", elapsed)
	}
	if c1.broken() || c1.pg.PID() != pid {
		t.Fatal("the connection did not survive the cancel")
	}
	queryText(t, c0, "SELECT 1")
	if err := m.EndTransaction(ctx, false); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*Conn{c0, c1} {
		if state := db.backendState(t, c.pg.PID()); state != "idle" {
			t.Fatalf("slot %d's backend %q after the abort", c.spec.Slot, state)
		}
	}

	// A fetch running on an extra slot when the statement is aborted
	// gets cancelled.
	if db.connSlot(t, m, 0) != c0 {
		t.Fatal("primary reconnected")
	}
	if db.connSlot(t, m, 1) != c1 {
		t.Fatal("slot 1 reconnected after a cancel")
	}
	cu = openCursor(t, c1, "SELECT pg_sleep(10)::text")
	done := make(chan error, 1)
	go func() {
		_, _, err := cu.Fetch(context.Background(), 100, schema, cols)
		done <- err
	}()
	waitFor(t, "the fetch to start", func() bool {
		var running bool
		err := db.admin.QueryRow(context.Background(),
			"SELECT state = 'active' AND query LIKE 'FETCH%' FROM pg_stat_activity WHERE pid = $1", int32(pid)).Scan(&running)
		return err == nil && running
	})
	start = time.Now()
	if err := m.EndTransaction(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Errorf("abort took %v", elapsed)
	}
	wantError(t, <-done, pgerr.QueryCanceled, "^canceling statement due to user request$")
	for _, info := range m.Connections() {
		if info.InXact || !info.Valid || db.backendState(t, info.BackendPID) != "idle" {
			t.Errorf("after the abort: %+v", info)
		}
	}
}

func TestSlotsDisconnect(t *testing.T) {
	db := newTestDB(t)
	m := newManager(t)
	ctx := context.Background()
	other := db.spec
	other.Key, other.Server = "srv2/public", "srv2"
	for s := range 3 {
		db.connSlot(t, m, s)
	}
	other.Slot = 1
	if _, err := m.Conn(ctx, other); err != nil { // opens slot 0 too
		t.Fatal(err)
	}
	infos := m.Connections()
	if len(infos) != 5 {
		t.Fatalf("Connections() = %+v", infos)
	}
	if m.DisconnectAll() || m.Disconnect("srv") || len(m.Connections()) != 5 {
		t.Fatal("closed a connection in use")
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}

	// Connections are ordered by server: srv's three come first.
	if !m.Disconnect("srv") || m.Disconnect("srv") {
		t.Fatal("Disconnect results")
	}
	for _, info := range infos[:3] {
		waitFor(t, "the backend to exit", func() bool { return db.backendState(t, info.BackendPID) == "" })
	}
	if left := m.Connections(); len(left) != 2 || left[0].Server != "srv2" || left[1].Server != "srv2" {
		t.Fatalf("Connections() = %+v", left)
	}
	// Reconnecting works, for every slot.
	for s := range 3 {
		db.connSlot(t, m, s)
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	if !m.DisconnectAll() || len(m.Connections()) != 0 {
		t.Fatal("DisconnectAll")
	}

	// Close closes every slot, also in a statement.
	for s := range 3 {
		db.connSlot(t, m, s)
	}
	infos = m.Connections()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		waitFor(t, "the backend to exit", func() bool { return db.backendState(t, info.BackendPID) == "" })
	}
	if len(m.Connections()) != 0 {
		t.Fatal("connections left after Close")
	}
}
