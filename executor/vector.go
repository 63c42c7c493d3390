package executor

// Helpers that move values between Arrow arrays and the datum convention
// of package types, and that select rows out of batches. The per-row
// loops live here so that node code stays batch-shaped.

import (
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// alloc is the allocator of every array the executor builds.
var alloc = memory.DefaultAllocator

// newBuilder returns a builder for arrays of SQL type t.
func newBuilder(t types.T) array.Builder {
	return array.NewBuilder(alloc, t.ArrowType())
}

// appendDatum appends d (nil = NULL) of type t to b.
func appendDatum(b array.Builder, t types.T, d any) {
	if d == nil {
		b.AppendNull()
		return
	}
	switch bb := b.(type) {
	case *array.Int64Builder:
		bb.Append(d.(int64))
	case *array.Int32Builder:
		bb.Append(int32(d.(int64)))
	case *array.Int16Builder:
		bb.Append(int16(d.(int64)))
	case *array.Float64Builder:
		bb.Append(d.(float64))
	case *array.Float32Builder:
		bb.Append(float32(d.(float64)))
	case *array.BooleanBuilder:
		bb.Append(d.(bool))
	case *array.StringBuilder:
		if t.ID == types.Numeric {
			bb.Append(types.Format(t, d))
		} else {
			bb.Append(d.(string))
		}
	case *array.Date32Builder:
		bb.Append(arrow.Date32(d.(int32)))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(d.(int64)))
	case *array.MonthDayNanoIntervalBuilder:
		// types keeps the time part within what nanoseconds hold.
		iv := d.(types.Interval)
		bb.Append(arrow.MonthDayNanoInterval{Months: iv.Months, Days: iv.Days, Nanoseconds: iv.Micros * 1000})
	default:
		panic(fmt.Sprintf("executor: unsupported builder %T", b))
	}
}

// arrayOfDatums builds an array of type t from datums.
func arrayOfDatums(t types.T, ds []any) arrow.Array {
	b := newBuilder(t)
	defer b.Release()
	b.Reserve(len(ds))
	for _, d := range ds {
		appendDatum(b, t, d)
	}
	return b.NewArray()
}

// constArray builds an array of n copies of d.
func constArray(t types.T, d any, n int) arrow.Array {
	b := newBuilder(t)
	defer b.Release()
	b.Reserve(n)
	if d == nil {
		b.AppendNulls(n)
		return b.NewArray()
	}
	switch bb := b.(type) {
	case *array.Int64Builder:
		v := d.(int64)
		for i := 0; i < n; i++ {
			bb.UnsafeAppend(v)
		}
	case *array.Int32Builder:
		v := int32(d.(int64))
		for i := 0; i < n; i++ {
			bb.UnsafeAppend(v)
		}
	case *array.Float64Builder:
		v := d.(float64)
		for i := 0; i < n; i++ {
			bb.UnsafeAppend(v)
		}
	default:
		for i := 0; i < n; i++ {
			appendDatum(b, t, d)
		}
	}
	return b.NewArray()
}

// schemaOf makes the Arrow schema of a node's output.
func schemaOf(fields []nodes.Field) *arrow.Schema {
	fs := make([]arrow.Field, len(fields))
	for i, f := range fields {
		fs[i] = arrow.Field{Name: f.Name, Type: f.T.ArrowType(), Nullable: true}
	}
	return arrow.NewSchema(fs, nil)
}

