package types

import (
	"math"
	"testing"

	"github.com/pgfed/pgfed/pgerr"
)

// Expected values are PostgreSQL 15's (also recorded in
// testdata/logic/types_interval.test).

func TestParseFormatInterval(t *testing.T) {
	cases := []struct {
		in     string
		typmod int32
		want   string // output, or "ERROR sqlstate"
	}{
		{"1 year 2 mons 3 days 04:05:06.789", -1, "1 year 2 mons 3 days 04:05:06.789"},
		{"1 day 2 hours", -1, "1 day 02:00:00"},
		{"1-2", -1, "1 year 2 mons"},
		{"-1-2", -1, "-1 years -2 mons"},
		{"-1 2:03:04", -1, "-1 days +02:03:04"},
		{"1 -2:03:04", -1, "1 day -02:03:04"},
		{"03:04.5", -1, "00:03:04.5"},
		{"P1Y2M3DT4H5M6S", -1, "1 year 2 mons 3 days 04:05:06"},
		{"P0001-02-03T04:05:06", -1, "1 year 2 mons 3 days 04:05:06"},
		{"P00010203T040506", -1, "1 year 2 mons 3 days 04:05:06"},
		{"P2W", -1, "14 days"},
		{"P1.5Y", -1, "1 year 6 mons"},
		{"@ 1 hour ago", -1, "-01:00:00"},
		{"1.5 weeks", -1, "10 days 12:00:00"},
		{"1.5 months", -1, "1 mon 15 days"},
		{"1 decade 1 century 1 millennium", -1, "1110 years"},
		{"5", -1, "00:00:05"},
		{"0", -1, "00:00:00"},
		{"1 d 2 h 3 m 4 s", -1, "1 day 02:03:04"},
		{"1 day 1 day", -1, "ERROR 22007"},
		{"garbage", -1, "ERROR 22007"},
		{"", -1, "ERROR 22007"},
		{"infinity", -1, "ERROR 22007"},
		{"2147483648 days", -1, "ERROR 22015"},
		{"1-13", -1, "ERROR 22015"},
		{"1:60", -1, "ERROR 22015"},
		{"2147483647 months 1 year", -1, "ERROR 22008"},
		{"1", IntervalTypmod(IntervalFullPrecision, IntervalMaskHour), "01:00:00"},
		{"1", IntervalTypmod(IntervalFullPrecision, IntervalMaskYear), "1 year"},
		{"1:30", IntervalTypmod(IntervalFullPrecision, IntervalMaskMinute|IntervalMaskSecond), "00:01:30"},
		{"1 day 02:03:04.5678", IntervalTypmod(IntervalFullPrecision, IntervalMaskHour|IntervalMaskMinute), "1 day 02:03:00"},
		{"1 year 2 months 3 days", IntervalTypmod(IntervalFullPrecision, IntervalMaskYear), "1 year"},
		{"1.5 seconds", IntervalTypmod(0, IntervalFullRange), "00:00:02"},
		{"-1.23456 seconds", IntervalTypmod(3, IntervalFullRange), "-00:00:01.235"},
	}
	for _, c := range cases {
		iv, err := ParseInterval(c.in, c.typmod)
		got := ""
		if err != nil {
			got = "ERROR " + errCode(err)
		} else {
			got = Format(IntervalT, iv)
		}
		if got != c.want {
			t.Errorf("interval %q (typmod %d): got %q, want %q", c.in, c.typmod, got, c.want)
		}
	}
}

func mustInterval(t *testing.T, s string) Interval {
	t.Helper()
	iv, err := ParseInterval(s, -1)
	if err != nil {
		t.Fatalf("interval %q: %v", s, err)
	}
	return iv
}

func TestCompareInterval(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"1 day", "24 hours", 0},
		{"1 mon", "30 days", 0},
		{"1 mon", "31 days", -1},
		{"1 year", "360 days", 0},
		{"-1 day", "1 hour", -1},
		{"1 day", "1 day 00:00:00.000001", -1},
		{"-1 days +23:59:59", "-1 second", 0},
	}
	for _, c := range cases {
		a, b := mustInterval(t, c.a), mustInterval(t, c.b)
		if got := CompareInterval(a, b); got != c.want {
			t.Errorf("compare(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if c.want == 0 && Hash64(IntervalT, a) != Hash64(IntervalT, b) {
			t.Errorf("hash(%q) != hash(%q) though they are equal", c.a, c.b)
		}
	}
}

