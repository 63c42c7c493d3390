package types

import (
	"strings"
	"unicode/utf8"

	"github.com/pgfed/pgfed/pgerr"
)

// Lengths of varchar(n) and char(n) count characters (UTF-8 code points);
// only blanks (' ') count as padding.

// clipChars returns the byte length of the first n characters of s.
func clipChars(s string, n int) int {
	count := 0
	for i := range s {
		if count == n {
			return i
		}
		count++
	}
	return len(s)
}

func onlyBlanks(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' {
			return false
		}
	}
	return true
}

func errValueTooLong(t T) error {
	return pgerr.New(pgerr.StringDataRightTruncation, "value too long for type %s", t)
}

// coerceVarchar is varchar(n)'s length rule: a longer value is cut to n
// characters if the cast is explicit or the excess is all blanks, else 22001
// "value too long for type character varying(n)". It is both the input
// function's check and the length-coercion cast.
func coerceVarchar(s string, t T, explicit bool) (string, error) {
	if t.Len < 0 || len(s) <= int(t.Len) {
		return s, nil
	}
	clip := clipChars(s, int(t.Len))
	if !explicit && !onlyBlanks(s[clip:]) {
		return "", errValueTooLong(t)
	}
	return s[:clip], nil
}

// coerceBpchar is char(n)'s length rule: cut like coerceVarchar (22001
// "value too long for type character(n)"), then pad with blanks to n
// characters. Without a length the value is kept as is.
func coerceBpchar(s string, t T, explicit bool) (string, error) {
	if t.Len < 0 {
		return s, nil
	}
	n := int(t.Len)
	chars := utf8.RuneCountInString(s)
	if chars > n {
		clip := clipChars(s, n)
		if !explicit && !onlyBlanks(s[clip:]) {
			return "", errValueTooLong(t)
		}
		return s[:clip], nil
	}
	if chars == n {
		return s, nil
	}
	return s + strings.Repeat(" ", n-chars), nil
}

// trimBlankPadding drops char(n)'s trailing blanks, as casting char(n) to
// text or varchar does.
func trimBlankPadding(s string) string {
	return strings.TrimRight(s, " ")
}

// compareBpchar orders char(n) values ignoring trailing blanks.
func compareBpchar(a, b string) int {
	return strings.Compare(trimBlankPadding(a), trimBlankPadding(b))
}

// LowerASCII lowercases ASCII letters only, as PostgreSQL does under the
// C locale.
func LowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// UpperASCII uppercases ASCII letters only (upper() under the C locale).
func UpperASCII(s string) string {
	b := []byte(s)
	for j := range b {
		if b[j] >= 'a' && b[j] <= 'z' {
			b[j] -= 'a' - 'A'
		}
	}
	return string(b)
}
