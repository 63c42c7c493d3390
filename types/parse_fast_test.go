package types

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// The fast paths must give exactly what Parse gives whenever they
// accept an input; inputs they refuse go to Parse. Each test runs a list
// of edge cases and random inputs through both.

func TestParseIntFast(t *testing.T) {
	inputs := []string{"0", "-0", "1", "-1", "42", "007", "32767", "32768", "-32768", "-32769",
		"2147483647", "2147483648", "-2147483648", "-2147483649", "999999999999999999",
		"-999999999999999999", "1000000000000000000", "9223372036854775807", "", "-", "+1",
		" 1", "1 ", "1a", "1.0", "--1", "x"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		inputs = append(inputs, fmt.Sprint(r.Int64N(1<<40)-1<<39))
	}
	for _, typ := range []T{Int2T, Int4T, Int8T} {
		for _, in := range inputs {
			got, ok := ParseIntFast([]byte(in), typ)
			want, err := Parse(typ, in)
			if !ok {
				if err == nil && len(in) <= 18 && in == strings.TrimSpace(in) && in[0] != '+' {
					t.Errorf("%s %q: refused a plain integer", typ, in)
				}
				continue
			}
			if err != nil || want != got {
				t.Errorf("%s %q: fast %d, Parse %v, %v", typ, in, got, want, err)
			}
		}
	}
}

func TestParseDateFast(t *testing.T) {
	inputs := []string{"1970-01-01", "1994-08-15", "2000-02-29", "1900-02-29", "2024-02-29",
		"2023-02-29", "0001-01-01", "0000-01-01", "9999-12-31", "2024-13-01", "2024-00-10",
		"2024-04-31", "2024-04-30", "2024-1-01", "2024/01/01", "20240101", "2024-01-01 ",
		"2024-01-0x", "epoch", "infinity"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		inputs = append(inputs, fmt.Sprintf("%04d-%02d-%02d", r.IntN(10000), r.IntN(14), r.IntN(33)))
	}
	for _, in := range inputs {
		got, ok := ParseDateFast([]byte(in))
		want, err := Parse(DateT, in)
		if !ok {
			if err == nil && len(in) == 10 && in[4] == '-' && in[0:4] != "0000" {
				t.Errorf("%q: refused a plain date", in)
			}
			continue
		}
		if err != nil || want != got {
			t.Errorf("%q: fast %d, Parse %v, %v", in, got, want, err)
		}
	}
}

func TestAppendStringFast(t *testing.T) {
	types := []T{TextT, VarcharT, BpcharT, {ID: Varchar, Len: 3}, {ID: Bpchar, Len: 3}, {ID: Bpchar, Len: 1}, {ID: Bpchar, Len: 5}}
	inputs := []string{"", "a", "ab", "abc", "abcd", "ab  ", "abc ", "é", "éé", "ééé", "éééé", "日本", "\xff\xfe", "\xff\xfe\xfd\xfc", " "}
	for _, typ := range types {
		for _, in := range inputs {
			got, ok := AppendStringFast([]byte("prefix"), []byte(in), typ)
			want, err := Parse(typ, in)
			if !ok {
				if err == nil && typ.Len >= 0 && len(in) <= int(typ.Len) {
					t.Errorf("%s %q: refused a short string", typ, in)
				}
				continue
			}
			if err != nil || "prefix"+want.(string) != string(got) {
				t.Errorf("%s %q: fast %q, Parse %q, %v", typ, in, got, want, err)
			}
		}
	}
}

func TestAppendNumericFast(t *testing.T) {
	types := []T{NumericT, {ID: Numeric, Len: -1, Precision: 15, Scale: 2}, {ID: Numeric, Len: -1, Precision: 5, Scale: 0},
		{ID: Numeric, Len: -1, Precision: 4, Scale: 4}, {ID: Numeric, Len: -1, Precision: 20, Scale: 10},
		{ID: Numeric, Len: -1, Precision: 3, Scale: 1}, {ID: Numeric, Len: -1, Precision: 18, Scale: 18},
		{ID: Numeric, Len: -1, Precision: 30, Scale: 16}, {ID: Numeric, Len: -1, Precision: 2, Scale: -1}}
	inputs := []string{"0", "-0", "+0", "00", "0.0", "-0.00", "000.500", ".5", "-.5", "5.", "-5.", ".", "+", "-", "",
		"1", "-1", "12.345", "12.344", "12.355", "-12.345", "99.995", "-99.995", "999.95", "999.949", "9999.9",
		"0.0001", "0.00005", "0.00004", "123456789012345678", "1234567890123456789", "0.123456789012345678",
		"12345678901234.56", "1234567890123.456", "99999999999999.99", "999999999999999.99", "1e5", "NaN", "inf",
		" 1", "1 ", "1.2.3", "1-", "12a", "0000000000000000000000000001.5", "1.00000000000000000000", "0.9999999999999999999",
		"86690.50", "23801.00", "0.04", "7369.92", "50.00"}
	r := rand.New(rand.NewPCG(5, 6))
	for range 4000 {
		n := r.Int64N(1 << 62)
		s := fmt.Sprint(n)
		s = s[:1+r.IntN(len(s))]
		if k := r.IntN(len(s) + 1); k < len(s) {
			s = s[:k] + "." + s[k:]
		}
		if r.IntN(3) == 0 {
			s = "-" + s
		}
		inputs = append(inputs, s)
	}
	for _, typ := range types {
		for _, in := range inputs {
			got, ok := AppendNumericFast([]byte("p:"), []byte(in), typ)
			d, err := Parse(typ, in)
			if !ok {
				continue
			}
			if err != nil {
				t.Errorf("%s %q: fast %q, Parse fails: %v", typ, in, got, err)
				continue
			}
			if want := "p:" + Format(typ, d); want != string(got) {
				t.Errorf("%s %q: fast %q, Parse %q", typ, in, got, want)
			}
		}
	}
	// The common shapes must take the fast path.
	for _, in := range []string{"86690.50", "0.04", "-12.5", "7", "0"} {
		if _, ok := AppendNumericFast(nil, []byte(in), T{ID: Numeric, Len: -1, Precision: 15, Scale: 2}); !ok {
			t.Errorf("%q refused", in)
		}
	}
}

