package executor

import (
	"context"
	"math/rand"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
	"go.uber.org/goleak"
)

// nlPlan joins two stubs in a nested loop, over a Materialize or not.
func nlPlan(typ nodes.JoinType, filter nodes.Expr, material bool) (*nodes.NestedLoop, *nodes.Result, *nodes.Result) {
	o, i := stub(outerFields...), stub(innerFields...)
	var inner nodes.Plan = i
	if material {
		m := &nodes.Material{Child: i}
		m.Out = innerFields
		inner = m
	}
	nl := &nodes.NestedLoop{Type: typ, Outer: o, Inner: inner, JoinFilter: filter}
	nl.Out = ownFields(typ)
	return nl, o, i
}

// keyEq is the JoinFilter ok1 = ik1 (AND ov < iw with lt), and keyEqGo
// its reference.
func keyEq(lt bool) nodes.Expr {
	eq := cmpOp("=", col(0, types.Int8T), col(3, types.Int8T))
	if !lt {
		return eq
	}
	return &nodes.BoolExpr{Op: nodes.And, Args: []nodes.Expr{eq, ltFilter()}}
}

func keyEqGo(lt bool) func(o, i []any) bool {
	return func(o, i []any) bool {
		return o[0] != nil && i[0] != nil && o[0] == i[0] && (!lt || ltGo(o, i))
	}
}

// TestNestedLoopMatchesReference runs every join type with a JoinFilter
// (an equality, with and without a residual condition; a condition that
// is no equality) and without one (a cross join), over a Materialize and
// straight over the inner side, with chunks smaller and larger than the
// inputs, against the reference join.
func TestNestedLoopMatchesReference(t *testing.T) {
	mem := checkedAlloc(t)
	r := rand.New(rand.NewSource(5))
	outer, inner := randomRows(r, 60, 8), randomRows(r, 45, 8)
	filters := []struct {
		name string
		expr nodes.Expr
		ref  func(o, i []any) bool
	}{
		{"equality", keyEq(false), keyEqGo(false)},
		{"equality and residual", keyEq(true), keyEqGo(true)},
		{"inequality", ltFilter(), ltGo},
		{"cross", nil, nil},
	}
	runs := []joinRun{{batchSize: 7, inSize: 10}, {batchSize: 64, inSize: 50}, {batchSize: 4096, inSize: 13}}
	for _, typ := range joinTypes {
		for _, f := range filters {
			want := refJoin(typ, outer, inner, nil, f.ref)
			for _, material := range []bool{true, false} {
				for _, run := range runs {
					name := typ.SQL() + "/" + f.name + "/" + run.String()
					if material {
						name += "/material"
					}
					p, o, i := nlPlan(typ, f.expr, material)
					ec := run.context(t, "")
					got, err := runJoin(t, p, ec, mem, run, o, i, outer, inner)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					sameRows(t, name, got, want)
				}
			}
		}
	}
	mem.AssertSize(t, 0)
}

// TestNestedLoopEmptySides: right and full joins return the inner rows of
// an empty outer side; left and anti joins the outer rows over an empty
// inner side; an inner join over an empty inner side reads no more of
// its outer side than the first batch, and an empty outer side leaves
// the inner side unread.
func TestNestedLoopEmptySides(t *testing.T) {
	mem := checkedAlloc(t)
	rows := [][]any{{int64(1), "a", int64(1)}, {nil, "b", int64(2)}, {int64(3), "c", int64(0)}}
	for _, typ := range joinTypes {
		for _, emptyInner := range []bool{true, false} {
			for _, filter := range []nodes.Expr{nil, keyEq(false)} {
				outer, inner := rows, [][]any(nil)
				if !emptyInner {
					outer, inner = nil, rows
				}
				var ref func(o, i []any) bool
				if filter != nil {
					ref = keyEqGo(false)
				}
				p, o, i := nlPlan(typ, filter, true)
				of := exectest.New(nil, "outer", exectest.Batches(rowBatches(mem, outerFields, outer, 1)...)...)
				inf := exectest.New(nil, "inner", exectest.Batches(rowBatches(mem, innerFields, inner, 1)...)...)
				ec := &ExecContext{BatchSize: 100}
				op := buildWithFakes(t, p, ec, map[*nodes.Result]Operator{o: of, i: inf})
				got, err := drainChecked(t, op, 100)
				if err != nil {
					t.Fatal(err)
				}
				sameRows(t, typ.SQL(), got, refJoin(typ, outer, inner, nil, ref))
				wantNoViolations(t, of, inf)
				_, oNexts, _ := of.Counts()
				iOpens, _, _ := inf.Counts()
				if emptyInner && !fillOuter(typ) && oNexts != 1 {
					t.Errorf("%s: %d outer Next calls over an empty inner side", typ.SQL(), oNexts)
				}
				if !emptyInner && (iOpens == 1) != fillInner(typ) {
					t.Errorf("%s: inner side opened %d times for an empty outer side", typ.SQL(), iOpens)
				}
			}
		}
	}
	mem.AssertSize(t, 0)
}

