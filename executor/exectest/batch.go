package exectest

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/types"
)

// Col is one column of a batch made by NewBatch. Vals holds Go values:
// integers (any Go integer type) for integer columns, float64 for floating
// point, bool, string; nil is NULL.
type Col struct {
	Name string
	Type arrow.DataType
	Vals []any
}

// Int64s is a bigint column.
func Int64s(name string, vals ...any) Col {
	return Col{Name: name, Type: arrow.PrimitiveTypes.Int64, Vals: vals}
}

// Int32s is an integer column.
func Int32s(name string, vals ...any) Col {
	return Col{Name: name, Type: arrow.PrimitiveTypes.Int32, Vals: vals}
}

// Int16s is a smallint column.
func Int16s(name string, vals ...any) Col {
	return Col{Name: name, Type: arrow.PrimitiveTypes.Int16, Vals: vals}
}

// Float64s is a double precision column.
func Float64s(name string, vals ...any) Col {
	return Col{Name: name, Type: arrow.PrimitiveTypes.Float64, Vals: vals}
}

// Float32s is a real column.
func Float32s(name string, vals ...any) Col {
	return Col{Name: name, Type: arrow.PrimitiveTypes.Float32, Vals: vals}
}

// Dates is a date column of days since 1970-01-01.
func Dates(name string, vals ...any) Col {
	return Col{Name: name, Type: arrow.FixedWidthTypes.Date32, Vals: vals}
}

// Timestamps is a timestamp column of microseconds since 1970-01-01.
func Timestamps(name string, vals ...any) Col {
	return Col{Name: name, Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Vals: vals}
}

// Bools is a boolean column.
func Bools(name string, vals ...any) Col {
	return Col{Name: name, Type: arrow.FixedWidthTypes.Boolean, Vals: vals}
}

// Strings is a text column.
func Strings(name string, vals ...any) Col {
	return Col{Name: name, Type: arrow.BinaryTypes.String, Vals: vals}
}

// NewBatch builds a batch of cols (which must have equal lengths) with
// memory from mem.
func NewBatch(mem memory.Allocator, cols ...Col) arrow.RecordBatch {
	fields := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	n := -1
	for i, c := range cols {
		if n >= 0 && len(c.Vals) != n {
			panic(fmt.Sprintf("exectest: column %q has %d values, want %d", c.Name, len(c.Vals), n))
		}
		n = len(c.Vals)
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type, Nullable: true}
		arrs[i] = newArray(mem, c)
	}
	if n < 0 {
		n = 0
	}
	b := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(n))
	for _, a := range arrs {
		a.Release()
	}
	return b
}

func newArray(mem memory.Allocator, c Col) arrow.Array {
	bld := array.NewBuilder(mem, c.Type)
	defer bld.Release()
	for _, v := range c.Vals {
		if v == nil {
			bld.AppendNull()
			continue
		}
		switch b := bld.(type) {
		case *array.Int64Builder:
			b.Append(toInt64(v))
		case *array.Int32Builder:
			b.Append(int32(toInt64(v)))
		case *array.Int16Builder:
			b.Append(int16(toInt64(v)))
		case *array.Float64Builder:
			b.Append(v.(float64))
		case *array.Float32Builder:
			b.Append(float32(v.(float64)))
		case *array.Date32Builder:
			b.Append(arrow.Date32(toInt64(v)))
		case *array.TimestampBuilder:
			b.Append(arrow.Timestamp(toInt64(v)))
		case *array.BooleanBuilder:
			b.Append(v.(bool))
		case *array.StringBuilder:
			b.Append(v.(string))
		default:
			panic(fmt.Sprintf("exectest: unsupported column type %s", c.Type))
		}
	}
	return bld.NewArray()
}

func toInt64(v any) int64 {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	}
	panic(fmt.Sprintf("exectest: %v (%T) is not an integer", v, v))
}

// Value returns row i of arr as a Go value: int64 for every integer type,
// float64 for floating point, bool, string (numeric too, as its text),
// int32 days for a date, int64 microseconds for a timestamp; nil for NULL.
// It is types.DatumAt reading strings as text.
func Value(arr arrow.Array, i int) any { return types.DatumAt(arr, types.TextT, i) }

// Rows returns the rows of b as Go values (see Value).
func Rows(b arrow.RecordBatch) [][]any {
	rows := make([][]any, b.NumRows())
	for r := range rows {
		row := make([]any, b.NumCols())
		for c := range row {
			row[c] = Value(b.Column(c), r)
		}
		rows[r] = row
	}
	return rows
}

// ErrEmptyBatch reports a Next that returned a batch without rows, which
// the executor's contract forbids.
var ErrEmptyBatch = errors.New("exectest: Next returned a batch with no rows")

// Run opens op, reads it to the end, closes it and returns its rows. It
// releases every batch it receives. The first error wins; Close runs even
// when Open fails.
func Run(ctx context.Context, op Operator) (rows [][]any, err error) {
	defer func() {
		if cerr := op.Close(); err == nil {
			err = cerr
		}
	}()
	if err := op.Open(ctx); err != nil {
		return nil, err
	}
	return Drain(ctx, op)
}

// Drain reads an opened op to its end (or first error) without closing
// it, and returns its rows. It releases every batch it receives; a batch
// without rows is an error (ErrEmptyBatch).
func Drain(ctx context.Context, op Operator) (rows [][]any, err error) {
	for {
		b, err := op.Next(ctx)
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		empty := b.NumRows() == 0
		rows = append(rows, Rows(b)...)
		b.Release()
		if empty {
			return rows, ErrEmptyBatch
		}
	}
}
