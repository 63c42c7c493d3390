package storage

import (
	"sort"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/types"
)

// Column is a table column.
type Column struct {
	Name    string
	Type    types.T
	NotNull bool
	// Default is the DEFAULT expression as SQL text ("" for none); the
	// planner parses it where a row needs it.
	Default string
	// DefaultDisplay is the analyzed default as \d shows it
	// ('none'::text, (6 * 7)).
	DefaultDisplay string
}

// Kind tells regular tables from partitioned ones.
type Kind uint8

const (
	KindTable Kind = iota
	KindPartitioned
	KindForeign
)

// Table is a local table or a partitioned table (which holds no rows
// itself: its partitions do).
type Table struct {
	Schema  string
	Name    string
	Columns []Column
	Kind    Kind
	// OID identifies the table while it is in a catalog (its tableoid
	// system column); the catalog assigns it.
	OID int64

	// Partitioning: set on partitioned tables.
	PartKey *PartitionKey
	// Partition membership: set on partitions.
	Parent *Table
	Bound  *PartitionBound

	// Foreign is set on foreign tables (KindForeign); their rows live on
	// a remote server.
	Foreign *ForeignTable

	arrowSchema *arrow.Schema

	// writeMu serializes statements that change the table: UPDATE and
	// DELETE hold it from their snapshot to the replacement of the table's
	// contents, so that rows another statement appends in between are not
	// lost. Take several with LockWrites (a fixed order avoids deadlock).
	writeMu sync.Mutex

	mu       sync.RWMutex
	children []*Table
	batches  []arrow.RecordBatch
	rows     int64
	stats    []ColumnStats // nil until computed, reset by writes
}

// NewTable makes an empty table.
func NewTable(schema, name string, cols []Column) *Table {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.ArrowType(), Nullable: !c.NotNull}
	}
	return &Table{Schema: schema, Name: name, Columns: cols, arrowSchema: arrow.NewSchema(fields, nil)}
}

// QualifiedName is schema.name.
func (t *Table) QualifiedName() string { return t.Schema + "." + t.Name }

// ArrowSchema is the schema of the table's batches.
func (t *Table) ArrowSchema() *arrow.Schema { return t.arrowSchema }

// ColumnIndex returns the index of the named column, or -1.
func (t *Table) ColumnIndex(name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Snapshot returns the table's batches, each retained for the caller.
func (t *Table) Snapshot() []arrow.RecordBatch {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]arrow.RecordBatch, len(t.batches))
	for i, b := range t.batches {
		b.Retain()
		out[i] = b
	}
	return out
}

// Rows is the number of rows stored (0 for a partitioned table itself).
func (t *Table) Rows() int64 {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.rows
}

// TotalRows counts rows in the table and, for a partitioned table, in all
// its partitions.
func (t *Table) TotalRows() int64 {
	n := t.Rows()
	for _, c := range t.Partitions() {
		n += c.TotalRows()
	}
	return n
}

// Append adds batches (the table takes over the caller's references).
func (t *Table) Append(bs ...arrow.RecordBatch) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stats = nil
	for _, b := range bs {
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		t.batches = append(t.batches, b)
		t.rows += b.NumRows()
	}
}

// Replace swaps the table's contents for bs (taking over the references)
// and releases the old batches.
func (t *Table) Replace(bs []arrow.RecordBatch) {
	t.mu.Lock()
	old := t.batches
	t.batches = nil
	t.rows = 0
	t.stats = nil
	for _, b := range bs {
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		t.batches = append(t.batches, b)
		t.rows += b.NumRows()
	}
	t.mu.Unlock()
	for _, b := range old {
		b.Release()
	}
}

// Partitions lists a partitioned table's partitions in creation order.
func (t *Table) Partitions() []*Table {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return append([]*Table(nil), t.children...)
}

func (t *Table) addPartition(c *Table) {
	t.mu.Lock()
	t.children = append(t.children, c)
	t.mu.Unlock()
}

func (t *Table) removePartition(c *Table) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, x := range t.children {
		if x == c {
			t.children = append(t.children[:i], t.children[i+1:]...)
			return
		}
	}
}

// System columns: scans read them at these negative column numbers, as
// PostgreSQL numbers system attributes. They are not user-visible names;
// UPDATE and DELETE read them to find the rows they change.
const (
	// CtidColumn is a row's identity within its table: the position of
	// its batch in the table's batch list (shifted left 32 bits) plus its
	// row in the batch. It stays valid while the table's write lock is
	// held.
	CtidColumn = -1
	// TableOIDColumn is the OID of the table a row is in (the leaf, for a
	// partitioned table).
	TableOIDColumn = -2
)

// SystemColumn returns the name and type of a system column.
func SystemColumn(c int) (string, types.T) {
	if c == TableOIDColumn {
		return "tableoid", types.Int8T
	}
	return "ctid", types.Int8T
}

// ColumnName is the name of column c, a system column's too.
func (t *Table) ColumnName(c int) string {
	if c < 0 {
		name, _ := SystemColumn(c)
		return name
	}
	return t.Columns[c].Name
}

// ColumnType is the type of column c, a system column's too.
func (t *Table) ColumnType(c int) types.T {
	if c < 0 {
		_, typ := SystemColumn(c)
		return typ
	}
	return t.Columns[c].Type
}

// Ctid makes a row identity.
func Ctid(batch, row int) int64 { return int64(batch)<<32 | int64(row) }

// SplitCtid returns a row identity's batch and row.
func SplitCtid(id int64) (batch, row int) { return int(id >> 32), int(uint32(id)) }

// Leaves returns the tables that hold t's rows: its leaf partitions, or
// t itself when it is not partitioned.
func (t *Table) Leaves() []*Table {
	if t.Kind != KindPartitioned {
		return []*Table{t}
	}
	var out []*Table
	for _, p := range t.Partitions() {
		out = append(out, p.Leaves()...)
	}
	return out
}

// LockWrites takes the write locks of tables in a canonical order (by
// qualified name) and returns the function that releases them.
func LockWrites(tables []*Table) (unlock func()) {
	ts := append([]*Table(nil), tables...)
	sort.Slice(ts, func(i, j int) bool { return ts[i].QualifiedName() < ts[j].QualifiedName() })
	n := 0
	for i, t := range ts {
		if i > 0 && t == ts[n-1] {
			continue
		}
		ts[n] = t
		n++
	}
	ts = ts[:n]
	for _, t := range ts {
		t.writeMu.Lock()
	}
	return func() {
		for i := len(ts) - 1; i >= 0; i-- {
			ts[i].writeMu.Unlock()
		}
	}
}

// release drops the table's data.
func (t *Table) release() { t.Replace(nil) }
