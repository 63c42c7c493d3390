package executor

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// fieldTable is a table with fs's columns holding batches.
func fieldTable(name string, fs []nodes.Field, batches []arrow.RecordBatch) *storage.Table {
	cols := make([]storage.Column, len(fs))
	for i, f := range fs {
		cols[i] = storage.Column{Name: f.Name, Type: f.T}
	}
	tbl := storage.NewTable("public", name, cols)
	tbl.Append(batches...)
	return tbl
}

func scanAll(tbl *storage.Table, fs []nodes.Field) *nodes.SeqScan {
	return &nodes.SeqScan{PlanBase: nodes.PlanBase{Out: fs}, Table: tbl, Columns: []int{0, 1, 2}}
}

// filteredJoinPlan is a hash join of two table scans on keys, with or
// without a runtime filter on the outer scan.
func filteredJoinPlan(typ nodes.JoinType, keys []int, outer, inner *storage.Table, filtered bool) (*nodes.HashJoin, *nodes.SeqScan) {
	scan := scanAll(outer, outerFields)
	hj := &nodes.HashJoin{Type: typ, Outer: scan, Inner: &nodes.Hash{Child: scanAll(inner, innerFields)}}
	hj.Inner.Out = innerFields
	rf := &nodes.RuntimeFilter{ID: 7}
	for _, k := range keys {
		hj.OuterKeys = append(hj.OuterKeys, col(k, outerFields[k].T))
		hj.InnerKeys = append(hj.InnerKeys, col(k, innerFields[k].T))
		rf.Keys = append(rf.Keys, col(k, outerFields[k].T))
		rf.BuildKeys = append(rf.BuildKeys, col(k, innerFields[k].T))
	}
	hj.Out = ownFields(typ)
	if filtered {
		scan.RuntimeFilters = []*nodes.RuntimeFilter{rf}
		hj.RuntimeFilter = &nodes.RuntimeFilterSource{ID: 7, Keys: make([]int, len(keys))}
		for i := range keys {
			hj.RuntimeFilter.Keys[i] = i
		}
	}
	return hj, scan
}

// TestRuntimeFilterKeepsJoinResults runs each join type that may have a
// runtime filter, on each key choice, in memory and spilling, and checks
// that the filtered join returns the reference join's rows while its
// scan drops rows (the outer keys are ten times as many as the inner),
// with and without the outer batch read before the build.
func TestRuntimeFilterKeepsJoinResults(t *testing.T) {
	mem := memory.NewGoAllocator()
	dir := t.TempDir()
	r := rand.New(rand.NewSource(5))
	outerRows, innerRows := randomRows(r, 4000, 1000), randomRows(r, 300, 100)
	outer := fieldTable("o", outerFields, rowBatches(mem, outerFields, outerRows, 700))
	inner := fieldTable("i", innerFields, rowBatches(mem, innerFields, innerRows, 70))
	filtered := []nodes.JoinType{nodes.JoinInner, nodes.JoinRight, nodes.JoinSemi, nodes.JoinRightSemi, nodes.JoinRightAnti}
	for _, typ := range filtered {
		for _, kc := range keyChoices {
			want := refJoin(typ, outerRows, innerRows, kc.cols, nil)
			for _, debug := range []bool{false, true} {
				p, scan := filteredJoinPlan(typ, kc.cols, outer, inner, true)
				if debug {
					// The join reads its first outer batch before the
					// build, and filters it itself once it has built.
					p.Inner.TotalCost = 1
				}
				ec := &ExecContext{BatchSize: 512, DebugSpill: debug, TempDir: dir, Stats: instrument.NewStats(nodes.Number(p), false)}
				op, err := Build(p, ec)
				if err != nil {
					t.Fatal(err)
				}
				got, err := drainChecked(t, op, ec.BatchSize)
				if err != nil {
					t.Fatal(err)
				}
				name := typ.SQL() + "/" + kc.name
				sameRows(t, name, got, want)
				removed := ec.Stats.Node(scan.ID).RowsRemovedByRuntimeFilter
				if kc.name == "int" && removed < 1000 {
					t.Errorf("%s (spill %v): the runtime filter removed %d rows, want most of the outer rows without a match", name, debug, removed)
				}
			}
		}
	}
	noTempFiles(t, dir)
}