func BenchmarkParseFast(b *testing.B) {
	num := T{ID: Numeric, Len: -1, Precision: 15, Scale: 2}
	var dst []byte
	b.Run("numeric", func(b *testing.B) {
		for b.Loop() {
			dst, _ = AppendNumericFast(dst[:0], []byte("86690.50"), num)
		}
	})
	b.Run("date", func(b *testing.B) {
		for b.Loop() {
			ParseDateFast([]byte("1994-08-15"))
		}
	})
	b.Run("int", func(b *testing.B) {
		for b.Loop() {
			ParseIntFast([]byte("1994815"), Int4T)
		}
	})
}

func TestParseTimestampFast(t *testing.T) {
	inputs := []string{"2024-01-02 03:04:05", "2024-01-02 03:04:05.5", "2024-01-02 03:04:05.123456", "2024-01-02 03:04:05.1234567",
		"2024-01-02 03:04:05.", "2024-01-02 24:00:00", "2024-01-02 23:59:60", "2024-01-02 23:60:00", "2024-02-30 00:00:00",
		"0001-01-01 00:00:00", "9999-12-31 23:59:59.999999", "2024-01-02 03:04:05+00", "2024-01-02 03:04:05+02",
		"2024-01-02 03:04:05-05:30", "2024-01-02 03:04:05.25+14:00", "2024-01-02 03:04:05+16", "2024-01-02 03:04:05+0200",
		"2024-01-02 03:04:05 +02", "2024-01-02T03:04:05", "2024-01-02 3:04:05", "2024-01-02 03:04:05Z", "2024-01-02"}
	r := rand.New(rand.NewPCG(7, 8))
	for range 3000 {
		s := fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", 1+r.IntN(9999), 1+r.IntN(12), 1+r.IntN(28), r.IntN(25), r.IntN(61), r.IntN(61))
		if r.IntN(2) == 0 {
			s += "." + fmt.Sprint(r.IntN(10000000))
		}
		switch r.IntN(4) {
		case 0:
			s += fmt.Sprintf("+%02d", r.IntN(16))
		case 1:
			s += fmt.Sprintf("-%02d:%02d", r.IntN(16), r.IntN(60))
		}
		inputs = append(inputs, s)
	}
	for _, typ := range []T{{ID: Timestamp, Len: -1}, {ID: TimestampTZ, Len: -1}} {
		refused := 0
		for _, in := range inputs {
			got, ok := ParseTimestampFast([]byte(in), typ.ID == TimestampTZ)
			want, err := Parse(typ, in)
			if !ok {
				refused++
				continue
			}
			if err != nil || want != got {
				t.Errorf("%s %q: fast %d, Parse %v, %v", typ, in, got, want, err)
			}
		}
		if refused > len(inputs)*3/4 {
			t.Errorf("%s: %d of %d refused", typ, refused, len(inputs))
		}
	}
	for _, in := range []string{"2024-01-02 03:04:05", "2024-01-02 03:04:05.123"} {
		if _, ok := ParseTimestampFast([]byte(in), false); !ok {
			t.Errorf("%q refused", in)
		}
	}
	if _, ok := ParseTimestampFast([]byte("2024-01-02 03:04:05+02"), true); !ok {
		t.Errorf("timestamptz with an offset refused")
	}
}

func TestParseFloatFast(t *testing.T) {
	inputs := []string{"0", "-0", "0.0", "1", "-1.5", "1.", ".5", "-.5", ".", "-", "1e10", "1E-5", "1e+300", "1e308", "1.8e308",
		"1e309", "1e-307", "2.2250738585072014e-308", "2.2250738585072011e-308", "4.9e-324", "1e-400", "0e-400", "3.4e38",
		"3.5e38", "1.17549435e-38", "1.1e-38", "1e-46", "123456789012345678901234567890", "0.1", "0.30000000000000004",
		"1e", "1e+", "1.2.3", "1e5.5", " 1", "1 ", "+1", "inf", "NaN", "0x10", "1_000", "00012.5000", "-0.0e10"}
	r := rand.New(rand.NewPCG(9, 10))
	for range 3000 {
		s := fmt.Sprint(r.Int64N(1 << 53))
		if k := r.IntN(len(s) + 1); k < len(s) {
			s = s[:k] + "." + s[k:]
		}
		if r.IntN(2) == 0 {
			s += fmt.Sprintf("e%d", r.IntN(700)-350)
		}
		if r.IntN(3) == 0 {
			s = "-" + s
		}
		inputs = append(inputs, s)
	}
	for _, typ := range []T{Float4T, Float8T} {
		bits := 64
		if typ.ID == Float4 {
			bits = 32
		}
		accepted := 0
		for _, in := range inputs {
			got, ok := ParseFloatFast([]byte(in), bits)
			want, err := Parse(typ, in)
			if !ok {
				continue
			}
			accepted++
			if err != nil || math.Float64bits(want.(float64)) != math.Float64bits(got) {
				t.Errorf("%s %q: fast %v, Parse %v, %v", typ, in, got, want, err)
			}
		}
		if accepted < len(inputs)/3 {
			t.Errorf("%s: only %d of %d accepted", typ, accepted, len(inputs))
		}
	}
}
