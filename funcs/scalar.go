package funcs

// The built-in scalar functions: overloads and implementations.

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

var (
	i2, i4, i8, f4, f8, num = types.Int2T, types.Int4T, types.Int8T, types.Float4T, types.Float8T, types.NumericT
	txt, bpchar, boolT      = types.TextT, types.BpcharT, types.BoolT
	ts, tstz, date          = types.TimestampT, types.TimestampTZT, types.DateT
	interval                = types.IntervalT
)

// sig is an immutable overload.
func sig(result types.T, args ...types.T) Signature { return Signature{Args: args, Result: result} }

// stable is a stable overload.
func stable(s Signature) Signature { s.Volatility = Stable; return s }

// volatile is a volatile overload.
func volatile(s Signature) Signature { s.Volatility = Volatile; return s }

// same binds one implementation whatever the argument types.
func same(fn Impl) func([]types.T) Impl { return func([]types.T) Impl { return fn } }

// immutable is an entry for a function PostgreSQL has too, strict.
func immutable(name string, bind func([]types.T) Impl, overloads ...Signature) *Func {
	return &Func{Name: name, Overloads: overloads, Strict: true, Remote: true, Bind: bind}
}

var scalars = map[string]*Func{}

func register(fs ...*Func) {
	for _, f := range fs {
		scalars[f.Name] = f
	}
}

