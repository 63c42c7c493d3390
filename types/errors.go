package types

import (
	"github.com/pgfed/pgfed/pgerr"
)

// invalidTimeZoneDisplacement is SQLSTATE 22009, which pgerr does not name.
const invalidTimeZoneDisplacement = "22009"

// errInvalidSyntax is the input functions' 22P02 for a malformed value.
// typeName is the type as PostgreSQL spells it in this message ("integer",
// "double precision", "numeric", ...); input is the whole original string.
func errInvalidSyntax(typeName, input string) error {
	return pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s: \"%s\"", typeName, input)
}

// errCannotCast reports a conversion PostgreSQL has no cast for.
func errCannotCast(from, to T) error {
	return pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", from, to)
}

// isSpace is C's isspace in the C locale, which PostgreSQL's input
// functions use to skip blanks around a value.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlpha(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// toLowerASCII lowercases A-Z only, as PostgreSQL's pg_tolower does for
// datetime tokens and unit names.
func toLowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

// trimSpaces strips C-locale white space from both ends of s.
func trimSpaces(s string) string {
	start, end := 0, len(s)
	for start < end && isSpace(s[start]) {
		start++
	}
	for end > start && isSpace(s[end-1]) {
		end--
	}
	return s[start:end]
}

// hasPrefixFold reports whether s starts with the ASCII word prefix,
// ignoring case (pg_strncasecmp(s, prefix, len(prefix)) == 0).
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if toLowerASCII(s[i]) != toLowerASCII(prefix[i]) {
			return false
		}
	}
	return true
}
