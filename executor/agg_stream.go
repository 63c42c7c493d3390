package executor

// Streaming a hashed Agg over input sorted by one of its group keys. A
// table stored in the order of a column (lineitem loaded by l_orderkey,
// events by time) delivers each value's rows together, so once that key
// moves past a value every group holding the value is complete. A hashed
// Agg whose child is such a scan (sortedSource, checked at Open against
// the very batches the scan will return) therefore returns its groups
// every streamGroups groups, at a change of the sorted key, and starts
// again with an empty table: the table stays small enough to stay in
// cache, and a table of many more groups than work_mem holds neither
// spills rows nor writes partial states (agg_spill.go,
// agg_state_spill.go). ClickHouse calls this aggregation in order;
// PostgreSQL gets the effect from a GroupAggregate over a sorted path.
//
// Exactness: a flush happens only between rows whose sorted key differs,
// after every row with the last key seen, and the key never decreases,
// so no group is ever returned twice. The order the scan promised is
// checked again where batches meet; a batch that breaks it (it cannot,
// the scan's batches being immutable) fails the statement rather than
// return a group twice.
//
// Memory: the table grows to streamGroups groups, or to work_mem x
// hash_mem_multiplier (endBatch's check), then flushes at the next change
// of key. Input batches are taken streamGroups rows at a time, so at most
// that many groups come between two checks. A key whose own groups pass
// work_mem (GROUP BY k, id with few k) cannot be flushed: the Agg then
// aggregates the rest of its input as an ordinary hashed Agg, spilling
// (every group it returned has a smaller key than any to come). The pieces of stored
// batches read their stored arrays' parsed numerics (noteSlices). EXPLAIN ANALYZE shows "Presorted Key: k  Flushes: N".

import (
	"context"
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
)

// streamGroups is the number of groups after which a streaming Agg
// returns its groups (at the next change of the sorted key): 16K groups
// keep the table's slots and keys within a core's L2 cache.
const streamGroups = 16 << 10

// sortedSource is an operator that can say, once open, that its column
// col will arrive with no NULL and never decreasing, batch after batch.
type sortedSource interface {
	sortedOutput(col int) bool
}

var (
	_ sortedSource = (*seqScan)(nil)
	_ sortedSource = (*instrumented)(nil)
)

// sortedOutput: a serial scan without a projection whose stored column
// is of an integer-like type, has no NULL, and never decreases across
// the batches captured at Open. Its filters only remove rows.
func (s *seqScan) sortedOutput(col int) bool {
	if s.shared != nil || s.system || (s.qual != nil && s.qual.targets != nil) || s.pos != 0 {
		return false
	}
	if col < 0 || col >= len(s.plan.Columns) {
		return false
	}
	c := s.plan.Columns[col]
	var w wordOrder
	for _, b := range s.batches {
		if !w.extend(b.Column(c)) {
			return false
		}
	}
	return true
}

func (w *instrumented) sortedOutput(col int) bool {
	src, ok := w.Operator.(sortedSource)
	return ok && src.sortedOutput(col)
}

// wordOrder checks that integer-like arrays, one after another, hold no
// NULL and never decrease.
type wordOrder struct {
	last int64
	seen bool
}

func (w *wordOrder) extend(arr arrow.Array) bool {
	if arr.NullN() > 0 {
		return false
	}
	switch a := arr.(type) {
	case *array.Int16:
		return nonDecreasing(w, a.Int16Values())
	case *array.Int32:
		return nonDecreasing(w, a.Int32Values())
	case *array.Int64:
		return nonDecreasing(w, a.Int64Values())
	case *array.Date32:
		return nonDecreasing(w, a.Date32Values())
	case *array.Timestamp:
		return nonDecreasing(w, a.TimestampValues())
	}
	return false
}

func nonDecreasing[T ~int16 | ~int32 | ~int64](w *wordOrder, vals []T) bool {
	if len(vals) == 0 {
		return true
	}
	prev := vals[0]
	if w.seen && int64(prev) < w.last {
		return false
	}
	for _, v := range vals[1:] {
		if v < prev {
			return false
		}
		prev = v
	}
	w.last, w.seen = int64(prev), true
	return true
}

// wordAt is row i of an integer-like array as an int64.
func wordAt(arr arrow.Array, i int) int64 {
	switch a := arr.(type) {
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Date32:
		return int64(a.Value(i))
	case *array.Timestamp:
		return int64(a.Value(i))
	}
	panic("executor: wordAt of " + arr.DataType().String())
}

// aggStream is a streaming Agg's progress.
type aggStream struct {
	col     int // the child's column of the sorted group key
	name    string
	last    int64 // the sorted key of the last row aggregated
	seen    bool
	pending arrow.RecordBatch // rows read but not yet aggregated
	eof     bool
	flushes int
	// hashing: one key's groups passed work_mem, and the Agg went on as
	// an ordinary (spilling) hashed Agg over the rest of its input.
	hashing bool
}

// errHashRest ends streaming: the groups returned so far all have keys
// below the rest's, so the rest is aggregated the ordinary way.
var errHashRest = errors.New("executor: hash the rest")

