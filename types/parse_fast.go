package types

// Fast paths of the input functions for bulk loading (COPY FROM): they
// read the common spellings of integers, floats, numerics, dates,
// timestamps and strings straight from bytes, without a string or a
// datum per value, and write what the Arrow column stores (the value, or
// for numeric its canonical text). Each answers false for anything else,
// valid or not, and the caller then goes through Parse, whose result and
// errors are the reference: a fast path accepts only input whose value
// it gives exactly as Parse would, which parse_fast_test.go checks
// against Parse.

import (
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// ParseIntFast reads an integer of type t (smallint, integer, bigint)
// written as an optional minus sign and at most 18 digits, within t's
// range.
func ParseIntFast(s []byte, t T) (int64, bool) {
	i, neg := 0, false
	if len(s) > 0 && s[0] == '-' {
		i, neg = 1, true
	}
	if i == len(s) || len(s)-i > 18 {
		return 0, false
	}
	var v int64
	for ; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		v = v*10 + int64(c)
	}
	if neg {
		v = -v
	}
	if lo, hi := intRange(t); v < lo || v > hi {
		return 0, false
	}
	return v, true
}

// ParseDateFast reads a date written YYYY-MM-DD (year 1 to 9999).
func ParseDateFast(s []byte) (int32, bool) {
	year, month, day, ok := fastYearMonthDay(s)
	if !ok {
		return 0, false
	}
	return int32(daysFromCivil(year, month, day)), true
}

// fastYearMonthDay reads a valid date written YYYY-MM-DD, year 1 to 9999.
func fastYearMonthDay(s []byte) (year, month, day int64, ok bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, 0, 0, false
	}
	year, ok1 := fixedDigits(s[0:4])
	month, ok2 := fixedDigits(s[5:7])
	day, ok3 := fixedDigits(s[8:10])
	if !ok1 || !ok2 || !ok3 || year == 0 || month < 1 || month > 12 || day < 1 || day > monthLength(year, month) {
		return 0, 0, 0, false
	}
	return year, month, day, true
}

// fixedDigits reads s, all digits.
func fixedDigits(s []byte) (int64, bool) {
	var v int64
	for _, c := range s {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		v = v*10 + int64(d)
	}
	return v, true
}

// AppendStringFast appends the stored value of text, varchar(n) or
// char(n) input s to dst: s itself, blank-padded for char(n); false when
// s is longer than n characters (cut or refused by Parse).
func AppendStringFast(dst, s []byte, t T) ([]byte, bool) {
	switch t.ID {
	case Text, Unknown:
		return append(dst, s...), true
	case Varchar:
		if t.Len >= 0 && len(s) > int(t.Len) {
			return dst, false
		}
		return append(dst, s...), true
	case Bpchar:
		if t.Len < 0 {
			return append(dst, s...), true
		}
		chars := len(s)
		if !isASCII(s) {
			chars = utf8.RuneCount(s)
		}
		if chars > int(t.Len) {
			return dst, false
		}
		dst = append(dst, s...)
		for pad := int(t.Len) - chars; pad > 0; pad -= len(blanks) {
			dst = append(dst, blanks[:min(pad, len(blanks))]...)
		}
		return dst, true
	}
	return dst, false
}

// blanks pads char(n) values.
const blanks = "                                                                "

// isASCII reports whether s is all ASCII, looking at eight bytes at a
// time.
func isASCII(s []byte) bool {
	var or uint64
	for ; len(s) >= 8; s = s[8:] {
		or |= binary.LittleEndian.Uint64(s)
	}
	for _, c := range s {
		or |= uint64(c)
	}
	return or&0x8080808080808080 == 0
}

// pow10Int64 are the powers of ten an int64 holds.
var pow10Int64 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// AppendNumericFast appends the stored text of numeric input s of type t
// (Format(t, Parse(t, s))) to dst when s is [+-]digits[.digits] with at
// most 18 digits besides leading zeros, and, under a typmod (p,s) with s
// >= 0, its value rounded to s places still has at most 18 digits and
// fits p: the value is then an int64 at its display scale.
func AppendNumericFast(dst, s []byte, t T) ([]byte, bool) {
	i, neg := 0, false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		i, neg = 1, s[0] == '-'
	}
	for i < len(s) && s[i] == '0' {
		i++
	}
	zeros := i > 0 && s[i-1] == '0'
	intStart := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intDigits := i - intStart
	fracStart, fracDigits := i, 0
	if i < len(s) && s[i] == '.' {
		i++
		fracStart = i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		fracDigits = i - fracStart
	}
	if i != len(s) || intDigits+fracDigits > 18 || (intDigits+fracDigits == 0 && !zeros) {
		return dst, false
	}
	var v int64
	for _, c := range s[intStart : intStart+intDigits] {
		v = v*10 + int64(c-'0')
	}
	for _, c := range s[fracStart : fracStart+fracDigits] {
		v = v*10 + int64(c-'0')
	}
	scale := fracDigits
	if t.ID == Numeric && t.Precision > 0 {
		if t.Scale < 0 {
			return dst, false
		}
		var ok bool
		if v, ok = rescaleInt64(v, fracDigits, int(t.Scale)); !ok {
			return dst, false
		}
		scale = int(t.Scale)
		if int(t.Precision) < len(pow10Int64) && v >= pow10Int64[t.Precision] {
			return dst, false // 22003 numeric field overflow, from Parse
		}
	}
	signLen := 0
	if neg {
		signLen = 1
	}
	// The canonical text has no sign but '-' (and none on zero), one
	// digit before the point if the integer part is zero, and the
	// display scale's digits after it.
	oneZero := intDigits == 0 && intStart == signLen+1
	if (intStart == signLen && intDigits > 0 || oneZero) && scale == fracDigits && s[len(s)-1] != '.' && !(neg && v == 0) {
		return append(dst, s...), true
	}
	if neg && v != 0 {
		dst = append(dst, '-')
	}
	return appendScaledDigits(dst, v, scale), true
}

