package executor

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// likeMatch agrees with a regular expression on random texts and
// patterns over a small alphabet, and takes linear time on patterns that
// make a backtracking matcher take exponential time.
func TestLikeMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 20000 {
		s, p := word("ab", r.IntN(8)), word("ab%_", r.IntN(8))
		re := "^" + strings.NewReplacer("%", ".*", "_", ".").Replace(p) + "$"
		want := regexp.MustCompile(re).MatchString(s)
		toks, _ := compileLikePattern(p)
		got, err := likeMatch(s, toks)
		if err != nil || got != want {
			t.Fatalf("%q LIKE %q = %v, %v; want %v", s, p, got, err, want)
		}
	}
	text := strings.Repeat("a", 40)
	toks, _ := compileLikePattern(strings.Repeat("%a", 20) + "%ab")
	if ok, err := likeMatch(text, toks); ok || err != nil {
		t.Errorf("pathological pattern: %v %v", ok, err)
	}
	toks, _ = compileLikePattern(`%a\`)
	if _, err := likeMatch("xab", toks); err != likeEscapeError {
		t.Errorf("trailing escape with text left: %v", err)
	}
	if ok, err := likeMatch("xa", toks); ok || err != nil {
		t.Errorf("trailing escape at the end of the text: %v %v", ok, err)
	}
}
