package executor

import (
	"context"
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
	"go.uber.org/goleak"
)

// TestHashJoinMatchesReference runs every join type on keys of each kind,
// with and without a JoinFilter, in memory and spilling (DebugSpill, a
// tiny work_mem), with batches smaller and larger than the input's, and
// compares with the reference join. Data has NULL keys and many
// duplicates. Everything is released, no temporary file is left.
func TestHashJoinMatchesReference(t *testing.T) {
	mem := checkedAlloc(t)
	dir := t.TempDir()
	r := rand.New(rand.NewSource(1))
	outer, inner := randomRows(r, 300, 40), randomRows(r, 200, 40)
	runs := []joinRun{
		{batchSize: 1024, inSize: 64},
		{batchSize: 7, inSize: 50},
		{batchSize: 64, inSize: 13, debug: true},
		{batchSize: 100, inSize: 30, workMem: 2048},
	}
	for _, typ := range hashJoinTypes {
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
					p, o, i := hashJoinPlan(typ, keys.cols, filter)
					ec := run.context(t, dir)
					got, err := runJoin(t, p, ec, mem, run, o, i, outer, inner)
					ec.Release()
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					sameRows(t, name, got, want)
				}
			}
		}
	}
	noTempFiles(t, dir)
	mem.AssertSize(t, 0)
}

// TestHashJoinNulls checks every join type on a small case by hand:
// NULL keys match nothing, and come out unmatched where the type says.
func TestHashJoinNulls(t *testing.T) {
	outer := [][]any{{int64(1), "a", int64(1)}, {nil, "b", int64(2)}, {int64(2), nil, int64(3)}, {int64(3), "c", int64(4)}}
	inner := [][]any{{int64(1), "a", int64(5)}, {nil, "b", int64(6)}, {int64(2), "x", int64(7)}, {int64(4), "d", int64(8)}, {int64(1), "a", int64(9)}}
	n3 := []any{nil, nil, nil}
	join := func(o, i []any) []any { return append(append([]any(nil), o...), i...) }
	matches := [][]any{join(outer[0], inner[0]), join(outer[0], inner[4]), join(outer[2], inner[2])}
	outerOnly := [][]any{join(outer[1], n3), join(outer[3], n3)}
	innerOnly := [][]any{join(n3, inner[1]), join(n3, inner[3])}
	cat := func(parts ...[][]any) (out [][]any) {
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	want := map[nodes.JoinType][][]any{
		nodes.JoinInner: matches,
		nodes.JoinLeft:  cat(matches, outerOnly),
		nodes.JoinRight: cat(matches, innerOnly),
		nodes.JoinFull:  cat(matches, outerOnly, innerOnly),
		nodes.JoinSemi:  {outer[0], outer[2]},
		nodes.JoinAnti:  {outer[1], outer[3]},
		// Build row 1's NULL key matches nothing: it is a right anti
		// join's row.
		nodes.JoinRightSemi: {inner[0], inner[2], inner[4]},
		nodes.JoinRightAnti: {inner[1], inner[3]},
	}
	mem := checkedAlloc(t)
	dir := t.TempDir()
	for _, typ := range hashJoinTypes {
		sameRows(t, typ.SQL()+"/reference", refJoin(typ, outer, inner, []int{0}, nil), want[typ])
		for _, run := range []joinRun{{batchSize: 2, inSize: 2}, {batchSize: 1024, inSize: 3, debug: true}} {
			p, o, i := hashJoinPlan(typ, []int{0}, nil)
			ec := run.context(t, dir)
			got, err := runJoin(t, p, ec, mem, run, o, i, outer, inner)
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, typ.SQL()+"/"+run.String(), got, want[typ])
		}
	}
	noTempFiles(t, dir)
	mem.AssertSize(t, 0)
}

