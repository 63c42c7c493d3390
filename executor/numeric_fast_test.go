package executor

import (
	"testing"

	"github.com/pgfed/pgfed/types"
)

// TestNumericFastPaths: the int64 paths give numeric_add/sub/mul's text
// and numeric_cmp's order, and step aside where values do not fit.
func TestNumericFastPaths(t *testing.T) {
	arith := []struct {
		op, l, r, want string
		ok             bool
	}{
		{"+", "1.50", "2.5", "4.00", true},
		{"-", "1", "0.06", "0.94", true},
		{"-", "0.06", "1", "-0.94", true},
		{"*", "-0.05", "3", "-0.15", true},
		{"*", "1.10", "1.10", "1.2100", true},
		{"+", "0", "0.00", "0.00", true},
		{"*", "999999999999999999", "10", "", false}, // overflows int64
		{"+", "NaN", "1", "", false},
		{"+", "1234567890.1234567890", "1", "", false}, // 20 digits
	}
	for _, c := range arith {
		e := &numericArithEval{op: c.op}
		parse := func(s string) scaledOperand {
			v, sc, ok := types.ParseScaledNumeric(s)
			return scaledOperand{v, sc, ok}
		}
		v, scale, ok := e.fast(parse(c.l), parse(c.r))
		if ok != c.ok || ok && string(appendScaled(nil, v, scale)) != c.want {
			t.Errorf("%s %s %s: got %q ok=%v, want %q ok=%v", c.l, c.op, c.r, appendScaled(nil, v, scale), ok, c.want, c.ok)
		}
	}
	for _, c := range []struct {
		l, r string
		want int
	}{{"1.5", "1.50", 0}, {"-2", "1", -1}, {"0.10", "0.09", 1}} {
		if got, ok := compareScaled(c.l, c.r); !ok || got != c.want {
			t.Errorf("compare %s %s: %d %v", c.l, c.r, got, ok)
		}
	}
	if _, ok := compareScaled("Infinity", "1"); ok {
		t.Error("Infinity compared in int64")
	}
}
