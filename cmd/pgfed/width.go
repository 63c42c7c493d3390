package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// runeWidth is the number of terminal columns r occupies, as psql's
// ucs_wcwidth computes it: -1 for control characters, 0 for combining and
// format characters, 2 for East Asian wide and fullwidth characters, 1
// otherwise.
func runeWidth(r rune) int {
	switch {
	case r == 0:
		return 0
	case r < 0x20 || r >= 0x7f && r < 0xa0:
		return -1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// textWidth is the display width of s where every character is printable
// or, like the caret line of an error position, treats the others as one
// column.
func textWidth(s string) int {
	n := 0
	for _, r := range s {
		if w := runeWidth(r); w > 0 {
			n += w
		} else if w < 0 {
			n++
		}
	}
	return n
}

// displayLines is a value as psql shows it in a table cell (pg_wcsformat):
// split at newlines, with tabs expanded to the next multiple of 8, carriage
// returns shown as \r and other control characters as \xHH or \uHHHH. The
// widths are the display widths of the lines.
type displayLines struct {
	lines  []string
	widths []int
}

func formatCell(s string) displayLines {
	var d displayLines
	var b strings.Builder
	w := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			// Not UTF-8: show the byte like any other control byte
			// rather than guess at its width.
			fmt.Fprintf(&b, "\\x%02X", s[i])
			w += 4
			i++
			continue
		}
		i += size
		switch {
		case r == '\n':
			d.lines = append(d.lines, b.String())
			d.widths = append(d.widths, w)
			b.Reset()
			w = 0
		case r == '\r':
			b.WriteString(`\r`)
			w += 2
		case r == '\t':
			for {
				b.WriteByte(' ')
				w++
				if w%8 == 0 {
					break
				}
			}
		case runeWidth(r) < 0 && r < 0x80:
			fmt.Fprintf(&b, "\\x%02X", r)
			w += 4
		case runeWidth(r) < 0:
			fmt.Fprintf(&b, "\\u%04X", r)
			w += 6
		default:
			b.WriteRune(r)
			w += runeWidth(r)
		}
	}
	d.lines = append(d.lines, b.String())
	d.widths = append(d.widths, w)
	return d
}

// maxWidth is the width of the widest line.
func (d displayLines) maxWidth() int {
	m := 0
	for _, w := range d.widths {
		m = max(m, w)
	}
	return m
}