// TestHashJoinSpillsAlike compares every join type spilling (DebugSpill,
// work_mem small enough for one split, and for two levels of splits)
// with the same join in memory, and checks that the splits happened.
func TestHashJoinSpillsAlike(t *testing.T) {
	mem := checkedAlloc(t)
	dir := t.TempDir()
	r := rand.New(rand.NewSource(2))
	outer, inner := randomRows(r, 3000, 500), randomRows(r, 3000, 500)
	runs := []struct {
		run        joinRun
		minBatches int64
	}{
		{joinRun{batchSize: 4096, inSize: 1000}, 1},
		{joinRun{batchSize: 500, inSize: 333, debug: true}, 16},
		{joinRun{batchSize: 1000, inSize: 400, workMem: 64 << 10}, 16},
		{joinRun{batchSize: 1000, inSize: 400, workMem: 10 << 10}, 17},
	}
	for _, typ := range hashJoinTypes {
		for _, withFilter := range []bool{false, true} {
			var filter nodes.Expr
			if withFilter {
				filter = ltFilter()
			}
			var base [][]any
			for k, rc := range runs {
				p, o, i := hashJoinPlan(typ, []int{0, 1}, filter)
				ec := rc.run.context(t, dir)
				ec.Stats = instrument.NewStats(nodes.Number(p), false)
				coalesced := coalescedMessages.Load()
				got, err := runJoin(t, p, ec, mem, rc.run, o, i, outer, inner)
				if err != nil {
					t.Fatalf("%s %s: %v", typ.SQL(), rc.run, err)
				}
				// A split's partitions receive pieces of ~25 rows: their
				// files write them as fewer, larger messages.
				if rc.run.workMem > 0 && coalescedMessages.Load() == coalesced {
					t.Errorf("%s %s: the partition files wrote every piece as its own message", typ.SQL(), rc.run)
				}
				h := ec.Stats.Node(p.Inner.ID).Hash
				if h == nil || h.Batches < rc.minBatches || (rc.minBatches == 1 && h.Batches != 1) {
					t.Errorf("%s %s: hash info %+v, want at least %d batches", typ.SQL(), rc.run, h, rc.minBatches)
				}
				if k == 0 {
					base = got
					if withFilter {
						sameRows(t, typ.SQL()+" reference", got, refJoin(typ, outer, inner, []int{0, 1}, ltGo))
					}
					continue
				}
				sameRows(t, typ.SQL()+" "+rc.run.String(), got, base)
			}
		}
	}
	noTempFiles(t, dir)
	mem.AssertSize(t, 0)
}

// TestHashJoinDuplicates joins many build rows of one key: the matches
// of one probe row come out in batches of BatchSize, and a key too big
// for work_mem stays in memory (it cannot be split).
func TestHashJoinDuplicates(t *testing.T) {
	mem := checkedAlloc(t)
	dir := t.TempDir()
	var outer, inner [][]any
	for i := 0; i < 4000; i++ {
		inner = append(inner, []any{int64(7), "k", int64(i % 10)})
	}
	for i := 0; i < 30; i++ {
		k := int64(7)
		if i%6 == 5 {
			k = 8
		}
		outer = append(outer, []any{k, "k", int64(i % 10)})
	}
	want := map[nodes.JoinType]int{
		nodes.JoinInner: 100000, nodes.JoinLeft: 100005, nodes.JoinRight: 100000,
		nodes.JoinFull: 100005, nodes.JoinSemi: 25, nodes.JoinAnti: 5,
		nodes.JoinRightSemi: 4000, nodes.JoinRightAnti: 0,
	}
	for _, typ := range hashJoinTypes {
		for _, run := range []joinRun{{batchSize: 1000, inSize: 7}, {batchSize: 999, inSize: 512, debug: true}} {
			p, o, i := hashJoinPlan(typ, []int{0}, nil)
			ec := run.context(t, dir)
			ec.Stats = instrument.NewStats(nodes.Number(p), false)
			got, err := runJoin(t, p, ec, mem, run, o, i, outer, inner)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != want[typ] {
				t.Errorf("%s %s: %d rows, want %d", typ.SQL(), run, len(got), want[typ])
			}
			if h := ec.Stats.Node(p.Inner.ID).Hash; h.Batches != 1 {
				t.Errorf("%s %s: %d batches, want 1 (one key never splits)", typ.SQL(), run, h.Batches)
			}
		}
	}
	noTempFiles(t, dir)
	mem.AssertSize(t, 0)
}

