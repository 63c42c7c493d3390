package remote

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// openCursor declares a cursor, failing the test on error.
func openCursor(t testing.TB, c *Conn, sql string) *Cursor {
	t.Helper()
	cu, err := c.OpenCursor(context.Background(), sql)
	if err != nil {
		t.Fatalf("OpenCursor(%s): %v", sql, err)
	}
	return cu
}

// queryText runs sql through QueryText, failing the test on error.
func queryText(t testing.TB, c *Conn, sql string, args ...any) [][]*string {
	t.Helper()
	rows, err := c.QueryText(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("QueryText(%s): %v", sql, err)
	}
	return rows
}

// checkLikeText fetches sql into local types cols with fetch size n and
// compares the values, rendered with pgfed's output functions, to the
// remote server's own text output of the same query.
func checkLikeText(t *testing.T, c *Conn, sql string, n int, cols []types.T) {
	t.Helper()
	want := queryText(t, c, sql)
	cu := openCursor(t, c, sql)
	got, _ := fetchAll(t, cu, n, cols)
	if err := cu.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(showRows(want), showRows(got)); diff != "" {
		t.Errorf("%s: fetched values differ from the remote text output (-text +fetched):\n%s", sql, diff)
	}
}

func TestFetchEveryType(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, `CREATE TABLE every (id int, b bool, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
		n numeric, tx text, vc varchar(5), bc char(5), nm name, d date, ts timestamp, tz timestamptz)`)
	db.exec(t, `INSERT INTO every VALUES
		(1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
		(2, true, -32768, -2147483648, -9223372036854775808, '-Infinity', '-Infinity', '-Infinity',
			'', '', '', '', '-infinity', '-infinity', '-infinity'),
		(3, false, 32767, 2147483647, 9223372036854775807, 'Infinity', 'Infinity', 'Infinity',
			'héllo wörld ✓', 'abcde', 'ab', 'pg_class', 'infinity', 'infinity', 'infinity'),
		(4, true, 0, 0, 0, 'NaN', 'NaN', 'NaN', E'it''s "q" \\ \t', 'x', 'x', 'x',
			'4714-11-24 BC', '4714-11-24 00:00:00 BC', '4714-11-24 00:00:00+00 BC'),
		(5, false, -1, -1, -1, '-0', '-0', '-0', 'a', 'a', 'abcde', 'a',
			'2000-01-01', '2000-01-01 00:00:00.000001', '1999-12-31 23:59:59.999999+00'),
		(6, true, 1, 1, 1, 1.1, 0.1, 0.0100, 'b', 'b', 'b', 'b',
			'1970-01-01', '1970-01-01 00:00:00', '1969-12-31 23:59:59.999999+00'),
		(7, true, 2, 2, 2, '1.4e-45', '5e-324', -0.0100, 'c', 'c', 'c', 'c',
			'0001-01-01 BC', '0001-12-31 23:59:59.5 BC', '1900-02-28 12:00:00+00'),
		(8, true, 3, 3, 3, '3.4028235e38', '1.7976931348623157e308', 12345678901234567890.123456789012345678901,
			'd', 'd', 'd', 'd', '5874897-12-31', '200000-12-31 23:59:59.999999', '2021-06-01 12:34:56.789012+02')`)
	m := newManager(t)
	c := db.conn(t, m)
	cols := []types.T{types.Int4T, types.BoolT, types.Int2T, types.Int4T, types.Int8T, types.Float4T,
		types.Float8T, types.NumericT, types.TextT, {ID: types.Varchar, Len: 5}, {ID: types.Bpchar, Len: 5},
		types.TextT, types.DateT, types.TimestampT, types.TimestampTZT}
	sql := "SELECT id, b, i2, i4, i8, f4, f8, n, tx, vc, bc, nm, d, ts, tz FROM public.every ORDER BY id"
	for _, n := range []int{1, 3, 100} {
		checkLikeText(t, c, sql, n, cols)
	}
	// Spot checks against the Arrow representation itself.
	cu := openCursor(t, c, "SELECT d, ts, tz, bc FROM public.every WHERE id = 5")
	local := []types.T{types.DateT, types.TimestampT, types.TimestampTZT, {ID: types.Bpchar, Len: 5}}
	b, eof, err := cu.Fetch(context.Background(), 10, schemaFor(local), local)
	if err != nil || !eof || b.NumRows() != 1 {
		t.Fatalf("Fetch: %v %v %v", b, eof, err)
	}
	defer b.Release()
	if got := datumAt(t, b.Column(0), 0).(int32); got != 10957 {
		t.Errorf("date 2000-01-01 = %d days since 1970, want 10957", got)
	}
	if got := datumAt(t, b.Column(1), 0).(int64); got != 946684800000001 {
		t.Errorf("timestamp 2000-01-01 00:00:00.000001 = %d µs since 1970", got)
	}
	if got := datumAt(t, b.Column(2), 0).(int64); got != 946684799999999 {
		t.Errorf("timestamptz 1999-12-31 23:59:59.999999+00 = %d µs since 1970", got)
	}
	if b.Column(1).NullN() != 0 || b.Column(0).Data().Buffers()[0] != nil {
		t.Errorf("a column without NULLs has a validity bitmap")
	}
}

