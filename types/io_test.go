package types

import (
	"math"
	"strings"
	"testing"
)

type parseCase struct {
	typ, in, want string
}

// TestParse runs each input through Parse (for the plain types, the same
// as casting an untyped literal) and formats the result.
func TestParse(t *testing.T) {
	for _, c := range parseCases {
		typ := typeOf(t, c.typ)
		v, err := Parse(typ, c.in)
		if got := outcome(typ, v, err); got != c.want {
			t.Errorf("Parse(%s, %q)\n got: %s\nwant: %s", c.typ, c.in, got, c.want)
		}
	}
}

// Words meaning the current date or time are refused: PostgreSQL answers
// with the transaction's time, which this package does not know.
func TestParseCurrentTimeWords(t *testing.T) {
	for _, s := range []string{"now", "today", " Tomorrow ", "yesterday", "today 10:00"} {
		for _, typ := range []T{DateT, TimestampT, TimestampTZT} {
			_, err := Parse(typ, s)
			want := `ERROR 0A000 date/time value "` + strings.ToLower(strings.Fields(s)[0]) + `" is not supported`
			if got := outcome(typ, nil, err); got != want {
				t.Errorf("Parse(%s, %q): %s", typ, s, got)
			}
		}
	}
}

// Datums built directly rather than parsed; outputs checked in PostgreSQL
// 15 (e.g. select '-0'::float8, '1970-01-01'::date - 719528,
// to_timestamp(-62169984000)).
func TestFormatDatums(t *testing.T) {
	cases := []struct {
		typ  T
		d    any
		want string
	}{
		{BoolT, true, "t"},
		{BoolT, false, "f"},
		{Int2T, int64(-32768), "-32768"},
		{Int8T, int64(math.MinInt64), "-9223372036854775808"},
		{Float8T, math.Copysign(0, -1), "-0"},
		{Float8T, math.NaN(), "NaN"},
		{Float8T, math.Inf(-1), "-Infinity"},
		{Float8T, 1e100, "1e+100"},
		{Float8T, 1.5e-5, "1.5e-05"},
		{Float8T, 123456789012345.0, "123456789012345"},
		{Float8T, 1e15, "1e+15"},
		{Float8T, math.Nextafter(0.3, 1), "0.30000000000000004"},
		{Float4T, float64(float32(0.1)), "0.1"},
		{Float4T, float64(float32(1e6)), "1e+06"},
		{Float4T, float64(float32(16777216)), "1.6777216e+07"},
		{NumericT, mustNumeric(t, "-0.00"), "0.00"},
		{NumericT, newInfinity(true), "-Infinity"},
		{DateT, DatePosInfinity, "infinity"},
		{DateT, DateNegInfinity, "-infinity"},
		{DateT, int32(0), "1970-01-01"},
		{DateT, int32(-719528), "0001-01-01 BC"},
		{DateT, int32(-719529), "0002-12-31 BC"},
		{TimestampT, TimestampNegInfinity, "-infinity"},
		{TimestampT, int64(-1), "1969-12-31 23:59:59.999999"},
		{TimestampT, int64(1705313472120000), "2024-01-15 10:11:12.12"},
		{TimestampTZT, int64(0), "1970-01-01 00:00:00+00"},
		{TimestampTZT, int64(-62169984000000000), "0002-11-30 00:00:00+00 BC"},
		{TimestampTZT, int64(-62135596800000000), "0001-01-01 00:00:00+00"},
		{BpcharT, "ab  ", "ab  "},
	}
	for _, c := range cases {
		if got := Format(c.typ, c.d); got != c.want {
			t.Errorf("Format(%s, %v) = %q, want %q", c.typ, c.d, got, c.want)
		}
		if got := string(AppendFormat([]byte("x"), c.typ, c.d)); got != "x"+c.want {
			t.Errorf("AppendFormat(%s, %v) = %q, want %q", c.typ, c.d, got, "x"+c.want)
		}
	}
}