// TestRuntimeFilterBeforeBuildPassesAll checks that a scan whose filter
// is not published (the join has not built) drops nothing, and that a
// build publishes only once complete.
func TestRuntimeFilterBeforeBuildPassesAll(t *testing.T) {
	mem := checkedAlloc(t)
	b := abBatch(mem, []any{int64(1), int64(2), nil}, []any{int64(1), int64(1), int64(1)})
	defer b.Release()
	ec := &ExecContext{filters: &runtimeFilters{}}
	sfs, err := newScanFilters([]*nodes.RuntimeFilter{{ID: 1, Keys: []nodes.Expr{col(0, types.Int8T)}, BuildKeys: []nodes.Expr{col(0, types.Int8T)}}}, ec)
	if err != nil {
		t.Fatal(err)
	}
	sel, looked, err := sfs[0].keep(b, nil)
	if err != nil || looked || len(sel) != 0 {
		t.Fatalf("unpublished filter: sel %v looked %v err %v", sel, looked, err)
	}
	key, err := compileExpr(col(0, types.Int8T), ec)
	if err != nil {
		t.Fatal(err)
	}
	jf := &joinFilter{slot: ec.filterSlot(1), keys: []evaluator{key}, forms: []keyForm{keyFormOf(types.Int8T)}}
	jf.begin()
	build := abBatch(mem, []any{int64(2), nil}, []any{int64(0), int64(0)})
	defer build.Release()
	if err := jf.add(build); err != nil {
		t.Fatal(err)
	}
	if ec.filterSlot(1).f.Load() != nil {
		t.Fatal("the filter was visible before the build ended")
	}
	jf.publish()
	sel, looked, err = sfs[0].keep(b, nil)
	if err != nil || !looked || len(sel) != 1 || sel[0] != 1 {
		t.Fatalf("published filter of {2}: sel %v looked %v err %v, want row 1 (the NULL key dropped)", sel, looked, err)
	}
	jf.begin()
	if ec.filterSlot(1).f.Load() != nil {
		t.Fatal("a new build left the old filter published")
	}
}

// TestBloomFilterHasEveryKey checks that a filter never loses a key and
// passes few others, sized exactly and overloaded.
func TestBloomFilterHasEveryKey(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{10, 5000, 200000} {
		jf := &joinFilter{slot: &filterSlot{}}
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = mix64(r.Uint64())
			jf.hashes = append(jf.hashes, keys[i])
			jf.added++
		}
		jf.publish()
		f := jf.slot.f.Load()
		for _, h := range keys {
			if !f.mayHave(h) {
				t.Fatalf("n=%d: key %x lost", n, h)
			}
		}
		passed := 0
		for range 100000 {
			if f.mayHave(mix64(r.Uint64())) {
				passed++
			}
		}
		if passed > 3000 {
			t.Errorf("n=%d: %d of 100000 other keys passed, want under 3%%", n, passed)
		}
	}
}

// TestRuntimeFilterSwitchesOff checks that a scan stops consulting a
// filter that keeps almost every row.
func TestRuntimeFilterSwitchesOff(t *testing.T) {
	sf := &scanFilter{}
	sf.count(filterSampleRows/2, filterSampleRows/2)
	if sf.off {
		t.Fatal("off before the sample was complete")
	}
	sf.count(filterSampleRows/2, filterSampleRows/2-1)
	if !sf.off {
		t.Fatal("still on after keeping every row of the sample")
	}
	sf.reset()
	sf.count(filterSampleRows, filterSampleRows/10)
	if sf.off {
		t.Fatal("off although it removed 90% of the rows")
	}
}

