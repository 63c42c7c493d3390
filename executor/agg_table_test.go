package executor

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// groupTableInput is rows of every key type the groupTable normalizes,
// with NULLs and values that are equal but print differently (bpchar's
// trailing spaces, 1.5 and 1.50, 0 and -0, '1 mon' and '30 days').
func groupTableInput(r *rand.Rand, n int) ([]types.T, [][]any) {
	num := func(s string) any {
		d, err := types.NumericFromString(s)
		if err != nil {
			panic(err)
		}
		return d
	}
	pick := func(vals ...any) any { return vals[r.Intn(len(vals))] }
	ts := []types.T{types.Int4T, types.Int8T, types.TextT, types.BpcharT, types.NumericT,
		types.Float8T, types.BoolT, types.DateT, types.IntervalT, types.TimestampT, types.Int2T, types.NumericT,
		{ID: types.Bpchar, Len: 1}}
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{
			pick(int64(1), int64(2), int64(-3), nil),
			pick(int64(math.MinInt64), int64(0), int64(1<<40), nil),
			pick("a", "b", "", "a ", nil),
			pick("x", "x  ", "y", nil),
			pick(num("1.5"), num("1.50"), num("-0"), num("0.0"), num("123456789012345678901234"), nil),
			pick(0.0, math.Copysign(0, -1), math.NaN(), 2.5, nil),
			pick(true, false, nil),
			pick(int32(0), int32(19000), nil),
			pick(types.Interval{Months: 1}, types.Interval{Days: 30}, types.Interval{Micros: 1}, nil),
			pick(int64(0), int64(1e12), nil),
			pick(int64(7), int64(-7), nil),
			num(strconv.Itoa(r.Intn(100)) + "." + strconv.Itoa(r.Intn(10))),
			// char(1), packed into a word: blank (= empty), 1 to 4 bytes
			pick("a", " ", "", "é", "語", "😀", nil),
		}
	}
	return ts, rows
}

func tableBatches(ts []types.T, rows [][]any, size int) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	for lo := 0; lo < len(rows); lo += size {
		part := rows[lo:min(lo+size, len(rows))]
		cols := make([]arrow.Array, len(ts))
		fields := make([]nodes.Field, len(ts))
		for c, t := range ts {
			vals := make([]any, len(part))
			for i, row := range part {
				vals[i] = row[c]
			}
			if t.ID == types.Int4 || t.ID == types.Int2 {
				for i, v := range vals {
					if v != nil {
						vals[i] = v.(int64)
					}
				}
			}
			cols[c] = arrayOfDatums(t, vals)
			fields[c] = field("c"+itoa(c), t)
		}
		out = append(out, makeBatch(schemaOf(fields), cols, len(part)))
	}
	return out
}

// TestGroupTableMatchesEncodedKeys: grouping by the groupTable gives the
// groups, first values and sums that grouping by encoded keys gives, for
// every key type alone and in combinations, in memory and spilling.
func TestGroupTableMatchesEncodedKeys(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	n := 3000
	if raceEnabled { // 60 aggregations, slow under the race detector
		n = 1000
	}
	ts, rows := groupTableInput(r, n)
	keySets := [][]int{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {12}, {0, 2}, {3, 4, 5}, {3, 12}, {6, 7, 8, 9, 10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12}}
	for _, keys := range keySets {
		for _, debug := range []bool{false, true} {
			name := fmt.Sprintf("keys=%v/spill=%v", keys, debug)
			var results [2][]string
			for i, useTable := range []bool{true, false} {
				got, usedTable := runGrouping(t, ts, rows, keys, debug, useTable)
				if usedTable != useTable {
					t.Fatalf("%s: groupTable used %v, want %v", name, usedTable, useTable)
				}
				results[i] = got
			}
			if !slices.Equal(results[0], results[1]) {
				t.Errorf("%s: groupTable\n%s\nencoded keys\n%s", name, strings.Join(results[0], "\n"), strings.Join(results[1], "\n"))
			}
		}
	}
}

