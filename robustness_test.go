package pgfed_test

// Robustness (issue 12): no input crashes the process, hangs a statement
// or makes it lie.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pgfed/pgfed"
)

func openTest(t *testing.T) *pgfed.Session {
	t.Helper()
	db, err := pgfed.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db.NewSession()
}

// Deep expressions: as deep as PostgreSQL allows runs; deeper is 54001,
// never a crash, and the session goes on.
func TestDeepExpressions(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	wantRows(t, "3,000 terms", textRows(t, s, "SELECT 1"+strings.Repeat("+1", 2999)), "3000")
	wantRows(t, "3,000 concatenations", textRows(t, s, "SELECT length('a'"+strings.Repeat("||'a'", 2999)+")"), "3000")
	for _, sql := range []string{
		"SELECT 1" + strings.Repeat("+1", 25000),
		"SELECT 'a'" + strings.Repeat("||'a'", 50000),
	} {
		if _, err := s.Exec(ctx, sql); pgfed.ErrorCode(err) != "54001" {
			t.Errorf("%.30s...: %v, want 54001", sql, err)
		}
	}
	if _, err := s.Exec(ctx, "SELECT '\xff'"); pgfed.ErrorCode(err) != "22021" {
		t.Errorf("invalid UTF-8: %v, want 22021", err)
	}
	wantRows(t, "after", textRows(t, s, "SELECT 1"), "1")
}

// A pathological LIKE and an IN list of 100,000 constants run in linear
// time (they took minutes and gigabytes): done well within the timeout.
func TestLinearLikeAndInList(t *testing.T) {
	s := openTest(t)
	mustExec(t, s, "SET statement_timeout = '20s'")
	wantRows(t, "LIKE", textRows(t, s, "SELECT repeat('a', 40) LIKE '"+strings.Repeat("%a", 20)+"%ab'"), "f")
	list := make([]string, 100000)
	for i := range list {
		list[i] = fmt.Sprint(i * 2)
	}
	wantRows(t, "IN", textRows(t, s, "SELECT count(*) FROM generate_series(1, 2000) g WHERE g IN ("+strings.Join(list, ",")+")"), "1000")
}

// A statement cancelled or timed out never returns a result, and long
// work inside one operator (a sort of millions of rows) stops soon after
// the cancel.
func TestCancelledStatementNeverAnswers(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	mustExec(t, s, "SET statement_timeout = '300ms'")
	start := time.Now()
	rows, err := s.Query(ctx, "SELECT g FROM generate_series(1, 30000000) g ORDER BY g DESC OFFSET 29999999")
	if err == nil {
		for rows.Next() {
			t.Errorf("a timed-out statement returned a row: %v", rows.Values())
		}
		err = rows.Err()
		rows.Close()
	}
	if pfErr, ok := err.(*pgfed.Error); !ok || pfErr.Code != "57014" || pfErr.Message != "canceling statement due to statement timeout" {
		t.Fatalf("got %v, want 57014 statement timeout", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the timeout took %v to stop the statement", d)
	}
}

// TestCancelEachLongOperator times out each kind of long operator after
// 300 ms: every one answers 57014 soon after, never a result. The
// figures for each operator are in pgfedbench -suite spill's cancel
// table; here the bound is loose, for a loaded CI machine under -race.
func TestCancelEachLongOperator(t *testing.T) {
	t.Parallel()
	db, err := pgfed.Open(pgfed.WithFileAccess("/dev"), pgfed.WithTempDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	in := make([]string, 10000)
	for i := range in {
		in[i] = fmt.Sprint(i * 7)
	}
	const series = "generate_series(1, 300000000) g"
	for _, tc := range []struct {
		name, workMem, sql string
		alsoOK             string // another acceptable SQLSTATE
	}{
		{"sort in memory", "1GB", "SELECT g FROM generate_series(1, 30000000) g ORDER BY g DESC OFFSET 29999999", ""},
		{"external sort", "4MB", "SELECT g FROM generate_series(1, 30000000) g ORDER BY g DESC OFFSET 29999999", ""},
		{"hash aggregate", "1GB", "SELECT count(*) FROM (SELECT g % 10000000, count(*) FROM " + series + " GROUP BY 1) x", ""},
		{"spilling hash aggregate", "64kB", "SELECT count(*) FROM (SELECT g % 10000000, count(*) FROM " + series + " GROUP BY 1) x", ""},
		{"DISTINCT", "4MB", "SELECT count(*) FROM (SELECT DISTINCT g % 20000000 FROM " + series + ") x", ""},
		{"LIKE", "4MB", "SELECT count(*) FROM " + series + " WHERE g::text LIKE '%99%9'", ""},
		{"IN list", "4MB", "SELECT count(*) FROM " + series + " WHERE g IN (" + strings.Join(in, ",") + ")", ""},
		{"numeric series", "4MB", "SELECT count(*) FROM generate_series(1::numeric, 1e12::numeric) g", ""},
		// One long run of a SubPlan, and many short ones.
		{"inside a SubPlan", "4MB", "SELECT (SELECT count(*) FROM " + series + " WHERE g > o.x) FROM generate_series(1, 3) o(x)", ""},
		{"SubPlan per row", "4MB", "SELECT count(*) FROM " + series + " WHERE g = 0 OR EXISTS (SELECT 1 FROM generate_series(1, 100) h WHERE h = g % 1000 + random()::int)", ""},
		// Reading /dev/zero may also reach the 1 GB line limit first.
		{"COPY FROM /dev/zero", "4MB", "COPY t FROM '/dev/zero'", "54000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := db.NewSession()
			mustExec(t, s, "SET max_parallel_workers_per_gather = 0")
			mustExec(t, s, "SET work_mem = '"+tc.workMem+"'")
			if strings.HasPrefix(tc.sql, "COPY") {
				mustExec(t, s, "CREATE TABLE IF NOT EXISTS t (a text)")
			}
			mustExec(t, s, "SET statement_timeout = '300ms'")
			start := time.Now()
			_, err := runQuery(context.Background(), s, tc.sql)
			took := time.Since(start)
			if code := pgfed.ErrorCode(err); code != "57014" && (tc.alsoOK == "" || code != tc.alsoOK) {
				t.Fatalf("%v (%s), want 57014", err, code)
			}
			if took > 3*time.Second {
				t.Errorf("took %v for a 300 ms statement_timeout", took)
			}
		})
	}
}

// TestCancelDuringParse: the C parser cannot be interrupted, but a
// statement_timeout that ends while a long statement is being parsed
// answers 57014 at once instead of after the parse.
func TestCancelDuringParse(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	n := 600000
	if raceEnabled { // parsing the statement is 20x slower: fewer values still take seconds
		n = 150000
	}
	list := make([]string, n)
	for i := range list {
		list[i] = fmt.Sprint(i)
	}
	sql := "SELECT count(*) FROM generate_series(1, 10) g WHERE g IN (" + strings.Join(list, ",") + ")"
	start := time.Now()
	_, err := runQuery(context.Background(), s, sql)
	parse := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, s, "SET statement_timeout = '100ms'")
	start = time.Now()
	_, err = runQuery(context.Background(), s, sql)
	took := time.Since(start)
	if pgfed.ErrorCode(err) != "57014" {
		t.Fatalf("%v, want 57014", err)
	}
	if took > parse/2 {
		t.Errorf("a 100 ms statement_timeout took %v; the statement takes %v", took, parse)
	}
}