// TestRuntimeFilterOfEarlierRunIgnored runs a join whose filter leaves
// no outer row, then, with the same slots (a SubPlan's next run), a join
// with another build side that reads its first outer batch before
// building: that batch must not be filtered by the first run's keys.
func TestRuntimeFilterOfEarlierRunIgnored(t *testing.T) {
	mem := memory.NewGoAllocator()
	row := func(k int64) [][]any { return [][]any{{k, "t", int64(0)}} }
	outer := fieldTable("o", outerFields, rowBatches(mem, outerFields, row(2), 10))
	first := fieldTable("i1", innerFields, rowBatches(mem, innerFields, row(1), 10))
	second := fieldTable("i2", innerFields, rowBatches(mem, innerFields, row(2), 10))
	ec := &ExecContext{BatchSize: 64}
	for n, inner := range []*storage.Table{first, second} {
		p, _ := filteredJoinPlan(nodes.JoinInner, []int{0}, outer, inner, true)
		p.Inner.TotalCost = 1 // read the outer batch before the build
		op, err := Build(p, ec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := drainChecked(t, op, ec.BatchSize)
		if err != nil {
			t.Fatal(err)
		}
		if want := n; len(got) != want {
			t.Fatalf("run %d: %d rows, want %d", n+1, len(got), want)
		}
	}
}

// TestRuntimeFilterExactOverIntRange: a build of integer keys within a
// small range publishes an exact filter: a scan keeps exactly the rows
// whose keys the build had (a Bloom filter would pass others too), at
// the ends of int64 as well; sparse keys keep the Bloom filter alone.
func TestRuntimeFilterExactOverIntRange(t *testing.T) {
	mem := checkedAlloc(t)
	const minI, maxI = math.MinInt64, math.MaxInt64
	for _, tc := range []struct {
		name  string
		build []any
		exact bool
		scan  []any
		want  []int32
	}{
		{"evens", evens(2000), true, ints(0, 100000), evenRows(2000)},
		{"int64 ends", []any{int64(minI), int64(minI + 5), nil}, true,
			[]any{int64(maxI), int64(minI + 5), int64(minI + 1), int64(minI), int64(0), int64(maxI - 5)}, []int32{1, 3}},
		{"sparse", []any{int64(0), int64(1) << 40}, false, []any{int64(1) << 40, int64(3), int64(0)}, nil},
	} {
		ec := &ExecContext{filters: &runtimeFilters{}}
		sfs, err := newScanFilters([]*nodes.RuntimeFilter{{ID: 1, Keys: []nodes.Expr{col(0, types.Int8T)}, BuildKeys: []nodes.Expr{col(0, types.Int8T)}}}, ec)
		if err != nil {
			t.Fatal(err)
		}
		key, err := compileExpr(col(0, types.Int8T), ec)
		if err != nil {
			t.Fatal(err)
		}
		jf := &joinFilter{slot: ec.filterSlot(1), keys: []evaluator{key}, forms: []keyForm{keyFormOf(types.Int8T)}, ints: true}
		jf.begin()
		build := abBatch(mem, tc.build, make([]any, len(tc.build)))
		if err := jf.add(build); err != nil {
			t.Fatal(err)
		}
		build.Release()
		jf.publish()
		f := ec.filterSlot(1).f.Load()
		if (f.keys != nil) != tc.exact {
			t.Fatalf("%s: exact filter %v, want %v", tc.name, f.keys != nil, tc.exact)
		}
		b := abBatch(mem, tc.scan, make([]any, len(tc.scan)))
		sel, looked, err := sfs[0].keep(b, nil)
		b.Release()
		if err != nil || !looked {
			t.Fatalf("%s: looked %v, err %v", tc.name, looked, err)
		}
		if tc.exact && !slices.Equal(sel, tc.want) {
			t.Errorf("%s: kept %d rows %v..., want %d", tc.name, len(sel), sel[:min(len(sel), 8)], len(tc.want))
		}
		if !tc.exact && (len(sel) < 2 || sel[0] != 0 || !slices.Contains(sel, 2)) {
			t.Errorf("%s: kept %v, want rows 0 and 2 among them", tc.name, sel)
		}
	}
}

func ints(lo, hi int) []any {
	out := make([]any, 0, hi-lo)
	for v := lo; v < hi; v++ {
		out = append(out, int64(v))
	}
	return out
}

func evens(upTo int) []any {
	var out []any
	for v := 0; v <= upTo; v += 2 {
		out = append(out, int64(v))
	}
	return out
}

func evenRows(upTo int) []int32 {
	var out []int32
	for v := 0; v <= upTo; v += 2 {
		out = append(out, int32(v))
	}
	return out
}
