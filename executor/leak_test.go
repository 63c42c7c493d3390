package executor

// Batch ownership: after a plan is drained (or stopped early) and closed,
// every batch and array it touched must be released. Two checked
// allocators tell the two owners apart: data holds the table's batches
// (owned by storage, lent to scans by Snapshot), exec replaces the
// executor's allocator and holds everything the nodes build.

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// leakTable makes t(a int8, b int8) with three batches:
//
//	(1,3) (2,2) (3,1) | (4,5) (NULL,5) (6,NULL) | (7,9) (8,0)
func leakTable(mem memory.Allocator) *storage.Table {
	return newTable("t",
		abBatch(mem, []any{1, 2, 3}, []any{3, 2, 1}),
		abBatch(mem, []any{4, nil, 6}, []any{5, 5, nil}),
		abBatch(mem, []any{7, 8}, []any{9, 0}),
	)
}

var (
	colA = col(0, types.Int8T)
	colB = col(1, types.Int8T)
)

func withFilter(p nodes.Plan, filter nodes.Expr, targets ...nodes.Expr) nodes.Plan {
	b := p.Base()
	b.Filter = filter
	if len(targets) > 0 {
		b.Targets = targets
		b.Out = make([]nodes.Field, len(targets))
		for i, e := range targets {
			b.Out[i] = field("x"+itoa(i), e.Type())
		}
	}
	return p
}

func aggCall(name string, arg nodes.Expr, t types.T) *nodes.AggCall {
	if arg == nil {
		return &nodes.AggCall{Name: name, Star: true, T: t}
	}
	return &nodes.AggCall{Name: name, Args: []nodes.Expr{arg}, T: t}
}

// drainN opens op, reads at most n batches (all when n is 0), closes op
// and returns the rows read.
func drainN(ctx context.Context, op Operator, n int) (rows int64, err error) {
	defer func() {
		if cerr := op.Close(); err == nil {
			err = cerr
		}
	}()
	if err := op.Open(ctx); err != nil {
		return 0, err
	}
	for i := 0; n == 0 || i < n; i++ {
		b, err := op.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return rows, err
		}
		rows += b.NumRows()
		b.Release()
	}
	return rows, nil
}

