package executor

// ModifyTable runs INSERT, UPDATE and DELETE on local tables, consuming
// its child. Its changes go into the transaction's write set
// (ExecContext.View), which publishes them when the transaction
// commits, so a failing statement (a NOT NULL violation, a row that no
// partition accepts, an expression error) changes nothing. It returns the
// RETURNING rows, if any, and adds the number of affected rows to
// ExecContext.RowsAffected.
//
// INSERT: the child's rows are complete rows of the target, routed to
// partitions and checked (Inserter).
//
// UPDATE and DELETE: the child scans the rows to change and gives, per
// row, the new values of the SET columns (UPDATE), then the row's
// identity (tableoid for a partitioned target, ctid). Open takes the write
// locks of the scanned leaves before the child's scans take their
// snapshots, and holds them to the end of the transaction, so the
// identities stay valid and no concurrent write is lost. The old row is
// fetched by its identity; an updated row is the old one with the SET
// columns replaced, routed again (it may move to another partition).
// When the child is done, each leaf that lost rows is rewritten: its
// untouched batches are kept as they are (shared), the others without the
// deleted rows, followed by the rows the statement added to it.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
)

type modifyTable struct {
	plan      *nodes.ModifyTable
	ec        *ExecContext
	child     Operator
	returning []evaluator
	retSchema *arrow.Schema

	results []arrow.RecordBatch // RETURNING output
	done    bool

	inserter *Inserter // rows written to the target (INSERT, UPDATE re-routing)

	// UPDATE and DELETE: the leaves by OID, with the snapshot the child's
	// scans read (equal to theirs: the leaves are locked), and the rows
	// deleted from each.
	leaves map[int64]*leafState
}

// leafState is one leaf an UPDATE or DELETE reads.
type leafState struct {
	t        *storage.Table
	snapshot []arrow.RecordBatch // the view's batches of t
	seen     int                 // own earlier appends the view includes
	deleted  map[int][]int32     // stored batch -> rows, in ascending order
}

func newModifyTable(p *nodes.ModifyTable, ec *ExecContext) (Operator, error) {
	if ec.View == nil || ec.View.Writes() == nil {
		return nil, pgerr.Internal("executor: ModifyTable without a write set")
	}
	m := &modifyTable{plan: p, ec: ec, inserter: NewInserter(p.Table)}
	var err error
	if p.Returning != nil {
		if m.returning, err = compileExprs(p.Returning, ec); err != nil {
			return nil, err
		}
		m.retSchema = schemaOf(p.Out)
	}
	if m.child, err = Build(p.Child, ec); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *modifyTable) Open(ctx context.Context) error {
	if m.plan.Op != nodes.Insert {
		// Lock before the child's scans read the tables (which then see
		// the newest committed versions, under READ COMMITTED).
		v := m.ec.View
		if err := v.LockForWrite(ctx, m.plan.Leaves, m.ec.LockTimeout); err != nil {
			return err
		}
		m.leaves = make(map[int64]*leafState, len(m.plan.Leaves))
		for _, leaf := range m.plan.Leaves {
			m.leaves[leaf.OID] = &leafState{t: leaf, snapshot: v.Batches(leaf), seen: v.Seen(leaf), deleted: map[int][]int32{}}
		}
	}
	return m.child.Open(ctx)
}

func (m *modifyTable) Close() error {
	releaseBatches(m.results)
	m.results = nil
	for _, l := range m.leaves {
		releaseBatches(l.snapshot)
	}
	m.leaves = nil
	return m.child.Close()
}

func (m *modifyTable) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !m.done {
		m.done = true
		if err := m.run(ctx); err != nil {
			return nil, err
		}
	}
	if len(m.results) == 0 {
		return nil, io.EOF
	}
	b := m.results[0]
	m.results = m.results[1:]
	return b, nil
}

// run consumes the child.
func (m *modifyTable) run(ctx context.Context) error {
	for {
		b, err := m.child.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if m.plan.Op == nodes.Insert {
			err = m.insert(b)
		} else {
			err = m.modify(b)
		}
		m.ec.RowsAffected += b.NumRows()
		b.Release()
		if err != nil {
			return err
		}
	}
	if m.plan.Op != nodes.Insert {
		m.rewriteLeaves()
	}
	return nil
}

func (m *modifyTable) insert(b arrow.RecordBatch) error {
	if err := m.inserter.Insert(m.ec.View.Writes(), b); err != nil {
		return err
	}
	if m.returning != nil {
		return m.addReturning(b)
	}
	return nil
}

