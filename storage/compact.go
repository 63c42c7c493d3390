package storage

// Merging small batches. Every write adds batches: a single-row INSERT
// adds a one-row batch, and a table written so 20,000 times would be
// scanned as 20,000 batches (each with its per-batch cost) if nothing
// merged them. So the lists that become a table's contents (a write set's
// appends and rewritten contents, and the batch list each commit
// publishes) have their runs of small batches merged, much as a binary
// counter carries: going along the list, a batch is merged with the
// group before it while that group has at most twice its rows and the
// two together have at most mergeRows rows and mergeBytes bytes. The
// groups left are a fixpoint (merging the list again changes nothing),
// so a list built by appending to a merged list only merges at its end.
// A row is copied again only into a group at least 1.5 times as large as
// the one it was in, which bounds the copies of each row by
// log1.5(mergeRows)+1 (about 10 on average for single-row writes):
// merging costs amortized O(rows written). In a merged list, batches of
// fewer than mergeRows/2 rows (and mergeBytes/2 bytes) come in runs that
// more than halve from one to the next, so at most log2(mergeRows) of
// them follow each larger batch, whatever the sizes written (were a group
// merged only when no larger than the next, batches of slowly decreasing
// sizes would never merge).
//
// A list is merged only once that removes mergeAfter batches or more: a
// few small batches cost a scan little, and left alone they stay shared
// with the versions before (an UPDATE of one row of a small table copies
// nothing else).
//
// Merging never changes a batch: a merged group is a new batch, and the
// lists that held its parts (an older version of the table, a savepoint's
// copy of the write set, a statement's View) keep them. Row identities
// (ctid: position in a statement's batch list) are per statement and
// therefore unaffected: a statement reads one list throughout, and the
// table's lock (held from the statement's read to the transaction's end
// by UPDATE and DELETE) keeps other commits, and so their merging, off
// the table meanwhile.

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// mergeRows is the most rows a merge makes a batch of; batches this large
// are left alone. It is the executor's batch size, what a scan handles
// at full speed (a variable for tests).
var mergeRows int64 = 64 * 1024

// mergeBytes bounds the size of a merged batch (its values, roughly):
// wide rows gain little from merging, and the executor keeps the string
// arrays it computes well below Arrow's 32-bit offsets.
var mergeBytes int64 = 64 << 20

// mergeAfter is the fewest batches a merge removes (a variable for
// tests).
var mergeAfter = 8

// mergeAlloc allocates merged batches (a variable for tests, which check
// it for leaks).
var mergeAlloc memory.Allocator = memory.DefaultAllocator

// mergeGroup is a run [start, end) of a list's batches that becomes one.
type mergeGroup struct {
	start, end  int
	rows, bytes int64
}

// planMerges returns the groups bs is merged into, in order.
func planMerges(bs []arrow.RecordBatch) []mergeGroup {
	st := make([]mergeGroup, 0, min(len(bs), 64))
	for i, b := range bs {
		st = append(st, mergeGroup{i, i + 1, b.NumRows(), batchBytes(b)})
		for len(st) >= 2 {
			p, c := st[len(st)-2], st[len(st)-1]
			if p.rows > 2*c.rows || p.rows+c.rows > mergeRows || p.bytes+c.bytes > mergeBytes {
				break
			}
			st[len(st)-2] = mergeGroup{p.start, c.end, p.rows + c.rows, p.bytes + c.bytes}
			st = st[:len(st)-1]
		}
	}
	return st
}

// batchBytes is roughly the size of b's values: its strings' bytes, and
// 8 bytes a row for every other column.
func batchBytes(b arrow.RecordBatch) int64 {
	var n int64
	for _, c := range b.Columns() {
		n += 8 * int64(c.Len())
		if s, ok := c.(*array.String); ok && s.Len() > 0 {
			offs := s.ValueOffsets()
			n += int64(offs[len(offs)-1]) - int64(offs[0])
		}
	}
	return n
}

// mergeSmall returns bs with its runs of small batches merged (see the
// file comment). The caller keeps its references to bs; out refers to
// batches of bs (not retained again) and to the merged ones, created,
// whose one reference each goes to the caller; merged lists the batches
// of bs that out no longer holds. When nothing merges, out is bs.
func mergeSmall(schema *arrow.Schema, bs []arrow.RecordBatch) (out, created, merged []arrow.RecordBatch) {
	groups := planMerges(bs)
	if len(bs)-len(groups) < max(mergeAfter, 1) {
		return bs, nil, nil
	}
	out = make([]arrow.RecordBatch, 0, len(groups))
	for _, g := range groups {
		part := bs[g.start:g.end]
		if len(part) == 1 {
			out = append(out, part[0])
			continue
		}
		m := concatBatches(schema, part, g.rows)
		if m == nil {
			out = append(out, part...)
			continue
		}
		out = append(out, m)
		created = append(created, m)
		merged = append(merged, part...)
	}
	if len(created) == 0 {
		return bs, nil, nil
	}
	return out, created, merged
}

// concatBatches copies bs (rows in all) into one batch with schema, or
// returns nil when they cannot be (columns not of the schema's types, or
// text too long for one array's 32-bit offsets: planMerges keeps merged
// batches far below).
func concatBatches(schema *arrow.Schema, bs []arrow.RecordBatch, rows int64) arrow.RecordBatch {
	for _, b := range bs {
		if b.NumCols() != int64(schema.NumFields()) {
			return nil
		}
		for i := range schema.NumFields() {
			if !arrow.TypeEqual(b.Column(i).DataType(), schema.Field(i).Type) {
				return nil
			}
		}
	}
	cols := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	parts := make([]arrow.Array, len(bs))
	for i := range cols {
		for j, b := range bs {
			parts[j] = b.Column(i)
		}
		c, err := array.Concatenate(parts, mergeAlloc)
		if err != nil {
			return nil
		}
		cols[i] = c
	}
	return array.NewRecordBatch(schema, cols, rows)
}
