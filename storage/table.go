package storage

import (
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

	mu       sync.RWMutex
	children []*Table
	// versions are the table's contents as of commits, oldest first (see
	// mvcc.go); the last is the current one.
	versions []tableVersion
	// Statistics (stats.go): computed from the version current then,
	// which held statsRows rows; changes counts the rows commits have
	// inserted or deleted since (an UPDATE both), so that Stats knows
	// when they are stale.
	stats     []ColumnStats
	statsRows int64
	changes   int64
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
	return retained(t.latestLocked().batches)
}

// current returns the table's batches (retained for the caller) and the
// commit they are the version of.
func (t *Table) current() ([]arrow.RecordBatch, uint64) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	v := t.latestLocked()
	return retained(v.batches), v.seq
}

// NumBatches is the number of batches the table's current version holds
// (what a scan of it walks; see compact.go for how writes keep it low).
func (t *Table) NumBatches() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.latestLocked().batches)
}

// SnapshotAt returns the table's batches as of commit seq (the newest
// version at or before it), retained for the caller.
func (t *Table) SnapshotAt(seq uint64) []arrow.RecordBatch {
	t.mu.RLock()
	defer t.mu.RUnlock()
	for i := len(t.versions) - 1; i >= 0; i-- {
		if t.versions[i].seq <= seq {
			return retained(t.versions[i].batches)
		}
	}
	return nil
}

// LastCommit is the sequence number of the commit that last changed the
// table.
func (t *Table) LastCommit() uint64 {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.latestLocked().seq
}

func (t *Table) latestLocked() tableVersion {
	if len(t.versions) == 0 {
		return tableVersion{}
	}
	return t.versions[len(t.versions)-1]
}

func retained(bs []arrow.RecordBatch) []arrow.RecordBatch {
	out := make([]arrow.RecordBatch, len(bs))
	for i, b := range bs {
		b.Retain()
		out[i] = b
	}
	return out
}

// Rows is the number of rows stored (0 for a partitioned table itself).
func (t *Table) Rows() int64 {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.latestLocked().rows
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

// Append adds batches at once, as a commit of its own (the table takes
// over the caller's references). Statements write through a WriteSet.
func (t *Table) Append(bs ...arrow.RecordBatch) {
	clock.commit(func(seq uint64) {
		t.mu.RLock()
		content := append(append([]arrow.RecordBatch(nil), t.latestLocked().batches...), bs...)
		t.mu.RUnlock()
		t.publish(seq, content, rowsOf(bs))
	})
	t.dropOldVersions()
	for _, b := range bs {
		b.Release()
	}
}

// Replace swaps the table's contents for bs at once, as a commit of its
// own (taking over the references).
func (t *Table) Replace(bs []arrow.RecordBatch) {
	clock.commit(func(seq uint64) { t.publish(seq, bs, t.Rows()+rowsOf(bs)) })
	t.dropOldVersions()
	for _, b := range bs {
		b.Release()
	}
}

// publish makes content (the caller keeps its references) the table's
// version of commit seq, which inserted or deleted changed rows. Call
// dropOldVersions once the commit is visible.
func (t *Table) publish(seq uint64, content []arrow.RecordBatch, changed int64) {
	t.mu.Lock()
	t.versions = append(t.versions, newVersion(seq, content))
	t.changes += changed
	t.mu.Unlock()
}

// rowsOf counts the rows of bs.
func rowsOf(bs []arrow.RecordBatch) int64 {
	var n int64
	for _, b := range bs {
		n += b.NumRows()
	}
	return n
}

// dropOldVersions drops the versions no snapshot can read any more: it
// keeps the newest version at or below the oldest snapshot in use, and
// every newer one. It runs after a commit is visible, so that no snapshot
// can still be taken at an older number.
func (t *Table) dropOldVersions() {
	horizon := clock.horizon()
	t.mu.Lock()
	keep := len(t.versions) - 1
	for keep > 0 && t.versions[keep].seq > horizon {
		keep--
	}
	if keep <= 0 { // nothing to drop (while an old snapshot holds on)
		t.mu.Unlock()
		return
	}
	dropped := t.versions[:keep]
	t.versions = append([]tableVersion(nil), t.versions[keep:]...)
	t.mu.Unlock()
	for _, v := range dropped {
		v.release()
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

// release drops the table's data, every version (readers keep the
// batches they took).
func (t *Table) release() {
	t.mu.Lock()
	vs := t.versions
	t.versions = nil
	t.mu.Unlock()
	for _, v := range vs {
		v.release()
	}
}
