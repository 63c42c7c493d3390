package storage

// Rows written into a table: the one partition router (which leaf of a
// partitioned table holds a row, PostgreSQL's ExecFindPartition) and the
// one constraint checker (NOT NULL, partition bounds: ExecConstraints and
// ExecPartitionCheck), shared by INSERT, UPDATE's re-routing and COPY,
// with PostgreSQL's messages.

import (
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// Router finds the leaf partitions of a partitioned table's rows. It is
// built once per statement (the partitions and key types are read once,
// not per row) and tries the partition of the previous row first, since
// written data is often clustered. A Router is used by one goroutine.
type Router struct {
	t        *Table
	parts    []*Table
	def      *Table
	kts      []types.T
	key      []any
	hash     func([]any) uint64
	children map[*Table]*Router
	last     int
	ranges   []intRange // the typed fast path, if it applies
}

// NewRouter returns the router of partitioned table t.
func NewRouter(t *Table) *Router {
	r := &Router{t: t, kts: t.KeyTypes(), children: map[*Table]*Router{}}
	r.key = make([]any, len(t.PartKey.Columns))
	r.hash = func(k []any) uint64 { return HashPartitionKey(r.kts, k) }
	for _, p := range t.Partitions() {
		if p.Bound.Default {
			r.def = p
		} else {
			r.parts = append(r.parts, p)
		}
		if p.Kind == KindPartitioned {
			r.children[p] = NewRouter(p)
		}
	}
	r.ranges = r.intRanges()
	return r
}

// intRange is one partition's [lo, hi) on an integer key.
type intRange struct {
	lo, hi int64
	part   *Table
}

// intRanges returns the partitions' bounds when the table is range
// partitioned on one integer column without sub-partitions (the typed
// fast path of routing), or nil.
func (r *Router) intRanges() []intRange {
	k := r.t.PartKey
	if k.Strategy != Range || len(k.Columns) != 1 || !r.kts[0].IsInteger() || len(r.children) > 0 || len(r.parts) == 0 {
		return nil
	}
	bound := func(d RangeDatum) int64 {
		switch d.Kind {
		case MinValue:
			return math.MinInt64
		case MaxValue:
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
func (r *Router) keyColumns() []int {
	seen := map[int]bool{}
	var out []int
	var walk func(r *Router)
	walk = func(r *Router) {
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

// Route returns the leaf for a row (only the key columns need be set),
// or nil when no partition accepts it.
func (r *Router) Route(row []any) *Table {
	for i, c := range r.t.PartKey.Columns {
		r.key[i] = row[c]
	}
	var next *Table
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
		return ch.Route(row)
	}
	return next
}

// Split routes the rows of b (complete rows of the router's table) to
// their leaves: the leaves in the order their first row came, and each
// leaf's row numbers. A row no partition accepts is a RowError.
func (r *Router) Split(b arrow.RecordBatch) ([]*Table, map[*Table][]int32, error) {
	if leaves, rows, ok := r.splitIntRanges(b); ok {
		return leaves, rows, nil
	}
	rows := map[*Table][]int32{}
	var leaves []*Table
	row := make([]any, b.NumCols())
	keyCols := r.keyColumns()
	for i := 0; i < int(b.NumRows()); i++ {
		for _, c := range keyCols {
			row[c] = types.DatumAt(b.Column(c), r.t.Columns[c].Type, i)
		}
		leaf := r.Route(row)
		if leaf == nil {
			return nil, nil, &RowError{Row: i, Err: noPartitionError(r.t, row)}
		}
		if _, ok := rows[leaf]; !ok {
			leaves = append(leaves, leaf)
		}
		rows[leaf] = append(rows[leaf], int32(i))
	}
	return leaves, rows, nil
}

// splitIntRanges is Split's typed fast path for a single integer range
// key without NULLs; ok is false when it does not apply or a row has no
// partition (the general path then reports it).
func (r *Router) splitIntRanges(b arrow.RecordBatch) ([]*Table, map[*Table][]int32, bool) {
	if r.ranges == nil {
		return nil, nil, false
	}
	col := b.Column(r.t.PartKey.Columns[0])
	vals, ok := intValues(col)
	if !ok || col.NullN() > 0 {
		return nil, nil, false
	}
	rows := map[*Table][]int32{}
	var leaves []*Table
	last := 0
	for i, v := range vals {
		j := last
		if !(v >= r.ranges[j].lo && v < r.ranges[j].hi) {
			j = -1
			for k, rg := range r.ranges {
				if v >= rg.lo && v < rg.hi {
					j = k
					break
				}
			}
		}
		leaf := r.def
		if j >= 0 {
			leaf, last = r.ranges[j].part, j
		}
		if leaf == nil {
			return nil, nil, false
		}
		if _, ok := rows[leaf]; !ok {
			leaves = append(leaves, leaf)
		}
		rows[leaf] = append(rows[leaf], int32(i))
	}
	return leaves, rows, true
}

// intValues returns an integer column's values widened to int64.
func intValues(arr arrow.Array) ([]int64, bool) {
	switch a := arr.(type) {
	case *array.Int64:
		return a.Int64Values(), true
	case *array.Int32:
		return widen(a.Int32Values()), true
	case *array.Int16:
		return widen(a.Int16Values()), true
	}
	return nil, false
}

func widen[T int16 | int32](vs []T) []int64 {
	out := make([]int64, len(vs))
	for i, v := range vs {
		out[i] = int64(v)
	}
	return out
}

// RowError is a constraint violation by row Row of a batch being
// written; COPY turns the row number into its input line.
type RowError struct {
	Row int
	Err error
}

func (e *RowError) Error() string { return e.Err.Error() }
func (e *RowError) Unwrap() error { return e.Err }

// noPartitionError is PostgreSQL's error for a row of partitioned table
// t that no partition accepts.
func noPartitionError(t *Table, row []any) error {
	names := make([]string, len(t.PartKey.Columns))
	vals := make([]string, len(t.PartKey.Columns))
	for i, c := range t.PartKey.Columns {
		names[i] = t.Columns[c].Name
		vals[i] = formatDatum(t.Columns[c].Type, row[c])
	}
	return pgerr.New(pgerr.CheckViolation, "no partition of relation %q found for row", t.Name).
		WithDetail("Partition key of the failing row contains (%s) = (%s).", strings.Join(names, ", "), strings.Join(vals, ", "))
}

// CheckRows verifies complete rows b of leaf table t: NOT NULL, and, for
// a partition written directly, its bound and its ancestors' (rows routed
// from a parent satisfy them by construction: checkBounds false). The
// first violation is a RowError.
func CheckRows(t *Table, b arrow.RecordBatch, checkBounds bool) error {
	for c, col := range t.Columns {
		arr := b.Column(c)
		if !col.NotNull || arr.NullN() == 0 {
			continue
		}
		for i := 0; i < arr.Len(); i++ {
			if arr.IsNull(i) {
				return &RowError{Row: i, Err: pgerr.New(pgerr.NotNullViolation, "null value in column %q of relation %q violates not-null constraint", col.Name, t.Name).
					WithDetail("Failing row contains (%s).", FormatRow(t, b, i))}
			}
		}
	}
	if !checkBounds || t.Parent == nil {
		return nil
	}
	row := make([]any, b.NumCols())
	for i := 0; i < int(b.NumRows()); i++ {
		for c := range row {
			row[c] = types.DatumAt(b.Column(c), t.Columns[c].Type, i)
		}
		for p := t; p.Parent != nil; p = p.Parent {
			if !InPartition(p, row) {
				return &RowError{Row: i, Err: pgerr.New(pgerr.CheckViolation, "new row for relation %q violates partition constraint", t.Name).
					WithDetail("Failing row contains (%s).", FormatRow(t, b, i))}
			}
		}
	}
	return nil
}

// FormatRow prints row i of b as PostgreSQL's "Failing row contains"
// DETAIL does.
func FormatRow(t *Table, b arrow.RecordBatch, i int) string {
	parts := make([]string, b.NumCols())
	for c := range parts {
		parts[c] = formatDatum(t.Columns[c].Type, types.DatumAt(b.Column(c), t.Columns[c].Type, i))
	}
	return strings.Join(parts, ", ")
}

func formatDatum(t types.T, d any) string {
	if d == nil {
		return "null"
	}
	return types.Format(t, d)
}

// Relabel gives b's first columns another schema with the same column
// types (a table's names, a result's), dropping the columns beyond it (a
// plan's sort-only columns); it takes over b, and copies no data.
func Relabel(b arrow.RecordBatch, schema *arrow.Schema) arrow.RecordBatch {
	if b.Schema().Equal(schema) {
		return b
	}
	cols := make([]arrow.Array, schema.NumFields())
	for i := range cols {
		cols[i] = b.Column(i)
	}
	nb := array.NewRecordBatch(schema, cols, b.NumRows())
	b.Release()
	return nb
}
