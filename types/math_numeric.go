package types

// Mathematical functions of numeric with PostgreSQL 15's result scales
// (numeric.c): ln, log, log10, exp, div, gcd, lcm, factorial, sign,
// scale, min_scale, trim_scale and width_bucket.

import (
	"math"
	"math/big"

	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/pgerr"
)

// estimateLnDweight is estimate_ln_dweight: the decimal weight of ln(a)
// for a positive finite a, estimated as PostgreSQL does (from a - 1 near
// one, else in double precision from the two leading base-10000 digits).
func estimateLnDweight(c *apd.BigInt, scale int32) int64 {
	if c.Sign() <= 0 {
		return 0
	}
	one := pow10(int64(scale))
	nine := new(apd.BigInt).Mul(one, apd.NewBigInt(9))
	eleven := new(apd.BigInt).Mul(one, apd.NewBigInt(11))
	ten := new(apd.BigInt).Mul(c, apd.NewBigInt(10))
	if ten.Cmp(nine) >= 0 && ten.Cmp(eleven) <= 0 {
		x := new(apd.BigInt).Sub(c, one)
		if x.Sign() == 0 {
			return 0
		}
		x.Abs(x)
		return apd.NumDigits(x) - 1 - int64(scale)
	}
	weight, lead := nbaseLead(c, scale, 2)
	dweight := weight*nbaseDigits - nbaseDigits
	ln := math.Log(float64(lead)) + float64(dweight)*2.302585092994046
	return int64(math.Log10(math.Abs(ln)))
}

// lnRounded returns ln(c * 10^-scale) (c > 0) rounded half away from zero
// to rscale digits after the point, as an integer at that scale.
func lnRounded(c *apd.BigInt, scale int32, rscale int64) *big.Int {
	const guard = 12
	v := lnFixed(c.MathBigInt(), int64(scale), rscale+guard)
	return dropDigits(v, guard)
}

func checkLogArg(a *apd.Decimal) error {
	switch numericSign(a) {
	case 0:
		return errLogZero()
	case -1:
		return errLogNegative()
	}
	return nil
}

func clampDisplayScale(rscale int64) int64 {
	return min(max(rscale, 0), numericMaxDisplayScale)
}

// NumericLn is ln(numeric): at least 16 significant digits and a's scale.
func NumericLn(a *apd.Decimal) (*apd.Decimal, error) {
	if isNaN(a) {
		return a, nil
	}
	if err := checkLogArg(a); err != nil {
		return nil, err
	}
	if a.Form == apd.Infinite {
		return a, nil
	}
	c, scale := numericParts(a)
	rscale := clampDisplayScale(max(numericMinSigDigits-estimateLnDweight(c, scale), int64(scale)))
	return makeNumeric(new(apd.BigInt).SetMathBigInt(lnRounded(c, scale, rscale)), int32(rscale))
}

// NumericLog is log(base, num) (log_var); log(num) and log10(num) are
// log(10, num).
func NumericLog(base, num *apd.Decimal) (*apd.Decimal, error) {
	if isSpecial(base) || isSpecial(num) {
		if isNaN(base) || isNaN(num) {
			return newNaN(), nil
		}
		if err := checkLogArg(base); err != nil {
			return nil, err
		}
		if err := checkLogArg(num); err != nil {
			return nil, err
		}
		if base.Form == apd.Infinite {
			if num.Form == apd.Infinite {
				return newNaN(), nil
			}
			return NumericFromInt64(0), nil
		}
		return num, nil
	}
	if err := checkLogArg(base); err != nil {
		return nil, err
	}
	if err := checkLogArg(num); err != nil {
		return nil, err
	}
	bc, bs := numericParts(base)
	nc, ns := numericParts(num)
	lnBaseDweight := estimateLnDweight(bc, bs)
	lnNumDweight := estimateLnDweight(nc, ns)
	resultDweight := lnNumDweight - lnBaseDweight
	rscale := clampDisplayScale(max(numericMinSigDigits-resultDweight, int64(bs), int64(ns)))
	lnBaseScale := max(rscale+resultDweight-lnBaseDweight+8, 0)
	lnNumScale := max(rscale+resultDweight-lnNumDweight+8, 0)
	lnBase := lnRounded(bc, bs, lnBaseScale)
	lnNum := lnRounded(nc, ns, lnNumScale)
	if lnBase.Sign() == 0 {
		return nil, ErrDivisionByZero()
	}
	q := quotient(new(apd.BigInt).SetMathBigInt(lnNum), lnNumScale, new(apd.BigInt).SetMathBigInt(lnBase), lnBaseScale, rscale, true)
	return makeNumeric(q, int32(rscale))
}

