package remote

import (
	"context"
	"fmt"
	"maps"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

func TestConnectionSetup(t *testing.T) {
	db := newTestDB(t)
	// Defaults of the remote role and database must not leak through.
	db.exec(t, "ALTER DATABASE "+db.name+" SET timezone = 'America/New_York'")
	db.exec(t, "ALTER DATABASE "+db.name+" SET datestyle = 'SQL, DMY'")
	db.exec(t, "ALTER DATABASE "+db.name+" SET extra_float_digits = 0")
	db.exec(t, "ALTER DATABASE "+db.name+" SET search_path = public")
	m := newManager(t)
	c := db.conn(t, m)
	for setting, want := range map[string]string{
		"TimeZone":    "UTC",
		"search_path": "pg_catalog",
		// The startup message's setting replaces the database's whole.
		"DateStyle":             "ISO, MDY",
		"IntervalStyle":         "postgres",
		"extra_float_digits":    "3",
		"application_name":      "pgfed",
		"client_encoding":       "UTF8",
		"transaction_isolation": "repeatable read",
	} {
		rows := queryText(t, c, "SHOW "+setting)
		if got := *rows[0][0]; got != want {
			t.Errorf("%s = %q, want %q", setting, got, want)
		}
	}
	if err := m.EndTransaction(context.Background(), true); err != nil {
		t.Fatal(err)
	}

	// application_name and options are passed on.
	spec := db.spec
	spec.Key = "other"
	spec.Options = maps.Clone(spec.Options)
	spec.Options["application_name"] = "it's mine"
	spec.Options["options"] = "-c work_mem=1234kB"
	c, err := m.Conn(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	rows := queryText(t, c, "SELECT current_setting('application_name'), current_setting('work_mem')")
	if *rows[0][0] != "it's mine" || *rows[0][1] != "1234kB" {
		t.Errorf("application_name, work_mem = %s", showRows(rows))
	}
	if err := m.EndTransaction(context.Background(), false); err != nil {
		t.Fatal(err)
	}
}

func TestConnectionReuse(t *testing.T) {
	db := newTestDB(t)
	m := newManager(t)
	ctx := context.Background()
	c1 := db.conn(t, m)
	c2 := db.conn(t, m)
	if c1 != c2 {
		t.Fatal("two Conn calls with one key gave two connections")
	}
	other := db.spec
	other.Key = "srv/another-mapping"
	c3, err := m.Conn(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	if c3 == c1 || c3.pg.PID() == c1.pg.PID() {
		t.Fatal("another key shares the connection")
	}
	infos := m.Connections()
	if len(infos) != 2 || !infos[0].InXact || !infos[1].InXact || !infos[0].Valid || infos[0].User != "postgres" {
		t.Fatalf("Connections() = %+v", infos)
	}
	for _, commit := range []bool{true, false} {
		if err := m.EndTransaction(ctx, commit); err != nil {
			t.Fatal(err)
		}
		for _, info := range m.Connections() {
			if info.InXact {
				t.Errorf("connection %d still in a transaction", info.BackendPID)
			}
			if state := db.backendState(t, info.BackendPID); state != "idle" {
				t.Errorf("after EndStatement(%v) the remote backend is %q", commit, state)
			}
		}
		// The next statement gets the same connections back.
		if c := db.conn(t, m); c != c1 {
			t.Fatal("the connection was not reused")
		}
		if c, _ := m.Conn(ctx, other); c != c3 {
			t.Fatal("the connection was not reused")
		}
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
}

func TestCommandSequence(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "ALTER DATABASE "+db.name+" SET log_statement = 'all'")
	m := newManager(t)
	ctx := context.Background()
	cols := []types.T{types.Int4T}

	c := db.conn(t, m)
	cu := openCursor(t, c, "SELECT 1")
	fetchAll(t, cu, 100, cols)
	if err := cu.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	c = db.conn(t, m)
	cu1 := openCursor(t, c, "SELECT 1")
	cu2 := openCursor(t, c, "SELECT 2")
	fetchAll(t, cu2, 10, cols)
	if err := m.EndTransaction(ctx, false); err != nil {
		t.Fatal(err)
	}
	if err := cu1.Close(ctx); err != nil { // after the statement: nothing to send
		t.Fatal(err)
	}
	// The session settings went in the startup message; START goes with
	// the first command, CLOSE would go with the next one, and COMMIT
	// closes the cursor anyway.
	want := []string{
		"START TRANSACTION ISOLATION LEVEL REPEATABLE READ",
		"DECLARE c1 CURSOR FOR SELECT 1",
		"FETCH 100 FROM c1",
		"COMMIT TRANSACTION",
		"START TRANSACTION ISOLATION LEVEL REPEATABLE READ",
		"DECLARE c1 CURSOR FOR SELECT 1",
		"DECLARE c2 CURSOR FOR SELECT 2",
		"FETCH 10 FROM c2",
		"ABORT TRANSACTION",
	}
	if diff := cmp.Diff(want, db.remoteLog(t, c.pg.PID())); diff != "" {
		t.Fatalf("remote commands (-want +got):\n%s", diff)
	}
	// START+DECLARE, FETCH, COMMIT; START+DECLARE, DECLARE, FETCH, ABORT.
	if got := c.roundTrips.Load(); got != 7 {
		t.Errorf("%d round trips, want 7", got)
	}
}

func TestCommitAndAbort(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "CREATE TABLE t (a int, CONSTRAINT u UNIQUE (a) DEFERRABLE INITIALLY DEFERRED)")
	m := newManager(t)
	ctx := context.Background()
	count := func(a int) int {
		var n int
		if err := db.admin.QueryRow(ctx, "SELECT count(*) FROM t WHERE a = $1", a).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	c := db.conn(t, m)
	queryText(t, c, "INSERT INTO public.t VALUES ($1) RETURNING a", 1)
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	if count(1) != 1 {
		t.Fatal("committed row not there")
	}

	c = db.conn(t, m)
	queryText(t, c, "INSERT INTO public.t VALUES ($1) RETURNING a", 2)
	if err := m.EndTransaction(ctx, false); err != nil {
		t.Fatal(err)
	}
	if count(2) != 0 {
		t.Fatal("aborted row is there")
	}

	// A COMMIT the server refuses (deferred unique check): the error is
	// the server's, the connection idle and kept.
	c = db.conn(t, m)
	pid := c.pg.PID()
	queryText(t, c, "INSERT INTO public.t VALUES (1) RETURNING a")
	err := m.EndTransaction(ctx, true)
	pe := wantError(t, err, "23505", `^duplicate key value violates unique constraint "u"$`)
	if pe.Context != "remote SQL command: COMMIT TRANSACTION" || pe.Detail != "Key (a)=(1) already exists." {
		t.Errorf("context %q, detail %q", pe.Context, pe.Detail)
	}
	if infos := m.Connections(); len(infos) != 1 || infos[0].BackendPID != pid || db.backendState(t, pid) != "idle" {
		t.Fatalf("after a failed COMMIT: %+v, %q", infos, db.backendState(t, pid))
	}

	// Committing with a cancelled context rolls back instead, keeping the
	// connection.
	c = db.conn(t, m)
	queryText(t, c, "INSERT INTO public.t VALUES ($1) RETURNING a", 3)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	wantError(t, m.EndTransaction(cancelled, true), pgerr.QueryCanceled, "^canceling statement due to user request$")
	if count(3) != 0 || db.backendState(t, pid) != "idle" || len(m.Connections()) != 1 {
		t.Fatal("after a cancelled commit")
	}

	// A transaction that wrote and then ignored a remote error cannot
	// commit; one that only read ends quietly.
	c = db.conn(t, m)
	if _, _, err := c.Exec(ctx, "INSERT INTO public.t VALUES (4)"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.QueryText(ctx, "SELECT 1/0"); err == nil {
		t.Fatal("no error")
	}
	wantError(t, m.EndTransaction(ctx, true), pgerr.InFailedSQLTransaction, "because it was aborted")
	if db.backendState(t, pid) != "idle" || count(4) != 0 {
		t.Fatal("connection not idle, or the write committed")
	}
	c = db.conn(t, m)
	if _, err := c.QueryText(ctx, "SELECT 1/0"); err == nil {
		t.Fatal("no error")
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	if db.backendState(t, pid) != "idle" {
		t.Fatal("connection not idle")
	}
}

// closedPort returns a local TCP port nobody listens on.
func closedPort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

func TestUnreachableServer(t *testing.T) {
	m := newManager(t)
	spec := ConnSpec{
		Key:     "down/public",
		Server:  "down",
		Options: map[string]string{"host": "127.0.0.1", "port": strconv.Itoa(closedPort(t)), "dbname": "x", "sslmode": "disable"},
		User:    map[string]string{"user": "someone", "password": testPassword},
	}
	start := time.Now()
	_, err := m.Conn(context.Background(), spec)
	pe := wantError(t, err, pgerr.SQLClientUnableToEstablish, `^could not connect to server "down"$`)
	if !strings.Contains(pe.Detail, "refused") {
		t.Errorf("DETAIL %q does not give the cause", pe.Detail)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %v", time.Since(start))
	}
	if s := fmt.Sprintf("%+v %#v", err, pe); strings.Contains(s, testPassword) {
		t.Fatalf("the password shows in the error: %s", s)
	}
	if len(m.Connections()) != 0 {
		t.Fatal("a failed connection is cached")
	}

	// Bad option values are the same error, never showing secrets.
	for opt, val := range map[string]string{
		"sslcrl":          "/some/file",
		"keepalives_idle": "soon",
		"hostaddr":        "not-an-address",
		"sslmode":         "sometimes",
	} {
		bad := spec
		bad.Options = maps.Clone(spec.Options)
		bad.Options[opt] = val
		_, err := m.Conn(context.Background(), bad)
		pe := wantError(t, err, pgerr.SQLClientUnableToEstablish, `^could not connect to server "down"$`)
		if pe.Detail == "" || strings.Contains(pe.Detail, testPassword) {
			t.Errorf("%s=%s: DETAIL %q", opt, val, pe.Detail)
		}
	}
}

func TestConnectOptions(t *testing.T) {
	db := newTestDB(t)
	m := newManager(t)
	ctx := context.Background()
	for i, opts := range []map[string]string{
		// hostaddr alone, and hostaddr answering for a host name that
		// does not resolve.
		{"host": "", "hostaddr": "127.0.0.1"},
		{"host": "db.invalid", "hostaddr": "127.0.0.1"},
		{"keepalives": "1", "keepalives_idle": "30", "keepalives_interval": "5", "keepalives_count": "3"},
		{"keepalives": "0", "connect_timeout": "10"},
		{"sslcompression": "1", "gssencmode": "disable", "tcp_user_timeout": "0", "fetch_size": "7", "extensions": "x"},
	} {
		spec := db.spec
		spec.Key = fmt.Sprint("opts-", i)
		spec.Options = maps.Clone(spec.Options)
		maps.Copy(spec.Options, opts)
		c, err := m.Conn(ctx, spec)
		if err != nil {
			t.Fatalf("%v: %v", opts, err)
		}
		queryText(t, c, "SELECT 1")
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
}

func TestIsConnOption(t *testing.T) {
	for name, want := range map[string]bool{
		"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true, "password": true,
		"sslmode": true, "application_name": true, "connect_timeout": true, "options": true,
		"keepalives_idle": true, "sslcrl": true, "target_session_attrs": true,
		"fetch_size": false, "async_capable": false, "use_remote_estimate": false, "updatable": false,
		"extensions": false, "batch_size": false, "fdw_startup_cost": false, "fdw_tuple_cost": false,
		"keep_connections": false, "parallel_commit": false, "parallel_abort": false,
		"client_encoding": false, "fallback_application_name": false, "replication": false,
		"schema_name": false, "HOST": false,
	} {
		if got := IsConnOption(name); got != want {
			t.Errorf("IsConnOption(%q) = %v", name, got)
		}
	}
	for name, want := range map[string]bool{"user": true, "password": true, "sslpassword": true, "host": false, "sslcert": false} {
		if got := IsUserMappingOnlyOption(name); got != want {
			t.Errorf("IsUserMappingOnlyOption(%q) = %v", name, got)
		}
	}
}

func TestKilledBackend(t *testing.T) {
	db := newTestDB(t)
	m := newManager(t)
	ctx := context.Background()
	cols := []types.T{types.Int4T}

	// Killed while idle: the next statement reconnects.
	c := db.conn(t, m)
	pid := c.pg.PID()
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	db.terminate(t, pid)
	c = db.conn(t, m)
	fetchAll(t, openCursor(t, c, "SELECT 1"), 10, cols)
	if c.pg.PID() == pid {
		t.Fatal("did not reconnect")
	}

	// Killed inside the remote transaction: the statement fails, also
	// when it asks for the connection again, and the next one reconnects.
	pid = c.pg.PID()
	db.terminate(t, pid)
	cu, err := c.OpenCursor(ctx, "SELECT 2")
	if err == nil {
		_, _, err = cu.Fetch(ctx, 10, schemaFor(cols), cols)
	}
	if code := pgerr.Code(err); code != "57P01" && code != pgerr.ConnectionFailure {
		t.Fatalf("command on a killed connection: %v (%s)", err, code)
	}
	_, err = m.Conn(ctx, db.spec)
	wantError(t, err, pgerr.ConnectionFailure, `^connection to server "srv" was lost$`)
	if infos := m.Connections(); len(infos) != 1 || infos[0].Valid {
		t.Fatalf("Connections() = %+v", infos)
	}
	if err := m.EndTransaction(ctx, false); err != nil {
		t.Fatal(err)
	}
	c = db.conn(t, m)
	fetchAll(t, openCursor(t, c, "SELECT 3"), 10, cols)
	if c.pg.PID() == pid {
		t.Fatal("did not reconnect")
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
}

func TestDisconnect(t *testing.T) {
	db := newTestDB(t)
	m := newManager(t)
	ctx := context.Background()
	other := db.spec
	other.Key, other.Server = "srv2/public", "srv2"
	db.conn(t, m)
	if _, err := m.Conn(ctx, other); err != nil {
		t.Fatal(err)
	}
	// Connections in use stay.
	if m.DisconnectAll() || m.Disconnect("srv") || len(m.Connections()) != 2 {
		t.Fatal("closed a connection in use")
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	pid := m.Connections()[0].BackendPID
	if !m.Disconnect("srv") || m.Disconnect("srv") || m.Disconnect("nosuch") {
		t.Fatal("Disconnect results")
	}
	if infos := m.Connections(); len(infos) != 1 || infos[0].Server != "srv2" {
		t.Fatalf("Connections() = %+v", infos)
	}
	waitFor(t, "the backend to exit", func() bool { return db.backendState(t, pid) == "" })
	if !m.DisconnectAll() || m.DisconnectAll() || len(m.Connections()) != 0 {
		t.Fatal("DisconnectAll")
	}
	// Connecting again works.
	db.conn(t, m)
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
}

func TestChangedOptions(t *testing.T) {
	db := newTestDB(t)
	m := newManager(t)
	ctx := context.Background()
	c := db.conn(t, m)
	pid := c.pg.PID()

	// Inside the statement the connection stays, marked invalid...
	changed := db.spec
	changed.Options = maps.Clone(db.spec.Options)
	changed.Options["application_name"] = "changed"
	if c2, err := m.Conn(ctx, changed); err != nil || c2 != c {
		t.Fatalf("Conn with changed options inside the statement: %v", err)
	}
	if infos := m.Connections(); infos[0].Valid {
		t.Fatal("connection still valid")
	}
	// ... and is replaced afterwards.
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	if len(m.Connections()) != 0 {
		t.Fatal("invalidated connection kept")
	}
	c, err := m.Conn(ctx, changed)
	if err != nil {
		t.Fatal(err)
	}
	if rows := queryText(t, c, "SHOW application_name"); *rows[0][0] != "changed" || c.pg.PID() == pid {
		t.Fatalf("application_name %s", *rows[0][0])
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	// Options that are not libpq's do not matter.
	changed.Options["fetch_size"] = "5000"
	if c2, err := m.Conn(ctx, changed); err != nil || c2 != c {
		t.Fatalf("fetch_size change reconnected: %v", err)
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	// Outside a statement, a change replaces the connection at once.
	changed.Options["application_name"] = "again"
	if c2, err := m.Conn(ctx, changed); err != nil || c2 == c {
		t.Fatalf("changed options did not reconnect: %v", err)
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
}

func TestCancel(t *testing.T) {
	db := newTestDB(t)
	m := newManager(t)
	cols := []types.T{types.TextT}
	schema := schemaFor(cols)

	c := db.conn(t, m)
	pid := c.pg.PID()
	cu := openCursor(t, c, "SELECT pg_sleep(10)::text")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, _, err := cu.Fetch(ctx, 100, schema, cols)
	elapsed := time.Since(start)
	pe := wantError(t, err, pgerr.QueryCanceled, "^canceling statement due to user request$")
	if pe.Context != "" {
		t.Errorf("CONTEXT %q", pe.Context)
	}
	if elapsed > 2*time.Second {
		t.Errorf("cancel took %v", elapsed)
	}
	if c.broken() || c.pg.PID() != pid {
		t.Fatal("the connection did not survive the cancel")
	}
	// The statement's end aborts, with the cancelled context too.
	if err := m.EndTransaction(ctx, false); err != nil {
		t.Fatal(err)
	}
	if state := db.backendState(t, pid); state != "idle" {
		t.Fatalf("remote backend %q after the abort", state)
	}
	c = db.conn(t, m)
	if c.pg.PID() != pid {
		t.Fatal("reconnected after a cancel")
	}
	fetchAll(t, openCursor(t, c, "SELECT 'ok'"), 10, cols)

	// A statement_timeout is the context's cause, returned as is.
	cu = openCursor(t, c, "SELECT pg_sleep(10)::text")
	ctx, cancel = context.WithTimeoutCause(context.Background(), 200*time.Millisecond, pgerr.Timeout())
	defer cancel()
	_, _, err = cu.Fetch(ctx, 100, schema, cols)
	if pe, _ := pgerr.As(err); pe == nil || *pe != *pgerr.Timeout() {
		t.Fatalf("got %v, want the statement timeout", err)
	}
	if err := m.EndTransaction(context.Background(), false); err != nil {
		t.Fatal(err)
	}

	// An already cancelled context: nothing is sent.
	c = db.conn(t, m)
	cu = openCursor(t, c, "SELECT 'x'")
	_, _, err = cu.Fetch(ctx, 100, schema, cols)
	if pe, _ := pgerr.As(err); pe == nil || *pe != *pgerr.Timeout() {
		t.Fatalf("got %v, want the statement timeout", err)
	}
	if _, err := m.Conn(ctx, db.spec); pgerr.Code(err) != pgerr.QueryCanceled {
		t.Fatalf("Conn with a done context: %v", err)
	}
	fetchAll(t, cu, 100, cols)
	if err := m.EndTransaction(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	if c.pg.PID() != pid || db.backendState(t, pid) != "idle" {
		t.Fatal("connection lost")
	}
}

func TestAbortCancelsCommandInFlight(t *testing.T) {
	// A fetch running in another goroutine (an asynchronous scan) when
	// the statement is aborted gets cancelled on the remote server.
	db := newTestDB(t)
	m := newManager(t)
	cols := []types.T{types.TextT}
	c := db.conn(t, m)
	pid := c.pg.PID()
	cu := openCursor(t, c, "SELECT pg_sleep(10)::text")
	done := make(chan error, 1)
	go func() {
		_, _, err := cu.Fetch(context.Background(), 100, schemaFor(cols), cols)
		done <- err
	}()
	waitFor(t, "the fetch to start", func() bool {
		var running bool
		err := db.admin.QueryRow(context.Background(),
			"SELECT state = 'active' AND query LIKE 'FETCH%' FROM pg_stat_activity WHERE pid = $1", int32(pid)).Scan(&running)
		return err == nil && running
	})
	start := time.Now()
	if err := m.EndTransaction(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 3*time.Second {
		t.Errorf("abort took %v", time.Since(start))
	}
	err := <-done
	pe := wantError(t, err, pgerr.QueryCanceled, "^canceling statement due to user request$")
	if pe.Context != "remote SQL command: SELECT pg_sleep(10)::text" {
		t.Errorf("CONTEXT %q", pe.Context)
	}
	if state := db.backendState(t, pid); state != "idle" {
		t.Fatalf("remote backend %q", state)
	}
	if c := db.conn(t, m); c.pg.PID() != pid {
		t.Fatal("reconnected")
	}
	if err := m.EndTransaction(context.Background(), true); err != nil {
		t.Fatal(err)
	}
}

func TestUseAfterStatement(t *testing.T) {
	db := newTestDB(t)
	m := newManager(t)
	ctx := context.Background()
	c := db.conn(t, m)
	cu := openCursor(t, c, "SELECT 1")
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	cols := []types.T{types.Int4T}
	if _, _, err := cu.Fetch(ctx, 10, schemaFor(cols), cols); pgerr.Code(err) != pgerr.InternalError {
		t.Fatalf("fetch from a cursor of an ended statement: %v", err)
	}
	if _, err := c.OpenCursor(ctx, "SELECT 1"); pgerr.Code(err) != pgerr.InternalError {
		t.Fatalf("cursor outside a statement: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if len(m.Connections()) != 0 {
		t.Fatal("connections left after Close")
	}
}
