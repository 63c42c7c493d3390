package types

import (
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/pgerr"
)

// A numeric datum is an *apd.Decimal whose Exponent is minus PostgreSQL's
// display scale (dscale): 1.50 is Coeff 150, Exponent -2. Results built here
// never have a positive exponent or a negative zero; inputs with a positive
// exponent are accepted and read as scale 0.
//
// PostgreSQL stores numerics as base-10000 digits, and a few result-scale
// rules (division, sqrt, power) look at that layout; nbaseLead recreates the
// part of it they need.

// Limits of PostgreSQL's numeric (utils/numeric.h, adt/numeric.c).
const (
	numericMinSigDigits    = 16     // NUMERIC_MIN_SIG_DIGITS
	numericMaxDisplayScale = 1000   // NUMERIC_MAX_DISPLAY_SCALE
	numericMaxResultScale  = 2000   // NUMERIC_MAX_RESULT_SCALE
	numericWeightMax       = 0x7FFF // NUMERIC_WEIGHT_MAX, in base-10000 digits
	numericMaxDscale       = 0x3FFF // NUMERIC_DSCALE_MAX, the largest storable display scale
	numericMaxIntDigits    = 131072 // 32768 base-10000 digits before the decimal point
	nbaseDigits            = 4      // decimal digits per base-10000 digit (DEC_DIGITS)
)

// powersOf10 caches small powers of ten; they are shared and never mutated.
var powersOf10 = func() []*apd.BigInt {
	p := make([]*apd.BigInt, 64)
	p[0] = apd.NewBigInt(1)
	for i := 1; i < len(p); i++ {
		p[i] = new(apd.BigInt).Mul(p[i-1], apd.NewBigInt(10))
	}
	return p
}()

// pow10 returns 10^n (n >= 0). The result must not be modified.
func pow10(n int64) *apd.BigInt {
	if n < int64(len(powersOf10)) {
		return powersOf10[n]
	}
	return new(apd.BigInt).Exp(apd.NewBigInt(10), apd.NewBigInt(n), nil)
}

func errNumericOverflow() error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
}

// ErrDivisionByZero is PostgreSQL's 22012.
func ErrDivisionByZero() error {
	return pgerr.New(pgerr.DivisionByZero, "division by zero")
}

func newNaN() *apd.Decimal { return &apd.Decimal{Form: apd.NaN} }

func newInfinity(negative bool) *apd.Decimal {
	return &apd.Decimal{Form: apd.Infinite, Negative: negative}
}

func isNaN(d *apd.Decimal) bool { return d.Form == apd.NaN || d.Form == apd.NaNSignaling }

func isSpecial(d *apd.Decimal) bool { return d.Form != apd.Finite }

// numericSign is -1, 0 or +1; infinities count as their sign, NaN as 0.
func numericSign(d *apd.Decimal) int {
	switch {
	case isNaN(d):
		return 0
	case d.Form == apd.Infinite:
		if d.Negative {
			return -1
		}
		return 1
	case d.Coeff.Sign() == 0:
		return 0
	case d.Negative:
		return -1
	}
	return 1
}

// numericScale is finite d's display scale.
func numericScale(d *apd.Decimal) int32 {
	if d.Exponent >= 0 {
		return 0
	}
	return -d.Exponent
}

// scaledCoeff returns d * 10^scale as a signed integer; scale must be at
// least d's display scale.
func scaledCoeff(d *apd.Decimal, scale int32) *apd.BigInt {
	c := new(apd.BigInt).Set(&d.Coeff)
	if shift := int64(scale) + int64(d.Exponent); shift > 0 {
		c.Mul(c, pow10(shift))
	}
	if d.Negative {
		c.Neg(c)
	}
	return c
}

// numericParts returns finite d as a signed integer and its display scale.
func numericParts(d *apd.Decimal) (*apd.BigInt, int32) {
	scale := numericScale(d)
	return scaledCoeff(d, scale), scale
}

// buildNumeric returns the numeric c * 10^-scale (scale >= 0) without
// checking the storage limits.
func buildNumeric(c *apd.BigInt, scale int32) *apd.Decimal {
	d := &apd.Decimal{Exponent: -scale}
	d.Coeff.Abs(c)
	d.Negative = c.Sign() < 0
	return d
}

// makeNumeric is buildNumeric plus make_result's check that the value fits
// PostgreSQL's storage format (22003 "value overflows numeric format").
func makeNumeric(c *apd.BigInt, scale int32) (*apd.Decimal, error) {
	if scale > numericMaxDscale {
		return nil, errNumericOverflow()
	}
	d := buildNumeric(c, scale)
	if d.Coeff.Sign() != 0 && apd.NumDigits(&d.Coeff)-int64(scale) > numericMaxIntDigits {
		return nil, errNumericOverflow()
	}
	return d, nil
}

