package types

import (
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

func TestMathFloatMatchesPostgres(t *testing.T) {
	// Values recorded from PostgreSQL 15 on glibc.
	for _, c := range []struct {
		x, want float64
	}{{27, 3.0000000000000004}, {2, 1.2599210498948734}, {-64, -4}, {-8, -2}} {
		if got, _ := FloatCbrt(c.x); got != c.want {
			t.Errorf("cbrt(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	for _, c := range []struct {
		name    string
		x, want float64
	}{{"sind", 30, 0.5}, {"cosd", 60, 0.5}, {"tand", 45, 1}, {"cotd", 45, 1}, {"asind", 0.5, 30}, {"acosd", 0.5, 60}, {"sind", -150, -0.5}, {"tand", 180, 0}} {
		if got, err := FloatTrig(c.name, c.x); err != nil || got != c.want || math.Signbit(got) != math.Signbit(c.want) {
			t.Errorf("%s(%v) = %v, %v; want %v", c.name, c.x, got, err, c.want)
		}
	}
	if _, err := FloatPower(-8, 0.5); err == nil {
		t.Error("(-8) ^ 0.5: no error")
	}
	if v, err := FloatPower(math.NaN(), 0); err != nil || v != 1 {
		t.Errorf("NaN ^ 0 = %v, %v; want 1", v, err)
	}
}

func TestMathNumericScales(t *testing.T) {
	num := func(s string) *apd.Decimal {
		d, err := NumericFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, c := range []struct {
		got  func() (any, error)
		want string
	}{
		{func() (any, error) { return NumericLn(num("10.0")) }, "2.3025850929940457"},
		{func() (any, error) { return NumericExp(num("1.0")) }, "2.7182818284590452"},
		{func() (any, error) { return NumericLog(num("2.0"), num("64.0")) }, "6.0000000000000000"},
		{func() (any, error) { return NumericTrimScale(num("1.2300")) }, "1.23"},
		{func() (any, error) { return NumericGcd(num("1.5"), num("0.9")) }, "0.3"},
	} {
		v, err := c.got()
		if err != nil {
			t.Fatal(err)
		}
		if s := Format(NumericT, v); s != c.want {
			t.Errorf("got %s, want %s", s, c.want)
		}
	}
}
