package types

import (
	"strconv"
	"testing"
)

type arithmeticCase struct {
	typ, op, a, b, want string
}

func TestIntArithmetic(t *testing.T) {
	binary := map[string]func(T, int64, int64) (int64, error){
		"add": AddInt, "sub": SubInt, "mul": MulInt, "div": DivInt, "mod": ModInt,
	}
	for _, c := range intArithmeticCases {
		typ := typeOf(t, c.typ)
		a, _ := strconv.ParseInt(c.a, 10, 64)
		b, _ := strconv.ParseInt(c.b, 10, 64)
		var v int64
		var err error
		switch c.op {
		case "neg":
			v, err = NegInt(typ, a)
		case "abs":
			v, err = AbsInt(typ, a)
		default:
			v, err = binary[c.op](typ, a, b)
		}
		var result any = v
		if err != nil {
			result = nil
		}
		if got := outcome(typ, result, err); got != c.want {
			t.Errorf("%s %s(%s, %s) = %s, want %s", c.typ, c.op, c.a, c.b, got, c.want)
		}
	}
}

func TestFloatArithmetic(t *testing.T) {
	ops := map[string]func(T, float64, float64) (float64, error){
		"add": FloatAdd, "sub": FloatSub, "mul": FloatMul, "div": FloatDiv,
	}
	for _, c := range floatArithmeticCases {
		typ := typeOf(t, c.typ)
		a, b := mustParse(t, typ, c.a).(float64), mustParse(t, typ, c.b).(float64)
		v, err := ops[c.op](typ, a, b)
		var result any = v
		if err != nil {
			result = nil
		}
		if got := outcome(typ, result, err); got != c.want {
			t.Errorf("%s %s(%s, %s) = %s, want %s", c.typ, c.op, c.a, c.b, got, c.want)
		}
	}
}

var intArithmeticCases = []arithmeticCase{
	{"int2", "add", "32767", "1", "ERROR 22003 smallint out of range"},
	{"int2", "add", "-32768", "-1", "ERROR 22003 smallint out of range"},
	{"int2", "add", "5", "-7", "-2"},
	{"int2", "sub", "-32768", "1", "ERROR 22003 smallint out of range"},
	{"int2", "sub", "-1", "32767", "-32768"},
	{"int2", "sub", "0", "-32768", "ERROR 22003 smallint out of range"},
	{"int2", "mul", "-32768", "-1", "ERROR 22003 smallint out of range"},
	{"int2", "mul", "32767", "2", "ERROR 22003 smallint out of range"},
	{"int2", "mul", "-4", "8", "-32"},
	{"int2", "mul", "0", "-32768", "0"},
	{"int2", "div", "-32768", "-1", "ERROR 22003 smallint out of range"},
	{"int2", "div", "7", "-2", "-3"},
	{"int2", "div", "-7", "2", "-3"},
	{"int2", "div", "5", "0", "ERROR 22012 division by zero"},
	{"int2", "mod", "-32768", "-1", "0"},
	{"int2", "mod", "-7", "2", "-1"},
	{"int2", "mod", "7", "-2", "1"},
	{"int2", "mod", "5", "0", "ERROR 22012 division by zero"},
	{"int2", "neg", "-32768", "0", "ERROR 22003 smallint out of range"},
	{"int2", "neg", "32767", "0", "-32767"},
	{"int2", "abs", "-32768", "0", "ERROR 22003 smallint out of range"},
	{"int2", "abs", "-5", "0", "5"},
	{"int4", "add", "2147483647", "1", "ERROR 22003 integer out of range"},
	{"int4", "add", "-2147483648", "-1", "ERROR 22003 integer out of range"},
	{"int4", "add", "5", "-7", "-2"},
	{"int4", "sub", "-2147483648", "1", "ERROR 22003 integer out of range"},
	{"int4", "sub", "-1", "2147483647", "-2147483648"},
	{"int4", "sub", "0", "-2147483648", "ERROR 22003 integer out of range"},
	{"int4", "mul", "-2147483648", "-1", "ERROR 22003 integer out of range"},
	{"int4", "mul", "2147483647", "2", "ERROR 22003 integer out of range"},
	{"int4", "mul", "-4", "8", "-32"},
	{"int4", "mul", "0", "-2147483648", "0"},
	{"int4", "div", "-2147483648", "-1", "ERROR 22003 integer out of range"},
	{"int4", "div", "7", "-2", "-3"},
	{"int4", "div", "-7", "2", "-3"},
	{"int4", "div", "5", "0", "ERROR 22012 division by zero"},
	{"int4", "mod", "-2147483648", "-1", "0"},
	{"int4", "mod", "-7", "2", "-1"},
	{"int4", "mod", "7", "-2", "1"},
	{"int4", "mod", "5", "0", "ERROR 22012 division by zero"},
	{"int4", "neg", "-2147483648", "0", "ERROR 22003 integer out of range"},
	{"int4", "neg", "2147483647", "0", "-2147483647"},
	{"int4", "abs", "-2147483648", "0", "ERROR 22003 integer out of range"},
	{"int4", "abs", "-5", "0", "5"},
	{"int8", "add", "9223372036854775807", "1", "ERROR 22003 bigint out of range"},
	{"int8", "add", "-9223372036854775808", "-1", "ERROR 22003 bigint out of range"},
	{"int8", "add", "5", "-7", "-2"},
	{"int8", "sub", "-9223372036854775808", "1", "ERROR 22003 bigint out of range"},
	{"int8", "sub", "-1", "9223372036854775807", "-9223372036854775808"},
	{"int8", "sub", "0", "-9223372036854775808", "ERROR 22003 bigint out of range"},
	{"int8", "mul", "-9223372036854775808", "-1", "ERROR 22003 bigint out of range"},
	{"int8", "mul", "9223372036854775807", "2", "ERROR 22003 bigint out of range"},
	{"int8", "mul", "-4", "8", "-32"},
	{"int8", "mul", "0", "-9223372036854775808", "0"},
	{"int8", "div", "-9223372036854775808", "-1", "ERROR 22003 bigint out of range"},
	{"int8", "div", "7", "-2", "-3"},
	{"int8", "div", "-7", "2", "-3"},
	{"int8", "div", "5", "0", "ERROR 22012 division by zero"},
	{"int8", "mod", "-9223372036854775808", "-1", "0"},
	{"int8", "mod", "-7", "2", "-1"},
	{"int8", "mod", "7", "-2", "1"},
	{"int8", "mod", "5", "0", "ERROR 22012 division by zero"},
	{"int8", "neg", "-9223372036854775808", "0", "ERROR 22003 bigint out of range"},
	{"int8", "neg", "9223372036854775807", "0", "-9223372036854775807"},
	{"int8", "abs", "-9223372036854775808", "0", "ERROR 22003 bigint out of range"},
	{"int8", "abs", "-5", "0", "5"},
}

