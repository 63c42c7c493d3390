package types

import (
	"math"
	"math/bits"

	"github.com/pgfed/pgfed/pgerr"
)

// intRange returns the smallest and largest value integer type t holds.
func intRange(t T) (lo, hi int64) {
	switch t.ID {
	case Int2:
		return math.MinInt16, math.MaxInt16
	case Int4:
		return math.MinInt32, math.MaxInt32
	default:
		return math.MinInt64, math.MaxInt64
	}
}

// ErrIntOutOfRange is PostgreSQL's 22003 for integer arithmetic or casts that
// leave t's range: "smallint out of range", "integer out of range",
// "bigint out of range".
func ErrIntOutOfRange(t T) error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", idNames[t.ID])
}

// checkIntRange returns v if it fits integer type t.
func checkIntRange(t T, v int64) (int64, error) {
	lo, hi := intRange(t)
	if v < lo || v > hi {
		return 0, ErrIntOutOfRange(t)
	}
	return v, nil
}

// parseInt is int2in/int4in/int8in (pg_strtoint16/32/64 in PostgreSQL 15):
// optional blanks, an optional sign, at least one digit, optional blanks.
// An overflow is reported as soon as the digits overflow, before trailing
// junk is looked at, exactly like PostgreSQL.
func parseInt(t T, s string) (int64, error) {
	lo, _ := intRange(t)
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	negative := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		negative = s[i] == '-'
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return 0, errInvalidSyntax(idNames[t.ID], s)
	}
	// Accumulate the negated value so that the most negative number fits.
	var acc int64
	for ; i < len(s) && isDigit(s[i]); i++ {
		digit := int64(s[i] - '0')
		if acc < lo/10 || acc*10 < lo+digit {
			return 0, errIntValueOutOfRange(t, s)
		}
		acc = acc*10 - digit
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return 0, errInvalidSyntax(idNames[t.ID], s)
	}
	if negative {
		return acc, nil
	}
	if acc == lo { // -lo is one more than the type's maximum
		return 0, errIntValueOutOfRange(t, s)
	}
	return -acc, nil
}

func errIntValueOutOfRange(t T, input string) error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "value \"%s\" is out of range for type %s", input, idNames[t.ID])
}

// AddInt returns a+b for integer type t (smallint, integer or bigint), or
// PostgreSQL's 22003 "<type> out of range".
func AddInt(t T, a, b int64) (int64, error) {
	sum := a + b
	// Signed overflow happened iff both operands have the sign the sum lacks.
	if (a^sum)&(b^sum) < 0 {
		return 0, ErrIntOutOfRange(t)
	}
	return checkIntRange(t, sum)
}

// SubInt returns a-b for integer type t, or 22003 "<type> out of range".
func SubInt(t T, a, b int64) (int64, error) {
	diff := a - b
	if (a^b)&(a^diff) < 0 {
		return 0, ErrIntOutOfRange(t)
	}
	return checkIntRange(t, diff)
}

// MulInt returns a*b for integer type t, or 22003 "<type> out of range".
func MulInt(t T, a, b int64) (int64, error) {
	hi, lo := bits.Mul64(uint64(absUint(a)), uint64(absUint(b)))
	negative := (a < 0) != (b < 0)
	limit := uint64(math.MaxInt64)
	if negative {
		limit++
	}
	if hi != 0 || lo > limit {
		return 0, ErrIntOutOfRange(t)
	}
	product := int64(lo) // wraps to MinInt64 for 1<<63, which is what we want when negative
	if negative {
		product = -product
	}
	return checkIntRange(t, product)
}

func absUint(v int64) uint64 {
	if v < 0 {
		return uint64(-v) // -MinInt64 wraps to 1<<63, its correct magnitude
	}
	return uint64(v)
}

// DivInt returns a/b truncated toward zero for integer type t: 22012
// "division by zero", or 22003 for the one overflowing case, MIN / -1.
func DivInt(t T, a, b int64) (int64, error) {
	if b == 0 {
		return 0, pgerr.New(pgerr.DivisionByZero, "division by zero")
	}
	if b == -1 {
		return NegInt(t, a)
	}
	return a / b, nil
}

// ModInt returns a % b (sign of a) for integer type t, or 22012 "division
// by zero". MIN % -1 is 0, as in PostgreSQL.
func ModInt(t T, a, b int64) (int64, error) {
	if b == 0 {
		return 0, pgerr.New(pgerr.DivisionByZero, "division by zero")
	}
	if b == -1 {
		return 0, nil
	}
	return a % b, nil
}

// NegInt returns -a for integer type t, or 22003 for the type's minimum.
func NegInt(t T, a int64) (int64, error) {
	lo, _ := intRange(t)
	if a == lo {
		return 0, ErrIntOutOfRange(t)
	}
	return -a, nil
}

// AbsInt returns |a| for integer type t, or 22003 for the type's minimum.
func AbsInt(t T, a int64) (int64, error) {
	if a < 0 {
		return NegInt(t, a)
	}
	return a, nil
}