// rescaleCoeff converts the integer c, read at scale from, to scale to,
// which may be negative (rounding to tens, hundreds, ...). Dropped digits
// are rounded half away from zero (round_var) or truncated (trunc_var). The
// result is read at scale max(to, 0), as PostgreSQL never keeps a negative
// display scale.
func rescaleCoeff(c *apd.BigInt, from, to int32, round bool) (*apd.BigInt, int32) {
	newScale := max(to, 0)
	if to >= from {
		return new(apd.BigInt).Mul(c, pow10(int64(to)-int64(from))), newScale
	}
	drop := int64(from) - int64(to)
	abs := new(apd.BigInt).Abs(c)
	q := new(apd.BigInt)
	// A number with fewer digits than are dropped is below half a unit of
	// the kept digits, so it rounds to zero; skip building a huge divisor.
	if drop <= apd.NumDigits(abs) {
		unit := pow10(drop)
		r := new(apd.BigInt)
		q.QuoRem(abs, unit, r)
		if round && r.Add(r, r).Cmp(unit) >= 0 {
			q.Add(q, apd.NewBigInt(1))
		}
	}
	if to < 0 && q.Sign() != 0 {
		q.Mul(q, pow10(-int64(to)))
	}
	if c.Sign() < 0 {
		q.Neg(q)
	}
	return q, newScale
}

