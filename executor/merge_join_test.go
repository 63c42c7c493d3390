package executor

// Merge Join tests: every join type against the reference join (random
// rows with many duplicate and NULL keys, in batches small enough that
// runs of equal keys span batches on both sides), key orders, long runs,
// empty sides (which side is read), cancellation, the memory pool, and
// early Close releasing everything.

import (
	"context"
	"math"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
	"go.uber.org/goleak"
)

// mergeJoinPlan joins outer and inner (plans of outerFields and
// innerFields rows) on keys, each under a Sort in order (desc, nulls
// first).
func mergeJoinPlan(typ nodes.JoinType, outer, inner nodes.Plan, keys []int, filter nodes.Expr, desc, nullsFirst bool) *nodes.MergeJoin {
	mj := &nodes.MergeJoin{Type: typ, JoinFilter: filter}
	os := &nodes.Sort{Child: outer}
	is := &nodes.Sort{Child: inner}
	os.Out, is.Out = outerFields, innerFields
	for _, k := range keys {
		ok, ik := col(k, outerFields[k].T), col(k, innerFields[k].T)
		mj.MergeKeys = append(mj.MergeKeys, nodes.MergeKey{Outer: ok, Inner: ik, Desc: desc, NullsFirst: nullsFirst})
		os.Keys = append(os.Keys, nodes.SortKey{Expr: ok, Desc: desc, NullsFirst: nullsFirst})
		is.Keys = append(is.Keys, nodes.SortKey{Expr: ik, Desc: desc, NullsFirst: nullsFirst})
	}
	mj.Outer, mj.Inner = os, is
	mj.Out = ownFields(typ)
	return mj
}

// tablesJoin is a merge join over scans of stored outer and inner rows.
func tablesJoin(data memory.Allocator, typ nodes.JoinType, outer, inner [][]any, inSize int, keys []int, filter nodes.Expr) (*nodes.MergeJoin, *storage.Table, *storage.Table) {
	ot := joinTable(data, "o", outerFields, outer, inSize)
	it := joinTable(data, "i", innerFields, inner, inSize)
	return mergeJoinPlan(typ, joinScan(ot, outerFields), joinScan(it, innerFields), keys, filter, false, false), ot, it
}

func runMergeJoin(t *testing.T, p nodes.Plan, ec *ExecContext) ([][]any, error) {
	t.Helper()
	op, err := Build(p, ec)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	rows, err := drainChecked(t, op, ec.BatchSize)
	ec.Release()
	return rows, err
}