func TestPlansReleaseEverything(t *testing.T) {
	tests := []struct {
		name string
		plan func(tbl *storage.Table) nodes.Plan
		// stopAfter reads only this many batches before Close (0: all).
		stopAfter int
		wantRows  int64
		wantCode  string // SQLSTATE of the expected error
		// hasConsts marks plans with constants, whose evaluators keep an
		// array no Close releases (TestConstantsAreReleased): only the
		// table's batches are checked for them.
		hasConsts bool
	}{
		{name: "Seq Scan", wantRows: 8, plan: func(tbl *storage.Table) nodes.Plan { return scanAB(tbl) }},
		{name: "Seq Scan stopped early", stopAfter: 1, wantRows: 3, plan: func(tbl *storage.Table) nodes.Plan { return scanAB(tbl) }},
		{name: "Seq Scan of one column", wantRows: 8, plan: func(tbl *storage.Table) nodes.Plan {
			return &nodes.SeqScan{PlanBase: nodes.PlanBase{Out: []nodes.Field{field("b", types.Int8T)}}, Table: tbl, Columns: []int{1}}
		}},
		{name: "Filter and projection", wantRows: 3, plan: func(tbl *storage.Table) nodes.Plan {
			return withFilter(scanAB(tbl), cmpOp("<", colA, colB), op("+", colA, colB, types.Int8T), colA)
		}},
		{name: "Filter rejecting a whole batch", wantRows: 2, plan: func(tbl *storage.Table) nodes.Plan {
			return withFilter(scanAB(tbl), cmpOp(">", colA, colB))
		}},
		{name: "Filter error", wantCode: pgerr.DivisionByZero, plan: func(tbl *storage.Table) nodes.Plan {
			return withFilter(scanAB(tbl), cmpOp("<", op("/", colA, colB, types.Int8T), colB))
		}},
		{name: "Projection error", wantCode: pgerr.DivisionByZero, plan: func(tbl *storage.Table) nodes.Plan {
			return withFilter(scanAB(tbl), nil, colA, op("%", colA, colB, types.Int8T))
		}},
		{name: "CASE, COALESCE, AND, OR, NOT, IS NULL", wantRows: 8, plan: func(tbl *storage.Table) nodes.Plan {
			return withFilter(scanAB(tbl), nil,
				&nodes.CaseExpr{Whens: []nodes.CaseWhen{{Cond: cmpOp("<", colA, colB), Result: colA}}, Else: colB, T: types.Int8T},
				&nodes.CoalesceExpr{Args: []nodes.Expr{colA, colB}, T: types.Int8T},
				&nodes.BoolExpr{Op: nodes.Or, Args: []nodes.Expr{
					&nodes.BoolExpr{Op: nodes.And, Args: []nodes.Expr{cmpOp("<", colA, colB), cmpOp("<>", colB, colA)}},
					&nodes.BoolExpr{Op: nodes.Not, Args: []nodes.Expr{&nodes.NullTest{Arg: colA}}},
				}},
				&nodes.Cast{Arg: colA, T: types.Float8T},
			)
		}},
		{name: "Aggregate", wantRows: 1, plan: func(tbl *storage.Table) nodes.Plan {
			return &nodes.Agg{Child: scanAB(tbl), Aggs: []*nodes.AggCall{
				aggCall("count", nil, types.Int8T), aggCall("sum", colA, types.NumericT),
				aggCall("min", colB, types.Int8T), aggCall("avg", colA, types.NumericT),
			}}
		}},
		{name: "Aggregate DISTINCT", wantRows: 1, plan: func(tbl *storage.Table) nodes.Plan {
			c := aggCall("count", colB, types.Int8T)
			c.Distinct = true
			return &nodes.Agg{Child: scanAB(tbl), Aggs: []*nodes.AggCall{c}}
		}},
		{name: "HashAggregate on one key", wantRows: 7, plan: func(tbl *storage.Table) nodes.Plan {
			return &nodes.Agg{Child: scanAB(tbl), Strategy: nodes.AggHashed, GroupKeys: []nodes.Expr{colB},
				Aggs: []*nodes.AggCall{aggCall("count", colA, types.Int8T), aggCall("max", colA, types.Int8T)}}
		}},
		{name: "HashAggregate on two keys", wantRows: 8, plan: func(tbl *storage.Table) nodes.Plan {
			return &nodes.Agg{Child: scanAB(tbl), Strategy: nodes.AggHashed, GroupKeys: []nodes.Expr{colA, colB},
				Aggs: []*nodes.AggCall{aggCall("sum", colA, types.NumericT)}}
		}},
		{name: "HashAggregate stopped early", stopAfter: 1, wantRows: 2, plan: func(tbl *storage.Table) nodes.Plan {
			return &nodes.Agg{Child: scanAB(tbl), Strategy: nodes.AggHashed, GroupKeys: []nodes.Expr{colA},
				Aggs: []*nodes.AggCall{aggCall("count", nil, types.Int8T)}}
		}},
		{name: "Aggregate argument error", wantCode: pgerr.DivisionByZero, plan: func(tbl *storage.Table) nodes.Plan {
			return &nodes.Agg{Child: scanAB(tbl), Aggs: []*nodes.AggCall{aggCall("sum", op("/", colA, colB, types.Int8T), types.NumericT)}}
		}},
		{name: "Sort", wantRows: 8, plan: func(tbl *storage.Table) nodes.Plan {
			return &nodes.Sort{Child: scanAB(tbl), Keys: []nodes.SortKey{{Expr: colB, Desc: true}, {Expr: colA}}}
		}},
		{name: "Sort stopped early", stopAfter: 1, wantRows: 2, plan: func(tbl *storage.Table) nodes.Plan {
			return &nodes.Sort{Child: scanAB(tbl), Keys: []nodes.SortKey{{Expr: colA}}}
		}},
		{name: "Sort top-N", wantRows: 3, plan: func(tbl *storage.Table) nodes.Plan {
			return &nodes.Sort{Child: scanAB(tbl), Keys: []nodes.SortKey{{Expr: colA, NullsFirst: true}}, Bound: 3}
		}},
		{name: "Unique over Sort", wantRows: 7, plan: func(tbl *storage.Table) nodes.Plan {
			scan := scanAB(tbl)
			sort := &nodes.Sort{PlanBase: nodes.PlanBase{Out: scan.Out}, Child: scan, Keys: []nodes.SortKey{{Expr: colB}}}
			return &nodes.Unique{Child: sort, Keys: []int{1}}
		}},
		{name: "Append", wantRows: 16, plan: func(tbl *storage.Table) nodes.Plan {
			return &nodes.Append{Kids: []nodes.Plan{scanAB(tbl), scanAB(tbl)}}
		}},
		{name: "Append stopped early", stopAfter: 4, wantRows: 11, plan: func(tbl *storage.Table) nodes.Plan {
			return &nodes.Append{Kids: []nodes.Plan{scanAB(tbl), scanAB(tbl), scanAB(tbl)}}
		}},
		{name: "Subquery Scan with Filter over Append", wantRows: 6, plan: func(tbl *storage.Table) nodes.Plan {
			app := &nodes.Append{
				PlanBase: nodes.PlanBase{Out: []nodes.Field{field("a", types.Int8T), field("b", types.Int8T)}},
				Kids:     []nodes.Plan{scanAB(tbl), scanAB(tbl)},
			}
			return withFilter(&nodes.SubqueryScan{Child: app}, cmpOp("<", colA, colB), colB)
		}},
		{name: "Limit", hasConsts: true, wantRows: 2, plan: func(tbl *storage.Table) nodes.Plan {
			return &nodes.Limit{Child: scanAB(tbl), Count: int8Lit(2), Offset: int8Lit(2)}
		}},
		{name: "Limit over Append", hasConsts: true, wantRows: 4, plan: func(tbl *storage.Table) nodes.Plan {
			return &nodes.Limit{Child: &nodes.Append{Kids: []nodes.Plan{scanAB(tbl), scanAB(tbl)}}, Count: int8Lit(4)}
		}},
		{name: "Limit over Sort", hasConsts: true, wantRows: 5, plan: func(tbl *storage.Table) nodes.Plan {
			return &nodes.Limit{Child: &nodes.Sort{Child: scanAB(tbl), Keys: []nodes.SortKey{{Expr: colB}}, Bound: 5}, Count: int8Lit(5)}
		}},
		{name: "Filter with a constant", hasConsts: true, wantRows: 4, plan: func(tbl *storage.Table) nodes.Plan {
			return withFilter(scanAB(tbl), cmpOp(">", colA, int8Lit(3)))
		}},
		{name: "DELETE", wantRows: 0, plan: func(tbl *storage.Table) nodes.Plan {
			return dmlPlan(nodes.Delete, tbl, cmpOp("<", colA, colB), nil, nil)
		}},
		{name: "UPDATE RETURNING", wantRows: 3, plan: func(tbl *storage.Table) nodes.Plan {
			return dmlPlan(nodes.Update, tbl, cmpOp("<", colA, colB), []int{0}, []nodes.Expr{op("+", colA, colB, types.Int8T)}, colA)
		}},
		{name: "INSERT from scan", wantRows: 0, plan: func(tbl *storage.Table) nodes.Plan {
			return &nodes.ModifyTable{Op: nodes.Insert, Table: tbl, Child: scanAB(tbl)}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := memory.NewCheckedAllocator(memory.NewGoAllocator())
			exec := checkedAlloc(t)
			tbl := leakTable(data)
			ec := writeContext(t)
			ec.BatchSize = 2
			op, err := Build(tt.plan(tbl), ec)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := drainN(context.Background(), op, tt.stopAfter)
			ec.Release()
			endWrites(t, ec, false)
			if tt.wantCode != "" {
				if got := pgerr.Code(err); got != tt.wantCode {
					t.Fatalf("error = %v (%s), want SQLSTATE %s", err, got, tt.wantCode)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if rows != tt.wantRows {
				t.Errorf("read %d rows, want %d", rows, tt.wantRows)
			}
			tbl.Replace(nil)
			data.AssertSize(t, 0)
			exec.AssertSize(t, 0)
		})
	}
}

// TestConstantsAreReleased: constant evaluators cache the array they
// materialise per batch length; ExecContext.Release (called when the
// statement ends) and EvalConst free them, so no allocator that counts
// (checked, pooled, C memory) sees a leak.
func TestConstantsAreReleased(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, tbl *storage.Table) error
	}{
		{"EvalConst", func(t *testing.T, tbl *storage.Table) error {
			_, err := EvalConst(int8Lit(3), &ExecContext{})
			return err
		}},
		{"Filter with a constant", func(t *testing.T, tbl *storage.Table) error {
			ec := &ExecContext{}
			defer ec.Release()
			op, err := Build(withFilter(scanAB(tbl), cmpOp(">", colA, int8Lit(3))), ec)
			if err != nil {
				return err
			}
			_, err = drainN(context.Background(), op, 0)
			return err
		}},
		{"LIMIT 1", func(t *testing.T, tbl *storage.Table) error {
			ec := &ExecContext{}
			defer ec.Release()
			op, err := Build(&nodes.Limit{Child: scanAB(tbl), Count: int8Lit(1)}, ec)
			if err != nil {
				return err
			}
			_, err = drainN(context.Background(), op, 0)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exec := checkedAlloc(t)
			tbl := leakTable(memory.DefaultAllocator)
			if err := tt.run(t, tbl); err != nil {
				t.Fatal(err)
			}
			exec.AssertSize(t, 0)
		})
	}
}

