package logictest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeError is an engine error with a SQLSTATE.
type fakeError struct{ code, message string }

func (e *fakeError) Error() string { return e.message + " (" + e.code + ")" }

var fakeEngine = Engine{
	Name: "pgfed",
	SQLState: func(err error) string {
		var fake *fakeError
		if errors.As(err, &fake) {
			return fake.code
		}
		return ""
	},
	Message: func(err error) string {
		var fake *fakeError
		if errors.As(err, &fake) {
			return fake.message
		}
		return err.Error()
	},
}

// fakeResult is what fakeDB returns for one SQL text.
type fakeResult struct {
	columns []string
	rows    [][]*string
	err     error
}

// fakeDB answers from a fixed table and records what it ran; unknown SQL
// is a syntax error.
type fakeDB struct {
	results map[string]fakeResult
	ran     []string
}

func (db *fakeDB) Query(_ context.Context, sql string) ([]string, [][]*string, error) {
	db.ran = append(db.ran, sql)
	result, ok := db.results[sql]
	if !ok {
		return nil, nil, &fakeError{"42601", "syntax error in " + sql}
	}
	return result.columns, result.rows, result.err
}

func ok() fakeResult { return fakeResult{} }

func rows(columns string, lines ...string) fakeResult {
	result := fakeResult{columns: strings.Split(columns, ",")}
	for _, line := range lines {
		var row []*string
		for _, value := range strings.Split(line, "|") {
			if value == "<null>" {
				row = append(row, nil)
			} else {
				row = append(row, ptr(value))
			}
		}
		result.rows = append(result.rows, row)
	}
	return result
}

func failure(code, message string) fakeResult {
	return fakeResult{err: &fakeError{code, message}}
}

// recorder is a reporter that keeps what the runner reports.
type recorder struct {
	errors []string
	fatal  string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }
func (r *recorder) Logf(string, ...any)               {}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.test")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const sampleFile = `# sample
statement ok
CREATE TABLE t (a int, b text)

statement error 22012 division
SELECT 1/0

query IT rowsort
SELECT a, b FROM t
----
2	NULL
1	foo
3	(empty)

query R valuesort
SELECT x FROM v
----
2
1

onlyif postgres
statement ok
SELECT postgres_only()

skipif pgfed
statement ok
SELECT not_on_pgfed()

query error 42P01
SELECT * FROM nope
`

func sampleDB() *fakeDB {
	return &fakeDB{results: map[string]fakeResult{
		"CREATE TABLE t (a int, b text)": ok(),
		"SELECT 1/0":                     failure("22012", "division by zero"),
		"SELECT a, b FROM t":             rows("a,b", "1|foo", "2|<null>", "3|"),
		"SELECT x FROM v":                rows("x", "1", "2"),
		"SELECT * FROM nope":             failure("42P01", `relation "nope" does not exist`),
	}}
}

func TestRunMatches(t *testing.T) {
	db := sampleDB()
	var r recorder
	runFile(&r, writeFile(t, sampleFile), db, fakeEngine)
	if r.fatal != "" || len(r.errors) != 0 {
		t.Fatalf("fatal %q, errors:\n%s", r.fatal, strings.Join(r.errors, "\n"))
	}
	wantRan := []string{"CREATE TABLE t (a int, b text)", "SELECT 1/0", "SELECT a, b FROM t", "SELECT x FROM v", "SELECT * FROM nope"}
	if diff := cmp.Diff(wantRan, db.ran); diff != "" {
		t.Errorf("statements run on engine pgfed differ (-want +got):\n%s", diff)
	}
}

func TestRunReportsEveryMismatch(t *testing.T) {
	content := `statement ok
SELECT 1/0

statement error 22012
SELECT ok()

statement error 22P02
SELECT 1/0

statement error 22012 overflow
SELECT 1/0

query IT
SELECT a, b FROM t
----
2	NULL
1	foo
3	(empty)

query I
SELECT a, b FROM t
----

query T
SELECT ok()

query I colnames
SELECT x FROM v
----
y
1
2

query II
SELECT a, b FROM t
----
1 foo
2	NULL
3	(empty)
`
	db := sampleDB()
	db.results["SELECT ok()"] = ok()
	var r recorder
	path := writeFile(t, content)
	runFile(&r, path, db, fakeEngine)
	wants := []string{
		path + ":1: unexpected error 22012: division by zero",
		path + ":4: expected error 22012, got success without result set",
		path + ":7: expected error 22P02, got error 22012",
		path + `:10: error message "division by zero" does not match "overflow"`,
		path + ":13: results differ (nosort)",
		path + ":20: expected 1 column(s) (I), got 2: a, b",
		path + ":24: expected a result set, the statement returned none",
		path + ":27: column names differ",
		path + ":34: results differ (nosort)",
	}
	if len(r.errors) != len(wants) {
		t.Fatalf("got %d reports, want %d:\n%s", len(r.errors), len(wants), strings.Join(r.errors, "\n---\n"))
	}
	for i, want := range wants {
		if !strings.HasPrefix(r.errors[i], want) {
			t.Errorf("report %d:\n%s\nwant it to start with %q", i, r.errors[i], want)
		}
	}
	// A results report shows the SQL, both sides and a diff.
	for _, want := range []string{"SQL:\n    SELECT a, b FROM t", "expected:\n    2\tNULL", "got:\n    1\tfoo", "diff (-expected +got)"} {
		if !strings.Contains(r.errors[4], want) {
			t.Errorf("report lacks %q:\n%s", want, r.errors[4])
		}
	}
	if !strings.Contains(r.errors[8], "hint: expected row 1 has 1 TAB-separated value(s)") {
		t.Errorf("report lacks the TAB hint:\n%s", r.errors[8])
	}
}

func TestRunStopsAtHalt(t *testing.T) {
	db := sampleDB()
	var r recorder
	runFile(&r, writeFile(t, "statement ok\nCREATE TABLE t (a int, b text)\n\nhalt\n\nstatement ok\nbroken\n"), db, fakeEngine)
	if len(r.errors) != 0 || len(db.ran) != 1 {
		t.Errorf("ran %q, reported %q; want only the statement before halt", db.ran, r.errors)
	}
}

func TestRunFatalOnParseError(t *testing.T) {
	var r recorder
	path := writeFile(t, "bogus\n")
	runFile(&r, path, sampleDB(), fakeEngine)
	if !strings.HasPrefix(r.fatal, path+":1: unknown directive") {
		t.Errorf("fatal = %q", r.fatal)
	}
	runFile(&r, path, sampleDB(), Engine{Name: "pgfed"})
	if !strings.Contains(r.fatal, "SQLState") {
		t.Errorf("an engine without SQLState must be rejected, fatal = %q", r.fatal)
	}
}

func TestRewrite(t *testing.T) {
	content := `# header comment stays