// NumericLog10 is log(numeric) and log10(numeric): log(10, a).
func NumericLog10(a *apd.Decimal) (*apd.Decimal, error) {
	return NumericLog(NumericFromInt64(10), a)
}

// NumericExp is exp(numeric).
func NumericExp(a *apd.Decimal) (*apd.Decimal, error) {
	if isNaN(a) {
		return a, nil
	}
	if a.Form == apd.Infinite {
		if a.Negative {
			return NumericFromInt64(0), nil
		}
		return a, nil
	}
	c, scale := numericParts(a)
	val, _ := new(big.Float).Quo(new(big.Float).SetInt(c.MathBigInt()), new(big.Float).SetInt(bigPow10(int64(scale)))).Float64()
	w := val * 0.434294481903252
	w = min(max(w, -numericMaxResultScale), numericMaxResultScale)
	rscale := clampDisplayScale(max(numericMinSigDigits-int64(w), int64(scale)))
	if math.Abs(val) >= numericMaxResultScale*3 {
		if val > 0 {
			return nil, errNumericOverflow()
		}
		return buildNumeric(new(apd.BigInt), int32(rscale)), nil
	}
	resultWeight := int64(w)
	expScale := max(rscale+resultWeight, 0) + 12
	y := dropDigits(c.MathBigInt(), int64(scale)-expScale)
	m, mScale, twos := expFixed(y, expScale)
	numerator, denominator := m, big.NewInt(1)
	if twos >= 0 {
		numerator.Lsh(numerator, uint(twos))
	} else {
		denominator.Lsh(denominator, uint(-twos))
	}
	rounded := quotient(new(apd.BigInt).SetMathBigInt(numerator), mScale,
		new(apd.BigInt).SetMathBigInt(denominator), 0, rscale, true)
	return makeNumeric(rounded, int32(rscale))
}

// NumericDivTrunc is div(numeric, numeric): the quotient truncated
// toward zero, scale 0.
func NumericDivTrunc(a, b *apd.Decimal) (*apd.Decimal, error) {
	if isSpecial(a) || isSpecial(b) {
		if isNaN(a) || isNaN(b) {
			return newNaN(), nil
		}
		if a.Form == apd.Infinite {
			if isSpecial(b) {
				return newNaN(), nil
			}
			switch numericSign(b) {
			case 0:
				return nil, ErrDivisionByZero()
			case 1:
				return a, nil
			}
			return newInfinity(!a.Negative), nil
		}
		return NumericFromInt64(0), nil
	}
	ac, as := numericParts(a)
	bc, bs := numericParts(b)
	if bc.Sign() == 0 {
		return nil, ErrDivisionByZero()
	}
	return makeNumeric(quotient(ac, int64(as), bc, int64(bs), 0, false), 0)
}

// NumericGcd is gcd(numeric, numeric), scale max(scale(a), scale(b));
// NumericLcm is lcm. Infinities and NaN give NaN.
func NumericGcd(a, b *apd.Decimal) (*apd.Decimal, error) {
	if isSpecial(a) || isSpecial(b) {
		return newNaN(), nil
	}
	s := max(numericScale(a), numericScale(b))
	x, y := scaledCoeff(a, s).MathBigInt(), scaledCoeff(b, s).MathBigInt()
	g := new(big.Int).GCD(nil, nil, x.Abs(x), y.Abs(y))
	return makeNumeric(new(apd.BigInt).SetMathBigInt(g), s)
}

// NumericLcm is lcm(numeric, numeric).
func NumericLcm(a, b *apd.Decimal) (*apd.Decimal, error) {
	if isSpecial(a) || isSpecial(b) {
		return newNaN(), nil
	}
	s := max(numericScale(a), numericScale(b))
	x, y := scaledCoeff(a, s).MathBigInt(), scaledCoeff(b, s).MathBigInt()
	x.Abs(x)
	y.Abs(y)
	if x.Sign() == 0 || y.Sign() == 0 {
		return buildNumeric(new(apd.BigInt), s), nil
	}
	g := new(big.Int).GCD(nil, nil, x, y)
	l := new(big.Int).Quo(x, g)
	l.Mul(l, y)
	return makeNumeric(new(apd.BigInt).SetMathBigInt(l), s)
}

