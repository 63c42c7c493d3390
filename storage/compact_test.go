package storage

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
	"github.com/pgfed/pgfed/xact"
)

// checkMerges makes merged batches come from a checked allocator for the
// test, and checks at its end that none leaked.
func checkMerges(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	old := mergeAlloc
	mergeAlloc = mem
	t.Cleanup(func() {
		mergeAlloc = old
		mem.AssertSize(t, 0)
	})
}

func commit(t *testing.T, w *WriteSet) {
	t.Helper()
	for _, ev := range []xact.Event{xact.PreCommit, xact.Commit} {
		if err := w.OnXact(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
}

func seq(from, to int64) []int64 {
	var out []int64
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

func batchSizes(bs []arrow.RecordBatch) []int64 {
	out := make([]int64, len(bs))
	for i, b := range bs {
		out[i] = b.NumRows()
	}
	return out
}

// TestPlanMerges: merging keeps rows and their order, leaves batches that
// more than halve from one to the next (n one-row appends leave at most
// log2(n)+1), never makes a batch over mergeRows, and a merged list
// merges no further, whatever the sizes; it waits until it removes
// mergeAfter batches.
func TestPlanMerges(t *testing.T) {
	checkMerges(t)
	defer func(n int) { mergeAfter = n }(mergeAfter)
	mergeAfter = 1
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	tbl := intTable("m")
	var list []arrow.RecordBatch
	var created []arrow.RecordBatch
	for i := int64(1); i <= 1000; i++ {
		list = append(list, intBatch(mem, tbl, i))
		created = append(created, list[len(list)-1])
		var c []arrow.RecordBatch
		list, c, _ = mergeSmall(tbl.ArrowSchema(), list)
		created = append(created, c...)
		if len(list) > bits.Len64(uint64(i)) {
			t.Fatalf("%d one-row appends left %d batches %v, want at most %d", i, len(list), batchSizes(list), bits.Len64(uint64(i)))
		}
	}
	if got := values(list); !equal(got, seq(1, 1000)) {
		t.Fatalf("merged rows: %v", got)
	}
	releaseBatches(created)

	// Lazily: a few small batches stay as they are.
	mergeAfter = 8
	list, created = nil, nil
	for i := int64(1); i <= 1000; i++ {
		list = append(list, intBatch(mem, tbl, i))
		created = append(created, list[len(list)-1])
		var c []arrow.RecordBatch
		list, c, _ = mergeSmall(tbl.ArrowSchema(), list)
		created = append(created, c...)
		if i < 10 && len(list) != int(i) {
			t.Errorf("%d one-row appends were merged into %v", i, batchSizes(list))
		}
		if len(list) > bits.Len64(uint64(i))+12 {
			t.Fatalf("%d one-row appends left %d batches %v", i, len(list), batchSizes(list))
		}
	}
	if got := values(list); !equal(got, seq(1, 1000)) {
		t.Fatalf("merged rows: %v", got)
	}
	releaseBatches(created)

	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 200; round++ {
		var sizes []int64
		for range rng.Intn(40) {
			sizes = append(sizes, []int64{0, 1, 2, 7, 100, 5000, mergeRows/2 - 1, mergeRows - 1, mergeRows, mergeRows + 3}[rng.Intn(10)])
		}
		groups := planMerges(fakeBatches(sizes))
		next := 0
		var merged []int64
		for _, g := range groups {
			if g.start != next || g.end <= g.start {
				t.Fatalf("sizes %v: groups %v are not consecutive runs", sizes, groups)
			}
			next = g.end
			var rows int64
			for _, s := range sizes[g.start:g.end] {
				rows += s
			}
			if rows != g.rows || (g.end-g.start > 1 && rows > mergeRows) {
				t.Fatalf("sizes %v: group %v", sizes, g)
			}
			merged = append(merged, rows)
		}
		if next != len(sizes) {
			t.Fatalf("sizes %v: groups %v do not cover the list", sizes, groups)
		}
		if again := planMerges(fakeBatches(merged)); len(again) != len(merged) {
			t.Fatalf("sizes %v merged to %v, which merges again to %v", sizes, merged, again)
		}
		for i := 1; i < len(merged); i++ {
			if p, c := merged[i-1], merged[i]; p <= 2*c && p+c <= mergeRows {
				t.Fatalf("sizes %v merged to %v: %d then %d", sizes, merged, p, c)
			}
		}
	}

	// Slowly decreasing sizes merge too.
	var sizes []int64
	var rows int64
	for i := int64(2000); i > 0; i-- {
		sizes = append(sizes, i)
		rows += i
	}
	if groups := planMerges(fakeBatches(sizes)); int64(len(groups)) > 2*rows/mergeRows+16 {
		t.Errorf("batches of 2000, 1999, ..., 1 rows merged into %d", len(groups))
	}
	mem.AssertSize(t, 0)
}

// fakeBatches are empty-schema batches of the given sizes (planMerges
// reads only the row counts).
func fakeBatches(sizes []int64) []arrow.RecordBatch {
	out := make([]arrow.RecordBatch, len(sizes))
	for i, n := range sizes {
		out[i] = array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, n)
	}
	return out
}

// modify does what ModifyTable does to a table through a statement's
// view: it finds the rows whose value match accepts by their ctid in the
// view, deletes them, and (update non-nil) appends their new versions,
// then rewrites the table. It returns the number of rows changed.
func modify(t *testing.T, mem memory.Allocator, v *View, tbl *Table, match func(int64) bool, update func(int64) int64) int {
	t.Helper()
	bs := v.Batches(tbl)
	defer releaseBatches(bs)
	seen := v.Seen(tbl)
	var ctids []int64
	for i, b := range bs {
		for r, x := range b.Column(0).(*array.Int64).Int64Values() {
			if match(x) {
				ctids = append(ctids, Ctid(i, r))
			}
		}
	}
	deleted := map[int][]int{}
	var updated []int64
	for _, id := range ctids {
		batch, row := SplitCtid(id)
		deleted[batch] = append(deleted[batch], row)
		if update != nil {
			updated = append(updated, update(bs[batch].Column(0).(*array.Int64).Value(row)))
		}
	}
	if len(updated) > 0 {
		v.Writes().Append(tbl, intBatch(mem, tbl, updated...))
	}
	var kept []arrow.RecordBatch
	for i, b := range bs {
		gone := deleted[i]
		if len(gone) == 0 {
			b.Retain()
			kept = append(kept, b)
			continue
		}
		var left []int64
		for r, x := range b.Column(0).(*array.Int64).Int64Values() {
			if !slices.Contains(gone, r) {
				left = append(left, x)
			}
		}
		if len(left) > 0 {
			kept = append(kept, intBatch(mem, tbl, left...))
		}
	}
	v.Writes().Rewrite(tbl, kept, seen, len(ctids))
	return len(ctids)
}

// TestSmallCommits: 20,000 single-row commits leave a few batches; a
// snapshot taken among them still reads exactly what was committed
// before it; UPDATE and DELETE by ctid after the merges change the right
// rows, also from a READ COMMITTED transaction whose snapshot predates
// the merges, while a REPEATABLE READ one gets 40001.
func TestSmallCommits(t *testing.T) {
	checkMerges(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	tbl := intTable("small")
	defer mem.AssertSize(t, 0)
	defer tbl.release()

	const n = 20000
	var early *Snapshot
	var earlyView *View // read at once, before the merges
	lateView := (*View)(nil)
	for i := int64(1); i <= n; i++ {
		w := NewWriteSet()
		w.Append(tbl, intBatch(mem, tbl, i))
		commit(t, w)
		if i == 5000 {
			early = TakeSnapshot()
			earlyView = NewView(nil, early, true)
			if got := viewValues(earlyView, tbl); !equal(got, seq(1, 5000)) {
				t.Fatalf("snapshot after 5000 commits reads %d rows", len(got))
			}
			lateView = NewView(nil, early, true) // reads only after all commits
		}
	}
	t.Logf("%d single-row commits left batches of %v rows", n, tableSizes(tbl))
	if got := tbl.NumBatches(); got > 20 {
		t.Errorf("%d single-row commits left %d batches %v", n, got, tableSizes(tbl))
	}
	if got := tableValues(tbl); !equal(got, seq(1, n)) {
		t.Fatalf("table holds %d rows, want 1..%d in order", len(got), n)
	}
	for _, v := range []*View{earlyView, lateView} {
		if got := viewValues(v, tbl); !equal(got, seq(1, 5000)) {
			t.Errorf("snapshot taken after 5000 commits reads %d rows after the merges", len(got))
		}
		v.Release()
	}

	// A REPEATABLE READ transaction on the early snapshot cannot rewrite
	// the table; a READ COMMITTED one rewrites its newest version.
	rr := NewView(NewWriteSet(), early, true)
	if err := rr.LockForWrite(ctx, []*Table{tbl}, 0); pgerr.Code(err) != pgerr.SerializationFailure {
		t.Errorf("REPEATABLE READ rewrite after the merges: %v, want 40001", err)
	}
	rr.Release()
	rr.Writes().OnXact(ctx, xact.Abort)
	w := NewWriteSet()
	rc := NewView(w, early, false)
	if got := viewValues(rc, tbl); len(got) != 5000 {
		t.Fatalf("READ COMMITTED statement before locking reads %d rows", len(got))
	}
	if err := rc.LockForWrite(ctx, []*Table{tbl}, 0); err != nil {
		t.Fatal(err)
	}
	if got := modify(t, mem, rc, tbl, func(x int64) bool { return x == 17 || x == 19999 }, func(x int64) int64 { return -x }); got != 2 {
		t.Errorf("UPDATE changed %d rows, want 2", got)
	}
	rc.Release()
	// A second statement of the transaction: a DELETE reading through the
	// rewritten contents.
	del := NewView(w, early, false)
	if got := modify(t, mem, del, tbl, func(x int64) bool { return x > 100 && x%2 == 0 }, nil); got != (n-100)/2 {
		t.Errorf("DELETE deleted %d rows, want %d", got, (n-100)/2)
	}
	del.Release()
	early.Release()
	commit(t, w)

	var want []int64
	for i := int64(1); i <= n; i++ {
		if i == 17 || i == 19999 || (i > 100 && i%2 == 0) {
			continue
		}
		want = append(want, i)
	}
	want = append(want, -17, -19999)
	if got := tableValues(tbl); !equal(got, want) {
		t.Errorf("after UPDATE and DELETE: %d rows %v..., want %d", len(got), got[:min(len(got), 20)], len(want))
	}
	if got := tbl.NumBatches(); got > 20 {
		t.Errorf("after UPDATE and DELETE: %d batches %v", got, tableSizes(tbl))
	}

	// Single-row commits after the rewrite merge again.
	for i := int64(1); i <= 1000; i++ {
		w := NewWriteSet()
		w.Append(tbl, intBatch(mem, tbl, n+i))
		commit(t, w)
	}
	want = append(want, seq(n+1, n+1000)...)
	if got := tableValues(tbl); !equal(got, want) {
		t.Errorf("after more commits: %d rows, want %d", len(got), len(want))
	}
	if got := tbl.NumBatches(); got > 30 {
		t.Errorf("after more commits: %d batches %v", got, tableSizes(tbl))
	}
}

// ownValues reads tbl as a new statement of w's transaction does.
func ownValues(w *WriteSet, tbl *Table) []int64 {
	v := NewView(w, nil, false)
	defer v.Release()
	return viewValues(v, tbl)
}

func tableSizes(t *Table) []int64 {
	bs := t.Snapshot()
	defer releaseBatches(bs)
	return batchSizes(bs)
}

// TestSmallAppendsInTransaction: a transaction's own single-row appends
// merge as they come; its UPDATE and DELETE by ctid find the right rows,
// also when the rows they append merge with rows the statement's view
// read; savepoints restore what they saw; nothing leaks.
func TestSmallAppendsInTransaction(t *testing.T) {
	checkMerges(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	tbl := intTable("own")
	defer mem.AssertSize(t, 0)
	defer tbl.release()
	tbl.Append(intBatch(mem, tbl, seq(-99, 0)...))

	const n = 20000
	w := NewWriteSet()
	for i := int64(1); i <= n; i++ {
		w.Append(tbl, intBatch(mem, tbl, i))
	}
	if got := len(w.tables[tbl].appends); got > 20 {
		t.Errorf("%d single-row appends in one transaction left %d batches", n, got)
	}
	v := NewView(w, nil, false)
	bs := v.Batches(tbl)
	if len(bs) > 21 || v.Seen(tbl) != n {
		t.Errorf("the transaction's view has %d batches and %d of its rows", len(bs), v.Seen(tbl))
	}
	releaseBatches(bs)
	v.Release()

	// A savepoint: appends after it, then rolled back.
	w.OnSubXact(ctx, xact.StartSub, 1)
	for i := int64(1); i <= 100; i++ {
		w.Append(tbl, intBatch(mem, tbl, 1000000+i))
	}
	w.OnSubXact(ctx, xact.AbortSub, 1)
	if got := ownValues(w, tbl); !equal(got, seq(-99, n)) {
		t.Fatalf("after ROLLBACK TO: %d rows", len(got))
	}

	if err := w.Lock(ctx, []*Table{tbl}, 0); err != nil {
		t.Fatal(err)
	}
	// The updated rows are appended after a row the view read.
	w.Append(tbl, intBatch(mem, tbl, n+1))
	upd := NewView(w, nil, false)
	match := func(x int64) bool { return x == -50 || x == 17 || x == n+1 }
	if got := modify(t, mem, upd, tbl, match, func(x int64) int64 { return x + 1000000 }); got != 3 {
		t.Errorf("UPDATE changed %d rows, want 3", got)
	}
	upd.Release()
	want := append(append(seq(-99, 0), seq(1, n+1)...), 1000000-50, 1000017, 1000000+n+1)
	want = slices.DeleteFunc(want, match)
	if got := ownValues(w, tbl); !equal(got, want) {
		t.Fatalf("after UPDATE: %d rows, want %d", len(got), len(want))
	}

	// More single-row appends, a savepoint kept, a DELETE.
	w.OnSubXact(ctx, xact.StartSub, 1)
	for i := int64(2); i <= 300; i++ {
		w.Append(tbl, intBatch(mem, tbl, n+i))
	}
	w.OnSubXact(ctx, xact.CommitSub, 1)
	want = append(want, seq(n+2, n+300)...)
	del := NewView(w, nil, false)
	gone := func(x int64) bool { return x%3 == 0 }
	modify(t, mem, del, tbl, gone, nil)
	del.Release()
	want = slices.DeleteFunc(want, gone)
	if got := ownValues(w, tbl); !equal(got, want) {
		t.Fatalf("after DELETE: %d rows, want %d", len(got), len(want))
	}
	commit(t, w)
	if got := tableValues(tbl); !equal(got, want) {
		t.Fatalf("committed %d rows, want %d", len(got), len(want))
	}
	if got := tbl.NumBatches(); got > 20 {
		t.Errorf("committed %d batches %v", got, tableSizes(tbl))
	}
}

// TestMergeWaitsForLock: a commit of appends to a table another
// transaction has locked (and read positions of) waits, and merges only
// once that one has rewritten the table by those positions.
func TestMergeWaitsForLock(t *testing.T) {
	checkMerges(t)
	defer func(n int) { mergeAfter = n }(mergeAfter)
	mergeAfter = 1 // merge at once
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	tbl := intTable("locked")
	defer mem.AssertSize(t, 0)
	defer tbl.release()
	for i := int64(1); i <= 3; i++ {
		w := NewWriteSet()
		w.Append(tbl, intBatch(mem, tbl, i))
		commit(t, w)
	}

	holder := NewWriteSet()
	v := NewView(holder, TakeSnapshot(), false)
	if err := v.LockForWrite(ctx, []*Table{tbl}, 0); err != nil {
		t.Fatal(err)
	}
	bs := v.Batches(tbl) // positions the holder will rewrite by
	releaseBatches(bs)

	other := NewWriteSet()
	other.Append(tbl, intBatch(mem, tbl, 4))
	done := make(chan error, 1)
	go func() {
		if err := other.OnXact(ctx, xact.PreCommit); err != nil {
			done <- err
			return
		}
		done <- other.OnXact(ctx, xact.Commit)
	}()
	select {
	case err := <-done:
		t.Fatalf("the commit did not wait for the lock: %v", err)
	default:
	}
	modify(t, mem, v, tbl, func(x int64) bool { return x == 3 }, func(x int64) int64 { return 30 })
	v.snap.Release()
	v.Release()
	commit(t, holder)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := tableValues(tbl); !equal(got, []int64{1, 2, 30, 4}) {
		t.Errorf("table holds %v, want [1 2 30 4]", got)
	}
	if got := tableSizes(tbl); !equal(got, []int64{3, 1}) {
		t.Errorf("table holds batches of %v rows, want [3 1]", got)
	}
}

// TestRewriteCutsMergedAppend: when rows an UPDATE appends merge with
// own appended rows its view read, the rewrite keeps only the new ones
// of that batch (the view's rows are in what the UPDATE kept).
func TestRewriteCutsMergedAppend(t *testing.T) {
	checkMerges(t)
	defer func(n int) { mergeAfter = n }(mergeAfter)
	mergeAfter = 1
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	tbl := intTable("cut")
	defer mem.AssertSize(t, 0)
	defer tbl.release()
	w := NewWriteSet()
	w.Append(tbl, intBatch(mem, tbl, 1))
	w.Append(tbl, intBatch(mem, tbl, 2))
	v := NewView(w, nil, false)
	if got := modify(t, mem, v, tbl, func(x int64) bool { return x == 2 }, func(int64) int64 { return 20 }); got != 1 {
		t.Fatalf("UPDATE changed %d rows", got)
	}
	v.Release()
	if got := ownValues(w, tbl); !equal(got, []int64{1, 20}) {
		t.Errorf("after UPDATE: %v, want [1 20]", got)
	}
	// The same, looking inside: appends [1 2] then [20] merge into one
	// batch [1 2 20], which the rewrite cuts after the 2 rows seen.
	w.Append(tbl, intBatch(mem, tbl, 3))
	w.Append(tbl, intBatch(mem, tbl, 4))
	v = NewView(w, nil, false)
	seen := v.Seen(tbl)
	w.Append(tbl, intBatch(mem, tbl, 40))
	if got := batchSizes(w.tables[tbl].appends); !equal(got, []int64{3}) || seen != 2 {
		t.Fatalf("appends %v, view saw %d rows; want [3] and 2", got, seen)
	}
	bs := v.Batches(tbl)
	kept := []arrow.RecordBatch{bs[0], intBatch(mem, tbl, 3)} // 4 deleted
	bs[0].Retain()
	releaseBatches(bs)
	v.Release()
	w.Rewrite(tbl, kept, seen, 1)
	if got := ownValues(w, tbl); !equal(got, []int64{1, 20, 3, 40}) {
		t.Errorf("after the rewrite: %v, want [1 20 3 40]", got)
	}
	commit(t, w)
	if got := tableValues(tbl); !equal(got, []int64{1, 20, 3, 40}) {
		t.Errorf("committed %v, want [1 20 3 40]", got)
	}
}

// TestMergeBytes: wide rows merge into batches of at most mergeBytes.
func TestMergeBytes(t *testing.T) {
	checkMerges(t)
	defer func(n int, b int64) { mergeAfter, mergeBytes = n, b }(mergeAfter, mergeBytes)
	mergeAfter, mergeBytes = 1, 1000
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tbl := NewTable("public", "wide", []Column{{Name: "s", Type: types.TextT}})
	defer tbl.release()
	w := NewWriteSet()
	var want []string
	for i := range 100 {
		v := fmt.Sprintf("%03d%s", i, strings.Repeat("x", 297))
		want = append(want, v)
		b := array.NewStringBuilder(mem)
		b.Append(v)
		arr := b.NewArray()
		b.Release()
		w.Append(tbl, array.NewRecordBatch(tbl.ArrowSchema(), []arrow.Array{arr}, 1))
		arr.Release()
	}
	commit(t, w)
	bs := tbl.Snapshot()
	defer releaseBatches(bs)
	var got []string
	for _, b := range bs {
		if n := batchBytes(b); n > mergeBytes && b.NumRows() > 1 {
			t.Errorf("a merged batch of %d rows holds %d bytes", b.NumRows(), n)
		}
		for i := range int(b.NumRows()) {
			got = append(got, b.Column(0).(*array.String).Value(i))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("merged wide rows differ")
	}
	if len(bs) > 50 || len(bs) < 34 {
		t.Errorf("100 rows of 300 bytes merged into %d batches, want about 34", len(bs))
	}
}
