package types

import (
	"strings"
	"testing"
)

// The expectations come from PostgreSQL 15 (SELECT x::name, octet_length,
// the pg_cast rows of name).

func TestNameInput(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"", ""},
		{"abc", "abc"},
		{strings.Repeat("x", 63), strings.Repeat("x", 63)},
		{strings.Repeat("x", 64), strings.Repeat("x", 63)},
		{strings.Repeat("x", 200), strings.Repeat("x", 63)},
		// é is two bytes: 31 fit, the 32nd would end at byte 64.
		{strings.Repeat("é", 40), strings.Repeat("é", 31)},
		// € is three bytes: 21 fill the 63 exactly.
		{strings.Repeat("€", 30), strings.Repeat("€", 21)},
		// 🙂 is four bytes: 15 fit (60 bytes).
		{strings.Repeat("🙂", 20), strings.Repeat("🙂", 15)},
		{"a" + strings.Repeat("é", 40), "a" + strings.Repeat("é", 31)},
	} {
		got, err := Parse(NameT, tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Parse(name, %q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if got, _ := Cast(tc.in, TextT, NameT, false); got != tc.want {
			t.Errorf("text -> name of %q = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNameCasts(t *testing.T) {
	for _, tc := range []struct {
		d        any
		from, to T
		want     any
	}{
		{"ab  ", T{ID: Bpchar, Len: 4}, NameT, "ab"},
		{"ab", NameT, T{ID: Bpchar, Len: 4}, "ab  "},
		{"abcdef", NameT, T{ID: Varchar, Len: 3}, "abc"},
		{"abc", NameT, TextT, "abc"},
		{"abc", VarcharT, NameT, "abc"},
		{true, BoolT, NameT, "t"},
		{int64(42), Int4T, NameT, "42"},
		{"42", NameT, Int4T, int64(42)},
	} {
		got, err := Cast(tc.d, tc.from, tc.to, true)
		if err != nil || got != tc.want {
			t.Errorf("Cast(%v, %s, %s) = %v, %v; want %v", tc.d, tc.from, tc.to, got, err, tc.want)
		}
	}
}

func TestNameCastContexts(t *testing.T) {
	for _, tc := range []struct {
		from, to T
		want     CastContext
	}{
		{NameT, TextT, CastImplicit},
		{TextT, NameT, CastImplicit},
		{VarcharT, NameT, CastImplicit},
		{BpcharT, NameT, CastImplicit},
		{NameT, VarcharT, CastAssignment},
		{NameT, BpcharT, CastAssignment},
		{Int4T, NameT, CastAssignment}, // I/O conversion to a string type
		{NameT, Int4T, CastExplicit},   // I/O conversion from one
	} {
		for ctx := CastImplicit; ctx <= CastExplicit; ctx++ {
			if got, want := CanCast(tc.from, tc.to, ctx), ctx >= tc.want; got != want {
				t.Errorf("CanCast(%s, %s, %d) = %v, want %v", tc.from, tc.to, ctx, got, want)
			}
		}
	}
}

func TestNameCompareAndFormat(t *testing.T) {
	if Compare(NameT, "B", "a") >= 0 || Compare(NameT, "abc", "abc") != 0 || Compare(NameT, "é", "z") <= 0 {
		t.Error("name does not compare bytewise")
	}
	if got := Format(NameT, "x y"); got != "x y" {
		t.Errorf("Format = %q", got)
	}
	if NameT.String() != "name" || NameT.OID() != 19 || !NameT.IsString() {
		t.Errorf("name: %s, OID %d, string %v", NameT, NameT.OID(), NameT.IsString())
	}
	if HashExtended(NameT, "abc", 0) != HashExtended(TextT, "abc", 0) {
		t.Error("name and text hash differently")
	}
}
