package types

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"

	"github.com/pgfed/pgfed/pgerr"
)

// appendFloat appends PostgreSQL's output for a real (bitSize 32) or double
// precision (64) value with extra_float_digits = 1: the shortest digits that
// read back exactly, in fixed notation when the decimal exponent is in
// [-4, 15) for double precision or [-4, 6) for real, else as d.ddde±XX.
func appendFloat(buf []byte, v float64, bitSize int) []byte {
	switch {
	case math.IsNaN(v):
		return append(buf, "NaN"...)
	case math.IsInf(v, 1):
		return append(buf, "Infinity"...)
	case math.IsInf(v, -1):
		return append(buf, "-Infinity"...)
	}
	if math.Signbit(v) {
		buf = append(buf, '-')
		v = -v
	}
	var scratch [32]byte
	digits, exp := shortestDigits(scratch[:0], v, bitSize)
	fixedLimit := 15
	if bitSize == 32 {
		fixedLimit = 6
	}
	if exp < -4 || exp >= fixedLimit {
		buf = append(buf, digits[0])
		if len(digits) > 1 {
			buf = append(buf, '.')
			buf = append(buf, digits[1:]...)
		}
		buf = append(buf, 'e')
		if exp < 0 {
			buf = append(buf, '-')
			exp = -exp
		} else {
			buf = append(buf, '+')
		}
		return appendZeroPadded(buf, int64(exp), 2)
	}
	if exp < 0 {
		buf = append(buf, "0."...)
		for i := -1; i > exp; i-- {
			buf = append(buf, '0')
		}
		return append(buf, digits...)
	}
	intLen := exp + 1
	if len(digits) <= intLen {
		buf = append(buf, digits...)
		for i := len(digits); i < intLen; i++ {
			buf = append(buf, '0')
		}
		return buf
	}
	buf = append(buf, digits[:intLen]...)
	buf = append(buf, '.')
	return append(buf, digits[intLen:]...)
}

// shortestDigits appends to dst the shortest decimal digits that single out
// v (finite, not negative) among values of its precision, and returns them
// with the decimal exponent of the first digit.
//
// PostgreSQL's Ryu code does not accept a decimal lying exactly halfway to
// a neighbouring value, although it would read back as v under
// round-half-even; Go's strconv accepts it. When strconv's answer could be
// such a halfway point, the digits are worked out exactly instead.
func shortestDigits(dst []byte, v float64, bitSize int) ([]byte, int) {
	sci := strconv.AppendFloat(dst, v, 'e', -1, bitSize) // d.ddde±XX
	mark := len(sci) - 1
	for sci[mark] != 'e' {
		mark--
	}
	exp := 0
	for _, c := range sci[mark+2:] {
		exp = exp*10 + int(c-'0')
	}
	if sci[mark+1] == '-' {
		exp = -exp
	}
	digits := sci[:1]
	if mark > 2 {
		digits = append(digits, sci[2:mark]...) // drop the point, in place
	}
	if mayBeHalfwayPoint(digits, exp, v, bitSize) {
		return exactShortestDigits(dst[:0], v, bitSize)
	}
	return digits, exp
}

// floatParts splits v > 0 into mantissa * 2^exp2; powerOfTwo reports a
// mantissa with no fraction bits, whose lower neighbour is nearer.
func floatParts(v float64, bitSize int) (mantissa uint64, exp2 int, powerOfTwo bool) {
	if bitSize == 64 {
		raw := math.Float64bits(v)
		fraction, biased := raw&(1<<52-1), int(raw>>52)
		if biased == 0 {
			return fraction, -1074, false
		}
		return fraction | 1<<52, biased - 1075, fraction == 0 && biased > 1
	}
	raw := math.Float32bits(float32(v))
	fraction, biased := uint64(raw&(1<<23-1)), int(raw>>23)
	if biased == 0 {
		return fraction, -149, false
	}
	return fraction | 1<<23, biased - 150, fraction == 0 && biased > 1
}

