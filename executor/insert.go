package executor

// The write path shared by INSERT (ModifyTable) and COPY FROM: route each
// row to its leaf partition (storage.Router), check it (storage.CheckRows)
// and add it to the transaction's write set, which publishes it when the
// transaction commits; rows of foreign tables go to the remote server
// (foreignWriter), into the remote transaction.

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
)

// Inserter writes complete rows into a table. Build one per statement and
// target, and Flush it at the end.
type Inserter struct {
	t      *storage.Table
	router *storage.Router // nil unless t is partitioned
	// foreign writes the foreign leaves, planned (nodes.ForeignWrite) or
	// not; writers holds the ones started.
	foreign map[*storage.Table]*nodes.ForeignWrite
	writers map[*storage.Table]*foreignWriter
	ec      *ExecContext

	// Returning, when set, receives the inserted rows as full rows of
	// the target: local ones as inserted, remote ones as the remote
	// RETURNING gave them back (possibly later, at a flush).
	Returning func(arrow.RecordBatch) error
	// Affected counts the rows inserted (remote ones once the server
	// said so).
	Affected int64
}

// NewInserter returns an inserter into t; foreign are the plans of its
// foreign leaves' writes (nodes.ModifyTable.Foreign's INSERTs), and ec
// gives their connections.
func NewInserter(t *storage.Table, foreign []*nodes.ForeignWrite, ec *ExecContext) *Inserter {
	in := &Inserter{t: t, ec: ec, foreign: map[*storage.Table]*nodes.ForeignWrite{}, writers: map[*storage.Table]*foreignWriter{}}
	for _, fw := range foreign {
		if fw.Op == nodes.Insert {
			in.foreign[fw.Table] = fw
		}
	}
	if t.Kind == storage.KindPartitioned {
		in.router = storage.NewRouter(t)
	}
	return in
}

// Insert routes and checks the rows of b (with t's column types) and adds
// them to w or sends them to their foreign table; it does not take over
// b. Nothing is added locally when a row fails: the error is a
// *storage.RowError naming it.
func (in *Inserter) Insert(ctx context.Context, w *storage.WriteSet, b arrow.RecordBatch) error {
	if in.router == nil {
		if in.t.Kind == storage.KindForeign {
			return in.insertForeign(ctx, in.t, b)
		}
		if err := storage.CheckRows(in.t, b, true); err != nil {
			return err
		}
		return in.appendLocal(w, in.t, b)
	}
	leaves, rows, err := in.router.Split(b)
	if err != nil {
		return err
	}
	parts := make([]arrow.RecordBatch, len(leaves))
	defer releaseBatches(parts)
	for i, leaf := range leaves {
		parts[i] = takeBatch(b, rows[leaf])
		if leaf.Kind == storage.KindForeign {
			continue // the remote server checks its rows
		}
		if err := storage.CheckRows(leaf, parts[i], false); err != nil {
			re := err.(*storage.RowError)
			re.Row = int(rows[leaf][re.Row])
			return re
		}
	}
	for i, leaf := range leaves {
		if leaf.Kind == storage.KindForeign {
			err = in.insertForeign(ctx, leaf, parts[i])
		} else {
			err = in.appendLocal(w, leaf, parts[i])
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (in *Inserter) appendLocal(w *storage.WriteSet, leaf *storage.Table, b arrow.RecordBatch) error {
	b.Retain()
	w.Append(leaf, storage.Relabel(b, leaf.ArrowSchema()))
	in.Affected += b.NumRows()
	if in.Returning != nil {
		return in.Returning(b)
	}
	return nil
}

func (in *Inserter) insertForeign(ctx context.Context, leaf *storage.Table, b arrow.RecordBatch) error {
	fw := in.writers[leaf]
	if fw == nil {
		plan := in.foreign[leaf]
		if plan == nil {
			return pgerr.Internal("executor: no foreign write planned for %q", leaf.Name)
		}
		var returned func(arrow.RecordBatch) error
		if in.Returning != nil {
			returned = in.Returning
		}
		fw = newForeignWriter(plan, in.ec, returned, func(n int64) { in.Affected += n })
		in.writers[leaf] = fw
	}
	return fw.insert(ctx, b)
}

// Splits tells, for rows of b (new versions of rows of leaf), which
// still belong to leaf and which move to another partition.
func (in *Inserter) Splits(b arrow.RecordBatch, leaf *storage.Table) (stays, moves []int32, err error) {
	if in.router == nil {
		stays = make([]int32, b.NumRows())
		for i := range stays {
			stays[i] = int32(i)
		}
		return stays, nil, nil
	}
	leaves, rows, err := in.router.Split(b)
	if err != nil {
		return nil, nil, err
	}
	for _, l := range leaves {
		if l == leaf {
			stays = append(stays, rows[l]...)
		} else {
			moves = append(moves, rows[l]...)
		}
	}
	slices.Sort(stays)
	slices.Sort(moves)
	return stays, moves, nil
}

// Flush sends the rows buffered for foreign tables.
func (in *Inserter) Flush(ctx context.Context) error {
	for _, w := range in.writers {
		if err := w.flush(ctx); err != nil {
			return err
		}
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
