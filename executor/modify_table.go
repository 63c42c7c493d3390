package executor

// ModifyTable runs INSERT, UPDATE and DELETE on local tables. Its changes
// go into the transaction's write set (ExecContext.Writes), which
// publishes them when the transaction commits, so a failing statement (a
// NOT NULL violation, a row that no partition accepts, an expression
// error) changes nothing. Inserted and updated rows are routed to
// partitions (Inserter). It returns the RETURNING rows, if any, and adds
// the number of affected rows to ExecContext.RowsAffected.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
)

type modifyTable struct {
	plan      *nodes.ModifyTable
	ec        *ExecContext
	child     Operator
	where     evaluator
	sets      []evaluator
	returning []evaluator
	retSchema *arrow.Schema

	results []arrow.RecordBatch // RETURNING output
	done    bool

	// scanStats are the EXPLAIN ANALYZE counters of the scans shown under
	// Update/Delete, per leaf, which this node drives itself; appendStats
	// is the Append above them, if any.
	scanStats   map[*storage.Table]*instrument.NodeStats
	appendStats *instrument.NodeStats

	inserter *Inserter // rows written to the target (INSERT, UPDATE re-routing)
}

func newModifyTable(p *nodes.ModifyTable, ec *ExecContext) (Operator, error) {
	if ec.Writes == nil {
		return nil, pgerr.Internal("executor: ModifyTable without a write set")
	}
	m := &modifyTable{plan: p, ec: ec, inserter: NewInserter(p.Table)}
	var err error
	if p.Op == nodes.Insert {
		if m.child, err = Build(p.Child, ec); err != nil {
			return nil, err
		}
	}
	if p.Where != nil {
		if m.where, err = compileExpr(p.Where, ec); err != nil {
			return nil, err
		}
	}
	if m.sets, err = compileExprs(p.SetExprs, ec); err != nil {
		return nil, err
	}
	if p.Returning != nil {
		if m.returning, err = compileExprs(p.Returning, ec); err != nil {
			return nil, err
		}
		m.retSchema = schemaOf(p.Out)
	}
	if ec.Stats != nil && p.Op != nodes.Insert && p.Child != nil {
		m.scanStats = map[*storage.Table]*instrument.NodeStats{}
		scans := p.Child.Children()
		if s, ok := p.Child.(*nodes.SeqScan); ok {
			scans = []nodes.Plan{s}
		} else {
			m.appendStats = ec.Stats.Node(p.Child.Base().ID)
		}
		for _, s := range scans {
			if ss, ok := s.(*nodes.SeqScan); ok {
				m.scanStats[ss.Table] = ec.Stats.Node(ss.ID)
			}
		}
	}
	return m, nil
}

func (m *modifyTable) Open(ctx context.Context) error {
	if m.child != nil {
		return m.child.Open(ctx)
	}
	return nil
}

func (m *modifyTable) Close() error {
	for _, b := range m.results {
		b.Release()
	}
	m.results = nil
	if m.child != nil {
		return m.child.Close()
	}
	return nil
}

