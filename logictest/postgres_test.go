package logictest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"

	"github.com/pgfed/pgfed/pgtest"
)

var rewrite = flag.Bool("rewrite", false,
	"rewrite the expected results of testdata/logic/*.test from PostgreSQL instead of checking them")

// corpusDir holds the logic-test corpus shared by all engines.
const corpusDir = "../testdata/logic"

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(pgtest.WrapMain(m))
}

var databaseCounter atomic.Int64

// freshDatabase creates a new database on the shared cluster, named after
// hint for easier debugging, and returns a connection to it that is closed
// when the test ends.
func freshDatabase(t *testing.T, hint string) *pgx.Conn {
	t.Helper()
	cluster := pgtest.Shared(t)
	name := fmt.Sprintf("logic_%d_%s", databaseCounter.Add(1), regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(hint), "_"))
	if len(name) > 63 { // PostgreSQL's identifier limit
		name = name[:63]
	}
	ctx := context.Background()
	if err := cluster.CreateDatabase(ctx, name); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, cluster.DSN(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// corpusFiles lists the corpus files; names starting with "_" are examples
// or work in progress and are left out.
func corpusFiles(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(corpusDir, "*.test"))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, path := range paths {
		if !strings.HasPrefix(filepath.Base(path), "_") {
			files = append(files, path)
		}
	}
	return files
}

// TestCorpusOnPostgres runs every corpus file on PostgreSQL, each in a fresh
// database, proving that the corpus states what PostgreSQL really does.
// With -rewrite it first rewrites each file's expectations from PostgreSQL
// (then still runs it, which catches results that are not deterministic).
func TestCorpusOnPostgres(t *testing.T) {
	files := corpusFiles(t)
	if len(files) == 0 {
		t.Skipf("no *.test files in %s", corpusDir)
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := PostgresDB(freshDatabase(t, strings.TrimSuffix(name, ".test")))
			if *rewrite {
				if err := Rewrite(path, db, PostgresEngine()); err != nil {
					t.Fatal(err)
				}
				// Run again on a clean database: the rewrite run changed it.
				db = PostgresDB(freshDatabase(t, strings.TrimSuffix(name, ".test")))
			}
			Run(t, path, db, PostgresEngine())
		})
	}
}

func TestPostgresDB(t *testing.T) {
	db := PostgresDB(freshDatabase(t, "adapter"))
	ctx := context.Background()

	columns, rows, err := db.Query(ctx, "CREATE TABLE t (a int)")
	if err != nil || columns != nil || rows != nil {
		t.Errorf("CREATE TABLE: columns %#v, rows %v, err %v; want nil, nil, nil", columns, rows, err)
	}
	columns, rows, err = db.Query(ctx, "SELECT FROM t")
	if err != nil || columns == nil || len(columns) != 0 {
		t.Errorf("SELECT FROM t: columns %#v, err %v; want empty non-nil columns", columns, err)
	}

	columns, rows, err = db.Query(ctx, `SELECT 1.50::numeric AS n, 0.1::float8 + 0.2 AS f, NULL AS "null", '' AS e,
		E'a\tb' AS tab, true AS b, '2024-02-29 13:00:00+02'::timestamptz AS ts, '\x01ff'::bytea AS bytes,
		ARRAY[1, NULL] AS arr, 1e100::float8 AS big
		FROM generate_series(1, 2)`)
	if err != nil {
		t.Fatal(err)
	}
	wantColumns := []string{"n", "f", "null", "e", "tab", "b", "ts", "bytes", "arr", "big"}
	wantRow := "1.50\t0.30000000000000004\tNULL\t(empty)\ta\\tb\tt\t2024-02-29 11:00:00+00\t\\x01ff\t{1,NULL}\t1e+100"
	if diff := cmp.Diff(wantColumns, columns); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	if got := resultLines(rows); len(got) != 2 || got[0] != wantRow || got[1] != wantRow {
		t.Errorf("rows = %q, want twice %q (PostgreSQL's text output, raw)", got, wantRow)
	}

	_, _, err = db.Query(ctx, "SELECT 1/0")
	if code, message := PostgresSQLState(err), PostgresMessage(err); code != "22012" || message != "division by zero" {
		t.Errorf("SELECT 1/0: %v (SQLSTATE %q, message %q)", err, code, message)
	}
	// The connection stays usable after an error, and $1 reaches the server
	// untouched.
	if _, _, err := db.Query(ctx, "PREPARE p AS SELECT $1::int + 1"); err != nil {
		t.Fatal(err)
	}
	_, rows, err = db.Query(ctx, "EXECUTE p(41)")
	if err != nil || len(rows) != 1 || *rows[0][0] != "42" {
		t.Errorf("EXECUTE p(41): rows %q, err %v", resultLines(rows), err)
	}
	if _, _, err := db.Query(ctx, "SELECT 1; SELECT 2"); err == nil || !strings.Contains(err.Error(), "one statement per record") {
		t.Errorf("two statements: err %v, want a one-statement-per-record error", err)
	}
	if code := PostgresSQLState(fmt.Errorf("not from postgres")); code != "" {
		t.Errorf("PostgresSQLState of a non-PostgreSQL error = %q, want empty", code)
	}
}

// TestRewriteOnPostgres rewrites a file with stale expectations from
// PostgreSQL and checks that the result is what PostgreSQL prints.
func TestRewriteOnPostgres(t *testing.T) {
	content := `# stale expectations
statement ok
CREATE TABLE t (a int, b text)

statement ok
INSERT INTO t VALUES (1, 'x'), (2, NULL), (3, '')

query I rowsort
SELECT a, b, a / 2.0 FROM t
----
0

statement ok
SELECT 1/0

query I
SELECT * FROM nope

onlyif pgfed
query I
SELECT pgfed_only()
----
1
`
	want := `# stale expectations
statement ok
CREATE TABLE t (a int, b text)

statement ok
INSERT INTO t VALUES (1, 'x'), (2, NULL), (3, '')

query ITT rowsort
SELECT a, b, a / 2.0 FROM t
----
1	x	0.50000000000000000000
2	NULL	1.00000000000000000000
3	(empty)	1.5000000000000000

statement error 22012
SELECT 1/0

query error 42P01
SELECT * FROM nope

onlyif pgfed
query I
SELECT pgfed_only()
----
1
`
	path := writeFile(t, content)
	if err := Rewrite(path, PostgresDB(freshDatabase(t, "rewrite")), PostgresEngine()); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Fatalf("rewritten file (-want +got):\n%s", diff)
	}
	Run(t, path, PostgresDB(freshDatabase(t, "rewritten")), PostgresEngine())
}
