package storage

// View: what one statement reads of local tables: the committed versions
// its snapshot sees, with its transaction's own writes over them. Every
// reader of a table within the statement (its scans, ModifyTable finding
// rows by ctid, parallel workers) gets the same batch list, so that a
// row's position in it is its identity for the whole statement.

import (
	"context"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/pgerr"
)

// View is one statement's reading of local tables.
type View struct {
	ws   *WriteSet
	snap *Snapshot
	// repeatable: REPEATABLE READ or SERIALIZABLE, whose snapshot is the
	// transaction's; a table committed to after it cannot be rewritten
	// (40001). Under READ COMMITTED a table locked for writing is read at
	// its newest version instead.
	repeatable bool

	mu     sync.Mutex
	read   map[*Table]viewed
	latest map[*Table]bool
}

type viewed struct {
	batches []arrow.RecordBatch // one reference each, owned by the view
	seen    int                 // rows of own appends included
}

// NewView returns the view of a statement reading at snap (nil: the
// newest versions) with the writes of ws (nil: none).
func NewView(ws *WriteSet, snap *Snapshot, repeatable bool) *View {
	return &View{ws: ws, snap: snap, repeatable: repeatable, read: map[*Table]viewed{}, latest: map[*Table]bool{}}
}

// Batches returns t's batches as the statement sees them, retained for
// the caller; every call in the statement gets the same list.
func (v *View) Batches(t *Table) []arrow.RecordBatch {
	v.mu.Lock()
	defer v.mu.Unlock()
	return retained(v.viewLocked(t).batches)
}

// Seen is the number of rows of the transaction's own appends to t that
// the statement's view of t includes (WriteSet.Rewrite needs it).
func (v *View) Seen(t *Table) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.viewLocked(t).seen
}

func (v *View) viewLocked(t *Table) viewed {
	if r, ok := v.read[t]; ok {
		return r
	}
	var base []arrow.RecordBatch
	if v.snap == nil || v.latest[t] {
		base = t.Snapshot()
	} else {
		base = t.SnapshotAt(v.snap.Seq)
	}
	r := viewed{batches: base}
	if v.ws != nil {
		var own []arrow.RecordBatch
		own, r.seen = v.ws.overlay(t, base)
		r.batches = retained(own)
		releaseBatches(base)
	}
	v.read[t] = r
	return r
}

// LockForWrite takes the write locks of tables for the transaction (see
// WriteSet.Lock) before the statement reads what it will rewrite. Under
// REPEATABLE READ a table another transaction committed to after the
// snapshot is 40001; under READ COMMITTED the statement then reads the
// table's newest version, so no committed change is lost.
func (v *View) LockForWrite(ctx context.Context, tables []*Table, timeout time.Duration) error {
	if err := v.ws.Lock(ctx, tables, timeout); err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, t := range tables {
		if v.snap == nil || t.LastCommit() <= v.snap.Seq {
			continue
		}
		if v.repeatable {
			return pgerr.New(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
		}
		if r, ok := v.read[t]; ok {
			releaseBatches(r.batches)
			delete(v.read, t)
		}
		v.latest[t] = true
	}
	return nil
}

// Writes is the transaction's write set.
func (v *View) Writes() *WriteSet { return v.ws }

// Release ends the statement's view.
func (v *View) Release() {
	v.mu.Lock()
	defer v.mu.Unlock()
	for t, r := range v.read {
		releaseBatches(r.batches)
		delete(v.read, t)
	}
}