func init() {
	numericOverloads := func(ts ...types.T) []Signature {
		out := make([]Signature, len(ts))
		for i, t := range ts {
			out[i] = sig(t, t)
		}
		return out
	}
	lengthImpl := func(argTypes []types.T) Impl {
		padded := argTypes[0].ID == types.Bpchar
		return func(a []any) (any, error) {
			s := a[0].(string)
			if padded {
				s = strings.TrimRight(s, " ")
			}
			return int64(utf8.RuneCountInString(s)), nil
		}
	}
	register(
		immutable("abs", bindAbs, numericOverloads(i2, i4, i8, f4, f8, num)...),
		immutable("round", bindRoundTrunc(true), sig(f8, f8), sig(num, num), sig(num, num, i4)),
		immutable("trunc", bindRoundTrunc(false), sig(f8, f8), sig(num, num), sig(num, num, i4)),
		immutable("floor", same(floorImpl), sig(f8, f8), sig(num, num)),
		immutable("ceil", same(ceilImpl), sig(f8, f8), sig(num, num)),
		immutable("mod", same(modImpl), sig(i2, i2, i2), sig(i4, i4, i4), sig(i8, i8, i8), sig(num, num, num)),
		immutable("power", same(powerImpl), sig(f8, f8, f8), sig(num, num, num)),
		immutable("sqrt", same(sqrtImpl), sig(f8, f8), sig(num, num)),
		immutable("cbrt", same(float1(types.FloatCbrt)), sig(f8, f8)),
		immutable("exp", same(floatOrNumeric(types.FloatExp, types.NumericExp)), sig(f8, f8), sig(num, num)),
		immutable("ln", same(floatOrNumeric(types.FloatLn, types.NumericLn)), sig(f8, f8), sig(num, num)),
		immutable("log10", same(floatOrNumeric(types.FloatLog10, types.NumericLog10)), sig(f8, f8), sig(num, num)),
		immutable("log", same(logImpl), sig(f8, f8), sig(num, num), sig(num, num, num)),
		immutable("degrees", same(float1(types.FloatDegrees)), sig(f8, f8)),
		immutable("radians", same(float1(types.FloatRadians)), sig(f8, f8)),
		immutable("pi", same(func([]any) (any, error) { return math.Pi, nil }), sig(f8)),
		immutable("sign", same(signImpl), sig(f8, f8), sig(num, num)),
		immutable("div", same(numeric2(types.NumericDivTrunc)), sig(num, num, num)),
		immutable("gcd", bindGcdLcm(false), sig(i4, i4, i4), sig(i8, i8, i8), sig(num, num, num)),
		immutable("lcm", bindGcdLcm(true), sig(i4, i4, i4), sig(i8, i8, i8), sig(num, num, num)),
		immutable("factorial", same(func(a []any) (any, error) { return types.NumericFactorial(a[0].(int64)) }), sig(num, i8)),
		immutable("scale", same(numericInt(types.NumericScale)), sig(i4, num)),
		immutable("min_scale", same(numericInt(types.NumericMinimumScale)), sig(i4, num)),
		immutable("trim_scale", same(func(a []any) (any, error) { return types.NumericTrimScale(a[0].(*apd.Decimal)) }), sig(num, num)),
		immutable("width_bucket", same(widthBucketImpl), sig(i4, f8, f8, f8, i4), sig(i4, num, num, num, i4)),
		immutable("atan2", same(func(a []any) (any, error) { return types.FloatAtan2(a[0].(float64), a[1].(float64), false) }), sig(f8, f8, f8)),
		immutable("atan2d", same(func(a []any) (any, error) { return types.FloatAtan2(a[0].(float64), a[1].(float64), true) }), sig(f8, f8, f8)),
		// random() is volatile, so never shipped to a remote server.
		&Func{Name: "random", Overloads: []Signature{volatile(sig(f8))}, Strict: true, Remote: true, Bind: same(func([]any) (any, error) { return rand.Float64(), nil })},
	)
	for _, name := range []string{"sin", "cos", "tan", "cot", "asin", "acos", "atan",
		"sind", "cosd", "tand", "cotd", "asind", "acosd", "atand",
		"sinh", "cosh", "tanh", "asinh", "acosh", "atanh"} {
		register(immutable(name, same(func(a []any) (any, error) { return types.FloatTrig(name, a[0].(float64)) }), sig(f8, f8)))
	}
	register(
		immutable("lower", same(func(a []any) (any, error) { return types.LowerASCII(a[0].(string)), nil }), sig(txt, txt)),
		immutable("upper", same(func(a []any) (any, error) { return types.UpperASCII(a[0].(string)), nil }), sig(txt, txt)),
		immutable("length", lengthImpl, sig(i4, txt), sig(i4, bpchar)),
		immutable("char_length", lengthImpl, sig(i4, txt), sig(i4, bpchar)),
		immutable("character_length", lengthImpl, sig(i4, txt), sig(i4, bpchar)),
		immutable("octet_length", same(func(a []any) (any, error) { return int64(len(a[0].(string))), nil }), sig(i4, txt)),
		immutable("substr", same(substrImpl), sig(txt, txt, i4), sig(txt, txt, i4, i4)),
		immutable("substring", same(substrImpl), sig(txt, txt, i4), sig(txt, txt, i4, i4)),
		immutable("strpos", same(strposImpl), sig(i4, txt, txt)),
		immutable("btrim", same(trimImpl(strings.Trim)), sig(txt, txt), sig(txt, txt, txt)),
		immutable("ltrim", same(trimImpl(strings.TrimLeft)), sig(txt, txt), sig(txt, txt, txt)),
		immutable("rtrim", same(trimImpl(strings.TrimRight)), sig(txt, txt), sig(txt, txt, txt)),
		immutable("replace", same(replaceImpl), sig(txt, txt, txt, txt)),
		immutable("repeat", same(repeatImpl), sig(txt, txt, i4)),
		immutable("like_escape", same(func(a []any) (any, error) { return LikeEscape(a[0].(string), a[1].(string)) }), sig(txt, txt, txt)),
		// date_trunc, extract and date_part of timestamptz read TimeZone.
		immutable("date_trunc", bindDateTrunc, sig(ts, txt, ts), stable(sig(tstz, txt, tstz))),
		immutable("extract", bindExtract(false), sig(num, txt, date), sig(num, txt, ts), stable(sig(num, txt, tstz)), sig(num, txt, interval)),
		immutable("date_part", bindExtract(true), sig(f8, txt, date), sig(f8, txt, ts), stable(sig(f8, txt, tstz)), sig(f8, txt, interval)),
		immutable("justify_hours", same(intervalImpl(types.JustifyHours)), sig(interval, interval)),
		immutable("justify_days", same(intervalImpl(types.JustifyDays)), sig(interval, interval)),
		immutable("justify_interval", same(intervalImpl(types.JustifyInterval)), sig(interval, interval)),
		// age of timestamptz reads TimeZone; timestamptz first, the
		// preferred type, for arguments of other types.
		immutable("age", same(func(a []any) (any, error) { return types.Age(a[0].(int64), a[1].(int64)) }),
			stable(sig(interval, tstz, tstz)), sig(interval, ts, ts)),
		// concat calls the arguments' output functions: stable in PostgreSQL.
		&Func{Name: "concat", Overloads: []Signature{stable(Signature{Variadic: true, Result: txt})}, Remote: true, Bind: bindConcat},
		&Func{Name: "now", Overloads: []Signature{stable(sig(tstz))}, Remote: true, Special: StatementTime},
		&Func{Name: "statement_timestamp", Overloads: []Signature{stable(sig(tstz))}, Remote: true, Special: StatementTime},
		&Func{Name: "transaction_timestamp", Overloads: []Signature{stable(sig(tstz))}, Remote: true, Special: StatementTime},
		// postgres_fdw's connection functions act on this session.
		&Func{Name: "postgres_fdw_disconnect", Overloads: []Signature{volatile(sig(boolT, txt))}, Strict: true, Special: Disconnect},
		&Func{Name: "postgres_fdw_disconnect_all", Overloads: []Signature{volatile(sig(boolT))}, Special: DisconnectAll},
	)
}

