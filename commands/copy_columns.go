package commands

// Column converters of COPY FROM: each turns one input field of every
// row of a block into values of its column's Arrow layout, in a loop of
// its own, and at the end of a chunk hands the column over as an array
// whose buffers are the Go slices it filled. The common spellings of
// integers, floats, numerics, dates, timestamps and strings are read
// straight from the bytes (types/parse_fast.go); anything else goes
// through types.Parse, so values and errors are always those of the
// type's input function.

import (
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/executor"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// copyColumn converts one input field of each row into a column.
type copyColumn interface {
	// convert appends the values of field k of rows [0, n) of a block,
	// row r's being fields[r*stride+k]. It returns n, or the row that
	// failed and its error (the rows before it are appended).
	convert(data []byte, fields []fieldRef, k, stride, n int) (int, error)
	// reserve makes room for rows more rows.
	reserve(rows int)
	// truncate drops the rows from rows on.
	truncate(rows int)
	// finish returns the column's array and starts a new one.
	finish() arrow.Array
}

// newCopyColumn returns the converter for a column of type t.
func newCopyColumn(t types.T) copyColumn {
	switch t.ID {
	case types.Int2:
		return &fixedColumn[int16]{t: t}
	case types.Int4, types.Date:
		return &fixedColumn[int32]{t: t}
	case types.Int8, types.Timestamp, types.TimestampTZ:
		return &fixedColumn[int64]{t: t}
	case types.Float4:
		return &fixedColumn[float32]{t: t}
	case types.Float8:
		return &fixedColumn[float64]{t: t}
	case types.Text, types.Varchar, types.Bpchar, types.Unknown:
		return &stringColumn{t: t}
	case types.Numeric:
		return &numericColumn{stringColumn{t: t}}
	}
	return &datumColumn{t: t} // booleans, intervals and any other type
}

// nullRows lists the rows of a column that are NULL.
type nullRows []int32

func (n nullRows) truncate(rows int) nullRows {
	for len(n) > 0 && int(n[len(n)-1]) >= rows {
		n = n[:len(n)-1]
	}
	return n
}

// bitmap returns the validity bitmap of rows rows (nil if none is NULL).
func (n nullRows) bitmap(rows int) *memory.Buffer {
	if len(n) == 0 {
		return nil
	}
	bits := make([]byte, bitutil.BytesForBits(int64(rows)))
	bitutil.SetBitsTo(bits, 0, int64(rows), true)
	for _, r := range n {
		bitutil.ClearBit(bits, int(r))
	}
	return memory.NewBufferBytes(bits)
}

// fixedArray wraps values (and NULLs) of a fixed-width type as an array.
func fixedArray[V arrow.FixedWidthType](dt arrow.DataType, vals []V, nulls nullRows) arrow.Array {
	var raw []byte
	if len(vals) > 0 {
		raw = arrow.GetBytes(vals)
	}
	data := array.NewData(dt, len(vals), []*memory.Buffer{nulls.bitmap(len(vals)), memory.NewBufferBytes(raw)}, nil, len(nulls), 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// fitted returns s, copied into a slice of its length if much of its
// capacity is unused: the array keeps it as long as the table does.
func fitted[V any](s []V) []V {
	if cap(s)-len(s) <= len(s)/8+64 {
		return s
	}
	return append(make([]V, 0, len(s)), s...)
}

// fixedColumn converts fields of a fixed-width type (integers, floats,
// dates, timestamps) with the type's fast parser (parse); a field it
// refuses goes through types.Parse, so values and errors are its.
type fixedColumn[V int16 | int32 | int64 | float32 | float64] struct {
	t     types.T
	vals  []V
	nulls nullRows
}

// parse is the fast parser of c's type; a switch the branch predictor
// learns, not a call through a function value, per field.
func (c *fixedColumn[V]) parse(b []byte) (V, bool) {
	switch c.t.ID {
	case types.Int2, types.Int4, types.Int8:
		v, ok := types.ParseIntFast(b, c.t)
		return V(v), ok
	case types.Float4:
		v, ok := types.ParseFloatFast(b, 32)
		return V(v), ok
	case types.Float8:
		v, ok := types.ParseFloatFast(b, 64)
		return V(v), ok
	case types.Date:
		v, ok := types.ParseDateFast(b)
		return V(v), ok
	case types.Timestamp, types.TimestampTZ:
		v, ok := types.ParseTimestampFast(b, c.t.ID == types.TimestampTZ)
		return V(v), ok
	}
	return 0, false
}

// fromDatum is the value of a datum types.Parse gave.
func fromDatum[V int16 | int32 | int64 | float32 | float64](d any) V {
	switch x := d.(type) {
	case int64:
		return V(x)
	case int32:
		return V(x)
	case float64:
		return V(x)
	}
	return 0
}

func (c *fixedColumn[V]) convert(data []byte, fields []fieldRef, k, stride, n int) (int, error) {
	for r := range n {
		f := fields[r*stride+k]
		if f.start < 0 {
			c.nulls = append(c.nulls, int32(len(c.vals)))
			c.vals = append(c.vals, 0)
			continue
		}
		v, ok := c.parse(data[f.start:f.end])
		if !ok {
			d, err := types.Parse(c.t, string(data[f.start:f.end]))
			if err != nil {
				return r, err
			}
			v = fromDatum[V](d)
		}
		c.vals = append(c.vals, v)
	}
	return n, nil
}

func (c *fixedColumn[V]) reserve(rows int) { c.vals = slices.Grow(c.vals, rows) }

func (c *fixedColumn[V]) truncate(rows int) { c.vals, c.nulls = c.vals[:rows], c.nulls.truncate(rows) }

func (c *fixedColumn[V]) finish() arrow.Array {
	a := fixedArray(c.t.ArrowType(), fitted(c.vals), c.nulls)
	c.vals, c.nulls = nil, nil // reserve allocates the next chunk's
	return a
}

// stringColumn converts text, varchar(n) and char(n) fields: the values
// are appended to one buffer, as an Arrow string array holds them.
type stringColumn struct {
	t       types.T
	data    []byte
	offsets []int32 // the end of each row's value in data
	nulls   nullRows
	perRow  int // bytes a row in the last chunk, rounded up
}

func (c *stringColumn) convert(data []byte, fields []fieldRef, k, stride, n int) (int, error) {
	for r := range n {
		f := fields[r*stride+k]
		if f.start < 0 {
			c.appendNull()
			continue
		}
		var ok bool
		if c.data, ok = types.AppendStringFast(c.data, data[f.start:f.end], c.t); !ok {
			d, err := types.Parse(c.t, string(data[f.start:f.end]))
			if err != nil {
				return r, err
			}
			c.data = append(c.data, d.(string)...)
		}
		if err := c.endValue(); err != nil {
			return r, err
		}
	}
	return n, nil
}

func (c *stringColumn) appendNull() {
	c.nulls = append(c.nulls, int32(len(c.offsets)))
	c.offsets = append(c.offsets, int32(len(c.data)))
}

// endValue ends the value appended to data, which an array's 32-bit
// offsets must reach.
func (c *stringColumn) endValue() error {
	if len(c.data) > math.MaxInt32 {
		return pgerr.New(pgerr.ProgramLimitExceeded, "out of memory").
			WithDetail("COPY values of one batch exceed %d bytes.", math.MaxInt32)
	}
	c.offsets = append(c.offsets, int32(len(c.data)))
	return nil
}

// reserve makes room for rows more values as long as the values so far,
// or those of the last chunk (16 bytes each before any).
func (c *stringColumn) reserve(rows int) {
	c.offsets = slices.Grow(c.offsets, rows)
	avg := c.perRow
	if n := len(c.offsets); n > 0 {
		avg = (len(c.data) + n - 1) / n
	} else if avg == 0 {
		avg = 16
	}
	if need := rows * avg; cap(c.data)-len(c.data) < need {
		c.data = slices.Grow(c.data, need+need/32)
	}
}

func (c *stringColumn) truncate(rows int) {
	if rows < len(c.offsets) {
		end := 0
		if rows > 0 {
			end = int(c.offsets[rows-1])
		}
		c.data, c.offsets = c.data[:end], c.offsets[:rows]
	}
	c.nulls = c.nulls.truncate(rows)
}

func (c *stringColumn) finish() arrow.Array {
	offs := make([]int32, len(c.offsets)+1)
	copy(offs[1:], c.offsets)
	data := array.NewData(arrow.BinaryTypes.String, len(c.offsets),
		[]*memory.Buffer{c.nulls.bitmap(len(c.offsets)), memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs)), memory.NewBufferBytes(fitted(c.data))},
		nil, len(c.nulls), 0)
	defer data.Release()
	c.perRow = (len(c.data) + len(c.offsets) - 1) / max(len(c.offsets), 1)
	c.data, c.offsets, c.nulls = nil, c.offsets[:0], nil // reserve allocates the next chunk's
	return array.NewStringData(data)
}

// numericColumn converts numeric fields to their canonical text.
type numericColumn struct{ stringColumn }

func (c *numericColumn) convert(data []byte, fields []fieldRef, k, stride, n int) (int, error) {
	for r := range n {
		f := fields[r*stride+k]
		if f.start < 0 {
			c.appendNull()
			continue
		}
		var ok bool
		if c.data, ok = types.AppendNumericFast(c.data, data[f.start:f.end], c.t); !ok {
			d, err := types.Parse(c.t, string(data[f.start:f.end]))
			if err != nil {
				return r, err
			}
			c.data = types.AppendFormat(c.data, c.t, d)
		}
		if err := c.endValue(); err != nil {
			return r, err
		}
	}
	return n, nil
}

// datumColumn converts fields of any other type through types.Parse,
// building the array from the datums.
type datumColumn struct {
	t  types.T
	ds []any
}

func (c *datumColumn) convert(data []byte, fields []fieldRef, k, stride, n int) (int, error) {
	for r := range n {
		f := fields[r*stride+k]
		if f.start < 0 {
			c.ds = append(c.ds, nil)
			continue
		}
		d, err := types.Parse(c.t, string(data[f.start:f.end]))
		if err != nil {
			return r, err
		}
		c.ds = append(c.ds, d)
	}
	return n, nil
}

func (c *datumColumn) reserve(rows int) { c.ds = slices.Grow(c.ds, rows) }

func (c *datumColumn) truncate(rows int) { clear(c.ds[rows:]); c.ds = c.ds[:rows] }

func (c *datumColumn) finish() arrow.Array {
	a := executor.ArrayOfDatums(c.t, c.ds)
	clear(c.ds)
	c.ds = c.ds[:0]
	return a
}
