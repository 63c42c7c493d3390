package storage

// WriteSet: a session's uncommitted changes to local tables, published
// when its transaction commits. It is the one place where local writes
// become visible: statements add to it (INSERT, UPDATE, DELETE, COPY,
// TRUNCATE), read it back (their own writes, through a View), and the
// session's transaction calls it at its boundaries (it is an xact
// callback, subtransactions included). Batches stay immutable: a commit
// publishes a new version of each table it wrote (mvcc.go), it never
// changes a batch.
//
// Locks: UPDATE, DELETE and TRUNCATE lock their tables (Lock) before they
// read what they rewrite, until the transaction ends; PreCommit locks the
// tables only appended to, so that the publication sees each table as it
// is. A savepoint rolled back releases the locks taken since it.

import (
	"context"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/xact"
)

// tableWrites is what a transaction did to one table: appended batches,
// or (replaced) new contents with appends after them.
type tableWrites struct {
	replaced bool
	content  []arrow.RecordBatch
	appends  []arrow.RecordBatch
}

// wsMark is the state of a write set when a savepoint was made.
type wsMark struct {
	tables map[*Table]tableWrites
	order  int
	locked int
}

// WriteSet collects one session's uncommitted writes.
type WriteSet struct {
	owner  *LockOwner
	tables map[*Table]*tableWrites
	order  []*Table // tables in the order first written
	locked []*Table // tables this transaction holds the lock of
	// owned holds one reference to every batch added to the set: the
	// lists above only refer to them, so that rolling back to a savepoint
	// is restoring the lists.
	owned []arrow.RecordBatch
	marks []wsMark
}

// NewWriteSet returns an empty write set with a lock identity of its own.
func NewWriteSet() *WriteSet {
	return &WriteSet{owner: NewLockOwner(), tables: map[*Table]*tableWrites{}}
}

var (
	_ xact.Callback    = (*WriteSet)(nil)
	_ xact.SubCallback = (*WriteSet)(nil)
)

// Lock takes the write locks of tables until the transaction ends,
// waiting for other transactions that hold them (see locks.go; timeout 0
// waits without limit). Tables already locked by this write set are
// skipped.
func (w *WriteSet) Lock(ctx context.Context, tables []*Table, timeout time.Duration) error {
	got, err := locks.lock(ctx, w.owner, tables, timeout)
	if err != nil {
		return err
	}
	w.locked = append(w.locked, got...)
	return nil
}

// Holds reports whether this transaction holds t's write lock.
func (w *WriteSet) Holds(t *Table) bool { return slices.Contains(w.locked, t) }

// writes returns t's record, creating it.
func (w *WriteSet) writes(t *Table) *tableWrites {
	tw := w.tables[t]
	if tw == nil {
		tw = &tableWrites{}
		w.tables[t] = tw
		w.order = append(w.order, t)
	}
	return tw
}

func (w *WriteSet) own(bs []arrow.RecordBatch) { w.owned = append(w.owned, bs...) }

// Append adds batches (with t's schema) to t at commit, taking them over.
func (w *WriteSet) Append(t *Table, bs ...arrow.RecordBatch) {
	w.own(bs)
	tw := w.writes(t)
	tw.appends = append(tw.appends[:len(tw.appends):len(tw.appends)], bs...)
}

// Truncate makes t's contents at commit empty, plus whatever is appended
// to it afterwards; what this transaction appended before is dropped. The
// caller must hold t's lock.
func (w *WriteSet) Truncate(t *Table) {
	tw := w.writes(t)
	tw.replaced, tw.content, tw.appends = true, nil, nil
}

// Rewrite makes t's contents kept (taking the batches over), which the
// caller computed from the batches a View gave for t, followed by the
// batches appended to t since that view (seen is the number of appends it
// included). UPDATE and DELETE rewrite so; the caller must hold t's lock
// from the view on.
func (w *WriteSet) Rewrite(t *Table, kept []arrow.RecordBatch, seen int) {
	w.own(kept)
	tw := w.writes(t)
	later := tw.appends[min(seen, len(tw.appends)):]
	tw.replaced = true
	tw.content = append(append([]arrow.RecordBatch(nil), kept...), later...)
	tw.appends = nil
}

// overlay returns what this transaction sees of t given base, the
// committed batches its snapshot reads: base, or t's new contents, then
// its appends (not retained); seen is the number of appends included.
func (w *WriteSet) overlay(t *Table, base []arrow.RecordBatch) ([]arrow.RecordBatch, int) {
	tw := w.tables[t]
	if tw == nil {
		return base, 0
	}
	head := base
	if tw.replaced {
		head = tw.content
	}
	return append(append([]arrow.RecordBatch(nil), head...), tw.appends...), len(tw.appends)
}

// Wrote reports whether this transaction changed t.
func (w *WriteSet) Wrote(t *Table) bool { return w.tables[t] != nil }

// Empty reports whether nothing is pending.
func (w *WriteSet) Empty() bool { return len(w.order) == 0 }

// OnXact implements xact.Callback: PreCommit locks the tables to publish
// (it may wait, and fail), Commit publishes, Abort drops the writes; both
// end the locks.
func (w *WriteSet) OnXact(ctx context.Context, ev xact.Event) error {
	switch ev {
	case xact.PreCommit:
		return w.Lock(ctx, w.order, 0)
	case xact.Commit:
		w.publish()
	case xact.Abort:
		w.reset()
	}
	return nil
}

// publish makes the writes one commit: each table gets its new version.
func (w *WriteSet) publish() {
	if len(w.order) > 0 {
		clock.commit(func(seq uint64) {
			for _, t := range w.order {
				tw := w.tables[t]
				head := tw.content
				if !tw.replaced {
					head = t.Snapshot()
					defer releaseBatches(head)
				}
				t.publish(seq, append(append([]arrow.RecordBatch(nil), head...), tw.appends...))
			}
		})
		for _, t := range w.order {
			t.dropOldVersions()
		}
	}
	w.reset()
}

// reset forgets the writes, releases the batches and the locks.
func (w *WriteSet) reset() {
	releaseBatches(w.owned)
	w.owned = nil
	clear(w.tables)
	w.order, w.marks = w.order[:0], w.marks[:0]
	locks.unlock(w.owner, w.locked)
	w.locked = w.locked[:0]
}

// OnSubXact implements xact.SubCallback: ROLLBACK TO restores the writes
// and the locks of the savepoint.
func (w *WriteSet) OnSubXact(ctx context.Context, ev xact.SubEvent, depth int) error {
	switch ev {
	case xact.StartSub:
		m := wsMark{tables: make(map[*Table]tableWrites, len(w.tables)), order: len(w.order), locked: len(w.locked)}
		for t, tw := range w.tables {
			m.tables[t] = *tw
		}
		w.marks = append(w.marks, m)
	case xact.AbortSub:
		m := w.marks[depth-1]
		for _, t := range w.order[m.order:] {
			delete(w.tables, t)
		}
		w.order = w.order[:m.order]
		for t, tw := range m.tables {
			*w.tables[t] = tw
		}
		locks.unlock(w.owner, w.locked[m.locked:])
		w.locked = w.locked[:m.locked]
		w.marks = w.marks[:depth-1]
	case xact.CommitSub:
		w.marks = w.marks[:depth-1]
	}
	return nil
}

func releaseBatches(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}