func bindAbs(argTypes []types.T) Impl {
	t := argTypes[0]
	return func(a []any) (any, error) {
		switch v := a[0].(type) {
		case int64:
			if v < 0 {
				if (t.ID == types.Int8 && v == math.MinInt64) || (t.ID == types.Int4 && v == math.MinInt32) || (t.ID == types.Int2 && v == math.MinInt16) {
					return nil, types.ErrIntOutOfRange(t)
				}
				return -v, nil
			}
			return v, nil
		case float64:
			return math.Abs(v), nil
		default:
			return types.NumericAbs(v.(*apd.Decimal)), nil
		}
	}
}

func bindRoundTrunc(round bool) func([]types.T) Impl {
	return same(func(a []any) (any, error) {
		switch v := a[0].(type) {
		case float64:
			if round {
				return math.RoundToEven(v), nil
			}
			return math.Trunc(v), nil
		default:
			scale := int64(0)
			if len(a) > 1 {
				scale = a[1].(int64)
			}
			if round {
				return types.NumericRound(v.(*apd.Decimal), clampInt32(scale))
			}
			return types.NumericTrunc(v.(*apd.Decimal), clampInt32(scale))
		}
	})
}

// float1 is a function of one double precision argument.
func float1(f func(float64) (float64, error)) Impl {
	return func(a []any) (any, error) { return f(a[0].(float64)) }
}

// floatOrNumeric is a function with a double precision and a numeric
// overload of one argument.
func floatOrNumeric(f func(float64) (float64, error), n func(*apd.Decimal) (*apd.Decimal, error)) Impl {
	return func(a []any) (any, error) {
		if v, ok := a[0].(float64); ok {
			return f(v)
		}
		return n(a[0].(*apd.Decimal))
	}
}

func numeric2(f func(a, b *apd.Decimal) (*apd.Decimal, error)) Impl {
	return func(a []any) (any, error) { return f(a[0].(*apd.Decimal), a[1].(*apd.Decimal)) }
}

// numericInt is scale or min_scale: NULL for NaN and the infinities.
func numericInt(f func(*apd.Decimal) (int64, bool)) Impl {
	return func(a []any) (any, error) {
		if v, ok := f(a[0].(*apd.Decimal)); ok {
			return v, nil
		}
		return nil, nil
	}
}

// logImpl is log(x) (base 10) or log(base, x) (numeric only).
func logImpl(a []any) (any, error) {
	if len(a) == 2 {
		return types.NumericLog(a[0].(*apd.Decimal), a[1].(*apd.Decimal))
	}
	if v, ok := a[0].(float64); ok {
		return types.FloatLog10(v)
	}
	return types.NumericLog10(a[0].(*apd.Decimal))
}

func signImpl(a []any) (any, error) {
	if v, ok := a[0].(float64); ok {
		return types.FloatSign(v), nil
	}
	return types.NumericSign(a[0].(*apd.Decimal)), nil
}

