package executor

// ModifyTable runs INSERT, UPDATE and DELETE on local tables. It computes
// every change first and applies it only when the whole statement has
// succeeded, so a failing statement (a NOT NULL violation, a row that no
// partition accepts, an expression error) changes nothing. Inserted and
// updated rows are routed to partitions. It returns the RETURNING rows,
// if any, and adds the number of affected rows to ExecContext.RowsAffected.

import (
	"context"
	"io"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
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

	router *router // for a partitioned target
}

// router finds the leaf partition of rows of a partitioned table. It is
// built once per statement (the partitions and key types are read once,
// not per row) and tries the partition of the previous row first, since
// inserted data is often clustered.
type router struct {
	t        *storage.Table
	parts    []*storage.Table
	def      *storage.Table
	kts      []types.T
	key      []any
	hash     func([]any) uint64
	children map[*storage.Table]*router
	last     int
}

func newRouter(t *storage.Table) *router {
	r := &router{t: t, kts: t.KeyTypes(), children: map[*storage.Table]*router{}}
	r.key = make([]any, len(t.PartKey.Columns))
	r.hash = func(k []any) uint64 { return storage.HashPartitionKey(r.kts, k) }
	for _, p := range t.Partitions() {
		if p.Bound.Default {
			r.def = p
		} else {
			r.parts = append(r.parts, p)
		}
		if p.Kind == storage.KindPartitioned {
			r.children[p] = newRouter(p)
		}
	}
	return r
}

// intRange is one partition's [lo, hi) on an integer key.
type intRange struct {
	lo, hi int64
	part   *storage.Table
}

// intRanges returns the partitions' bounds when the table is range
// partitioned on one integer column without sub-partitions (the typed
// fast path of routing), or nil.
func (r *router) intRanges() []intRange {
	k := r.t.PartKey
	if k.Strategy != storage.Range || len(k.Columns) != 1 || !r.kts[0].IsInteger() || len(r.children) > 0 || len(r.parts) == 0 {
		return nil
	}
	bound := func(d storage.RangeDatum) int64 {
		switch d.Kind {
		case storage.MinValue:
			return math.MinInt64
		case storage.MaxValue:
			return math.MaxInt64
		}
		return d.Value.(int64)
	}
	out := make([]intRange, len(r.parts))
	for i, p := range r.parts {
		out[i] = intRange{lo: bound(p.Bound.From[0]), hi: bound(p.Bound.To[0]), part: p}
	}
	return out
}