// NumericFactorial is factorial(bigint).
func NumericFactorial(n int64) (*apd.Decimal, error) {
	if n < 0 {
		return nil, pgerr.New(pgerr.NumericValueOutOfRange, "factorial of a negative number is undefined")
	}
	if n <= 1 {
		return NumericFromInt64(1), nil
	}
	if n > 32177 {
		return nil, errNumericOverflow()
	}
	r := new(big.Int).MulRange(1, n)
	return makeNumeric(new(apd.BigInt).SetMathBigInt(r), 0)
}

// NumericSign is sign(numeric): -1, 0 or 1 (scale 0); NaN stays NaN.
func NumericSign(a *apd.Decimal) *apd.Decimal {
	if isNaN(a) {
		return a
	}
	return NumericFromInt64(int64(numericSign(a)))
}

// NumericScale is scale(numeric); ok is false (SQL NULL) for NaN and the
// infinities.
func NumericScale(a *apd.Decimal) (int64, bool) {
	if isSpecial(a) {
		return 0, false
	}
	return int64(numericScale(a)), true
}

// NumericMinimumScale is min_scale(numeric): the fewest digits after the point
// that represent a exactly; ok is false for NaN and the infinities.
func NumericMinimumScale(a *apd.Decimal) (int64, bool) {
	if isSpecial(a) {
		return 0, false
	}
	c, s := numericParts(a)
	if c.Sign() == 0 {
		return 0, true
	}
	c.Abs(c)
	ten, r := apd.NewBigInt(10), new(apd.BigInt)
	for s > 0 {
		q := new(apd.BigInt)
		q.QuoRem(c, ten, r)
		if r.Sign() != 0 {
			break
		}
		c, s = q, s-1
	}
	return int64(s), true
}

// NumericTrimScale is trim_scale(numeric): a with trailing fractional
// zeros removed.
func NumericTrimScale(a *apd.Decimal) (*apd.Decimal, error) {
	m, ok := NumericMinimumScale(a)
	if !ok {
		return a, nil
	}
	c, s := numericParts(a)
	q, _ := rescaleCoeff(c, s, int32(m), false)
	return makeNumeric(q, int32(m))
}

// NumericWidthBucket is width_bucket(numeric, numeric, numeric, integer).
func NumericWidthBucket(operand, b1, b2 *apd.Decimal, count int64) (int64, error) {
	if count <= 0 {
		return 0, errWidthBucket("count must be greater than zero")
	}
	if isSpecial(operand) || isSpecial(b1) || isSpecial(b2) {
		if isNaN(operand) || isNaN(b1) || isNaN(b2) {
			return 0, errWidthBucket("operand, lower bound, and upper bound cannot be NaN")
		}
		if isSpecial(b1) || isSpecial(b2) {
			return 0, errWidthBucket("lower and upper bounds must be finite")
		}
	}
	cmp := func(x, y *apd.Decimal) int { return Compare(NumericT, x, y) }
	var num, den *apd.Decimal
	var err error
	switch cmp(b1, b2) {
	case 0:
		return 0, errWidthBucket("lower bound cannot equal upper bound")
	case -1:
		if cmp(operand, b1) < 0 {
			return 0, nil
		}
		if cmp(operand, b2) >= 0 {
			return bucketOverflow(count)
		}
		if num, err = NumericSub(operand, b1); err != nil {
			return 0, err
		}
		if den, err = NumericSub(b2, b1); err != nil {
			return 0, err
		}
	default:
		if cmp(operand, b1) > 0 {
			return 0, nil
		}
		if cmp(operand, b2) <= 0 {
			return bucketOverflow(count)
		}
		if num, err = NumericSub(b1, operand); err != nil {
			return 0, err
		}
		if den, err = NumericSub(b1, b2); err != nil {
			return 0, err
		}
	}
	nc, ns := numericParts(num)
	nc.Mul(nc, apd.NewBigInt(count))
	dc, ds := numericParts(den)
	q := quotient(nc, int64(ns), dc, int64(ds), 0, false)
	return q.Int64() + 1, nil
}