// TestHashJoinEmptySides: an empty build side skips the probe side
// unless outer rows come out unmatched; an empty probe side, fetched
// first, skips the build unless build rows come out unmatched.
func TestHashJoinEmptySides(t *testing.T) {
	mem := checkedAlloc(t)
	rows := [][]any{{int64(1), "a", int64(1)}, {nil, "b", int64(2)}}
	for _, typ := range hashJoinTypes {
		for _, emptyInner := range []bool{true, false} {
			outer, inner := rows, [][]any(nil)
			if !emptyInner {
				outer, inner = nil, rows
			}
			p, o, i := hashJoinPlan(typ, []int{0}, nil)
			if !emptyInner {
				p.Inner.TotalCost = 10 // the outer side starts cheaply: fetched first
			}
			of := exectest.New(nil, "outer", exectest.Batches(rowBatches(mem, outerFields, outer, 10)...)...)
			inf := exectest.New(nil, "inner", exectest.Batches(rowBatches(mem, innerFields, inner, 10)...)...)
			ec := &ExecContext{BatchSize: 100}
			op := buildWithFakes(t, p, ec, map[*nodes.Result]Operator{o: of, i: inf})
			got, err := drainChecked(t, op, 100)
			if err != nil {
				t.Fatal(err)
			}
			name := typ.SQL()
			sameRows(t, name, got, refJoin(typ, outer, inner, []int{0}, nil))
			wantNoViolations(t, of, inf)
			oOpens, _, _ := of.Counts()
			iOpens, _, _ := inf.Counts()
			if emptyInner && !fillOuter(typ) && oOpens != 0 {
				t.Errorf("%s: the outer side was read over an empty build side", name)
			}
			if !emptyInner && !fillInner(typ) && iOpens != 0 {
				t.Errorf("%s: the build side was read for an empty outer side", name)
			}
			if !emptyInner && fillInner(typ) && iOpens != 1 {
				t.Errorf("%s: the build side was not read", name)
			}
		}
	}
	mem.AssertSize(t, 0)
}