// TestNestedLoopStats: the join counts the pairs its JoinFilter removed
// and its Filter's rows; a Materialize inner side shows PostgreSQL's
// rescans, one per outer row, with all its rows each time; its child
// ran once.
func TestNestedLoopStats(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	outer, inner := randomRows(r, 40, 5), randomRows(r, 30, 5)
	p, o, i := nlPlan(nodes.JoinLeft, keyEq(false), true)
	p.Filter = &nodes.NullTest{Arg: col(0, types.Int8T), IsNot: true}
	ec := &ExecContext{BatchSize: 16, Stats: instrument.NewStats(nodes.Number(p), false)}
	got, err := runJoin(t, p, ec, memory.NewGoAllocator(), joinRun{batchSize: 16, inSize: 7}, o, i, outer, inner)
	if err != nil {
		t.Fatal(err)
	}
	all := refJoin(nodes.JoinLeft, outer, inner, nil, keyEqGo(false))
	matched := refJoin(nodes.JoinInner, outer, inner, nil, keyEqGo(false))
	ns := ec.Stats.Node(p.ID)
	if want := int64(len(outer)*len(inner) - len(matched)); ns.RowsRemovedByJoinFilter != want {
		t.Errorf("rows removed by join filter %d, want %d", ns.RowsRemovedByJoinFilter, want)
	}
	if want := int64(len(all) - len(got)); ns.RowsRemovedByFilter != want || ns.Rows != int64(len(got)) {
		t.Errorf("join rows=%d removed by filter %d, want %d, %d", ns.Rows, ns.RowsRemovedByFilter, len(got), want)
	}
	ms := ec.Stats.Node(p.Inner.Base().ID)
	if ms.Loops != 40 || ms.Rows != 40*30 {
		t.Errorf("Materialize loops=%d rows=%d, want 40, %d", ms.Loops, ms.Rows, 40*30)
	}
	if cs := ec.Stats.Node(i.ID); cs.Loops != 1 || cs.Rows != 30 {
		t.Errorf("Materialize's child loops=%d rows=%d, want 1, 30", cs.Loops, cs.Rows)
	}
}

// TestNestedLoopMemoryLimit: the inner rows a nested loop holds (itself
// or in its Materialize) count against the memory pool: past its limit
// the statement fails with 53200, and everything is released.
func TestNestedLoopMemoryLimit(t *testing.T) {
	mem := checkedAlloc(t)
	r := rand.New(rand.NewSource(7))
	outer, inner := randomRows(r, 10, 5), randomRows(r, 5000, 5)
	for _, material := range []bool{true, false} {
		p, o, i := nlPlan(nodes.JoinInner, keyEq(false), material)
		pool := NewMemoryPool(16<<10, nil)
		ec := &ExecContext{BatchSize: 1024, Memory: pool}
		_, err := runJoin(t, p, ec, mem, joinRun{batchSize: 1024, inSize: 100}, o, i, outer, inner)
		wantPgErr(t, err, pgerr.OutOfMemory, "out of memory")
		if pool.Used() != 0 {
			t.Errorf("material=%v: %d bytes still reserved", material, pool.Used())
		}
	}
	mem.AssertSize(t, 0)
}

