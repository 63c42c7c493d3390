package remote

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgx/v5"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/pgtest"
	"github.com/pgfed/pgfed/types"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.WrapMain(m)) }

// testDB is a fresh database on the shared cluster, with a ConnSpec for it
// and an administrative connection for setting up data and watching the
// remote side.
type testDB struct {
	cluster *pgtest.Cluster
	name    string
	spec    ConnSpec
	admin   *pgx.Conn
}

var dbCounter atomic.Int32

// testPassword is in every spec, so tests can check it never shows up in
// errors (the test cluster trusts everyone, so it is never checked).
const testPassword = "pw-s3cret-never-shown"

func newTestDB(t testing.TB) *testDB {
	t.Helper()
	cluster := pgtest.Shared(t)
	ctx := context.Background()
	name := fmt.Sprintf("remote_%d", dbCounter.Add(1))
	if err := cluster.CreateDatabase(ctx, name); err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, cluster.DSN(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close(context.Background()) })
	return &testDB{
		cluster: cluster,
		name:    name,
		admin:   admin,
		spec: ConnSpec{
			Key:    "srv/" + name,
			Server: "srv",
			Options: map[string]string{
				"host": "127.0.0.1", "port": strconv.Itoa(cluster.Port()), "dbname": name,
				"sslmode": "disable", "fetch_size": "100", "use_remote_estimate": "true",
			},
			User: map[string]string{"user": "postgres", "password": testPassword},
		},
	}
}

// exec runs setup SQL through the administrative connection.
func (db *testDB) exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	if _, err := db.admin.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// backendState returns pg_stat_activity's state of a backend ("" when it
// does not exist).
func (db *testDB) backendState(t testing.TB, pid uint32) string {
	t.Helper()
	var state string
	err := db.admin.QueryRow(context.Background(),
		"SELECT coalesce(state, '') FROM pg_stat_activity WHERE pid = $1", int32(pid)).Scan(&state)
	if err == pgx.ErrNoRows {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// terminate kills a backend as pg_terminate_backend does, waiting until
// it is gone.
func (db *testDB) terminate(t testing.TB, pid uint32) {
	t.Helper()
	var ok bool
	err := db.admin.QueryRow(context.Background(), "SELECT pg_terminate_backend($1, 5000)", int32(pid)).Scan(&ok)
	if err != nil || !ok {
		t.Fatalf("pg_terminate_backend(%d): %v %v", pid, ok, err)
	}
}

func newManager(t testing.TB) *Manager {
	m := NewManager(ManagerConfig{})
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// conn gets the spec's connection, failing the test on error.
func (db *testDB) conn(t testing.TB, m *Manager) *Conn {
	t.Helper()
	c, err := m.Conn(context.Background(), db.spec)
	if err != nil {
		t.Fatalf("Conn: %v", err)
	}
	return c
}

// schemaFor builds the schema Fetch gets for local types cols.
func schemaFor(cols []types.T) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, t := range cols {
		fields[i] = arrow.Field{Name: "c" + strconv.Itoa(i), Type: t.ArrowType(), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// fetchAll reads a cursor to its end in fetches of n rows, returning the
// rows as text (nil = NULL) and the row counts of the fetches.
func fetchAll(t testing.TB, cu *Cursor, n int, cols []types.T) (rows [][]*string, counts []int) {
	t.Helper()
	schema := schemaFor(cols)
	for {
		b, eof, err := cu.Fetch(context.Background(), n, schema, cols)
		if err != nil {
			t.Fatalf("Fetch: %v", err)
		}
		got := 0
		if b != nil {
			if !b.Schema().Equal(schema) {
				t.Fatalf("batch schema %s, want %s", b.Schema(), schema)
			}
			got = int(b.NumRows())
			rows = append(rows, batchText(t, b, cols)...)
			b.Release()
		}
		counts = append(counts, got)
		if got == 0 && b != nil {
			t.Fatalf("empty batch returned instead of nil")
		}
		if eof != (got < n) {
			t.Fatalf("eof = %v after %d of %d rows", eof, got, n)
		}
		if eof {
			return rows, counts
		}
	}
}

// batchText renders a batch's values with the types package's output
// functions, which write what PostgreSQL would.
func batchText(t testing.TB, b arrow.RecordBatch, cols []types.T) [][]*string {
	t.Helper()
	out := make([][]*string, b.NumRows())
	for r := range out {
		out[r] = make([]*string, len(cols))
	}
	for c, typ := range cols {
		arr := b.Column(c)
		if arr.Len() != int(b.NumRows()) {
			t.Fatalf("column %d has %d values for %d rows", c, arr.Len(), b.NumRows())
		}
		for r := 0; r < arr.Len(); r++ {
			if arr.IsNull(r) {
				continue
			}
			var s string
			if typ.ID == types.Numeric {
				s = arr.(*array.String).Value(r) // already numeric_out's text
			} else {
				s = types.Format(typ, datumAt(t, arr, r))
			}
			out[r][c] = &s
		}
	}
	return out
}

func datumAt(t testing.TB, arr arrow.Array, i int) any {
	switch a := arr.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.Date32:
		return int32(a.Value(i))
	case *array.Timestamp:
		return int64(a.Value(i))
	}
	t.Fatalf("unexpected array type %T", arr)
	return nil
}

// strs turns literal rows into the [][]*string form; "\x00" marks NULL.
func strs(rows ...[]string) [][]*string {
	out := make([][]*string, len(rows))
	for i, r := range rows {
		out[i] = make([]*string, len(r))
		for j := range r {
			if r[j] != "\x00" {
				out[i][j] = &r[j]
			}
		}
	}
	return out
}

func showRows(rows [][]*string) string {
	var b strings.Builder
	for _, r := range rows {
		for j, v := range r {
			if j > 0 {
				b.WriteString(" | ")
			}
			if v == nil {
				b.WriteString("NULL")
			} else {
				b.WriteString(*v)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// wantError checks err's SQLSTATE and message (a regexp).
func wantError(t testing.TB, err error, code, message string) *pgerr.Error {
	t.Helper()
	pe, ok := pgerr.As(err)
	if !ok {
		t.Fatalf("got %T %v, want *pgerr.Error %s", err, err, code)
	}
	if pe.Code != code || !regexp.MustCompile(message).MatchString(pe.Message) {
		t.Fatalf("got %s %q (detail %q), want %s %q", pe.Code, pe.Message, pe.Detail, code, message)
	}
	return pe
}

// remoteLog returns the statements the server logged for backend pid, in
// order (the test database logs every statement).
func (db *testDB) remoteLog(t testing.TB, pid uint32) []string {
	t.Helper()
	out, err := db.cluster.Statements(pid)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// waitFor polls cond for up to 10 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