// keyColumns lists the columns any level's partition key reads.
func (r *router) keyColumns() []int {
	seen := map[int]bool{}
	var out []int
	var walk func(r *router)
	walk = func(r *router) {
		for _, c := range r.t.PartKey.Columns {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
		for _, ch := range r.children {
			walk(ch)
		}
	}
	walk(r)
	return out
}

// route returns the leaf for a row (only key columns need be set), or nil.
func (r *router) route(row []any) *storage.Table {
	for i, c := range r.t.PartKey.Columns {
		r.key[i] = row[c]
	}
	var next *storage.Table
	if r.last < len(r.parts) && r.parts[r.last].Bound.Accepts(r.t.PartKey.Strategy, r.kts, r.key, r.hash) {
		next = r.parts[r.last]
	} else {
		for i, p := range r.parts {
			if p.Bound.Accepts(r.t.PartKey.Strategy, r.kts, r.key, r.hash) {
				next, r.last = p, i
				break
			}
		}
	}
	if next == nil {
		next = r.def
	}
	if next == nil {
		return nil
	}
	if ch := r.children[next]; ch != nil {
		return ch.route(row)
	}
	return next
}

func newModifyTable(p *nodes.ModifyTable, ec *ExecContext) (Operator, error) {
	m := &modifyTable{plan: p, ec: ec}
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

// pending collects the new contents per leaf table before they are applied.
type pending struct {
	appends  map[*storage.Table][]arrow.RecordBatch
	replaces map[*storage.Table][]arrow.RecordBatch
	order    []*storage.Table
	// lock takes the tables' write locks for apply; a statement that
	// already holds them (UPDATE, DELETE) sets it to a no-op.
	lock func([]*storage.Table) func()
}

func newPending() *pending {
	return &pending{appends: map[*storage.Table][]arrow.RecordBatch{}, replaces: map[*storage.Table][]arrow.RecordBatch{}, lock: storage.LockWrites}
}

func (p *pending) release() {
	for _, bs := range p.appends {
		for _, b := range bs {
			b.Release()
		}
	}
	for _, bs := range p.replaces {
		for _, b := range bs {
			b.Release()
		}
	}
}

func (p *pending) apply() {
	var ts []*storage.Table
	for t := range p.replaces {
		ts = append(ts, t)
	}
	for t := range p.appends {
		ts = append(ts, t)
	}
	unlock := p.lock(ts)
	defer unlock()
	for t, bs := range p.replaces {
		t.Replace(bs)
	}
	for t, bs := range p.appends {
		t.Append(bs...)
	}
	p.appends, p.replaces = nil, nil
}

func (m *modifyTable) insert(ctx context.Context) error {
	pend := newPending()
	defer func() {
		if pend.appends != nil {
			pend.release()
		}
	}()
	for {
		b, err := m.child.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		err = m.store(pend, b)
		if err == nil && m.returning != nil {
			err = m.addReturning(b)
		}
		m.ec.RowsAffected += b.NumRows()
		b.Release()
		if err != nil {
			return err
		}
	}
	pend.apply()
	return nil
}

// store routes the rows of b (complete rows of the target table) to their
// leaf tables, checking NOT NULL, into pend.appends.
func (m *modifyTable) store(pend *pending, b arrow.RecordBatch) error {
	target := m.plan.Table
	if target.Kind != storage.KindPartitioned {
		if err := checkNotNull(target, b); err != nil {
			return err
		}
		if err := checkPartitionConstraint(target, b); err != nil {
			return err
		}
		pend.appends[target] = append(pend.appends[target], rebatch(target, b))
		return nil
	}
	if m.router == nil || m.router.t != target {
		m.router = newRouter(target)
	}
	rows := map[*storage.Table][]int32{}
	var leaves []*storage.Table
	if fast := m.router.intRanges(); fast != nil {
		col := b.Column(target.PartKey.Columns[0])
		if vals, ok := intKeyValues(col); ok && col.NullN() == 0 {
			last := 0
			for r, v := range vals {
				i := last
				if !(v >= fast[i].lo && v < fast[i].hi) {
					i = -1
					for j, rg := range fast {
						if v >= rg.lo && v < rg.hi {
							i = j
							break
						}
					}
				}
				var leaf *storage.Table
				if i >= 0 {
					leaf, last = fast[i].part, i
				} else {
					leaf = m.router.def
				}
				if leaf == nil {
					break // the general path below reports the error
				}
				if _, ok := rows[leaf]; !ok {
					leaves = append(leaves, leaf)
				}
				rows[leaf] = append(rows[leaf], int32(r))
				if r == len(vals)-1 {
					return m.appendRouted(pend, b, leaves, rows)
				}
			}
			rows, leaves = map[*storage.Table][]int32{}, nil
		}
	}
	row := make([]any, b.NumCols())
	keyCols := m.router.keyColumns()
	for r := 0; r < int(b.NumRows()); r++ {
		for _, c := range keyCols {
			row[c] = DatumAt(b.Column(c), target.Columns[c].Type, r)
		}
		leaf := m.router.route(row)
		if leaf == nil {
			names, vals := partKeyNames(target, row)
			return pgerr.New(pgerr.CheckViolation, "no partition of relation %q found for row", target.Name).
				WithDetail("Partition key of the failing row contains (%s) = (%s).", names, vals)
		}
		if _, ok := rows[leaf]; !ok {
			leaves = append(leaves, leaf)
		}
		rows[leaf] = append(rows[leaf], int32(r))
	}
	return m.appendRouted(pend, b, leaves, rows)
}

// appendRouted adds each leaf's rows of b to pend, checking NOT NULL.
func (m *modifyTable) appendRouted(pend *pending, b arrow.RecordBatch, leaves []*storage.Table, rows map[*storage.Table][]int32) error {
	for _, leaf := range leaves {
		part := takeBatch(b, rows[leaf])
		err := checkNotNull(leaf, part)
		if err == nil {
			pend.appends[leaf] = append(pend.appends[leaf], rebatch(leaf, part))
		}
		part.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// partKeyNames renders the partition key columns and values of a row for
// the "no partition" error: "a, b) = (1, 2" without the outer parentheses.
func partKeyNames(t *storage.Table, row []any) (string, string) {
	names := make([]string, len(t.PartKey.Columns))
	vals := make([]string, len(t.PartKey.Columns))
	for i, c := range t.PartKey.Columns {
		names[i] = t.Columns[c].Name
		if row[c] == nil {
			vals[i] = "null"
		} else {
			vals[i] = types.Format(t.Columns[c].Type, row[c])
		}
	}
	return strings.Join(names, ", "), strings.Join(vals, ", ")
}

// rebatch re-labels b with t's schema (same column types), retaining b.
func rebatch(t *storage.Table, b arrow.RecordBatch) arrow.RecordBatch {
	cols := make([]arrow.Array, b.NumCols())
	for i := range cols {
		cols[i] = b.Column(i)
	}
	return array.NewRecordBatch(t.ArrowSchema(), cols, b.NumRows())
}

// checkPartitionConstraint verifies that rows written directly into a
// partition satisfy its bound (and its ancestors' bounds).
func checkPartitionConstraint(t *storage.Table, b arrow.RecordBatch) error {
	if t.Parent == nil {
		return nil
	}
	row := make([]any, b.NumCols())
	for r := 0; r < int(b.NumRows()); r++ {
		for c := range row {
			row[c] = DatumAt(b.Column(c), t.Columns[c].Type, r)
		}
		for p := t; p.Parent != nil; p = p.Parent {
			if !storage.InPartition(p, row) {
				return pgerr.New(pgerr.CheckViolation, "new row for relation %q violates partition constraint", t.Name).
					WithDetail("Failing row contains (%s).", formatRow(t, b, r))
			}
		}
	}
	return nil
}

func checkNotNull(t *storage.Table, b arrow.RecordBatch) error {
	for c, col := range t.Columns {
		if !col.NotNull || b.Column(c).NullN() == 0 {
			continue
		}
		arr := b.Column(c)
		for r := 0; r < arr.Len(); r++ {
			if arr.IsNull(r) {
				return pgerr.New(pgerr.NotNullViolation, "null value in column %q of relation %q violates not-null constraint", col.Name, t.Name).
					WithDetail("Failing row contains (%s).", formatRow(t, b, r))
			}
		}
	}
	return nil
}

func formatRow(t *storage.Table, b arrow.RecordBatch, r int) string {
	parts := make([]string, b.NumCols())
	for c := range parts {
		d := DatumAt(b.Column(c), t.Columns[c].Type, r)
		if d == nil {
			parts[c] = "null"
		} else {
			parts[c] = types.Format(t.Columns[c].Type, d)
		}
	}
	return strings.Join(parts, ", ")
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
	// Hold the write locks of every leaf from the snapshot to the apply:
	// rows inserted meanwhile would otherwise be dropped by the
	// replacement. (Rows moving to another partition stay within Leaves.)
	unlock := storage.LockWrites(m.plan.Leaves)
	defer unlock()
	pend := newPending()
	pend.lock = func([]*storage.Table) func() { return func() {} }
	defer func() {
		if pend.appends != nil {
			pend.release()
		}
	}()
	for _, leaf := range m.plan.Leaves {
		pend.replaces[leaf] = nil
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
			err := m.modifyBatch(ctx, pend, leaf, b)
			b.Release()
			if err != nil {
				for _, rest := range batches[i+1:] {
					rest.Release()
				}
				return err
			}
		}
	}
	pend.apply()
	return nil
}

func (m *modifyTable) modifyBatch(ctx context.Context, pend *pending, leaf *storage.Table, b arrow.RecordBatch) error {
	if err := checkCtx(ctx); err != nil {
		return err
	}
	n := int(b.NumRows())
	var hit, keep []int32
	if m.where == nil {
		hit = make([]int32, n)
		for i := range hit {
			hit[i] = int32(i)
		}
	} else {
		mask, err := m.where.eval(b)
		if err != nil {
			return err
		}
		bm := mask.(*array.Boolean)
		for i := 0; i < n; i++ {
			if bm.IsValid(i) && bm.Value(i) {
				hit = append(hit, int32(i))
			} else {
				keep = append(keep, int32(i))
			}
		}
		mask.Release()
	}
	if len(keep) > 0 {
		kept := takeBatch(b, keep)
		pend.replaces[leaf] = append(pend.replaces[leaf], rebatch(leaf, kept))
		kept.Release()
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
	cols := make([]arrow.Array, old.NumCols())
	for i := range cols {
		cols[i] = old.Column(i)
		cols[i].Retain()
	}
	for i, ev := range m.sets {
		arr, err := ev.eval(old)
		if err != nil {
			releaseAll(cols)
			return err
		}
		c := m.plan.SetCols[i]
		cols[c].Release()
		cols[c] = arr
	}
	updated := makeBatch(leaf.ArrowSchema(), cols, len(hit))
	defer updated.Release()
	if m.returning != nil {
		if err := m.addReturning(updated); err != nil {
			return err
		}
	}
	if m.plan.Table.Kind != storage.KindPartitioned {
		if err := checkNotNull(leaf, updated); err != nil {
			return err
		}
		pend.replaces[leaf] = append(pend.replaces[leaf], rebatch(leaf, updated))
		return nil
	}
	// Re-route: a row may move to another partition.
	moved := newPending()
	if err := m.store(moved, updated); err != nil {
		moved.release()
		return err
	}
	for t, bs := range moved.appends {
		if _, ok := pend.replaces[t]; ok {
			pend.replaces[t] = append(pend.replaces[t], bs...)
		} else {
			pend.appends[t] = append(pend.appends[t], bs...)
		}
	}
	return nil
}

// InsertBatches stores complete rows of t (batches whose columns have t's
// types), routing them to partitions and checking NOT NULL, all or
// nothing; it takes over the batches. COPY FROM uses it.
func InsertBatches(t *storage.Table, batches []arrow.RecordBatch) (int64, error) {
	m := &modifyTable{plan: &nodes.ModifyTable{Op: nodes.Insert, Table: t}}
	pend := newPending()
	var n int64
	var err error
	for _, b := range batches {
		if err == nil {
			err = m.store(pend, b)
			n += b.NumRows()
		}
		b.Release()
	}
	if err != nil {
		pend.release()
		return 0, err
	}
	pend.apply()
	return n, nil
}