func TestIntervalArithmetic(t *testing.T) {
	iv := func(s string) Interval { return mustInterval(t, s) }
	ts := func(s string) int64 {
		v, err := parseTimestamp(s, false)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	fmtIv := func(v Interval, err error) string {
		if err != nil {
			return "ERROR " + errCode(err)
		}
		return Format(IntervalT, v)
	}
	fmtTs := func(v int64, err error) string {
		if err != nil {
			return "ERROR " + errCode(err)
		}
		return Format(TimestampT, v)
	}
	checks := []struct{ got, want string }{
		{fmtIv(IntervalMul(iv("1 day 2 hours"), 3)), "3 days 06:00:00"},
		{fmtIv(IntervalMul(iv("1 day 2 hours"), 0.5)), "13:00:00"},
		{fmtIv(IntervalMul(iv("1 mon"), 2.5)), "2 mons 15 days"},
		{fmtIv(IntervalMul(iv("1 mon"), 1.5)), "1 mon 15 days"},
		{fmtIv(IntervalDiv(iv("1 mon"), 3)), "10 days"},
		{fmtIv(IntervalDiv(iv("1 year"), 7)), "1 mon 21 days 10:17:08.5344"},
		{fmtIv(IntervalDiv(iv("1 day"), 0)), "ERROR 22012"},
		{fmtIv(IntervalMul(iv("2147483647 days"), 2)), "ERROR 22008"},
		{fmtIv(IntervalMul(iv("1 hour"), math.NaN())), "ERROR 22008"},
		{fmtIv(IntervalAdd(iv("2147483647 days"), iv("1 day"))), "ERROR 22008"},
		{fmtIv(IntervalNeg(iv("1 day 2 hours"))), "-1 days -02:00:00"},
		{fmtTs(TimestampPlusInterval(ts("2024-01-31"), iv("1 month"))), "2024-02-29 00:00:00"},
		{fmtTs(TimestampMinusInterval(ts("2024-03-31"), iv("1 month"))), "2024-02-29 00:00:00"},
		{fmtTs(TimestampPlusInterval(ts("2024-02-29"), iv("1 year"))), "2025-02-28 00:00:00"},
		{fmtTs(TimestampPlusInterval(ts("2024-01-31 10:00"), iv("1 mon 1 day 1 hour"))), "2024-03-01 11:00:00"},
		{fmtTs(TimestampPlusInterval(ts("2024-01-01"), iv("-14 months"))), "2022-11-01 00:00:00"},
		{fmtTs(TimestampPlusInterval(TimestampPosInfinity, iv("1 day"))), "infinity"},
		{fmtIv(TimestampMinusTimestamp(ts("2024-01-01"), ts("2023-12-25"))), "7 days"},
		{fmtIv(TimestampMinusTimestamp(ts("2024-01-01 10:00"), ts("2024-01-03 12:30:15.5"))), "-2 days -02:30:15.5"},
		{fmtIv(TimestampMinusTimestamp(TimestampPosInfinity, ts("2024-01-01"))), "ERROR 22008"},
		{fmtIv(Age(ts("2024-03-01"), ts("2023-01-15"))), "1 year 1 mon 17 days"},
		{fmtIv(Age(ts("2023-01-15"), ts("2024-03-01"))), "-1 years -1 mons -17 days"},
		{fmtIv(Age(ts("2024-03-31 10:00"), ts("2024-02-29 12:00"))), "1 mon 1 day 22:00:00"},
		{fmtIv(JustifyHours(iv("27 hours"))), "1 day 03:00:00"},
		{fmtIv(JustifyHours(iv("1 day -1 hour"))), "23:00:00"},
		{fmtIv(JustifyDays(iv("35 days"))), "1 mon 5 days"},
		{fmtIv(JustifyDays(iv("1 mon -1 day"))), "29 days"},
		{fmtIv(JustifyInterval(iv("1 mon -1 hour"))), "29 days 23:00:00"},
		{fmtIv(JustifyInterval(iv("65 days 27 hours"))), "2 mons 6 days 03:00:00"},
	}
	for i, c := range checks {
		if c.got != c.want {
			t.Errorf("check %d: got %q, want %q", i, c.got, c.want)
		}
	}
}

func TestExtractInterval(t *testing.T) {
	cases := []struct {
		field, in string
		float     bool
		want      string
	}{
		{"epoch", "1 hour", false, "3600.000000"},
		{"epoch", "1 year 1 mon 1 day 1.5 seconds", false, "34236001.500000"},
		{"epoch", "-1 mon", false, "-2592000.000000"},
		{"hour", "1 day 25:30:15.25", false, "25"},
		{"second", "25:30:15.25", false, "15.250000"},
		{"millisecond", "25:30:15.25", false, "15250.000"},
		{"microsecond", "25:30:15.25", false, "15250000"},
		{"month", "1 year 14 mons", false, "2"},
		{"year", "-1 year -2 mons", false, "-1"},
		{"quarter", "7 mons", false, "3"},
		{"epoch", "1 day 1.5 seconds", true, "86401.5"},
		{"hour", "-3 hours -20 minutes", true, "-3"},
		{"week", "10 days", false, "ERROR 0A000"},
		{"fortnight", "10 days", false, "ERROR 22023"},
	}
	for _, c := range cases {
		v, err := ExtractInterval(c.field, mustInterval(t, c.in), c.float)
		var got string
		switch {
		case err != nil:
			got = "ERROR " + errCode(err)
		case c.float:
			got = Format(Float8T, v)
		default:
			got = Format(NumericT, v)
		}
		if got != c.want {
			t.Errorf("extract(%s from %q) float=%v: got %q, want %q", c.field, c.in, c.float, got, c.want)
		}
	}
}

func errCode(err error) string {
	if pe, ok := pgerr.As(err); ok {
		return pe.Code
	}
	return "non-pgerr: " + err.Error()
}