var floatArithmeticCases = []arithmeticCase{
	{"float4", "add", "3e38", "3e38", "ERROR 22003 value out of range: overflow"},
	{"float4", "add", "Infinity", "-Infinity", "NaN"},
	{"float4", "add", "Infinity", "1", "Infinity"},
	{"float4", "add", "0.1", "0.2", "0.3"},
	{"float4", "sub", "-3e38", "3e38", "ERROR 22003 value out of range: overflow"},
	{"float4", "mul", "3e38", "10", "ERROR 22003 value out of range: overflow"},
	{"float4", "mul", "1e-30", "1e-30", "ERROR 22003 value out of range: underflow"},
	{"float4", "mul", "Infinity", "0", "NaN"},
	{"float4", "mul", "0", "5", "0"},
	{"float4", "div", "1", "0", "ERROR 22012 division by zero"},
	{"float4", "div", "NaN", "0", "NaN"},
	{"float4", "div", "0", "0", "ERROR 22012 division by zero"},
	{"float4", "div", "1", "3", "0.33333334"},
	{"float4", "div", "3e38", "0.1", "ERROR 22003 value out of range: overflow"},
	{"float4", "div", "1e-30", "1e30", "ERROR 22003 value out of range: underflow"},
	{"float4", "div", "1", "Infinity", "0"},
	{"float4", "add", "16777216", "1", "1.6777216e+07"},
	{"float8", "add", "1e308", "1e308", "ERROR 22003 value out of range: overflow"},
	{"float8", "add", "Infinity", "-Infinity", "NaN"},
	{"float8", "add", "Infinity", "1", "Infinity"},
	{"float8", "add", "0.1", "0.2", "0.30000000000000004"},
	{"float8", "sub", "-1e308", "1e308", "ERROR 22003 value out of range: overflow"},
	{"float8", "mul", "1e308", "10", "ERROR 22003 value out of range: overflow"},
	{"float8", "mul", "1e-200", "1e-200", "ERROR 22003 value out of range: underflow"},
	{"float8", "mul", "Infinity", "0", "NaN"},
	{"float8", "mul", "0", "5", "0"},
	{"float8", "div", "1", "0", "ERROR 22012 division by zero"},
	{"float8", "div", "NaN", "0", "NaN"},
	{"float8", "div", "0", "0", "ERROR 22012 division by zero"},
	{"float8", "div", "1", "3", "0.3333333333333333"},
	{"float8", "div", "1e308", "0.1", "ERROR 22003 value out of range: overflow"},
	{"float8", "div", "1e-200", "1e30", "9.999999999999999e-231"},
	{"float8", "div", "1", "Infinity", "0"},
	{"float8", "add", "16777216", "1", "16777217"},
}
