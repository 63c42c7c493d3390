package commands

import (
	"bytes"
	"context"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/pgfed/pgfed/bench/tpch"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// lineitemTable is TPC-H's lineitem as storage sees it.
func lineitemTable() *storage.Table {
	num := types.T{ID: types.Numeric, Len: -1, Precision: 15, Scale: 2}
	char := func(n int32) types.T { return types.T{ID: types.Bpchar, Len: n} }
	cols := []storage.Column{
		{Name: "l_orderkey", Type: types.Int4T}, {Name: "l_partkey", Type: types.Int4T},
		{Name: "l_suppkey", Type: types.Int4T}, {Name: "l_linenumber", Type: types.Int4T},
		{Name: "l_quantity", Type: num}, {Name: "l_extendedprice", Type: num},
		{Name: "l_discount", Type: num}, {Name: "l_tax", Type: num},
		{Name: "l_returnflag", Type: char(1)}, {Name: "l_linestatus", Type: char(1)},
		{Name: "l_shipdate", Type: types.DateT}, {Name: "l_commitdate", Type: types.DateT},
		{Name: "l_receiptdate", Type: types.DateT}, {Name: "l_shipinstruct", Type: char(25)},
		{Name: "l_shipmode", Type: char(10)}, {Name: "l_comment", Type: types.T{ID: types.Varchar, Len: 44}},
	}
	for i := range cols {
		cols[i].NotNull = true
	}
	return storage.NewTable("public", "lineitem", cols)
}

func allColumns(t *storage.Table) []int {
	cols := make([]int, len(t.Columns))
	for i := range cols {
		cols[i] = i
	}
	return cols
}

// BenchmarkCopyParse splits and parses one chunk of lineitem text, the
// work of a parsing goroutine, without the reading and the storing.
func BenchmarkCopyParse(b *testing.B) {
	g, err := tpch.New(1, 19920101)
	if err != nil {
		b.Fatal(err)
	}
	text, _ := g.AppendCopy(nil, tpch.LineItem, 0, 16384)
	t := lineitemTable()
	o := copyOptions{delimiter: '\t', null: `\N`, quote: '"', escape: '"'}
	s := newCopySplitter(context.Background(), bytes.NewReader(text), o)
	ch := &copyChunk{}
	if !s.next(ch, maxChunkRecords) || ch.err != nil {
		b.Fatal("no chunk", ch.err)
	}
	records := ch.records()
	size := len(ch.data)
	p := newCopyParser(t, o, allColumns(t), nil)
	b.SetBytes(int64(size))
	cpu := processCPU()
	for b.Loop() {
		ch.data = ch.data[:size]
		batch, err := p.parse(ch)
		if err != nil {
			b.Fatal(err)
		}
		if batch.NumRows() != int64(records) {
			b.Fatalf("%d rows, want %d", batch.NumRows(), records)
		}
		batch.Release()
	}
	b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64((processCPU()-cpu).Nanoseconds())/float64(records*b.N), "cpu-ns/row")
}

// processCPU is the CPU time the process has used, which a loaded
// machine disturbs less than elapsed time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCopySplit reads lineitem text into chunks.
func BenchmarkCopySplit(b *testing.B) {
	g, err := tpch.New(1, 19920101)
	if err != nil {
		b.Fatal(err)
	}
	text, _ := g.AppendCopy(nil, tpch.LineItem, 0, 16384)
	o := copyOptions{delimiter: '\t', null: `\N`, quote: '"', escape: '"'}
	ch := &copyChunk{}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		s := newCopySplitter(context.Background(), bytes.NewReader(text), o)
		for s.next(ch, maxChunkRecords) {
		}
	}
}

// TestAppendUnescaped checks the text format's escapes, PostgreSQL's
// CopyReadAttributesText: octal values wrap at a byte.
func TestAppendUnescaped(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:         "plain",
		`a\\b`:          `a\b`,
		`\b\f\n\r\t\v`:  "\b\f\n\r\t\v",
		`\x41\x4a\x4`:   "AJ\x04",
		`\xg`:           "xg",
		`\x`:            "x",
		`\101\060\0`:    "A0\x00",
		`\400\777\1234`: "\x00\xff\x534",
		`\q\%\.`:        "q%.",
		`end\`:          `end\`,
		`\N`:            "N",
		`\x414`:         "A4",
		`tab\	escaped`:  "tab\tescaped",
	} {
		if got := string(appendUnescaped([]byte("p:"), []byte(in))); got != "p:"+want {
			t.Errorf("%q: got %q, want %q", in, got, "p:"+want)
		}
	}
}

// TestCopySplitterRecords: records, CRs, end markers and CSV records of
// several lines, over reads of one byte.
func TestCopySplitterRecords(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		csv      bool
		want     []string
		line     int // the line of the error, if any
	}{
		{"lines", "a\nb\r\n\nc", false, []string{"a", "b", "", "c"}, 0},
		{"CR alone is data", "a\r\r\nb\rc\n", false, []string{"a\r", "b\rc"}, 0},
		{"end marker", "a\n\\.\r\nb\n", false, []string{"a"}, 0},
		{"end marker as data", "a\n\\.x\n \\.\n", false, []string{"a", `\.x`, ` \.`}, 0},
		{"csv lines", "a,\"b\r\nc\"\r\nd\n", true, []string{"a,\"b\nc\"", "d"}, 0},
		{"csv doubled quotes", "\"a\"\"\nb\",c\n\"\"\"\"\n", true, []string{"\"a\"\"\nb\",c", `""""`}, 0},
		{"csv end marker inside quotes", "\"a\n\\.\n\"\n", true, []string{"\"a\n\\.\n\""}, 0},
		{"csv unterminated", "a\n\"b\nc\n", true, []string{"a"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := copyOptions{csv: tc.csv, delimiter: ',', quote: '"', escape: '"'}
			s := newCopySplitter(context.Background(), iotest.OneByteReader(strings.NewReader(tc.in)), o)
			var got []string
			ch := &copyChunk{}
			line := 0
			for s.next(ch, 2) {
				for i := range ch.records() {
					got = append(got, string(ch.record(i)))
				}
				if ch.err != nil {
					line = ch.errLine
				}
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") || line != tc.line {
				t.Errorf("records %q, error line %d; want %q, %d", got, line, tc.want, tc.line)
			}
		})
	}
}

// panicColumn is a converter with a bug.
type panicColumn struct{ copyColumn }

func (panicColumn) reserve(int) {}
func (panicColumn) convert([]byte, []fieldRef, int, int, int) (int, error) {
	panic("converter bug")
}

// TestParseGuarded: a panic while a goroutine parses a chunk becomes the
// chunk's internal error, and the parser refuses further chunks.
func TestParseGuarded(t *testing.T) {
	tbl := storage.NewTable("public", "t", []storage.Column{{Name: "a", Type: types.Int4T}})
	o := copyOptions{delimiter: '\t', null: `\N`, quote: '"', escape: '"'}
	p := newCopyParser(tbl, o, []int{0}, nil)
	p.conv[0] = panicColumn{}
	ch := &copyChunk{data: []byte("1"), ends: []int{1}, firstLine: 1}
	for range 2 {
		r := parseGuarded(p, ch)
		if r.batch != nil || r.err == nil || !strings.Contains(r.err.Error(), "internal error in COPY FROM: converter bug") {
			t.Fatalf("got %v, %v; want the panic as an error", r.batch, r.err)
		}
	}
}
