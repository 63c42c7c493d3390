package main

import (
	"context"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgfed/pgfed/bench/tpch"
)

func strs(vals ...string) []*string {
	out := make([]*string, len(vals))
	for i, v := range vals {
		if v != "NULL" {
			out[i] = &vals[i]
		}
	}
	return out
}

func tpchRes(kinds []valueKind, rows ...[]*string) *tpchResult {
	r := &tpchResult{Kinds: kinds, Rows: rows}
	for i := range kinds {
		r.Columns = append(r.Columns, "c"+string(rune('1'+i)))
	}
	return r
}

// TestTPCHCompare checks the answer check: numerics rounded to the
// smaller scale, floats within 1e-6, text exact (trimmed for DuckDB),
// NULLs, row counts and row order.
func TestTPCHCompare(t *testing.T) {
	kinds := []valueKind{kindExact, kindNumeric, kindFloat, kindInt}
	want := tpchRes(kinds,
		strs("FRANCE   ", "12.3450", "1.5", "7"),
		strs("GERMANY  ", "-0.0050", "2", "8"),
		strs("NULL", "1000.0000000000000000", "1e10", "9"))
	same := func(edit func(r *tpchResult)) *tpchResult {
		r := tpchRes(kinds)
		for _, row := range want.Rows {
			cp := make([]*string, len(row))
			for i, v := range row {
				if v != nil {
					s := *v
					cp[i] = &s
				}
			}
			r.Rows = append(r.Rows, cp)
		}
		if edit != nil {
			edit(r)
		}
		return r
	}
	set := func(row, col int, v string) func(*tpchResult) {
		return func(r *tpchResult) {
			if v == "NULL" {
				r.Rows[row][col] = nil
			} else {
				r.Rows[row][col] = &v
			}
		}
	}
	for _, c := range []struct {
		name    string
		got     *tpchResult
		ordered bool
		opt     compareOptions
		want    string // "" or a part of the message
	}{
		{name: "same", got: same(nil), ordered: true},
		{name: "numeric at a smaller scale", got: same(set(0, 1, "12.35"))},
		{name: "numeric rounded half away from zero", got: same(set(1, 1, "-0.01"))},
		{name: "numeric off by one unit", got: same(set(0, 1, "12.3451")), want: `row 1 column 2: "12.3451", want "12.3450"`},
		{name: "numeric integral", got: same(set(2, 1, "1000"))},
		{name: "float within 1e-6", got: same(set(2, 2, "10000001000"))},
		{name: "float beyond 1e-6", got: same(set(0, 2, "1.50001")), want: "row 1 column 3"},
		{name: "integer", got: same(set(0, 3, "70")), want: "row 1 column 4"},
		{name: "char(n) padding", got: same(set(0, 0, "FRANCE")), want: "row 1 column 1"},
		{name: "char(n) padding, DuckDB", got: same(set(0, 0, "FRANCE")), opt: compareOptions{trimText: true}},
		{name: "NULL", got: same(set(2, 0, "x")), want: `"x", want NULL`},
		{name: "not NULL", got: same(set(0, 0, "NULL")), ordered: true, want: `NULL, want "FRANCE   "`},
		{name: "a row missing", got: same(func(r *tpchResult) { r.Rows = r.Rows[:2] }), want: "2 rows, want 3"},
		{name: "a column missing", got: tpchRes(kinds[:3]), want: "3 columns"},
		{name: "order, unordered query", got: same(func(r *tpchResult) { r.Rows[0], r.Rows[2] = r.Rows[2], r.Rows[0] })},
		{name: "order, ordered query", got: same(func(r *tpchResult) { r.Rows[0], r.Rows[1] = r.Rows[1], r.Rows[0] }),
			ordered: true, want: "the same rows in another order"},
		{name: "many differences", got: same(func(r *tpchResult) {
			for _, row := range r.Rows {
				row[3] = new(string)
				*row[3] = "99"
				row[1] = row[3]
			}
		}), want: "6 differing values in all"},
	} {
		got := compareResults(want, c.got, c.ordered, c.opt)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: compareResults = %q, want %q", c.name, got, c.want)
		}
	}

	// A numeric column that the other engine gives as a float (DuckDB's
	// avg) compares as a float.
	ref := tpchRes([]valueKind{kindNumeric}, strs("25.4790247845663764"))
	duck := tpchRes([]valueKind{kindFloat}, strs("25.479024784566377"))
	if d := compareResults(ref, duck, true, compareOptions{trimText: true}); d != "" {
		t.Errorf("numeric against a float: %s", d)
	}
	if d := compareResults(ref, tpchRes([]valueKind{kindNumeric}, strs("25.479024784566377")), true, compareOptions{}); d == "" {
		t.Error("a numeric rounded differently compared equal")
	}
}