// nbaseLead describes |c| * 10^-scale in PostgreSQL's base-10000 layout:
// the weight of its first non-zero base-10000 digit and the value of the
// leading count base-10000 digits from there (zeros past the end). Zero is
// weight 0, value 0, as in a stripped NumericVar.
func nbaseLead(c *apd.BigInt, scale int32, count int64) (weight, lead int64) {
	if c.Sign() == 0 {
		return 0, 0
	}
	abs := new(apd.BigInt).Abs(c)
	digits := apd.NumDigits(abs)
	msd := digits - 1 - int64(scale) // 10^msd <= value < 10^(msd+1)
	weight = floorDiv(msd, nbaseDigits)
	want := msd - weight*nbaseDigits + 1 + (count-1)*nbaseDigits
	if digits >= want {
		abs.Quo(abs, pow10(digits-want))
	} else {
		abs.Mul(abs, pow10(want-digits))
	}
	return weight, abs.Int64()
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// divScale is select_div_scale: the result scale of a / b, chosen to give
// at least NUMERIC_MIN_SIG_DIGITS significant digits.
func divScale(a *apd.BigInt, aScale int32, b *apd.BigInt, bScale int32) int32 {
	weight1, first1 := nbaseLead(a, aScale, 1)
	weight2, first2 := nbaseLead(b, bScale, 1)
	// Estimate the quotient's weight; with equal first digits assume a < b.
	qweight := weight1 - weight2
	if first1 <= first2 {
		qweight--
	}
	rscale := int64(numericMinSigDigits) - qweight*nbaseDigits
	rscale = max(rscale, int64(aScale), int64(bScale), 0)
	return int32(min(rscale, numericMaxDisplayScale))
}

// quotient returns a/b (integers read at scales aScale and bScale) as an
// integer at scale rscale, rounded half away from zero or truncated.
func quotient(a *apd.BigInt, aScale int64, b *apd.BigInt, bScale int64, rscale int64, round bool) *apd.BigInt {
	num := new(apd.BigInt).Abs(a)
	den := new(apd.BigInt).Abs(b)
	if shift := rscale - aScale + bScale; shift >= 0 {
		num.Mul(num, pow10(shift))
	} else {
		den.Mul(den, pow10(-shift))
	}
	q, r := new(apd.BigInt), new(apd.BigInt)
	q.QuoRem(num, den, r)
	if round && r.Add(r, r).Cmp(den) >= 0 {
		q.Add(q, apd.NewBigInt(1))
	}
	if (a.Sign() < 0) != (b.Sign() < 0) {
		q.Neg(q)
	}
	return q
}

// NumericFromInt64 returns v as a numeric of scale 0.
func NumericFromInt64(v int64) *apd.Decimal {
	return buildNumeric(new(apd.BigInt).SetInt64(v), 0)
}

// NumericFromString reads numeric text (the Arrow storage format, and any
// other numeric input PostgreSQL accepts), keeping its display scale.
func NumericFromString(s string) (*apd.Decimal, error) {
	return parseNumeric(s, NumericT)
}

// NumericAdd returns a+b with scale max(scale(a), scale(b)).
func NumericAdd(a, b *apd.Decimal) (*apd.Decimal, error) {
	if isSpecial(a) || isSpecial(b) {
		return addSpecial(a, b, false), nil
	}
	scale := max(numericScale(a), numericScale(b))
	sum := new(apd.BigInt).Add(scaledCoeff(a, scale), scaledCoeff(b, scale))
	return makeNumeric(sum, scale)
}

// NumericSub returns a-b with scale max(scale(a), scale(b)).
func NumericSub(a, b *apd.Decimal) (*apd.Decimal, error) {
	if isSpecial(a) || isSpecial(b) {
		return addSpecial(a, b, true), nil
	}
	scale := max(numericScale(a), numericScale(b))
	diff := new(apd.BigInt).Sub(scaledCoeff(a, scale), scaledCoeff(b, scale))
	return makeNumeric(diff, scale)
}

// addSpecial is a±b when either is NaN or infinite: opposite infinities
// cancel to NaN, otherwise the infinity wins.
func addSpecial(a, b *apd.Decimal, subtract bool) *apd.Decimal {
	if isNaN(a) || isNaN(b) {
		return newNaN()
	}
	bNegative := b.Negative != subtract
	if a.Form == apd.Infinite {
		if b.Form == apd.Infinite && a.Negative != bNegative {
			return newNaN()
		}
		return newInfinity(a.Negative)
	}
	return newInfinity(bNegative)
}

// NumericMul returns the exact product, scale scale(a)+scale(b) (rounded
// only if that exceeds the largest storable scale).
func NumericMul(a, b *apd.Decimal) (*apd.Decimal, error) {
	if isSpecial(a) || isSpecial(b) {
		if isNaN(a) || isNaN(b) {
			return newNaN(), nil
		}
		switch numericSign(a) * numericSign(b) {
		case 0: // infinity times zero
			return newNaN(), nil
		case 1:
			return newInfinity(false), nil
		default:
			return newInfinity(true), nil
		}
	}
	aCoeff, aScale := numericParts(a)
	bCoeff, bScale := numericParts(b)
	product := new(apd.BigInt).Mul(aCoeff, bCoeff)
	scale := aScale + bScale
	if scale > numericMaxDscale {
		product, scale = rescaleCoeff(product, scale, numericMaxDscale, true)
	}
	return makeNumeric(product, scale)
}

// NumericDiv returns a/b rounded half away from zero to the scale
// PostgreSQL's select_div_scale picks; 22012 "division by zero".
func NumericDiv(a, b *apd.Decimal) (*apd.Decimal, error) {
	if isSpecial(a) || isSpecial(b) {
		return divSpecial(a, b)
	}
	aCoeff, aScale := numericParts(a)
	bCoeff, bScale := numericParts(b)
	if bCoeff.Sign() == 0 {
		return nil, ErrDivisionByZero()
	}
	rscale := divScale(aCoeff, aScale, bCoeff, bScale)
	return makeNumeric(quotient(aCoeff, int64(aScale), bCoeff, int64(bScale), int64(rscale), true), rscale)
}

func divSpecial(a, b *apd.Decimal) (*apd.Decimal, error) {
	if isNaN(a) || isNaN(b) {
		return newNaN(), nil
	}
	if a.Form == apd.Infinite {
		if b.Form == apd.Infinite {
			return newNaN(), nil
		}
		switch numericSign(b) {
		case 0:
			return nil, ErrDivisionByZero()
		case 1:
			return newInfinity(a.Negative), nil
		default:
			return newInfinity(!a.Negative), nil
		}
	}
	// A finite number divided by an infinity: PostgreSQL returns plain 0.
	return NumericFromInt64(0), nil
}

// NumericMod returns a - trunc(a/b)*b (the sign of a), scale
// max(scale(a), scale(b)); 22012 "division by zero".
func NumericMod(a, b *apd.Decimal) (*apd.Decimal, error) {
	if isSpecial(a) || isSpecial(b) {
		if isNaN(a) || isNaN(b) {
			return newNaN(), nil
		}
		if a.Form == apd.Infinite {
			if numericSign(b) == 0 {
				return nil, ErrDivisionByZero()
			}
			return newNaN(), nil
		}
		return a, nil // finite % infinity is the dividend
	}
	scale := max(numericScale(a), numericScale(b))
	divisor := scaledCoeff(b, scale)
	if divisor.Sign() == 0 {
		return nil, ErrDivisionByZero()
	}
	rem := new(apd.BigInt).Rem(scaledCoeff(a, scale), divisor)
	return makeNumeric(rem, scale)
}

// NumericNeg returns -a; zero stays unsigned.
func NumericNeg(a *apd.Decimal) *apd.Decimal {
	if isNaN(a) {
		return a
	}
	r := new(apd.Decimal).Set(a)
	r.Negative = !a.Negative && (a.Form == apd.Infinite || a.Coeff.Sign() != 0)
	return r
}

// NumericAbs returns |a| with a's scale.
func NumericAbs(a *apd.Decimal) *apd.Decimal {
	if !a.Negative {
		return a
	}
	r := new(apd.Decimal).Set(a)
	r.Negative = false
	return r
}

// NumericRound is round(numeric, int): a rounded half away from zero to
// scale digits after the point (before it when scale is negative). The
// result's display scale is max(scale, 0), so round(1.5, 3) is 1.500.
// As in numeric_round, scale is clamped to what a numeric can hold (up to
// NUMERIC_DSCALE_MAX digits after the point), and a result that rounds up
// past the largest numeric is 22003 "value overflows numeric format".
func NumericRound(a *apd.Decimal, scale int32) (*apd.Decimal, error) {
	return roundOrTrunc(a, scale, true)
}

// NumericTrunc is trunc(numeric, int): like NumericRound but truncating.
func NumericTrunc(a *apd.Decimal, scale int32) (*apd.Decimal, error) {
	return roundOrTrunc(a, scale, false)
}

func roundOrTrunc(a *apd.Decimal, scale int32, round bool) (*apd.Decimal, error) {
	if isSpecial(a) {
		return a, nil
	}
	// numeric_round allows one more digit before the point than
	// numeric_trunc, as the most significant digit may round up.
	minScale := int32(-(numericWeightMax + 1) * nbaseDigits)
	if round {
		minScale--
	}
	scale = min(max(scale, minScale), numericMaxDscale)
	c, from := numericParts(a)
	return makeNumeric(rescaleCoeff(c, from, scale, round))
}

// NumericFloor returns the largest integer <= a (scale 0).
func NumericFloor(a *apd.Decimal) *apd.Decimal {
	return toIntegral(a, -1)
}

// NumericCeil returns the smallest integer >= a (scale 0).
func NumericCeil(a *apd.Decimal) *apd.Decimal {
	return toIntegral(a, 1)
}

// toIntegral truncates a to an integer and, if that dropped a non-zero
// fraction on the side given by direction (-1 floor, +1 ceil), steps once.
func toIntegral(a *apd.Decimal, direction int) *apd.Decimal {
	if isSpecial(a) {
		return a
	}
	c, scale := numericParts(a)
	whole, _ := rescaleCoeff(c, scale, 0, false)
	back, _ := rescaleCoeff(whole, 0, scale, false)
	if back.Cmp(c) != 0 && c.Sign() == direction {
		whole.Add(whole, apd.NewBigInt(int64(direction)))
	}
	return buildNumeric(whole, 0)
}

// NumericSqrt returns the square root with at least 16 significant digits
// and no less than a's scale (PostgreSQL's numeric_sqrt), correctly rounded.
// Negative input is 2201F "cannot take square root of a negative number".
func NumericSqrt(a *apd.Decimal) (*apd.Decimal, error) {
	if numericSign(a) < 0 {
		return nil, pgerr.New(pgerr.InvalidArgumentForPowerFunc, "cannot take square root of a negative number")
	}
	if isSpecial(a) {
		return a, nil
	}
	c, scale := numericParts(a)
	weight, _ := nbaseLead(c, scale, 1)
	// Decimal weight of the root, from the base-10000 weight of the input.
	sweight := (weight+1)*nbaseDigits/2 - 1
	rscale := int64(numericMinSigDigits) - sweight
	rscale = min(max(rscale, int64(scale), 0), numericMaxDisplayScale)
	// Take the root with one digit more than needed; rounding that digit
	// gives the correctly rounded result, as the rest only ever lowers it.
	// floor(sqrt(floor(x))) is floor(sqrt(x)), so digits of the radicand
	// below what the root needs may be dropped (tiny inputs at large scales).
	radicand := new(apd.BigInt)
	if shift := 2*(rscale+1) - int64(scale); shift >= 0 {
		radicand.Mul(c, pow10(shift))
	} else {
		radicand.Quo(c, pow10(-shift))
	}
	root := new(apd.BigInt).Sqrt(radicand)
	rounded, _ := rescaleCoeff(root, int32(rscale)+1, int32(rscale), true)
	return makeNumeric(rounded, int32(rscale))
}

// NumericAvg is avg()'s final value, sum / count through numeric division
// (so avg of 1 and 2 is 1.5000000000000000). count is the number of
// non-NULL inputs; for 0 the result is SQL NULL, returned as nil.
func NumericAvg(sum *apd.Decimal, count int64) (*apd.Decimal, error) {
	if count == 0 {
		return nil, nil
	}
	return NumericDiv(sum, NumericFromInt64(count))
}

// NumericPower is power(numeric, numeric) / numeric ^ numeric. An integer
// exponent gives scale max(16, scale(a)); other exponents give about 16
// significant digits (at least the scales of a and b), as in PostgreSQL 15.
// Errors: 2201F for zero to a negative power and a negative number to a
// non-integer power, 22003 "value overflows numeric format".
func NumericPower(a, b *apd.Decimal) (*apd.Decimal, error) {
	if isSpecial(a) || isSpecial(b) {
		return powerSpecial(a, b)
	}
	if numericSign(a) == 0 && numericSign(b) < 0 {
		return nil, errZeroToNegativePower()
	}
	if n, ok := numericToInt32(b); ok {
		return powerInt(a, n)
	}
	return powerGeneral(a, b)
}

func errZeroToNegativePower() error {
	return pgerr.New(pgerr.InvalidArgumentForPowerFunc, "zero raised to a negative power is undefined")
}

func errComplexPower() error {
	return pgerr.New(pgerr.InvalidArgumentForPowerFunc, "a negative number raised to a non-integer power yields a complex result")
}

// isIntegral reports whether finite d has no non-zero fractional digits.
func isIntegral(d *apd.Decimal) bool {
	c, scale := numericParts(d)
	whole, _ := rescaleCoeff(c, scale, 0, false)
	back, _ := rescaleCoeff(whole, 0, scale, false)
	return back.Cmp(c) == 0
}

// numericToInt32 returns d's value if it is an integer within int32.
func numericToInt32(d *apd.Decimal) (int32, bool) {
	if !isIntegral(d) {
		return 0, false
	}
	c, scale := numericParts(d)
	whole, _ := rescaleCoeff(c, scale, 0, false)
	if !whole.IsInt64() || whole.Int64() < math.MinInt32 || whole.Int64() > math.MaxInt32 {
		return 0, false
	}
	return int32(whole.Int64()), true
}

// powerSpecial follows POSIX pow() for NaN and infinite inputs, as
// PostgreSQL does.
func powerSpecial(a, b *apd.Decimal) (*apd.Decimal, error) {
	one := NumericFromInt64(1)
	if isNaN(a) {
		if !isSpecial(b) && numericSign(b) == 0 {
			return one, nil
		}
		return newNaN(), nil
	}
	if isNaN(b) {
		if !isSpecial(a) && a.Cmp(one) == 0 {
			return one, nil
		}
		return newNaN(), nil
	}
	signA, signB := numericSign(a), numericSign(b)
	if signA == 0 && signB < 0 {
		return nil, errZeroToNegativePower()
	}
	if signA < 0 && !isSpecial(b) && !isIntegral(b) {
		return nil, errComplexPower()
	}
	if !isSpecial(a) && a.Cmp(one) == 0 {
		return one, nil
	}
	if signB == 0 {
		return one, nil
	}
	zero := NumericFromInt64(0)
	if signA == 0 && signB > 0 {
		return zero, nil
	}
	if b.Form == apd.Infinite {
		absAGreaterThanOne := true // a is an infinity unless set below
		if !isSpecial(a) {
			if a.Cmp(NumericFromInt64(-1)) == 0 {
				return one, nil
			}
			absAGreaterThanOne = NumericAbs(a).Cmp(one) > 0
		}
		if absAGreaterThanOne == (signB > 0) {
			return newInfinity(false), nil
		}
		return zero, nil
	}
	if !a.Negative { // +Infinity
		if signB > 0 {
			return newInfinity(false), nil
		}
		return zero, nil
	}
	// -Infinity to a finite non-zero power.
	if signB < 0 {
		return zero, nil
	}
	return newInfinity(isOddInteger(b)), nil
}

// isOddInteger reports whether finite d is an odd integer.
func isOddInteger(d *apd.Decimal) bool {
	if !isIntegral(d) {
		return false
	}
	c, scale := numericParts(d)
	whole, _ := rescaleCoeff(c, scale, 0, false)
	return whole.Bit(0) == 1
}

// powerInt is power_var_int's contract: base^n at scale
// max(NUMERIC_MIN_SIG_DIGITS, scale(base)) capped at 1000, correctly rounded.
func powerInt(base *apd.Decimal, n int32) (*apd.Decimal, error) {
	c, scale := numericParts(base)
	rscale := min(max(int32(numericMinSigDigits), scale), numericMaxDisplayScale)
	switch n {
	case 0:
		return buildNumeric(pow10(int64(rscale)), rscale), nil
	case 1:
		return makeNumeric(rescaleCoeff(c, scale, rscale, true))
	case -1:
		return makeNumeric(quotient(apd.NewBigInt(1), 0, c, int64(scale), int64(rscale), true), rscale)
	case 2:
		square := new(apd.BigInt).Mul(c, c)
		return makeNumeric(rescaleCoeff(square, 2*scale, rscale, true))
	}
	if c.Sign() == 0 {
		return buildNumeric(new(apd.BigInt), rscale), nil
	}
	// Estimate log10 of the result from the leading 16 digits of base, the
	// way PostgreSQL does, for its early overflow and underflow exits.
	weight, lead := nbaseLead(c, scale, 4)
	logResult := float64(n) * (math.Log10(float64(lead)) + float64((weight-3)*nbaseDigits))
	if logResult > 3*math.MaxInt16*nbaseDigits {
		return nil, errNumericOverflow()
	}
	if logResult+1 < -float64(rscale) || logResult+1 < -numericMaxDisplayScale {
		return buildNumeric(new(apd.BigInt), rscale), nil
	}
	sigDigits := 1 + int64(rscale) + int64(logResult)
	sigDigits += int64(math.Log(math.Abs(float64(n)))) + 8
	mantissa, exp10 := powTruncated(new(apd.BigInt).Abs(c), -int64(scale), uint64(absInt64(int64(n))), sigDigits+10)
	var result *apd.BigInt
	if n > 0 {
		result = scaleTo(mantissa, exp10, rscale)
	} else {
		// 1 / (mantissa * 10^exp10), the mantissa read at scale -exp10.
		result = quotient(apd.NewBigInt(1), 0, mantissa, -exp10, int64(rscale), true)
	}
	if c.Sign() < 0 && n%2 != 0 {
		result.Neg(result)
	}
	return makeNumeric(result, rscale)
}

func absInt64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// scaleTo rounds mantissa * 10^exp10 to an integer at scale rscale.
func scaleTo(mantissa *apd.BigInt, exp10 int64, rscale int32) *apd.BigInt {
	if exp10+int64(rscale) >= 0 {
		return new(apd.BigInt).Mul(mantissa, pow10(exp10+int64(rscale)))
	}
	r, _ := rescaleCoeff(mantissa, int32(-exp10), rscale, true)
	return r
}

// powTruncated returns mantissa, exp10 with mantissa * 10^exp10 close to
// (x * 10^xExp10)^n, by square-and-multiply keeping at least precision
// significant digits; it is exact whenever the exact result has no more.
func powTruncated(x *apd.BigInt, xExp10 int64, n uint64, precision int64) (*apd.BigInt, int64) {
	result, resultExp := apd.NewBigInt(1), int64(0)
	square, squareExp := new(apd.BigInt).Set(x), xExp10
	keep := func(m *apd.BigInt, e *int64) {
		if digits := apd.NumDigits(m); digits > precision {
			m.Quo(m, pow10(digits-precision))
			*e += digits - precision
		}
	}
	for {
		if n&1 == 1 {
			result.Mul(result, square)
			resultExp += squareExp
			keep(result, &resultExp)
		}
		n >>= 1
		if n == 0 {
			return result, resultExp
		}
		square.Mul(square, square)
		squareExp *= 2
		keep(square, &squareExp)
	}
}

// parseNumeric is numeric_in with t's typmod: blanks; NaN, [+-]Infinity or
// [+-]inf in any case; or digits with an optional point and exponent;
// blanks. The display scale is the number of fraction digits minus the
// exponent (never negative).
func parseNumeric(s string, t T) (*apd.Decimal, error) {
	start := 0
	for start < len(s) && isSpace(s[start]) {
		start++
	}
	rest := s[start:]
	for _, special := range numericSpecialInputs {
		if hasPrefixFold(rest, special.text) {
			if trimSpaces(rest[len(special.text):]) != "" {
				return nil, errInvalidSyntax("numeric", s)
			}
			d := newNaN()
			if special.infinite {
				d = newInfinity(special.negative)
			}
			return applyNumericTypmod(d, t)
		}
	}
	parsed, ok := scanNumeric(rest)
	if !ok {
		return nil, errInvalidSyntax("numeric", s)
	}
	if parsed.exponentOverflow {
		return nil, errNumericOverflow()
	}
	return parsed.build(t)
}

var numericSpecialInputs = []struct {
	text               string
	infinite, negative bool
}{
	{"NaN", false, false},
	{"Infinity", true, false},
	{"+Infinity", true, false},
	{"-Infinity", true, true},
	{"inf", true, false},
	{"+inf", true, false},
	{"-inf", true, true},
}

// scannedNumeric is numeric text taken apart: value = digits * 10^-naturalScale.
type scannedNumeric struct {
	negative         bool
	digits           string // all mantissa digits, leading zeros included
	naturalScale     int64  // fraction digits minus exponent; may be negative
	exponentOverflow bool
}

// scanNumeric is set_var_from_str plus numeric_in's trailing-blank check.
func scanNumeric(s string) (scannedNumeric, bool) {
	var n scannedNumeric
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		n.negative = s[i] == '-'
		i++
	}
	seenPoint := false
	if i < len(s) && s[i] == '.' {
		seenPoint = true
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return n, false
	}
	digits := make([]byte, 0, len(s))
	fractionDigits := int64(0)
	for ; i < len(s); i++ {
		c := s[i]
		if isDigit(c) {
			digits = append(digits, c)
			if seenPoint {
				fractionDigits++
			}
		} else if c == '.' {
			if seenPoint {
				return n, false
			}
			seenPoint = true
		} else {
			break
		}
	}
	n.digits = string(digits)
	exponent := int64(0)
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		// The exponent is read with strtol: blanks, a sign, digits.
		j := i + 1
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		negativeExp := false
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			negativeExp = s[j] == '-'
			j++
		}
		if j >= len(s) || !isDigit(s[j]) {
			return n, false
		}
		for ; j < len(s) && isDigit(s[j]); j++ {
			if exponent < math.MaxInt32 {
				exponent = exponent*10 + int64(s[j]-'0')
			}
		}
		if negativeExp {
			exponent = -exponent
		}
		// PostgreSQL refuses exponents beyond INT_MAX/2 outright, before
		// looking at what follows.
		if exponent >= math.MaxInt32/2 || exponent <= -(math.MaxInt32/2) {
			n.exponentOverflow = true
			return n, true
		}
		i = j
	}
	if trimSpaces(s[i:]) != "" {
		return n, false
	}
	n.naturalScale = fractionDigits - exponent
	return n, true
}