func widthBucketImpl(a []any) (any, error) {
	if v, ok := a[0].(float64); ok {
		return types.FloatWidthBucket(v, a[1].(float64), a[2].(float64), a[3].(int64))
	}
	return types.NumericWidthBucket(a[0].(*apd.Decimal), a[1].(*apd.Decimal), a[2].(*apd.Decimal), a[3].(int64))
}

// bindGcdLcm is gcd or lcm: on integers (int4gcd, int8gcd, ...) the
// result must fit the type (gcd(-2147483648, 0) is out of range), on
// numeric numeric_gcd's scale rule.
func bindGcdLcm(lcm bool) func([]types.T) Impl {
	return func(argTypes []types.T) Impl {
		t := argTypes[0]
		if t.ID == types.Numeric {
			if lcm {
				return numeric2(types.NumericLcm)
			}
			return numeric2(types.NumericGcd)
		}
		hi := uint64(math.MaxInt64)
		if t.ID == types.Int4 {
			hi = math.MaxInt32
		}
		return func(a []any) (any, error) {
			x, y := a[0].(int64), a[1].(int64)
			if lcm && (x == 0 || y == 0) {
				return int64(0), nil
			}
			ux, uy := absU64(x), absU64(y)
			g, r := ux, uy
			for r != 0 {
				g, r = r, g%r
			}
			if g > hi {
				return nil, types.ErrIntOutOfRange(t)
			}
			if !lcm {
				return int64(g), nil
			}
			hiBits, lo := bits.Mul64(ux/g, uy)
			if hiBits != 0 || lo > hi {
				return nil, types.ErrIntOutOfRange(t)
			}
			return int64(lo), nil
		}
	}
}

func absU64(v int64) uint64 {
	if v < 0 {
		return uint64(-(v + 1)) + 1
	}
	return uint64(v)
}

func floorImpl(a []any) (any, error) {
	if v, ok := a[0].(float64); ok {
		return math.Floor(v), nil
	}
	return types.NumericFloor(a[0].(*apd.Decimal)), nil
}

func ceilImpl(a []any) (any, error) {
	if v, ok := a[0].(float64); ok {
		return math.Ceil(v), nil
	}
	return types.NumericCeil(a[0].(*apd.Decimal)), nil
}

func modImpl(a []any) (any, error) {
	switch v := a[0].(type) {
	case int64:
		d := a[1].(int64)
		if d == 0 {
			return nil, types.ErrDivisionByZero()
		}
		if d == -1 {
			return int64(0), nil
		}
		return v % d, nil
	default:
		return types.NumericMod(v.(*apd.Decimal), a[1].(*apd.Decimal))
	}
}

func powerImpl(a []any) (any, error) {
	if v, ok := a[0].(float64); ok {
		return types.FloatPower(v, a[1].(float64))
	}
	return types.NumericPower(a[0].(*apd.Decimal), a[1].(*apd.Decimal))
}

func sqrtImpl(a []any) (any, error) {
	if v, ok := a[0].(float64); ok {
		return types.FloatSqrt(v)
	}
	return types.NumericSqrt(a[0].(*apd.Decimal))
}

func substrImpl(a []any) (any, error) {
	rs := []rune(a[0].(string))
	start := a[1].(int64)
	end := int64(math.MaxInt64)
	if len(a) > 2 {
		l := a[2].(int64)
		if l < 0 {
			return nil, pgerr.New(pgerr.SubstringError, "negative substring length not allowed")
		}
		end = start + l
		if end < start { // overflow
			end = math.MaxInt64
		}
	}
	if start < 1 {
		start = 1
	}
	if end > int64(len(rs))+1 {
		end = int64(len(rs)) + 1
	}
	if start >= end {
		return "", nil
	}
	return string(rs[start-1 : end-1]), nil
}

func strposImpl(a []any) (any, error) {
	s, sub := a[0].(string), a[1].(string)
	i := strings.Index(s, sub)
	if i < 0 {
		return int64(0), nil
	}
	return int64(utf8.RuneCountInString(s[:i]) + 1), nil
}

// trimImpl is btrim, ltrim or rtrim: the characters default to a blank.
func trimImpl(trim func(s, cutset string) string) Impl {
	return func(a []any) (any, error) {
		chars := " "
		if len(a) > 1 {
			chars = a[1].(string)
		}
		return trim(a[0].(string), chars), nil
	}
}