// Output must read back as the same value.
func TestFormatRoundTrip(t *testing.T) {
	for i := uint64(0); i < 20000; i++ {
		bits := i * 0x9E3779B97F4A7C15
		f := math.Float64frombits(bits)
		if math.IsNaN(f) {
			continue
		}
		back, err := Parse(Float8T, Format(Float8T, f))
		if err != nil || back.(float64) != f {
			t.Fatalf("float8 %v: %q read back as %v, %v", f, Format(Float8T, f), back, err)
		}
		f4 := float64(math.Float32frombits(uint32(bits >> 32)))
		if math.IsNaN(f4) {
			continue
		}
		back, err = Parse(Float4T, Format(Float4T, f4))
		if err != nil || back.(float64) != f4 {
			t.Fatalf("float4 %v: %q read back as %v, %v", f4, Format(Float4T, f4), back, err)
		}
		ts := int64(bits>>8) - 1<<55
		if !validTimestamp(ts) {
			continue
		}
		if back, err := Parse(TimestampT, Format(TimestampT, ts)); err != nil || back.(int64) != ts {
			t.Fatalf("timestamp %d: %q read back as %v, %v", ts, Format(TimestampT, ts), back, err)
		}
	}
}

func BenchmarkFormatInt64(b *testing.B) {
	buf := make([]byte, 0, 32)
	for i := 0; i < b.N; i++ {
		buf = AppendFormat(buf[:0], Int8T, int64(i)*7919-1<<40)
	}
}

func BenchmarkFormatFloat64(b *testing.B) {
	buf := make([]byte, 0, 32)
	values := []float64{0.1, 123.456, 1e20, -2.5e-7, 3.141592653589793, 1 << 60}
	for i := 0; i < b.N; i++ {
		buf = AppendFormat(buf[:0], Float8T, values[i%len(values)])
	}
}

