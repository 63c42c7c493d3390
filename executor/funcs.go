package executor

// Built-in scalar functions, evaluated row by row over datums. The planner
// resolved the overload, so each implementation knows its argument types.

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

func compileFunc(x *nodes.FuncExpr, ec *ExecContext) (evaluator, error) {
	var argT types.T
	if len(x.Args) > 0 {
		argT = x.Args[0].Type()
	}
	strict := true
	var fn func(a []any) (any, error)
	switch x.Name {
	case "now", "current_timestamp", "statement_timestamp", "transaction_timestamp":
		c := &constEval{t: x.T, v: ec.Now}
		ec.consts = append(ec.consts, c)
		return c, nil
	case "postgres_fdw_disconnect", "postgres_fdw_disconnect_all":
		strict = x.Name == "postgres_fdw_disconnect"
		fn = func(a []any) (any, error) {
			if ec.Remote == nil {
				return false, nil
			}
			if len(a) == 0 {
				return ec.Remote.DisconnectAll(), nil
			}
			return ec.Remote.Disconnect(a[0].(string))
		}
	case "abs":
		fn = func(a []any) (any, error) {
			switch v := a[0].(type) {
			case int64:
				if v < 0 {
					if (argT.ID == types.Int8 && v == math.MinInt64) || (argT.ID == types.Int4 && v == math.MinInt32) || (argT.ID == types.Int2 && v == math.MinInt16) {
						return nil, outOfRange(argT)
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
	case "round", "trunc":
		fn = func(a []any) (any, error) {
			switch v := a[0].(type) {
			case float64:
				if x.Name == "round" {
					return math.RoundToEven(v), nil
				}
				return math.Trunc(v), nil
			default:
				scale := int64(0)
				if len(a) > 1 {
					scale = a[1].(int64)
				}
				if x.Name == "round" {
					return types.NumericRound(v.(*apd.Decimal), int32(scale)), nil
				}
				return types.NumericTrunc(v.(*apd.Decimal), int32(scale)), nil
			}
		}
	case "floor", "ceil", "ceiling":
		fn = func(a []any) (any, error) {
			switch v := a[0].(type) {
			case float64:
				if x.Name == "floor" {
					return math.Floor(v), nil
				}
				return math.Ceil(v), nil
			default:
				if x.Name == "floor" {
					return types.NumericFloor(v.(*apd.Decimal)), nil
				}
				return types.NumericCeil(v.(*apd.Decimal)), nil
			}
		}
	case "mod":
		fn = func(a []any) (any, error) {
			switch v := a[0].(type) {
			case int64:
				d := a[1].(int64)
				if d == 0 {
					return nil, divisionByZero()
				}
				if d == -1 {
					return int64(0), nil
				}
				return v % d, nil
			default:
				return types.NumericMod(v.(*apd.Decimal), a[1].(*apd.Decimal))
			}
		}
	case "power", "pow":
		fn = func(a []any) (any, error) {
			switch v := a[0].(type) {
			case float64:
				return floatPower(v, a[1].(float64))
			default:
				return types.NumericPower(v.(*apd.Decimal), a[1].(*apd.Decimal))
			}
		}
	case "sqrt":
		fn = func(a []any) (any, error) {
			switch v := a[0].(type) {
			case float64:
				if v < 0 {
					return nil, pgerr.New(pgerr.InvalidArgumentForPowerFunc, "cannot take square root of a negative number")
				}
				return math.Sqrt(v), nil
			default:
				return types.NumericSqrt(v.(*apd.Decimal))
			}
		}
	case "lower":
		fn = func(a []any) (any, error) { return asciiLower(a[0].(string)), nil }
	case "upper":
		fn = func(a []any) (any, error) { return asciiUpper(a[0].(string)), nil }
	case "like_escape":
		fn = func(a []any) (any, error) { return likeEscape(a[0].(string), a[1].(string)) }
	case "length", "char_length", "character_length":
		fn = func(a []any) (any, error) {
			s := a[0].(string)
			if argT.ID == types.Bpchar {
				s = strings.TrimRight(s, " ")
			}
			return int64(utf8.RuneCountInString(s)), nil
		}
	case "octet_length":
		fn = func(a []any) (any, error) { return int64(len(a[0].(string))), nil }
	case "substr", "substring":
		fn = func(a []any) (any, error) {
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
	case "strpos", "position":
		fn = func(a []any) (any, error) {
			s, sub := a[0].(string), a[1].(string)
			i := strings.Index(s, sub)
			if i < 0 {
				return int64(0), nil
			}
			return int64(utf8.RuneCountInString(s[:i]) + 1), nil
		}
	case "btrim", "ltrim", "rtrim":
		fn = func(a []any) (any, error) {
			s, chars := a[0].(string), " "
			if len(a) > 1 {
				chars = a[1].(string)
			}
			switch x.Name {
			case "ltrim":
				return strings.TrimLeft(s, chars), nil
			case "rtrim":
				return strings.TrimRight(s, chars), nil
			}
			return strings.Trim(s, chars), nil
		}
	case "replace":
		fn = func(a []any) (any, error) {
			if a[1].(string) == "" {
				return a[0], nil
			}
			return strings.ReplaceAll(a[0].(string), a[1].(string), a[2].(string)), nil
		}
	case "concat":
		strict = false
		ts := make([]types.T, len(x.Args))
		for i, e := range x.Args {
			ts[i] = e.Type()
		}
		fn = func(a []any) (any, error) {
			var b strings.Builder
			for i, v := range a {
				if v == nil {
					continue
				}
				if ts[i].IsString() {
					b.WriteString(v.(string))
				} else {
					b.WriteString(types.Format(ts[i], v))
				}
			}
			return b.String(), nil
		}
	case "date_trunc":
		t := x.Args[1].Type()
		fn = func(a []any) (any, error) { return types.DateTrunc(a[0].(string), t, a[1].(int64)) }
	case "extract":
		t := x.Args[1].Type()
		fn = func(a []any) (any, error) {
			d, err := types.Extract(a[0].(string), t, a[1])
			if err != nil || d == nil { // NULL for e.g. hour of 'infinity'
				return nil, err
			}
			return d, nil
		}
	case "date_part":
		t := x.Args[1].Type()
		fn = func(a []any) (any, error) {
			d, err := types.Extract(a[0].(string), t, a[1])
			if err != nil || d == nil {
				return nil, err
			}
			f, err := d.Float64()
			return f, err
		}
	default:
		return nil, pgerr.New(pgerr.UndefinedFunction, "function %s is not implemented", x.Name)
	}
	return compileRowwise(x.Args, x.T, strict, ec, fn)
}

// floatPower is power(float8, float8) with PostgreSQL's domain errors.
func floatPower(x, y float64) (any, error) {
	if x == 0 && y < 0 {
		return nil, pgerr.New(pgerr.InvalidArgumentForPowerFunc, "zero raised to a negative power is undefined")
	}
	if x < 0 && math.Floor(y) != y {
		return nil, pgerr.New(pgerr.InvalidArgumentForPowerFunc, "a negative number raised to a non-integer power yields a complex result")
	}
	r := math.Pow(x, y)
	if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return nil, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
	}
	if r == 0 && x != 0 && !math.IsInf(y, 0) {
		return nil, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: underflow")
	}
	return r, nil
}