// build turns scanned text into a numeric, applying t's typmod before the
// storage-format limits are checked, in numeric_in's order.
func (n scannedNumeric) build(t T) (*apd.Decimal, error) {
	significant := int64(len(n.digits))
	for k := 0; k < len(n.digits) && n.digits[k] == '0'; k++ {
		significant--
	}
	// Refuse numbers too long to materialize before building them.
	if significant > 0 && significant-n.naturalScale > numericMaxIntDigits {
		if t.Precision > 0 {
			return nil, errNumericFieldOverflow(t)
		}
		return nil, errNumericOverflow()
	}
	c := new(apd.BigInt)
	if significant > 0 {
		c.SetString(n.digits, 10) // scanNumeric checked these are digits
		if n.negative {
			c.Neg(c)
		}
	}
	scale := n.naturalScale
	if scale < 0 {
		if significant > 0 {
			c.Mul(c, pow10(-scale))
		}
		scale = 0
	}
	if scale > math.MaxInt32 {
		return nil, errNumericOverflow()
	}
	d := buildNumeric(c, int32(scale))
	d, err := applyNumericTypmod(d, t)
	if err != nil {
		return nil, err
	}
	return makeNumeric(numericParts(d))
}

// applyNumericTypmod is apply_typmod for numeric(p,s): round to s digits,
// then 22003 "numeric field overflow" if more than p-s digits remain before
// the point. NaN passes; infinities do not fit any numeric(p,s).
func applyNumericTypmod(d *apd.Decimal, t T) (*apd.Decimal, error) {
	if t.Precision <= 0 || isNaN(d) {
		return d, nil
	}
	if d.Form == apd.Infinite {
		return nil, pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow").
			WithDetail("A field with precision %d, scale %d cannot hold an infinite value.", t.Precision, t.Scale)
	}
	c, scale := numericParts(d)
	rounded, newScale := rescaleCoeff(c, scale, int32(t.Scale), true)
	if rounded.Sign() != 0 {
		abs := new(apd.BigInt).Abs(rounded)
		if apd.NumDigits(abs)-int64(newScale) > int64(t.Precision)-int64(t.Scale) {
			return nil, errNumericFieldOverflow(t)
		}
	}
	return buildNumeric(rounded, newScale), nil
}

