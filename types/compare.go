package types

import (
	"cmp"
	"fmt"
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// Compare orders two non-NULL datums of type t: -1, 0 or +1. Strings compare
// bytewise (C collation); char(n) ignores trailing spaces; floats order NaN
// after everything and -0 equal to 0; numeric compares by value.
func Compare(t T, a, b any) int {
	switch t.ID {
	case Bool:
		x, y := asBool(a), asBool(b)
		switch {
		case x == y:
			return 0
		case y:
			return -1
		}
		return 1
	case Int2, Int4, Int8, Timestamp, TimestampTZ:
		return cmp.Compare(asInt64(a), asInt64(b))
	case Float4, Float8:
		return compareFloat(asFloat64(a), asFloat64(b))
	case Numeric:
		return compareNumeric(asDecimal(a), asDecimal(b))
	case Text, Varchar, Name, Unknown:
		return strings.Compare(asString(a), asString(b))
	case Bpchar:
		return compareBpchar(asString(a), asString(b))
	case Date:
		return cmp.Compare(asDate(a), asDate(b))
	case IntervalType:
		return CompareInterval(asInterval(a), asInterval(b))
	}
	panic(fmt.Sprintf("types: cannot compare type %s", t))
}

// compareFloat is float8_cmp_internal: NaNs are equal to each other and
// above every number; -0 equals 0.
func compareFloat(a, b float64) int {
	aNaN, bNaN := math.IsNaN(a), math.IsNaN(b)
	switch {
	case aNaN && bNaN:
		return 0
	case aNaN:
		return 1
	case bNaN:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareNumeric is cmp_numerics: NaNs are equal to each other and above
// everything, +Infinity included; otherwise by value, ignoring scale.
func compareNumeric(a, b *apd.Decimal) int {
	aNaN, bNaN := isNaN(a), isNaN(b)
	switch {
	case aNaN && bNaN:
		return 0
	case aNaN:
		return 1
	case bNaN:
		return -1
	}
	return a.Cmp(b)
}
