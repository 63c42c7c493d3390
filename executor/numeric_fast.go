package executor

// Numeric + - * on values of at most 18 digits, in int64 (fixed point),
// the common case of money and quantities: both operands are read at
// their display scales, the result has PostgreSQL's display scale (the
// larger of the two for + and -, their sum for *) and is written as text
// directly. A row whose operands do not fit, or whose result would
// overflow, goes through the decimal arithmetic, so results are always
// those of numeric_add, numeric_sub and numeric_mul.
//
// The operands come as scaled vectors (numeric_vector.go): a tree of
// these operators parses each column once and writes text only for its
// result, or never when sum or avg consumes it. evalRows is the older
// text round trip per operator, kept for comparison (scaledVectors off).

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

type numericArithEval struct {
	op          string
	left, right evaluator
	// lconst, rconst: the operand is one value for the statement (1 in
	// `1 - l_discount`), read once per batch instead of once per row.
	lconst, rconst bool
	slow           func([]any) (any, error)
	// lvec, rvec give the operands as scaled vectors (numeric_vector.go).
	lvec, rvec scaledEvaluator
	buf        []int64 // the values of the last evalScaled, reused
}

// scaledOperand is one side of a row's operation: parsed (ok) or not.
type scaledOperand struct {
	v     int64
	scale int32
	ok    bool
}

// operandAt reads row i of a side; a constant side was read at row 0.
func operandAt(s *array.String, i int, fixed *scaledOperand) scaledOperand {
	if fixed != nil {
		return *fixed
	}
	v, scale, ok := types.ParseScaledNumeric(s.Value(i))
	return scaledOperand{v, scale, ok}
}

func compileNumericArith(x *nodes.OpExpr, ec *ExecContext) (evaluator, error) {
	l, err := compileExpr(x.Left, ec)
	if err != nil {
		return nil, err
	}
	r, err := compileExpr(x.Right, ec)
	if err != nil {
		return nil, err
	}
	isConst := func(e nodes.Expr) bool { _, c := e.(*nodes.Const); return c || foldable(e) }
	return &numericArithEval{op: x.Op, left: l, right: r, lconst: isConst(x.Left), rconst: isConst(x.Right),
		slow: numericOp(x.Op), lvec: asScaled(l, ec), rvec: asScaled(r, ec)}, nil
}

func (e *numericArithEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	if !scaledVectors {
		return e.evalRows(b)
	}
	v, err := e.evalScaled(b)
	if err != nil {
		return nil, err
	}
	return v.toArray(), nil
}

// evalRows is the row-at-a-time text path (scaledVectors off).
func (e *numericArithEval) evalRows(b arrow.RecordBatch) (arrow.Array, error) {
	la, err := e.left.eval(b)
	if err != nil {
		return nil, err
	}
	defer la.Release()
	ra, err := e.right.eval(b)
	if err != nil {
		return nil, err
	}
	defer ra.Release()
	ls, lok := la.(*array.String)
	rs, rok := ra.(*array.String)
	n := int(b.NumRows())
	bld := array.NewStringBuilder(alloc)
	defer bld.Release()
	bld.Reserve(n)
	var lfixed, rfixed *scaledOperand
	if lok && e.lconst && n > 0 && !la.IsNull(0) {
		op := operandAt(ls, 0, nil)
		lfixed = &op
	}
	if rok && e.rconst && n > 0 && !ra.IsNull(0) {
		op := operandAt(rs, 0, nil)
		rfixed = &op
	}
	var buf []byte
	for i := 0; i < n; i++ {
		if la.IsNull(i) || ra.IsNull(i) {
			bld.AppendNull()
			continue
		}
		if lok && rok {
			if v, scale, ok := e.fast(operandAt(ls, i, lfixed), operandAt(rs, i, rfixed)); ok {
				buf = appendScaled(buf[:0], v, scale)
				bld.BinaryBuilder.Append(buf)
				continue
			}
		}
		d, err := e.slow([]any{types.DatumAt(la, types.NumericT, i), types.DatumAt(ra, types.NumericT, i)})
		if err != nil {
			return nil, err
		}
		appendDatum(bld, types.NumericT, d)
	}
	return bld.NewArray(), nil
}

// fast computes l op r in int64 when the operands and the result fit.
func (e *numericArithEval) fast(l, r scaledOperand) (int64, int32, bool) {
	if !l.ok || !r.ok {
		return 0, 0, false
	}
	a, as, c, cs := l.v, l.scale, r.v, r.scale
	if e.op == "*" {
		hi, lo := bits.Mul64(uint64(abs64(a)), uint64(abs64(c)))
		if hi != 0 || lo > math.MaxInt64 || as+cs > 18 {
			return 0, 0, false
		}
		v := int64(lo)
		if (a < 0) != (c < 0) {
			v = -v
		}
		return v, as + cs, true
	}
	for ; as < cs; as++ {
		if a > math.MaxInt64/10 || a < math.MinInt64/10 {
			return 0, 0, false
		}
		a *= 10
	}
	for ; cs < as; cs++ {
		if c > math.MaxInt64/10 || c < math.MinInt64/10 {
			return 0, 0, false
		}
		c *= 10
	}
	if e.op == "-" {
		if c == math.MinInt64 {
			return 0, 0, false
		}
		c = -c
	}
	v := a + c
	if (c > 0 && v < a) || (c < 0 && v > a) || v == math.MinInt64 {
		return 0, 0, false
	}
	return v, as, true
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v // MinInt64 cannot come from 18 digits
	}
	return v
}

// appendScaled writes v / 10^scale as numeric text with scale digits
// after the point.
func appendScaled(b []byte, v int64, scale int32) []byte {
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	var tmp [20]byte
	digits := strconv.AppendInt(tmp[:0], v, 10)
	if int(scale) >= len(digits) {
		b = append(b, '0')
		if scale > 0 {
			b = append(b, '.')
			for k := len(digits); k < int(scale); k++ {
				b = append(b, '0')
			}
		}
		return append(b, digits...)
	}
	intLen := len(digits) - int(scale)
	b = append(b, digits[:intLen]...)
	if scale > 0 {
		b = append(b, '.')
		b = append(b, digits[intLen:]...)
	}
	return b
}

// compareScaled compares two numerics of at most 18 digits as scaled
// integers; false when either does not fit (then numeric_cmp decides).
func compareScaled(l, r string) (int, bool) {
	a, as, ok := types.ParseScaledNumeric(l)
	if !ok {
		return 0, false
	}
	c, cs, ok := types.ParseScaledNumeric(r)
	if !ok {
		return 0, false
	}
	for ; as < cs; as++ {
		if a > math.MaxInt64/10 || a < math.MinInt64/10 {
			return 0, false
		}
		a *= 10
	}
	for ; cs < as; cs++ {
		if c > math.MaxInt64/10 || c < math.MinInt64/10 {
			return 0, false
		}
		c *= 10
	}
	switch {
	case a < c:
		return -1, true
	case a > c:
		return 1, true
	}
	return 0, true
}
