package types

// The one converter from Arrow values to datums (the Go values of this
// package's convention), used by every package that reads single values
// out of batches: results, partition routing, constraint checks.

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// DatumAt returns row i of arr (of SQL type t) as a datum (nil for NULL).
func DatumAt(arr arrow.Array, t T, i int) any {
	if arr.IsNull(i) {
		return nil
	}
	switch a := arr.(type) {
	case *array.Int64:
		return a.Value(i)
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Boolean:
		return a.Value(i)
	case *array.String:
		if t.ID == Numeric {
			d, err := NumericFromString(a.Value(i))
			if err != nil {
				panic(err)
			}
			return d
		}
		return a.Value(i)
	case *array.Date32:
		return int32(a.Value(i))
	case *array.Timestamp:
		return int64(a.Value(i))
	case *array.MonthDayNanoInterval:
		v := a.Value(i)
		return Interval{Months: v.Months, Days: v.Days, Micros: v.Nanoseconds / 1000}
	case *array.Null:
		return nil
	}
	panic(fmt.Sprintf("types: no datum for an array of %s", arr.DataType()))
}
