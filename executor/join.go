package executor

// What the join operators share (hash_join.go, nested_loop.go): the
// shapes of their rows, and the batches they build from pairs of row
// indexes (take outer rows, take inner rows, side by side) or from rows
// of one side null-extended on the other.
//
// A join's own rows are its outer row's columns followed by its inner
// row's (nodes/join.go); a semi or anti join's own rows are the outer
// rows alone, while its JoinFilter still reads pairs.

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
)

// joinShape is the schemas of a join's inputs and rows.
type joinShape struct {
	typ   nodes.JoinType
	outer *arrow.Schema // the outer side's rows
	inner *arrow.Schema // the inner side's rows
	pairs *arrow.Schema // outer columns, then inner columns (JoinFilter's input)
	own   *arrow.Schema // the join's own rows: pairs, or outer for semi and anti
}

func newJoinShape(typ nodes.JoinType, outer, inner []nodes.Field) *joinShape {
	s := &joinShape{typ: typ, outer: schemaOf(outer), inner: schemaOf(inner)}
	s.pairs = schemaOf(append(append([]nodes.Field(nil), outer...), inner...))
	s.own = s.pairs
	if typ.OwnRowsAreOuter() {
		s.own = s.outer
	} else if typ.OwnRowsAreInner() {
		s.own = s.inner
	}
	return s
}

// fillOuter: the join returns outer rows that match nothing (null-extended
// for left and full joins, as they are for anti joins).
func fillOuter(t nodes.JoinType) bool {
	return t == nodes.JoinLeft || t == nodes.JoinFull || t == nodes.JoinAnti
}

// fillInner: the join returns inner rows that match nothing (null-extended
// for right and full joins, as they are for right anti joins).
func fillInner(t nodes.JoinType) bool {
	return t == nodes.JoinRight || t == nodes.JoinFull || t == nodes.JoinRightAnti
}

// innerMatches: the join records which inner rows matched (to return
// those that did not, or, for right semi joins, those that did).
func innerMatches(t nodes.JoinType) bool { return fillInner(t) || t == nodes.JoinRightSemi }

// conform returns b under schema s, taking b over: a child's batch
// carries its own field names, while spill files and the join's batches
// need one schema. Columns of other types than the plan says are an
// internal error, never a misread.
func conform(b arrow.RecordBatch, s *arrow.Schema, side string) (arrow.RecordBatch, error) {
	if b.Schema() == s {
		return b, nil
	}
	if err := checkColumns(b, s, side); err != nil {
		b.Release()
		return nil, err
	}
	if b.Schema().Equal(s) {
		return b, nil
	}
	out := array.NewRecordBatch(s, b.Columns(), b.NumRows())
	b.Release()
	return out, nil
}

// checkColumns checks that b's columns have the types of s.
func checkColumns(b arrow.RecordBatch, s *arrow.Schema, side string) error {
	if int(b.NumCols()) != s.NumFields() {
		return pgerr.Internal("executor: the %s side of a join gave %d columns, the plan says %d", side, b.NumCols(), s.NumFields())
	}
	for i, c := range b.Columns() {
		if !arrow.TypeEqual(c.DataType(), s.Field(i).Type) {
			return pgerr.Internal("executor: column %d of the %s side of a join is %s, the plan says %s", i, side, c.DataType(), s.Field(i).Type)
		}
	}
	return nil
}

// indexRun reports whether idx is the run lo, lo+1, ... (so that taking
// those rows is a zero-copy slice).
func indexRun(idx []int32) (lo int, ok bool) {
	if len(idx) == 0 {
		return 0, false
	}
	first := idx[0]
	for k, i := range idx {
		if i != first+int32(k) {
			return 0, false
		}
	}
	return int(first), true
}

// takeColumns appends the rows idx of b's columns to cols.
func takeColumns(cols []arrow.Array, b arrow.RecordBatch, idx []int32) []arrow.Array {
	if lo, ok := indexRun(idx); ok {
		for _, c := range b.Columns() {
			cols = append(cols, array.NewSlice(c, int64(lo), int64(lo+len(idx))))
		}
		return cols
	}
	for _, c := range b.Columns() {
		cols = append(cols, takeArray(c, idx))
	}
	return cols
}

// nullColumns appends all-NULL columns of s's types, n rows each.
func nullColumns(cols []arrow.Array, s *arrow.Schema, n int) []arrow.Array {
	for _, f := range s.Fields() {
		cols = append(cols, array.MakeArrayOfNull(alloc, f.Type, n))
	}
	return cols
}

// pairBatch is the batch of pairs (outer row oi[k], inner row ii[k]).
func (s *joinShape) pairBatch(ob, ib arrow.RecordBatch, oi, ii []int32) arrow.RecordBatch {
	cols := make([]arrow.Array, 0, s.pairs.NumFields())
	cols = takeColumns(cols, ob, oi)
	cols = takeColumns(cols, ib, ii)
	return makeBatch(s.pairs, cols, len(oi))
}