// TestHashJoinKeyTypes joins one key of each hashable type; equal values
// must match whatever their form (-0 and 0, NaNs, 1.50 and 1.5, 'ab' and
// 'ab  ' as char(n), 1 mon and 30 days).
func TestHashJoinKeyTypes(t *testing.T) {
	iv := func(s string) any {
		v, err := types.ParseInterval(s, -1)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	nan, negZero := math.NaN(), math.Copysign(0, -1)
	tests := []struct {
		name         string
		t            types.T
		outer, inner []any
		raw          bool // numeric as raw text
		want         [][2]int
	}{
		{"bigint", types.Int8T, []any{int64(1), int64(2), nil, int64(-5)}, []any{int64(-5), nil, int64(1), int64(1)}, false,
			[][2]int{{0, 2}, {0, 3}, {3, 0}}},
		{"integer", types.Int4T, []any{int64(1), int64(2)}, []any{int64(2), int64(3)}, false, [][2]int{{1, 0}}},
		{"smallint", types.Int2T, []any{int64(-1), nil}, []any{nil, int64(-1)}, false, [][2]int{{0, 1}}},
		{"double", types.Float8T, []any{0.0, negZero, nan, 1.5, nil}, []any{nan, 0.0, 1.5, 2.0}, false,
			[][2]int{{0, 1}, {1, 1}, {2, 0}, {3, 2}}},
		{"real", types.Float4T, []any{negZero, nan, 0.25}, []any{0.0, nan, 0.25}, false, [][2]int{{0, 0}, {1, 1}, {2, 2}}},
		{"boolean", types.BoolT, []any{true, false, nil}, []any{false, true, true}, false, [][2]int{{0, 1}, {0, 2}, {1, 0}}},
		{"date", types.DateT, []any{int32(10), int32(-3)}, []any{int32(-3), int32(11)}, false, [][2]int{{1, 0}}},
		{"timestamp", types.TimestampT, []any{int64(1e12), int64(5)}, []any{int64(5), int64(1e12)}, false, [][2]int{{0, 1}, {1, 0}}},
		{"timestamptz", types.TimestampTZT, []any{int64(7)}, []any{int64(7), int64(8)}, false, [][2]int{{0, 0}}},
		{"text", types.TextT, []any{"a", "A", "", "ab ", nil}, []any{"A", "", "ab", "a"}, false, [][2]int{{0, 3}, {1, 0}, {2, 1}}},
		{"char(n)", types.T{ID: types.Bpchar, Len: 4}, []any{"ab  ", "ab", "x"}, []any{"ab", "x   "}, false,
			[][2]int{{0, 0}, {1, 0}, {2, 1}}},
		{"numeric", types.NumericT, []any{"1.50", "100", "0.00", "NaN", "12.340", "-7"}, []any{"1.5", "1E+2", "-0", "NaN", "12.34", "7"}, true,
			[][2]int{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}}},
		{"interval", types.IntervalT, []any{iv("1 mon"), iv("1 day"), iv("1 year")}, []any{iv("30 days"), iv("24 hours"), iv("12 mons 1 sec")}, false,
			[][2]int{{0, 0}, {1, 1}}},
	}
	mem := checkedAlloc(t)
	for _, tc := range tests {
		for _, debug := range []bool{false, true} {
			of, inf := []nodes.Field{field("x", tc.t)}, []nodes.Field{field("y", tc.t)}
			o, i := stub(of...), stub(inf...)
			p := &nodes.HashJoin{Outer: o, Inner: &nodes.Hash{Child: i},
				OuterKeys: []nodes.Expr{col(0, tc.t)}, InnerKeys: []nodes.Expr{col(0, tc.t)}}
			p.Inner.Out = inf
			p.Out = append(append([]nodes.Field(nil), of...), inf...)
			batch := func(fs []nodes.Field, vals []any) arrow.RecordBatch {
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
			ob, ib := batch(of, tc.outer), batch(inf, tc.inner)
			var want [][]any
			for _, pair := range tc.want {
				want = append(want, []any{exectest.Value(ob.Column(0), pair[0]), exectest.Value(ib.Column(0), pair[1])})
			}
			ec := &ExecContext{BatchSize: 16, DebugSpill: debug, TempDir: t.TempDir()}
			op := buildWithFakes(t, p, ec, map[*nodes.Result]Operator{
				o: exectest.New(nil, "outer", exectest.Batches(ob)...),
				i: exectest.New(nil, "inner", exectest.Batches(ib)...),
			})
			got, err := drainChecked(t, op, 16)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			sameRows(t, tc.name, got, want)
		}
	}
	mem.AssertSize(t, 0)
}

// TestHashJoinQual: the join applies its own Filter (after
// null-extension: WHERE iw IS NULL over a left join) and Targets, and
// counts the rows the Filter removed and the pairs the JoinFilter did.
func TestHashJoinQual(t *testing.T) {
	mem := checkedAlloc(t)
	r := rand.New(rand.NewSource(3))
	outer, inner := randomRows(r, 200, 30), randomRows(r, 150, 30)
	for _, debug := range []bool{false, true} {
		p, o, i := hashJoinPlan(nodes.JoinLeft, []int{0}, ltFilter())
		p.Filter = &nodes.NullTest{Arg: col(5, types.Int8T)}
		p.Targets = []nodes.Expr{col(0, types.Int8T), op("+", col(2, types.Int8T), int8Lit(100), types.Int8T)}
		p.Out = []nodes.Field{field("ok1", types.Int8T), field("x", types.Int8T)}
		ec := &ExecContext{BatchSize: 50, DebugSpill: debug, TempDir: t.TempDir(), Stats: instrument.NewStats(nodes.Number(p), false)}
		run := joinRun{batchSize: 50, inSize: 40}
		got, err := runJoin(t, p, ec, mem, run, o, i, outer, inner)
		if err != nil {
			t.Fatal(err)
		}
		all := refJoin(nodes.JoinLeft, outer, inner, []int{0}, ltGo)
		var want [][]any
		for _, row := range all {
			if row[5] == nil {
				var x any
				if row[2] != nil {
					x = row[2].(int64) + 100
				}
				want = append(want, []any{row[0], x})
			}
		}
		sameRows(t, "left join filtered", got, want)
		ns := ec.Stats.Node(p.ID)
		if ns.RowsRemovedByFilter != int64(len(all)-len(want)) {
			t.Errorf("rows removed by filter %d, want %d", ns.RowsRemovedByFilter, len(all)-len(want))
		}
		keyPairs := len(refJoin(nodes.JoinInner, outer, inner, []int{0}, nil))
		filtered := len(refJoin(nodes.JoinInner, outer, inner, []int{0}, ltGo))
		if ns.RowsRemovedByJoinFilter != int64(keyPairs-filtered) {
			t.Errorf("rows removed by join filter %d, want %d", ns.RowsRemovedByJoinFilter, keyPairs-filtered)
		}
		if ns.Rows != int64(len(want)) || ns.Loops != 1 {
			t.Errorf("join loops=%d rows=%d, want 1, %d", ns.Loops, ns.Rows, len(want))
		}
		ec.Release()
	}
	mem.AssertSize(t, 0)
}

// TestHashJoinStats: the Hash node, which has no operator, shows loops=1
// and the build rows (NULL keys only for right and full joins), the
// table's buckets and batches; a join that never builds leaves it
// never executed.
func TestHashJoinStats(t *testing.T) {
	outer := [][]any{{int64(1), "a", int64(1)}, {int64(2), "b", int64(2)}}
	inner := [][]any{{nil, "b", int64(2)}}
	for k := 1; k <= 20; k++ {
		inner = append(inner, []any{int64(k), "c", int64(3)})
	}
	for _, typ := range hashJoinTypes {
		for _, debug := range []bool{false, true} {
			mem := memory.NewGoAllocator()
			p, o, i := hashJoinPlan(typ, []int{0}, nil)
			p.Inner.Rows = 3000 // the planner's estimate: the original buckets; the 21 rows built size the table
			ec := &ExecContext{BatchSize: 10, DebugSpill: debug, TempDir: t.TempDir(), Stats: instrument.NewStats(nodes.Number(p), true)}
			run := joinRun{batchSize: 10, inSize: 1}
			got, err := runJoin(t, p, ec, mem, run, o, i, outer, inner)
			if err != nil {
				t.Fatal(err)
			}
			hs, js := ec.Stats.Node(p.Inner.ID), ec.Stats.Node(p.ID)
			wantRows := int64(20)
			if fillInner(typ) {
				wantRows = 21
			}
			if hs.Loops != 1 || hs.Rows != wantRows {
				t.Errorf("%s: Hash loops=%d rows=%d, want 1, %d", typ.SQL(), hs.Loops, hs.Rows, wantRows)
			}
			if js.Rows != int64(len(got)) {
				t.Errorf("%s: join rows=%d, want %d", typ.SQL(), js.Rows, len(got))
			}
			h := hs.Hash
			minBatches, maxBatches := int64(1), int64(1)
			if debug {
				// Split, and each part split again (a right or full join
				// reads every part; the others skip parts without probe
				// rows).
				minBatches, maxBatches = joinDebugFanout, 1+(joinDebugFanout-1)*(1+joinDebugFanout)
				if fillInner(typ) {
					minBatches = maxBatches
				}
			}
			if h == nil || h.Buckets != 1024 || h.OriginalBuckets != 4096 || h.Batches < minBatches || h.Batches > maxBatches ||
				h.OriginalBatches != 1 || h.PeakMemory <= 0 {
				t.Errorf("%s debug=%v: hash info %+v", typ.SQL(), debug, h)
			}
		}
	}
	// An empty outer side fetched first: the Hash never runs.
	p, o, i := hashJoinPlan(nodes.JoinLeft, []int{0}, nil)
	ec := &ExecContext{BatchSize: 10, Stats: instrument.NewStats(nodes.Number(p), false)}
	if _, err := runJoin(t, p, ec, memory.NewGoAllocator(), joinRun{batchSize: 10, inSize: 1}, o, i, nil, inner); err != nil {
		t.Fatal(err)
	}
	if hs := ec.Stats.Node(p.Inner.ID); hs.Loops != 0 || hs.Hash != nil || ec.Stats.Node(i.ID).Loops != 0 {
		t.Errorf("Hash of an empty left join: %+v", hs)
	}
}

// TestHashJoinCancel cancels a join in the middle of one probe batch
// whose rows match millions of pairs (all removed by the JoinFilter, so
// no batch comes out): the join stops with 57014 long before the end.
func TestHashJoinCancel(t *testing.T) {
	var inner, outer [][]any
	for i := 0; i < 200000; i++ {
		inner = append(inner, []any{int64(1), "k", int64(0)})
	}
	for i := 0; i < 200; i++ {
		outer = append(outer, []any{int64(1), "k", int64(5)})
	}
	mem := memory.NewGoAllocator()
	p, o, i := hashJoinPlan(nodes.JoinInner, []int{0}, ltFilter()) // 5 < 0: never
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outerOp := &cancelAfter{Op: exectest.New(nil, "outer", exectest.Batches(rowBatches(mem, outerFields, outer, 200)...)...), cancel: cancel}
	ec := &ExecContext{BatchSize: 4096}
	op := buildWithFakes(t, p, ec, map[*nodes.Result]Operator{o: outerOp,
		i: exectest.New(nil, "inner", exectest.Batches(rowBatches(mem, innerFields, inner, 50000)...)...)})
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := op.Next(ctx)
	elapsed := time.Since(start) - outerOp.after
	op.Close()
	wantPgErr(t, err, pgerr.QueryCanceled, userCancelMsg)
	if elapsed > 2*time.Second {
		t.Errorf("the join took %v to notice the cancel", elapsed)
	}
	if outerOp.after == 0 {
		t.Errorf("cancelled before the probe started")
	}
}

// cancelAfter cancels 20ms after handing out its first batch.
type cancelAfter struct {
	*exectest.Op
	cancel context.CancelFunc
	start  time.Time
	after  time.Duration // from the start of the join to the cancel
}

func (c *cancelAfter) Next(ctx context.Context) (arrow.RecordBatch, error) {
	b, err := c.Op.Next(ctx)
	if b != nil && c.after == 0 {
		c.after = 20 * time.Millisecond
		time.AfterFunc(c.after, c.cancel)
	}
	return b, err
}

// TestHashJoinEarlyClose closes spilling joins of every type after one
// batch (as a LIMIT does): every batch, table and file is released, and
// no goroutine is left.
func TestHashJoinEarlyClose(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	mem := checkedAlloc(t)
	dir := t.TempDir()
	r := rand.New(rand.NewSource(4))
	outer, inner := randomRows(r, 500, 50), randomRows(r, 500, 50)
	for _, typ := range hashJoinTypes {
		for _, stopAfter := range []int{1, 3} {
			p, o, i := hashJoinPlan(typ, []int{0, 1}, ltFilter())
			ec := &ExecContext{BatchSize: 20, DebugSpill: true, TempDir: dir}
			of := exectest.New(nil, "outer", exectest.Batches(rowBatches(mem, outerFields, outer, 64)...)...)
			inf := exectest.New(nil, "inner", exectest.Batches(rowBatches(mem, innerFields, inner, 64)...)...)
			op := buildWithFakes(t, p, ec, map[*nodes.Result]Operator{o: of, i: inf})
			n, err := drainN(context.Background(), op, stopAfter)
			if err != nil || n == 0 {
				t.Fatalf("%s: %d rows, %v", typ.SQL(), n, err)
			}
			wantNoViolations(t, of, inf)
			ec.Release()
			noTempFiles(t, dir)
		}
	}
	mem.AssertSize(t, 0)
}

// TestHashJoinMemoryPool: a memory pool that refuses the build side makes
// the join spill, like hash_mem does; when nothing can be split off (one
// key's rows), the statement fails with 53200. Nothing stays reserved.
func TestHashJoinMemoryPool(t *testing.T) {
	mem := checkedAlloc(t)
	dir := t.TempDir()
	r := rand.New(rand.NewSource(12))
	outer, inner := randomRows(r, 3000, 500), randomRows(r, 3000, 500)
	p, o, i := hashJoinPlan(nodes.JoinInner, []int{0}, nil)
	pool := NewMemoryPool(96<<10, nil)
	ec := &ExecContext{BatchSize: 1000, WorkMem: 1 << 30, TempDir: dir, Memory: pool, Stats: instrument.NewStats(nodes.Number(p), false)}
	got, err := runJoin(t, p, ec, mem, joinRun{batchSize: 1000, inSize: 500}, o, i, outer, inner)
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, "spilled under the pool", got, refJoin(nodes.JoinInner, outer, inner, []int{0}, nil))
	if h := ec.Stats.Node(p.Inner.ID).Hash; h.Batches == 1 || h.PeakMemory > 96<<10 {
		t.Errorf("hash info %+v", h)
	}
	var heavy [][]any
	for k := 0; k < 20000; k++ {
		heavy = append(heavy, []any{int64(1), "k", int64(k)})
	}
	p, o, i = hashJoinPlan(nodes.JoinInner, []int{0}, nil)
	ec = &ExecContext{BatchSize: 1000, WorkMem: 1 << 30, TempDir: dir, Memory: pool}
	_, err = runJoin(t, p, ec, mem, joinRun{batchSize: 1000, inSize: 500}, o, i, outer[:10], heavy)
	wantPgErr(t, err, pgerr.OutOfMemory, "out of memory")
	if pool.Used() != 0 {
		t.Errorf("%d bytes still reserved", pool.Used())
	}
	noTempFiles(t, dir)
	mem.AssertSize(t, 0)
}