// TestNestedLoopCancel cancels a nested loop in the middle of an outer
// batch whose pairs all fail the JoinFilter: it stops with 57014 within
// a chunk or so.
func TestNestedLoopCancel(t *testing.T) {
	var outer, inner [][]any
	for k := 0; k < 3000; k++ {
		outer = append(outer, []any{int64(k), "o", int64(5)})
		inner = append(inner, []any{int64(k), "i", int64(0)})
	}
	mem := memory.NewGoAllocator()
	p, o, i := nlPlan(nodes.JoinInner, ltFilter(), true) // 5 < 0: never
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outerOp := &cancelAfter{Op: exectest.New(nil, "outer", exectest.Batches(rowBatches(mem, outerFields, outer, 3000)...)...), cancel: cancel}
	ec := &ExecContext{BatchSize: 4096}
	op := buildWithFakes(t, p, ec, map[*nodes.Result]Operator{o: outerOp,
		i: exectest.New(nil, "inner", exectest.Batches(rowBatches(mem, innerFields, inner, 500)...)...)})
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := op.Next(ctx)
	elapsed := time.Since(start)
	op.Close()
	wantPgErr(t, err, pgerr.QueryCanceled, userCancelMsg)
	if elapsed > 2*time.Second {
		t.Errorf("the nested loop took %v to notice the cancel", elapsed)
	}
}

// TestNestedLoopEarlyClose closes nested loops of every type after one
// batch: everything is released, no goroutine is left.
func TestNestedLoopEarlyClose(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	mem := checkedAlloc(t)
	r := rand.New(rand.NewSource(8))
	outer, inner := randomRows(r, 200, 5), randomRows(r, 100, 5)
	for _, typ := range joinTypes {
		for _, material := range []bool{true, false} {
			p, o, i := nlPlan(typ, ltFilter(), material)
			ec := &ExecContext{BatchSize: 10}
			of := exectest.New(nil, "outer", exectest.Batches(rowBatches(mem, outerFields, outer, 30)...)...)
			inf := exectest.New(nil, "inner", exectest.Batches(rowBatches(mem, innerFields, inner, 30)...)...)
			op := buildWithFakes(t, p, ec, map[*nodes.Result]Operator{o: of, i: inf})
			n, err := drainN(context.Background(), op, 1)
			if err != nil || n == 0 {
				t.Fatalf("%s: %d rows, %v", typ.SQL(), n, err)
			}
			wantNoViolations(t, of, inf)
		}
	}
	mem.AssertSize(t, 0)
}

// TestMaterialPassesThrough: a Materialize read through Next returns its
// child's rows as they come, keeping none; once buffered (by a nested
// loop), Next returns the buffered rows.
func TestMaterialPassesThrough(t *testing.T) {
	mem := checkedAlloc(t)
	rows := randomRows(rand.New(rand.NewSource(9)), 50, 5)
	m := &nodes.Material{Child: stub(innerFields...)}
	m.Out = innerFields
	for _, buffer := range []bool{false, true} {
		child := exectest.New(nil, "child", exectest.Batches(rowBatches(mem, innerFields, rows, 7)...)...)
		pool := NewMemoryPool(0, nil)
		ec := &ExecContext{Memory: pool}
		op := buildWithFakes(t, m, ec, map[*nodes.Result]Operator{m.Child.(*nodes.Result): child})
		if err := op.Open(context.Background()); err != nil {
			t.Fatal(err)
		}
		if buffer {
			bs, err := unwrapOperator(op).(rowBuffer).bufferedRows(context.Background())
			if err != nil || len(bs) != 8 || pool.Used() == 0 {
				t.Fatalf("buffered %d batches (%d bytes), %v", len(bs), pool.Used(), err)
			}
		}
		got, err := exectest.Drain(context.Background(), op)
		if err != nil {
			t.Fatal(err)
		}
		if !buffer && pool.Used() != 0 {
			t.Errorf("passing rows through reserved %d bytes", pool.Used())
		}
		op.Close()
		sameRows(t, "Materialize", got, rows)
		wantNoViolations(t, child)
		if pool.Used() != 0 {
			t.Errorf("%d bytes still reserved", pool.Used())
		}
	}
	mem.AssertSize(t, 0)
}
