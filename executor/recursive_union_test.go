package executor

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// recursivePlan is WITH RECURSIVE t(n) AS (SELECT 1 UNION [ALL] SELECT
// step(n) FROM t [WHERE n < limit]).
func recursivePlan(distinct bool, step nodes.Expr, limit int64) *nodes.RecursiveUnion {
	out := []nodes.Field{field("n", types.Int8T)}
	nonRec := &nodes.Result{}
	nonRec.Targets, nonRec.Out = []nodes.Expr{int8Lit(1)}, out
	wt := &nodes.WorkTableScan{WorkTable: 1, Name: "t", Alias: "t_1"}
	if limit > 0 {
		wt.Filter = cmpOp("<", col(0, types.Int8T), int8Lit(limit))
	}
	wt.Targets, wt.Out = []nodes.Expr{step}, out
	ru := &nodes.RecursiveUnion{NonRecursive: nonRec, Recursive: wt, WorkTable: 1, Distinct: distinct}
	ru.Out = out
	return ru
}

func TestRecursiveUnion(t *testing.T) {
	n := col(0, types.Int8T)
	for _, tc := range []struct {
		name  string
		plan  *nodes.RecursiveUnion
		spill bool
		want  []int64
	}{
		{"union all counts", recursivePlan(false, op("+", n, int8Lit(1), types.Int8T), 5), false, []int64{1, 2, 3, 4, 5}},
		{"union all spilled", recursivePlan(false, op("+", n, int8Lit(1), types.Int8T), 5), true, []int64{1, 2, 3, 4, 5}},
		// n % 3 + 1 cycles 1, 2, 3, 1 ...: UNION ends at the repeat.
		{"union ends a cycle", recursivePlan(true, op("+", op("%", n, int8Lit(3), types.Int8T), int8Lit(1), types.Int8T), 0), false, []int64{1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := checkedAlloc(t)
			ec := &ExecContext{DebugSpill: tc.spill, TempDir: t.TempDir()}
			op, err := Build(tc.plan, ec)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := exectest.Run(context.Background(), op)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, r := range rows {
				got = append(got, r[0].(int64))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			ec.Release()
			mem.AssertSize(t, 0)
		})
	}
}

// TestRecursiveUnionStopsEarly: an infinite recursion read ten rows and
// closed ends, leaving nothing allocated.
func TestRecursiveUnionStopsEarly(t *testing.T) {
	mem := checkedAlloc(t)
	ec := &ExecContext{}
	op, err := Build(recursivePlan(false, op("+", col(0, types.Int8T), int8Lit(1), types.Int8T), 0), ec)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	rows := 0
	for rows < 10 {
		b, err := op.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rows += int(b.NumRows())
		b.Release()
	}
	if err := op.Close(); err != nil {
		t.Fatal(err)
	}
	ec.Release()
	mem.AssertSize(t, 0)
}