func errNumericFieldOverflow(t T) error {
	maxDigits := int(t.Precision) - int(t.Scale)
	bound := "1"
	if maxDigits != 0 {
		bound = "10^" + strconv.Itoa(maxDigits)
	}
	return pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow").
		WithDetail("A field with precision %d, scale %d must round to an absolute value less than %s.", t.Precision, t.Scale, bound)
}

// appendNumeric appends numeric_out's text: plain notation with exactly the
// display scale's digits after the point; NaN, Infinity, -Infinity.
func appendNumeric(buf []byte, d *apd.Decimal) []byte {
	switch {
	case isNaN(d):
		return append(buf, "NaN"...)
	case d.Form == apd.Infinite:
		if d.Negative {
			return append(buf, "-Infinity"...)
		}
		return append(buf, "Infinity"...)
	}
	zero := d.Coeff.Sign() == 0
	if d.Negative && !zero {
		buf = append(buf, '-')
	}
	start := len(buf)
	buf = d.Coeff.Append(buf, 10)
	if d.Exponent >= 0 {
		if !zero {
			for i := int32(0); i < d.Exponent; i++ {
				buf = append(buf, '0')
			}
		}
		return buf
	}
	scale := int(-d.Exponent)
	digits := len(buf) - start
	if digits <= scale {
		// Make room for "0." and the leading zeros, then shift the digits.
		pad := scale - digits + 2
		for i := 0; i < pad; i++ {
			buf = append(buf, 0)
		}
		copy(buf[start+pad:], buf[start:start+digits])
		buf[start] = '0'
		buf[start+1] = '.'
		for i := start + 2; i < start+pad; i++ {
			buf[i] = '0'
		}
		return buf
	}
	point := start + digits - scale
	buf = append(buf, 0)
	copy(buf[point+1:], buf[point:len(buf)-1])
	buf[point] = '.'
	return buf
}