func runGrouping(t *testing.T, ts []types.T, rows [][]any, keys []int, debug, useTable bool) ([]string, bool) {
	t.Helper()
	fields := make([]nodes.Field, len(ts))
	for c, kt := range ts {
		fields[c] = field("c"+itoa(c), kt)
	}
	s := stub(fields...)
	var groupKeys []nodes.Expr
	for _, k := range keys {
		groupKeys = append(groupKeys, col(k, ts[k]))
	}
	plan := &nodes.Agg{Child: s, Strategy: nodes.AggHashed, GroupKeys: groupKeys,
		Aggs: []*nodes.AggCall{aggCall("count", nil, types.Int8T), aggCall("sum", col(11, types.NumericT), types.NumericT)}}
	ec := &ExecContext{BatchSize: 100, DebugSpill: debug, TempDir: t.TempDir()}
	op := buildWindowOver(t, plan, ec, s, exectest.New(nil, "in", exectest.Batches(tableBatches(ts, rows, 128)...)...))
	agg := op.(*aggOp)
	agg.useTable = useTable && agg.useTable
	usedTable := false
	if err := op.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	var out []string
	for {
		b, err := op.Next(context.Background())
		if err != nil {
			break
		}
		usedTable = usedTable || agg.table != nil || agg.combiner != nil && agg.combiner.table != nil
		for r := 0; r < int(b.NumRows()); r++ {
			var cells []string
			for c := 0; c < int(b.NumCols()); c++ {
				ct := types.Int8T
				switch {
				case c < len(keys):
					ct = ts[keys[c]]
				case c == len(keys)+1:
					ct = types.NumericT
				}
				d := types.DatumAt(b.Column(c), ct, r)
				if d == nil {
					cells = append(cells, "NULL")
				} else {
					cells = append(cells, strconv.Quote(types.Format(ct, d)))
				}
			}
			out = append(out, strings.Join(cells, " "))
		}
		b.Release()
	}
	op.Close()
	slices.Sort(out)
	return out, usedTable
}

// TestGroupTableMemory: a group of one bigint key with sum(numeric) costs
// far less than the 72 bytes counted before, counted from what the
// table's and states' vectors really hold; groups that fit in hash_mem
// stay in memory; and at a small work_mem the Agg spills, staying near
// hash_mem.
func TestGroupTableMemory(t *testing.T) {
	const groups = 100_000
	ts := []types.T{types.Int8T, types.NumericT}
	var rows [][]any
	for g := 0; g < groups; g++ {
		d, _ := types.NumericFromString(strconv.Itoa(g%1000) + ".25")
		rows = append(rows, []any{int64(g), d})
	}
	for _, workMem := range []int64{1 << 30, 8 << 20, 256 << 10} {
		s := stub(field("k", types.Int8T), field("q", types.NumericT))
		plan := &nodes.Agg{Child: s, Strategy: nodes.AggHashed, GroupKeys: []nodes.Expr{col(0, types.Int8T)},
			Aggs: []*nodes.AggCall{aggCall("sum", col(1, types.NumericT), types.NumericT)}}
		ec := &ExecContext{WorkMem: workMem, HashMemMultiplier: 1, TempDir: t.TempDir(), Stats: instrument.NewStats(nodes.Number(plan), false)}
		op := buildWindowOver(t, plan, ec, s, exectest.New(nil, "in", exectest.Batches(tableBatches(ts, rows, 4096)...)...))
		n, err := drainN(context.Background(), op, 0)
		if err != nil || n != groups {
			t.Fatalf("work_mem %d: %d groups, %v", workMem, n, err)
		}
		line := ec.Stats.Node(plan.ID).Extra[0]
		m := regexp.MustCompile(`Batches: (\d+)  Memory Usage: (\d+)kB`).FindStringSubmatch(line)
		batches, _ := strconv.Atoi(m[1])
		kb, _ := strconv.Atoi(m[2])
		if workMem == 1<<30 {
			// keys 8 bytes, sum 20, slots 8 at most 3/4 full (2^17 for
			// 100k: 10.5 per group), plus the vectors' spare capacity
			if batches != 1 || kb*1024 < groups*(8+20+10) || kb*1024 > groups*56 {
				t.Errorf("in memory: %s", line)
			}
			continue
		}
		if workMem == 8<<20 {
			// what fits in hash_mem is not spilled (a table too cautious
			// about its slots' growth once spilled such groups)
			if batches != 1 {
				t.Errorf("work_mem 8MB: %s", line)
			}
			continue
		}
		if batches < 2 || !strings.Contains(line, "Disk Usage") || int64(kb)*1024 > workMem*11/10 {
			t.Errorf("work_mem %d: %s", workMem, line)
		}
	}
}

// TestAppendScaledSums: sums printed from their int64 digits read as
// numeric_out prints the decimal.
func TestAppendScaledSums(t *testing.T) {
	for _, c := range []struct {
		v     int64
		scale int32
	}{{0, 0}, {0, 2}, {-5, 2}, {5, 3}, {12345, 2}, {-12345, 0}, {math.MaxInt64, 18}, {math.MinInt64 + 1, 4}, {100, 2}} {
		d, err := types.NumericFromScaled(c.v, c.scale)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(appendScaled(nil, c.v, c.scale)), types.Format(types.NumericT, d); got != want {
			t.Errorf("%d at scale %d: %s, want %s", c.v, c.scale, got, want)
		}
	}
}

