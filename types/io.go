package types

import (
	"fmt"
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/pgerr"
)

// Format returns PostgreSQL's text output of the non-NULL datum d of type t
// (session settings: DateStyle ISO, extra_float_digits 1, TimeZone UTC).
func Format(t T, d any) string {
	switch t.ID {
	case Int2, Int4, Int8:
		return strconv.FormatInt(asInt64(d), 10)
	case Text, Varchar, Bpchar, Name, Unknown:
		return asString(d)
	}
	var scratch [64]byte
	return string(AppendFormat(scratch[:0], t, d))
}

// AppendFormat appends Format(t, d) to buf.
func AppendFormat(buf []byte, t T, d any) []byte {
	switch t.ID {
	case Bool:
		if asBool(d) {
			return append(buf, 't')
		}
		return append(buf, 'f')
	case Int2, Int4, Int8:
		return strconv.AppendInt(buf, asInt64(d), 10)
	case Float4:
		return appendFloat(buf, asFloat64(d), 32)
	case Float8:
		return appendFloat(buf, asFloat64(d), 64)
	case Numeric:
		return appendNumeric(buf, asDecimal(d))
	case Text, Varchar, Bpchar, Name, Unknown:
		return append(buf, asString(d)...)
	case Date:
		return appendDate(buf, asDate(d))
	case Timestamp:
		return appendTimestamp(buf, asInt64(d), false)
	case TimestampTZ:
		return appendTimestamp(buf, asInt64(d), true)
	case IntervalType:
		return appendInterval(buf, asInterval(d))
	}
	panic(fmt.Sprintf("types: cannot format type %s", t))
}

// Parse reads PostgreSQL text input for type t, applying t's modifier
// (char(n) padding, varchar(n)/char(n) length errors 22001, numeric(p,s)
// rounding and 22003), with PostgreSQL's errors (22P02, 22003, 22007,
// 22008 ...), messages included.
func Parse(t T, s string) (any, error) {
	switch t.ID {
	case Unknown, Text:
		return s, nil
	case Varchar:
		return datum(coerceVarchar(s, t, false))
	case Bpchar:
		return datum(coerceBpchar(s, t, false))
	case Name:
		return truncateName(s), nil
	case Bool:
		return datum(parseBool(s))
	case Int2, Int4, Int8:
		return datum(parseInt(t, s))
	case Float4:
		return datum(parseFloat(s, 32))
	case Float8:
		return datum(parseFloat(s, 64))
	case Numeric:
		return datum(parseNumeric(s, t))
	case Date:
		return datum(parseDate(s))
	case Timestamp:
		return datum(parseTimestamp(s, false))
	case TimestampTZ:
		return datum(parseTimestamp(s, true))
	case IntervalType:
		return datum(ParseInterval(s, t.Len))
	}
	return nil, pgerr.Internal("no input function for type %s", t)
}

// parseBool is boolin: after trimming blanks, any case-insensitive prefix
// of true, false, yes or no; on or off (at least two letters); 1 or 0.
func parseBool(s string) (bool, error) {
	v := trimSpaces(s)
	if v != "" {
		switch toLowerASCII(v[0]) {
		case 't':
			if isPrefixOfFold(v, "true") {
				return true, nil
			}
		case 'f':
			if isPrefixOfFold(v, "false") {
				return false, nil
			}
		case 'y':
			if isPrefixOfFold(v, "yes") {
				return true, nil
			}
		case 'n':
			if isPrefixOfFold(v, "no") {
				return false, nil
			}
		case 'o':
			// "o" alone could be either.
			if len(v) >= 2 && isPrefixOfFold(v, "on") {
				return true, nil
			}
			if len(v) >= 2 && isPrefixOfFold(v, "off") {
				return false, nil
			}
		case '1':
			if len(v) == 1 {
				return true, nil
			}
		case '0':
			if len(v) == 1 {
				return false, nil
			}
		}
	}
	return false, errInvalidSyntax("boolean", s)
}

// isPrefixOfFold reports whether v is a prefix of word, ignoring case.
func isPrefixOfFold(v, word string) bool {
	return len(v) <= len(word) && hasPrefixFold(word, v)
}

// Datum accessors. Each accepts the convention's Go type and, for
// convenience of callers holding Arrow values, the natural narrower types.
// Anything else is a caller bug, reported by panic (which the engine turns
// into an internal error).

func asBool(d any) bool {
	if v, ok := d.(bool); ok {
		return v
	}
	panic(fmt.Sprintf("types: %T is not a boolean datum", d))
}

func asInt64(d any) int64 {
	switch v := d.(type) {
	case int64:
		return v
	case int32:
		return int64(v)
	case int16:
		return int64(v)
	case int8:
		return int64(v)
	case int:
		return int64(v)
	}
	panic(fmt.Sprintf("types: %T is not an integer datum", d))
}

func asFloat64(d any) float64 {
	switch v := d.(type) {
	case float64:
		return v
	case float32:
		return float64(v)
	}
	panic(fmt.Sprintf("types: %T is not a float datum", d))
}

func asDecimal(d any) *apd.Decimal {
	if v, ok := d.(*apd.Decimal); ok && v != nil {
		return v
	}
	panic(fmt.Sprintf("types: %T is not a numeric datum", d))
}

func asString(d any) string {
	switch v := d.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	panic(fmt.Sprintf("types: %T is not a string datum", d))
}

func asDate(d any) int32 {
	switch v := d.(type) {
	case int32:
		return v
	case int64:
		return int32(v)
	case int:
		return int32(v)
	}
	panic(fmt.Sprintf("types: %T is not a date datum", d))
}

func asInterval(d any) Interval {
	if v, ok := d.(Interval); ok {
		return v
	}
	panic(fmt.Sprintf("types: %T is not an interval datum", d))
}
