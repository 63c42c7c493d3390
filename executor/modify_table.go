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
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
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

	// UPDATE and DELETE: the local leaves by OID, with the snapshot the
	// child's scans read (equal to theirs: the leaves are locked), and
	// the rows deleted from each; the writers of foreign leaves changed
	// row by row, by OID and operation.
	leaves  map[int64]*leafState
	writers map[writerKey]*foreignWriter
	// The child's columns: the SET values, then tableoid (partitioned
	// targets), ctid, and the whole old row (WholeRow).
	oidCol, ctidCol, wholeCol int
	setTypes                  []types.T
	// changed are the target rows (leaf OID, ctid) changed so far, when
	// the child may repeat them (MayRepeat).
	changed map[[2]int64]struct{}
}

type writerKey struct {
	oid int64
	op  nodes.ModifyOp
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
	m := &modifyTable{plan: p, ec: ec, inserter: NewInserter(p.Table, p.Foreign, ec), writers: map[writerKey]*foreignWriter{}}
	var returned func(arrow.RecordBatch) error
	if p.Returning != nil {
		var err error
		if m.returning, err = compileExprs(p.Returning, ec); err != nil {
			return nil, err
		}
		m.retSchema = schemaOf(p.Out)
		returned = m.addReturning
		if p.Op == nodes.Insert {
			m.inserter.Returning = returned
		}
	}
	// A ForeignModify in the child tells the statement what it changed.
	ec.foreignReturned = returned
	counted := func(n int64) { ec.RowsAffected += n }
	for _, fw := range p.Foreign {
		if fw.Op != nodes.Insert {
			m.writers[writerKey{fw.Table.OID, fw.Op}] = newForeignWriter(fw, ec, returned, counted)
		}
	}
	m.layout()
	var err error
	if m.child, err = Build(p.Child, ec); err != nil {
		return nil, err
	}
	return m, nil
}

// layout finds the child's columns.
func (m *modifyTable) layout() {
	p := m.plan
	for _, c := range p.SetCols {
		m.setTypes = append(m.setTypes, p.Table.Columns[c].Type)
	}
	pos := len(p.SetCols)
	m.oidCol = -1
	if p.Table.Kind == storage.KindPartitioned {
		m.oidCol = pos
		pos++
	}
	m.ctidCol = pos
	m.wholeCol = pos + 1
}