// numericToInt is the numeric to smallint/integer/bigint cast: round half
// away from zero, then 22003 "<type> out of range"; NaN and infinities are
// 0A000 "cannot convert NaN to integer" and the like.
func numericToInt(d *apd.Decimal, t T) (int64, error) {
	if isNaN(d) {
		return 0, pgerr.New(pgerr.FeatureNotSupported, "cannot convert NaN to %s", idNames[t.ID])
	}
	if d.Form == apd.Infinite {
		return 0, pgerr.New(pgerr.FeatureNotSupported, "cannot convert infinity to %s", idNames[t.ID])
	}
	c, scale := numericParts(d)
	whole, _ := rescaleCoeff(c, scale, 0, true)
	if !whole.IsInt64() {
		return 0, ErrIntOutOfRange(t)
	}
	return checkIntRange(t, whole.Int64())
}

// numericToFloat is numeric_float8/numeric_float4: the numeric's text read
// by the float input function, so rounding and range errors match.
func numericToFloat(d *apd.Decimal, bitSize int) (float64, error) {
	switch {
	case isNaN(d):
		return math.NaN(), nil
	case d.Form == apd.Infinite:
		if d.Negative {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	}
	return parseFloat(string(appendNumeric(nil, d)), bitSize)
}

// floatToNumeric is float8_numeric/float4_numeric: the value printed with
// 15 (double) or 6 (real) significant digits, then read as numeric, so
// 0.1::float8::numeric is exactly 0.1.
func floatToNumeric(v float64, bitSize int) *apd.Decimal {
	switch {
	case math.IsNaN(v):
		return newNaN()
	case math.IsInf(v, 0):
		return newInfinity(v < 0)
	}
	significant := 15
	if bitSize == 32 {
		significant = 6
	}
	d, err := parseNumeric(strconv.FormatFloat(v, 'g', significant, 64), NumericT)
	if err != nil {
		// %g output is always valid numeric input within the limits.
		panic(err)
	}
	return d
}

// ParseScaledNumeric reads numeric text (as pgfed stores it: [-]digits[.
// digits]) of at most 18 digits as an integer at its display scale, for
// kernels that add such values in int64 (sum and avg of numeric); false
// for anything else (NaN, infinities, longer values), which they treat
// with the decimal arithmetic.
func ParseScaledNumeric(s string) (v int64, scale int32, ok bool) {
	i, neg := 0, false
	if i < len(s) && s[i] == '-' {
		neg, i = true, 1
	}
	digits, dot := 0, -1
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
			if digits > 18 {
				return 0, 0, false
			}
			v = v*10 + int64(c-'0')
		case c == '.' && dot < 0:
			dot = i
		default:
			return 0, 0, false
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	if dot >= 0 {
		scale = int32(len(s) - dot - 1)
	}
	if neg {
		v = -v
	}
	return v, scale, true
}

// NumericFromScaled is the numeric v / 10^scale, with display scale scale.
func NumericFromScaled(v int64, scale int32) (*apd.Decimal, error) {
	return makeNumeric(apd.NewBigInt(v), scale)
}