// mayBeHalfwayPoint is a cheap necessary condition for the decimal
// digits * 10^(exp-len+1) to equal a point halfway between v and a
// neighbour, (2m±1) * 2^(exp2-1) (or (4m-1) * 2^(exp2-2) below a power of
// two): the powers of two dividing both sides must agree.
func mayBeHalfwayPoint(digits []byte, exp int, v float64, bitSize int) bool {
	var d uint64
	for _, c := range digits {
		d = d*10 + uint64(c-'0')
	}
	if d == 0 {
		return false
	}
	_, exp2, powerOfTwo := floatParts(v, bitSize)
	if exp2 < 0 {
		return false // the halfway points are not short decimals then
	}
	twos := bits.TrailingZeros64(d) + exp - (len(digits) - 1)
	return twos == exp2-1 || (powerOfTwo && twos == exp2-2)
}

// exactShortestDigits is shortestDigits done with exact integers, for v
// whose value, neighbours and halfway points are all integers. Among the
// numbers with the fewest significant digits strictly between the halfway
// points it picks the one nearest v, ties to even, as Ryu does.
func exactShortestDigits(dst []byte, v float64, bitSize int) ([]byte, int) {
	mantissa, exp2, powerOfTwo := floatParts(v, bitSize)
	// Work in quarters of 2^exp2 so that both halfway points are integers.
	scaled := func(quarters uint64) *big.Int {
		n := new(big.Int).SetUint64(quarters)
		return n.Lsh(n, uint(exp2))
	}
	center := scaled(4 * mantissa)
	upper := scaled(4*mantissa + 2)
	lower := scaled(4*mantissa - 2)
	if powerOfTwo {
		lower = scaled(4*mantissa - 1)
	}
	inside := func(n *big.Int) bool { return n.Cmp(lower) > 0 && n.Cmp(upper) < 0 }

	// Start where the candidates are surely still fine enough: 17 (9 for
	// real) significant digits always single out a value.
	maxDigits := 17
	if bitSize == 32 {
		maxDigits = 9
	}
	k := max(len(new(big.Int).Rsh(center, 2).String())-maxDigits-1, 0)
	unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil)
	unit.Lsh(unit, 2)
	ten := big.NewInt(10)
	var best *big.Int
	bestK := k
	for ; ; k++ {
		q, remainder := new(big.Int).QuoRem(center, unit, new(big.Int))
		down := new(big.Int).Mul(q, unit)
		up := new(big.Int).Add(down, unit)
		downInside, upInside := inside(down), inside(up)
		var choice *big.Int
		switch {
		case downInside && upInside:
			// Nearest to v; an exact tie goes to the even quotient.
			switch remainder.Lsh(remainder, 1).Cmp(unit) {
			case -1:
				choice = q
			case 1:
				choice = q.Add(q, big.NewInt(1))
			default:
				if q.Bit(0) == 1 {
					q.Add(q, big.NewInt(1))
				}
				choice = q
			}
		case downInside:
			choice = q
		case upInside:
			choice = q.Add(q, big.NewInt(1))
		}
		if choice == nil {
			break
		}
		best, bestK = choice, k
		unit.Mul(unit, ten)
	}
	digits := best.Append(dst, 10)
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		bestK++
	}
	return digits, len(digits) - 1 + bestK
}

// floatTypeName names t in float input error messages.
func floatTypeName(bitSize int) string {
	if bitSize == 32 {
		return "real"
	}
	return "double precision"
}