// TestCharOneKeysPacked: char(1) group keys are packed into words (one
// key of them takes assignWords' path), other text keys stay bytes.
func TestCharOneKeysPacked(t *testing.T) {
	char1 := types.T{ID: types.Bpchar, Len: 1}
	for _, tc := range []struct {
		t      types.T
		packed bool
	}{{char1, true}, {types.T{ID: types.Bpchar, Len: 2}, false}, {types.BpcharT, false}, {types.TextT, false}, {types.T{ID: types.Varchar, Len: 1}, false}} {
		tbl := newGroupTable([]types.T{tc.t})
		if f := tbl.forms[0]; f.packed != tc.packed || (f.kind == keyWords) != tc.packed {
			t.Errorf("%s: form %+v, want packed %v", tc.t, f, tc.packed)
		}
	}
	if a, b := packShort("é "), packShort("é"); a != b || a == packShort("e") || packShort(" ") != packShort("") {
		t.Errorf("packShort: trailing spaces must not count, distinct values must differ")
	}
}

// TestAssignAllWordsComparesEveryKey: groups of two word keys without
// NULLs (assignAllWords) are told apart by both words: 300,000 distinct
// pairs give 300,000 groups, and a row that shares a group's hash tag
// matches it only when every word is equal.
func TestAssignAllWordsComparesEveryKey(t *testing.T) {
	n := 300_000
	a, b := make([]any, n), make([]any, n)
	for i := range n {
		a[i], b[i] = int64(i%977), int64(i/977)
	}
	ts := []types.T{types.Int8T, types.Int8T}
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{a[i], b[i]}
	}
	s := stub(field("a", types.Int8T), field("b", types.Int8T))
	plan := &nodes.Agg{Child: s, Strategy: nodes.AggHashed, GroupKeys: []nodes.Expr{col(0, types.Int8T), col(1, types.Int8T)},
		Aggs: []*nodes.AggCall{aggCall("count", nil, types.Int8T)}}
	ec := &ExecContext{BatchSize: 1 << 16, WorkMem: 1 << 30, TempDir: t.TempDir()}
	op := buildWindowOver(t, plan, ec, s, exectest.New(nil, "in", exectest.Batches(tableBatches(ts, rows, 1<<16)...)...))
	ctx := context.Background()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	groups := 0
	for {
		b, err := op.Next(ctx)
		if err != nil {
			break
		}
		groups += int(b.NumRows())
		b.Release()
	}
	if groups != n {
		t.Fatalf("%d groups, want %d", groups, n)
	}
	tbl := op.(*aggOp).table
	if tbl == nil || !tbl.allWords() {
		t.Fatal("the groups were not in a groupTable of word keys")
	}
	// Rows whose hash tags collide are told apart by every word: a
	// group and a row differing in one key only, whichever it is.
	for c := range tbl.cols {
		g := int32(5)
		for k := range tbl.in {
			tbl.in[k].words = []int64{tbl.cols[k].words[g]}
		}
		if !tbl.equalWords(g, 0) {
			t.Fatal("a row equal to its group does not match it")
		}
		tbl.in[c].words[0]++
		if tbl.equalWords(g, 0) {
			t.Errorf("a row differing in key %d matches the group", c)
		}
	}
}

// TestAppendPackedMatchesPackShort: the one-byte shortcut of packed keys
// gives packShort's words, spaces and longer values included.
func TestAppendPackedMatchesPackShort(t *testing.T) {
	vals := []string{"A", "F", " ", "", "A ", "é", "ab", "\x00", "Z  "}
	arr := arrayOfDatums(types.TextT, func() []any {
		out := make([]any, len(vals))
		for i, v := range vals {
			out[i] = v
		}
		return out
	}())
	defer arr.Release()
	var k keyVec
	k.appendPacked(arr.(*array.String), nil, len(vals))
	var sel keyVec
	sel.appendPacked(arr.(*array.String), []int32{2, 0, 5}, 3)
	for i, v := range vals {
		if k.words[i] != packShort(v) {
			t.Errorf("%q: word %x, packShort %x", v, k.words[i], packShort(v))
		}
	}
	if want := []int64{packShort(" "), packShort("A"), packShort("é")}; !slices.Equal(sel.words, want) {
		t.Errorf("selected rows: %x, want %x", sel.words, want)
	}
}