var parseCases = []parseCase{
	{"int2", "0", "0"},
	{"int4", "0", "0"},
	{"int8", "0", "0"},
	{"int2", " 12 ", "12"},
	{"int4", " 12 ", "12"},
	{"int8", " 12 ", "12"},
	{"int2", "+5", "5"},
	{"int4", "+5", "5"},
	{"int8", "+5", "5"},
	{"int2", "-0", "0"},
	{"int4", "-0", "0"},
	{"int8", "-0", "0"},
	{"int2", "12a", "ERROR 22P02 invalid input syntax for type smallint: \"12a\""},
	{"int4", "12a", "ERROR 22P02 invalid input syntax for type integer: \"12a\""},
	{"int8", "12a", "ERROR 22P02 invalid input syntax for type bigint: \"12a\""},
	{"int2", "", "ERROR 22P02 invalid input syntax for type smallint: \"\""},
	{"int4", "", "ERROR 22P02 invalid input syntax for type integer: \"\""},
	{"int8", "", "ERROR 22P02 invalid input syntax for type bigint: \"\""},
	{"int2", " ", "ERROR 22P02 invalid input syntax for type smallint: \" \""},
	{"int4", " ", "ERROR 22P02 invalid input syntax for type integer: \" \""},
	{"int8", " ", "ERROR 22P02 invalid input syntax for type bigint: \" \""},
	{"int2", "+", "ERROR 22P02 invalid input syntax for type smallint: \"+\""},
	{"int4", "+", "ERROR 22P02 invalid input syntax for type integer: \"+\""},
	{"int8", "+", "ERROR 22P02 invalid input syntax for type bigint: \"+\""},
	{"int2", "1.5", "ERROR 22P02 invalid input syntax for type smallint: \"1.5\""},
	{"int4", "1.5", "ERROR 22P02 invalid input syntax for type integer: \"1.5\""},
	{"int8", "1.5", "ERROR 22P02 invalid input syntax for type bigint: \"1.5\""},
	{"int2", "32767", "32767"},
	{"int4", "32767", "32767"},
	{"int8", "32767", "32767"},
	{"int2", "32768", "ERROR 22003 value \"32768\" is out of range for type smallint"},
	{"int4", "32768", "32768"},
	{"int8", "32768", "32768"},
	{"int2", "-32768", "-32768"},
	{"int4", "-32768", "-32768"},
	{"int8", "-32768", "-32768"},
	{"int2", "-32769", "ERROR 22003 value \"-32769\" is out of range for type smallint"},
	{"int4", "-32769", "-32769"},
	{"int8", "-32769", "-32769"},
	{"int2", "99999a", "ERROR 22003 value \"99999a\" is out of range for type smallint"},
	{"int4", "99999a", "ERROR 22P02 invalid input syntax for type integer: \"99999a\""},
	{"int8", "99999a", "ERROR 22P02 invalid input syntax for type bigint: \"99999a\""},
	{"int4", "2147483647", "2147483647"},
	{"int4", "2147483648", "ERROR 22003 value \"2147483648\" is out of range for type integer"},
	{"int4", "-2147483648", "-2147483648"},
	{"int4", "99999999999", "ERROR 22003 value \"99999999999\" is out of range for type integer"},
	{"int4", "99999999999a", "ERROR 22003 value \"99999999999a\" is out of range for type integer"},
	{"int4", "2147483648x", "ERROR 22P02 invalid input syntax for type integer: \"2147483648x\""},
	{"int4", "\t7\n", "7"},
	{"int4", "- 1", "ERROR 22P02 invalid input syntax for type integer: \"- 1\""},
	{"int4", "1e3", "ERROR 22P02 invalid input syntax for type integer: \"1e3\""},
	{"int8", "9223372036854775807", "9223372036854775807"},
	{"int8", "9223372036854775808", "ERROR 22003 value \"9223372036854775808\" is out of range for type bigint"},
	{"int8", "-9223372036854775808", "-9223372036854775808"},
	{"int8", "-9223372036854775809", "ERROR 22003 value \"-9223372036854775809\" is out of range for type bigint"},
	{"int8", "1_000", "ERROR 22P02 invalid input syntax for type bigint: \"1_000\""},
	{"int8", "0x10", "ERROR 22P02 invalid input syntax for type bigint: \"0x10\""},
	{"int8", "00000000000000000000001", "1"},
	{"float4", "0", "0"},
	{"float8", "0", "0"},
	{"float4", "-0", "-0"},
	{"float8", "-0", "-0"},
	{"float4", "0.1", "0.1"},
	{"float8", "0.1", "0.1"},
	{"float4", "1e15", "1e+15"},
	{"float8", "1e15", "1e+15"},
	{"float4", "1e14", "1e+14"},
	{"float8", "1e14", "100000000000000"},
	{"float4", "123456789012345678", "1.2345679e+17"},
	{"float8", "123456789012345678", "1.2345678901234568e+17"},
	{"float4", "0.0001", "0.0001"},
	{"float8", "0.0001", "0.0001"},
	{"float4", "0.00001", "1e-05"},
	{"float8", "0.00001", "1e-05"},
	{"float4", "1.5e-5", "1.5e-05"},
	{"float8", "1.5e-5", "1.5e-05"},
	{"float4", "1e6", "1e+06"},
	{"float8", "1e6", "1000000"},
	{"float4", "123456", "123456"},
	{"float8", "123456", "123456"},
	{"float4", "1234567", "1.234567e+06"},
	{"float8", "1234567", "1234567"},
	{"float4", "1e22", "1e+22"},
	{"float8", "1e22", "1e+22"},
	{"float4", "NaN", "NaN"},
	{"float8", "NaN", "NaN"},
	{"float4", " nan ", "NaN"},
	{"float8", " nan ", "NaN"},
	{"float4", "-nan", "NaN"},
	{"float8", "-nan", "NaN"},
	{"float4", "Infinity", "Infinity"},
	{"float8", "Infinity", "Infinity"},
	{"float4", "-Infinity", "-Infinity"},
	{"float8", "-Infinity", "-Infinity"},
	{"float4", "inf", "Infinity"},
	{"float8", "inf", "Infinity"},
	{"float4", "+inf", "Infinity"},
	{"float8", "+inf", "Infinity"},
	{"float4", "infinit", "ERROR 22P02 invalid input syntax for type real: \"infinit\""},
	{"float8", "infinit", "ERROR 22P02 invalid input syntax for type double precision: \"infinit\""},
	{"float4", "inf x", "ERROR 22P02 invalid input syntax for type real: \"inf x\""},
	{"float8", "inf x", "ERROR 22P02 invalid input syntax for type double precision: \"inf x\""},
	{"float4", "abc", "ERROR 22P02 invalid input syntax for type real: \"abc\""},
	{"float8", "abc", "ERROR 22P02 invalid input syntax for type double precision: \"abc\""},
	{"float4", "", "ERROR 22P02 invalid input syntax for type real: \"\""},
	{"float8", "", "ERROR 22P02 invalid input syntax for type double precision: \"\""},
	{"float4", "1e", "ERROR 22P02 invalid input syntax for type real: \"1e\""},
	{"float8", "1e", "ERROR 22P02 invalid input syntax for type double precision: \"1e\""},
	{"float4", "1e400", "ERROR 22003 \"1e400\" is out of range for type real"},
	{"float8", "1e400", "ERROR 22003 \"1e400\" is out of range for type double precision"},
	{"float4", "-1e400", "ERROR 22003 \"-1e400\" is out of range for type real"},
	{"float8", "-1e400", "ERROR 22003 \"-1e400\" is out of range for type double precision"},
	{"float4", "1e-400", "ERROR 22003 \"1e-400\" is out of range for type real"},
	{"float8", "1e-400", "ERROR 22003 \"1e-400\" is out of range for type double precision"},
	{"float4", "1e-310", "ERROR 22003 \"1e-310\" is out of range for type real"},
	{"float8", "1e-310", "1e-310"},
	{"float4", "1e39", "ERROR 22003 \"1e39\" is out of range for type real"},
	{"float8", "1e39", "1e+39"},
	{"float4", "1e-46", "ERROR 22003 \"1e-46\" is out of range for type real"},
	{"float8", "1e-46", "1e-46"},
	{"float4", "3.4028235e38", "3.4028235e+38"},
	{"float8", "3.4028235e38", "3.4028235e+38"},
	{"float4", "1e40x", "ERROR 22003 \"1e40x\" is out of range for type real"},
	{"float8", "1e40x", "ERROR 22P02 invalid input syntax for type double precision: \"1e40x\""},
	{"float4", " 1e400x", "ERROR 22003 \" 1e400x\" is out of range for type real"},
	{"float8", " 1e400x", "ERROR 22003 \"1e400\" is out of range for type double precision"},
	{"float4", "0x10", "16"},
	{"float8", "0x10", "16"},
	{"float4", "0x1p-2", "0.25"},
	{"float8", "0x1p-2", "0.25"},
	{"float4", "1.7976931348623157e308", "ERROR 22003 \"1.7976931348623157e308\" is out of range for type real"},
	{"float8", "1.7976931348623157e308", "1.7976931348623157e+308"},
	{"float4", "4.9e-324", "ERROR 22003 \"4.9e-324\" is out of range for type real"},
	{"float8", "4.9e-324", "5e-324"},
	{"float4", "155363055845647616", "1.5536305e+17"},
	{"float8", "155363055845647616", "1.5536305584564762e+17"},
	{"float4", "5.72185671819781e+07", "5.7218568e+07"},
	{"float8", "5.72185671819781e+07", "57218567.1819781"},
	{"float4", "9007199254740993", "9.007199e+15"},
	{"float8", "9007199254740993", "9.007199254740992e+15"},
	{"float4", "1e-45", "1e-45"},
	{"float8", "1e-45", "1e-45"},
	{"float4", "16777217", "1.6777216e+07"},
	{"float8", "16777217", "16777217"},
	{"float4", "100000", "100000"},
	{"float8", "100000", "100000"},
	{"float4", "1000000", "1e+06"},
	{"float8", "1000000", "1000000"},
	{"numeric", "0", "0"},
	{"numeric", "-0", "0"},
	{"numeric", "-0.00", "0.00"},
	{"numeric", "00012.3400", "12.3400"},
	{"numeric", "1.50e1", "15.0"},
	{"numeric", "1e5", "100000"},
	{"numeric", "1.5e-3", "0.0015"},
	{"numeric", " +.5 ", "0.5"},
	{"numeric", "5.", "5"},
	{"numeric", ".", "ERROR 22P02 invalid input syntax for type numeric: \".\""},
	{"numeric", "1e", "ERROR 22P02 invalid input syntax for type numeric: \"1e\""},
	{"numeric", "1e 5", "100000"},
	{"numeric", "nan", "NaN"},
	{"numeric", "NaN", "NaN"},
	{"numeric", "-Infinity", "-Infinity"},
	{"numeric", "inf", "Infinity"},
	{"numeric", "infinit", "ERROR 22P02 invalid input syntax for type numeric: \"infinit\""},
	{"numeric", "1e-20000", "ERROR 22003 value overflows numeric format"},
	{"numeric", "1e+131072", "ERROR 22003 value overflows numeric format"},
	{"numeric", "0e10", "0"},
	{"numeric", "1,5", "ERROR 22P02 invalid input syntax for type numeric: \"1,5\""},
	{"numeric", "1.2.3", "ERROR 22P02 invalid input syntax for type numeric: \"1.2.3\""},
	{"numeric", "", "ERROR 22P02 invalid input syntax for type numeric: \"\""},
	{"numeric", "-", "ERROR 22P02 invalid input syntax for type numeric: \"-\""},
	{"numeric", "1e1073741823", "ERROR 22003 value overflows numeric format"},
	{"numeric", "1e9999999999x", "ERROR 22003 value overflows numeric format"},
	{"numeric", "12345678901234567890.123456789", "12345678901234567890.123456789"},
	{"numeric(4,2)", "12.345", "12.35"},
	{"numeric(4,2)", "123.45", "ERROR 22003 numeric field overflow DETAIL: A field with precision 4, scale 2 must round to an absolute value less than 10^2."},
	{"numeric(4,2)", "99.995", "ERROR 22003 numeric field overflow DETAIL: A field with precision 4, scale 2 must round to an absolute value less than 10^2."},
	{"numeric(4,2)", "99.994", "99.99"},
	{"numeric(4,2)", "-99.994", "-99.99"},
	{"numeric(4,2)", "NaN", "NaN"},
	{"numeric(4,2)", "Infinity", "ERROR 22003 numeric field overflow DETAIL: A field with precision 4, scale 2 cannot hold an infinite value."},
	{"numeric(4,2)", "1e-20000", "0.00"},
	{"numeric(4,2)", "-0.001", "0.00"},
	{"numeric(2,-3)", "12345", "12000"},
	{"numeric(2,-3)", "123456", "ERROR 22003 numeric field overflow DETAIL: A field with precision 2, scale -3 must round to an absolute value less than 10^5."},
	{"numeric(2,-3)", "-1499", "-1000"},
	{"numeric(2,-3)", "-1500", "-2000"},
	{"numeric(2,3)", "0.0123", "0.012"},
	{"numeric(2,3)", "0.123", "ERROR 22003 numeric field overflow DETAIL: A field with precision 2, scale 3 must round to an absolute value less than 10^-1."},
	{"numeric(2,3)", "0.0995", "ERROR 22003 numeric field overflow DETAIL: A field with precision 2, scale 3 must round to an absolute value less than 10^-1."},
	{"numeric(2,3)", "0.0994", "0.099"},
	{"numeric(2,2)", "0.999", "ERROR 22003 numeric field overflow DETAIL: A field with precision 2, scale 2 must round to an absolute value less than 1."},
	{"numeric(2,2)", "0.994", "0.99"},
	{"varchar(3)", "abc", "abc"},
	{"varchar(3)", "ab", "ab"},
	{"varchar(3)", "abcd", "ERROR 22001 value too long for type character varying(3)"},
	{"varchar(3)", "ab  ", "ab "},
	{"varchar(3)", "abc   ", "abc"},
	{"varchar(3)", "", ""},
	{"varchar(3)", "héllo", "ERROR 22001 value too long for type character varying(3)"},
	{"varchar(3)", "hél", "hél"},
	{"varchar(3)", "日本語", "日本語"},
	{"varchar(3)", "日本語 ", "日本語"},
	{"char(3)", "abc", "abc"},
	{"char(3)", "ab", "ab "},
	{"char(3)", "abcd", "ERROR 22001 value too long for type character(3)"},
	{"char(3)", "ab  ", "ab "},
	{"char(3)", "", "   "},
	{"char(3)", "hé", "hé "},
	{"char(3)", "日本語x", "ERROR 22001 value too long for type character(3)"},
	{"char(5)", "ab", "ab   "},
	{"char(5)", "a b", "a b  "},
	{"char(5)", "  ", "     "},
	{"bool", "t", "t"},
	{"bool", "TRUE", "t"},
	{"bool", " yes ", "t"},
	{"bool", "y", "t"},
	{"bool", "ye", "t"},
	{"bool", "on", "t"},
	{"bool", "off", "f"},
	{"bool", "of", "f"},
	{"bool", "o", "ERROR 22P02 invalid input syntax for type boolean: \"o\""},
	{"bool", "1", "t"},
	{"bool", "0", "f"},
	{"bool", "2", "ERROR 22P02 invalid input syntax for type boolean: \"2\""},
	{"bool", "false", "f"},
	{"bool", "falsee", "ERROR 22P02 invalid input syntax for type boolean: \"falsee\""},
	{"bool", "n", "f"},
	{"bool", "no", "f"},
	{"bool", "", "ERROR 22P02 invalid input syntax for type boolean: \"\""},
	{"bool", "tr ue", "ERROR 22P02 invalid input syntax for type boolean: \"tr ue\""},
	{"bool", "\tf\n", "f"},
	{"date", "2024-01-15", "2024-01-15"},
	{"date", "0044-03-15 BC", "0044-03-15 BC"},
	{"date", "44-03-15 BC", "ERROR 22008 date/time field value out of range: \"44-03-15 BC\" HINT: Perhaps you need a different \"datestyle\" setting."},
	{"date", "infinity", "infinity"},
	{"date", "-infinity", "-infinity"},
	{"date", "+infinity", "ERROR 22007 invalid input syntax for type date: \"+infinity\""},
	{"date", "epoch", "1970-01-01"},
	{"date", "20240115", "2024-01-15"},
	{"date", "2024-1-5", "2024-01-05"},
	{"date", "01/02/2024", "2024-01-02"},
	{"date", "Jan 8 1999", "1999-01-08"},
	{"date", "8 January 1999", "1999-01-08"},
	{"date", "1999-Jan-08", "1999-01-08"},
	{"date", "2024-13-01", "ERROR 22008 date/time field value out of range: \"2024-13-01\" HINT: Perhaps you need a different \"datestyle\" setting."},
	{"date", "2024-02-30", "ERROR 22008 date/time field value out of range: \"2024-02-30\""},
	{"date", "2024-02-29 12:34:56", "2024-02-29"},
	{"date", "2023-02-29", "ERROR 22008 date/time field value out of range: \"2023-02-29\""},
	{"date", "2024-01-15T10:00:00+02", "2024-01-15"},
	{"date", "5874897-12-31", "5874897-12-31"},
	{"date", "5874898-01-01", "ERROR 22008 date out of range: \"5874898-01-01\""},
	{"date", "4714-11-24 BC", "4714-11-24 BC"},
	{"date", "4714-11-23 BC", "ERROR 22008 date out of range: \"4714-11-23 BC\""},
	{"date", "foo", "ERROR 22007 invalid input syntax for type date: \"foo\""},
	{"date", "2024-01-15 foo", "ERROR 22007 invalid input syntax for type date: \"2024-01-15 foo\""},
	{"date", "", "ERROR 22007 invalid input syntax for type date: \"\""},
	{"date", "0000-01-01", "ERROR 22008 date/time field value out of range: \"0000-01-01\""},
	{"date", "99-01-01", "ERROR 22008 date/time field value out of range: \"99-01-01\" HINT: Perhaps you need a different \"datestyle\" setting."},
	{"date", "2024/01/15", "2024-01-15"},
	{"date", "15.01.2024", "ERROR 22008 date/time field value out of range: \"15.01.2024\" HINT: Perhaps you need a different \"datestyle\" setting."},
	{"date", "2024.01.15", "2024-01-15"},
	{"date", " 2024-01-15 ", "2024-01-15"},
	{"date", "2024-01-15 AD", "2024-01-15"},
	{"date", "y2001m02d04", "2001-02-04"},
	{"date", "J2451545", "2000-01-01"},
	{"date", "1999.008", "1999-01-08"},
	{"date", "08-Jan-99", "1999-01-08"},
	{"date", "January 8, 99 BC", "0099-01-08 BC"},
	{"date", "990108", "1999-01-08"},
	{"date", "1999-01-08 04:05:06 PST", "1999-01-08"},
	{"date", "Mon 2024-01-15", "ERROR 22007 invalid input syntax for type date: \"Mon 2024-01-15\""},
	{"date", "2024-001", "2024-01-01"},
	{"date", "2024-01-15 Foo/Bar", "ERROR 22023 time zone \"foo/bar\" not recognized"},
	{"date", "2024-01-15 25:00", "ERROR 22008 date/time field value out of range: \"2024-01-15 25:00\""},
	{"date", "10:00", "ERROR 22007 invalid input syntax for type date: \"10:00\""},
	{"date", "epoch 10:00", "1970-01-01"},
	{"date", "99 epoch", "ERROR 22008 date/time field value out of range: \"99 epoch\" HINT: Perhaps you need a different \"datestyle\" setting."},
	{"date", "1999-01-08 m", "1999-01-08"},
	{"timestamp", "2024-01-15 10:11:12", "2024-01-15 10:11:12"},
	{"timestamptz", "2024-01-15 10:11:12", "2024-01-15 10:11:12+00"},
	{"timestamp", "2024-01-15 10:11:12.5", "2024-01-15 10:11:12.5"},
	{"timestamptz", "2024-01-15 10:11:12.5", "2024-01-15 10:11:12.5+00"},
	{"timestamp", "2024-01-15T10:00:00.1234567", "2024-01-15 10:00:00.123457"},
	{"timestamptz", "2024-01-15T10:00:00.1234567", "2024-01-15 10:00:00.123457+00"},
	{"timestamp", "2024-01-15 24:00:00", "2024-01-16 00:00:00"},
	{"timestamptz", "2024-01-15 24:00:00", "2024-01-16 00:00:00+00"},
	{"timestamp", "2024-01-15 23:59:60", "2024-01-16 00:00:00"},
	{"timestamptz", "2024-01-15 23:59:60", "2024-01-16 00:00:00+00"},
	{"timestamp", "2024-01-15 23:59:60.5", "ERROR 22008 date/time field value out of range: \"2024-01-15 23:59:60.5\""},
	{"timestamptz", "2024-01-15 23:59:60.5", "ERROR 22008 date/time field value out of range: \"2024-01-15 23:59:60.5\""},
	{"timestamp", "2024-01-15 25:00:00", "ERROR 22008 date/time field value out of range: \"2024-01-15 25:00:00\""},
	{"timestamptz", "2024-01-15 25:00:00", "ERROR 22008 date/time field value out of range: \"2024-01-15 25:00:00\""},
	{"timestamp", "2024-01-15 10:60:00", "ERROR 22008 date/time field value out of range: \"2024-01-15 10:60:00\""},
	{"timestamptz", "2024-01-15 10:60:00", "ERROR 22008 date/time field value out of range: \"2024-01-15 10:60:00\""},
	{"timestamp", "2024-01-15 10:00 pm", "2024-01-15 22:00:00"},
	{"timestamptz", "2024-01-15 10:00 pm", "2024-01-15 22:00:00+00"},
	{"timestamp", "2024-01-15 12:00 am", "2024-01-15 00:00:00"},
	{"timestamptz", "2024-01-15 12:00 am", "2024-01-15 00:00:00+00"},
	{"timestamp", "20240115T103000", "2024-01-15 10:30:00"},
	{"timestamptz", "20240115T103000", "2024-01-15 10:30:00+00"},
	{"timestamp", "20240115 103000", "2024-01-15 10:30:00"},
	{"timestamptz", "20240115 103000", "2024-01-15 10:30:00+00"},
	{"timestamp", "epoch", "1970-01-01 00:00:00"},
	{"timestamptz", "epoch", "1970-01-01 00:00:00+00"},
	{"timestamp", "infinity", "infinity"},
	{"timestamptz", "infinity", "infinity"},
	{"timestamp", "-infinity", "-infinity"},
	{"timestamptz", "-infinity", "-infinity"},
	{"timestamp", "2024-01-15 10:00:00+02 BC", "2024-01-15 10:00:00 BC"},
	{"timestamptz", "2024-01-15 10:00:00+02 BC", "2024-01-15 08:00:00+00 BC"},
	{"timestamp", "292277-01-09 04:00:54.775806", "292277-01-09 04:00:54.775806"},
	{"timestamptz", "292277-01-09 04:00:54.775806", "292277-01-09 04:00:54.775806+00"},
	{"timestamp", "4714-11-24 00:00:00 BC", "4714-11-24 00:00:00 BC"},
	{"timestamptz", "4714-11-24 00:00:00 BC", "4714-11-24 00:00:00+00 BC"},
	{"timestamp", "4714-11-23 23:59:59 BC", "ERROR 22008 timestamp out of range: \"4714-11-23 23:59:59 BC\""},
	{"timestamptz", "4714-11-23 23:59:59 BC", "ERROR 22008 timestamp out of range: \"4714-11-23 23:59:59 BC\""},
	{"timestamp", "2024-01-15 10:00:00.5 +02:00", "2024-01-15 10:00:00.5"},
	{"timestamptz", "2024-01-15 10:00:00.5 +02:00", "2024-01-15 08:00:00.5+00"},
	{"timestamp", "10:00 2024-01-15", "ERROR 22007 invalid input syntax for type timestamp: \"10:00 2024-01-15\""},
	{"timestamptz", "10:00 2024-01-15", "ERROR 22007 invalid input syntax for type timestamp with time zone: \"10:00 2024-01-15\""},
	{"timestamp", "2024-01-15 allballs", "2024-01-15 00:00:00"},
	{"timestamptz", "2024-01-15 allballs", "2024-01-15 00:00:00+00"},
	{"timestamp", "2024-01-15 10:00:00 MET DST", "2024-01-15 10:00:00"},
	{"timestamptz", "2024-01-15 10:00:00 MET DST", "2024-01-15 08:00:00+00"},
	{"timestamp", "Mon Jan 15 10:00:00 2024", "2024-01-15 10:00:00"},
	{"timestamptz", "Mon Jan 15 10:00:00 2024", "2024-01-15 10:00:00+00"},
	{"timestamp", "2024-01-15 10:00:00+05:30", "2024-01-15 10:00:00"},
	{"timestamptz", "2024-01-15 10:00:00+05:30", "2024-01-15 04:30:00+00"},
	{"timestamp", "2024-01-15 10:00:00+16", "ERROR 22009 time zone displacement out of range: \"2024-01-15 10:00:00+16\""},
	{"timestamptz", "2024-01-15 10:00:00+16", "ERROR 22009 time zone displacement out of range: \"2024-01-15 10:00:00+16\""},
	{"timestamp", "2024-01-15 10:00:00+0530", "2024-01-15 10:00:00"},
	{"timestamptz", "2024-01-15 10:00:00+0530", "2024-01-15 04:30:00+00"},
	{"timestamp", "2024-01-15 10:00:00-5", "2024-01-15 10:00:00"},
	{"timestamptz", "2024-01-15 10:00:00-5", "2024-01-15 15:00:00+00"},
	{"timestamp", "2024-01-15 10:00:00Z", "2024-01-15 10:00:00"},
	{"timestamptz", "2024-01-15 10:00:00Z", "2024-01-15 10:00:00+00"},
	{"timestamp", "2024-01-15 10:00:00 UTC", "2024-01-15 10:00:00"},
	{"timestamptz", "2024-01-15 10:00:00 UTC", "2024-01-15 10:00:00+00"},
	{"timestamp", "2024-01-15 10:00:00 EST", "2024-01-15 10:00:00"},
	{"timestamptz", "2024-01-15 10:00:00 EST", "2024-01-15 15:00:00+00"},
	{"timestamp", "2024-01-15 10:00:00 America/New_York", "2024-01-15 10:00:00"},
	{"timestamptz", "2024-01-15 10:00:00 America/New_York", "2024-01-15 15:00:00+00"},
	{"timestamp", "2024-07-15 10:00:00 america/new_york", "2024-07-15 10:00:00"},
	{"timestamptz", "2024-07-15 10:00:00 america/new_york", "2024-07-15 14:00:00+00"},
	{"timestamp", "2024-03-10 02:30:00 America/New_York", "2024-03-10 02:30:00"},
	{"timestamptz", "2024-03-10 02:30:00 America/New_York", "2024-03-10 07:30:00+00"},
	{"timestamp", "2024-11-03 01:30:00 America/New_York", "2024-11-03 01:30:00"},
	{"timestamptz", "2024-11-03 01:30:00 America/New_York", "2024-11-03 06:30:00+00"},
	{"timestamp", "2024-01-15 10:00:00 foo", "ERROR 22007 invalid input syntax for type timestamp: \"2024-01-15 10:00:00 foo\""},
	{"timestamptz", "2024-01-15 10:00:00 foo", "ERROR 22007 invalid input syntax for type timestamp with time zone: \"2024-01-15 10:00:00 foo\""},
	{"timestamp", "2024-01-15 10:30.5", "2024-01-15 00:10:30.5"},
	{"timestamptz", "2024-01-15 10:30.5", "2024-01-15 00:10:30.5+00"},
	{"timestamp", "2024-01-15 10:00:00.0000005", "2024-01-15 10:00:00"},
	{"timestamptz", "2024-01-15 10:00:00.0000005", "2024-01-15 10:00:00+00"},
	{"timestamp", "2024-01-15 10:00:00.0000015", "2024-01-15 10:00:00.000002"},
	{"timestamptz", "2024-01-15 10:00:00.0000015", "2024-01-15 10:00:00.000002+00"},
	{"timestamp", "J2451545.5", "2000-01-01 12:00:00"},
	{"timestamptz", "J2451545.5", "2000-01-01 12:00:00+00"},
	{"timestamp", "2024-01-15 10:00:00 gmt+8", "2024-01-15 10:00:00"},
	{"timestamptz", "2024-01-15 10:00:00 gmt+8", "2024-01-15 18:00:00+00"},
	{"timestamp", "2024-07-01 12:00 cet-1cest", "2024-07-01 12:00:00"},
	{"timestamptz", "2024-07-01 12:00 cet-1cest", "2024-07-01 10:00:00+00"},
	{"timestamp", "12/31/1999 23:59:59.999999", "1999-12-31 23:59:59.999999"},
	{"timestamptz", "12/31/1999 23:59:59.999999", "1999-12-31 23:59:59.999999+00"},
	{"timestamp", "1999-01-08h10mm30s520240115", "ERROR 22008 timestamp out of range: \"1999-01-08h10mm30s520240115\""},
	{"timestamptz", "1999-01-08h10mm30s520240115", "ERROR 22008 timestamp out of range: \"1999-01-08h10mm30s520240115\""},
}