// parseFloat is float4in/float8in: blanks, a number as C's strtod/strtof
// reads it (decimal or hexadecimal, "inf", "infinity", "nan", any case,
// optionally signed), blanks. Values that overflow, or underflow to zero,
// are 22003 `"<number>" is out of range for type ...` (real quotes the
// whole input).
func parseFloat(s string, bitSize int) (float64, error) {
	start := 0
	for start < len(s) && isSpace(s[start]) {
		start++
	}
	rest := s[start:]
	n, v, outOfRange := scanFloat(rest, bitSize)
	if n == 0 {
		return 0, errInvalidSyntax(floatTypeName(bitSize), s)
	}
	if outOfRange {
		// float8in quotes just the number; float4in the whole input.
		quoted := rest[:n]
		if bitSize == 32 {
			quoted = s
		}
		return 0, pgerr.New(pgerr.NumericValueOutOfRange, "\"%s\" is out of range for type %s", quoted, floatTypeName(bitSize))
	}
	for n < len(rest) && isSpace(rest[n]) {
		n++
	}
	if n != len(rest) {
		return 0, errInvalidSyntax(floatTypeName(bitSize), s)
	}
	return v, nil
}

// scanFloat reads the longest prefix of s that strtod would accept and
// returns its length (0 if none), its value rounded to bitSize, and whether
// it lies outside the type's range (overflow to infinity, or a non-zero
// number that rounds to zero).
func scanFloat(s string, bitSize int) (n int, v float64, outOfRange bool) {
	i := 0
	negative := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		negative = s[i] == '-'
		i++
	}
	signed := func(f float64) float64 {
		if negative {
			return -f
		}
		return f
	}
	body := s[i:]
	switch {
	case hasPrefixFold(body, "infinity"):
		return i + 8, signed(math.Inf(1)), false
	case hasPrefixFold(body, "inf"):
		return i + 3, signed(math.Inf(1)), false
	case hasPrefixFold(body, "nan"):
		end := i + 3
		// glibc also accepts nan(chars), with alphanumerics and '_' inside.
		if end < len(s) && s[end] == '(' {
			j := end + 1
			for j < len(s) && (isDigit(s[j]) || isAlpha(s[j]) || s[j] == '_') {
				j++
			}
			if j < len(s) && s[j] == ')' {
				end = j + 1
			}
		}
		return end, math.NaN(), false
	}
	if len(body) >= 3 && body[0] == '0' && (body[1]|0x20) == 'x' && (isHexDigit(body[2]) || (body[2] == '.' && len(body) > 3 && isHexDigit(body[3]))) {
		return scanHexFloat(s, i, bitSize)
	}
	j := i
	mantissaDigits, nonZero := 0, false
	for j < len(s) && isDigit(s[j]) {
		nonZero = nonZero || s[j] != '0'
		j++
		mantissaDigits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isDigit(s[j]) {
			nonZero = nonZero || s[j] != '0'
			j++
			mantissaDigits++
		}
	}
	if mantissaDigits == 0 {
		return 0, 0, false
	}
	j = scanExponent(s, j, 'e')
	v, outOfRange = checkedParse(s[:j], bitSize, nonZero)
	return j, v, outOfRange
}

func isHexDigit(c byte) bool { return isDigit(c) || ((c|0x20) >= 'a' && (c|0x20) <= 'f') }

// scanExponent extends a number ending at j with an exponent introduced by
// letter (either case), if one with at least one digit follows.
func scanExponent(s string, j int, letter byte) int {
	if j >= len(s) || (s[j]|0x20) != letter {
		return j
	}
	k := j + 1
	if k < len(s) && (s[k] == '+' || s[k] == '-') {
		k++
	}
	if k >= len(s) || !isDigit(s[k]) {
		return j
	}
	for k < len(s) && isDigit(s[k]) {
		k++
	}
	return k
}

// scanHexFloat reads C99 hexadecimal floating input such as 0x1.8p3 that
// starts at s[i].
func scanHexFloat(s string, i, bitSize int) (int, float64, bool) {
	j := i + 2
	nonZero := false
	for j < len(s) && isHexDigit(s[j]) {
		nonZero = nonZero || s[j] != '0'
		j++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isHexDigit(s[j]) {
			nonZero = nonZero || s[j] != '0'
			j++
		}
	}
	end := scanExponent(s, j, 'p')
	text := s[:end]
	if end == j {
		text += "p0" // strconv insists on the binary exponent C makes optional
	}
	v, outOfRange := checkedParse(text, bitSize, nonZero)
	return end, v, outOfRange
}

