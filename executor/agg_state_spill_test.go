package executor

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// stateSpillInput is rows of (k int8, x int4, n numeric, t text, b bool,
// f float8) in k order, four rows a key (as lineitem by l_orderkey),
// with NULLs in every column, k's among them.
func stateSpillInput(keys int) ([]types.T, [][]any) {
	ts := []types.T{types.Int8T, types.Int4T, types.NumericT, types.TextT, types.BoolT, types.Float8T}
	var rows [][]any
	for k := 0; k < keys; k++ {
		for j := 0; j < 4; j++ {
			var key any = int64(k)
			if k%97 == 0 {
				key = nil
			}
			d, _ := types.NumericFromString(strconv.Itoa(k%13) + "." + strconv.Itoa(j*25))
			row := []any{key, int64(k*j - 7), d, "t" + strconv.Itoa((k*7+j)%31), (k+j)%5 != 0, float64(j) / 3}
			if (k+j)%11 == 0 {
				row[1], row[2], row[3], row[4] = nil, nil, nil, nil
			}
			rows = append(rows, row)
		}
	}
	return ts, rows
}

// runStateSpill groups the input by k with the aggregates calls under
// workMem, and returns the sorted rows and how the Agg spilled.
func runStateSpill(t *testing.T, calls []*nodes.AggCall, workMem int64, shuffled bool) ([]string, spillSeen) {
	t.Helper()
	ts, rows := stateSpillInput(6000)
	if shuffled {
		r := rand.New(rand.NewPCG(1, 2))
		r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	}
	fields := make([]nodes.Field, len(ts))
	for c, ct := range ts {
		fields[c] = field("c"+itoa(c), ct)
	}
	s := stub(fields...)
	plan := &nodes.Agg{Child: s, Strategy: nodes.AggHashed, GroupKeys: []nodes.Expr{col(0, types.Int8T)}, Aggs: calls}
	ec := &ExecContext{BatchSize: 1000, WorkMem: workMem, TempDir: t.TempDir()}
	op := buildWindowOver(t, plan, ec, s, exectest.New(nil, "in", exectest.Batches(tableBatches(ts, rows, 1000)...)...))
	agg := op.(*aggOp)
	ctx := context.Background()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	outTypes := []types.T{types.Int8T}
	for _, c := range calls {
		outTypes = append(outTypes, c.T)
	}
	var out []string
	for {
		b, err := op.Next(ctx)
		if err != nil {
			break
		}
		for r := 0; r < int(b.NumRows()); r++ {
			var cells []string
			for c, ct := range outTypes {
				cell := "NULL"
				if d := types.DatumAt(b.Column(c), ct, r); d != nil {
					cell = types.Format(ct, d)
				}
				cells = append(cells, cell)
			}
			out = append(out, strings.Join(cells, " "))
		}
		b.Release()
	}
	seen := spillSeen{flushed: agg.flushed, combiner: agg.combiner != nil, batches: agg.spill.batches}
	if err := op.Close(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out, seen
}

type spillSeen struct {
	flushed, combiner bool
	batches           int // of the first pass's row spill
}

// TestAggSpillsStates: a full table of aggregates that combine from
// their results writes its groups out (not input rows) and combines the
// partitions, with the results of a run in memory; one that does not
// combine (avg, a float sum), or whose input is not in key order, spills
// rows as before.
func TestAggSpillsStates(t *testing.T) {
	x, n, tx, b, f := col(1, types.Int4T), col(2, types.NumericT), col(3, types.TextT), col(4, types.BoolT), col(5, types.Float8T)
	filtered := aggCall("sum", n, types.NumericT)
	filtered.Filter = b
	combining := []*nodes.AggCall{aggCall("count", nil, types.Int8T), aggCall("count", x, types.Int8T),
		aggCall("sum", x, types.Int8T), aggCall("sum", n, types.NumericT), aggCall("min", tx, types.TextT),
		aggCall("max", n, types.NumericT), aggCall("bool_and", b, types.BoolT), aggCall("bool_or", b, types.BoolT), filtered}
	cases := []struct {
		name     string
		calls    []*nodes.AggCall
		shuffled bool // the input not in key order: many rows find their group
		states   bool
	}{
		{"combining", combining, false, true},
		{"combining, shuffled", combining, true, false},
		{"avg", append(slices.Clone(combining), aggCall("avg", n, types.NumericT)), false, false},
		{"float sum", []*nodes.AggCall{aggCall("sum", f, types.Float8T)}, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, inMemory := runStateSpill(t, c.calls, 1<<30, c.shuffled)
			if inMemory.batches != 1 || inMemory.flushed {
				t.Fatalf("in memory: %d batches, flushed %v", inMemory.batches, inMemory.flushed)
			}
			workMem := int64(64 << 10)
			if c.shuffled {
				workMem = 256 << 10 // room for a good part of the groups
			}
			got, spilled := runStateSpill(t, c.calls, workMem, c.shuffled)
			if spilled.flushed != c.states || spilled.combiner != c.states {
				t.Fatalf("flushed %v, combiner %v; want states spilled: %v", spilled.flushed, spilled.combiner, c.states)
			}
			if !c.states && spilled.batches < 2 {
				t.Fatalf("the rows did not spill: %d batches", spilled.batches)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("spilled:\n%s\nin memory:\n%s", strings.Join(got[:min(20, len(got))], "\n"), strings.Join(want[:min(20, len(want))], "\n"))
			}
			if len(want) != 6000-6000/97 {
				t.Fatalf("%d groups", len(want))
			}
		})
	}
}