// startStream makes a Open a streaming Agg when its child promises the
// order of one of its plain-column group keys.
func (a *aggOp) startStream() {
	a.stream = nil
	src, ok := a.child.(sortedSource)
	if !ok || a.plan.Strategy != nodes.AggHashed || a.gsets != nil || a.combining || a.plan.GroupingSets != nil {
		return
	}
	for _, k := range a.plan.GroupKeys {
		if c, ok := k.(*nodes.ColumnRef); ok && c.T.IsInteger() || ok && c.T.IsDatetime() {
			if src.sortedOutput(c.Index) {
				a.stream = &aggStream{col: c.Index, name: c.Name}
				a.spill.streaming = true
				return
			}
		}
	}
}

// closeStream drops the rows read ahead.
func (a *aggOp) closeStream() {
	if a.stream != nil && a.stream.pending != nil {
		a.stream.pending.Release()
		a.stream.pending = nil
	}
}

// nextStreamed is Next for a streaming Agg.
func (a *aggOp) nextStreamed(ctx context.Context) (arrow.RecordBatch, error) {
	for a.out == nil || a.pos >= a.out.NumRows() {
		if a.stream.eof {
			a.explainSpill()
			return nil, io.EOF
		}
		if err := a.streamUntilFlush(ctx); err == errHashRest {
			a.stream.hashing = true
			if a.out != nil { // returned already
				a.out.Release()
				a.out, a.pos = nil, 0
			}
			return a.Next(ctx)
		} else if err != nil {
			return nil, err
		}
	}
	return a.nextSlice(), nil
}

// streamUntilFlush aggregates input until the groups are due to be
// returned, or the input ends, and makes them a.out.
func (a *aggOp) streamUntilFlush(ctx context.Context) error {
	st := a.stream
	for {
		b := st.pending
		st.pending = nil
		if b == nil {
			var err error
			if b, err = a.child.Next(ctx); err == io.EOF {
				st.eof = true
				return a.streamFlush()
			} else if err != nil {
				return err
			}
			if err := st.checkOrder(b.Column(st.col)); err != nil {
				b.Release()
				return err
			}
		}
		n := int(b.NumRows())
		if due := a.ngroups >= streamGroups || a.spill.flushDue; due && st.seen {
			// Rows continuing the last key join their groups first.
			keys := b.Column(st.col)
			r := 0
			for r < n && wordAt(keys, r) == st.last {
				r++
			}
			if r == n && a.spill.flushDue {
				// One key's groups outgrow work_mem: no flush can split
				// them, so they, and the rest, spill as usual.
				a.spill.streaming, a.spill.flushDue = false, false
				err := a.addBatch(b)
				b.Release()
				if err == nil {
					err = errHashRest
				}
				return err
			}
			if r < n {
				err := a.streamAdd(b, 0, r)
				if err == nil {
					st.pending = pieceOf(b, r, n)
					err = a.streamFlush()
				}
				b.Release()
				return err
			}
		}
		// At most streamGroups new groups before the next check.
		end := min(n, streamGroups)
		if end < n {
			st.pending = pieceOf(b, end, n)
		}
		err := a.streamAdd(b, 0, end)
		b.Release()
		if err != nil {
			return err
		}
	}
}

// pieceOf is rows from .. to of b, reading b's parsed numerics.
func pieceOf(b arrow.RecordBatch, from, to int) arrow.RecordBatch {
	if from == 0 && to == int(b.NumRows()) {
		b.Retain()
		return b
	}
	p := b.NewSlice(int64(from), int64(to))
	noteSlices(b, p, from)
	return p
}

// checkOrder fails a batch that starts below the last key: the order
// within each batch was checked at Open (sortedOutput), over these very
// arrays, so only the seams between batches are checked again.
func (st *aggStream) checkOrder(keys arrow.Array) error {
	if keys.Len() > 0 && st.seen && wordAt(keys, 0) < st.last {
		return pgerr.Internal("executor: the input of a streaming Agg is not sorted by %s", st.name)
	}
	return nil
}

// streamAdd aggregates rows from .. to of b and remembers the last
// sorted key.
func (a *aggOp) streamAdd(b arrow.RecordBatch, from, to int) error {
	if from == to {
		return nil
	}
	piece := pieceOf(b, from, to)
	defer piece.Release()
	if err := a.addBatch(piece); err != nil {
		return err
	}
	st := a.stream
	st.last, st.seen = wordAt(b.Column(st.col), to-1), true
	return nil
}

// streamFlush makes the groups so far a.out and empties the table.
func (a *aggOp) streamFlush() error {
	if a.out != nil {
		a.out.Release()
		a.out = nil
	}
	if err := a.buildResult(); err != nil {
		return err
	}
	out := a.out
	a.out = nil
	discarded(a.spill.estimate(a))
	a.resetGroups()
	a.out, a.pos = out, 0
	a.spill.flushDue = false
	if out != nil && !a.stream.eof {
		a.stream.flushes++
	}
	return a.spill.mem.resize(0)
}
