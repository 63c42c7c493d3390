package types

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// The expected outcomes below were recorded from PostgreSQL 15.18, as the
// other tables of this package (see helpers_test.go).

func TestNumericRoundTruncScaleLimits(t *testing.T) {
	cases := []struct {
		fn    string
		a     string
		scale int32
		want  string // the result's text length, or its outcome
	}{
		// Scales up to NUMERIC_DSCALE_MAX are kept (not 2000).
		{"round", "1e-16383", 16383, "len 16385"},
		{"round", "1e-16383", 20000, "len 16385"},
		{"round", "1e-16383", math.MaxInt32, "len 16385"},
		{"trunc", "1e-16383", 16383, "len 16385"},
		{"trunc", "1.5", 20000, "len 16385"},
		{"round", "1.5", 2001, "len 2003"},
		// Negative scales reach the numeric's 131072 integer digits (one
		// more for round, whose top digit may carry).
		{"round", "12345.6", -200000, "0"},
		{"round", "12345.6", math.MinInt32, "0"},
		{"trunc", "12345.6", -200000, "0"},
		{"round", "5e131071", -131073, "0"},
		{"round", "5e131071", -131072, "ERROR 22003 value overflows numeric format"},
		{"trunc", "5e131071", -131071, "len 131072"},
		{"round", "NaN", 16383, "NaN"},
		{"trunc", "-Infinity", -5, "-Infinity"},
	}
	for _, c := range cases {
		a := mustNumeric(t, c.a)
		round := NumericRound
		if c.fn == "trunc" {
			round = NumericTrunc
		}
		v, err := round(a, c.scale)
		got := outcome(NumericT, v, err)
		if strings.HasPrefix(c.want, "len ") && err == nil {
			got = "len " + itoa(len(got))
		}
		if got != c.want {
			t.Errorf("%s(%s, %d) = %.60s, want %s", c.fn, c.a, c.scale, got, c.want)
		}
	}
	// The value must survive: round(1e-16383, 16383) is not zero.
	v, err := NumericRound(mustNumeric(t, "1e-16383"), 16383)
	if err != nil || numericSign(v) == 0 {
		t.Errorf("round(1e-16383, 16383) = %v, %v; want a non-zero value", v, err)
	}
}

