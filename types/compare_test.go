package types

import "testing"

type compareCase struct {
	typ, a, b string
	want      int
}

// TestCompare was checked with CASE WHEN a < b THEN -1 WHEN a = b THEN 0
// ELSE 1 END, which uses the same btree ordering.
func TestCompare(t *testing.T) {
	for _, c := range compareCases {
		typ := typeOf(t, c.typ)
		a, b := mustParse(t, typ, c.a), mustParse(t, typ, c.b)
		if got := Compare(typ, a, b); got != c.want {
			t.Errorf("Compare(%s, %q, %q) = %d, want %d", c.typ, c.a, c.b, got, c.want)
		}
		if got := Compare(typ, b, a); got != -c.want {
			t.Errorf("Compare(%s, %q, %q) = %d, want %d", c.typ, c.b, c.a, got, -c.want)
		}
	}
}

var compareCases = []compareCase{
	{"int4", "1", "2", -1},
	{"int8", "-5", "-5", 0},
	{"float8", "NaN", "1", 1},
	{"float8", "NaN", "NaN", 0},
	{"float8", "-0", "0", 0},
	{"float8", "-Infinity", "1", -1},
	{"float4", "Infinity", "NaN", -1},
	{"numeric", "1.0", "1.00", 0},
	{"numeric", "NaN", "Infinity", 1},
	{"numeric", "-Infinity", "-1e100", -1},
	{"numeric", "2", "10", -1},
	{"numeric", "-0.5", "-0.50001", 1},
	{"text", "a", "B", 1},
	{"text", "a", "a ", -1},
	{"text", "abc", "ab", 1},
	{"varchar", "é", "z", 1},
	{"bpchar", "a", "a  ", 0},
	{"bpchar", "a", "a\t", -1},
	{"bool", "true", "false", 1},
	{"bool", "false", "false", 0},
	{"date", "infinity", "5874897-12-31", 1},
	{"date", "4714-11-24 BC", "-infinity", 1},
	{"timestamp", "2024-01-15 10:00", "2024-01-15 10:00:00.000001", -1},
	{"timestamptz", "2024-01-15 10:00+02", "2024-01-15 08:00Z", 0},
}
