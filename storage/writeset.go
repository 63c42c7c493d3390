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
// or (replaced) new contents with appends after them; changed counts the
// rows it inserted or deleted (for the table's statistics, stats.go).
type tableWrites struct {
	replaced bool
	content  []arrow.RecordBatch
	appends  []arrow.RecordBatch
	changed  int64
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
	// owned holds the set's references to the batches in its lists (the
	// lists only refer to them, so that rolling back to a savepoint is
	// restoring the lists), counted per batch: one for each place the
	// lists hold it (Append, Rewrite and merging small batches take one,
	// and give back those of the places they empty), plus, while a
	// savepoint is open, those of the places emptied since, which rolling
	// back may restore. reset releases them all.
	owned map[arrow.RecordBatch]int
	marks []wsMark
}

// NewWriteSet returns an empty write set with a lock identity of its own.
func NewWriteSet() *WriteSet {
	return &WriteSet{owner: NewLockOwner(), tables: map[*Table]*tableWrites{}, owned: map[arrow.RecordBatch]int{}}
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

// own takes over one reference to each of bs, for a place in the lists.
func (w *WriteSet) own(bs []arrow.RecordBatch) {
	for _, b := range bs {
		w.owned[b]++
	}
}

// disown gives back the references of places in the lists that no longer
// hold bs, unless a savepoint is open (which may restore them).
func (w *WriteSet) disown(bs []arrow.RecordBatch) {
	if len(w.marks) > 0 {
		return
	}
	for _, b := range bs {
		switch n := w.owned[b]; n {
		case 0:
			continue
		case 1:
			delete(w.owned, b)
		default:
			w.owned[b] = n - 1
		}
		b.Release()
	}
}

// merge returns bs, a list of t's, with its runs of small batches merged
// (compact.go): the set owns the merged batches instead of their parts.
// bs itself is not changed (a savepoint's copy may share it).
func (w *WriteSet) merge(t *Table, bs []arrow.RecordBatch) []arrow.RecordBatch {
	out, created, merged := mergeSmall(t.arrowSchema, bs)
	w.own(created)
	w.disown(merged)
	return out
}

// Append adds batches (with t's schema) to t at commit, taking them over.
// Small appends are merged as they come (compact.go), so that many small
// INSERTs in one transaction leave few batches.
func (w *WriteSet) Append(t *Table, bs ...arrow.RecordBatch) {
	w.own(bs)
	tw := w.writes(t)
	tw.changed += rowsOf(bs)
	tw.appends = w.merge(t, append(tw.appends[:len(tw.appends):len(tw.appends)], bs...))
}

// Truncate makes t's contents at commit empty, plus whatever is appended
// to it afterwards; what this transaction appended before is dropped. The
// caller must hold t's lock.
func (w *WriteSet) Truncate(t *Table) {
	tw := w.writes(t)
	gone := append(tw.content[:len(tw.content):len(tw.content)], tw.appends...)
	if tw.replaced {
		tw.changed += rowsOf(gone)
	} else {
		tw.changed += t.Rows() + rowsOf(tw.appends)
	}
	tw.replaced, tw.content, tw.appends = true, nil, nil
	w.disown(gone)
}

// Rewrite makes t's contents kept (taking the batches over), which the
// caller computed from the batches a View gave for t, followed by the
// rows appended to t since that view (seen is the number of appended rows
// it included, View.Seen), removed the number of rows it left out.
// UPDATE and DELETE rewrite so; the caller must hold t's lock from the
// view on. The appends are counted in rows, not batches, because merging
// may have joined rows the view saw with rows appended after it into one
// batch: that batch is cut.
func (w *WriteSet) Rewrite(t *Table, kept []arrow.RecordBatch, seen, removed int) {
	w.own(kept)
	tw := w.writes(t)
	tw.changed += int64(removed)
	content := append([]arrow.RecordBatch(nil), kept...)
	gone := tw.content[:len(tw.content):len(tw.content)]
	skip := int64(seen)
	for _, b := range tw.appends {
		n := b.NumRows()
		switch {
		case skip > 0 && skip >= n: // seen: what is left of it is in kept
			skip -= n
			gone = append(gone, b)
		case skip > 0:
			later := b.NewSlice(skip, n)
			w.own([]arrow.RecordBatch{later})
			content = append(content, later)
			gone = append(gone, b)
			skip = 0
		default:
			content = append(content, b)
		}
	}
	tw.replaced = true
	tw.content = w.merge(t, content)
	tw.appends = nil
	w.disown(gone)
}

// overlay returns what this transaction sees of t given base, the
// committed batches its snapshot reads: base, or t's new contents, then
// its appends (not retained); seen is the number of appended rows
// included.
func (w *WriteSet) overlay(t *Table, base []arrow.RecordBatch) ([]arrow.RecordBatch, int) {
	tw := w.tables[t]
	if tw == nil {
		return base, 0
	}
	head := base
	if tw.replaced {
		head = tw.content
	}
	seen := 0
	for _, b := range tw.appends {
		seen += int(b.NumRows())
	}
	return append(append([]arrow.RecordBatch(nil), head...), tw.appends...), seen
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
// The new versions are built (and their small batches merged) before the
// commit clock is taken, under the tables' locks that PreCommit took, so
// that other commits wait only for the publication itself.
func (w *WriteSet) publish() {
	if len(w.order) > 0 {
		next := make([]pendingVersion, len(w.order))
		for i, t := range w.order {
			next[i] = w.nextVersion(t)
		}
		clock.commit(func(seq uint64) {
			for i, t := range w.order {
				if next[i].stale() {
					// Appended to by a commit of its own (Table.Append),
					// which takes no lock: build on that.
					next[i].release()
					next[i] = w.nextVersion(t)
				}
				t.publish(seq, next[i].batches, next[i].changed)
			}
		})
		for i, t := range w.order {
			next[i].release()
			t.dropOldVersions()
		}
	}
	w.reset()
}

// pendingVersion is a table's next version, built before its commit.
type pendingVersion struct {
	t       *Table
	batches []arrow.RecordBatch
	// held are references to drop once it is published: the committed
	// batches it was built on, and the merged ones.
	held []arrow.RecordBatch
	// base is the commit of the table's version it builds on, when it
	// keeps that version's batches (appends only).
	base   uint64
	onBase bool
	// changed is the rows the transaction inserted or deleted.
	changed int64
}

// nextVersion builds t's version as of this transaction's commit: its
// current one (or the transaction's new contents), then the appends,
// with runs of small batches merged.
func (w *WriteSet) nextVersion(t *Table) pendingVersion {
	tw := w.tables[t]
	p := pendingVersion{t: t}
	head := tw.content
	if !tw.replaced {
		head, p.base = t.current()
		p.held, p.onBase = head, true
	}
	all := append(append([]arrow.RecordBatch(nil), head...), tw.appends...)
	var created []arrow.RecordBatch
	p.batches, created, _ = mergeSmall(t.arrowSchema, all)
	p.held = append(p.held, created...)
	p.changed = tw.changed
	return p
}

// stale reports whether the table got a version p does not build on.
func (p pendingVersion) stale() bool { return p.onBase && p.t.LastCommit() != p.base }

func (p pendingVersion) release() { releaseBatches(p.held) }

// reset forgets the writes, releases the batches and the locks.
func (w *WriteSet) reset() {
	for b, n := range w.owned {
		for range n {
			b.Release()
		}
	}
	clear(w.owned)
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