// outerRows is the join's own rows for the outer rows sel, which match
// nothing (left, full and anti joins) or something (semi joins): for
// semi and anti joins the rows themselves, else null-extended.
func (s *joinShape) outerRows(ob arrow.RecordBatch, sel []int32) arrow.RecordBatch {
	cols := make([]arrow.Array, 0, s.own.NumFields())
	cols = takeColumns(cols, ob, sel)
	if !s.typ.OwnRowsAreOuter() {
		cols = nullColumns(cols, s.inner, len(sel))
	}
	return makeBatch(s.own, cols, len(sel))
}

// innerRows is the join's own rows for the inner rows sel, which match
// nothing (right, full and right anti joins) or something (right semi
// joins): for right semi and right anti joins the rows themselves, else
// null-extended on the outer side.
func (s *joinShape) innerRows(ib arrow.RecordBatch, sel []int32) arrow.RecordBatch {
	cols := make([]arrow.Array, 0, s.own.NumFields())
	if !s.typ.OwnRowsAreInner() {
		cols = nullColumns(cols, s.outer, len(sel))
	}
	cols = takeColumns(cols, ib, sel)
	return makeBatch(s.own, cols, len(sel))
}

// outerRowsInPieces appends to out the outerRows of sel, in batches of at
// most size rows.
func (s *joinShape) outerRowsInPieces(out []arrow.RecordBatch, ob arrow.RecordBatch, sel []int32, size int) []arrow.RecordBatch {
	for lo := 0; lo < len(sel); lo += size {
		out = append(out, s.outerRows(ob, sel[lo:min(lo+size, len(sel))]))
	}
	return out
}

// bitmap is a set of row numbers.
type bitmap []uint64

func newBitmap(n int) bitmap    { return make(bitmap, (n+63)/64) }
func (m bitmap) set(i int32)    { m[i>>6] |= 1 << (uint(i) & 63) }
func (m bitmap) has(i int) bool { return m[i>>6]&(1<<(uint(i)&63)) != 0 }
func (m bitmap) bytes() int64   { return int64(len(m)) * 8 }

// setNewShared is setNew for a bitmap other goroutines set at once (a
// Parallel Hash's shared table): each bit is counted by the one that set
// it.
func (m bitmap) setNewShared(idx []int32) int {
	added := 0
	for _, i := range idx {
		w, b := i>>6, uint64(1)<<(uint(i)&63)
		if atomic.LoadUint64(&m[w])&b != 0 {
			continue
		}
		if atomic.OrUint64(&m[w], b)&b == 0 {
			added++
		}
	}
	return added
}

// setNew adds idx to m and returns how many of them were not in it.
func (m bitmap) setNew(idx []int32) int {
	added := 0
	for _, i := range idx {
		w, b := i>>6, uint(i)&63
		added += int(^m[w]>>b) & 1
		m[w] |= 1 << b
	}
	return added
}

// matchedRows appends to sel the rows in [from, n) in m, stopping after
// limit rows; it returns sel and where to continue.
func (m bitmap) matchedRows(sel []int32, from, n, limit int) ([]int32, int) {
	i := from
	for ; i < n && len(sel) < limit; i++ {
		if m[i>>6] == 0 && i&63 == 0 {
			i += 63 // a whole word of unmatched rows
			continue
		}
		if m.has(i) {
			sel = append(sel, int32(i))
		}
	}
	return sel, min(i, n)
}

// unmatchedRows appends to sel the rows in [from, n) not in m, stopping
// after limit rows; it returns sel and where to continue.
func (m bitmap) unmatchedRows(sel []int32, from, n, limit int) ([]int32, int) {
	i := from
	for ; i < n && len(sel) < limit; i++ {
		if w := m[i>>6]; w == ^uint64(0) && i&63 == 0 && i+64 <= n {
			i += 63 // a whole word of matched rows
			continue
		}
		if !m.has(i) {
			sel = append(sel, int32(i))
		}
	}
	return sel, i
}

// filterPairs evaluates a JoinFilter over a batch of pairs: it returns
// the positions of the pairs that pass (all: every one did). removed, if
// set, counts those that did not.
func filterPairs(filter evaluator, pairs arrow.RecordBatch, removed *int64) (sel []int32, all bool, err error) {
	mask, err := filter.eval(pairs)
	if err != nil {
		return nil, false, err
	}
	sel, all = selection(mask.(*array.Boolean))
	mask.Release()
	if removed != nil && !all {
		*removed += pairs.NumRows() - int64(len(sel))
	}
	return sel, all, nil
}

// compactPairs keeps the pairs at positions sel of oi and ii (in place).
func compactPairs(oi, ii []int32, sel []int32) ([]int32, []int32) {
	for k, p := range sel {
		oi[k], ii[k] = oi[p], ii[p]
	}
	return oi[:len(sel)], ii[:len(sel)]
}

// unwrapOperator returns the operator inside an instrumented wrapper.
func unwrapOperator(op Operator) Operator {
	if w, ok := op.(*instrumented); ok {
		return w.Operator
	}
	return op
}