func TestMergeJoinMatchesReference(t *testing.T) {
	mem := checkedAlloc(t)
	data := memory.NewGoAllocator()
	r := rand.New(rand.NewSource(21))
	// Few distinct keys: long runs of duplicates on both sides.
	outer, inner := randomRows(r, 250, 10), randomRows(r, 200, 10)
	runs := []joinRun{{batchSize: 1024, inSize: 64}, {batchSize: 7, inSize: 5}, {batchSize: 50, inSize: 1}, {batchSize: 3, inSize: 200}}
	for _, typ := range joinTypes {
		for _, keys := range keyChoices {
			for _, withFilter := range []bool{false, true} {
				var filter nodes.Expr
				var goFilter func(o, i []any) bool
				if withFilter {
					filter, goFilter = ltFilter(), ltGo
				}
				want := refJoin(typ, outer, inner, keys.cols, goFilter)
				for _, run := range runs {
					name := typ.SQL() + "/" + keys.name + "/" + run.String()
					if withFilter {
						name += "/filter"
					}
					p, _, _ := tablesJoin(data, typ, outer, inner, run.inSize, keys.cols, filter)
					got, err := runMergeJoin(t, p, &ExecContext{BatchSize: run.batchSize})
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

// TestMergeJoinKeyOrders: inputs sorted descending, or with NULLs first,
// join alike when the merge keys say so.
func TestMergeJoinKeyOrders(t *testing.T) {
	mem := checkedAlloc(t)
	data := memory.NewGoAllocator()
	r := rand.New(rand.NewSource(22))
	outer, inner := randomRows(r, 200, 9), randomRows(r, 150, 9)
	for _, typ := range joinTypes {
		want := refJoin(typ, outer, inner, []int{0, 1}, ltGo)
		for _, order := range [][2]bool{{true, true}, {true, false}, {false, true}} {
			ot := joinTable(data, "o", outerFields, outer, 16)
			it := joinTable(data, "i", innerFields, inner, 16)
			p := mergeJoinPlan(typ, joinScan(ot, outerFields), joinScan(it, innerFields), []int{0, 1}, ltFilter(), order[0], order[1])
			got, err := runMergeJoin(t, p, &ExecContext{BatchSize: 10})
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, typ.SQL(), got, want)
		}
	}
	mem.AssertSize(t, 0)
}

// TestMergeJoinDuplicates: one key on 4000 inner rows in batches of 7
// (a run over hundreds of batches) and 25 outer rows: the cross product,
// in batches of at most BatchSize, with the JoinFilter's removals
// counted.
func TestMergeJoinDuplicates(t *testing.T) {
	mem := checkedAlloc(t)
	data := memory.NewGoAllocator()
	var outer, inner [][]any
	for i := 0; i < 4000; i++ {
		inner = append(inner, []any{int64(7), "k", int64(i % 10)})
	}
	for i := 0; i < 30; i++ {
		k := int64(7)
		if i%6 == 5 {
			k = int64(8 - 2*(i%4)) // 8 or 4: no match, above or below
		}
		outer = append(outer, []any{k, "k", int64(i % 10)})
	}
	want := map[nodes.JoinType]int{
		nodes.JoinInner: 100000, nodes.JoinLeft: 100005, nodes.JoinRight: 100000,
		nodes.JoinFull: 100005, nodes.JoinSemi: 25, nodes.JoinAnti: 5,
	}
	for _, typ := range joinTypes {
		for _, inSize := range []int{7, 4000} {
			p, _, _ := tablesJoin(data, typ, outer, inner, inSize, []int{0}, nil)
			got, err := runMergeJoin(t, p, &ExecContext{BatchSize: 999})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != want[typ] {
				t.Errorf("%s in=%d: %d rows, want %d", typ.SQL(), inSize, len(got), want[typ])
			}
		}
	}
	p, _, _ := tablesJoin(data, nodes.JoinInner, outer, inner, 7, []int{0}, ltFilter())
	ec := &ExecContext{BatchSize: 999, Stats: instrument.NewStats(nodes.Number(p), false)}
	got, err := runMergeJoin(t, p, ec)
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, "filtered", got, refJoin(nodes.JoinInner, outer, inner, []int{0}, ltGo))
	if removed := ec.Stats.Node(p.ID).RowsRemovedByJoinFilter; removed != int64(100000-len(got)) {
		t.Errorf("Rows Removed by Join Filter: %d, want %d", removed, 100000-len(got))
	}
	mem.AssertSize(t, 0)
}

// mergeJoinOverFakes builds p with fake operators in place of the
// children of its two Sorts.
func mergeJoinOverFakes(t *testing.T, p *nodes.MergeJoin, ec *ExecContext, of, inf Operator) Operator {
	t.Helper()
	op, err := Build(p, ec)
	if err != nil {
		t.Fatal(err)
	}
	m := unwrapOperator(op).(*mergeJoin)
	unwrapOperator(m.outer).(*sortOp).child = of
	unwrapOperator(m.inner).(*sortOp).child = inf
	return op
}

// TestMergeJoinEmptySides: an empty outer side ends the join without
// opening the inner side unless inner rows come out unmatched; an empty
// inner side stops the outer side after its first batch unless outer
// rows come out unmatched.
func TestMergeJoinEmptySides(t *testing.T) {
	mem := checkedAlloc(t)
	rows := [][]any{{int64(1), "a", int64(1)}, {nil, "b", int64(2)}, {int64(3), "c", int64(3)}}
	for _, typ := range joinTypes {
		for _, emptyInner := range []bool{true, false} {
			outer, inner := rows, [][]any(nil)
			if !emptyInner {
				outer, inner = nil, rows
			}
			p := mergeJoinPlan(typ, stub(outerFields...), stub(innerFields...), []int{0}, nil, false, false)
			of := exectest.New(nil, "outer", exectest.Batches(rowBatches(mem, outerFields, outer, 1)...)...)
			inf := exectest.New(nil, "inner", exectest.Batches(rowBatches(mem, innerFields, inner, 1)...)...)
			ec := &ExecContext{BatchSize: 100}
			op := mergeJoinOverFakes(t, p, ec, of, inf)
			got, err := drainChecked(t, op, 100)
			if err != nil {
				t.Fatal(err)
			}
			name := typ.SQL()
			sameRows(t, name, got, refJoin(typ, outer, inner, []int{0}, nil))
			wantNoViolations(t, of, inf)
			iOpens, _, _ := inf.Counts()
			if !emptyInner && !fillInner(typ) && iOpens != 0 {
				t.Errorf("%s: the inner side was read for an empty outer side", name)
			}
			if !emptyInner && fillInner(typ) && iOpens != 1 {
				t.Errorf("%s: the inner side was not read", name)
			}
		}
	}
	mem.AssertSize(t, 0)
}

// TestMergeJoinCancel cancels a join whose one run pairs with every outer
// row, all pairs removed by the JoinFilter (no batch comes out): 57014
// long before the end.
func TestMergeJoinCancel(t *testing.T) {
	data := memory.NewGoAllocator()
	var inner, outer [][]any
	for i := 0; i < 20000; i++ {
		inner = append(inner, []any{int64(1), "k", int64(0)})
	}
	for i := 0; i < 20000; i++ {
		outer = append(outer, []any{int64(1), "k", int64(5)})
	}
	p, _, _ := tablesJoin(data, nodes.JoinInner, outer, inner, 5000, []int{0}, ltFilter()) // 5 < 0: never
	ctx, cancel := context.WithCancel(context.Background())
	ec := &ExecContext{BatchSize: 4096}
	op, err := Build(p, ec)
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	m := unwrapOperator(op).(*mergeJoin)
	// Cancel once the run is in place and pairing has begun.
	for m.run == nil {
		if err := m.step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	_, err = op.Next(ctx)
	op.Close()
	wantPgErr(t, err, pgerr.QueryCanceled, userCancelMsg)
}

// TestMergeJoinMemoryPool: the run of equal keys counts against the
// memory pool; one larger than the pool fails with 53200 and nothing
// stays reserved.
func TestMergeJoinMemoryPool(t *testing.T) {
	mem := checkedAlloc(t)
	data := memory.NewGoAllocator()
	var heavy [][]any
	for k := 0; k < 20000; k++ {
		heavy = append(heavy, []any{int64(1), "k", int64(k)})
	}
	outer := [][]any{{int64(1), "a", int64(1)}, {int64(2), "b", int64(2)}}
	// The Sorts spill beyond a small work_mem, within the pool; the run
	// of 20000 rows cannot.
	dir := t.TempDir()
	for _, limit := range []int64{8 << 20, 128 << 10} {
		pool := NewMemoryPool(limit, nil)
		p, _, _ := tablesJoin(data, nodes.JoinInner, outer, heavy, 500, []int{0}, nil)
		ec := &ExecContext{BatchSize: 1000, Memory: pool, WorkMem: 32 << 10, TempDir: dir}
		got, err := runMergeJoin(t, p, ec)
		if limit > 1<<20 {
			if err != nil || len(got) != 20000 {
				t.Errorf("under %d bytes: %d rows, %v", limit, len(got), err)
			}
		} else {
			wantPgErr(t, err, pgerr.OutOfMemory, "out of memory")
		}
		if pool.Used() != 0 {
			t.Errorf("%d bytes still reserved", pool.Used())
		}
	}
	noTempFiles(t, dir)
	mem.AssertSize(t, 0)
}

// TestMergeJoinEarlyClose closes joins of every type after a few batches
// (as a LIMIT does), in the middle of runs: everything is released.
func TestMergeJoinEarlyClose(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	mem := checkedAlloc(t)
	data := memory.NewGoAllocator()
	r := rand.New(rand.NewSource(23))
	outer, inner := randomRows(r, 500, 6), randomRows(r, 500, 6)
	for _, typ := range joinTypes {
		for _, stopAfter := range []int{1, 3} {
			p, _, _ := tablesJoin(data, typ, outer, inner, 16, []int{0, 1}, ltFilter())
			ec := &ExecContext{BatchSize: 5}
			op, err := Build(p, ec)
			if err != nil {
				t.Fatal(err)
			}
			n, err := drainN(context.Background(), op, stopAfter)
			if err != nil || n == 0 {
				t.Fatalf("%s: %d rows, %v", typ.SQL(), n, err)
			}
			ec.Release()
		}
	}
	mem.AssertSize(t, 0)
}

// TestMergeJoinKeyTypes: equal values match whatever their form (-0 and
// 0, NaNs, 1.50 and 1.5, 'ab' and 'ab  ' as char(n), 1 mon and 30 days),
// through the comparators of each type.
func TestMergeJoinKeyTypes(t *testing.T) {
	mem := checkedAlloc(t)
	iv := func(s string) any {
		v, err := types.ParseInterval(s, -1)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	nan, negZero := math.NaN(), math.Copysign(0, -1)
	cases := []struct {
		name         string
		t            types.T
		outer, inner []any
		raw          bool // numeric as raw text
		want         int
	}{
		{"double", types.Float8T, []any{0.0, nan, 1.5, nil}, []any{negZero, nan, nan, 2.0, nil}, false, 3},
		{"numeric", types.NumericT, []any{"1.50", "2", "NaN"}, []any{"1.5", "2.000", "3", "NaN"}, true, 3},
		{"char(n)", types.T{ID: types.Bpchar, Len: 4}, []any{"ab", "c", nil}, []any{"ab  ", "c", "c "}, false, 3},
		{"interval", types.IntervalT, []any{iv("1 mon"), iv("1 day")}, []any{iv("30 days"), iv("24 hours"), iv("2 days")}, false, 2},
		{"text", types.TextT, []any{"b", "a", "a", ""}, []any{"a", "c", "b", ""}, false, 4},
		{"date", types.DateT, []any{int32(3), int32(1), nil}, []any{int32(1), int32(1), int32(2)}, false, 2},
		{"boolean", types.BoolT, []any{true, false, nil}, []any{false, true, true}, false, 3},
	}
	for _, tc := range cases {
		fs := []nodes.Field{field("k", tc.t)}
		batch := func(vals []any) arrow.RecordBatch {
			var arr arrow.Array
			if tc.raw {
				b := exectest.NewBatch(mem, exectest.Strings("v", vals...))
				arr = b.Column(0)
				arr.Retain()
				b.Release()
			} else {
				arr = arrayOfDatums(tc.t, vals)
			}
			return makeBatch(schemaOf(fs), []arrow.Array{arr}, len(vals))
		}
		o, i := stub(fs...), stub(fs...)
		key := col(0, tc.t)
		mj := &nodes.MergeJoin{Type: nodes.JoinInner, MergeKeys: []nodes.MergeKey{{Outer: key, Inner: key}}}
		os, is := &nodes.Sort{Child: o, Keys: []nodes.SortKey{{Expr: key}}}, &nodes.Sort{Child: i, Keys: []nodes.SortKey{{Expr: key}}}
		os.Out, is.Out = fs, fs
		mj.Outer, mj.Inner = os, is
		mj.Out = append(append([]nodes.Field(nil), fs...), fs...)
		op := mergeJoinOverFakes(t, mj, &ExecContext{BatchSize: 100},
			exectest.New(nil, "outer", exectest.Batches(batch(tc.outer))...), exectest.New(nil, "inner", exectest.Batches(batch(tc.inner))...))
		got, err := drainChecked(t, op, 100)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(got) != tc.want {
			t.Errorf("%s: %d rows %v, want %d", tc.name, len(got), got, tc.want)
		}
	}
	mem.AssertSize(t, 0)
}
