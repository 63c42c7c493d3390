package executor

// Low-level constructors for result arrays: kernels fill plain Go slices
// and bitmaps in tight loops, then wrap them as Arrow arrays without a
// builder in between.

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

type fixedWidth interface {
	~int16 | ~int32 | ~int64 | ~float32 | ~float64
}

// valuesOf returns the value slice of a fixed-width array.
func valuesOf[T fixedWidth](a arrow.Array) []T {
	d := a.Data()
	buf := d.Buffers()[1]
	if buf == nil {
		return nil
	}
	all := arrow.GetData[T](buf.Bytes())
	return all[d.Offset() : d.Offset()+d.Len()]
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
