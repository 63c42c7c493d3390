package storage

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
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

func tableValues(t *Table) []int64 {
	var out []int64
	for _, b := range t.Snapshot() {
		out = append(out, b.Column(0).(*array.Int64).Int64Values()...)
		b.Release()
	}
	return out
}

func TestWriteSet(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	a, b := intTable("a"), intTable("b")
	a.Append(intBatch(mem, a, 1, 2))

	// Nothing is visible before the commit; Abort drops it all.
	w := NewWriteSet()
	w.Append(a, intBatch(mem, a, 3))
	w.Append(b, intBatch(mem, b, 10))
	if got := tableValues(a); len(got) != 2 {
		t.Fatalf("uncommitted rows visible: %v", got)
	}
	if err := w.OnXact(ctx, xact.Abort); err != nil {
		t.Fatal(err)
	}
	if got := tableValues(a); len(got) != 2 || b.Rows() != 0 {
		t.Fatalf("after abort: a %v, b has %d rows", got, b.Rows())
	}

	// Commit publishes appends; a truncated table gets what was appended
	// to it afterwards, a rewritten one its kept batches and then every
	// row appended to it.
	w.Lock([]*Table{a})
	w.Append(a, intBatch(mem, a, 6))
	w.Truncate(a)
	w.Append(a, intBatch(mem, a, 7))
	w.Append(b, intBatch(mem, b, 12))
	w.Rewrite(b, []arrow.RecordBatch{intBatch(mem, b, 11)})
	w.Append(b, intBatch(mem, b, 13))
	if w.Empty() {
		t.Fatal("write set empty after writes")
	}
	if err := w.OnXact(ctx, xact.Commit); err != nil {
		t.Fatal(err)
	}
	if got := tableValues(a); len(got) != 1 || got[0] != 7 {
		t.Errorf("replaced table: %v, want [7]", got)
	}
	if got := tableValues(b); len(got) != 3 || got[0] != 11 || got[1] != 12 || got[2] != 13 {
		t.Errorf("rewritten table: %v, want [11 12 13]", got)
	}
	if !w.Empty() {
		t.Error("write set not empty after commit")
	}
	a.Replace(nil)
	b.Replace(nil)
	mem.AssertSize(t, 0)
}

// TestWriteSetHoldsLocksToTheEnd: a table locked for a rewrite stays
// locked until the transaction ends, so another writer waits instead of
// losing its rows to the rewrite.
func TestWriteSetHoldsLocksToTheEnd(t *testing.T) {
	tbl := intTable("t")
	w := NewWriteSet()
	w.Lock([]*Table{tbl})
	w.Lock([]*Table{tbl}) // again: no self-deadlock
	got := make(chan struct{})
	go func() {
		unlock := LockWrites([]*Table{tbl})
		unlock()
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("another writer got the lock while the transaction held it")
	case <-time.After(50 * time.Millisecond):
	}
	if err := w.OnXact(context.Background(), xact.Commit); err != nil {
		t.Fatal(err)
	}
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the lock was not released at commit")
	}
}