// makeBatch assembles a batch from cols, taking over their references.
func makeBatch(schema *arrow.Schema, cols []arrow.Array, n int) arrow.RecordBatch {
	b := array.NewRecordBatch(schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return b
}

// appendSetRows appends to sel the indexes below n of the bits set in
// bm, a byte of bitmap at a time.
func appendSetRows(sel []int32, bm []byte, n int) []int32 {
	for j, d := range bm[:bitutil.BytesForBits(int64(n))] {
		for ; d != 0; d &= d - 1 {
			i := j*8 + bits.TrailingZeros8(d)
			if i >= n {
				return sel
			}
			sel = append(sel, int32(i))
		}
	}
	return sel
}

// selection returns the indexes of the rows where mask is true (NULL counts
// as false), or nil and all=true when every row is selected.
func selection(mask *array.Boolean) (sel []int32, all bool) {
	n := mask.Len()
	if mask.NullN() == 0 {
		bits := mask.Data().Buffers()[1].Bytes()
		off := mask.Data().Offset()
		cnt := bitutil.CountSetBits(bits, off, n)
		if cnt == n {
			return nil, true
		}
		sel = make([]int32, 0, cnt)
		if off == 0 {
			return appendSetRows(sel, bits, n), false
		}
		for i := 0; i < n; i++ {
			j := i + off
			if bits[j>>3]&(1<<(j&7)) != 0 {
				sel = append(sel, int32(i))
			}
		}
		return sel, false
	}
	for i := 0; i < n; i++ {
		if mask.IsValid(i) && mask.Value(i) {
			sel = append(sel, int32(i))
		}
	}
	return sel, len(sel) == n
}

// takeArray returns the rows sel of arr, in that order.
func takeArray(arr arrow.Array, sel []int32) arrow.Array {
	switch a := arr.(type) {
	case *array.Int64, *array.Timestamp:
		return takeFixed[int64](a, sel)
	case *array.Int32, *array.Date32:
		return takeFixed[int32](a, sel)
	case *array.Int16:
		return takeFixed[int16](a, sel)
	case *array.Float64:
		return takeFixed[float64](a, sel)
	case *array.Float32:
		return takeFixed[float32](a, sel)
	case *array.String:
		return takeStrings(a, sel) // filter_kernels.go
	case *array.Boolean:
		return takeBuilt(a, array.NewBooleanBuilder(alloc), sel)
	case *array.MonthDayNanoInterval:
		return takeBuilt(a, array.NewMonthDayNanoIntervalBuilder(alloc), sel)
	case *array.Null:
		return array.NewNull(len(sel))
	}
	panic(fmt.Sprintf("executor: take of %T", arr))
}

// takeBuilt gathers the rows sel of an array whose values are not a
// plain buffer (bits, structs) through a builder.
func takeBuilt[V any, A interface {
	IsNull(int) bool
	Value(int) V
}, B interface {
	Reserve(int)
	AppendNull()
	UnsafeAppend(V)
	NewArray() arrow.Array
	Release()
}](a A, b B, sel []int32) arrow.Array {
	defer b.Release()
	b.Reserve(len(sel))
	for _, i := range sel {
		if a.IsNull(int(i)) {
			b.AppendNull()
		} else {
			b.UnsafeAppend(a.Value(int(i)))
		}
	}
	return b.NewArray()
}

// takeFixed gathers the rows sel of a fixed-width array straight into a
// new values buffer (and bitmap, if arr has NULLs): one tight loop, no
// builder calls per row.
func takeFixed[T fixedWidth](arr arrow.Array, sel []int32) arrow.Array {
	vals := valuesOf[T](arr)
	out := make([]T, len(sel))
	for j, i := range sel {
		out[j] = vals[i]
	}
	var valid []byte
	nulls := 0
	if src := validity(arr); src != nil {
		valid = make([]byte, bitutil.BytesForBits(int64(len(sel))))
		for j, i := range sel {
			if isValid(src, int(i)) {
				valid[j>>3] |= 1 << (j & 7)
			} else {
				nulls++
			}
		}
	}
	return newFixedArray(arr.DataType(), out, valid, nulls)
}

// takeBatch returns the rows sel of b as a new batch.
func takeBatch(b arrow.RecordBatch, sel []int32) arrow.RecordBatch {
	cols := make([]arrow.Array, b.NumCols())
	for i := range cols {
		cols[i] = takeArray(b.Column(i), sel)
	}
	return makeBatch(b.Schema(), cols, len(sel))
}

// ArrayOfDatums builds an array of type t from datums (nil = NULL).
func ArrayOfDatums(t types.T, ds []any) arrow.Array { return arrayOfDatums(t, ds) }

// MakeBatch assembles a batch, taking over the column references.
func MakeBatch(schema *arrow.Schema, cols []arrow.Array, n int) arrow.RecordBatch {
	return makeBatch(schema, cols, n)
}