func TestFetchNumeric(t *testing.T) {
	db := newTestDB(t)
	m := newManager(t)
	c := db.conn(t, m)
	values := []string{"0", "0.0100", "-0.0100", "-0", "0.000", "NaN", "Infinity", "-Infinity", "1", "-1",
		"9999", "10000", "10001", "99999999", "100000000", "0.00000001", "1e-20", "1.000", "1e100",
		"-123456789012345678901234567890.000000000000000000001", "3.14159265358979323846264338327950288",
		"0.1", "0.12345", "12345.6789", "-0.00001", "1000000000000000000000000", "0.0000000000000000000000000001",
	}
	var sql strings.Builder
	sql.WriteString("SELECT v::numeric FROM (VALUES ")
	for i, v := range values {
		if i > 0 {
			sql.WriteString(", ")
		}
		fmt.Fprintf(&sql, "(%d, '%s')", i, v)
	}
	sql.WriteString(") AS t(i, v) ORDER BY i")
	checkLikeText(t, c, sql.String(), 7, []types.T{types.NumericT})
	// Two rows in one batch share the string data; check each one.
	checkLikeText(t, c, "SELECT 0.0100::numeric, NULL::numeric, 1.5::numeric(3,1)", 2,
		[]types.T{types.NumericT, types.NumericT, types.NumericT})
}

func TestFetchSizesAndEOF(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "CREATE TABLE big AS SELECT i AS id, i::int8 * 3 AS v FROM generate_series(1, 25000) AS i")
	m := newManager(t)
	c := db.conn(t, m)
	cols := []types.T{types.Int4T, types.Int8T}
	for _, tc := range []struct {
		n, rows int
		counts  []int
	}{
		{1, 0, []int{0}},
		{1, 3, []int{1, 1, 1, 0}},
		{100, 250, []int{100, 100, 50}},
		{100, 300, []int{100, 100, 100, 0}},
		{10000, 25000, []int{10000, 10000, 5000}},
		{10000, 20000, []int{10000, 10000, 0}},
	} {
		sql := fmt.Sprintf("SELECT id, v FROM public.big WHERE id <= %d ORDER BY id", tc.rows)
		cu := openCursor(t, c, sql)
		rows, counts := fetchAll(t, cu, tc.n, cols)
		if !cmp.Equal(counts, tc.counts) {
			t.Errorf("fetch %d of %d rows: batches %v, want %v", tc.n, tc.rows, counts, tc.counts)
		}
		if len(rows) != tc.rows {
			t.Fatalf("got %d rows, want %d", len(rows), tc.rows)
		}
		for i, r := range rows {
			if *r[0] != fmt.Sprint(i+1) || *r[1] != fmt.Sprint(3*(i+1)) {
				t.Fatalf("row %d = %s", i, showRows(rows[i:i+1]))
			}
		}
		// A fetch past the end keeps answering "no rows".
		b, eof, err := cu.Fetch(context.Background(), tc.n, schemaFor(cols), cols)
		if b != nil || !eof || err != nil {
			t.Fatalf("fetch after eof: %v %v %v", b, eof, err)
		}
		if err := cu.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.EndTransaction(context.Background(), true); err != nil {
		t.Fatal(err)
	}
}

