package types

// The name type: PostgreSQL's identifier type, a string of at most
// NAMEDATALEN-1 (63) bytes. It is a string type (category S) stored as
// Arrow String like text, compared bytewise (its collation is "C") and
// hashed like text. Its casts (pg_cast): name -> text is implicit, and so
// are text, varchar and char -> name; name -> varchar and char are
// assignment casts. Longer input is not an error: namein cuts it to 63
// bytes at a character boundary, and every cast to name does the same.

import "unicode/utf8"

// NameDataLen is PostgreSQL's NAMEDATALEN: a name holds NameDataLen-1
// bytes.
const NameDataLen = 64

// truncateName is namein's length rule (pg_mbcliplen to NAMEDATALEN-1
// bytes): a longer value is cut to the longest prefix of whole UTF-8
// characters that fits.
func truncateName(s string) string {
	if len(s) < NameDataLen {
		return s
	}
	n := NameDataLen - 1
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