func (m *modifyTable) Open(ctx context.Context) error {
	if m.plan.Op != nodes.Insert {
		// Lock before the child's scans read the tables (which then see
		// the newest committed versions, under READ COMMITTED). Foreign
		// rows are locked remotely, by the scans (FOR UPDATE).
		var local []*storage.Table
		for _, leaf := range m.plan.Leaves {
			if leaf.Kind != storage.KindForeign {
				local = append(local, leaf)
			}
		}
		v := m.ec.View
		if err := v.LockForWrite(ctx, local, m.ec.LockTimeout); err != nil {
			return err
		}
		m.leaves = make(map[int64]*leafState, len(local))
		for _, leaf := range local {
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

// run consumes the child, then sends what is left for foreign tables.
func (m *modifyTable) run(ctx context.Context) error {
	for {
		b, err := m.child.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch {
		case b.NumCols() == 0:
			// A ForeignModify's count of the rows it changed remotely.
		case m.plan.Op == nodes.Insert:
			err = m.inserter.Insert(ctx, m.ec.View.Writes(), b)
		default:
			if m.plan.MayRepeat {
				b = m.firstTimes(b)
			}
			if b != nil {
				err = m.modify(ctx, b)
			}
		}
		if b != nil {
			b.Release()
		}
		if err != nil {
			return err
		}
	}
	for _, w := range m.writers {
		if err := w.flush(ctx); err != nil {
			return err
		}
	}
	if err := m.inserter.Flush(ctx); err != nil {
		return err
	}
	if m.plan.Op == nodes.Insert {
		m.ec.RowsAffected += m.inserter.Affected
	} else {
		m.rewriteLeaves()
	}
	return nil
}

// firstTimes keeps the rows of b whose target row the statement has not
// changed yet (nil if none); it takes over b.
func (m *modifyTable) firstTimes(b arrow.RecordBatch) arrow.RecordBatch {
	ctids := valuesOf[int64](b.Column(m.ctidCol))
	var oids []int64
	if m.oidCol >= 0 {
		oids = valuesOf[int64](b.Column(m.oidCol))
	}
	if m.changed == nil {
		m.changed = map[[2]int64]struct{}{}
	}
	keep := make([]int32, 0, len(ctids))
	for i, c := range ctids {
		key := [2]int64{m.plan.Table.OID, c}
		if oids != nil {
			key[0] = oids[i]
		}
		if _, seen := m.changed[key]; !seen {
			m.changed[key] = struct{}{}
			keep = append(keep, int32(i))
		}
	}
	if len(keep) == len(ctids) {
		return b
	}
	defer b.Release()
	if len(keep) == 0 {
		return nil
	}
	return takeBatch(b, keep)
}

// modify deletes the rows b identifies, and for UPDATE adds their new
// versions.
func (m *modifyTable) modify(ctx context.Context, b arrow.RecordBatch) error {
	ctids := valuesOf[int64](b.Column(m.ctidCol))
	var oids []int64
	if m.oidCol >= 0 {
		oids = valuesOf[int64](b.Column(m.oidCol))
	}
	// Rows of one stored batch arrive together (a scan's batch comes from
	// one stored batch); each run is fetched with one take.
	for start := 0; start < len(ctids); {
		oid := m.plan.Table.OID
		if oids != nil {
			oid = oids[start]
		}
		if m.leaves[oid] == nil {
			end := start + 1
			for end < len(ctids) && oids != nil && oids[end] == oid {
				end++
			}
			if err := m.changeForeign(ctx, oid, b, ctids[start:end], start); err != nil {
				return err
			}
			start = end
			continue
		}
		leaf, batch, end, err := m.nextRun(oids, ctids, start)
		if err != nil {
			return err
		}
		rows := make([]int32, end-start)
		for i := range rows {
			_, r := storage.SplitCtid(ctids[start+i])
			rows[i] = int32(r)
		}
		if err := m.changeRows(ctx, leaf, batch, rows, b, start, end); err != nil {
			return err
		}
		m.ec.RowsAffected += int64(end - start)
		start = end
	}
	return nil
}

// changeForeign changes rows of foreign leaf oid by their remote ctids;
// b holds their new SET values (and old rows) from row from on. An
// updated row of a partitioned target that no longer belongs to its
// partition moves: it is deleted remotely and routed again.
func (m *modifyTable) changeForeign(ctx context.Context, oid int64, b arrow.RecordBatch, ctids []int64, from int) error {
	op := m.plan.Op
	w := m.writers[writerKey{oid, op}]
	if w == nil {
		return pgerr.Internal("executor: row identity of table %d, which the statement does not change", oid)
	}
	if op == nodes.Delete {
		return w.remove(ctx, ctids)
	}
	if m.oidCol < 0 || !m.plan.WholeRow {
		return w.update(ctx, ctids, b, m.setTypes, from)
	}
	old := m.oldRows(b, from, from+len(ctids))
	updated := m.newValues(old, b.NewSlice(int64(from), int64(from+len(ctids))))
	old.Release()
	defer updated.Release()
	stays, moves, err := m.inserter.Splits(updated, w.plan.Table)
	if err != nil {
		return err
	}
	if len(stays) > 0 {
		kept := make([]int64, len(stays))
		for i, r := range stays {
			kept[i] = ctids[r]
		}
		if err := w.update(ctx, kept, takeBatch(b, offsetRows(stays, from)), m.setTypes, 0); err != nil {
			return err
		}
	}
	if len(moves) == 0 {
		return nil
	}
	gone := make([]int64, len(moves))
	for i, r := range moves {
		gone[i] = ctids[r]
	}
	if err := m.writers[writerKey{oid, nodes.Delete}].remove(ctx, gone); err != nil {
		return err
	}
	moved := takeBatch(updated, moves)
	defer moved.Release()
	if m.returning != nil {
		if err := m.addReturning(moved); err != nil {
			return err
		}
	}
	return m.inserter.Insert(ctx, m.ec.View.Writes(), moved)
}

// oldRows are the whole old rows the child gives in rows [from, to).
func (m *modifyTable) oldRows(b arrow.RecordBatch, from, to int) arrow.RecordBatch {
	cols := make([]arrow.Array, len(m.plan.Table.Columns))
	for i := range cols {
		cols[i] = array.NewSlice(b.Column(m.wholeCol+i), int64(from), int64(to))
	}
	return makeBatch(m.plan.Table.ArrowSchema(), cols, to-from)
}

func offsetRows(rows []int32, by int) []int32 {
	out := make([]int32, len(rows))
	for i, r := range rows {
		out[i] = r + int32(by)
	}
	return out
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
func (m *modifyTable) changeRows(ctx context.Context, leaf *leafState, batch int, rows []int32, child arrow.RecordBatch, from, to int) error {
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
	return m.inserter.Insert(ctx, m.ec.View.Writes(), updated)
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
		if l == nil || len(l.deleted) == 0 { // foreign, or untouched
			continue
		}
		var kept []arrow.RecordBatch
		removed := 0
		for i, b := range l.snapshot {
			gone := l.deleted[i]
			removed += len(gone)
			switch {
			case len(gone) == 0:
				b.Retain()
				kept = append(kept, b)
			case len(gone) < int(b.NumRows()):
				kept = append(kept, takeBatch(b, keptRows(int(b.NumRows()), gone)))
			}
		}
		m.ec.View.Writes().Rewrite(l.t, kept, l.seen, removed)
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
