package executor

import (
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// castEval widens integers and converts integers to floats in typed loops;
// every other cast goes row by row through types.Cast.
type castEval struct {
	arg      evaluator
	from, to types.T
}

func compileCast(x *nodes.Cast, ec *ExecContext) (evaluator, error) {
	from, to := x.Arg.Type(), x.T
	if from == to || keepsText(from, to) {
		return compileExpr(x.Arg, ec)
	}
	if from.ID == types.Unknown {
		return compileRowwise([]nodes.Expr{x.Arg}, to, true, ec, func(a []any) (any, error) {
			return types.Parse(to, a[0].(string))
		})
	}
	if from.IsInteger() && (to.IsFloat() || to.IsInteger()) {
		arg, err := compileExpr(x.Arg, ec)
		if err != nil {
			return nil, err
		}
		return &castEval{arg: arg, from: from, to: to}, nil
	}
	if filterKernels && from.ID == types.Date && (to.ID == types.Timestamp || to.ID == types.TimestampTZ) {
		arg, err := compileExpr(x.Arg, ec)
		if err != nil {
			return nil, err
		}
		return &dateToTimestampEval{arg: arg, to: to}, nil
	}
	explicit := x.Explicit
	return compileRowwise([]nodes.Expr{x.Arg}, to, true, ec, func(a []any) (any, error) {
		return types.Cast(a[0], from, to, explicit)
	})
}

// keepsText reports whether a cast from one string type to another
// leaves every value as it is: text or varchar to text or to varchar
// without a length (char(n) to text drops the padding; to varchar(n) the
// length is checked).
func keepsText(from, to types.T) bool {
	plain := from.ID == types.Text || from.ID == types.Varchar
	return plain && (to.ID == types.Text || to.ID == types.Varchar && to.Len < 0)
}

func width(t types.T) int {
	switch t.ID {
	case types.Int2:
		return 2
	case types.Int4:
		return 4
	}
	return 8
}

func (c *castEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	a, err := c.arg.eval(b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	switch c.from.ID {
	case types.Int2:
		return convertInts(valuesOf[int16](a), a, c.to)
	case types.Int4:
		return convertInts(valuesOf[int32](a), a, c.to)
	default:
		return convertInts(valuesOf[int64](a), a, c.to)
	}
}

func convertInts[S int16 | int32 | int64](vals []S, a arrow.Array, to types.T) (arrow.Array, error) {
	valid, nulls := andValidity(a)
	// Narrowing casts check the target's range, as PostgreSQL's do.
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	switch to.ID {
	case types.Int4:
		lo, hi = math.MinInt32, math.MaxInt32
	case types.Int2:
		lo, hi = math.MinInt16, math.MaxInt16
	}
	if to.IsInteger() && width(to) < int(unsafeSizeof(vals)) {
		for i, v := range vals {
			if (int64(v) < lo || int64(v) > hi) && isValid(valid, i) {
				return nil, types.ErrIntOutOfRange(to)
			}
		}
	}
	switch to.ID {
	case types.Int4:
		return newFixedArray(to.ArrowType(), convertSlice[S, int32](vals), valid, nulls), nil
	case types.Int8:
		return newFixedArray(to.ArrowType(), convertSlice[S, int64](vals), valid, nulls), nil
	case types.Float4:
		return newFixedArray(to.ArrowType(), convertSlice[S, float32](vals), valid, nulls), nil
	case types.Float8:
		return newFixedArray(to.ArrowType(), convertSlice[S, float64](vals), valid, nulls), nil
	}
	return newFixedArray(to.ArrowType(), convertSlice[S, int16](vals), valid, nulls), nil
}

// unsafeSizeof is the byte width of the element type of vals.
func unsafeSizeof[S int16 | int32 | int64](vals []S) uintptr {
	var zero S
	return unsafe.Sizeof(zero)
}

func convertSlice[S int16 | int32 | int64, D int16 | int32 | int64 | float32 | float64](in []S) []D {
	out := make([]D, len(in))
	for i, v := range in {
		out[i] = D(v)
	}
	return out
}
