package pgfed_test

// Tests of COPY FROM over inputs of many chunks (commands/copy_load.go
// parses them on several goroutines) and over reads cut anywhere: the
// rows, their order, the errors and their lines must be those of a
// reading line by line.

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pgfed/pgfed"
)

const streamTable = `CREATE TABLE s (id int NOT NULL, i2 smallint, i8 bigint, n numeric(12,3), nn numeric,
	c char(4), v varchar(6), t text, d date, f float8, b boolean, ts timestamp)`

// streamRow is row i in canonical COPY text (what COPY TO writes back),
// with NULLs, escapes and values that are not on the fast paths.
func streamRow(i int) string {
	null := func(k int, v string) string {
		if (i+k)%13 == 0 {
			return `\N`
		}
		return v
	}
	return strings.Join([]string{
		fmt.Sprint(i),
		null(1, fmt.Sprint(i%32768-16384)),
		null(2, fmt.Sprint(int64(i)*1000003-500000000000)),
		null(3, fmt.Sprintf("%d.%03d", i%100000-50000, i%1000)),
		null(4, []string{"0.5", "123456789012345678901234.5", "-7", "0.001"}[i%4]),
		null(5, []string{"ab  ", "é   ", "abcd", "    "}[i%4]),
		null(6, []string{"", "x", "日本語", "abcdef"}[i%4]),
		null(7, []string{`tab\there`, `back\\slash`, `line\nbreak`, "plain words", `\\N`}[i%5]),
		null(8, fmt.Sprintf("%04d-%02d-%02d", 1990+i%40, 1+i%12, 1+i%28)),
		null(9, []string{"1.5", "-0.25", "1e+100", "NaN"}[i%4]),
		null(10, []string{"t", "f"}[i%2]),
		null(11, strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("2024-%02d-%02d %02d:%02d:%02d.%06d", 1+i%12, 1+i%28, i%24, i%60, i%59, i*7%1000000), "0"), ".")),
	}, "\t") + "\n"
}

func streamInput(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(streamRow(i))
	}
	return b.String()
}

func copyInReader(s *pgfed.Session, sql string, r io.Reader) (string, error) {
	s.SetCopyHandler(&copyStreams{in: r})
	defer s.SetCopyHandler(nil)
	return s.Exec(context.Background(), sql)
}

// TestCopyFromManyChunks loads 140,000 rows and writes them back: the
// same text, in the same order.
func TestCopyFromManyChunks(t *testing.T) {
	in := streamInput(140_000)
	s := openDB(t).NewSession()
	execSQL(t, s, streamTable)
	tag, err := copyIn(s, "COPY s FROM STDIN", in)
	if err != nil || tag != "COPY 140000" {
		t.Fatalf("%q, %v", tag, err)
	}
	if got := copyOut(t, s, "COPY s TO STDOUT"); got != in {
		diffLines(t, got, in)
	}
}

// TestCopyFromCutReads reads the input a byte at a time and in reads of
// every size: lines, CRLFs and quoted fields cut between reads.
func TestCopyFromCutReads(t *testing.T) {
	text := streamInput(300)
	csv := "1,\"multi\r\nline, with \"\"quotes\"\"\",\"\"\r\n2,,x\r\n3,\"a\nb\nc\",\"\"\"\"\n"
	for _, tc := range []struct {
		name, table, copy, in, out string
	}{
		{"text", streamTable, "COPY s FROM STDIN", text, text},
		{"text CRLF", streamTable, "COPY s FROM STDIN", strings.ReplaceAll(text, "\n", "\r\n"), text},
		{"csv", "CREATE TABLE s (a int, b text, c text)", "COPY s FROM STDIN (FORMAT csv)", csv,
			"1\tmulti\\nline, with \"quotes\"\t\n2\t\\N\tx\n3\ta\\nb\\nc\t\"\n"},
	} {
		for name, r := range map[string]func(string) io.Reader{
			"one byte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
			"halves":   func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
			"data+EOF": func(s string) io.Reader { return iotest.DataErrReader(strings.NewReader(s)) },
		} {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				s := openDB(t).NewSession()
				execSQL(t, s, tc.table)
				if _, err := copyInReader(s, tc.copy, r(tc.in)); err != nil {
					t.Fatal(err)
				}
				if got := copyOut(t, s, "COPY s TO STDOUT"); got != tc.out {
					diffLines(t, got, tc.out)
				}
			})
		}
	}
}