// modify deletes the rows b identifies, and for UPDATE adds their new
// versions.
func (m *modifyTable) modify(b arrow.RecordBatch) error {
	ncols := int(b.NumCols())
	ctids := valuesOf[int64](b.Column(ncols - 1))
	var oids []int64
	if m.plan.Table.Kind == storage.KindPartitioned {
		oids = valuesOf[int64](b.Column(ncols - 2))
	}
	// Rows of one stored batch arrive together (a scan's batch comes from
	// one stored batch); each run is fetched with one take.
	for start := 0; start < len(ctids); {
		leaf, batch, end, err := m.nextRun(oids, ctids, start)
		if err != nil {
			return err
		}
		rows := make([]int32, end-start)
		for i := range rows {
			_, r := storage.SplitCtid(ctids[start+i])
			rows[i] = int32(r)
		}
		if err := m.changeRows(leaf, batch, rows, b, start, end); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// nextRun finds the run of rows from start on that come from one stored
// batch of one leaf, and returns the leaf, the batch and the run's end.
func (m *modifyTable) nextRun(oids, ctids []int64, start int) (*leafState, int, int, error) {
	oid := m.plan.Leaves[0].OID
	if oids != nil {
		oid = oids[start]
	}
	leaf := m.leaves[oid]
	batch, _ := storage.SplitCtid(ctids[start])
	if leaf == nil || batch >= len(leaf.snapshot) {
		return nil, 0, 0, pgerr.Internal("executor: row identity (%d, %d) is not in the target's snapshot", oid, ctids[start])
	}
	end := start + 1
	for end < len(ctids) && (oids == nil || oids[end] == oid) {
		if b, _ := storage.SplitCtid(ctids[end]); b != batch {
			break
		}
		end++
	}
	return leaf, batch, end, nil
}

// changeRows deletes rows of stored batch batch of leaf; child holds their
// new SET values (UPDATE) in rows [from, to).
func (m *modifyTable) changeRows(leaf *leafState, batch int, rows []int32, child arrow.RecordBatch, from, to int) error {
	leaf.deleted[batch] = append(leaf.deleted[batch], rows...)
	old := takeBatch(leaf.snapshot[batch], rows)
	defer old.Release()
	if m.plan.Op == nodes.Delete {
		if m.returning != nil {
			return m.addReturning(old)
		}
		return nil
	}
	updated := m.newValues(old, child.NewSlice(int64(from), int64(to)))
	defer updated.Release()
	if m.returning != nil {
		if err := m.addReturning(updated); err != nil {
			return err
		}
	}
	if m.plan.Table.Kind != storage.KindPartitioned {
		// Updating a partition directly: the new row must still belong there.
		if err := storage.CheckRows(leaf.t, updated, true); err != nil {
			return err
		}
		updated.Retain()
		m.ec.View.Writes().Append(leaf.t, storage.Relabel(updated, leaf.t.ArrowSchema()))
		return nil
	}
	// Re-route: a row may move to another partition.
	return m.inserter.Insert(m.ec.View.Writes(), updated)
}

// newValues is UPDATE's new rows: the old rows with the SET columns taken
// from the child's values (it takes over values).
func (m *modifyTable) newValues(old, values arrow.RecordBatch) arrow.RecordBatch {
	defer values.Release()
	cols := make([]arrow.Array, old.NumCols())
	for i := range cols {
		cols[i] = old.Column(i)
	}
	for i, c := range m.plan.SetCols {
		cols[c] = values.Column(i)
	}
	for _, c := range cols {
		c.Retain()
	}
	return makeBatch(m.plan.Table.ArrowSchema(), cols, int(old.NumRows()))
}

// rewriteLeaves gives each leaf that lost rows its new contents: its
// stored batches without the deleted rows (the untouched ones shared).
func (m *modifyTable) rewriteLeaves() {
	for _, leaf := range m.plan.Leaves {
		l := m.leaves[leaf.OID]
		if len(l.deleted) == 0 {
			continue
		}
		var kept []arrow.RecordBatch
		for i, b := range l.snapshot {
			gone := l.deleted[i]
			switch {
			case len(gone) == 0:
				b.Retain()
				kept = append(kept, b)
			case len(gone) < int(b.NumRows()):
				kept = append(kept, takeBatch(b, keptRows(int(b.NumRows()), gone)))
			}
		}
		m.ec.View.Writes().Rewrite(l.t, kept, l.seen)
	}
}

// keptRows is 0..n-1 without gone (ascending).
func keptRows(n int, gone []int32) []int32 {
	out := make([]int32, 0, n-len(gone))
	j := 0
	for i := int32(0); i < int32(n); i++ {
		if j < len(gone) && gone[j] == i {
			j++
			continue
		}
		out = append(out, i)
	}
	return out
}

func (m *modifyTable) addReturning(b arrow.RecordBatch) error {
	b.Retain()
	out, err := project(b, m.returning, m.retSchema)
	if err != nil {
		return err
	}
	m.results = append(m.results, out)
	return nil
}