func (m *modifyTable) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !m.done {
		m.done = true
		var err error
		switch m.plan.Op {
		case nodes.Insert:
			err = m.insert(ctx)
		default:
			err = m.updateOrDelete(ctx)
		}
		if err != nil {
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

func (m *modifyTable) insert(ctx context.Context) error {
	for {
		b, err := m.child.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		err = m.inserter.Insert(m.ec.Writes, b)
		if err == nil && m.returning != nil {
			err = m.addReturning(b)
		}
		m.ec.RowsAffected += b.NumRows()
		b.Release()
		if err != nil {
			return err
		}
	}
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

// updateOrDelete rewrites each leaf: unmatched rows stay, matched rows are
// dropped (DELETE) or replaced by their new values, routed again (UPDATE).
func (m *modifyTable) updateOrDelete(ctx context.Context) error {
	// Hold the write locks of every leaf from the snapshot to the commit:
	// rows inserted meanwhile would otherwise be dropped by the
	// replacement. (Rows moving to another partition stay within Leaves.)
	w := m.ec.Writes
	w.Lock(m.plan.Leaves)
	for _, leaf := range m.plan.Leaves {
		w.Replace(leaf)
	}
	if m.appendStats != nil {
		m.appendStats.Loops++
	}
	for _, leaf := range m.plan.Leaves {
		if st := m.scanStats[leaf]; st != nil {
			st.Loops++
		}
		batches := leaf.Snapshot()
		for i, b := range batches {
			err := m.modifyBatch(ctx, leaf, b)
			b.Release()
			if err != nil {
				for _, rest := range batches[i+1:] {
					rest.Release()
				}
				return err
			}
		}
	}
	return nil
}

// modifyBatch rewrites one stored batch of leaf: the rows the WHERE does
// not match are kept, the matched ones are dropped (DELETE) or replaced by
// their new values (UPDATE, routed again).
func (m *modifyTable) modifyBatch(ctx context.Context, leaf *storage.Table, b arrow.RecordBatch) error {
	if err := checkCtx(ctx); err != nil {
		return err
	}
	hit, keep, err := m.matching(b)
	if err != nil {
		return err
	}
	if len(keep) > 0 {
		m.ec.Writes.Append(leaf, storage.Relabel(takeBatch(b, keep), leaf.ArrowSchema()))
	}
	if st := m.scanStats[leaf]; st != nil {
		st.Rows += int64(len(hit))
		if m.where != nil {
			st.RowsRemovedByFilter += int64(len(keep))
		}
		if m.appendStats != nil {
			m.appendStats.Rows += int64(len(hit))
		}
	}
	if len(hit) == 0 {
		return nil
	}
	m.ec.RowsAffected += int64(len(hit))
	old := takeBatch(b, hit)
	defer old.Release()
	if m.plan.Op == nodes.Delete {
		if m.returning != nil {
			return m.addReturning(old)
		}
		return nil
	}
	updated, err := m.newValues(old, leaf)
	if err != nil {
		return err
	}
	defer updated.Release()
	if m.returning != nil {
		if err := m.addReturning(updated); err != nil {
			return err
		}
	}
	if m.plan.Table.Kind != storage.KindPartitioned {
		// Updating a partition directly: the new row must still belong there.
		if err := storage.CheckRows(leaf, updated, true); err != nil {
			return err
		}
		updated.Retain()
		m.ec.Writes.Append(leaf, storage.Relabel(updated, leaf.ArrowSchema()))
		return nil
	}
	// Re-route: a row may move to another partition.
	return m.inserter.Insert(m.ec.Writes, updated)
}

// matching splits the rows of b into those the WHERE matches and the rest.
func (m *modifyTable) matching(b arrow.RecordBatch) (hit, keep []int32, err error) {
	n := int(b.NumRows())
	if m.where == nil {
		hit = make([]int32, n)
		for i := range hit {
			hit[i] = int32(i)
		}
		return hit, nil, nil
	}
	mask, err := m.where.eval(b)
	if err != nil {
		return nil, nil, err
	}
	defer mask.Release()
	bm := mask.(*array.Boolean)
	for i := 0; i < n; i++ {
		if bm.IsValid(i) && bm.Value(i) {
			hit = append(hit, int32(i))
		} else {
			keep = append(keep, int32(i))
		}
	}
	return hit, keep, nil
}

// newValues computes UPDATE's new rows from the old ones.
func (m *modifyTable) newValues(old arrow.RecordBatch, leaf *storage.Table) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, old.NumCols())
	for i := range cols {
		cols[i] = old.Column(i)
		cols[i].Retain()
	}
	for i, ev := range m.sets {
		arr, err := ev.eval(old)
		if err != nil {
			releaseAll(cols)
			return nil, err
		}
		c := m.plan.SetCols[i]
		cols[c].Release()
		cols[c] = arr
	}
	return makeBatch(leaf.ArrowSchema(), cols, int(old.NumRows())), nil
}