// TestCopyFromSlowPaths: input the fast paths do not take gives what
// the types' input functions give.
func TestCopyFromSlowPaths(t *testing.T) {
	s := openDB(t).NewSession()
	execSQL(t, s, "CREATE TABLE p (i int, n numeric(6,2), m numeric, d date, c char(3), v varchar(3))")
	in := lines(
		" 42 \t 1.005 \t1e3\tJan 2 2024\té \tab   ",
		"+7\t-0.004\t-0.00\t2024-02-29\tabc  \tabc",
		"-2147483648\t9999.994\t.5\tepoch\t\tx",
		"0007\t+.5\t000123.4500\t  2024-01-01  \t日本\t日本語",
	)
	if _, err := copyIn(s, "COPY p FROM STDIN", in); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"42|1.01|1000|2024-01-02|é  |ab ",
		"7|0.00|0.00|2024-02-29|abc|abc",
		"-2147483648|9999.99|0.5|1970-01-01|   |x",
		"7|0.50|123.4500|2024-01-01|日本 |日本語",
	}
	if got := queryRows(t, s, "SELECT * FROM p"); !reflect.DeepEqual(got, want) {
		t.Errorf("rows %q\nwant %q", got, want)
	}
}

// TestCopyFromErrorsInLaterChunks: errors far into the input name their
// line, and the first line's error wins, whatever goroutine met it.
func TestCopyFromErrorsInLaterChunks(t *testing.T) {
	good := func(i int) string { return fmt.Sprintf("%d\tname %d\t2024-01-01\n", i, i) }
	input := func(n int, bad map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if v, ok := bad[i]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(good(i))
			}
		}
		return b.String()
	}
	for _, tc := range []struct {
		name    string
		bad     map[int]string
		code    string
		message string
		context string
	}{
		{"bad value", map[int]string{150_001: "x\ty\t2024-01-01\n"},
			"22P02", `invalid input syntax for type integer: "x"`, `COPY t, line 150001, column a: "x"`},
		{"bad date and a later bad value", map[int]string{70_000: "1\tz\t2024-02-30\n", 200_000: "x\ty\tz\n"},
			"22008", `date/time field value out of range: "2024-02-30"`, `COPY t, line 70000, column d: "2024-02-30"`},
		{"missing column", map[int]string{131_072: "5\tshort\n"},
			"22P04", `missing data for column "d"`, "COPY t, line 131072: \"5\tshort\""},
		{"extra column", map[int]string{131_073: "5\ta\t2024-01-01\tmore\n"},
			"22P04", "extra data after last expected column", "COPY t, line 131073: \"5\ta\t2024-01-01\tmore\""},
		{"NULL before a bad value", map[int]string{100_000: "\\N\tnull\t2024-01-01\n", 100_001: "x\ty\tz\n"},
			"23502", `null value in column "a" of relation "t" violates not-null constraint`, "COPY t, line 100000: \"\\N\tnull\t2024-01-01\""},
		{"bad value before a NULL", map[int]string{100_000: "x\ty\tz\n", 100_001: "\\N\tnull\t2024-01-01\n"},
			"22P02", `invalid input syntax for type integer: "x"`, `COPY t, line 100000, column a: "x"`},
		{"the first of two bad columns", map[int]string{99_999: "x\ty\tz\n"},
			"22P02", `invalid input syntax for type integer: "x"`, `COPY t, line 99999, column a: "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openDB(t).NewSession()
			execSQL(t, s, "CREATE TABLE t (a int NOT NULL, b text, d date); INSERT INTO t VALUES (0, 'before', NULL)")
			_, err := copyIn(s, "COPY t FROM STDIN", input(250_000, tc.bad))
			pe := checkError(t, err, tc.code, tc.message)
			if pe.Context != tc.context {
				t.Errorf("CONTEXT %q, want %q", pe.Context, tc.context)
			}
			if got := queryRows(t, s, "SELECT count(*) FROM t"); !reflect.DeepEqual(got, []string{"1"}) {
				t.Errorf("the failed COPY left %s rows, want the 1 from before", got)
			}
		})
	}
}

// TestCopyFromColumnListManyChunks: the columns COPY leaves out get their
// DEFAULT in every chunk.
func TestCopyFromColumnListManyChunks(t *testing.T) {
	s := openDB(t).NewSession()
	execSQL(t, s, "CREATE TABLE t (a int, note text DEFAULT 'none', b text, z int)")
	var in strings.Builder
	for i := 1; i <= 140_000; i++ {
		fmt.Fprintf(&in, "b%d,%d\n", i, i)
	}
	if tag, err := copyIn(s, "COPY t (b, a) FROM STDIN (FORMAT csv)", in.String()); err != nil || tag != "COPY 140000" {
		t.Fatalf("%q, %v", tag, err)
	}
	want := []string{"140000|140000|140000|9800070000|0"}
	if got := queryRows(t, s, "SELECT count(*), count(*) FILTER (WHERE note = 'none'), count(*) FILTER (WHERE b = 'b' || a), sum(a), count(z) FROM t"); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestCopyFromCancelled: cancelling a COPY that is reading many chunks
// ends it with 57014, storing nothing (and TestMain sees no goroutine
// left behind).
func TestCopyFromCancelled(t *testing.T) {
	s := openDB(t).NewSession()
	execSQL(t, s, "CREATE TABLE t (a int, b text)")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &cancellingReader{rows: 1_000_000, cancelAt: 300_000, cancel: cancel}
	s.SetCopyHandler(&copyStreams{in: r})
	_, err := s.Exec(ctx, "COPY t FROM STDIN")
	if code := pgfed.ErrorCode(err); code != "57014" {
		t.Fatalf("%v, want 57014", err)
	}
	if got := queryRows(t, s, "SELECT count(*) FROM t"); !reflect.DeepEqual(got, []string{"0"}) {
		t.Errorf("the cancelled COPY left %s rows", got)
	}
}

// cancellingReader yields rows lines and calls cancel once it has given
// cancelAt of them.
type cancellingReader struct {
	rows, cancelAt, n int
	cancel            func()
	pending           []byte
}

func (r *cancellingReader) Read(p []byte) (int, error) {
	for len(r.pending) < len(p) && r.n < r.rows {
		r.n++
		r.pending = fmt.Appendf(r.pending, "%d\tsome text\n", r.n)
		if r.n == r.cancelAt {
			r.cancel()
		}
	}
	if len(r.pending) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// diffLines reports the first line where got and want differ.
func diffLines(t *testing.T, got, want string) {
	t.Helper()
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("%d lines, want %d; line %d is\n%q\nwant\n%q", len(g), len(w), i+1, gl, wl)
		}
	}
}

// TestCopyFromManyChunksOneProc: with one processor the chunks are
// parsed on the statement's goroutine, one after another, with the same
// rows and errors.
func TestCopyFromManyChunksOneProc(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	s := openDB(t).NewSession()
	execSQL(t, s, "CREATE TABLE t (a int NOT NULL, b text)")
	var in strings.Builder
	for i := 1; i <= 140_000; i++ {
		fmt.Fprintf(&in, "%d\tb%d\n", i, i)
	}
	if tag, err := copyIn(s, "COPY t FROM STDIN", in.String()); err != nil || tag != "COPY 140000" {
		t.Fatalf("%q, %v", tag, err)
	}
	if got, want := queryRows(t, s, "SELECT count(*), sum(a), count(*) FILTER (WHERE b = 'b' || a) FROM t"), []string{"140000|9800070000|140000"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	_, err := copyIn(s, "COPY t FROM STDIN", in.String()+"x\ty\n")
	if pe := checkError(t, err, "22P02", `invalid input syntax for type integer: "x"`); pe.Context != `COPY t, line 140001, column a: "x"` {
		t.Errorf("CONTEXT %q", pe.Context)
	}
	if got := queryRows(t, s, "SELECT count(*) FROM t"); !reflect.DeepEqual(got, []string{"140000"}) {
		t.Errorf("the failed COPY left %s rows, want 140000", got)
	}
}
