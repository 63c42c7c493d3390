package types

// Mathematical functions of double precision, as PostgreSQL 15's float.c
// computes them: the same special cases for NaN and infinities, the same
// errors (22003 overflow/underflow and "input is out of range", 2201E for
// logarithms, 2201F for powers and roots), and the degree-based
// trigonometric functions' exact results at multiples of 30 and 45
// degrees.

import (
	"math"

	"github.com/pgfed/pgfed/pgerr"
)

// ErrSqrtNegative is 2201F "cannot take square root of a negative number".
func ErrSqrtNegative() error {
	return pgerr.New(pgerr.InvalidArgumentForPowerFunc, "cannot take square root of a negative number")
}

// ErrFloatUnderflow is float_underflow_error: 22003 "value out of range:
// underflow".
func ErrFloatUnderflow() error { return errFloatUnderflow() }

func errInputOutOfRange() error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "input is out of range")
}

func errLogZero() error {
	return pgerr.New(pgerr.InvalidArgumentForLog, "cannot take logarithm of zero")
}

func errLogNegative() error {
	return pgerr.New(pgerr.InvalidArgumentForLog, "cannot take logarithm of a negative number")
}

// checkFloat8 is check_float8_val: an infinite result from finite input
// overflows, a zero result from input that may not give zero underflows.
func checkFloat8(v float64, infOK, zeroOK bool) (float64, error) {
	if math.IsInf(v, 0) && !infOK {
		return 0, errFloatOverflow()
	}
	if v == 0 && !zeroOK {
		return 0, errFloatUnderflow()
	}
	return v, nil
}

// FloatPower is dpow: double precision ^ double precision and power().
func FloatPower(x, y float64) (float64, error) {
	if math.IsNaN(x) {
		if math.IsNaN(y) || y != 0 {
			return math.NaN(), nil
		}
		return 1, nil
	}
	if math.IsNaN(y) {
		if x != 1 {
			return math.NaN(), nil
		}
		return 1, nil
	}
	if x == 0 && y < 0 {
		return 0, errZeroToNegativePower()
	}
	if x < 0 && math.Floor(y) != y {
		return 0, errComplexPower()
	}
	switch {
	case math.IsInf(y, 0):
		ax := math.Abs(x)
		switch {
		case ax == 1:
			return 1, nil
		case y > 0 && ax > 1:
			return y, nil
		case y > 0:
			return 0, nil
		case ax > 1:
			return 0, nil
		default:
			return -y, nil
		}
	case math.IsInf(x, 0):
		switch {
		case y == 0:
			return 1, nil
		case x > 0 && y > 0:
			return x, nil
		case x > 0:
			return 0, nil
		}
		halfy := y / 2
		odd := math.Floor(halfy) != halfy
		switch {
		case y > 0 && odd:
			return x, nil
		case y > 0:
			return -x, nil
		case odd:
			return math.Copysign(0, -1), nil
		default:
			return 0, nil
		}
	}
	r := math.Pow(x, y)
	if math.IsInf(r, 0) {
		return 0, errFloatOverflow()
	}
	if r == 0 && x != 0 {
		return 0, errFloatUnderflow()
	}
	return r, nil
}

// FloatSqrt is dsqrt (sqrt() and |/).
func FloatSqrt(x float64) (float64, error) {
	if x < 0 {
		return 0, ErrSqrtNegative()
	}
	return checkFloat8(math.Sqrt(x), math.IsInf(x, 0), x == 0)
}

// FloatCbrt is dcbrt (cbrt() and ||/).
func FloatCbrt(x float64) (float64, error) {
	return checkFloat8(cbrt(x), math.IsInf(x, 0), x == 0)
}

// cbrt is the C library's cube root as PostgreSQL's servers on Linux get
// it (glibc's dbl-64 s_cbrt.c: a polynomial estimate refined by one
// Halley step), which is not always correctly rounded (cbrt(27) is
// 3.0000000000000004); Go's math.Cbrt rounds differently.
func cbrt(x float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x + x
	}
	const cbrt2, sqrCbrt2 = 1.2599210498948731648, 1.5874010519681994748
	factor := [5]float64{1.0 / sqrCbrt2, 1.0 / cbrt2, 1.0, cbrt2, sqrCbrt2}
	xm, xe := math.Frexp(math.Abs(x))
	u := float64(0.354895765043919860 +
		float64(float64(1.50819193781584896+
			float64(float64(-2.11499494167371287+
				float64(float64(2.44693122563534430+
					float64(float64(-1.83469277483613086+
						float64(float64(0.784932344976639262-float64(0.145263899385486377*xm))*xm))*xm))*xm))*xm))*xm))
	t2 := float64(u*u) * u
	ym := float64(float64(u*float64(t2+float64(2.0*xm)))/float64(float64(2.0*t2)+xm)) * factor[2+xe%3]
	return math.Copysign(math.Ldexp(ym, xe/3), x)
}

