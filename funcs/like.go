package funcs

import (
	"strings"
	"unicode/utf8"

	"github.com/pgfed/pgfed/pgerr"
)

// LikeEscape rewrites a pattern with ESCAPE esc into the default
// backslash-escaped form (like_escape in PostgreSQL).
func LikeEscape(p, esc string) (string, error) {
	if esc == "\\" {
		return p, nil
	}
	if utf8.RuneCountInString(esc) > 1 {
		return "", pgerr.New(pgerr.InvalidEscapeSequence, "invalid escape string").
			WithHint("Escape string must be empty or one character.")
	}
	var b strings.Builder
	rs := []rune(p)
	var e rune = -1
	if esc != "" {
		e = []rune(esc)[0]
	}
	for i := 0; i < len(rs); i++ {
		switch {
		case rs[i] == e:
			if i+1 < len(rs) {
				i++
				b.WriteByte('\\')
				b.WriteRune(rs[i])
			} else {
				b.WriteByte('\\')
			}
		case rs[i] == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteRune(rs[i])
		}
	}
	return b.String(), nil
}