// repeatImpl is repeat(text, int): 54000 "requested length too large"
// when the result with its 4-byte header would pass PostgreSQL's
// largest allocation, checked before anything is allocated.
func repeatImpl(a []any) (any, error) {
	s, n := a[0].(string), a[1].(int64)
	if n <= 0 || s == "" {
		return "", nil
	}
	if int64(len(s))*n > types.MaxValueBytes-types.VarHdrSize {
		return nil, types.ErrRequestedLengthTooLarge()
	}
	return strings.Repeat(s, int(n)), nil
}

// replaceImpl is replace(text, from, to). PostgreSQL's text_replace builds
// the result in a StringInfo, chunk by chunk, so a result that would pass
// the value size limit fails with that buffer's 54000 error at the first
// append that no longer fits; the size is worked out before building it.
func replaceImpl(a []any) (any, error) {
	src, from, to := a[0].(string), a[1].(string), a[2].(string)
	if from == "" || src == "" {
		return src, nil
	}
	n := strings.Count(src, from)
	if n == 0 {
		return src, nil
	}
	if int64(len(src))+int64(n)*(int64(len(to))-int64(len(from))) >= types.MaxValueBytes-types.VarHdrSize {
		if err := replaceSizeError(src, from, to); err != nil {
			return nil, err
		}
	}
	return strings.ReplaceAll(src, from, to), nil
}

// replaceSizeError replays text_replace's appends (the text before each
// match, then the replacement; finally the rest) and returns the error of
// the first that does not fit, or of the final text's allocation.
func replaceSizeError(src, from, to string) error {
	have, start := 0, 0
	for {
		i := strings.Index(src[start:], from)
		if i < 0 {
			break
		}
		for _, more := range []int{i, len(to)} {
			if err := types.CheckConcatSize(have, more); err != nil {
				return err
			}
			have += more
		}
		start += i + len(from)
	}
	if err := types.CheckConcatSize(have, len(src)-start); err != nil {
		return err
	}
	return types.CheckTextSize(have + len(src) - start)
}

func bindConcat(argTypes []types.T) Impl {
	return func(a []any) (any, error) {
		// concat_internal appends each argument's text to a StringInfo.
		parts := make([]string, 0, len(a))
		have := 0
		for i, v := range a {
			if v == nil {
				continue
			}
			var text string
			if argTypes[i].IsString() {
				text = v.(string)
			} else {
				text = types.Format(argTypes[i], v)
			}
			if err := types.CheckConcatSize(have, len(text)); err != nil {
				return nil, err
			}
			have += len(text)
			parts = append(parts, text)
		}
		if err := types.CheckTextSize(have); err != nil {
			return nil, err
		}
		return strings.Join(parts, ""), nil
	}
}

func bindDateTrunc(argTypes []types.T) Impl {
	t := argTypes[1]
	return func(a []any) (any, error) { return types.DateTrunc(a[0].(string), t, a[1].(int64)) }
}

// bindExtract is extract (numeric) or, with float, date_part (double
// precision); NULL for fields an infinite value has not (hour of
// 'infinity').
func bindExtract(float bool) func([]types.T) Impl {
	return func(argTypes []types.T) Impl {
		t := argTypes[1]
		if t.ID == types.IntervalType {
			return func(a []any) (any, error) {
				return types.ExtractInterval(a[0].(string), a[1].(types.Interval), float)
			}
		}
		return func(a []any) (any, error) {
			d, err := types.Extract(a[0].(string), t, a[1])
			if err != nil || d == nil {
				return nil, err
			}
			if float {
				return d.Float64()
			}
			return d, nil
		}
	}
}

func intervalImpl(f func(types.Interval) (types.Interval, error)) Impl {
	return func(a []any) (any, error) { return f(a[0].(types.Interval)) }
}

// clampInt32 narrows an int64 argument bound to a PostgreSQL int4
// parameter; values outside int32 clamp (the callee clamps further).
func clampInt32(v int64) int32 {
	return int32(min(max(v, math.MinInt32), math.MaxInt32))
}