// TestTPCHFlags checks -suite tpch's flags.
func TestTPCHFlags(t *testing.T) {
	opts, err := parseFlags([]string{"-suite", "tpch", "-sf", "0.01", "-only", "Q1, q6,17"})
	if err != nil {
		t.Fatal(err)
	}
	if opts.runs != tpchDefaultRuns || opts.tpch.sf != 0.01 || len(opts.tpch.queries) != 3 || opts.tpch.queries[2] != 17 {
		t.Errorf("options %+v", opts.tpch)
	}
	if opts, err = parseFlags([]string{"-suite", "tpch", "-runs", "1"}); err != nil || opts.runs != 1 || len(opts.tpch.queries) != 22 {
		t.Errorf("-runs 1: %v, %d runs, %d queries", err, opts.runs, len(opts.tpch.queries))
	}
	for _, args := range [][]string{{"-only", "Q23"}, {"-sf", "0.001"}, {"-pgindexes", "all"}} {
		if _, err := parseFlags(append([]string{"-suite", "tpch"}, args...)); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

// TestTPCHPgfed generates SF 0.01, loads it into pgfed through the
// suite's own load path, checks the row counts, and checks Q3 and Q6 at
// 2 workers against 0 workers with the suite's comparison.
func TestTPCHPgfed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	gen, err := tpch.New(0.01, tpch.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	rep := &tpchReport{}
	dir := filepath.Join(t.TempDir(), "data")
	files, err := generateTPCHFiles(ctx, gen, dir, rep, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	// A second call reuses the files.
	rep2 := &tpchReport{}
	if _, err := generateTPCHFiles(ctx, gen, dir, rep2, t.Logf); err != nil || !rep2.Tables[0].Reused {
		t.Errorf("the files were not reused: %v", err)
	}
	fed, err := openPgfed()
	if err != nil {
		t.Fatal(err)
	}
	defer fed.close()
	for i, tb := range tpch.Tables {
		if _, err := loadFedTable(ctx, fed.s, tb, files[tb]); err != nil {
			t.Fatalf("loading %s: %v", tb, err)
		}
		r, err := fedResult(ctx, fed.s, "SELECT count(*) FROM "+tb.String())
		if err != nil {
			t.Fatal(err)
		}
		if got := *r.Rows[0][0]; got != itoa(rep.Tables[i].Rows) || rep.Tables[i].Rows != gen.Rows(tb) {
			t.Errorf("%s: %s rows in pgfed, %d written, want %d", tb, got, rep.Tables[i].Rows, gen.Rows(tb))
		}
	}
	serial, parallel := fed.newSession(), fed.newSession()
	if err := serial.exec(ctx, "SET max_parallel_workers_per_gather = 0"); err != nil {
		t.Fatal(err)
	}
	if err := parallel.exec(ctx, "SET max_parallel_workers_per_gather = 2"); err != nil {
		t.Fatal(err)
	}
	qs := tpch.Queries(0.01)
	for _, q := range []tpch.Query{qs[2], qs[5]} {
		want, err := fedResult(ctx, serial.s, q.SQL)
		if err != nil {
			t.Fatalf("%s: %v", q.Name, err)
		}
		got, err := fedResult(ctx, parallel.s, q.SQL)
		if err != nil {
			t.Fatalf("%s: %v", q.Name, err)
		}
		if len(want.Rows) == 0 {
			t.Errorf("%s: no rows", q.Name)
		}
		if d := compareResults(want, got, q.Ordered, compareOptions{}); d != "" {
			t.Errorf("%s: 2 workers against 0: %s", q.Name, d)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestTPCHReport checks the table and the JSON of a report with a
// failure: the failed query is shown with its error and left out of the
// totals.
func TestTPCHReport(t *testing.T) {
	cell := func(engine, setting string, median float64) *tpchCell {
		return &tpchCell{Engine: engine, Setting: setting, Rows: 1, Timing: &timing{MedianMS: median, MinMS: median, RunsMS: []float64{median}}}
	}
	ok := tpchQuery{Query: "Q1", Results: map[string]*tpchCell{
		tpchFed0: cell(enginePGFed, "0 workers", 100), tpchFed2: cell(enginePGFed, "2 workers", 50),
		tpchPG0: cell(enginePostgres, "0 workers", 300), tpchPG2: cell(enginePostgres, "2 workers", 200),
	}}
	bad := tpchQuery{Query: "Q2", Results: map[string]*tpchCell{
		tpchFed0: {Engine: enginePGFed, Setting: "0 workers", Error: "a subquery is not supported (SQLSTATE 0A000)"},
		tpchFed2: {Engine: enginePGFed, Setting: "2 workers", Error: "wrong answer: 3 rows, want 4", Wrong: true},
		tpchPG0:  cell(enginePostgres, "0 workers", 10), tpchPG2: cell(enginePostgres, "2 workers", 10),
	}}
	rep := &tpchReport{ScaleFactor: 0.01, Runs: 1, DuckDB: "not available: -duckdb off", Queries: []tpchQuery{ok, bad}}
	rep.Totals = tpchTotals(rep.Queries, false)
	if len(rep.Totals.Included) != 1 || rep.Totals.MS[tpchFed0] != 100 || len(rep.Totals.Excluded) != 1 {
		t.Fatalf("totals %+v", rep.Totals)
	}
	if n := tpchFailures(rep); n != 2 {
		t.Errorf("%d failures, want 2", n)
	}
	var b strings.Builder
	if err := writeTPCHTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	wantInReport(t, b.String(), "DuckDB: not available: -duckdb off", "total (1)", "3.00x", "4.00x",
		"Q2: pgfed 0 workers: a subquery is not supported (SQLSTATE 0A000)", "WRONG", "ERROR", "FAIL: 2 failed runs",
		"pgfed 0w/2w: 2.00x")
	back := reportJSON(t, func(w io.Writer) error { return writeTPCHJSON(w, rep) })
	if back["duckdb"] != "not available: -duckdb off" {
		t.Errorf("JSON duckdb = %v", back["duckdb"])
	}
}