// rescaleInt64 converts v, read at scale from, to scale to, rounding half
// away from zero; false if the result could leave 18 digits.
func rescaleInt64(v int64, from, to int) (int64, bool) {
	switch {
	case to > from:
		if to-from >= len(pow10Int64) || v >= pow10Int64[18-(to-from)] {
			return 0, false
		}
		return v * pow10Int64[to-from], true
	case to < from:
		unit := pow10Int64[from-to]
		q, r := v/unit, v%unit
		if 2*r >= unit {
			q++
		}
		return q, q < pow10Int64[18]
	}
	return v, true
}

// appendScaledDigits appends v >= 0 read at scale: its digits with a
// point before the last scale of them, and a zero before the point.
func appendScaledDigits(dst []byte, v int64, scale int) []byte {
	var buf [24]byte
	digits := strconv.AppendInt(buf[:0], v, 10)
	if scale == 0 {
		return append(dst, digits...)
	}
	if len(digits) <= scale {
		dst = append(dst, '0', '.')
		for range scale - len(digits) {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	point := len(digits) - scale
	dst = append(dst, digits[:point]...)
	dst = append(dst, '.')
	return append(dst, digits[point:]...)
}

// ParseTimestampFast reads a timestamp written YYYY-MM-DD HH:MM:SS with
// up to six fraction digits, and for timestamptz (withZone) an optional
// offset +HH or +HH:MM (or -), as PostgreSQL writes them; without an
// offset the time is UTC, the session's zone.
func ParseTimestampFast(s []byte, withZone bool) (int64, bool) {
	if len(s) < 19 || s[10] != ' ' || s[13] != ':' || s[16] != ':' {
		return 0, false
	}
	year, month, day, ok := fastYearMonthDay(s[:10])
	hour, ok1 := fixedDigits(s[11:13])
	minute, ok2 := fixedDigits(s[14:16])
	second, ok3 := fixedDigits(s[17:19])
	if !ok || !ok1 || !ok2 || !ok3 || hour > 23 || minute > 59 || second > 59 {
		return 0, false
	}
	rest := s[19:]
	var usec int64
	if len(rest) > 0 && rest[0] == '.' {
		n := 1
		for n < len(rest) && n <= 6 && isDigit(rest[n]) {
			usec = usec*10 + int64(rest[n]-'0')
			n++
		}
		if n == 1 || (n < len(rest) && isDigit(rest[n])) {
			return 0, false // no digits, or more than six (rounded by Parse)
		}
		usec *= pow10Int64[7-n]
		rest = rest[n:]
	}
	var zone int64 // seconds west of Greenwich, PostgreSQL's sign
	if len(rest) > 0 {
		if !withZone || (rest[0] != '+' && rest[0] != '-') {
			return 0, false
		}
		var zh, zm int64
		var okh, okm bool
		switch len(rest) {
		case 3:
			zh, okh = fixedDigits(rest[1:3])
			okm = true
		case 6:
			zh, okh = fixedDigits(rest[1:3])
			zm, okm = fixedDigits(rest[4:6])
			okm = okm && rest[3] == ':'
		}
		if !okh || !okm || zh > 15 || zm > 59 {
			return 0, false
		}
		zone = zh*3600 + zm*60
		if rest[0] == '+' {
			zone = -zone
		}
	}
	return joinTimestampZone(year, month, day, hour, minute, second, usec, zone)
}

// ParseFloatFast reads a real (bitSize 32) or double precision (64)
// written [-]digits[.digits][e[+-]digits], whose value is a normal number
// or zero.
func ParseFloatFast(s []byte, bitSize int) (float64, bool) {
	i := 0
	if len(s) > 0 && s[0] == '-' {
		i = 1
	}
	digits, nonZero, point := 0, false, false
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case isDigit(c):
			digits++
			nonZero = nonZero || c != '0'
			continue
		case c == '.' && !point:
			point = true
			continue
		}
		break
	}
	if digits == 0 || len(s) > 64 {
		return 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if exp == i {
			return 0, false
		}
	}
	if i != len(s) {
		return 0, false
	}
	// The text is read in place: ParseFloat keeps none of it.
	v, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(s), len(s)), bitSize)
	if err != nil || (v == 0) == nonZero {
		return 0, false // out of range, or underflow to zero: Parse says so
	}
	smallest := 0x1p-1022 // the least normal double
	if bitSize == 32 {
		smallest = 0x1p-126
	}
	if v != 0 && math.Abs(v) < smallest {
		return 0, false // subnormal
	}
	return v, true
}