// checkedParse converts text that scanFloat has validated, reporting
// overflow and underflow to zero as out of range.
func checkedParse(text string, bitSize int, nonZero bool) (float64, bool) {
	v, err := strconv.ParseFloat(text, bitSize)
	if err != nil || math.IsInf(v, 0) {
		return v, true
	}
	return v, v == 0 && nonZero
}

// RoundFloat4 rounds v to the nearest real (float32) value, as storing a
// double into a real column does after Float8ToFloat4's range check.
func RoundFloat4(v float64) float64 { return float64(float32(v)) }

// Float8ToFloat4 is PostgreSQL's double precision to real cast: 22003
// "value out of range: overflow" / "... underflow" when a finite value
// becomes infinite or a non-zero value becomes zero.
func Float8ToFloat4(v float64) (float64, error) {
	r := float32(v)
	if math.IsInf(float64(r), 0) && !math.IsInf(v, 0) {
		return 0, errFloatOverflow()
	}
	if r == 0 && v != 0 {
		return 0, errFloatUnderflow()
	}
	return float64(r), nil
}

// ErrFloatOverflow is PostgreSQL's float_overflow_error: 22003 "value out
// of range: overflow".
func ErrFloatOverflow() error { return errFloatOverflow() }

func errFloatOverflow() error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
}

func errFloatUnderflow() error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: underflow")
}

// floatResult rounds an arithmetic result to t's precision (real results
// are computed in single precision, as PostgreSQL's float4 operators do).
func floatResult(t T, v float64) float64 {
	if t.ID == Float4 {
		return float64(float32(v))
	}
	return v
}

// FloatAdd returns a+b for real or double precision t, with PostgreSQL's
// 22003 "value out of range: overflow" when finite inputs overflow.
func FloatAdd(t T, a, b float64) (float64, error) {
	r := floatResult(t, a+b)
	if math.IsInf(r, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
		return 0, errFloatOverflow()
	}
	return r, nil
}

// FloatSub returns a-b for real or double precision t, with the overflow
// check of FloatAdd.
func FloatSub(t T, a, b float64) (float64, error) {
	r := floatResult(t, a-b)
	if math.IsInf(r, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
		return 0, errFloatOverflow()
	}
	return r, nil
}

// FloatMul returns a*b for real or double precision t: 22003 overflow when
// finite inputs give infinity, underflow when non-zero inputs give zero.
func FloatMul(t T, a, b float64) (float64, error) {
	r := floatResult(t, a*b)
	if math.IsInf(r, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
		return 0, errFloatOverflow()
	}
	if r == 0 && a != 0 && b != 0 {
		return 0, errFloatUnderflow()
	}
	return r, nil
}

// FloatDiv returns a/b for real or double precision t: 22012 "division by
// zero" when b is zero (unless a is NaN), and FloatMul's range checks.
func FloatDiv(t T, a, b float64) (float64, error) {
	if b == 0 && !math.IsNaN(a) {
		return 0, pgerr.New(pgerr.DivisionByZero, "division by zero")
	}
	r := floatResult(t, a/b)
	if math.IsInf(r, 0) && !math.IsInf(a, 0) {
		return 0, errFloatOverflow()
	}
	if r == 0 && a != 0 && !math.IsInf(b, 0) {
		return 0, errFloatUnderflow()
	}
	return r, nil
}

// floatToInt is the real/double precision to integer cast: round half to
// even (C's rint), then 22003 "<type> out of range" for NaN or values
// outside t.
func floatToInt(t T, v float64) (int64, error) {
	r := math.RoundToEven(v)
	lo, _ := intRange(t)
	// -float64(lo) is exactly 2^15, 2^31 or 2^63; the maximum itself may not
	// be representable in float64, so compare against that bound instead.
	if math.IsNaN(r) || r < float64(lo) || r >= -float64(lo) {
		return 0, ErrIntOutOfRange(t)
	}
	return int64(r), nil
}
