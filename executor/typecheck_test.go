package executor

// A plan whose types disagree with the arrays it meets is an internal
// error (XX000) wherever it is noticed, never a reinterpretation of the
// array's memory: column reads, every kernel's reads of fixed-width
// buffers (valuesOf) and, in tests, every evaluator's result.

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/funcs"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

func TestTypeMismatchIsInternalError(t *testing.T) {
	ints := exectest.Int32s("c0", int64(1), int64(2), nil)
	tests := []struct {
		name string
		expr nodes.Expr
		msg  string
	}{
		// The shape of issue 14: an integer column read as bigint.
		{"column read wider", col(0, types.Int8T), "column 0 (c0) holds int32, the plan says bigint"},
		{"column read as float", col(0, types.Float8T), "column 0 (c0) holds int32, the plan says double precision"},
		{"column out of range", col(3, types.Int4T), "column 3 (c3) of a 1-column input"},
		{"bigint kernel over integer column", op("+", col(0, types.Int8T), int8Lit(1), types.Int8T), "holds int32"},
		// Operands right, result type wrong: the integer kernel returns
		// int32, the plan promises bigint.
		{"kernel result", op("+", col(0, types.Int4T), lit(int64(1), types.Int4T), types.Int8T), "evaluated to 3 rows of int32, the plan says 3 rows of int64"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := evalOver(t, tc.expr, 0, ints)
			if err == nil {
				t.Fatalf("%s = %v, want XX000", tc.expr, got)
			}
			if pgerr.Code(err) != pgerr.InternalError || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("%s: %v (%s), want XX000 containing %q", tc.expr, err, pgerr.Code(err), tc.msg)
			}
		})
	}
}

// TestValuesOfChecksType: the one place kernels reinterpret a buffer
// refuses an array of another type, and accepts the types that share a
// Go representation (dates as int32, timestamps as int64).
func TestValuesOfChecksType(t *testing.T) {
	b := exectest.NewBatch(memory.DefaultAllocator,
		exectest.Int32s("i4", int64(7)), exectest.Int64s("i8", int64(8)), exectest.Float64s("f8", 1.5))
	defer b.Release()
	i4, i8, f8 := b.Column(0), b.Column(1), b.Column(2)

	if got := valuesOf[int32](i4); len(got) != 1 || got[0] != 7 {
		t.Errorf("valuesOf[int32](int32 array) = %v", got)
	}
	mustPanicInternal(t, "int64 over int32", func() { valuesOf[int64](i4) })
	mustPanicInternal(t, "int32 over int64", func() { valuesOf[int32](i8) })
	mustPanicInternal(t, "int64 over float64", func() { valuesOf[int64](f8) })
	mustPanicInternal(t, "float32 over float64", func() { valuesOf[float32](f8) })
	mustPanicInternal(t, "wrapping int64 values as int32", func() {
		newFixedArray(arrow.PrimitiveTypes.Int32, []int64{1}, nil, 0)
	})

	for _, ok := range []struct {
		dt  arrow.DataType
		run func(arrow.DataType)
	}{
		{arrow.FixedWidthTypes.Date32, mustHold[int32]},
		{&arrow.TimestampType{Unit: arrow.Microsecond}, mustHold[int64]},
		{arrow.PrimitiveTypes.Float32, mustHold[float32]},
		{arrow.PrimitiveTypes.Int16, mustHold[int16]},
	} {
		ok.run(ok.dt) // must not panic
	}
}

func mustPanicInternal(t *testing.T, what string, fn func()) {
	t.Helper()
	defer func() {
		t.Helper()
		p := recover()
		err, ok := p.(*pgerr.Error)
		if !ok || err.Code != pgerr.InternalError {
			t.Errorf("%s: panic %v, want an XX000 *pgerr.Error", what, p)
		}
	}()
	fn()
}

// TestAsyncPlanNeedsAsyncOperator: a foreign scan the plan marks async
// must be built as an operator that can fetch asynchronously; one hidden
// behind a wrapper (as a filter wrapper once hid it) is an internal error,
// not a silent synchronous run under "Async Foreign Scan".
func TestAsyncPlanNeedsAsyncOperator(t *testing.T) {
	plan := &nodes.ForeignScan{Async: true, AsyncCapable: true, RemoteSQL: "SELECT k FROM t"}
	scan := &foreignScan{plan: plan}
	if ac, err := asyncOperator(plan, scan); err != nil || ac != scan {
		t.Errorf("async scan: %v, %v", ac, err)
	}
	if ac, err := asyncOperator(plan, &instrumented{Operator: scan}); err != nil || ac != scan {
		t.Errorf("instrumented async scan: %v, %v", ac, err)
	}
	_, err := asyncOperator(plan, &filterProject{child: scan})
	if pgerr.Code(err) != pgerr.InternalError || !strings.Contains(err.Error(), "planned async") {
		t.Errorf("hidden async scan: %v, want XX000", err)
	}
	sync := &nodes.ForeignScan{RemoteSQL: "SELECT k FROM t"}
	if _, err := asyncOperator(sync, &filterProject{child: scan}); err != nil {
		t.Errorf("synchronous scan: %v", err)
	}
}

// TestEveryAggregateIsImplemented: the executor has a state for every
// aggregate the registry lets the planner accept.
func TestEveryAggregateIsImplemented(t *testing.T) {
	args := map[string][]nodes.Expr{"string_agg": {col(0, types.TextT), col(1, types.TextT)}}
	for _, name := range funcs.Aggregates() {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("aggregate %s: %v", name, p)
				}
			}()
			a := args[name]
			if a == nil {
				a = []nodes.Expr{col(0, types.Int8T)}
			}
			call := &nodes.AggCall{Name: name, Args: a, T: types.Int8T}
			if direct, ok := funcs.OrderedSet(name); ok {
				// WITHIN GROUP: the direct arguments, then the sorted one.
				call = &nodes.AggCall{Name: name, Args: make([]nodes.Expr, direct), T: types.Int8T, WithinGroup: true,
					OrderBy: []nodes.SortKey{{Expr: col(0, types.Int8T)}}}
				for i := range call.Args {
					call.Args[i] = &nodes.Const{T: types.Float8T, Value: 0.5}
				}
			}
			if newAggState(call) == nil {
				t.Errorf("aggregate %s: no state", name)
			}
		}()
	}
}