// TestHashJoinNullAware: the anti join of NOT IN returns nothing once a
// build key is NULL, and no outer row with a NULL key unless the build
// side is empty, in memory and spilling.
func TestHashJoinNullAware(t *testing.T) {
	mem := checkedAlloc(t)
	dir := t.TempDir()
	outer := [][]any{{int64(1), "a", int64(1)}, {nil, "b", int64(2)}, {int64(3), "c", int64(3)}, {int64(4), "d", int64(4)}}
	cases := []struct {
		name  string
		inner [][]any
		want  [][]any
	}{
		{"no NULL", [][]any{{int64(1), "x", int64(0)}, {int64(4), "y", int64(0)}}, [][]any{outer[2]}},
		{"a NULL", [][]any{{int64(1), "x", int64(0)}, {nil, "y", int64(0)}}, nil},
		{"only a NULL", [][]any{{nil, "y", int64(0)}}, nil},
		{"empty", nil, outer},
	}
	for _, tc := range cases {
		for _, run := range []joinRun{{batchSize: 2, inSize: 1}, {batchSize: 100, inSize: 1, debug: true}} {
			p, o, i := hashJoinPlan(nodes.JoinAnti, []int{0}, nil)
			p.NullAware = true
			ec := run.context(t, dir)
			got, err := runJoin(t, p, ec, mem, run, o, i, outer, tc.inner)
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, tc.name+" "+run.String(), got, tc.want)
		}
	}
	noTempFiles(t, dir)
	mem.AssertSize(t, 0)
}