func TestNumericSqrtTinyInput(t *testing.T) {
	v, err := NumericSqrt(mustNumeric(t, "1e-16383"))
	if got := outcome(NumericT, v, err); got != "0."+strings.Repeat("0", 1000) {
		t.Errorf("sqrt(1e-16383) = %.40s (len %d), want 0 at scale 1000", got, len(got))
	}
	v, err = NumericSqrt(mustNumeric(t, "4e-1998"))
	if got := outcome(NumericT, v, err); got != "0."+strings.Repeat("0", 998)+"20" {
		t.Errorf("sqrt(4e-1998) = ...%s", got[max(0, len(got)-10):])
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestDateArithmetic(t *testing.T) {
	day := func(s string) int32 { return mustParse(t, DateT, s).(int32) }
	plus := []struct {
		date string
		days int64
		want string
	}{
		{"infinity", 1, "infinity"},
		{"-infinity", -1, "-infinity"},
		{"infinity", math.MinInt32, "infinity"},
		{"4714-11-25 BC", -1, "4714-11-24 BC"},
		{"4714-11-24 BC", -1, "ERROR 22008 date out of range"},
		{"5874897-12-30", 1, "5874897-12-31"},
		{"5874897-12-31", 1, "ERROR 22008 date out of range"},
		{"4714-11-24 BC", math.MaxInt32, "ERROR 22008 date out of range"},
		{"2000-01-01", -math.MinInt32, "ERROR 22008 date out of range"},
		{"2000-01-01", math.MinInt32, "ERROR 22008 date out of range"},
		{"2000-01-01", 366, "2001-01-01"},
	}
	for _, c := range plus {
		v, err := DatePlusDays(day(c.date), c.days)
		var d any = v
		if got := outcome(DateT, d, err); got != c.want {
			t.Errorf("%s + %d = %s, want %s", c.date, c.days, got, c.want)
		}
	}
	minus := []struct{ a, b, want string }{
		{"infinity", "-infinity", "ERROR 22008 cannot subtract infinite dates"},
		{"infinity", "infinity", "ERROR 22008 cannot subtract infinite dates"},
		{"2000-01-01", "-infinity", "ERROR 22008 cannot subtract infinite dates"},
		{"5874897-12-31", "4714-11-24 BC", "2147483493"},
		{"4714-11-24 BC", "5874897-12-31", "-2147483493"},
	}
	for _, c := range minus {
		v, err := DateMinusDate(day(c.a), day(c.b))
		var d any = v
		if got := outcome(Int8T, d, err); got != c.want {
			t.Errorf("%s - %s = %s, want %s", c.a, c.b, got, c.want)
		}
	}
}

func TestTimestampLowerBoundWithZone(t *testing.T) {
	cases := []struct {
		typ, in, want string
	}{
		{"timestamptz", "4714-11-23 23:00:00-01 BC", "4714-11-24 00:00:00+00 BC"},
		{"timestamptz", "4714-11-24 00:00:00+01 BC", `ERROR 22008 timestamp out of range: "4714-11-24 00:00:00+01 BC"`},
		{"timestamptz", "4714-11-24 00:00:00+00 BC", "4714-11-24 00:00:00+00 BC"},
		{"timestamp", "4714-11-23 23:00:00-01 BC", `ERROR 22008 timestamp out of range: "4714-11-23 23:00:00-01 BC"`},
		{"timestamp", "4714-11-24 00:00:00 BC", "4714-11-24 00:00:00 BC"},
		{"timestamp", "4714-11-23 23:59:59.999999 BC", `ERROR 22008 timestamp out of range: "4714-11-23 23:59:59.999999 BC"`},
	}
	for _, c := range cases {
		typ := typeOf(t, c.typ)
		v, err := Parse(typ, c.in)
		if got := outcome(typ, v, err); got != c.want {
			t.Errorf("%s %q: got %s, want %s", c.typ, c.in, got, c.want)
		}
	}
}

func TestValueSizeLimits(t *testing.T) {
	if MaxValueBytes != 1<<30-1 {
		t.Fatalf("MaxValueBytes = %d, want PostgreSQL's MaxAllocSize", MaxValueBytes)
	}
	concat := []struct {
		have, more int
		want       string
	}{
		{0, MaxValueBytes - 1, ""},
		{0, MaxValueBytes, "ERROR 54000 out of memory DETAIL: Cannot enlarge string buffer containing 0 bytes by 1073741823 more bytes."},
		{600000000, 600000000, "ERROR 54000 out of memory DETAIL: Cannot enlarge string buffer containing 600000000 bytes by 600000000 more bytes."},
		{1073741822, 0, ""},
		{1073741822, 1, "ERROR 54000 out of memory DETAIL: Cannot enlarge string buffer containing 1073741822 bytes by 1 more bytes."},
		{900000003, 300000000, "ERROR 54000 out of memory DETAIL: Cannot enlarge string buffer containing 900000003 bytes by 300000000 more bytes."},
	}
	for _, c := range concat {
		got := ""
		if err := CheckConcatSize(c.have, c.more); err != nil {
			got = outcome(TextT, nil, err)
		}
		if got != c.want {
			t.Errorf("CheckConcatSize(%d, %d) = %q, want %q", c.have, c.more, got, c.want)
		}
	}
	text := []struct {
		n    int
		want string
	}{
		{MaxValueBytes - VarHdrSize, ""},
		{MaxValueBytes - VarHdrSize + 1, "ERROR XX000 invalid memory alloc request size 1073741824"},
		{1200000000, "ERROR XX000 invalid memory alloc request size 1200000004"},
	}
	for _, c := range text {
		got := ""
		if err := CheckTextSize(c.n); err != nil {
			got = outcome(TextT, nil, err)
		}
		if got != c.want {
			t.Errorf("CheckTextSize(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
