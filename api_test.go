package pgfed_test

// Tests of the embedding API: DB, Session and Rows as an application uses
// them. Expected messages, SQLSTATEs, positions and command tags are
// PostgreSQL 15's.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/apd/v3"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/pgerr"
)

// openDB opens an engine that is closed when the test ends.
func openDB(t testing.TB) *pgfed.DB {
	t.Helper()
	db, err := pgfed.Open(pgfed.WithFileAccess("/"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// execSQL runs the statements in sql and returns the last command tag; an
// error fails the test.
func execSQL(t testing.TB, s *pgfed.Session, sql string) string {
	t.Helper()
	tag, err := s.Exec(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return tag
}

// runQuery runs one statement to its end and returns its tag and the
// error it failed with, whether Query or the iteration reported it.
func runQuery(ctx context.Context, s *pgfed.Session, sql string) (string, error) {
	rows, err := s.Query(ctx, sql)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Tag(), rows.Err()
}

// queryRows runs one query and returns its rows in PostgreSQL's text
// output, columns joined by "|" and NULL shown as "NULL".
func queryRows(t testing.TB, s *pgfed.Session, sql string) []string {
	t.Helper()
	rows, err := s.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		fields := make([]string, len(rows.Columns()))
		for i := range fields {
			v, ok := rows.Text(i)
			if !ok {
				v = "NULL"
			}
			fields[i] = v
		}
		out = append(out, strings.Join(fields, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// rowCounts returns the number of rows in each table.
func rowCounts(t testing.TB, s *pgfed.Session, tables ...string) []string {
	t.Helper()
	var out []string
	for _, table := range tables {
		out = append(out, queryRows(t, s, "SELECT count(*) FROM "+table)...)
	}
	return out
}

// checkError fails the test unless err is a *pgerr.Error with the given
// SQLSTATE and message, and returns it.
func checkError(t testing.TB, err error, code, message string) *pgerr.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %s %q", code, message)
	}
	var pe *pgerr.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is a %T, not a *pgerr.Error", err, err)
	}
	if pe.Code != code || pe.Message != message {
		t.Fatalf("error %s %q; want %s %q", pe.Code, pe.Message, code, message)
	}
	return pe
}

// TestThreeLineEmbedding is the package documentation's example: open,
// query, close.
func TestThreeLineEmbedding(t *testing.T) {
	ctx := context.Background()
	db, err := pgfed.Open()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(ctx, "SELECT 6 * 7 AS answer")
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() {
		t.Fatalf("no row: %v", rows.Err())
	}
	var answer int
	if err := rows.Scan(&answer); err != nil {
		t.Fatal(err)
	}
	if rows.Next() {
		t.Error("more than one row")
	}
	if err := rows.Close(); err != nil {
		t.Error(err)
	}
	if err := db.Close(); err != nil {
		t.Error(err)
	}
	if answer != 42 {
		t.Errorf("answer = %d, want 42", answer)
	}
}

// TestDBDefaultSession checks that DB.Exec and DB.Query share the default
// session, and that other sessions see its tables.
func TestDBDefaultSession(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	tag, err := db.Exec(ctx, "CREATE TABLE t (a int); INSERT INTO t VALUES (1), (2); SET search_path = nosuch, public")
	if err != nil {
		t.Fatal(err)
	}
	if tag != "SET" {
		t.Errorf("Exec tag = %q, want the last statement's, SET", tag)
	}
	if got := queryRows(t, db.Session(), "SHOW search_path"); !reflect.DeepEqual(got, []string{"nosuch, public"}) {
		t.Errorf("default session's search_path = %q, want the value DB.Exec set", got)
	}
	rows, err := db.Query(ctx, "SELECT sum(a) FROM t")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var sum int64
	if !rows.Next() || rows.Scan(&sum) != nil || sum != 3 {
		t.Errorf("sum = %d, want 3 (err %v)", sum, rows.Err())
	}
	if got := queryRows(t, db.NewSession(), "SELECT count(*) FROM t"); !reflect.DeepEqual(got, []string{"2"}) {
		t.Errorf("another session counts %q, want 2", got)
	}
}

func TestRowsScan(t *testing.T) {
	s := openDB(t).NewSession()
	rows, err := s.Query(context.Background(),
		"SELECT 7::bigint, 8, 2.5::float8, true, 'hello', 1.50::numeric(4,2), NULL::int, DATE '2024-01-02'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatalf("no row: %v", rows.Err())
	}
	var (
		i64     int64
		i       int
		f       float64
		b       bool
		str     string
		num     string
		null    any
		dateStr string
	)
	if err := rows.Scan(&i64, &i, &f, &b, &str, &num, &null, &dateStr); err != nil {
		t.Fatal(err)
	}
	if i64 != 7 || i != 8 || f != 2.5 || !b || str != "hello" || num != "1.50" || null != nil || dateStr != "2024-01-02" {
		t.Errorf("Scan gave %v %v %v %v %q %q %v %q", i64, i, f, b, str, num, null, dateStr)
	}

	// Misuse is reported, not a panic.
	checkError(t, rows.Scan(&i64), "22023", "Scan: 1 destinations for 8 columns")
	checkError(t, rows.Scan(&i64, &i, &f, &b, &str, &num, &i64, &dateStr), "22004",
		"Scan: column 6 is NULL; scan into *any to accept NULLs")
	checkError(t, rows.Scan(&b, &i, &f, &b, &str, &num, &null, &dateStr), "42804", "Scan: column 0 is int64, not bool")
	var u uint8
	checkError(t, rows.Scan(&u, &i, &f, &b, &str, &num, &null, &dateStr), "22023", "Scan: unsupported destination *uint8")
}

// TestValues checks the Go value of each SQL type (see package types) and
// the result columns' names and types, which are PostgreSQL's.
func TestValues(t *testing.T) {
	s := openDB(t).NewSession()
	rows, err := s.Query(context.Background(), `SELECT 1::smallint, 2::integer, 3::bigint,
		1.5::real, 2.25::double precision, 3.14159::numeric(10,2), true,
		'txt'::text, 'vc'::varchar(5), 'c'::char(3), DATE '2024-01-02',
		TIMESTAMP '2024-01-02 03:04:05.5', TIMESTAMPTZ '2024-01-02 03:04:05+02', NULL::int`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()

	var names, typeNames []string
	for _, c := range rows.Columns() {
		names = append(names, c.Name)
		typeNames = append(typeNames, c.Type.String())
	}
	wantNames := []string{"int2", "int4", "int8", "float4", "float8", "numeric", "?column?",
		"text", "varchar", "bpchar", "date", "timestamp", "timestamptz", "int4"}
	if !reflect.DeepEqual(names, wantNames) {
		t.Errorf("column names %q\nwant %q", names, wantNames)
	}
	wantTypes := []string{"smallint", "integer", "bigint", "real", "double precision", "numeric(10,2)", "boolean",
		"text", "character varying(5)", "character(3)", "date",
		"timestamp without time zone", "timestamp with time zone", "integer"}
	if !reflect.DeepEqual(typeNames, wantTypes) {
		t.Errorf("column types %q\nwant %q", typeNames, wantTypes)
	}

	if !rows.Next() {
		t.Fatalf("no row: %v", rows.Err())
	}
	got := rows.Values()
	day := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	want := []any{
		int64(1), int64(2), int64(3),
		float64(1.5), float64(2.25), "3.14", true,
		"txt", "vc", "c  ", int32(day.Unix() / 86400),
		time.Date(2024, 1, 2, 3, 4, 5, 500_000_000, time.UTC).UnixMicro(),
		time.Date(2024, 1, 2, 1, 4, 5, 0, time.UTC).UnixMicro(),
		nil,
	}
	if len(got) != len(want) {
		t.Fatalf("Values() has %d values, want %d", len(got), len(want))
	}
	for i := range want {
		v := got[i]
		if d, ok := v.(*apd.Decimal); ok {
			v = d.String() // numeric: compare the text, which keeps the scale
		}
		if !reflect.DeepEqual(v, want[i]) {
			t.Errorf("column %d (%s): Values() gave %T %#v, want %T %#v", i, typeNames[i], got[i], got[i], want[i], want[i])
		}
	}
	if _, ok := got[5].(*apd.Decimal); !ok {
		t.Errorf("numeric is a %T, want *apd.Decimal", got[5])
	}

	// Text gives PostgreSQL's output, and ok=false for NULL.
	wantText := []string{"1", "2", "3", "1.5", "2.25", "3.14", "t", "txt", "vc", "c  ", "2024-01-02",
		"2024-01-02 03:04:05.5", "2024-01-02 01:04:05+00"}
	for i, w := range wantText {
		if s, ok := rows.Text(i); s != w || !ok {
			t.Errorf("Text(%d) = %q, %v; want %q, true", i, s, ok, w)
		}
	}
	if s, ok := rows.Text(13); s != "" || ok {
		t.Errorf("Text of NULL = %q, %v; want \"\", false", s, ok)
	}
}

// TestNextBatch reads results as Arrow record batches.
func TestNextBatch(t *testing.T) {
	ctx := context.Background()
	s := openDB(t).NewSession()
	execSQL(t, s, `CREATE TABLE t (a int, b text, c double precision);
		INSERT INTO t VALUES (1, 'z', 0.5), (2, 'y', NULL), (3, 'x', 1.5)`)

	t.Run("visible columns only", func(t *testing.T) {
		// The sort key b is computed below the projection but not shown.
		rows, err := s.Query(ctx, "SELECT a FROM t ORDER BY b")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var got []int32
		for rows.NextBatch() {
			b := rows.Batch()
			if b.NumCols() != 1 || b.Schema().Field(0).Name != "a" {
				t.Fatalf("batch schema %v, want the one column a", b.Schema())
			}
			got = append(got, b.Column(0).(*array.Int32).Int32Values()...)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, []int32{3, 2, 1}) {
			t.Errorf("a = %v, want [3 2 1]", got)
		}
		if rows.Tag() != "SELECT 3" {
			t.Errorf("tag %q, want SELECT 3", rows.Tag())
		}
	})

	t.Run("Arrow types and nulls", func(t *testing.T) {
		rows, err := s.Query(ctx, "SELECT b, c, a::bigint AS a8 FROM t ORDER BY a")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		if !rows.NextBatch() {
			t.Fatalf("no batch: %v", rows.Err())
		}
		b := rows.Batch()
		wantTypes := []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int64}
		for i, w := range wantTypes {
			if got := b.Schema().Field(i).Type; !arrow.TypeEqual(got, w) {
				t.Errorf("column %d is %v, want %v", i, got, w)
			}
		}
		if c := b.Column(1); c.NullN() != 1 || !c.IsNull(1) {
			t.Errorf("c has nulls at %v, want row 1 only", c)
		}
		if got := b.Column(0).(*array.String).Value(2); got != "x" {
			t.Errorf("b in row 2 = %q, want x", got)
		}
	})

	t.Run("several batches", func(t *testing.T) {
		const n = 200_000
		rows, err := s.Query(ctx, fmt.Sprintf("SELECT g FROM generate_series(1, %d) g", n))
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var total, batches, sum int64
		for rows.NextBatch() {
			batches++
			for _, v := range rows.Batch().Column(0).(*array.Int32).Int32Values() {
				sum += int64(v)
			}
			total += rows.Batch().NumRows()
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if total != n || sum != n*(n+1)/2 || batches < 2 {
			t.Errorf("%d rows (sum %d) in %d batches; want %d rows in several batches", total, sum, batches, n)
		}
		if want := fmt.Sprintf("SELECT %d", n); rows.Tag() != want {
			t.Errorf("tag %q, want %q", rows.Tag(), want)
		}
	})
}

// TestTags checks the command tag of each kind of statement, as
// PostgreSQL 15 reports them.
func TestTags(t *testing.T) {
	ctx := context.Background()
	s := openDB(t).NewSession()
	s.SetCopyHandler(&copyStreams{in: strings.NewReader("7\n8\n")})
	for _, tc := range []struct{ sql, tag string }{
		{"CREATE TABLE t (a int, b text)", "CREATE TABLE"},
		{"CREATE TABLE IF NOT EXISTS t (a int)", "CREATE TABLE"},
		{"INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')", "INSERT 0 3"},
		{"INSERT INTO t SELECT a + 10, b FROM t WHERE a > 5", "INSERT 0 0"},
		{"INSERT INTO t VALUES (4, 'd') RETURNING a", "INSERT 0 1"},
		{"SELECT * FROM t", "SELECT 4"},
		{"SELECT * FROM t WHERE false", "SELECT 0"},
		{"VALUES (1), (2)", "SELECT 2"},
		{"UPDATE t SET b = 'x' WHERE a <= 2", "UPDATE 2"},
		{"UPDATE t SET b = 'y' WHERE false", "UPDATE 0"},
		{"DELETE FROM t WHERE a = 4", "DELETE 1"},
		{"DELETE FROM t WHERE a = 3 RETURNING *", "DELETE 1"},
		{"CREATE TABLE u AS SELECT * FROM t", "SELECT 2"},
		{"TRUNCATE u", "TRUNCATE TABLE"},
		{"COPY t (a) FROM STDIN", "COPY 2"},
		{"COPY t TO STDOUT", "COPY 4"},
		{"EXPLAIN SELECT * FROM t", "EXPLAIN"},
		{"SET statement_timeout = '1s'", "SET"},
		{"SHOW statement_timeout", "SHOW"},
		{"RESET statement_timeout", "RESET"},
		{"SET search_path TO DEFAULT", "SET"},
		{"CREATE SCHEMA s", "CREATE SCHEMA"},
		{"DROP SCHEMA s", "DROP SCHEMA"},
		{"DROP TABLE u", "DROP TABLE"},
		{"DROP TABLE IF EXISTS nosuch", "DROP TABLE"},
		{"", ""},
	} {
		tag, err := runQuery(ctx, s, tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if tag != tc.tag {
			t.Errorf("%s: tag %q, want %q", tc.sql, tag, tc.tag)
		}
	}
}

// TestTagAfterIteration checks that a query's tag is known once its rows
// have been read, while DML without RETURNING has run when Query returns.
func TestTagAfterIteration(t *testing.T) {
	ctx := context.Background()
	s := openDB(t).NewSession()
	execSQL(t, s, "CREATE TABLE t (a int)")
	rows, err := s.Query(ctx, "INSERT INTO t VALUES (1), (2)")
	if err != nil {
		t.Fatal(err)
	}
	if rows.ReturnsRows() || rows.Tag() != "INSERT 0 2" {
		t.Errorf("INSERT: ReturnsRows %v, tag %q before iterating; want false, INSERT 0 2", rows.ReturnsRows(), rows.Tag())
	}
	rows.Close()

	rows, err = s.Query(ctx, "SELECT a FROM t")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.ReturnsRows() {
		t.Error("SELECT does not return rows")
	}
	if rows.Tag() != "" {
		t.Errorf("tag %q before iterating, want none yet", rows.Tag())
	}
	for rows.Next() {
	}
	if rows.Tag() != "SELECT 2" {
		t.Errorf("tag %q after iterating, want SELECT 2", rows.Tag())
	}
}

// TestErrors checks that errors are *pgerr.Error values carrying
// PostgreSQL's SQLSTATE, message and cursor position (1-based, in
// characters).
func TestErrors(t *testing.T) {
	ctx := context.Background()
	s := openDB(t).NewSession()
	execSQL(t, s, "CREATE TABLE t (a int NOT NULL, b text)")
	for _, tc := range []struct {
		sql      string
		code     string
		message  string
		position int
	}{
		{"SELECT * FRM t", "42601", `syntax error at or near "FRM"`, 10},
		{"SELECT 'unterminated", "42601", `unterminated quoted string at or near "'unterminated"`, 8},
		{"SELECT nosuch FROM t", "42703", `column "nosuch" does not exist`, 8},
		{"SELECT 'é' || nosuch FROM t", "42703", `column "nosuch" does not exist`, 15},
		{"SELECT * FROM nosuch", "42P01", `relation "nosuch" does not exist`, 15},
		{"SELECT 1/0", "22012", "division by zero", 0},
		{"SELECT 1; SELECT 2", "42601", "cannot run several statements in one Query; use Exec", 0},
		{"CREATE TABLE t (a int)", "42P07", `relation "t" already exists`, 0},
		{"DROP TABLE nosuch", "42P01", `table "nosuch" does not exist`, 0},
		{"SET nosuch = 1", "42704", `unrecognized configuration parameter "nosuch"`, 0},
		{"INSERT INTO t VALUES (NULL, 'x')", "23502", `null value in column "a" of relation "t" violates not-null constraint`, 0},
	} {
		_, err := runQuery(ctx, s, tc.sql)
		if err == nil {
			t.Errorf("%s: no error, want %s", tc.sql, tc.code)
			continue
		}
		pe, ok := pgerr.As(err)
		if !ok {
			t.Errorf("%s: error %v is a %T, not a *pgerr.Error", tc.sql, err, err)
			continue
		}
		if pe.Code != tc.code || pe.Message != tc.message || pe.Position != tc.position {
			t.Errorf("%s: got %s %q at %d, want %s %q at %d", tc.sql, pe.Code, pe.Message, pe.Position, tc.code, tc.message, tc.position)
		}
		if pe.SQLState() != pe.Code || pgerr.Code(err) != pe.Code {
			t.Errorf("%s: SQLState() %q, pgerr.Code %q, want %q", tc.sql, pe.SQLState(), pgerr.Code(err), pe.Code)
		}
	}

	// The NOT NULL error has PostgreSQL's DETAIL.
	_, err := s.Exec(ctx, "INSERT INTO t VALUES (1, 'a'), (NULL, 'b')")
	pe := checkError(t, err, "23502", `null value in column "a" of relation "t" violates not-null constraint`)
	if pe.Detail != "Failing row contains (null, b)." {
		t.Errorf("DETAIL %q, want %q", pe.Detail, "Failing row contains (null, b).")
	}

	// Exec stops at the first failing statement.
	_, err = s.Exec(ctx, "SELECT 1; SELECT nosuch FROM t; CREATE TABLE after_error (a int)")
	checkError(t, err, "42703", `column "nosuch" does not exist`)
	_, err = runQuery(ctx, s, "SELECT * FROM after_error")
	checkError(t, err, "42P01", `relation "after_error" does not exist`)

	// After all these errors the session still works.
	if got := queryRows(t, s, "SELECT count(*) FROM t"); !reflect.DeepEqual(got, []string{"0"}) {
		t.Errorf("count = %q, want 0", got)
	}
}

// TestSyntaxErrorPositionAfterMultibyte: PostgreSQL's cursor position counts
// characters; "é" is one character but two bytes.
func TestSyntaxErrorPositionAfterMultibyte(t *testing.T) {
	s := openDB(t).NewSession()
	_, err := runQuery(context.Background(), s, "SELECT 'é' FRM t")
	if pe := checkError(t, err, "42601", `syntax error at or near "t"`); pe.Position != 16 {
		t.Errorf("Position = %d, want 16", pe.Position)
	}
}

// TestOrderByEmptyTable sorts an empty input.
func TestOrderByEmptyTable(t *testing.T) {
	s := openDB(t).NewSession()
	execSQL(t, s, "CREATE TABLE t (a int)")
	if got := queryRows(t, s, "SELECT * FROM t ORDER BY a"); len(got) != 0 {
		t.Errorf("rows %q, want none", got)
	}
}

// TestNotices checks that NOTICEs go to the session's handler.
func TestNotices(t *testing.T) {
	s := openDB(t).NewSession()
	var notices []*pgfed.Notice
	s.SetNoticeHandler(func(n *pgfed.Notice) { notices = append(notices, n) })
	if tag := execSQL(t, s, "DROP TABLE IF EXISTS x"); tag != "DROP TABLE" {
		t.Errorf("tag %q, want DROP TABLE", tag)
	}
	execSQL(t, s, "CREATE TABLE t (a int); CREATE TABLE IF NOT EXISTS t (b text); DROP SCHEMA IF EXISTS nosuch")
	want := []string{
		`table "x" does not exist, skipping`,
		`relation "t" already exists, skipping`,
		`schema "nosuch" does not exist, skipping`,
	}
	if len(notices) != len(want) {
		t.Fatalf("%d notices, want %d: %v", len(notices), len(want), notices)
	}
	for i, n := range notices {
		if n.Severity != "NOTICE" || n.Message != want[i] {
			t.Errorf("notice %d: %s %q, want NOTICE %q", i, n.Severity, n.Message, want[i])
		}
	}
	if notices[0].Code != "00000" {
		t.Errorf("DROP TABLE IF EXISTS notice has SQLSTATE %s, want 00000", notices[0].Code)
	}

	// Without a handler notices are dropped.
	s.SetNoticeHandler(nil)
	execSQL(t, s, "DROP TABLE IF EXISTS x")
	if len(notices) != len(want) {
		t.Error("notice delivered after the handler was removed")
	}
}

// TestNoticeCodes: PostgreSQL gives the "already exists, skipping" notices
// the SQLSTATE of the error they replace.
func TestNoticeCodes(t *testing.T) {
	s := openDB(t).NewSession()
	var codes []string
	s.SetNoticeHandler(func(n *pgfed.Notice) { codes = append(codes, n.Code) })
	execSQL(t, s, "CREATE TABLE t (a int); CREATE TABLE IF NOT EXISTS t (a int); CREATE SCHEMA IF NOT EXISTS public")
	if want := []string{"42P07", "42P06"}; !reflect.DeepEqual(codes, want) {
		t.Errorf("notice codes %q, want %q", codes, want)
	}
}

// longQuery runs for a long time (many seconds) unless cancelled.
const longQuery = "SELECT count(*) FROM generate_series(1, 1000000000)"

func TestStatementTimeout(t *testing.T) {
	ctx := context.Background()
	s := openDB(t).NewSession()
	execSQL(t, s, "SET statement_timeout = '50ms'")
	start := time.Now()
	_, err := runQuery(ctx, s, longQuery)
	elapsed := time.Since(start)
	checkError(t, err, "57014", "canceling statement due to statement timeout")
	if elapsed > 10*time.Second {
		t.Errorf("the timeout took %v to stop the statement", elapsed)
	}

	// Exec is subject to it too.
	_, err = s.Exec(ctx, "SELECT 1; "+longQuery)
	checkError(t, err, "57014", "canceling statement due to statement timeout")

	// The session is usable afterwards, with the setting still in force.
	if got := queryRows(t, s, "SELECT 1 + 1"); !reflect.DeepEqual(got, []string{"2"}) {
		t.Errorf("after the timeout: %q, want 2", got)
	}
	if got := queryRows(t, s, "SHOW statement_timeout"); !reflect.DeepEqual(got, []string{"50ms"}) {
		t.Errorf("statement_timeout = %q, want 50ms", got)
	}
	execSQL(t, s, "RESET statement_timeout")
	if got := queryRows(t, s, "SELECT count(*) FROM generate_series(1, 100000)"); !reflect.DeepEqual(got, []string{"100000"}) {
		t.Errorf("after RESET: %q, want 100000", got)
	}
}

func TestContextCancel(t *testing.T) {
	s := openDB(t).NewSession()

	t.Run("while running", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		timer := time.AfterFunc(50*time.Millisecond, cancel)
		defer timer.Stop()
		start := time.Now()
		_, err := runQuery(ctx, s, longQuery)
		checkError(t, err, "57014", "canceling statement due to user request")
		if elapsed := time.Since(start); elapsed > 10*time.Second {
			t.Errorf("cancelling took %v", elapsed)
		}
	})

	t.Run("before starting", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := runQuery(ctx, s, longQuery)
		checkError(t, err, "57014", "canceling statement due to user request")
	})

	t.Run("session usable afterwards", func(t *testing.T) {
		if got := queryRows(t, s, "SELECT 'still here'"); !reflect.DeepEqual(got, []string{"still here"}) {
			t.Errorf("got %q", got)
		}
	})
}

// TestRowsCloseEarly closes results before their end; TestMain's goleak
// check makes sure nothing keeps running.
func TestRowsCloseEarly(t *testing.T) {
	ctx := context.Background()
	s := openDB(t).NewSession()
	execSQL(t, s, "CREATE TABLE t AS SELECT g AS a, g % 7 AS b FROM generate_series(1, 300000) g")

	for _, sql := range []string{
		"SELECT a FROM t",
		"SELECT a FROM t ORDER BY b, a",
		"SELECT b, count(*) FROM t GROUP BY b",
		"SELECT g FROM generate_series(1, 1000000000) g",
	} {
		rows, err := s.Query(ctx, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		for i := 0; i < 3; i++ {
			if !rows.Next() {
				t.Fatalf("%s: row %d missing: %v", sql, i, rows.Err())
			}
		}
		if err := rows.Close(); err != nil {
			t.Errorf("%s: Close: %v", sql, err)
		}
		if rows.Next() || rows.NextBatch() {
			t.Errorf("%s: rows after Close", sql)
		}
		if err := rows.Close(); err != nil {
			t.Errorf("%s: second Close: %v", sql, err)
		}
	}

	// Closing between batches too.
	rows, err := s.Query(ctx, "SELECT a FROM t")
	if err != nil {
		t.Fatal(err)
	}
	if !rows.NextBatch() {
		t.Fatal(rows.Err())
	}
	rows.Close()
	if rows.Batch() != nil {
		t.Error("Batch() still returns a batch after Close")
	}

	// The table is intact and can be dropped.
	if got := queryRows(t, s, "SELECT count(*), sum(a) FROM t"); !reflect.DeepEqual(got, []string{"300000|45000150000"}) {
		t.Errorf("count, sum = %q", got)
	}
	execSQL(t, s, "DROP TABLE t")
}

// TestSessionSettingsAreIndependent: SET changes only its own session.
func TestSessionSettingsAreIndependent(t *testing.T) {
	db := openDB(t)
	s1, s2 := db.NewSession(), db.NewSession()
	execSQL(t, s1, "CREATE SCHEMA other; CREATE TABLE other.t (a text); INSERT INTO other.t VALUES ('other')")
	execSQL(t, s1, "CREATE TABLE public.t (a text); INSERT INTO public.t VALUES ('public')")
	execSQL(t, s1, "SET search_path = other; SET statement_timeout = '10ms'")

	if got := queryRows(t, s1, "SELECT a FROM t"); !reflect.DeepEqual(got, []string{"other"}) {
		t.Errorf("session 1 reads %q, want other.t", got)
	}
	if got := queryRows(t, s2, "SELECT a FROM t"); !reflect.DeepEqual(got, []string{"public"}) {
		t.Errorf("session 2 reads %q, want public.t", got)
	}
	if got := queryRows(t, s2, "SHOW statement_timeout"); !reflect.DeepEqual(got, []string{"0"}) {
		t.Errorf("session 2 statement_timeout = %q, want 0", got)
	}
	if got := queryRows(t, s2, "SELECT count(*) FROM generate_series(1, 3000000)"); !reflect.DeepEqual(got, []string{"3000000"}) {
		t.Errorf("session 2 count = %q (session 1's timeout must not apply)", got)
	}
	if got := queryRows(t, db.Session(), "SHOW search_path"); !reflect.DeepEqual(got, []string{`"$user", public`}) {
		t.Errorf("default session search_path = %q", got)
	}
}

// TestDMLVisibleToOtherSessions: a statement's changes are visible to the
// statements other sessions start after it has completed.
func TestDMLVisibleToOtherSessions(t *testing.T) {
	db := openDB(t)
	writer, reader := db.NewSession(), db.NewSession()
	count := func() string {
		t.Helper()
		return strings.Join(queryRows(t, reader, "SELECT count(*) || ',' || coalesce(sum(a), 0) FROM t"), "")
	}
	execSQL(t, writer, "CREATE TABLE t (a int)")
	if got := count(); got != "0,0" {
		t.Errorf("after CREATE: %s", got)
	}
	execSQL(t, writer, "INSERT INTO t SELECT g FROM generate_series(1, 10) g")
	if got := count(); got != "10,55" {
		t.Errorf("after INSERT: %s, want 10,55", got)
	}
	execSQL(t, writer, "UPDATE t SET a = a * 10 WHERE a > 5")
	if got := count(); got != "10,415" {
		t.Errorf("after UPDATE: %s, want 10,415", got)
	}
	execSQL(t, writer, "DELETE FROM t WHERE a >= 50")
	if got := count(); got != "5,15" {
		t.Errorf("after DELETE: %s, want 5,15", got)
	}
	execSQL(t, writer, "TRUNCATE t")
	if got := count(); got != "0,0" {
		t.Errorf("after TRUNCATE: %s", got)
	}

	// A query reads the table as it was when the query started.
	execSQL(t, writer, "INSERT INTO t VALUES (1), (2)")
	rows, err := reader.Query(context.Background(), "SELECT a FROM t")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	execSQL(t, writer, "INSERT INTO t VALUES (3)")
	n := 0
	for rows.Next() {
		n++
	}
	if n != 2 {
		t.Errorf("a query started before an INSERT saw %d rows, want 2", n)
	}

	execSQL(t, writer, "DROP TABLE t")
	_, err = runQuery(context.Background(), reader, "SELECT * FROM t")
	checkError(t, err, "42P01", `relation "t" does not exist`)
}

// TestFailedStatementStoresNothing: a statement that fails changes nothing.
func TestFailedStatementStoresNothing(t *testing.T) {
	ctx := context.Background()
	s := openDB(t).NewSession()
	execSQL(t, s, `CREATE TABLE t (a int NOT NULL, b text);
		CREATE TABLE p (a int NOT NULL, b text) PARTITION BY RANGE (a);
		CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (100000)`)

	_, err := s.Exec(ctx, "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (NULL, 'c')")
	pe := checkError(t, err, "23502", `null value in column "a" of relation "t" violates not-null constraint`)
	if pe.Detail != "Failing row contains (null, c)." {
		t.Errorf("DETAIL %q", pe.Detail)
	}
	if got := queryRows(t, s, "SELECT count(*) FROM t"); !reflect.DeepEqual(got, []string{"0"}) {
		t.Errorf("after the failed INSERT t has %q rows, want 0", got)
	}

	// The bad row comes after the first batches of rows.
	_, err = s.Exec(ctx, "INSERT INTO t SELECT CASE WHEN g = 150000 THEN NULL ELSE g END, 'x' FROM generate_series(1, 150000) g")
	checkError(t, err, "23502", `null value in column "a" of relation "t" violates not-null constraint`)
	_, err = s.Exec(ctx, "INSERT INTO p SELECT g, 'x' FROM generate_series(1, 100000) g")
	checkError(t, err, "23514", `no partition of relation "p" found for row`)
	if got := rowCounts(t, s, "t", "p"); !reflect.DeepEqual(got, []string{"0", "0"}) {
		t.Errorf("row counts of t, p after failed bulk INSERTs: %q, want 0, 0", got)
	}

	// A failed UPDATE or DELETE leaves every row as it was.
	execSQL(t, s, "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (0, 'c')")
	_, err = s.Exec(ctx, "UPDATE t SET a = 10 / a")
	checkError(t, err, "22012", "division by zero")
	_, err = s.Exec(ctx, "UPDATE t SET a = NULL WHERE a = 2")
	checkError(t, err, "23502", `null value in column "a" of relation "t" violates not-null constraint`)
	_, err = s.Exec(ctx, "DELETE FROM t WHERE 1 / a > 0")
	checkError(t, err, "22012", "division by zero")
	if got, want := queryRows(t, s, "SELECT a, b FROM t ORDER BY a"), []string{"0|c", "1|a", "2|b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after the failed statements: %q, want %q", got, want)
	}
}

// TestConcurrentSessions runs sessions of one DB in parallel (run with
// -race): readers of a shared table, writers of their own tables, and
// inserts into a shared table.
func TestConcurrentSessions(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	execSQL(t, db.Session(), `CREATE TABLE shared (a int, b text);
		INSERT INTO shared SELECT g, 'row ' || g FROM generate_series(1, 1000) g;
		CREATE TABLE log (worker int, i int)`)

	const workers, rounds = 8, 20
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := db.NewSession()
			defer s.Close()
			if err := concurrentWorker(ctx, s, w, rounds); err != nil {
				errs <- fmt.Errorf("worker %d: %w", w, err)
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	want := fmt.Sprintf("%d|%d", workers*rounds, workers)
	if got := queryRows(t, db.Session(), "SELECT count(*), count(DISTINCT worker) FROM log"); !reflect.DeepEqual(got, []string{want}) {
		t.Errorf("log has %q rows, workers; want %s", got, want)
	}
}

func concurrentWorker(ctx context.Context, s *pgfed.Session, w, rounds int) error {
	own := fmt.Sprintf("own_%d", w)
	if _, err := s.Exec(ctx, fmt.Sprintf("SET search_path = public; CREATE TABLE %s (a int)", own)); err != nil {
		return err
	}
	for i := 0; i < rounds; i++ {
		rows, err := s.Query(ctx, "SELECT count(*), sum(a), max(b) FROM shared WHERE a % 3 = 0")
		if err != nil {
			return err
		}
		var got []string
		for rows.Next() {
			for c := range rows.Columns() {
				v, _ := rows.Text(c)
				got = append(got, v)
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
		if want := []string{"333", "166833", "row 999"}; !reflect.DeepEqual(got, want) {
			return fmt.Errorf("read %q, want %q", got, want)
		}
		stmts := fmt.Sprintf(`INSERT INTO %[1]s VALUES (%[2]d);
			UPDATE %[1]s SET a = a + 1;
			INSERT INTO log VALUES (%[3]d, %[2]d)`, own, i, w)
		if _, err := s.Exec(ctx, stmts); err != nil {
			return err
		}
	}
	rows, err := s.Query(ctx, fmt.Sprintf("SELECT count(*) FROM %s", own))
	if err != nil {
		return err
	}
	defer rows.Close()
	var n int64
	if !rows.Next() || rows.Scan(&n) != nil || n != int64(rounds) {
		return fmt.Errorf("%s has %d rows, want %d (%v)", own, n, rounds, rows.Err())
	}
	_, err = s.Exec(ctx, "DROP TABLE "+own)
	return err
}

// TestConcurrentInsertAndUpdate: an UPDATE of a table must not lose the
// rows another session inserts meanwhile.
func TestConcurrentInsertAndUpdate(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	execSQL(t, db.Session(), "CREATE TABLE t (a int, b int); INSERT INTO t VALUES (0, 0)")
	const n = 500
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	run := func(sql string) {
		defer wg.Done()
		s := db.NewSession()
		for i := 0; i < n; i++ {
			if _, err := s.Exec(ctx, sql); err != nil {
				errs <- err
				return
			}
		}
	}
	wg.Add(2)
	go run("INSERT INTO t VALUES (1, 0)")
	go run("UPDATE t SET b = b + 1 WHERE a = 0")
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d|%d", n+1, n)
	if got := queryRows(t, db.Session(), "SELECT count(*), max(b) FROM t"); !reflect.DeepEqual(got, []string{want}) {
		t.Errorf("count, max(b) = %q, want %s", got, want)
	}
}

// TestDescribeRelation checks the catalog introspection behind \d.
func TestDescribeRelation(t *testing.T) {
	s := openDB(t).NewSession()
	execSQL(t, s, `CREATE TABLE plain (id int NOT NULL DEFAULT 5, name varchar(10), flag boolean DEFAULT true);
		CREATE TABLE m (city text NOT NULL, day date) PARTITION BY RANGE (day);
		CREATE TABLE m2024 PARTITION OF m FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
		CREATE TABLE mdefault PARTITION OF m DEFAULT;
		CREATE TABLE l (k int) PARTITION BY LIST (k);
		CREATE TABLE l1 PARTITION OF l FOR VALUES IN (1, NULL);
		CREATE SCHEMA other;
		CREATE TABLE other.hidden (a int)`)

	rels, err := s.ListRelations()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rels {
		got = append(got, r.Schema+"."+r.Name+" "+r.Kind)
	}
	want := []string{"public.plain table", "public.m partitioned table", "public.m2024 table",
		"public.mdefault table", "public.l partitioned table", "public.l1 table"}
	if !sameElements(got, want) {
		t.Errorf("ListRelations gave %q, want %q in any order", got, want)
	}

	for _, tc := range []struct {
		name string
		want pgfed.RelationDesc
	}{
		{"plain", pgfed.RelationDesc{Schema: "public", Name: "plain", Kind: "table", Columns: []pgfed.ColumnDesc{
			{Name: "id", Type: "integer", NotNull: true, Default: "5"},
			{Name: "name", Type: "character varying(10)"},
			{Name: "flag", Type: "boolean", Default: "true"},
		}}},
		{"m", pgfed.RelationDesc{Schema: "public", Name: "m", Kind: "partitioned table",
			Columns:      []pgfed.ColumnDesc{{Name: "city", Type: "text", NotNull: true}, {Name: "day", Type: "date"}},
			PartitionKey: "RANGE (day)",
			Partitions:   []string{"m2024 FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')", "mdefault DEFAULT"},
		}},
		{"public.m2024", pgfed.RelationDesc{Schema: "public", Name: "m2024", Kind: "table",
			Columns:        []pgfed.ColumnDesc{{Name: "city", Type: "text", NotNull: true}, {Name: "day", Type: "date"}},
			PartitionOf:    "m",
			PartitionBound: "FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
		}},
		{"mdefault", pgfed.RelationDesc{Schema: "public", Name: "mdefault", Kind: "table",
			Columns:        []pgfed.ColumnDesc{{Name: "city", Type: "text", NotNull: true}, {Name: "day", Type: "date"}},
			PartitionOf:    "m",
			PartitionBound: "DEFAULT",
		}},
		{"l1", pgfed.RelationDesc{Schema: "public", Name: "l1", Kind: "table",
			Columns:        []pgfed.ColumnDesc{{Name: "k", Type: "integer"}},
			PartitionOf:    "l",
			PartitionBound: "FOR VALUES IN (1, NULL)",
		}},
		{"other.hidden", pgfed.RelationDesc{Schema: "other", Name: "hidden", Kind: "table",
			Columns: []pgfed.ColumnDesc{{Name: "a", Type: "integer"}},
		}},
	} {
		d, err := s.DescribeRelation(tc.name)
		if err != nil {
			t.Errorf("DescribeRelation(%q): %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(*d, tc.want) {
			t.Errorf("DescribeRelation(%q) =\n%+v\nwant\n%+v", tc.name, *d, tc.want)
		}
	}

	for _, name := range []string{"nosuch", "hidden", "PLAIN2", `"Plain"`} {
		_, err := s.DescribeRelation(name)
		checkError(t, err, "42P01", fmt.Sprintf("Did not find any relation named %q.", name))
	}
}

// sameElements reports whether a and b hold the same strings in any order.
func sameElements(a, b []string) bool {
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return len(a) == len(b)
}

// TestDescribeRelationDefaults: \d shows a column's default as
// pg_get_expr prints the stored expression, with the casts the parser
// added.
func TestDescribeRelationDefaults(t *testing.T) {
	s := openDB(t).NewSession()
	execSQL(t, s, `CREATE TABLE t (note text DEFAULT 'none', day date DEFAULT '2024-01-01',
		total bigint DEFAULT 6 * 7, neg int DEFAULT -1, v varchar(10) DEFAULT 'anon', flag boolean DEFAULT 1 < 2)`)
	d, err := s.DescribeRelation("t")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range d.Columns {
		got = append(got, c.Default)
	}
	want := []string{"'none'::text", "'2024-01-01'::date", "(6 * 7)", "'-1'::integer", "'anon'::character varying", "1 < 2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("defaults %q\nwant %q", got, want)
	}
}

// TestExplainPartitionAliases: PostgreSQL names each partition scanned
// through its parent with an alias derived from the parent's.
func TestExplainPartitionAliases(t *testing.T) {
	s := openDB(t).NewSession()
	execSQL(t, s, `CREATE TABLE p (k int) PARTITION BY RANGE (k);
		CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (50);
		CREATE TABLE p2 PARTITION OF p FOR VALUES FROM (50) TO (100)`)
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{"EXPLAIN (COSTS OFF) SELECT * FROM p", []string{"Append", "  ->  Seq Scan on p1 p_1", "  ->  Seq Scan on p2 p_2"}},
		{"EXPLAIN (COSTS OFF) SELECT * FROM p WHERE k = 60", []string{"Seq Scan on p2 p", "  Filter: (k = 60)"}},
	} {
		if got := queryRows(t, s, tc.sql); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n%s\nwant\n%s", tc.sql, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}

// TestClosedSession: a closed session, like a closed connection, runs no
// more statements.
func TestClosedSession(t *testing.T) {
	db := openDB(t)
	s := db.NewSession()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Exec(context.Background(), "SELECT 1"); err == nil {
		t.Error("Exec on a closed session succeeded")
	}
}

// TestNoticeHandlerOption: WithNoticeHandler reaches every session,
// SetNoticeHandler overrides it for one.
func TestNoticeHandlerOption(t *testing.T) {
	var got []string
	db, err := pgfed.Open(pgfed.WithNoticeHandler(func(n *pgfed.Notice) { got = append(got, n.Message) }))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.Exec(ctx, "DROP TABLE IF EXISTS nope"); err != nil {
		t.Fatal(err)
	}
	s := db.NewSession()
	if _, err := s.Exec(ctx, "DROP TABLE IF EXISTS nope2"); err != nil {
		t.Fatal(err)
	}
	var own []string
	s.SetNoticeHandler(func(n *pgfed.Notice) { own = append(own, n.Message) })
	if _, err := s.Exec(ctx, "DROP TABLE IF EXISTS nope3"); err != nil {
		t.Fatal(err)
	}
	want := []string{`table "nope" does not exist, skipping`, `table "nope2" does not exist, skipping`}
	if !reflect.DeepEqual(got, want) || len(own) != 1 || own[0] != `table "nope3" does not exist, skipping` {
		t.Errorf("engine handler got %q, session handler %q", got, own)
	}
	if pgfed.ErrorCode(nil) != "" {
		t.Error("ErrorCode(nil) is not empty")
	}
	if _, err := s.Exec(ctx, "SELECT 1/0"); pgfed.ErrorCode(err) != "22012" {
		t.Errorf("ErrorCode: %q", pgfed.ErrorCode(err))
	}
}