// TestHashJoinRightStopsEarly: a right semi or right anti join stops
// reading its probe side once every build row with a key has matched
// (no later probe row can change its answer), and still returns its
// NULL-keyed build rows (right anti).
func TestHashJoinRightStopsEarly(t *testing.T) {
	mem := checkedAlloc(t)
	var outer [][]any
	for k := 0; k < 5000; k++ {
		outer = append(outer, []any{int64(k), "o", int64(k)})
	}
	inner := [][]any{{int64(3), "a", int64(1)}, {int64(7), "b", int64(2)}, {nil, "c", int64(3)}, {int64(3), "d", int64(4)}}
	for _, typ := range []nodes.JoinType{nodes.JoinRightSemi, nodes.JoinRightAnti} {
		p, o, i := hashJoinPlan(typ, []int{0}, nil)
		of := exectest.New(nil, "outer", exectest.Batches(rowBatches(mem, outerFields, outer, 100)...)...)
		inf := exectest.New(nil, "inner", exectest.Batches(rowBatches(mem, innerFields, inner, 10)...)...)
		ec := &ExecContext{BatchSize: 1024}
		op := buildWithFakes(t, p, ec, map[*nodes.Result]Operator{o: of, i: inf})
		got, err := drainChecked(t, op, 1024)
		if err != nil {
			t.Fatal(err)
		}
		sameRows(t, typ.SQL(), got, refJoin(typ, outer, inner, []int{0}, nil))
		wantNoViolations(t, of, inf)
		if _, nexts, _ := of.Counts(); nexts > 2 {
			t.Errorf("%s: %d probe batches read, want the first only", typ.SQL(), nexts)
		}
	}
	mem.AssertSize(t, 0)
}
