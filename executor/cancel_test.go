package executor

// Cancellation: scans check their context before every batch and turn a
// done context into 57014, with the message chosen by the cancel cause.

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

const (
	userCancelMsg = "canceling statement due to user request"
	timeoutMsg    = "canceling statement due to statement timeout"
)

// cancellation is a way a statement's context ends: start returns a live
// context and a function that ends it, and msg is the 57014 message.
type cancellation struct {
	name  string
	start func() (ctx context.Context, end func())
	msg   string
}

func cancellations() []cancellation {
	return []cancellation{
		{
			name: "user cancel",
			start: func() (context.Context, func()) {
				return context.WithCancel(context.Background())
			},
			msg: userCancelMsg,
		},
		{
			name: "cancel with cause Timeout",
			start: func() (context.Context, func()) {
				ctx, cancel := context.WithCancelCause(context.Background())
				return ctx, func() { cancel(pgerr.Timeout()) }
			},
			msg: timeoutMsg,
		},
		{
			// As Session.statementContext implements statement_timeout.
			// Long enough for a first batch before it (1ms was not,
			// under -race on a loaded machine), short for end's wait.
			name: "statement_timeout expires",
			start: func() (context.Context, func()) {
				ctx, cancel := context.WithTimeoutCause(context.Background(), 100*time.Millisecond, pgerr.Timeout())
				return ctx, func() {
					<-ctx.Done()
					cancel()
				}
			},
			msg: timeoutMsg,
		},
	}
}

func seriesPlan(t types.T, start, stop any) *nodes.FunctionScan {
	return &nodes.FunctionScan{
		PlanBase: nodes.PlanBase{Out: []nodes.Field{field("g", t)}},
		Func:     "generate_series",
		Args:     []nodes.Expr{lit(start, t), lit(stop, t)},
		T:        t,
		Alias:    "g",
	}
}

// leafPlans are the plans whose leaves check the context, alone and under
// nodes that must pass the cancel error on.
func leafPlans(tbl *storage.Table) []struct {
	name string
	plan nodes.Plan
} {
	series := func() nodes.Plan { return seriesPlan(types.Int8T, int64(1), int64(10)) }
	return []struct {
		name string
		plan nodes.Plan
	}{
		{"Seq Scan", scanAB(tbl)},
		{"Function Scan", series()},
		{"Function Scan integer", seriesPlan(types.Int4T, int64(1), int64(10))},
		{"Function Scan numeric", seriesPlan(types.NumericT, types.NumericFromInt64(1), types.NumericFromInt64(10))},
		{"Limit over Seq Scan", &nodes.Limit{Child: scanAB(tbl), Count: int8Lit(100)}},
		{"Sort over Seq Scan", &nodes.Sort{Child: scanAB(tbl), Keys: []nodes.SortKey{{Expr: col(0, types.Int8T)}}}},
		{"Aggregate over Function Scan", &nodes.Agg{Child: series(), Aggs: []*nodes.AggCall{{Name: "count", Star: true, T: types.Int8T}}}},
		{"Unique over Seq Scan", &nodes.Unique{Child: scanAB(tbl), Keys: []int{0}}},
		{"Append of Function Scans", &nodes.Append{Kids: []nodes.Plan{series(), series()}}},
	}
}

// TestCancelBeforeFirstBatch: a context that is done when the first batch
// is asked for yields 57014 with the cause's message.
func TestCancelBeforeFirstBatch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	tbl := newTable("t", abBatch(mem, []any{1, 2}, []any{3, 4}), abBatch(mem, []any{5}, []any{6}))
	for _, p := range leafPlans(tbl) {
		for _, c := range cancellations() {
			t.Run(p.name+"/"+c.name, func(t *testing.T) {
				op, err := Build(p.plan, &ExecContext{BatchSize: 4})
				if err != nil {
					t.Fatal(err)
				}
				ctx, end := c.start()
				end()
				err = Drain(ctx, op, func(arrow.RecordBatch) error { return nil })
				wantPgErr(t, err, pgerr.QueryCanceled, c.msg)
			})
		}
	}
	tbl.Replace(nil)
	mem.AssertSize(t, 0)
}

// TestCancelBetweenBatches cancels after the first batch: the next call
// fails with 57014 and Close releases the batches the scan still holds.
func TestCancelBetweenBatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	tbl := newTable("t", abBatch(mem, []any{1}, []any{2}), abBatch(mem, []any{3}, []any{4}), abBatch(mem, []any{5}, []any{6}))
	leaves := []struct {
		name string
		plan nodes.Plan
	}{
		{"Seq Scan", scanAB(tbl)},
		{"Function Scan", seriesPlan(types.Int8T, int64(1), int64(10))},
		{"Function Scan numeric", seriesPlan(types.NumericT, types.NumericFromInt64(1), types.NumericFromInt64(10))},
	}
	for _, leaf := range leaves {
		for _, c := range cancellations() {
			t.Run(leaf.name+"/"+c.name, func(t *testing.T) {
				op, err := Build(leaf.plan, &ExecContext{BatchSize: 2})
				if err != nil {
					t.Fatal(err)
				}
				ctx, end := c.start()
				defer op.Close()
				if err := op.Open(ctx); err != nil {
					t.Fatal(err)
				}
				b, err := op.Next(ctx)
				if err != nil {
					t.Fatalf("first batch: %v", err)
				}
				b.Release()
				end()
				b, err = op.Next(ctx)
				if b != nil {
					b.Release()
					t.Fatal("Next returned a batch after cancellation")
				}
				wantPgErr(t, err, pgerr.QueryCanceled, c.msg)
			})
		}
	}
	tbl.Replace(nil)
	mem.AssertSize(t, 0)
}

// TestCtxError maps contexts to errors directly.
func TestCtxError(t *testing.T) {
	live := context.Background()
	if err := checkCtx(live); err != nil {
		t.Fatalf("checkCtx(live context) = %v", err)
	}
	for _, c := range cancellations() {
		t.Run(c.name, func(t *testing.T) {
			ctx, end := c.start()
			end()
			wantPgErr(t, CtxError(ctx), pgerr.QueryCanceled, c.msg)
			wantPgErr(t, checkCtx(ctx), pgerr.QueryCanceled, c.msg)
		})
	}
}
