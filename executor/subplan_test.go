package executor

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// The table is t(a, b) of leakTable: (1,3) (2,2) (3,1) (4,5) (NULL,5)
// (6,NULL) (7,9) (8,0). Every SubPlan here reads t again.

// param is outer value $id inside a subquery.
func param(id int) *nodes.Param { return &nodes.Param{ID: id, T: types.Int8T} }

// correlatedCount is (SELECT count(*) FROM t WHERE t.b = outer.a).
func correlatedCount(tbl *storage.Table) *nodes.SubPlan {
	inner := withFilter(scanAB(tbl), cmpOp("=", colB, param(100)))
	agg := &nodes.Agg{Child: inner, Aggs: []*nodes.AggCall{aggCall("count", nil, types.Int8T)}}
	agg.Out = []nodes.Field{field("count", types.Int8T)}
	return &nodes.SubPlan{Number: 1, Kind: nodes.SubLinkExpr, Plan: agg, Params: []int{100}, Args: []nodes.Expr{colA}, T: types.Int8T}
}

// anyOfB is outer.a op ANY (SELECT b FROM t WHERE filter), uncorrelated.
func anyOfB(tbl *storage.Table, kind nodes.SubLinkKind, cmp string, filter nodes.Expr) *nodes.SubPlan {
	inner := withFilter(scanAB(tbl), filter, colB)
	return &nodes.SubPlan{Number: 1, Kind: kind, Plan: inner, Params: []int{101}, Args: []nodes.Expr{colA},
		Test: cmpOp(cmp, param(101), col(0, types.Int8T)), T: types.BoolT}
}

// hashedIn is outer.a IN (SELECT b FROM t WHERE filter), hashed.
func hashedIn(tbl *storage.Table, filter nodes.Expr) *nodes.SubPlan {
	inner := withFilter(scanAB(tbl), filter, colB)
	return &nodes.SubPlan{Number: 1, Kind: nodes.SubLinkAny, Plan: inner, Hashed: true,
		HashLeft: colA, HashRight: col(0, types.Int8T), T: types.BoolT}
}