func TestFetchWithoutColumns(t *testing.T) {
	// A scan that only counts rows (count(*)) asks for no columns; the
	// remote query still returns one (SELECT NULL FROM ...).
	db := newTestDB(t)
	m := newManager(t)
	c := db.conn(t, m)
	cu := openCursor(t, c, "SELECT NULL FROM generate_series(1, 250)")
	total := 0
	for {
		b, eof, err := cu.Fetch(context.Background(), 100, schemaFor(nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		if b != nil {
			if b.NumCols() != 0 {
				t.Fatalf("batch has %d columns", b.NumCols())
			}
			total += int(b.NumRows())
			b.Release()
		}
		if eof {
			break
		}
	}
	if total != 250 {
		t.Fatalf("counted %d rows, want 250", total)
	}
}

func TestInterleavedCursors(t *testing.T) {
	// Two scans of one statement share the connection (and snapshot).
	db := newTestDB(t)
	m := newManager(t)
	c := db.conn(t, m)
	cu1 := openCursor(t, c, "SELECT i FROM generate_series(1, 5) AS i")
	cu2 := openCursor(t, c, "SELECT -i FROM generate_series(1, 5) AS i")
	if cu1.name != "c1" || cu2.name != "c2" {
		t.Fatalf("cursor names %s, %s", cu1.name, cu2.name)
	}
	cols := []types.T{types.Int8T}
	var got []string
	for range 3 {
		for _, cu := range []*Cursor{cu1, cu2} {
			b, _, err := cu.Fetch(context.Background(), 2, schemaFor(cols), cols)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range batchText(t, b, cols) {
				got = append(got, *r[0])
			}
			b.Release()
		}
	}
	want := []string{"1", "2", "-1", "-2", "3", "4", "-3", "-4", "5", "-5"}
	if !cmp.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if err := m.EndTransaction(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	// Cursor numbers start again with the next statement.
	c = db.conn(t, m)
	if cu := openCursor(t, c, "SELECT 1"); cu.name != "c1" {
		t.Fatalf("first cursor of the next statement is %s", cu.name)
	}
	// A cursor of an ended statement is gone: closing it sends nothing.
	if err := cu1.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestConversions(t *testing.T) {
	db := newTestDB(t)
	m := newManager(t)
	c := db.conn(t, m)
	vc3 := types.T{ID: types.Varchar, Len: 3}
	ch4 := types.T{ID: types.Bpchar, Len: 4}
	num51 := types.T{ID: types.Numeric, Len: -1, Precision: 5, Scale: 1}
	for _, tc := range []struct {
		sql  string
		t    types.T
		want []string // "\x00" = NULL
	}{
		{"SELECT v::int8 FROM (VALUES (1), (2147483647), (-2147483648), (NULL)) t(v)", types.Int4T,
			[]string{"1", "2147483647", "-2147483648", "\x00"}},
		{"SELECT v::int4 FROM (VALUES (-32768), (32767)) t(v)", types.Int2T, []string{"-32768", "32767"}},
		{"SELECT v::int2 FROM (VALUES (-32768), (7)) t(v)", types.Int8T, []string{"-32768", "7"}},
		{"SELECT v::text FROM (VALUES ('abc'), ('ab'), ('abc   '), (NULL)) t(v)", vc3,
			[]string{"abc", "ab", "abc", "\x00"}},
		{"SELECT v::text FROM (VALUES ('ab'), ('abcd')) t(v)", ch4, []string{"ab  ", "abcd"}},
		{"SELECT 'ab'::char(4)", types.TextT, []string{"ab  "}}, // bpcharout keeps the padding
		{"SELECT 1.25::numeric(10,2)", num51, []string{"1.3"}},
		{"SELECT 1.1::float4", types.Float8T, []string{"1.1"}},
		{"SELECT 42::int4", types.TextT, []string{"42"}},
		{"SELECT true", types.TextT, []string{"t"}},
		{"SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", types.TextT, []string{"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}},
		{"SELECT interval '1 day 2 hours'", types.TextT, []string{"1 day 02:00:00"}},
		{"SELECT ARRAY[1, 2]", types.TextT, []string{"{1,2}"}},
		{`SELECT '{"a": 1}'::jsonb`, types.TextT, []string{`{"a": 1}`}},
		{"SELECT '12'::text", types.Int4T, []string{"12"}},
		{"SELECT 7::int4", types.NumericT, []string{"7"}},
		{"SELECT 2.5::numeric", types.Float8T, []string{"2.5"}},
		{"SELECT '2020-01-02'::date", types.TimestampT, []string{"2020-01-02 00:00:00"}},
		{"SELECT '2020-01-02 03:04:05+00'::timestamptz", types.TimestampT, []string{"2020-01-02 03:04:05"}},
		{"SELECT '2020-01-02 03:04:05'::timestamp", types.TimestampTZT, []string{"2020-01-02 03:04:05+00"}},
		{"SELECT 'yes'::text", types.BoolT, []string{"t"}},
		{"SELECT 123::oid", types.Int8T, []string{"123"}},
	} {
		cols := []types.T{tc.t}
		cu := openCursor(t, c, tc.sql)
		got, _ := fetchAll(t, cu, 10, cols)
		if diff := cmp.Diff(showRows(strs(wrap(tc.want)...)), showRows(got)); diff != "" {
			t.Errorf("%s into %s (-want +got):\n%s", tc.sql, tc.t, diff)
		}
		_ = cu.Close(context.Background())
	}

	// Conversion errors are the local input function's.
	for _, tc := range []struct {
		sql     string
		t       types.T
		code    string
		message string
	}{
		{"SELECT 3000000000::int8", types.Int4T, pgerr.NumericValueOutOfRange, `^value "3000000000" is out of range for type integer$`},
		{"SELECT -40000", types.Int2T, pgerr.NumericValueOutOfRange, `^value "-40000" is out of range for type smallint$`},
		{"SELECT 'abcd'::text", vc3, pgerr.StringDataRightTruncation, `^value too long for type character varying\(3\)$`},
		{"SELECT 'abcde'::varchar", ch4, pgerr.StringDataRightTruncation, `^value too long for type character\(4\)$`},
		{"SELECT 1.5::numeric", types.Int4T, pgerr.InvalidTextRepresentation, `^invalid input syntax for type integer: "1.5"$`},
		{"SELECT 12345.6::numeric", num51, pgerr.NumericValueOutOfRange, `^numeric field overflow$`},
		{"SELECT '294276-12-31'::timestamp", types.TimestampT, pgerr.DatetimeFieldOverflow, `^timestamp out of range$`},
	} {
		cols := []types.T{tc.t}
		cu := openCursor(t, c, tc.sql)
		_, _, err := cu.Fetch(context.Background(), 10, schemaFor(cols), cols)
		wantError(t, err, tc.code, tc.message)
		// The remote transaction is intact: the cursor can be closed and
		// the next one opened.
		if err := cu.Close(context.Background()); err != nil {
			t.Fatalf("Close after a conversion error: %v", err)
		}
	}
	if err := m.EndTransaction(context.Background(), true); err != nil {
		t.Fatal(err)
	}
}

func wrap(vals []string) [][]string {
	out := make([][]string, len(vals))
	for i, v := range vals {
		out[i] = []string{v}
	}
	return out
}

func TestRemoteErrors(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, `CREATE FUNCTION public.boom() RETURNS int LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'boom %', 1 USING DETAIL = 'the detail', HINT = 'the hint', ERRCODE = 'P0042'; END $$`)
	m := newManager(t)
	cols := []types.T{types.Int4T}
	ctx := context.Background()

	// The planner folds 1/0 already, so DECLARE fails.
	c := db.conn(t, m)
	_, err := c.OpenCursor(ctx, "SELECT 1/0")
	pe := wantError(t, err, pgerr.DivisionByZero, "^division by zero$")
	if pe.Context != "remote SQL command: SELECT 1/0" {
		t.Errorf("CONTEXT %q", pe.Context)
	}
	if err := m.EndTransaction(ctx, false); err != nil {
		t.Fatal(err)
	}

	// An error while fetching names the cursor's query too, as in
	// postgres_fdw.
	c = db.conn(t, m)
	query := "SELECT 1/(i - 3) FROM generate_series(1, 5) AS i"
	cu := openCursor(t, c, query)
	b, _, err := cu.Fetch(ctx, 1, schemaFor(cols), cols)
	if err != nil || b.NumRows() != 1 {
		t.Fatalf("first row: %v", err)
	}
	b.Release()
	_, _, err = cu.Fetch(ctx, 100, schemaFor(cols), cols)
	pe = wantError(t, err, pgerr.DivisionByZero, "^division by zero$")
	if pe.Context != "remote SQL command: "+query {
		t.Errorf("CONTEXT %q", pe.Context)
	}
	if err := cu.Close(ctx); err != nil {
		t.Errorf("Close of a cursor in a failed transaction: %v", err)
	}
	if err := m.EndTransaction(ctx, false); err != nil {
		t.Fatal(err)
	}

	// An error in DECLARE.
	c = db.conn(t, m)
	_, err = c.OpenCursor(ctx, "SELEC 1")
	pe = wantError(t, err, pgerr.SyntaxError, `^syntax error at or near "SELEC"$`)
	if pe.Context != "remote SQL command: SELEC 1" || pe.Position != 0 {
		t.Errorf("CONTEXT %q, position %d", pe.Context, pe.Position)
	}
	if err := m.EndTransaction(ctx, false); err != nil {
		t.Fatal(err)
	}

	// DETAIL, HINT and the remote's own CONTEXT are kept.
	c = db.conn(t, m)
	cu = openCursor(t, c, "SELECT public.boom()")
	_, _, err = cu.Fetch(ctx, 100, schemaFor(cols), cols)
	pe = wantError(t, err, "P0042", "^boom 1$")
	if pe.Detail != "the detail" || pe.Hint != "the hint" ||
		pe.Context != "PL/pgSQL function public.boom() line 2 at RAISE\nremote SQL command: SELECT public.boom()" {
		t.Errorf("detail %q, hint %q, context %q", pe.Detail, pe.Hint, pe.Context)
	}
	if err := m.EndTransaction(ctx, false); err != nil {
		t.Fatal(err)
	}

	// QueryText errors.
	c = db.conn(t, m)
	_, err = c.QueryText(ctx, "SELECT * FROM nowhere WHERE x = $1", "a")
	pe = wantError(t, err, pgerr.UndefinedTable, `^relation "nowhere" does not exist$`)
	if pe.Context != "remote SQL command: SELECT * FROM nowhere WHERE x = $1" {
		t.Errorf("CONTEXT %q", pe.Context)
	}
	if err := m.EndTransaction(ctx, false); err != nil {
		t.Fatal(err)
	}

	// The connection survived all of it.
	c = db.conn(t, m)
	if rows := queryText(t, c, "SELECT $1::int + $2, $3::text IS NULL", 1, int64(2), nil); *rows[0][0] != "3" || *rows[0][1] != "t" {
		t.Fatalf("got %s", showRows(rows))
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	if n := len(m.Connections()); n != 1 {
		t.Fatalf("%d connections, want 1", n)
	}
}

// fetchTogether runs one FetchTogether of n rows from each cursor and
// returns, per cursor, its rows as text, eof and error.
func fetchTogether(t *testing.T, c *Conn, n int, cols []types.T, cus ...*Cursor) (rows [][]string, eofs []bool, errs []error) {
	t.Helper()
	reqs := make([]*FetchRequest, len(cus))
	for i, cu := range cus {
		reqs[i] = &FetchRequest{Cursor: cu, N: n, Schema: schemaFor(cols), Cols: cols}
	}
	c.FetchTogether(context.Background(), reqs)
	for _, r := range reqs {
		var vals []string
		if r.Batch != nil {
			for _, row := range batchText(t, r.Batch, cols) {
				vals = append(vals, *row[0])
			}
			r.Batch.Release()
		}
		rows = append(rows, vals)
		eofs = append(eofs, r.EOF)
		errs = append(errs, r.Err)
	}
	return rows, eofs, errs
}

// TestFetchTogether: the FETCHes of several cursors of one connection go
// out in one round trip, and each cursor gets its own rows and end.
func TestFetchTogether(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "ALTER DATABASE "+db.name+" SET log_statement = 'all'")
	m := newManager(t)
	ctx := context.Background()
	cols := []types.T{types.Int8T}
	c := db.conn(t, m)
	pid := c.pg.PID()
	short := openCursor(t, c, "SELECT i FROM generate_series(1, 3) AS i")
	long := openCursor(t, c, "SELECT -i FROM generate_series(1, 5) AS i")
	empty := openCursor(t, c, "SELECT 0 WHERE false")
	type round struct {
		rows [][]string
		eofs []bool
	}
	var got []round
	for range 3 {
		rows, eofs, errs := fetchTogether(t, c, 2, cols, short, long, empty)
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		got = append(got, round{rows, eofs})
	}
	want := []round{
		{[][]string{{"1", "2"}, {"-1", "-2"}, nil}, []bool{false, false, true}},
		{[][]string{{"3"}, {"-3", "-4"}, nil}, []bool{true, false, true}},
		{[][]string{nil, {"-5"}, nil}, []bool{true, true, true}},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(round{})); diff != "" {
		t.Errorf("rounds (-want +got):\n%s", diff)
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	// Each round was one pipeline: the server logged its FETCHes in order.
	var fetches []string
	for _, s := range db.remoteLog(t, pid) {
		if strings.HasPrefix(s, "FETCH") {
			fetches = append(fetches, s)
		}
	}
	if len(fetches) != 9 || fetches[0] != "FETCH 2 FROM c1" || fetches[1] != "FETCH 2 FROM c2" || fetches[2] != "FETCH 2 FROM c3" {
		t.Errorf("remote FETCHes %q", fetches)
	}

	// A remote error in the middle: the cursors before it get their
	// rows, the failing one and those after it the error, and the
	// connection is still usable by the next statement.
	c = db.conn(t, m)
	ok1 := openCursor(t, c, "SELECT i FROM generate_series(1, 3) AS i")
	bad := openCursor(t, c, "SELECT 1/(i - 2) FROM generate_series(1, 3) AS i")
	ok2 := openCursor(t, c, "SELECT i FROM generate_series(1, 3) AS i")
	rows, _, errs := fetchTogether(t, c, 5, cols, ok1, bad, ok2)
	if errs[0] != nil || !cmp.Equal(rows[0], []string{"1", "2", "3"}) {
		t.Errorf("cursor before the error: %q, %v", rows[0], errs[0])
	}
	wantError(t, errs[1], pgerr.DivisionByZero, "^division by zero$")
	wantError(t, errs[2], pgerr.DivisionByZero, "^division by zero$")
	if err := m.EndTransaction(ctx, false); err != nil {
		t.Fatal(err)
	}

	// A value that does not fit the local type fails its cursor and those
	// after it (the statement fails anyway); the results still on the
	// wire are read, so that the connection stays in step.
	c = db.conn(t, m)
	big := openCursor(t, c, "SELECT 3000000000::int8")
	fine := openCursor(t, c, "SELECT 7")
	int4 := []types.T{types.Int4T}
	rows, _, errs = fetchTogether(t, c, 5, int4, big, fine)
	wantError(t, errs[0], pgerr.NumericValueOutOfRange, "out of range")
	if errs[1] != errs[0] || rows[1] != nil {
		t.Errorf("cursor after a decode error: %q, %v", rows[1], errs[1])
	}
	if err := m.EndTransaction(ctx, false); err != nil {
		t.Fatal(err)
	}
	c = db.conn(t, m)
	if rows := queryText(t, c, "SELECT 1"); *rows[0][0] != "1" {
		t.Fatalf("after the errors: %s", showRows(rows))
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
}

// TestFetchPrepared: a FETCH text is prepared once per connection and
// reused by later statements' cursors of the same name, whatever their
// columns; a pipeline that failed before its Parse ran prepares again.
func TestFetchPrepared(t *testing.T) {
	db := newTestDB(t)
	m := newManager(t)
	ctx := context.Background()
	ints, texts := []types.T{types.Int8T}, []types.T{types.TextT}
	fetch := func(cu *Cursor, cols []types.T) ([]string, error) {
		b, _, err := cu.Fetch(ctx, 2, schemaFor(cols), cols)
		if err != nil || b == nil {
			return nil, err
		}
		defer b.Release()
		var out []string
		for _, r := range batchText(t, b, cols) {
			out = append(out, *r[0])
		}
		return out, nil
	}
	prepared := func(c *Conn) string {
		rows := queryText(t, c, "SELECT string_agg(name || ': ' || statement, '; ' ORDER BY name) FROM pg_prepared_statements")
		if rows[0][0] == nil {
			return ""
		}
		return *rows[0][0]
	}
	c := db.conn(t, m)
	got, err := fetch(openCursor(t, c, "SELECT i FROM generate_series(1, 3) AS i"), ints)
	if err != nil || !cmp.Equal(got, []string{"1", "2"}) {
		t.Fatalf("first statement: %q, %v", got, err)
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	c = db.conn(t, m)
	got, err = fetch(openCursor(t, c, "SELECT 'x' || i FROM generate_series(1, 3) AS i"), texts)
	if err != nil || !cmp.Equal(got, []string{"x1", "x2"}) {
		t.Fatalf("second statement, other column type: %q, %v", got, err)
	}
	if p := prepared(c); p != "pgfed_fetch_1: FETCH 2 FROM c1" {
		t.Errorf("prepared statements %q, want the one FETCH", p)
	}
	// c2 fails, so the server skips the Parse of c3's FETCH, new in the
	// same pipeline: the next c3 must prepare it again.
	bad := openCursor(t, c, "SELECT 1/(i - 2) FROM generate_series(1, 3) AS i") // c2
	skipped := openCursor(t, c, "SELECT 1")                                     // c3
	reqs := []*FetchRequest{
		{Cursor: bad, N: 2, Schema: schemaFor(ints), Cols: ints},
		{Cursor: skipped, N: 2, Schema: schemaFor(ints), Cols: ints},
	}
	c.FetchTogether(ctx, reqs)
	wantError(t, reqs[0].Err, pgerr.DivisionByZero, "division by zero")
	wantError(t, reqs[1].Err, pgerr.DivisionByZero, "division by zero")
	if err := m.EndTransaction(ctx, false); err != nil {
		t.Fatal(err)
	}
	c = db.conn(t, m)
	for range 2 {
		openCursor(t, c, "SELECT 5")
	}
	got, err = fetch(openCursor(t, c, "SELECT 4"), ints) // c3
	if err != nil || !cmp.Equal(got, []string{"4"}) {
		t.Fatalf("after a failed pipeline: %q, %v", got, err)
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
}
