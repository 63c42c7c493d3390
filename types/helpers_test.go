package types

// The expected values in this package's tables were captured from
// PostgreSQL 15.18 (initdb --locale=C, TimeZone=UTC, DateStyle ISO MDY,
// extra_float_digits 1) by evaluating each case as SQL and recording the
// value's text output, NULL, or the error as
// "ERROR <SQLSTATE> <message>[ DETAIL: <detail>][ HINT: <hint>]".

import (
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/pgerr"
)

// typeOf reads the SQL type names the tables use: int4, numeric(4,2),
// varchar(3), char(5), ...
func typeOf(tb testing.TB, spec string) T {
	tb.Helper()
	name, args, _ := strings.Cut(strings.TrimSuffix(spec, ")"), "(")
	var mods []int
	for _, a := range strings.Split(args, ",") {
		if a == "" {
			continue
		}
		n, err := strconv.Atoi(a)
		if err != nil {
			tb.Fatalf("bad type %q", spec)
		}
		mods = append(mods, n)
	}
	ids := map[string]ID{
		"bool": Bool, "int2": Int2, "int4": Int4, "int8": Int8, "float4": Float4, "float8": Float8,
		"numeric": Numeric, "text": Text, "varchar": Varchar, "bpchar": Bpchar, "char": Bpchar,
		"date": Date, "timestamp": Timestamp, "timestamptz": TimestampTZ,
	}
	id, ok := ids[name]
	if !ok {
		tb.Fatalf("unknown type %q", spec)
	}
	t := T{ID: id, Len: -1}
	switch {
	case id == Numeric && len(mods) == 2:
		t.Precision, t.Scale = int16(mods[0]), int16(mods[1])
	case len(mods) == 1:
		t.Len = int32(mods[0])
	}
	return t
}

// outcome renders a result the way the tables record PostgreSQL's.
func outcome(t T, v any, err error) string {
	if err != nil {
		pe, ok := pgerr.As(err)
		if !ok {
			return "non-pgerr error: " + err.Error()
		}
		s := "ERROR " + pe.Code + " " + pe.Message
		if pe.Detail != "" {
			s += " DETAIL: " + pe.Detail
		}
		if pe.Hint != "" {
			s += " HINT: " + pe.Hint
		}
		return s
	}
	if v == nil {
		return "NULL"
	}
	if d, ok := v.(*apd.Decimal); ok && d == nil {
		return "NULL"
	}
	return Format(t, v)
}

func mustParse(tb testing.TB, t T, s string) any {
	tb.Helper()
	v, err := Parse(t, s)
	if err != nil {
		tb.Fatalf("Parse(%s, %q): %v", t, s, err)
	}
	return v
}

func mustNumeric(tb testing.TB, s string) *apd.Decimal {
	tb.Helper()
	d, err := NumericFromString(s)
	if err != nil {
		tb.Fatalf("NumericFromString(%q): %v", s, err)
	}
	return d
}
