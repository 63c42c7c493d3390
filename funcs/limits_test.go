package funcs

import (
	"strings"
	"testing"

	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// errText renders err as "SQLSTATE message[ DETAIL: detail]".
func errText(err error) string {
	if err == nil {
		return ""
	}
	pe, ok := pgerr.As(err)
	if !ok {
		return "non-pgerr: " + err.Error()
	}
	s := pe.Code + " " + pe.Message
	if pe.Detail != "" {
		s += " DETAIL: " + pe.Detail
	}
	return s
}

// Outcomes recorded from PostgreSQL 15.18.
func TestRepeatLengthLimit(t *testing.T) {
	cases := []struct {
		s    string
		n    int64
		want string
	}{
		{"x", 1073741820, "54000 requested length too large"},
		{"ab", 1073741820, "54000 requested length too large"},
		{"abc", 2147483647, "54000 requested length too large"},
		{"abcd", 268435455, "54000 requested length too large"}, // 1073741820 bytes
		{"", 2147483647, ""},
		{"x", -5, ""},
	}
	for _, c := range cases {
		v, err := repeatImpl([]any{c.s, c.n})
		if got := errText(err); got != c.want {
			t.Errorf("repeat(%q, %d): %q, want %q", c.s, c.n, got, c.want)
		}
		if err == nil && len(v.(string)) != len(c.s)*int(max(c.n, 0)) {
			t.Errorf("repeat(%q, %d): length %d", c.s, c.n, len(v.(string)))
		}
	}
}

// TestBuiltTextLimits checks concat and replace refuse results past 1 GB
// with PostgreSQL's errors before building them (it holds a 600 MB input).
func TestBuiltTextLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a 600 MB string")
	}
	big := strings.Repeat("x", 600000000)
	_, err := replaceImpl([]any{big, "xxxxxxxxxx", "yyyyyyyyyyyyyyyyyyyy"})
	if got, want := errText(err), "54000 out of memory DETAIL: Cannot enlarge string buffer containing 1073741820 bytes by 20 more bytes."; got != want {
		t.Errorf("replace: %q, want %q", got, want)
	}
	concat := bindConcat([]types.T{types.TextT, types.TextT})
	_, err = concat([]any{big, big})
	if got, want := errText(err), "54000 out of memory DETAIL: Cannot enlarge string buffer containing 600000000 bytes by 600000000 more bytes."; got != want {
		t.Errorf("concat: %q, want %q", got, want)
	}
	// Short of the limit, replace still works.
	v, err := replaceImpl([]any{big[:1000], "x", "yy"})
	if err != nil || v.(string) != strings.Repeat("yy", 1000) {
		t.Errorf("replace of 1000 bytes: %v", err)
	}
}
