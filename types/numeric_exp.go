package types

import (
	"math"
	"math/big"
	"sync"

	"github.com/cockroachdb/apd/v3"
)

// Natural logarithm and exponential for numeric powers with non-integer
// exponents, in fixed point: a value v is the integer round(v * 10^scale).
// Each result is within a few units of its last place; callers ask for ten
// or so digits more than they keep.

var bigOne = big.NewInt(1)

// bigPow10 returns a new 10^n (n >= 0).
func bigPow10(n int64) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(n), nil)
}

// decimalDigits is the number of decimal digits of |n| (1 for 0).
func decimalDigits(n *big.Int) int64 {
	if n.Sign() == 0 {
		return 1
	}
	// Estimate from the bit length, then correct by one comparison.
	estimate := int64(float64(n.BitLen()-1)*math.Log10(2)) + 1
	if new(big.Int).Abs(n).Cmp(bigPow10(estimate)) >= 0 {
		estimate++
	}
	return estimate
}

// dropDigits divides n by 10^k (k >= 0), rounding half away from zero.
func dropDigits(n *big.Int, k int64) *big.Int {
	if k <= 0 {
		return new(big.Int).Mul(n, bigPow10(-k))
	}
	unit := bigPow10(k)
	q, r := new(big.Int).QuoRem(n, unit, new(big.Int))
	if r.Abs(r).Lsh(r, 1).Cmp(unit) >= 0 {
		if n.Sign() < 0 {
			q.Sub(q, bigOne)
		} else {
			q.Add(q, bigOne)
		}
	}
	return q
}

// logConstants caches ln 2 and ln 10 at the largest scale asked so far.
var logConstants struct {
	sync.Mutex
	scale     int64
	ln2, ln10 *big.Int
}

// ln2AndLn10 returns ln 2 and ln 10 at the given scale.
func ln2AndLn10(scale int64) (ln2, ln10 *big.Int) {
	logConstants.Lock()
	defer logConstants.Unlock()
	if logConstants.scale < scale {
		// Compute a little beyond what is asked, with guard digits.
		target := scale + scale/4 + 10
		work := target + 10
		one := bigPow10(work)
		two := atanhOfInverse(3, one) // ln 2 = 2 atanh(1/3)
		two.Lsh(two, 1)
		ten := atanhOfInverse(9, one) // ln 10 = 3 ln 2 + 2 atanh(1/9)
		ten.Lsh(ten, 1)
		ten.Add(ten, new(big.Int).Mul(two, big.NewInt(3)))
		logConstants.scale = target
		logConstants.ln2 = dropDigits(two, work-target)
		logConstants.ln10 = dropDigits(ten, work-target)
	}
	shift := logConstants.scale - scale
	return dropDigits(logConstants.ln2, shift), dropDigits(logConstants.ln10, shift)
}

// atanhOfInverse returns atanh(1/q) = sum of 1/((2i+1) q^(2i+1)) at the
// scale of one.
func atanhOfInverse(q int64, one *big.Int) *big.Int {
	power := new(big.Int).Quo(one, big.NewInt(q))
	sum := new(big.Int).Set(power)
	qSquared := big.NewInt(q * q)
	term := new(big.Int)
	for i := int64(3); ; i += 2 {
		power.Quo(power, qSquared)
		if term.Quo(power, big.NewInt(i)).Sign() == 0 {
			return sum
		}
		sum.Add(sum, term)
	}
}

// lnFixed returns ln(c * 10^-s) for c > 0 at the given scale.
func lnFixed(c *big.Int, s, scale int64) *big.Int {
	// c * 10^-s = f * 10^k with f = c * 10^-digits in [0.1, 1).
	digits := decimalDigits(c)
	k := digits - s
	work := scale + 10 + decimalDigits(big.NewInt(k))
	one := bigPow10(work)
	f := dropDigits(c, digits-work) // f at the working scale
	// Bring f into [0.75, 1.5) by doubling, where the series below
	// converges quickly: ln f = ln(f * 2^j) - j ln 2.
	threeQuarters := new(big.Int).Quo(new(big.Int).Mul(one, big.NewInt(3)), big.NewInt(4))
	doublings := int64(0)
	for f.Cmp(threeQuarters) < 0 {
		f.Lsh(f, 1)
		doublings++
	}
	// ln z = 2 atanh((z - 1) / (z + 1)), a series in odd powers.
	u := new(big.Int).Sub(f, one)
	u.Mul(u, one)
	u.Quo(u, new(big.Int).Add(f, one))
	uSquared := new(big.Int).Mul(u, u)
	uSquared.Quo(uSquared, one)
	sum := new(big.Int).Set(u)
	power, term := new(big.Int).Set(u), new(big.Int)
	for i := int64(3); ; i += 2 {
		power.Mul(power, uSquared)
		power.Quo(power, one)
		if term.Quo(power, big.NewInt(i)).Sign() == 0 {
			break
		}
		sum.Add(sum, term)
	}
	sum.Lsh(sum, 1)
	ln2, ln10 := ln2AndLn10(work)
	sum.Sub(sum, new(big.Int).Mul(ln2, big.NewInt(doublings)))
	sum.Add(sum, new(big.Int).Mul(ln10, big.NewInt(k)))
	return dropDigits(sum, work-scale)
}

