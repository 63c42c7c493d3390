package executor

// Leaf nodes: Seq Scan, Function Scan (generate_series), Values Scan and
// Result, through their whole lifecycle and their results.

import (
	"context"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

func numeric(t *testing.T, s string) any {
	t.Helper()
	d, err := types.NumericFromString(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestLeafLifecycle: leaves may be closed without being opened, or opened
// and closed without being read, and release what they hold.
func TestLeafLifecycle(t *testing.T) {
	data := memory.NewCheckedAllocator(memory.NewGoAllocator())
	tbl := leakTable(data)
	leaves := []struct {
		name string
		plan nodes.Plan
		rows int
	}{
		{"Seq Scan", scanAB(tbl), 8},
		{"Function Scan", seriesPlan(types.Int8T, int64(1), int64(5)), 5},
		{"Function Scan numeric", seriesPlan(types.NumericT, numeric(t, "1"), numeric(t, "5")), 5},
		{"Values Scan", &nodes.ValuesScan{Rows: [][]nodes.Expr{{int8Lit(1)}, {int8Lit(2)}}, Types: []types.T{types.Int8T}}, 2},
		{"Result", &nodes.Result{}, 1},
		{"Result Empty", &nodes.Result{Empty: true}, 0},
		// Last: it deletes the rows where a < b.
		{"DELETE", dmlPlan(nodes.Delete, tbl, cmpOp("<", colA, colB), nil, nil), 0},
	}
	for _, leaf := range leaves {
		t.Run(leaf.name, func(t *testing.T) {
			ctx := context.Background()
			op, err := Build(leaf.plan, writeContext(t))
			if err != nil {
				t.Fatal(err)
			}
			if err := op.Close(); err != nil {
				t.Fatalf("Close without Open: %v", err)
			}

			opened := writeContext(t)
			op, err = Build(leaf.plan, opened)
			if err != nil {
				t.Fatal(err)
			}
			if err := op.Open(ctx); err != nil {
				t.Fatal(err)
			}
			if err := op.Close(); err != nil {
				t.Fatalf("Close without Next: %v", err)
			}
			endWrites(t, opened, false) // the statement's end releases its locks

			ec := writeContext(t)
			op, err = Build(leaf.plan, ec)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := exectest.Run(ctx, op)
			if err != nil {
				t.Fatal(err)
			}
			endWrites(t, ec, true)
			if len(rows) != leaf.rows {
				t.Errorf("got %d rows, want %d", len(rows), leaf.rows)
			}
		})
	}
	if n := tbl.Rows(); n != 5 {
		t.Errorf("DELETE left %d rows, want 5", n)
	}
	tbl.Replace(nil)
	data.AssertSize(t, 0)
}

// TestGenerateSeries checks generate_series's results, batch sizes and
// errors against PostgreSQL 15.
func TestGenerateSeries(t *testing.T) {
	i8, i4, num := types.Int8T, types.Int4T, types.NumericT
	n := func(s string) any { return numeric(t, s) }
	tests := []struct {
		name      string
		t         types.T
		args      []any
		want      []any
		code, msg string
		bug       string // a known bug makes the case fail
	}{
		{name: "step 4", t: i8, args: []any{int64(1), int64(10), int64(4)}, want: []any{int64(1), int64(5), int64(9)}},
		{name: "descending", t: i8, args: []any{int64(10), int64(1), int64(-4)}, want: []any{int64(10), int64(6), int64(2)}},
		{name: "empty range", t: i8, args: []any{int64(5), int64(1)}, want: nil},
		{name: "NULL argument", t: i8, args: []any{int64(1), nil}, want: nil},
		{name: "ends at the bigint maximum", t: i8, args: []any{int64(math.MaxInt64 - 1), int64(math.MaxInt64)}, want: []any{int64(math.MaxInt64 - 1), int64(math.MaxInt64)}},
		{name: "ends at the bigint minimum", t: i8, args: []any{int64(math.MinInt64 + 1), int64(math.MinInt64), int64(-1)}, want: []any{int64(math.MinInt64 + 1), int64(math.MinInt64)}},
		{name: "integer", t: i4, args: []any{int64(math.MaxInt32 - 1), int64(math.MaxInt32)}, want: []any{int64(math.MaxInt32 - 1), int64(math.MaxInt32)}},
		{name: "numeric step 0.5", t: num, args: []any{n("1"), n("2"), n("0.5")}, want: []any{"1", "1.5", "2.0"}},
		{name: "step zero", t: i8, args: []any{int64(1), int64(2), int64(0)}, code: pgerr.InvalidParameterValue, msg: "step size cannot equal zero"},
		{name: "numeric step zero", t: num, args: []any{n("1"), n("2"), n("0")}, code: pgerr.InvalidParameterValue, msg: "step size cannot equal zero"},
		{name: "numeric start NaN", t: num, args: []any{n("NaN"), n("2")}, code: pgerr.InvalidParameterValue, msg: "start value cannot be NaN"},
		{name: "numeric stop NaN", t: num, args: []any{n("1"), n("NaN")}, code: pgerr.InvalidParameterValue, msg: "stop value cannot be NaN"},
		{
			name: "numeric step NaN", t: num, args: []any{n("1"), n("2"), n("NaN")},
			code: pgerr.InvalidParameterValue, msg: "step size cannot be NaN",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.bug != "" {
				knownBug(t, tt.bug)
			}
			args := make([]nodes.Expr, len(tt.args))
			for i, a := range tt.args {
				args[i] = lit(a, tt.t)
			}
			p := &nodes.FunctionScan{Func: "generate_series", Args: args, T: tt.t, Alias: "g"}
			op, err := Build(p, &ExecContext{BatchSize: 2})
			if err != nil {
				t.Fatal(err)
			}
			rows, err := exectest.Run(context.Background(), op)
			if tt.code != "" {
				wantPgErr(t, err, tt.code, tt.msg)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []any
			for _, r := range rows {
				got = append(got, r[0])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBatchSizeBoundsBuiltBatches: nodes that build batches make them no
// larger than ExecContext.BatchSize.
func TestBatchSizeBoundsBuiltBatches(t *testing.T) {
	series := func() nodes.Plan { return seriesPlan(types.Int8T, int64(1), int64(10)) }
	plans := []struct {
		name string
		plan nodes.Plan
	}{
		{"Function Scan", series()},
		{"Function Scan numeric", seriesPlan(types.NumericT, numeric(t, "1"), numeric(t, "10"))},
		{"Sort", &nodes.Sort{Child: series(), Keys: []nodes.SortKey{{Expr: col(0, types.Int8T), Desc: true}}}},
		{"HashAggregate", &nodes.Agg{Child: series(), Strategy: nodes.AggHashed, GroupKeys: []nodes.Expr{col(0, types.Int8T)},
			Aggs: []*nodes.AggCall{aggCall("count", nil, types.Int8T)}}},
	}
	for _, p := range plans {
		t.Run(p.name, func(t *testing.T) {
			c := &exectest.Counter{}
			op, err := Build(p.plan, &ExecContext{BatchSize: 3})
			if err != nil {
				t.Fatal(err)
			}
			c.Operator = &maxBatch{Operator: op, t: t, max: 3}
			rows, err := exectest.Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 10 || c.Batches != 4 {
				t.Errorf("got %d rows in %d batches, want 10 in 4", len(rows), c.Batches)
			}
		})
	}
}

// maxBatch fails the test when a batch exceeds max rows.
type maxBatch struct {
	Operator
	t   *testing.T
	max int64
}

func (m *maxBatch) Next(ctx context.Context) (arrow.RecordBatch, error) {
	b, err := m.Operator.Next(ctx)
	if b != nil && b.NumRows() > m.max {
		m.t.Errorf("batch of %d rows, BatchSize is %d", b.NumRows(), m.max)
	}
	return b, err
}

// TestValuesScan evaluates VALUES rows, NULLs and an error in a row.
func TestValuesScan(t *testing.T) {
	ok := &nodes.ValuesScan{
		Rows: [][]nodes.Expr{
			{int8Lit(1), lit("a", types.TextT)},
			{lit(nil, types.Int8T), lit(nil, types.TextT)},
			{op("*", int8Lit(6), int8Lit(7), types.Int8T), lit("c", types.TextT)},
		},
		Types: []types.T{types.Int8T, types.TextT},
	}
	op1, err := Build(ok, &ExecContext{})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := exectest.Run(context.Background(), op1)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{{int64(1), "a"}, {nil, nil}, {int64(42), "c"}}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}

	bad := &nodes.ValuesScan{
		Rows:  [][]nodes.Expr{{int8Lit(1)}, {op("/", int8Lit(1), int8Lit(0), types.Int8T)}},
		Types: []types.T{types.Int8T},
	}
	op2, err := Build(bad, &ExecContext{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = exectest.Run(context.Background(), op2)
	wantPgErr(t, err, pgerr.DivisionByZero, "division by zero")
}

// TestDeleteKeepsUntouchedBatches: DELETE and UPDATE find their rows by
// identity and rewrite only the stored batches they changed; the others
// stay shared, not copied.
func TestDeleteKeepsUntouchedBatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	tbl := leakTable(mem) // batches (1,3) (2,2) (3,1) | (4,5) (NULL,5) (6,NULL) | (7,9) (8,0)
	before := tbl.Snapshot()
	for _, tc := range []struct {
		name string
		plan *nodes.ModifyTable
		rows int64
	}{
		{"DELETE", dmlPlan(nodes.Delete, tbl, cmpOp("=", colA, int8Lit(4)), nil, nil), 7},
		{"UPDATE", dmlPlan(nodes.Update, tbl, cmpOp("=", colA, int8Lit(1)), []int{1}, []nodes.Expr{int8Lit(10)}), 7},
	} {
		ec := writeContext(t)
		op, err := Build(tc.plan, ec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := exectest.Run(context.Background(), op); err != nil {
			t.Fatal(err)
		}
		endWrites(t, ec, true)
		if n := tbl.Rows(); n != tc.rows {
			t.Fatalf("%s: %d rows, want %d", tc.name, n, tc.rows)
		}
	}
	after := tbl.Snapshot()
	// The third stored batch was never touched: the same arrays.
	shared := 0
	for _, b := range after {
		if b.Column(0) == before[2].Column(0) {
			shared++
		}
	}
	if shared != 1 {
		t.Errorf("the untouched batch was copied (%d of %d batches share its arrays)", shared, len(after))
	}
	if got := exectest.Rows(after[len(after)-1]); len(got) != 1 || got[0][0] != int64(1) || got[0][1] != int64(10) {
		t.Errorf("updated row %v, want [1 10] last", got)
	}
	releaseBatches(before)
	releaseBatches(after)
	tbl.Replace(nil)
	mem.AssertSize(t, 0)
}