statement ok
SELECT 1/0

statement error 22P02 invalid
SELECT 1/0

statement error 22012 division
SELECT 1/0

statement error
SELECT 1/0

# comment before a query
query I rowsort
SELECT a, b
  FROM t
----
9

query error 42P01
SELECT a, b FROM t

onlyif postgres
query I
SELECT untouched()
----
stale

query T colnames
SELECT x FROM v
----
old
1
`
	want := `# header comment stays

statement error 22012
SELECT 1/0

statement error 22012 division by zero
SELECT 1/0

statement error 22012 division
SELECT 1/0

statement error 22012
SELECT 1/0

# comment before a query
query IT rowsort
SELECT a, b
  FROM t
----
1	foo
2	NULL
3	(empty)

query TT
SELECT a, b FROM t
----
1	foo
2	NULL
3	(empty)

onlyif postgres
query I
SELECT untouched()
----
stale

query T colnames
SELECT x FROM v
----
x
1
2
`
	db := sampleDB()
	db.results["SELECT a, b\n  FROM t"] = db.results["SELECT a, b FROM t"]
	path := writeFile(t, content)
	if err := Rewrite(path, db, fakeEngine); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Fatalf("rewritten file differs (-want +got):\n%s", diff)
	}

	// The rewritten file passes, and rewriting again changes nothing.
	var r recorder
	runFile(&r, path, db, fakeEngine)
	if len(r.errors) != 0 || r.fatal != "" {
		t.Errorf("rewritten file fails: %q %q", r.fatal, r.errors)
	}
	if err := Rewrite(path, db, fakeEngine); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(path)
	if string(again) != want {
		t.Errorf("second Rewrite changed the file:\n%s", again)
	}
}

func TestRewriteRefusesErrorsWithoutSQLState(t *testing.T) {
	content := "statement ok\nSELECT lost()\n"
	db := &fakeDB{results: map[string]fakeResult{"SELECT lost()": {err: errors.New("connection reset")}}}
	path := writeFile(t, content)
	err := Rewrite(path, db, fakeEngine)
	if err == nil || !strings.Contains(err.Error(), "without SQLSTATE") {
		t.Fatalf("Rewrite: %v, want an error about the missing SQLSTATE", err)
	}
	if got, _ := os.ReadFile(path); string(got) != content {
		t.Errorf("file changed to %q", got)
	}
}

func TestDifferential(t *testing.T) {
	content := `statement ok
CREATE TABLE t (a int, b text)

query IT rowsort
SELECT a, b FROM t

query IT
SELECT a, b FROM t

statement error
SELECT 1/0

onlyif pgfed
statement ok
SELECT only_one()

query R valuesort
SELECT x FROM v
`
	a := sampleDB()
	b := sampleDB()
	b.results["SELECT a, b FROM t"] = rows("a,b", "3|", "2|<null>", "1|foo")
	b.results["SELECT 1/0"] = failure("22003", "out of range")
	b.results["SELECT x FROM v"] = rows("x", "2", "1")
	postgres := fakeEngine
	postgres.Name = "postgres"

	var r recorder
	path := writeFile(t, content)
	differential(&r, path, a, fakeEngine, b, postgres)
	wants := []string{
		path + ":7: pgfed and postgres differ: results differ (nosort) (-pgfed +postgres)",
		path + ":10: pgfed and postgres differ: \n    pgfed: error 22012: division by zero (22012)\n    postgres: error 22003",
	}
	if len(r.errors) != len(wants) {
		t.Fatalf("got %d reports, want %d:\n%s", len(r.errors), len(wants), strings.Join(r.errors, "\n---\n"))
	}
	for i, want := range wants {
		if !strings.HasPrefix(r.errors[i], want) {
			t.Errorf("report %d:\n%s\nwant it to start with %q", i, r.errors[i], want)
		}
	}
	for _, db := range []*fakeDB{a, b} {
		for _, sql := range db.ran {
			if sql == "SELECT only_one()" {
				t.Errorf("a record excluded for one engine ran")
			}
		}
	}
}