// FloatExp is dexp.
func FloatExp(x float64) (float64, error) {
	switch {
	case math.IsNaN(x):
		return x, nil
	case math.IsInf(x, 1):
		return x, nil
	case math.IsInf(x, -1):
		return 0, nil
	}
	r := math.Exp(x)
	if math.IsInf(r, 0) {
		return 0, errFloatOverflow()
	}
	if r == 0 {
		return 0, errFloatUnderflow()
	}
	return r, nil
}

// FloatLn is dlog1 (ln); FloatLog10 is dlog10 (log and log10).
func FloatLn(x float64) (float64, error) { return floatLog(x, math.Log) }

// FloatLog10 is dlog10.
func FloatLog10(x float64) (float64, error) { return floatLog(x, math.Log10) }

func floatLog(x float64, f func(float64) float64) (float64, error) {
	if x == 0 {
		return 0, errLogZero()
	}
	if x < 0 {
		return 0, errLogNegative()
	}
	return checkFloat8(f(x), math.IsInf(x, 0), x == 1)
}

// radiansPerDegree is RADIANS_PER_DEGREE, a variable so that products
// with it are rounded to double precision as in C (a Go constant
// expression would be exact).
var radiansPerDegree = 0.0174532925199432957692

// FloatDegrees is degrees(double precision).
func FloatDegrees(x float64) (float64, error) {
	return checkFloat8(x/radiansPerDegree, math.IsInf(x, 0), x == 0)
}

// FloatRadians is radians(double precision).
func FloatRadians(x float64) (float64, error) {
	return checkFloat8(x*radiansPerDegree, math.IsInf(x, 0), x == 0)
}

// FloatSign is sign(double precision): NaN gives 0, as dsign does.
func FloatSign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// FloatTrig computes the trigonometric function name (sin, cos, tan, cot,
// asin, acos, atan, their degree forms ending in d, and the hyperbolic
// ones) of x.
func FloatTrig(name string, x float64) (float64, error) {
	if math.IsNaN(x) {
		return x, nil
	}
	switch name {
	case "sin", "cos", "tan", "cot":
		if math.IsInf(x, 0) {
			return 0, errInputOutOfRange()
		}
		switch name {
		case "sin":
			return checkFloat8(math.Sin(x), false, true)
		case "cos":
			return checkFloat8(math.Cos(x), false, true)
		case "tan":
			return math.Tan(x), nil
		default:
			return 1 / math.Tan(x), nil
		}
	case "asin", "acos":
		if x < -1 || x > 1 {
			return 0, errInputOutOfRange()
		}
		if name == "asin" {
			return checkFloat8(math.Asin(x), false, true)
		}
		return checkFloat8(math.Acos(x), false, true)
	case "atan":
		return checkFloat8(math.Atan(x), false, true)
	case "sind", "cosd", "tand", "cotd":
		if math.IsInf(x, 0) {
			return 0, errInputOutOfRange()
		}
		return degreeTrig(name, x)
	case "asind", "acosd":
		if x < -1 || x > 1 {
			return 0, errInputOutOfRange()
		}
		var r float64
		switch {
		case name == "asind" && x >= 0:
			r = asindQ1(x)
		case name == "asind":
			r = -asindQ1(-x)
		case x >= 0:
			r = acosdQ1(x)
		default:
			r = 90 + asindQ1(-x)
		}
		return checkFloat8(r, false, true)
	case "atand":
		return checkFloat8(math.Atan(x)/atan1_0*45, false, true)
	case "sinh":
		return math.Sinh(x), nil
	case "cosh":
		r := math.Cosh(x)
		if r == 0 {
			return 0, errFloatUnderflow()
		}
		return r, nil
	case "tanh":
		return checkFloat8(math.Tanh(x), false, true)
	case "asinh":
		return math.Asinh(x), nil
	case "acosh":
		if x < 1 {
			return 0, errInputOutOfRange()
		}
		return math.Acosh(x), nil
	case "atanh":
		switch {
		case x < -1 || x > 1:
			return 0, errInputOutOfRange()
		case x == -1:
			return math.Inf(-1), nil
		case x == 1:
			return math.Inf(1), nil
		}
		return math.Atanh(x), nil
	}
	return 0, pgerr.Internal("types: no trigonometric function %s", name)
}

// FloatAtan2 is atan2(y, x), or with degrees atan2d.
func FloatAtan2(y, x float64, degrees bool) (float64, error) {
	if math.IsNaN(y) || math.IsNaN(x) {
		return math.NaN(), nil
	}
	r := math.Atan2(y, x)
	if degrees {
		r = r / atan1_0 * 45
	}
	return checkFloat8(r, false, true)
}

var degree30, degree60 = 30.0, 60.0

