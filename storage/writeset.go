package storage

// WriteSet: a session's pending changes to local tables, published when
// its transaction commits. It is the one place where local writes become
// visible: statements add to it (INSERT, UPDATE, DELETE, COPY, TRUNCATE)
// and the session's transaction calls it at Commit and Abort (it is an
// xact.Callback). Batches stay immutable: a commit appends batches to
// tables or swaps a table's batch list, it never changes a batch.
//
// Concurrency: each table's write lock is held from the moment a
// statement locks it (UPDATE and DELETE, from the snapshot they rewrite)
// to the end of the transaction, so that rows another session inserts
// meanwhile are not lost by the rewrite; tables only appended to are
// locked for the publication alone. Readers never wait: they read
// snapshots.

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/xact"
)

// WriteSet collects one session's uncommitted writes.
type WriteSet struct {
	// appends are batches to add to a table; replaced tables get new
	// contents instead (replaces, possibly empty), to which their appends
	// are added.
	appends  map[*Table][]arrow.RecordBatch
	replaces map[*Table][]arrow.RecordBatch
	order    []*Table // tables in the order first written
	locked   []*Table
	unlock   []func()
}

// NewWriteSet returns an empty write set.
func NewWriteSet() *WriteSet {
	return &WriteSet{appends: map[*Table][]arrow.RecordBatch{}, replaces: map[*Table][]arrow.RecordBatch{}}
}

var _ xact.Callback = (*WriteSet)(nil)

// Lock takes the write locks of tables until the transaction ends
// (tables already locked by this write set are skipped).
func (w *WriteSet) Lock(tables []*Table) {
	var fresh []*Table
	for _, t := range tables {
		if !slices.Contains(w.locked, t) && !slices.Contains(fresh, t) {
			fresh = append(fresh, t)
		}
	}
	if len(fresh) == 0 {
		return
	}
	w.unlock = append(w.unlock, LockWrites(fresh))
	w.locked = append(w.locked, fresh...)
}

// Append adds batches (with t's schema) to t at commit, taking them over.
// If t is being replaced, they join its new contents.
func (w *WriteSet) Append(t *Table, bs ...arrow.RecordBatch) {
	w.touch(t)
	if _, ok := w.replaces[t]; ok {
		w.replaces[t] = append(w.replaces[t], bs...)
		return
	}
	w.appends[t] = append(w.appends[t], bs...)
}

// Truncate makes t's contents at commit empty, plus whatever is appended
// to it afterwards (TRUNCATE); what was appended before is dropped. The
// caller must hold t's lock (Lock).
func (w *WriteSet) Truncate(t *Table) {
	w.touch(t)
	for _, b := range w.appends[t] {
		b.Release()
	}
	delete(w.appends, t)
	for _, b := range w.replaces[t] {
		b.Release()
	}
	w.replaces[t] = nil
}

// Rewrite makes t's contents at commit kept (taking the batches over),
// followed by the rows appended to it before and after (UPDATE and DELETE
// rewrite the batches they deleted rows from, and keep the rows they
// added). The caller must hold t's lock (Lock) from the snapshot kept was
// made from until the commit.
func (w *WriteSet) Rewrite(t *Table, kept []arrow.RecordBatch) {
	w.touch(t)
	if prev, ok := w.replaces[t]; ok {
		// Rewritten twice: the second rewrite started from the first.
		for _, b := range prev {
			b.Release()
		}
	}
	w.replaces[t] = append(kept, w.appends[t]...)
	delete(w.appends, t)
}

func (w *WriteSet) touch(t *Table) {
	if _, ok := w.appends[t]; ok {
		return
	}
	if _, ok := w.replaces[t]; ok {
		return
	}
	w.order = append(w.order, t)
}

// Empty reports whether nothing is pending.
func (w *WriteSet) Empty() bool { return len(w.order) == 0 }

// OnXact implements xact.Callback: Commit publishes the writes, Abort
// drops them; both release the locks.
func (w *WriteSet) OnXact(ctx context.Context, ev xact.Event) error {
	switch ev {
	case xact.Commit:
		w.publish()
	case xact.Abort:
		w.drop()
	}
	return nil
}

// publish applies the writes under the tables' locks.
func (w *WriteSet) publish() {
	if len(w.order) > 0 {
		w.Lock(w.order)
		for _, t := range w.order {
			if bs, ok := w.replaces[t]; ok {
				t.Replace(bs)
			} else {
				t.Append(w.appends[t]...)
			}
		}
	}
	w.reset()
}

// drop releases the pending batches.
func (w *WriteSet) drop() {
	for _, bs := range w.appends {
		for _, b := range bs {
			b.Release()
		}
	}
	for _, bs := range w.replaces {
		for _, b := range bs {
			b.Release()
		}
	}
	w.reset()
}

// reset forgets the writes and releases the locks, newest first.
func (w *WriteSet) reset() {
	clear(w.appends)
	clear(w.replaces)
	w.order = w.order[:0]
	for i := len(w.unlock) - 1; i >= 0; i-- {
		w.unlock[i]()
	}
	w.unlock, w.locked = w.unlock[:0], w.locked[:0]
}
