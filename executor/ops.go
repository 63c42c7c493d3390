package executor

// Operators: arithmetic, comparison, concatenation and LIKE. The planner
// has already coerced both operands to the operator's input types, so a
// kernel only dispatches on one type.

import (
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// binaryEval evaluates both operands over the whole batch, then a kernel.
type binaryEval struct {
	l, r   evaluator
	kernel func(l, r arrow.Array) (arrow.Array, error)
}

func (e *binaryEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	l, err := e.l.eval(b)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	r, err := e.r.eval(b)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	return e.kernel(l, r)
}

func compileOp(x *nodes.OpExpr, ec *ExecContext) (evaluator, error) {
	if x.Left == nil { // prefix operator
		return compilePrefixOp(x, ec)
	}
	lt, rt := x.Left.Type(), x.Right.Type()
	var kernel func(l, r arrow.Array) (arrow.Array, error)
	switch x.Op {
	case "+", "-", "*", "/", "%":
		switch {
		case x.T.ID == types.IntervalType || lt.ID == types.IntervalType || rt.ID == types.IntervalType:
			return compileIntervalArith(x, ec)
		case lt.ID == types.Date || rt.ID == types.Date:
			return compileDateArith(x, ec)
		case lt.ID == types.Int8:
			kernel = intArith[int64](x.Op, lt, math.MinInt64, math.MaxInt64)
		case lt.ID == types.Int4:
			kernel = intArith[int32](x.Op, lt, math.MinInt32, math.MaxInt32)
		case lt.ID == types.Int2:
			kernel = intArith[int16](x.Op, lt, math.MinInt16, math.MaxInt16)
		case lt.ID == types.Float8:
			kernel = floatArith[float64](x.Op, lt)
		case lt.ID == types.Float4:
			kernel = floatArith[float32](x.Op, lt)
		case lt.ID == types.Numeric && (x.Op == "+" || x.Op == "-" || x.Op == "*"):
			return compileNumericArith(x, ec)
		case lt.ID == types.Numeric:
			return compileRowwise([]nodes.Expr{x.Left, x.Right}, x.T, true, ec, numericOp(x.Op))
		default:
			return nil, pgerr.Internal("executor: no %s operator for %s", x.Op, lt)
		}
	case "^":
		switch lt.ID {
		case types.Float8:
			kernel = floatPowerKernel
		case types.Numeric:
			return compileRowwise([]nodes.Expr{x.Left, x.Right}, x.T, true, ec, func(a []any) (any, error) {
				return types.NumericPower(a[0].(*apd.Decimal), a[1].(*apd.Decimal))
			})
		default:
			return nil, pgerr.Internal("executor: no ^ operator for %s", lt)
		}
	case "&", "|", "#", "<<", ">>":
		switch lt.ID {
		case types.Int8:
			kernel = intBitwise[int64](x.Op, 63)
		case types.Int4:
			kernel = intBitwise[int32](x.Op, 31)
		case types.Int2:
			kernel = intBitwise[int16](x.Op, 31)
		default:
			return nil, pgerr.Internal("executor: no %s operator for %s", x.Op, lt)
		}
	case "=", "<>", "<", "<=", ">", ">=":
		if lt.ID == types.Numeric && rt.ID == types.Numeric && scaledVectors {
			return compileNumericCompare(x, ec) // numeric_vector.go
		}
		kernel = compareKernel(x.Op, lt)
	case "||":
		return compileRowwise([]nodes.Expr{x.Left, x.Right}, x.T, true, ec, func(a []any) (any, error) {
			l, r := a[0].(string), a[1].(string)
			// textcat allocates the whole result at once.
			if err := types.CheckTextSize(len(l) + len(r)); err != nil {
				return nil, err
			}
			return l + r, nil
		})
	case "~~", "!~~", "~~*", "!~~*":
		return compileLike(x, ec)
	default:
		return nil, pgerr.Internal("executor: unknown operator %s", x.Op)
	}
	l, err := compileExpr(x.Left, ec)
	if err != nil {
		return nil, err
	}
	r, err := compileExpr(x.Right, ec)
	if err != nil {
		return nil, err
	}
	if isComparison(x.Op) { // filter_kernels.go
		if cmp, ok := compileStringConstCompare(x, l, r); ok {
			return cmp, nil
		}
		if cmp, ok := compileIntConstCompare(x, l, r); ok {
			return cmp, nil
		}
		if cmp, ok := compileIntColumnsCompare(x, l, r); ok {
			return cmp, nil
		}
	}
	return &binaryEval{l: l, r: r, kernel: kernel}, nil
}

// intArith returns the kernel of op on integers of Go type T, with
// PostgreSQL's overflow and division errors. Each operator has its own
// loop (no per-row dispatch); rows that are NULL are skipped so that
// their undefined values cannot raise division by zero.
func intArith[T int16 | int32 | int64](op string, t types.T, lo, hi int64) func(l, r arrow.Array) (arrow.Array, error) {
	narrow := lo != math.MinInt64
	return func(l, r arrow.Array) (arrow.Array, error) {
		lv, rv := valuesOf[T](l), valuesOf[T](r)
		valid, nulls := andValidity(l, r)
		out := make([]T, len(lv))
		var err error
		switch op {
		case "+":
			err = intLoop(lv, rv, out, valid, t, func(a, b int64) (int64, bool) {
				v := a + b
				if narrow {
					return v, v >= lo && v <= hi
				}
				return v, ((a ^ v) & (b ^ v)) >= 0
			})
		case "-":
			err = intLoop(lv, rv, out, valid, t, func(a, b int64) (int64, bool) {
				v := a - b
				if narrow {
					return v, v >= lo && v <= hi
				}
				return v, ((a ^ b) & (a ^ v)) >= 0
			})
		case "*":
			err = intLoop(lv, rv, out, valid, t, func(a, b int64) (int64, bool) {
				v := a * b
				if narrow {
					return v, v >= lo && v <= hi
				}
				return v, a == 0 || (v/a == b && !(a == -1 && b == math.MinInt64) && !(b == -1 && a == math.MinInt64))
			})
		case "/":
			err = intDivLoop(lv, rv, out, valid, t, lo, false)
		case "%":
			err = intDivLoop(lv, rv, out, valid, t, lo, true)
		}
		if err != nil {
			return nil, err
		}
		return newFixedArray(t.ArrowType(), out, valid, nulls), nil
	}
}

// unaryEval evaluates its operand over the whole batch, then a kernel.
type unaryEval struct {
	arg    evaluator
	kernel func(a arrow.Array) (arrow.Array, error)
}

func (e *unaryEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	a, err := e.arg.eval(b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	return e.kernel(a)
}

// compilePrefixOp compiles the prefix operators: + (nothing to do), -
// and @ (absolute value) on every numeric type, ~ on integers, |/ and ||/
// (square and cube root) on double precision. Integer and float operands
// run in typed loops; numeric and interval row by row.
func compilePrefixOp(x *nodes.OpExpr, ec *ExecContext) (evaluator, error) {
	if x.Op == "+" {
		return compileExpr(x.Right, ec)
	}
	t := x.T
	var kernel func(a arrow.Array) (arrow.Array, error)
	switch t.ID {
	case types.Int8:
		kernel = intPrefix[int64](x.Op, t, math.MinInt64)
	case types.Int4:
		kernel = intPrefix[int32](x.Op, t, math.MinInt32)
	case types.Int2:
		kernel = intPrefix[int16](x.Op, t, math.MinInt16)
	case types.Float8:
		kernel = floatPrefix[float64](x.Op, t)
	case types.Float4:
		kernel = floatPrefix[float32](x.Op, t)
	case types.Numeric:
		return compileRowwise([]nodes.Expr{x.Right}, t, true, ec, func(a []any) (any, error) {
			if x.Op == "@" {
				return types.NumericAbs(a[0].(*apd.Decimal)), nil
			}
			return types.NumericNeg(a[0].(*apd.Decimal)), nil
		})
	case types.IntervalType:
		return compileRowwise([]nodes.Expr{x.Right}, t, true, ec, func(a []any) (any, error) {
			return types.IntervalNeg(a[0].(types.Interval))
		})
	default:
		return nil, pgerr.Internal("executor: no prefix operator %s for %s", x.Op, t)
	}
	if kernel == nil {
		return nil, pgerr.Internal("executor: no prefix operator %s for %s", x.Op, t)
	}
	arg, err := compileExpr(x.Right, ec)
	if err != nil {
		return nil, err
	}
	return &unaryEval{arg: arg, kernel: kernel}, nil
}

// intPrefix is -, @ or ~ on integers of Go type T: negating or taking the
// absolute value of the type's minimum is out of range.
func intPrefix[T int16 | int32 | int64](op string, t types.T, lo int64) func(a arrow.Array) (arrow.Array, error) {
	if op != "-" && op != "@" && op != "~" {
		return nil
	}
	return func(a arrow.Array) (arrow.Array, error) {
		v := valuesOf[T](a)
		valid, nulls := andValidity(a)
		out := make([]T, len(v))
		switch op {
		case "~":
			for i, x := range v {
				out[i] = ^x
			}
		case "-":
			for i, x := range v {
				if int64(x) == lo && isValid(valid, i) {
					return nil, types.ErrIntOutOfRange(t)
				}
				out[i] = -x
			}
		case "@":
			for i, x := range v {
				if x < 0 {
					if int64(x) == lo && isValid(valid, i) {
						return nil, types.ErrIntOutOfRange(t)
					}
					x = -x
				}
				out[i] = x
			}
		}
		return newFixedArray(t.ArrowType(), out, valid, nulls), nil
	}
}

// floatPrefix is -, @, |/ (dsqrt) or ||/ (dcbrt) on floats of Go type T.
func floatPrefix[T float32 | float64](op string, t types.T) func(a arrow.Array) (arrow.Array, error) {
	if op != "-" && op != "@" && (t.ID != types.Float8 || op != "|/" && op != "||/") {
		return nil
	}
	return func(a arrow.Array) (arrow.Array, error) {
		v := valuesOf[T](a)
		valid, nulls := andValidity(a)
		out := make([]T, len(v))
		switch op {
		case "-":
			for i, x := range v {
				out[i] = -x
			}
		case "@":
			for i, x := range v {
				out[i] = T(math.Abs(float64(x)))
			}
		case "|/":
			for i, x := range v {
				if x < 0 && isValid(valid, i) {
					return nil, types.ErrSqrtNegative()
				}
				out[i] = T(math.Sqrt(float64(x)))
			}
		case "||/":
			for i, x := range v {
				r, err := types.FloatCbrt(float64(x))
				if err != nil && isValid(valid, i) {
					return nil, err
				}
				out[i] = T(r)
			}
		}
		return newFixedArray(t.ArrowType(), out, valid, nulls), nil
	}
}

// floatPowerKernel is double precision ^ double precision (dpow).
func floatPowerKernel(l, r arrow.Array) (arrow.Array, error) {
	lv, rv := valuesOf[float64](l), valuesOf[float64](r)
	valid, nulls := andValidity(l, r)
	out := make([]float64, len(lv))
	for i := range lv {
		if !isValid(valid, i) {
			continue
		}
		v, err := types.FloatPower(lv[i], rv[i])
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return newFixedArray(types.Float8T.ArrowType(), out, valid, nulls), nil
}

// intBitwise is & | # << >> on integers of Go type T. The shift count is
// an int4 whatever T is; as in PostgreSQL on x86-64 (C's shift of a value
// promoted to int, or of int64), only its low bits count (mask), and
// smallint shifts are done in 32 bits and truncated.
func intBitwise[T int16 | int32 | int64](op string, mask int32) func(l, r arrow.Array) (arrow.Array, error) {
	return func(l, r arrow.Array) (arrow.Array, error) {
		lv := valuesOf[T](l)
		valid, nulls := andValidity(l, r)
		out := make([]T, len(lv))
		switch op {
		case "&", "|", "#":
			rv := valuesOf[T](r)
			switch op {
			case "&":
				for i := range lv {
					out[i] = lv[i] & rv[i]
				}
			case "|":
				for i := range lv {
					out[i] = lv[i] | rv[i]
				}
			default:
				for i := range lv {
					out[i] = lv[i] ^ rv[i]
				}
			}
		default:
			rv := valuesOf[int32](r)
			wide := mask == 63
			left := op == "<<"
			for i := range lv {
				n := uint(rv[i] & mask)
				switch {
				case wide && left:
					out[i] = T(int64(lv[i]) << n)
				case wide:
					out[i] = T(int64(lv[i]) >> n)
				case left:
					out[i] = T(int32(lv[i]) << n)
				default:
					out[i] = T(int32(lv[i]) >> n)
				}
			}
		}
		return newFixedArray(l.DataType(), out, valid, nulls), nil
	}
}

// intLoop applies f to each valid pair; f reports false on overflow.
func intLoop[T int16 | int32 | int64](lv, rv, out []T, valid []byte, t types.T, f func(a, b int64) (int64, bool)) error {
	if valid == nil {
		for i := range lv {
			v, ok := f(int64(lv[i]), int64(rv[i]))
			if !ok {
				return types.ErrIntOutOfRange(t)
			}
			out[i] = T(v)
		}
		return nil
	}
	for i := range lv {
		if !isValid(valid, i) {
			continue
		}
		v, ok := f(int64(lv[i]), int64(rv[i]))
		if !ok {
			return types.ErrIntOutOfRange(t)
		}
		out[i] = T(v)
	}
	return nil
}

// intDivLoop is / or % with PostgreSQL's rules: x / 0 and x % 0 are
// division by zero; MIN / -1 overflows; x % -1 is 0.
func intDivLoop[T int16 | int32 | int64](lv, rv, out []T, valid []byte, t types.T, lo int64, mod bool) error {
	for i := range lv {
		if valid != nil && !isValid(valid, i) {
			continue
		}
		a, b := lv[i], rv[i]
		switch {
		case b == 0:
			return types.ErrDivisionByZero()
		case b == -1:
			if mod {
				out[i] = 0
			} else if int64(a) == lo {
				return types.ErrIntOutOfRange(t)
			} else {
				out[i] = -a
			}
		case mod:
			out[i] = a % b
		default:
			out[i] = a / b
		}
	}
	return nil
}

// floatArith is + - * / on real or double precision with PostgreSQL's
// overflow, underflow and division-by-zero errors.
func floatArith[T float32 | float64](op string, t types.T) func(l, r arrow.Array) (arrow.Array, error) {
	return func(l, r arrow.Array) (arrow.Array, error) {
		lv, rv := valuesOf[T](l), valuesOf[T](r)
		valid, nulls := andValidity(l, r)
		out := make([]T, len(lv))
		for i := range lv {
			if !isValid(valid, i) {
				continue
			}
			a, b := lv[i], rv[i]
			var v T
			switch op {
			case "+":
				v = a + b
			case "-":
				v = a - b
			case "*":
				v = a * b
				if v == 0 && a != 0 && b != 0 {
					return nil, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: underflow")
				}
			case "/":
				if b == 0 && !math.IsNaN(float64(a)) {
					return nil, types.ErrDivisionByZero()
				}
				v = a / b
				if v == 0 && a != 0 && !math.IsInf(float64(b), 0) {
					return nil, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: underflow")
				}
			default:
				return nil, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", t, op, t)
			}
			if math.IsInf(float64(v), 0) && !math.IsInf(float64(a), 0) && !math.IsInf(float64(b), 0) {
				return nil, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
			}
			out[i] = v
		}
		return newFixedArray(t.ArrowType(), out, valid, nulls), nil
	}
}

func numericOp(op string) func(a []any) (any, error) {
	return func(a []any) (any, error) {
		x, y := a[0].(*apd.Decimal), a[1].(*apd.Decimal)
		switch op {
		case "+":
			return types.NumericAdd(x, y)
		case "-":
			return types.NumericSub(x, y)
		case "*":
			return types.NumericMul(x, y)
		case "/":
			return types.NumericDiv(x, y)
		default:
			return types.NumericMod(x, y)
		}
	}
}

// compileDateArith handles date + int, int + date, date - int, date - date
// as date_pli, date_mii and date_mi do: an infinite date plus or minus days
// stays infinite, infinite dates cannot be subtracted from each other
// (22008), and results outside the date range are 22008 "date out of
// range".
func compileDateArith(x *nodes.OpExpr, ec *ExecContext) (evaluator, error) {
	lt := x.Left.Type()
	return compileRowwise([]nodes.Expr{x.Left, x.Right}, x.T, true, ec, func(a []any) (any, error) {
		var date int32
		var days int64
		switch {
		case x.Op == "-" && x.Right.Type().ID == types.Date:
			return types.DateMinusDate(a[0].(int32), a[1].(int32))
		case lt.ID == types.Date && x.Op == "+":
			date, days = a[0].(int32), a[1].(int64)
		case lt.ID == types.Date:
			date, days = a[0].(int32), -a[1].(int64)
		default:
			date, days = a[1].(int32), a[0].(int64)
		}
		return types.DatePlusDays(date, days)
	})
}

// compileIntervalArith runs the operators of interval (the planner
// typed them, intervalArith): interval +/- interval, timestamp +/-
// interval (either order for +), timestamp - timestamp, interval * and /
// double precision.
func compileIntervalArith(x *nodes.OpExpr, ec *ExecContext) (evaluator, error) {
	lt, rt := x.Left.Type(), x.Right.Type()
	var fn func(a []any) (any, error)
	li, ri := lt.ID == types.IntervalType, rt.ID == types.IntervalType
	switch {
	case li && ri && x.Op == "+":
		fn = func(a []any) (any, error) { return types.IntervalAdd(a[0].(types.Interval), a[1].(types.Interval)) }
	case li && ri && x.Op == "-":
		fn = func(a []any) (any, error) { return types.IntervalSub(a[0].(types.Interval), a[1].(types.Interval)) }
	case ri && x.Op == "+":
		fn = func(a []any) (any, error) { return types.TimestampPlusInterval(a[0].(int64), a[1].(types.Interval)) }
	case li && x.Op == "+" && !ri && rt.ID != types.Float8:
		fn = func(a []any) (any, error) { return types.TimestampPlusInterval(a[1].(int64), a[0].(types.Interval)) }
	case ri && x.Op == "-":
		fn = func(a []any) (any, error) { return types.TimestampMinusInterval(a[0].(int64), a[1].(types.Interval)) }
	case !li && !ri && x.Op == "-":
		fn = func(a []any) (any, error) { return types.TimestampMinusTimestamp(a[0].(int64), a[1].(int64)) }
	case li && x.Op == "*":
		fn = func(a []any) (any, error) { return types.IntervalMul(a[0].(types.Interval), a[1].(float64)) }
	case ri && x.Op == "*":
		fn = func(a []any) (any, error) { return types.IntervalMul(a[1].(types.Interval), a[0].(float64)) }
	case li && x.Op == "/":
		fn = func(a []any) (any, error) { return types.IntervalDiv(a[0].(types.Interval), a[1].(float64)) }
	default:
		return nil, pgerr.Internal("executor: no operator %s %s %s", lt, x.Op, rt)
	}
	return compileRowwise([]nodes.Expr{x.Left, x.Right}, x.T, true, ec, fn)
}

// compareKernel returns the kernel of a comparison on values of type t.
func compareKernel(op string, t types.T) func(l, r arrow.Array) (arrow.Array, error) {
	want := cmpWant(op)
	switch t.ID {
	case types.Int8, types.Timestamp, types.TimestampTZ:
		return orderedCompare[int64](want)
	case types.Int4, types.Date:
		return orderedCompare[int32](want)
	case types.Int2:
		return orderedCompare[int16](want)
	case types.Bpchar:
		if filterKernels {
			return bpcharCompareKernel(want)
		}
	case types.Text, types.Varchar, types.Name:
		return func(l, r arrow.Array) (arrow.Array, error) {
			ls, rs := l.(*array.String), r.(*array.String)
			return compareLoop(l, r, func(i int) int { return strings.Compare(ls.Value(i), rs.Value(i)) }, want), nil
		}
	case types.Numeric:
		return func(l, r arrow.Array) (arrow.Array, error) {
			ls, rs := l.(*array.String), r.(*array.String)
			return compareLoop(l, r, func(i int) int {
				if c, ok := compareScaled(ls.Value(i), rs.Value(i)); ok {
					return c
				}
				return types.Compare(t, types.DatumAt(l, t, i), types.DatumAt(r, t, i))
			}, want), nil
		}
	}
	return func(l, r arrow.Array) (arrow.Array, error) {
		return compareLoop(l, r, func(i int) int {
			return types.Compare(t, types.DatumAt(l, t, i), types.DatumAt(r, t, i))
		}, want), nil
	}
}

func isComparison(op string) bool {
	switch op {
	case "=", "<>", "<", "<=", ">", ">=":
		return true
	}
	return false
}

// cmpWant maps an operator to the set of comparison outcomes (-1, 0, +1,
// as bits 0..2) that make it true.
func cmpWant(op string) uint8 {
	switch op {
	case "=":
		return 0b010
	case "<>":
		return 0b101
	case "<":
		return 0b001
	case "<=":
		return 0b011
	case ">":
		return 0b100
	default:
		return 0b110
	}
}

func orderedCompare[T int16 | int32 | int64](want uint8) func(l, r arrow.Array) (arrow.Array, error) {
	return func(l, r arrow.Array) (arrow.Array, error) {
		lv, rv := valuesOf[T](l), valuesOf[T](r)
		n := len(lv)
		valid, nulls := andValidity(l, r)
		bits := make([]byte, bitutil.BytesForBits(int64(n)))
		lt, eq, gt := want&1 != 0, want&2 != 0, want&4 != 0
		for i := 0; i < n; i++ {
			a, b := lv[i], rv[i]
			if (a < b && lt) || (a == b && eq) || (a > b && gt) {
				bits[i>>3] |= 1 << (i & 7)
			}
		}
		return newBoolArray(bits, n, valid, nulls), nil
	}
}

func compareLoop(l, r arrow.Array, cmp func(i int) int, want uint8) arrow.Array {
	n := l.Len()
	valid, nulls := andValidity(l, r)
	bits := make([]byte, bitutil.BytesForBits(int64(n)))
	for i := 0; i < n; i++ {
		if !isValid(valid, i) {
			continue
		}
		if want&(1<<(cmp(i)+1)) != 0 {
			bitutil.SetBit(bits, i)
		}
	}
	return newBoolArray(bits, n, valid, nulls)
}

// compileLike compiles LIKE / ILIKE (and their negations).
func compileLike(x *nodes.OpExpr, ec *ExecContext) (evaluator, error) {
	if ev, ok, err := compileLikeKernel(x, ec); ok || err != nil { // string_kernels.go
		return ev, err
	}
	fold := strings.HasSuffix(x.Op, "*")
	neg := strings.HasPrefix(x.Op, "!")
	var cached string
	var cachedPat []likeToken
	return compileRowwise([]nodes.Expr{x.Left, x.Right}, types.BoolT, true, ec, func(a []any) (any, error) {
		s, p := a[0].(string), a[1].(string)
		if fold {
			s, p = types.LowerASCII(s), types.LowerASCII(p)
		}
		if cachedPat == nil || p != cached {
			pat, err := compileLikePattern(p)
			if err != nil {
				return nil, err
			}
			cached, cachedPat = p, pat
		}
		m, err := likeMatch(s, cachedPat)
		if err != nil {
			return nil, err
		}
		return m != neg, nil
	})
}

// likeToken is one element of a LIKE pattern: a literal rune, _ or %.
type likeToken struct {
	kind byte // 'l' literal, '_' any one, '%' any run, 'e' trailing escape
	r    rune
}

func compileLikePattern(p string) ([]likeToken, error) {
	toks := []likeToken{}
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '\\':
			if i+1 >= len(rs) {
				// An error only if matching gets this far with text left.
				toks = append(toks, likeToken{kind: 'e'})
				continue
			}
			i++
			toks = append(toks, likeToken{kind: 'l', r: rs[i]})
		case '%':
			if len(toks) == 0 || toks[len(toks)-1].kind != '%' {
				toks = append(toks, likeToken{kind: '%'})
			}
		case '_':
			toks = append(toks, likeToken{kind: '_'})
		default:
			toks = append(toks, likeToken{kind: 'l', r: rs[i]})
		}
	}
	return toks, nil
}

var likeEscapeError = pgerr.New(pgerr.InvalidEscapeSequence, "LIKE pattern must not end with escape character")

// likeMatch matches s against a compiled pattern in O(len(s) ×
// len(pattern)) at worst: the classic greedy matcher that, on a mismatch,
// only ever goes back to the last %, since a later % can match whatever
// an earlier one could (PostgreSQL's LIKE_ABORT rule bounds its matcher
// the same way). A pattern ending in an escape character raises 22025
// once matching reaches it with text left, as PostgreSQL does.
func likeMatch(s string, pat []likeToken) (bool, error) {
	rs := []rune(s)
	si, pi := 0, 0
	star, mark := -1, 0 // the last % seen, and where its text run ends
	for si < len(rs) {
		if pi < len(pat) {
			switch t := pat[pi]; t.kind {
			case '%':
				star, mark = pi, si
				pi++
				continue
			case 'e':
				return false, likeEscapeError
			case '_':
				si, pi = si+1, pi+1
				continue
			default:
				if rs[si] == t.r {
					si, pi = si+1, pi+1
					continue
				}
			}
		}
		if star < 0 {
			return false, nil
		}
		// Let the last % take one more rune, and match on from there.
		mark++
		si, pi = mark, star+1
	}
	for pi < len(pat) && pat[pi].kind == '%' {
		pi++
	}
	return pi == len(pat), nil
}