func TestSubPlans(t *testing.T) {
	notNull := &nodes.NullTest{Arg: colB, IsNot: true}
	tests := []struct {
		name     string
		expr     func(tbl *storage.Table) nodes.Expr
		want     string // the values over t's rows, in order
		wantCode string
		workMem  int64
	}{
		{name: "correlated scalar", expr: func(tbl *storage.Table) nodes.Expr { return correlatedCount(tbl) },
			want: "[1 1 1 0 0 0 0 0]"},
		{name: "EXISTS", expr: func(tbl *storage.Table) nodes.Expr {
			sp := correlatedCount(tbl)
			sp.Kind, sp.T, sp.Plan = nodes.SubLinkExists, types.BoolT, sp.Plan.Children()[0]
			return sp
		}, want: "[true true true false false false false false]"},
		{name: "scalar with several rows", wantCode: pgerr.CardinalityViolation, expr: func(tbl *storage.Table) nodes.Expr {
			sp := correlatedCount(tbl)
			sp.Plan = withFilter(scanAB(tbl), cmpOp(">", colB, param(100)), colA)
			return sp
		}},
		{name: "ANY with NULLs", expr: func(tbl *storage.Table) nodes.Expr { return anyOfB(tbl, nodes.SubLinkAny, ">", nil) },
			want: "[true true true true <nil> true true true]"},
		{name: "ANY without NULLs", expr: func(tbl *storage.Table) nodes.Expr { return anyOfB(tbl, nodes.SubLinkAny, ">", notNull) },
			want: "[true true true true <nil> true true true]"},
		{name: "ALL", expr: func(tbl *storage.Table) nodes.Expr { return anyOfB(tbl, nodes.SubLinkAll, ">=", notNull) },
			want: "[false false false false <nil> false false false]"},
		{name: "ALL with NULLs", expr: func(tbl *storage.Table) nodes.Expr { return anyOfB(tbl, nodes.SubLinkAll, "<>", nil) },
			want: "[false false false <nil> <nil> <nil> <nil> <nil>]"},
		{name: "ALL rerun per row beyond work_mem", workMem: 1, expr: func(tbl *storage.Table) nodes.Expr {
			return anyOfB(tbl, nodes.SubLinkAll, "<>", nil)
		}, want: "[false false false <nil> <nil> <nil> <nil> <nil>]"},
		{name: "hashed IN", expr: func(tbl *storage.Table) nodes.Expr { return hashedIn(tbl, nil) },
			want: "[true true true <nil> <nil> <nil> <nil> <nil>]"},
		{name: "hashed IN without NULLs", expr: func(tbl *storage.Table) nodes.Expr { return hashedIn(tbl, notNull) },
			want: "[true true true false <nil> false false false]"},
		{name: "hashed IN rerun per row beyond work_mem", workMem: 1, expr: func(tbl *storage.Table) nodes.Expr { return hashedIn(tbl, nil) },
			want: "[true true true <nil> <nil> <nil> <nil> <nil>]"},
		{name: "hashed IN of nothing", expr: func(tbl *storage.Table) nodes.Expr { return hashedIn(tbl, cmpOp(">", colB, int8Lit(100))) },
			want: "[false false false false false false false false]"},
		{name: "error inside", wantCode: pgerr.DivisionByZero, expr: func(tbl *storage.Table) nodes.Expr {
			return anyOfB(tbl, nodes.SubLinkAny, ">", cmpOp(">", op("/", colA, colB, types.Int8T), int8Lit(0)))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := memory.NewCheckedAllocator(memory.NewGoAllocator())
			exec := checkedAlloc(t)
			tbl := leakTable(data)
			ec := &ExecContext{BatchSize: 3, WorkMem: tt.workMem}
			e := tt.expr(tbl)
			plan := withFilter(scanAB(tbl), nil, e)
			rows, err := buildAndRun(t, plan, ec)
			ec.Release()
			if tt.wantCode != "" {
				if got := pgerr.Code(err); got != tt.wantCode {
					t.Fatalf("error = %v (%s), want SQLSTATE %s", err, got, tt.wantCode)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if got := fmt.Sprint(column0(rows)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			tbl.Replace(nil)
			data.AssertSize(t, 0)
			exec.AssertSize(t, 0)
		})
	}
}

// TestSubPlanReusesAnswers: a correlated SubPlan without volatile
// functions runs once per distinct outer value, a volatile one once per
// row; a hashed one once.
func TestSubPlanReusesAnswers(t *testing.T) {
	tbl := leakTable(memory.NewGoAllocator())
	for _, tt := range []struct {
		name     string
		sp       func() *nodes.SubPlan
		outer    nodes.Expr
		wantRuns int64
	}{
		{"distinct values", func() *nodes.SubPlan { return correlatedCount(tbl) }, colA, 8},
		{"equal values", func() *nodes.SubPlan { return correlatedCount(tbl) }, op("%", colA, int8Lit(2), types.Int8T), 3},
		{"volatile", func() *nodes.SubPlan {
			sp := correlatedCount(tbl)
			sp.Volatile = true
			return sp
		}, op("%", colA, int8Lit(2), types.Int8T), 8},
		{"hashed", func() *nodes.SubPlan { return hashedIn(tbl, nil) }, colA, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sp := tt.sp()
			if sp.Hashed {
				sp.HashLeft = tt.outer
			} else {
				sp.Args = []nodes.Expr{tt.outer}
			}
			plan := withFilter(scanAB(tbl), nil, sp)
			plan.Base().SubPlans = []*nodes.SubPlan{sp}
			n := nodes.Number(plan)
			ec := &ExecContext{BatchSize: 3, Stats: instrument.NewStats(n, false)}
			if _, err := buildAndRun(t, plan, ec); err != nil {
				t.Fatal(err)
			}
			ec.Release()
			if got := ec.Stats.Node(sp.Plan.Base().ID).Loops; got != tt.wantRuns {
				t.Errorf("the subquery ran %d times, want %d", got, tt.wantRuns)
			}
		})
	}
}

// TestSubPlanCancel: cancelling the statement stops a SubPlan mid-run.
func TestSubPlanCancel(t *testing.T) {
	tbl := leakTable(memory.NewGoAllocator())
	plan := withFilter(scanAB(tbl), nil, correlatedCount(tbl))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	op, err := Build(plan, &ExecContext{})
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	if err := op.Open(ctx); err == nil {
		_, err = op.Next(ctx)
		if pgerr.Code(err) != pgerr.QueryCanceled {
			t.Fatalf("Next after cancel: %v, want 57014", err)
		}
	}
}

func buildAndRun(t *testing.T, plan nodes.Plan, ec *ExecContext) ([][]any, error) {
	t.Helper()
	op, err := Build(plan, ec)
	if err != nil {
		t.Fatal(err)
	}
	return run(t, op)
}

func column0(rows [][]any) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = r[0]
	}
	return out
}

// TestParamLoop: a parameterized Nested Loop (LATERAL) runs its inner
// side per outer row with the row's Params, inner and left, to the end
// and stopped early, releasing every batch.
func TestParamLoop(t *testing.T) {
	loop := func(tbl *storage.Table, typ nodes.JoinType) *nodes.NestedLoop {
		inner := withFilter(scanAB(tbl), cmpOp("=", colB, param(200)), colA)
		nl := &nodes.NestedLoop{Type: typ, Outer: scanAB(tbl), Inner: inner,
			Params: []nodes.NestParam{{ID: 200, Expr: colA}}}
		nl.Out = []nodes.Field{field("a", types.Int8T), field("b", types.Int8T), field("x0", types.Int8T)}
		return nl
	}
	for _, tt := range []struct {
		name      string
		typ       nodes.JoinType
		filter    nodes.Expr
		stopAfter int
		want      int64
	}{
		{"inner", nodes.JoinInner, nil, 0, 3}, // a = 1, 2, 3 meet b
		{"left", nodes.JoinLeft, nil, 0, 8},   // and 5 unmatched rows
		{"left filtered", nodes.JoinLeft, cmpOp(">", col(2, types.Int8T), int8Lit(3)), 0, 8},
		{"stopped early", nodes.JoinLeft, nil, 2, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := memory.NewCheckedAllocator(memory.NewGoAllocator())
			exec := checkedAlloc(t)
			tbl := leakTable(data)
			nl := loop(tbl, tt.typ)
			nl.JoinFilter = tt.filter
			ec := &ExecContext{BatchSize: 3}
			op, err := Build(nl, ec)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := drainN(context.Background(), op, tt.stopAfter)
			ec.Release()
			if err != nil {
				t.Fatal(err)
			}
			if rows != tt.want {
				t.Errorf("%d rows, want %d", rows, tt.want)
			}
			tbl.Replace(nil)
			data.AssertSize(t, 0)
			exec.AssertSize(t, 0)
		})
	}
}