// TestFailedUpdateReleasesSnapshot: UPDATE and DELETE take a snapshot of
// each leaf (every batch retained) and release each batch after modifying
// it; when a batch fails (an expression error, a cancel), the rest of the
// snapshot is never released, so the table's batches stay referenced
// after the table drops them.
func TestFailedUpdateReleasesSnapshot(t *testing.T) {
	tests := []struct {
		name string
		mt   func(tbl *storage.Table) *nodes.ModifyTable
		ctx  func() context.Context
		code string
	}{
		{
			name: "SET divides by zero in the first batch",
			mt: func(tbl *storage.Table) *nodes.ModifyTable {
				return dmlPlan(nodes.Update, tbl, nil, []int{0}, []nodes.Expr{op("/", colA, op("-", colB, colB, types.Int8T), types.Int8T)})
			},
			ctx:  context.Background,
			code: pgerr.DivisionByZero,
		},
		{
			name: "DELETE cancelled",
			mt: func(tbl *storage.Table) *nodes.ModifyTable {
				return dmlPlan(nodes.Delete, tbl, nil, nil, nil)
			},
			ctx: func() context.Context {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx
			},
			code: pgerr.QueryCanceled,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := memory.NewCheckedAllocator(memory.NewGoAllocator())
			tbl := leakTable(data)
			ec := writeContext(t)
			op, err := Build(tt.mt(tbl), ec)
			if err != nil {
				t.Fatal(err)
			}
			_, err = drainN(tt.ctx(), op, 0)
			endWrites(t, ec, false) // the statement failed: its transaction aborts
			if got := pgerr.Code(err); got != tt.code {
				t.Fatalf("error = %v, want SQLSTATE %s", err, tt.code)
			}
			if n := tbl.Rows(); n != 8 {
				t.Errorf("failed statement changed the table: %d rows, want 8", n)
			}
			tbl.Replace(nil)
			data.AssertSize(t, 0)
		})
	}
}

// TestDrainReleasesOnCallbackError: Drain releases the batch and closes
// the operator when the callback fails.
func TestDrainReleasesOnCallbackError(t *testing.T) {
	data := memory.NewCheckedAllocator(memory.NewGoAllocator())
	exec := checkedAlloc(t)
	tbl := leakTable(data)
	op, err := Build(scanAB(tbl), &ExecContext{})
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	if err := Drain(context.Background(), op, func(arrow.RecordBatch) error { return stop }); err != stop {
		t.Fatalf("Drain = %v, want the callback's error", err)
	}
	tbl.Replace(nil)
	data.AssertSize(t, 0)
	exec.AssertSize(t, 0)
}
