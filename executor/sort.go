package executor

// Sort reads its whole input, evaluates the sort keys, sorts row indexes
// with a comparator specialised per key type, and returns the rows in
// order in batches. With a bound (LIMIT above), only the first Bound rows
// are returned. NULLs sort as PostgreSQL's: last for ASC, first for DESC,
// unless NULLS FIRST/LAST says otherwise. Cancellation is checked by the
// child between input batches.

import (
	"context"
	"io"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

type sortOp struct {
	plan  *nodes.Sort
	ec    *ExecContext
	child Operator
	keys  []evaluator

	out *sortedRows
}

type sortedRows struct {
	data  arrow.RecordBatch
	order []int32
	pos   int
}

func newSort(p *nodes.Sort, ec *ExecContext) (Operator, error) {
	child, err := Build(p.Child, ec)
	if err != nil {
		return nil, err
	}
	s := &sortOp{plan: p, ec: ec, child: child}
	for _, k := range p.Keys {
		ev, err := compileExpr(k.Expr, ec)
		if err != nil {
			child.Close()
			return nil, err
		}
		s.keys = append(s.keys, ev)
	}
	return s, nil
}

func (s *sortOp) Open(ctx context.Context) error {
	s.release()
	return s.child.Open(ctx)
}

func (s *sortOp) release() {
	if s.out != nil {
		s.out.data.Release()
		s.out = nil
	}
}

func (s *sortOp) Close() error {
	s.release()
	return s.child.Close()
}

func (s *sortOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.out == nil {
		if err := s.sortInput(ctx); err != nil {
			return nil, err
		}
	}
	o := s.out
	if o.data == nil || o.pos >= len(o.order) {
		return nil, io.EOF
	}
	end := min(o.pos+s.ec.BatchSize, len(o.order))
	b := takeBatch(o.data, o.order[o.pos:end])
	o.pos = end
	return b, nil
}

func (s *sortOp) sortInput(ctx context.Context) error {
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	for {
		b, err := s.child.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		batches = append(batches, b)
	}
	s.out = &sortedRows{}
	if len(batches) == 0 {
		return nil
	}
	data, err := concatBatches(batches)
	if err != nil {
		return err
	}
	s.out.data = data
	n := int(data.NumRows())
	keys := make([]arrow.Array, len(s.keys))
	defer releaseAll(keys)
	for i, ev := range s.keys {
		if keys[i], err = ev.eval(data); err != nil {
			return err
		}
	}
	cmps := make([]func(a, b int32) int, len(keys))
	for i, k := range s.plan.Keys {
		cmps[i] = keyComparator(keys[i], k)
	}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		for _, c := range cmps {
			if r := c(a, b); r != 0 {
				return r
			}
		}
		return 0
	})
	if s.plan.Bound > 0 && int64(len(order)) > s.plan.Bound {
		order = order[:s.plan.Bound]
	}
	s.out.order = order
	return nil
}

// concatBatches joins batches of one schema into one batch.
func concatBatches(bs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(bs) == 1 {
		bs[0].Retain()
		return bs[0], nil
	}
	ncols := int(bs[0].NumCols())
	cols := make([]arrow.Array, ncols)
	var rows int64
	for _, b := range bs {
		rows += b.NumRows()
	}
	for c := 0; c < ncols; c++ {
		parts := make([]arrow.Array, len(bs))
		for i, b := range bs {
			parts[i] = b.Column(c)
		}
		arr, err := array.Concatenate(parts, alloc)
		if err != nil {
			releaseAll(cols)
			return nil, err
		}
		cols[c] = arr
	}
	return makeBatch(bs[0].Schema(), cols, int(rows)), nil
}

// keyComparator compares two rows of arr under one sort key.
func keyComparator(arr arrow.Array, k nodes.SortKey) func(a, b int32) int {
	t := k.Expr.Type()
	valid := validity(arr)
	var cmp func(a, b int32) int
	switch t.ID {
	case types.Int8, types.Timestamp, types.TimestampTZ:
		v := valuesOf[int64](arr)
		cmp = func(a, b int32) int { return cmpOrdered(v[a], v[b]) }
	case types.Int4, types.Date:
		v := valuesOf[int32](arr)
		cmp = func(a, b int32) int { return cmpOrdered(v[a], v[b]) }
	case types.Int2:
		v := valuesOf[int16](arr)
		cmp = func(a, b int32) int { return cmpOrdered(v[a], v[b]) }
	case types.Text, types.Varchar:
		sa := arr.(*array.String)
		cmp = func(a, b int32) int { return strings.Compare(sa.Value(int(a)), sa.Value(int(b))) }
	default:
		cmp = func(a, b int32) int {
			return types.Compare(t, DatumAt(arr, t, int(a)), DatumAt(arr, t, int(b)))
		}
	}
	desc, nullsFirst := k.Desc, k.NullsFirst
	return func(a, b int32) int {
		if valid != nil {
			an, bn := !isValid(valid, int(a)), !isValid(valid, int(b))
			if an || bn {
				switch {
				case an && bn:
					return 0
				case an == nullsFirst:
					return -1
				default:
					return 1
				}
			}
		}
		r := cmp(a, b)
		if desc {
			return -r
		}
		return r
	}
}

func cmpOrdered[T int16 | int32 | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
