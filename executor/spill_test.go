package executor

import (
	"context"
	"io"
	"os"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// TestSpillReleasesEverything runs a spilling sort and a spilling hash
// aggregate to the end and closed early (as under a LIMIT), on a checked
// allocator: every batch read back from disk, merged or aggregated is
// released, and no temporary file is left.
func TestSpillReleasesEverything(t *testing.T) {
	mem := checkedAlloc(t)
	dir := t.TempDir()
	n, groups := int64(20000), int64(spillTestGroups)
	if raceEnabled { // every batch spills, slow under the race detector
		n = 6000
	}
	series := func() nodes.Plan { return seriesPlan(types.Int8T, int64(1), n) }
	g := col(0, types.Int8T)
	mod := op("%", g, int8Lit(groups), types.Int8T)
	plans := []struct {
		name string
		plan nodes.Plan
		rows int
	}{
		{"Sort", &nodes.Sort{Child: series(), Keys: []nodes.SortKey{{Expr: mod}, {Expr: g, Desc: true}}}, int(n)},
		{"HashAggregate", &nodes.Agg{Child: series(), Strategy: nodes.AggHashed, GroupKeys: []nodes.Expr{mod},
			Aggs: []*nodes.AggCall{aggCall("count", nil, types.Int8T), aggCall("sum", g, types.NumericT)}}, int(groups)},
	}
	for _, p := range plans {
		for _, early := range []bool{false, true} {
			ec := &ExecContext{BatchSize: 1000, DebugSpill: true, TempDir: dir}
			o, err := Build(p.plan, ec)
			if err != nil {
				t.Fatal(err)
			}
			if err := o.Open(context.Background()); err != nil {
				t.Fatal(err)
			}
			rows := 0
			var last int64 = -1
			for {
				b, err := o.Next(context.Background())
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%s: %v", p.name, err)
				}
				if p.name == "Sort" {
					checkSorted(t, b, &last)
				}
				rows += int(b.NumRows())
				b.Release()
				if early && rows >= p.rows/3 {
					break
				}
			}
			o.Close()
			ec.Release()
			if !early && rows != p.rows {
				t.Errorf("%s: %d rows, want %d", p.name, rows, p.rows)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("%s: %d temporary files left", p.name, len(entries))
			}
		}
	}
	mem.AssertSize(t, 0)
}

// spillTestGroups is the groups of TestSpillReleasesEverything's rows.
const spillTestGroups = 3000

// checkSorted checks that the sort's rows come in (g % spillTestGroups,
// g DESC) order across batches; last is the previous row's combined key.
func checkSorted(t *testing.T, b arrow.RecordBatch, last *int64) {
	t.Helper()
	for _, v := range valuesOf[int64](b.Column(0)) {
		key := (v%spillTestGroups)*100000 + (100000 - v)
		if key < *last {
			t.Fatalf("rows out of order at %d", v)
		}
		*last = key
	}
}

// TestWideProjectionSplits: a projection whose string values would pass
// maxArrayBytes in one batch (Arrow's 32-bit offsets) comes out as
// several smaller batches with every row, instead of failing.
func TestWideProjectionSplits(t *testing.T) {
	mem := checkedAlloc(t)
	saved := maxArrayBytes
	maxArrayBytes = 1 << 20
	defer func() { maxArrayBytes = saved }()
	series := seriesPlan(types.Int8T, int64(1), int64(1000))
	wide := &nodes.FuncExpr{Name: "repeat", Args: []nodes.Expr{lit("x", types.TextT), int8Lit(10000)}, T: types.TextT}
	series.Targets = []nodes.Expr{wide}
	series.Out = []nodes.Field{field("r", types.TextT)}
	ec := &ExecContext{}
	defer ec.Release()
	o, err := Build(series, ec)
	if err != nil {
		t.Fatal(err)
	}
	rows, batches := 0, 0
	err = Drain(context.Background(), o, func(b arrow.RecordBatch) error {
		if n := batchBytes(b); n > int64(maxArrayBytes)+int64(4*(b.NumRows()+1))+b.NumRows() {
			t.Errorf("a batch of %d bytes", n)
		}
		rows += int(b.NumRows())
		batches++
		return nil
	})
	if err != nil || rows != 1000 || batches < 10 {
		t.Errorf("%d rows in %d batches, %v", rows, batches, err)
	}
	ec.Release()
	mem.AssertSize(t, 0)
}

// TestSpillFileCoalesces: a coalescing spill file (a hash join's
// partition) writes small batches as one IPC message of at least
// spillMinRows rows, in order; an ordinary one writes each as it comes.
func TestSpillFileCoalesces(t *testing.T) {
	for _, coalesce := range []bool{true, false} {
		keys := make([]int64, 3*spillMinRows)
		for i := range keys {
			keys[i] = int64(i)
		}
		in := int64Batches(keys, 100)
		f, err := newSpillFile(t.TempDir(), in[0].Schema())
		if err != nil {
			t.Fatal(err)
		}
		f.coalesce = coalesce
		for _, b := range in {
			if err := f.write(b); err != nil {
				t.Fatal(err)
			}
			b.Release()
		}
		r, err := f.reader()
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		messages := 0
		for {
			b, err := r.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			messages++
			got = append(got, valuesOf[int64](b.Column(0))...)
			b.Release()
		}
		r.close()
		f.close()
		if !slices.Equal(got, keys) {
			t.Fatalf("coalesce %v: rows out of order or lost (%d of %d)", coalesce, len(got), len(keys))
		}
		want := len(in)
		if coalesce {
			want = 3
		}
		if messages != want {
			t.Errorf("coalesce %v: %d messages for %d batches of 100 rows, want %d", coalesce, messages, len(in), want)
		}
	}
}