// expFixed returns e^y, for y at the given scale, as m * 10^-mScale * 2^twos
// with m carrying about scale significant digits.
func expFixed(y *big.Int, scale int64) (m *big.Int, mScale, twos int64) {
	// e^y = 2^n e^r with r = y - n ln 2 small; e^r = (e^(r/256))^256.
	integerDigits := decimalDigits(dropDigits(y, scale))
	work := scale + 12 + integerDigits
	one := bigPow10(work)
	yWork := dropDigits(y, scale-work)
	ln2, _ := ln2AndLn10(work)
	n := new(big.Int).Quo(yWork, ln2) // truncated: |r| < ln 2 is small enough
	r := new(big.Int).Sub(yWork, new(big.Int).Mul(n, ln2))
	const halvings = 8
	r.Quo(r, big.NewInt(1<<halvings))
	sum, term := new(big.Int).Set(one), new(big.Int).Set(one)
	for i := int64(1); ; i++ {
		term.Mul(term, r)
		term.Quo(term, one)
		term.Quo(term, big.NewInt(i))
		if term.Sign() == 0 {
			break
		}
		sum.Add(sum, term)
	}
	for i := 0; i < halvings; i++ {
		sum.Mul(sum, sum)
		sum.Quo(sum, one)
	}
	return sum, work, n.Int64()
}

// powerGeneral is a^b = exp(b ln a) for exponents that are not int32
// integers, with power_var's scale rule: 16 significant digits by a
// double-precision estimate of the result's magnitude, at least the input
// scales, at most 1000.
func powerGeneral(a, b *apd.Decimal) (*apd.Decimal, error) {
	if numericSign(a) == 0 {
		return buildNumeric(new(apd.BigInt), numericMinSigDigits), nil
	}
	negate := false
	if a.Negative {
		if !isIntegral(b) {
			return nil, errComplexPower()
		}
		negate = isOddInteger(b)
	}
	aCoeff, aScale := numericParts(a)
	base := new(big.Int).Abs(aCoeff.MathBigInt())
	bCoeff, bScale := numericParts(b)
	exponent := bCoeff.MathBigInt()

	// Estimate b ln a in double precision, as PostgreSQL does, to choose
	// the result scale and to stop early on certain overflow or underflow.
	const estimateScale = 20
	lnEstimate := lnFixed(base, int64(aScale), estimateScale)
	var lnResult float64
	if lnEstimate.Sign() != 0 {
		lnA, _ := new(big.Float).SetInt(lnEstimate).Float64()
		bFloat := new(big.Float).SetInt(exponent)
		bFloat.Quo(bFloat, new(big.Float).SetInt(bigPow10(int64(bScale))))
		bValue, _ := bFloat.Float64()
		lnResult = bValue * lnA / 1e20
	}
	if math.Abs(lnResult) > numericMaxResultScale*3.01 {
		if lnResult > 0 {
			return nil, errNumericOverflow()
		}
		return buildNumeric(new(apd.BigInt), numericMaxDisplayScale), nil
	}
	resultWeight := int64(lnResult * 0.434294481903252) // truncated, like C's (int)
	rscale := int64(numericMinSigDigits) - resultWeight
	rscale = max(rscale, int64(aScale), int64(bScale), 0)
	rscale = min(rscale, numericMaxDisplayScale)

	// Significant digits needed, plus guard digits; b ln a must be good to
	// that many places after the point, so ln a needs b's integer digits
	// more.
	expScale := max(rscale+resultWeight, 0) + 12
	bIntegerDigits := max(decimalDigits(exponent)-int64(bScale), 0)
	lnScale := expScale + bIntegerDigits + 2
	y := lnFixed(base, int64(aScale), lnScale)
	y.Mul(y, exponent)
	y = dropDigits(y, int64(bScale)+lnScale-expScale)
	m, mScale, twos := expFixed(y, expScale)
	numerator, denominator := m, big.NewInt(1)
	if twos >= 0 {
		numerator.Lsh(numerator, uint(twos))
	} else {
		denominator.Lsh(denominator, uint(-twos))
	}
	rounded := quotient(new(apd.BigInt).SetMathBigInt(numerator), mScale,
		new(apd.BigInt).SetMathBigInt(denominator), 0, rscale, true)
	if negate {
		rounded.Neg(rounded)
	}
	return makeNumeric(rounded, int32(rscale))
}
