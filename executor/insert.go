package executor

// The write path shared by INSERT (ModifyTable) and COPY FROM: route each
// row to its leaf partition (storage.Router), check it (storage.CheckRows)
// and add it to the transaction's write set, which publishes it when the
// transaction commits.

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/storage"
)

// Inserter writes complete rows into a table. Build one per statement and
// target.
type Inserter struct {
	t      *storage.Table
	router *storage.Router // nil unless t is partitioned
}

// NewInserter returns an inserter into t.
func NewInserter(t *storage.Table) *Inserter {
	in := &Inserter{t: t}
	if t.Kind == storage.KindPartitioned {
		in.router = storage.NewRouter(t)
	}
	return in
}

// Insert routes and checks the rows of b (with t's column types) and adds
// them to w; it does not take over b. Nothing is added when a row fails:
// the error is a *storage.RowError naming it.
func (in *Inserter) Insert(w *storage.WriteSet, b arrow.RecordBatch) error {
	if in.router == nil {
		if err := storage.CheckRows(in.t, b, true); err != nil {
			return err
		}
		b.Retain()
		w.Append(in.t, storage.Relabel(b, in.t.ArrowSchema()))
		return nil
	}
	leaves, rows, err := in.router.Split(b)
	if err != nil {
		return err
	}
	parts := make([]arrow.RecordBatch, len(leaves))
	for i, leaf := range leaves {
		parts[i] = takeBatch(b, rows[leaf])
		if err := storage.CheckRows(leaf, parts[i], false); err != nil {
			releaseBatches(parts)
			re := err.(*storage.RowError)
			re.Row = int(rows[leaf][re.Row])
			return re
		}
	}
	for i, leaf := range leaves {
		w.Append(leaf, storage.Relabel(parts[i], leaf.ArrowSchema()))
	}
	return nil
}

func releaseBatches(bs []arrow.RecordBatch) {
	for _, b := range bs {
		if b != nil {
			b.Release()
		}
	}
}