// The constants of float.c's init_degree_constants, computed the same way
// (at run time, so that they carry the library's rounding).
var (
	sin30         = math.Sin(degree30 * radiansPerDegree)
	oneMinusCos60 = 1 - math.Cos(degree60*radiansPerDegree)
	asin0_5       = math.Asin(0.5)
	acos0_5       = math.Acos(0.5)
	atan1_0       = math.Atan(1)
	tan45         = sindQ1(45) / cosdQ1(45)
	cot45         = cosdQ1(45) / sindQ1(45)
)

func sind0To30(x float64) float64 { return (math.Sin(x*radiansPerDegree) / sin30) / 2 }

func cosd0To60(x float64) float64 {
	return 1 - ((1-math.Cos(x*radiansPerDegree))/oneMinusCos60)/2
}

func sindQ1(x float64) float64 {
	if x <= 30 {
		return sind0To30(x)
	}
	return cosd0To60(90 - x)
}

func cosdQ1(x float64) float64 {
	if x <= 60 {
		return cosd0To60(x)
	}
	return sind0To30(90 - x)
}

func asindQ1(x float64) float64 {
	if x <= 0.5 {
		return (math.Asin(x) / asin0_5) * 30
	}
	return 90 - (math.Acos(x)/acos0_5)*60
}

func acosdQ1(x float64) float64 {
	if x <= 0.5 {
		return 90 - (math.Asin(x)/asin0_5)*30
	}
	return (math.Acos(x) / acos0_5) * 60
}

// degreeTrig is dsind, dcosd, dtand and dcotd for finite x: the argument
// reduced to [0, 90] degrees, where the results at 30, 45, 60 and 90 are
// exact.
func degreeTrig(name string, x float64) (float64, error) {
	sign := 1.0
	x = math.Mod(x, 360)
	switch name {
	case "sind":
		if x < 0 {
			x, sign = -x, -sign
		}
		if x > 180 {
			x, sign = 360-x, -sign
		}
		if x > 90 {
			x = 180 - x
		}
		return checkFloat8(sign*sindQ1(x), false, true)
	case "cosd":
		if x < 0 {
			x = -x
		}
		if x > 180 {
			x = 360 - x
		}
		if x > 90 {
			x, sign = 180-x, -sign
		}
		return checkFloat8(sign*cosdQ1(x), false, true)
	}
	if x < 0 {
		x, sign = -x, -sign
	}
	if x > 180 {
		x, sign = 360-x, -sign
	}
	if x > 90 {
		x, sign = 180-x, -sign
	}
	var r float64
	if name == "tand" {
		r = sign * ((sindQ1(x) / cosdQ1(x)) / tan45)
	} else {
		r = sign * ((cosdQ1(x) / sindQ1(x)) / cot45)
	}
	if r == 0 {
		r = 0 // no minus zero
	}
	return r, nil
}

// FloatWidthBucket is width_bucket(double precision, double precision,
// double precision, integer).
func FloatWidthBucket(operand, b1, b2 float64, count int64) (int64, error) {
	if count <= 0 {
		return 0, errWidthBucket("count must be greater than zero")
	}
	if math.IsNaN(operand) || math.IsNaN(b1) || math.IsNaN(b2) {
		return 0, errWidthBucket("operand, lower bound, and upper bound cannot be NaN")
	}
	if math.IsInf(b1, 0) || math.IsInf(b2, 0) {
		return 0, errWidthBucket("lower and upper bounds must be finite")
	}
	c := float64(count)
	var q float64
	switch {
	case b1 < b2:
		if operand < b1 {
			return 0, nil
		}
		if operand >= b2 {
			return bucketOverflow(count)
		}
		if !math.IsInf(b2-b1, 0) {
			q = c * ((operand - b1) / (b2 - b1))
		} else {
			q = c * ((operand/2 - b1/2) / (b2/2 - b1/2))
		}
	case b1 > b2:
		if operand > b1 {
			return 0, nil
		}
		if operand <= b2 {
			return bucketOverflow(count)
		}
		if !math.IsInf(b1-b2, 0) {
			q = c * ((b1 - operand) / (b1 - b2))
		} else {
			q = c * ((b1/2 - operand/2) / (b1/2 - b2/2))
		}
	default:
		return 0, errWidthBucket("lower bound cannot equal upper bound")
	}
	r := int64(q) // C's conversion to int32 truncates
	if r >= count {
		r = count - 1
	}
	return r + 1, nil
}

// bucketOverflow is count + 1, which must fit an int4.
func bucketOverflow(count int64) (int64, error) {
	if count+1 > math.MaxInt32 {
		return 0, ErrIntOutOfRange(Int4T)
	}
	return count + 1, nil
}

func errWidthBucket(msg string) error {
	return pgerr.New("2201G", "%s", msg)
}
