package executor

// Low-level constructors for result arrays: kernels fill plain Go slices
// and bitmaps in tight loops, then wrap them as Arrow arrays without a
// builder in between.

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/pgerr"
)

type fixedWidth interface {
	int16 | int32 | int64 | float32 | float64
}

// valuesOf returns the value slice of a fixed-width array. It is the one
// place where kernels reinterpret an Arrow buffer as Go values, so it
// checks that the array holds values of type T: a plan whose types
// disagree with its data (a bigint kernel handed an integer column) is an
// internal error, never a read of the wrong bytes.
func valuesOf[T fixedWidth](a arrow.Array) []T {
	mustHold[T](a.DataType())
	d := a.Data()
	buf := d.Buffers()[1]
	if buf == nil {
		return nil
	}
	all := arrow.GetData[T](buf.Bytes())
	return all[d.Offset() : d.Offset()+d.Len()]
}

// mustHold panics with an internal error (XX000 at the statement boundary)
// unless arrays of type dt store their values as Go type T.
func mustHold[T fixedWidth](dt arrow.DataType) {
	var zero T
	id := dt.ID()
	var ok bool
	switch any(zero).(type) {
	case int16:
		ok = id == arrow.INT16
	case int32:
		ok = id == arrow.INT32 || id == arrow.DATE32
	case int64:
		ok = id == arrow.INT64 || id == arrow.TIMESTAMP
	case float32:
		ok = id == arrow.FLOAT32
	case float64:
		ok = id == arrow.FLOAT64
	}
	if !ok {
		panic(pgerr.Internal("executor: %s values read as %T", dt, zero))
	}
}

// validity returns a's validity bitmap re-based to offset 0 (nil when a
// has no NULLs).
func validity(a arrow.Array) []byte {
	if a.NullN() == 0 {
		return nil
	}
	d := a.Data()
	bm := d.Buffers()[0].Bytes()
	if d.Offset() == 0 {
		return bm
	}
	out := make([]byte, bitutil.BytesForBits(int64(d.Len())))
	bitutil.CopyBitmap(bm, d.Offset(), d.Len(), out, 0)
	return out
}

// andValidity intersects the validity of arrays of equal length; nil
// means all valid.
func andValidity(arrs ...arrow.Array) ([]byte, int) {
	var out []byte
	n := 0
	for _, a := range arrs {
		v := validity(a)
		if v == nil {
			continue
		}
		// Bitmaps may be longer than needed (builders pad them); only the
		// bytes covering n rows count.
		n = a.Len()
		nbytes := int(bitutil.BytesForBits(int64(n)))
		if out == nil {
			out = make([]byte, nbytes)
			copy(out, v[:nbytes])
			continue
		}
		for i := range out {
			out[i] &= v[i]
		}
	}
	if out == nil {
		return nil, 0
	}
	return out, n - bitutil.CountSetBits(out, 0, n)
}

// isValid reads bit i of a validity bitmap (nil = valid).
func isValid(bm []byte, i int) bool { return bm == nil || bm[i>>3]&(1<<(i&7)) != 0 }

// newFixedArray wraps vals (and an optional validity bitmap) as an array.
func newFixedArray[T fixedWidth](dt arrow.DataType, vals []T, valid []byte, nulls int) arrow.Array {
	mustHold[T](dt)
	var vb *memory.Buffer
	if valid != nil {
		vb = memory.NewBufferBytes(valid)
	}
	data := array.NewData(dt, len(vals), []*memory.Buffer{vb, memory.NewBufferBytes(arrow.GetBytes(vals))}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// newBoolArray wraps a value bitmap and an optional validity bitmap.
func newBoolArray(bits []byte, n int, valid []byte, nulls int) *array.Boolean {
	var vb *memory.Buffer
	if valid != nil {
		vb = memory.NewBufferBytes(valid)
	}
	data := array.NewData(arrow.FixedWidthTypes.Boolean, n, []*memory.Buffer{vb, memory.NewBufferBytes(bits)}, nil, nulls, 0)
	defer data.Release()
	return array.NewBooleanData(data)
}

// boolBits returns the value bitmap of a boolean array re-based to 0.
func boolBits(a *array.Boolean) []byte {
	d := a.Data()
	bm := d.Buffers()[1].Bytes()
	if d.Offset() == 0 {
		return bm
	}
	out := make([]byte, bitutil.BytesForBits(int64(d.Len())))
	bitutil.CopyBitmap(bm, d.Offset(), d.Len(), out, 0)
	return out
}
