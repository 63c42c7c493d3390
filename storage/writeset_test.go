package storage

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
	"github.com/pgfed/pgfed/xact"
)

func intTable(name string) *Table {
	return NewTable("public", name, []Column{{Name: "a", Type: types.Int8T}})
}

func intBatch(mem memory.Allocator, t *Table, vals ...int64) arrow.RecordBatch {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(vals, nil)
	arr := b.NewArray()
	defer arr.Release()
	return array.NewRecordBatch(t.ArrowSchema(), []arrow.Array{arr}, int64(len(vals)))
}

func values(bs []arrow.RecordBatch) []int64 {
	var out []int64
	for _, b := range bs {
		out = append(out, b.Column(0).(*array.Int64).Int64Values()...)
	}
	return out
}

func tableValues(t *Table) []int64 {
	bs := t.Snapshot()
	defer releaseBatches(bs)
	return values(bs)
}

func viewValues(v *View, t *Table) []int64 {
	bs := v.Batches(t)
	defer releaseBatches(bs)
	return values(bs)
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestWriteSet(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	a, b := intTable("a"), intTable("b")
	a.Append(intBatch(mem, a, 1, 2))

	// Nothing is visible before the commit, except to the transaction's
	// own views; Abort drops it all.
	w := NewWriteSet()
	w.Append(a, intBatch(mem, a, 3))
	w.Append(b, intBatch(mem, b, 10))
	own := NewView(w, nil, false)
	if got := tableValues(a); !equal(got, []int64{1, 2}) {
		t.Fatalf("uncommitted rows visible: %v", got)
	}
	if got := viewValues(own, a); !equal(got, []int64{1, 2, 3}) {
		t.Fatalf("own view: %v", got)
	}
	own.Release()
	if err := w.OnXact(ctx, xact.Abort); err != nil {
		t.Fatal(err)
	}
	if got := tableValues(a); !equal(got, []int64{1, 2}) || b.Rows() != 0 {
		t.Fatalf("after abort: a %v, b has %d rows", got, b.Rows())
	}

	// Commit publishes appends; a truncated table gets what was appended
	// to it afterwards, a rewritten one its kept batches and then the rows
	// appended after the view it was rewritten from.
	if err := w.Lock(ctx, []*Table{a, b}, 0); err != nil {
		t.Fatal(err)
	}
	w.Append(a, intBatch(mem, a, 6))
	w.Truncate(a)
	w.Append(a, intBatch(mem, a, 7))
	w.Append(b, intBatch(mem, b, 12))
	seen := NewView(w, nil, false)
	if seen.Seen(b) != 1 {
		t.Fatalf("view includes %d appends, want 1", seen.Seen(b))
	}
	w.Append(b, intBatch(mem, b, 13))
	w.Rewrite(b, []arrow.RecordBatch{intBatch(mem, b, 11)}, seen.Seen(b), 1)
	seen.Release()
	for _, ev := range []xact.Event{xact.PreCommit, xact.Commit} {
		if err := w.OnXact(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	if got := tableValues(a); !equal(got, []int64{7}) {
		t.Errorf("truncated table: %v, want [7]", got)
	}
	if got := tableValues(b); !equal(got, []int64{11, 13}) {
		t.Errorf("rewritten table: %v, want [11 13]", got)
	}
	if !w.Empty() || w.Holds(a) {
		t.Error("write set not empty, or locks held, after commit")
	}
	a.release()
	b.release()
	mem.AssertSize(t, 0)
}

// TestSnapshots: a snapshot reads the versions committed before it, also
// after later commits; REPEATABLE READ refuses to rewrite a table changed
// since, READ COMMITTED reads the newest version once it holds the lock.
func TestSnapshots(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	tbl := intTable("t")
	tbl.Append(intBatch(mem, tbl, 1))
	snap := TakeSnapshot()
	tbl.Append(intBatch(mem, tbl, 2))
	old := NewView(nil, snap, true)
	if got := viewValues(old, tbl); !equal(got, []int64{1}) {
		t.Errorf("snapshot before the second commit reads %v", got)
	}
	old.Release()

	rr := NewView(NewWriteSet(), snap, true)
	if err := rr.LockForWrite(ctx, []*Table{tbl}, 0); pgerr.Code(err) != pgerr.SerializationFailure {
		t.Errorf("REPEATABLE READ rewrite of a changed table: %v, want 40001", err)
	}
	rr.Writes().OnXact(ctx, xact.Abort)
	rc := NewView(NewWriteSet(), snap, false)
	if got := viewValues(rc, tbl); !equal(got, []int64{1}) {
		t.Errorf("READ COMMITTED statement reads %v before locking", got)
	}
	if err := rc.LockForWrite(ctx, []*Table{tbl}, 0); err != nil {
		t.Fatal(err)
	}
	if got := viewValues(rc, tbl); !equal(got, []int64{1, 2}) {
		t.Errorf("READ COMMITTED statement reads %v after locking, want the newest version", got)
	}
	rc.Release()
	rc.Writes().OnXact(ctx, xact.Abort)
	snap.Release()
	tbl.Append(intBatch(mem, tbl, 3)) // no snapshot needs the old versions now
	tbl.mu.RLock()
	versions := len(tbl.versions)
	tbl.mu.RUnlock()
	if versions != 1 {
		t.Errorf("%d versions kept without snapshots, want 1", versions)
	}
	tbl.release()
	mem.AssertSize(t, 0)
}

// TestWriteSetSavepoints: rolling back to a savepoint restores the writes
// and releases the locks taken since; releasing it keeps them.
func TestWriteSetSavepoints(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	a, b := intTable("a"), intTable("b")
	w := NewWriteSet()
	w.Append(a, intBatch(mem, a, 1))
	w.OnSubXact(ctx, xact.StartSub, 1)
	w.Append(a, intBatch(mem, a, 2))
	if err := w.Lock(ctx, []*Table{b}, 0); err != nil {
		t.Fatal(err)
	}
	w.Truncate(b)
	w.OnSubXact(ctx, xact.AbortSub, 1)
	v := NewView(w, nil, false)
	if got := viewValues(v, a); !equal(got, []int64{1}) || w.Wrote(b) || w.Holds(b) {
		t.Errorf("after ROLLBACK TO: a %v, b written %v, b locked %v", got, w.Wrote(b), w.Holds(b))
	}
	v.Release()
	w.OnSubXact(ctx, xact.StartSub, 1)
	w.Append(a, intBatch(mem, a, 3))
	w.OnSubXact(ctx, xact.CommitSub, 1)
	w.OnXact(ctx, xact.PreCommit)
	w.OnXact(ctx, xact.Commit)
	if got := tableValues(a); !equal(got, []int64{1, 3}) {
		t.Errorf("committed %v, want [1 3]", got)
	}
	a.release()
	mem.AssertSize(t, 0)
}

// TestLocks: a second transaction waits for the lock until the first
// ends; a cycle of waits is 40P01 at once; lock_timeout is 55P03; a done
// context is 57014.
func TestLocks(t *testing.T) {
	ctx := context.Background()
	x, y := intTable("x"), intTable("y")
	w1, w2 := NewWriteSet(), NewWriteSet()
	if err := w1.Lock(ctx, []*Table{x}, 0); err != nil {
		t.Fatal(err)
	}
	if err := w2.Lock(ctx, []*Table{y}, 0); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- w2.Lock(ctx, []*Table{x}, 0) }()
	time.Sleep(20 * time.Millisecond) // let w2 wait for x
	err := w1.Lock(ctx, []*Table{y}, 0)
	if pgerr.Code(err) != pgerr.DeadlockDetected {
		t.Fatalf("closing the cycle: %v, want 40P01", err)
	}
	if pe, _ := pgerr.As(err); pe.Detail == "" {
		t.Error("no DETAIL naming the cycle")
	}
	w1.OnXact(ctx, xact.Abort) // the victim ends: the other gets its lock
	select {
	case err := <-waited:
		if err != nil {
			t.Fatalf("waiter: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter did not get the lock after the holder ended")
	}
	if err := w1.Lock(ctx, []*Table{x}, 30*time.Millisecond); pgerr.Code(err) != pgerr.LockNotAvailable {
		t.Errorf("lock_timeout: %v, want 55P03", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if err := w1.Lock(cctx, []*Table{x}, 0); pgerr.Code(err) != pgerr.QueryCanceled {
		t.Errorf("cancelled wait: %v, want 57014", err)
	}
	w2.OnXact(ctx, xact.Abort)
	if err := w1.Lock(ctx, []*Table{x, y}, 0); err != nil {
		t.Errorf("after the holder ended: %v", err)
	}
	w1.OnXact(ctx, xact.Abort)
}
