package types

// The interval type: PostgreSQL's (months int32, days int32, microseconds
// int64), with interval_in (DecodeInterval, DecodeISO8601Interval),
// interval_out in IntervalStyle postgres (the only style pgfed has),
// interval_cmp's ordering and the arithmetic of timestamp.c.
//
// Arrow: an interval column is arrow.MonthDayNanoInterval, whose three
// fields (months int32, days int32, nanoseconds int64) are PostgreSQL's
// three fields with the time in a finer unit, so the value keeps its
// months and days apart (1 month is not 30 days, 1 day is not 24 hours)
// and any Arrow consumer reads it correctly without a private format. The
// price is the time field's range: nanoseconds in an int64 hold
// ±9223372036854775 microseconds (±2562047 hours), PostgreSQL's int64
// microseconds 1000 times more. Intervals whose time part is beyond that
// are 22008 "interval out of range" here (hours can still be written as
// days, which have the full int32 range).

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/pgerr"
)

// Interval is the datum of an interval value.
type Interval struct {
	Months int32
	Days   int32
	Micros int64
}

// MaxIntervalMicros is the largest time part an interval column holds
// (its Arrow nanoseconds must fit in an int64).
const MaxIntervalMicros = math.MaxInt64 / 1000

const (
	intervalFieldOverflow = "22015"
	monthsPerYear         = 12
	daysPerMonth          = 30
)

// Interval typmod: PostgreSQL's INTERVAL_TYPMOD(precision, range).
const (
	IntervalMaskMonth  = 1 << 1
	IntervalMaskYear   = 1 << 2
	IntervalMaskDay    = 1 << 3
	IntervalMaskHour   = 1 << 10
	IntervalMaskMinute = 1 << 11
	IntervalMaskSecond = 1 << 12

	IntervalFullRange     = 0x7FFF
	IntervalFullPrecision = 0xFFFF
	MaxIntervalPrecision  = 6
)

// IntervalTypmod packs a range mask and a precision as PostgreSQL does.
func IntervalTypmod(precision, rangeMask int32) int32 {
	return rangeMask<<16 | precision&0xFFFF
}

func intervalRange(typmod int32) int32 {
	if typmod < 0 {
		return IntervalFullRange
	}
	return (typmod >> 16) & 0x7FFF
}

func intervalPrecision(typmod int32) int32 {
	if typmod < 0 {
		return IntervalFullPrecision
	}
	return typmod & 0xFFFF
}

// ValidIntervalRange reports whether mask is one of the field
// combinations of the grammar (intervaltypmodin's check).
func ValidIntervalRange(mask int32) bool {
	const (
		y, mo, d, h, mi, s = IntervalMaskYear, IntervalMaskMonth, IntervalMaskDay, IntervalMaskHour, IntervalMaskMinute, IntervalMaskSecond
	)
	switch mask {
	case y, mo, d, h, mi, s, y | mo, d | h, d | h | mi, d | h | mi | s, h | mi, h | mi | s, mi | s, IntervalFullRange:
		return true
	}
	return false
}

// intervalTypeString is format_type of interval with typmod.
func intervalTypeString(typmod int32) string {
	if typmod < 0 {
		return "interval"
	}
	var fields string
	switch intervalRange(typmod) {
	case IntervalMaskYear:
		fields = " year"
	case IntervalMaskMonth:
		fields = " month"
	case IntervalMaskDay:
		fields = " day"
	case IntervalMaskHour:
		fields = " hour"
	case IntervalMaskMinute:
		fields = " minute"
	case IntervalMaskSecond:
		fields = " second"
	case IntervalMaskYear | IntervalMaskMonth:
		fields = " year to month"
	case IntervalMaskDay | IntervalMaskHour:
		fields = " day to hour"
	case IntervalMaskDay | IntervalMaskHour | IntervalMaskMinute:
		fields = " day to minute"
	case IntervalMaskDay | IntervalMaskHour | IntervalMaskMinute | IntervalMaskSecond:
		fields = " day to second"
	case IntervalMaskHour | IntervalMaskMinute:
		fields = " hour to minute"
	case IntervalMaskHour | IntervalMaskMinute | IntervalMaskSecond:
		fields = " hour to second"
	case IntervalMaskMinute | IntervalMaskSecond:
		fields = " minute to second"
	}
	if p := intervalPrecision(typmod); p != IntervalFullPrecision {
		return "interval" + fields + "(" + strconv.Itoa(int(p)) + ")"
	}
	return "interval" + fields
}

func errIntervalOutOfRange() error {
	return pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
}

// checkInterval refuses a time part an Arrow interval cannot hold.
func checkInterval(iv Interval) (Interval, error) {
	if iv.Micros > MaxIntervalMicros || iv.Micros < -MaxIntervalMicros {
		return Interval{}, errIntervalOutOfRange()
	}
	return iv, nil
}

// makeInterval builds an interval from wide fields, 22008 when a field
// does not fit.
func makeInterval(months, days int64, micros int64) (Interval, error) {
	if months < math.MinInt32 || months > math.MaxInt32 || days < math.MinInt32 || days > math.MaxInt32 {
		return Interval{}, errIntervalOutOfRange()
	}
	return checkInterval(Interval{Months: int32(months), Days: int32(days), Micros: micros})
}

// --- input

// itmIn is PostgreSQL's struct pg_itm_in.
type itmIn struct {
	usec  int64
	mday  int32
	mon   int32
	year  int32
	valid bool
}

func add32(a *int32, b int64) bool {
	r := int64(*a) + b
	if r < math.MinInt32 || r > math.MaxInt32 {
		return false
	}
	*a = int32(r)
	return true
}

func add64(a *int64, b int64) bool {
	r := *a + b
	if (b > 0 && r < *a) || (b < 0 && r > *a) {
		return false
	}
	*a = r
	return true
}

func mul64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	r := a * b
	if r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return r, true
}

func (it *itmIn) adjustFractMicroseconds(frac float64, scale int64) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	usec := int64(frac)
	frac -= float64(usec)
	if frac > 0.5 {
		usec++
	} else if frac < -0.5 {
		usec--
	}
	return add64(&it.usec, usec)
}

func (it *itmIn) adjustFractDays(frac float64, scale int64) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	extra := int64(int32(frac))
	if !add32(&it.mday, extra) {
		return false
	}
	frac -= float64(extra)
	return it.adjustFractMicroseconds(frac, usecsPerDay)
}

func (it *itmIn) adjustFractYears(frac float64, scale int64) bool {
	extra := int64(int32(math.RoundToEven(frac * float64(scale) * monthsPerYear)))
	return add32(&it.mon, extra)
}

func (it *itmIn) adjustMicroseconds(val int64, fval float64, scale int64) bool {
	usec, ok := mul64(val, scale)
	if !ok || !add64(&it.usec, usec) {
		return false
	}
	return it.adjustFractMicroseconds(fval, scale)
}

func (it *itmIn) adjustDays(val int64, scale int64) bool {
	if val < math.MinInt32 || val > math.MaxInt32 {
		return false
	}
	d := val * scale
	if d < math.MinInt32 || d > math.MaxInt32 {
		return false
	}
	return add32(&it.mday, d)
}

func (it *itmIn) adjustMonths(val int64) bool {
	if val < math.MinInt32 || val > math.MaxInt32 {
		return false
	}
	return add32(&it.mon, val)
}

func (it *itmIn) adjustYears(val int64, scale int64) bool {
	if val < math.MinInt32 || val > math.MaxInt32 {
		return false
	}
	y := val * scale
	if y < math.MinInt32 || y > math.MaxInt32 {
		return false
	}
	return add32(&it.year, y)
}

// strtoi64 is strtol on int64: blanks, a sign, digits; with no digits it
// returns s unconsumed.
func strtoi64(s string) (val int64, rest string, overflow bool) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return 0, s, false
	}
	var u uint64
	for ; i < len(s) && isDigit(s[i]); i++ {
		d := uint64(s[i] - '0')
		if u > (math.MaxUint64-d)/10 {
			overflow = true
			continue
		}
		u = u*10 + d
	}
	if neg {
		if u > 1<<63 {
			overflow = true
		}
		return -int64(u), s[i:], overflow
	}
	if u > math.MaxInt64 {
		overflow = true
	}
	return int64(u), s[i:], overflow
}

// decodeTimeForInterval is DecodeTime plus DecodeTimeForInterval: h:m,
// h:m:s, h:m:s.f, or m:s.f (and m:s for MINUTE TO SECOND), as
// microseconds.
func decodeTimeForInterval(text string, rangeMask int32) (int64, dtError) {
	hour, rest, overflow := strtoi64(text)
	if overflow {
		return 0, dtFieldOverflow
	}
	if rest == "" || rest[0] != ':' {
		return 0, dtBadFormat
	}
	minute, rest, overflow := strtoint(rest[1:])
	if overflow {
		return 0, dtFieldOverflow
	}
	var sec, usec int64
	var err dtError
	switch {
	case rest == "":
		if rangeMask == IntervalMaskMinute|IntervalMaskSecond {
			if hour > math.MaxInt32 || hour < math.MinInt32 {
				return 0, dtFieldOverflow
			}
			hour, minute, sec = 0, hour, minute
		}
	case rest[0] == '.':
		if usec, err = parseFractionalSecond(rest); err != dtOK {
			return 0, err
		}
		if hour > math.MaxInt32 || hour < math.MinInt32 {
			return 0, dtFieldOverflow
		}
		hour, minute, sec = 0, hour, minute
	case rest[0] == ':':
		if sec, rest, overflow = strtoint(rest[1:]); overflow {
			return 0, dtFieldOverflow
		}
		if rest != "" {
			if rest[0] != '.' {
				return 0, dtBadFormat
			}
			if usec, err = parseFractionalSecond(rest); err != dtOK {
				return 0, err
			}
		}
	default:
		return 0, dtBadFormat
	}
	if hour < 0 || minute < 0 || minute > 59 || sec < 0 || sec > 60 || usec < 0 || usec > usecsPerSec {
		return 0, dtFieldOverflow
	}
	total := usec
	h, ok := mul64(hour, usecsPerHour)
	if !ok || !add64(&total, h) || !add64(&total, minute*usecsPerMinute) || !add64(&total, sec*usecsPerSec) {
		return 0, dtFieldOverflow
	}
	return total, dtOK
}

// Field masks of DecodeInterval (DTK_M of its units).
const (
	imMicrosecond fieldMask = 1 << iota
	imMillisecond
	imSecond
	imMinute
	imHour
	imDay
	imWeek
	imMonth
	imYear
	imDecade
	imCentury
	imMillennium
	imTime
	imReserved
)

// decodeInterval is DecodeInterval over ParseDateTime's fields.
func decodeInterval(fields []dateField, rangeMask int32) (itmIn, dtError) {
	var it itmIn
	var fmask fieldMask
	isBefore := false
	parsingUnitVal := false
	typ := unitNone
	ignore := true // type == IGNORE_DTF
	for i := len(fields) - 1; i >= 0; i-- {
		f := fields[i]
		var tmask fieldMask
		switch f.kind {
		case fieldTime:
			usec, err := decodeTimeForInterval(f.text, rangeMask)
			if err != dtOK {
				return it, err
			}
			it.usec = usec
			tmask = imTime | imHour | imMinute | imSecond | imMillisecond | imMicrosecond
			typ, ignore, parsingUnitVal = unitDay, false, false
		case fieldZone, fieldDate, fieldNumber:
			if f.kind == fieldZone && strings.IndexByte(f.text[1:], ':') >= 0 {
				if usec, err := decodeTimeForInterval(f.text[1:], rangeMask); err == dtOK {
					if f.text[0] == '-' {
						usec = -usec
					}
					it.usec = usec
					tmask = imTime | imHour | imMinute | imSecond | imMillisecond | imMicrosecond
					typ, ignore, parsingUnitVal = unitDay, false, false
					break
				}
			}
			if ignore {
				ignore = false
				switch rangeMask {
				case IntervalMaskYear:
					typ = unitYear
				case IntervalMaskMonth, IntervalMaskYear | IntervalMaskMonth:
					typ = unitMonth
				case IntervalMaskDay:
					typ = unitDay
				case IntervalMaskHour, IntervalMaskDay | IntervalMaskHour:
					typ = unitHour
				case IntervalMaskMinute, IntervalMaskHour | IntervalMaskMinute, IntervalMaskDay | IntervalMaskHour | IntervalMaskMinute:
					typ = unitMinute
				default:
					typ = unitSecond
				}
			}
			val, rest, overflow := strtoi64(f.text)
			if overflow {
				return it, dtFieldOverflow
			}
			var fval float64
			switch {
			case rest != "" && rest[0] == '-':
				// SQL "years-months".
				val2, rest2, ovf := strtoint(rest[1:])
				if ovf || val2 < 0 || val2 >= monthsPerYear {
					return it, dtFieldOverflow
				}
				if rest2 != "" {
					return it, dtBadFormat
				}
				typ = unitMonth
				if f.text[0] == '-' {
					val2 = -val2
				}
				var ok bool
				if val, ok = mul64(val, monthsPerYear); !ok || !add64(&val, val2) {
					return it, dtFieldOverflow
				}
			case rest != "" && rest[0] == '.':
				var err dtError
				if fval, err = parseFraction(rest); err != dtOK {
					return it, err
				}
				if f.text[0] == '-' {
					fval = -fval
				}
			case rest == "":
			default:
				return it, dtBadFormat
			}
			ok := true
			switch typ {
			case unitMicrosecond:
				ok, tmask = it.adjustMicroseconds(val, fval, 1), imMicrosecond
			case unitMillisecond:
				ok, tmask = it.adjustMicroseconds(val, fval, 1000), imMillisecond
			case unitSecond:
				ok = it.adjustMicroseconds(val, fval, usecsPerSec)
				tmask = imSecond
				if fval != 0 {
					tmask = imSecond | imMillisecond | imMicrosecond
				}
			case unitMinute:
				ok, tmask = it.adjustMicroseconds(val, fval, usecsPerMinute), imMinute
			case unitHour:
				ok, tmask = it.adjustMicroseconds(val, fval, usecsPerHour), imHour
				typ = unitDay
			case unitDay:
				ok = it.adjustDays(val, 1) && it.adjustFractMicroseconds(fval, usecsPerDay)
				tmask = imDay
			case unitWeek:
				ok = it.adjustDays(val, 7) && it.adjustFractDays(fval, 7)
				tmask = imWeek
			case unitMonth:
				ok = it.adjustMonths(val) && it.adjustFractDays(fval, daysPerMonth)
				tmask = imMonth
			case unitYear:
				ok, tmask = it.adjustYears(val, 1) && it.adjustFractYears(fval, 1), imYear
			case unitDecade:
				ok, tmask = it.adjustYears(val, 10) && it.adjustFractYears(fval, 10), imDecade
			case unitCentury:
				ok, tmask = it.adjustYears(val, 100) && it.adjustFractYears(fval, 100), imCentury
			case unitMillennium:
				ok, tmask = it.adjustYears(val, 1000) && it.adjustFractYears(fval, 1000), imMillennium
			default:
				return it, dtBadFormat
			}
			if !ok {
				return it, dtFieldOverflow
			}
			parsingUnitVal = false
		case fieldString, fieldSpecial:
			if parsingUnitVal {
				return it, dtBadFormat
			}
			if u, found := lookupUnit(f.text); found {
				typ, ignore, parsingUnitVal = u, false, true
				break
			}
			if truncateToken(f.text) == "ago" {
				if i != len(fields)-1 {
					return it, dtBadFormat
				}
				isBefore = true
				typ, ignore = unitNone, false
				break
			}
			tok, found := lookupDateToken(f.text)
			switch {
			case found && tok.kind == tokenIgnore:
				continue
			default:
				// infinity, epoch, now ... too: PostgreSQL 15 has no
				// infinite intervals.
				return it, dtBadFormat
			}
		default:
			return it, dtBadFormat
		}
		if tmask&fmask != 0 {
			return it, dtBadFormat
		}
		fmask |= tmask
	}
	if fmask == 0 || parsingUnitVal {
		return it, dtBadFormat
	}
	if isBefore {
		if it.usec == math.MinInt64 || it.mday == math.MinInt32 || it.mon == math.MinInt32 || it.year == math.MinInt32 {
			return it, dtFieldOverflow
		}
		it.usec, it.mday, it.mon, it.year = -it.usec, -it.mday, -it.mon, -it.year
	}
	return it, dtOK
}

// parseISO8601Number is ParseISO8601Number: a strtod number split into
// its integer part (towards zero) and fraction.
func parseISO8601Number(s string) (ipart int64, fpart float64, rest string, err dtError) {
	if s == "" || !(isDigit(s[0]) || s[0] == '-' || s[0] == '.') {
		return 0, 0, s, dtBadFormat
	}
	n := strtodPrefix(s)
	if n == 0 {
		return 0, 0, s, dtBadFormat
	}
	val, perr := strconv.ParseFloat(s[:n], 64)
	if perr != nil && !strings.Contains(perr.Error(), "range") {
		return 0, 0, s, dtBadFormat
	}
	if perr != nil || math.IsNaN(val) || val < -1e15 || val > 1e15 {
		return 0, 0, s, dtFieldOverflow
	}
	if val >= 0 {
		ipart = int64(math.Floor(val))
	} else {
		ipart = -int64(math.Floor(-val))
	}
	return ipart, val - float64(ipart), s[n:], dtOK
}

// strtodPrefix is the length of the longest prefix of s that C's strtod
// reads as a decimal number (sign, digits, point, exponent).
func strtodPrefix(s string) int {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			i = j
		}
	}
	return i
}

func iso8601IntegerWidth(s string) int {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// decodeISO8601Interval is DecodeISO8601Interval: P1Y2M3DT4H5M6S, with
// a week field, or the alternative format P0001-02-03T04:05:06.
func decodeISO8601Interval(s string) (itmIn, dtError) {
	var it itmIn
	if len(s) < 2 || s[0] != 'P' {
		return it, dtBadFormat
	}
	s = s[1:]
	datePart, haveField := true, false
	for s != "" {
		if s[0] == 'T' {
			datePart, haveField = false, false
			s = s[1:]
			continue
		}
		fieldStart := s
		val, fval, rest, err := parseISO8601Number(s)
		if err != dtOK {
			return it, err
		}
		var unit byte
		if rest != "" {
			unit, s = rest[0], rest[1:]
		} else {
			s = ""
		}
		if datePart {
			switch unit {
			case 'Y':
				if !it.adjustYears(val, 1) || !it.adjustFractYears(fval, 1) {
					return it, dtFieldOverflow
				}
			case 'M':
				if !it.adjustMonths(val) || !it.adjustFractDays(fval, daysPerMonth) {
					return it, dtFieldOverflow
				}
			case 'W':
				if !it.adjustDays(val, 7) || !it.adjustFractDays(fval, 7) {
					return it, dtFieldOverflow
				}
			case 'D':
				if !it.adjustDays(val, 1) || !it.adjustFractMicroseconds(fval, usecsPerDay) {
					return it, dtFieldOverflow
				}
			case 'T', 0, '-':
				if unit != '-' && iso8601IntegerWidth(fieldStart) == 8 && !haveField {
					if !it.adjustYears(val/10000, 1) || !it.adjustMonths((val/100)%100) ||
						!it.adjustDays(val%100, 1) || !it.adjustFractMicroseconds(fval, usecsPerDay) {
						return it, dtFieldOverflow
					}
					if unit == 0 {
						return it, dtOK
					}
					datePart, haveField = false, false
					continue
				}
				if haveField {
					return it, dtBadFormat
				}
				if !it.adjustYears(val, 1) || !it.adjustFractYears(fval, 1) {
					return it, dtFieldOverflow
				}
				if unit == 0 {
					return it, dtOK
				}
				if unit == 'T' {
					datePart, haveField = false, false
					continue
				}
				if val, fval, s, err = parseISO8601Number(s); err != dtOK {
					return it, err
				}
				if !it.adjustMonths(val) || !it.adjustFractDays(fval, daysPerMonth) {
					return it, dtFieldOverflow
				}
				if s == "" {
					return it, dtOK
				}
				if s[0] == 'T' {
					datePart, haveField = false, false
					s = s[1:]
					continue
				}
				if s[0] != '-' {
					return it, dtBadFormat
				}
				if val, fval, s, err = parseISO8601Number(s[1:]); err != dtOK {
					return it, err
				}
				if !it.adjustDays(val, 1) || !it.adjustFractMicroseconds(fval, usecsPerDay) {
					return it, dtFieldOverflow
				}
				if s == "" {
					return it, dtOK
				}
				if s[0] == 'T' {
					datePart, haveField = false, false
					s = s[1:]
					continue
				}
				return it, dtBadFormat
			default:
				return it, dtBadFormat
			}
		} else {
			switch unit {
			case 'H':
				if !it.adjustMicroseconds(val, fval, usecsPerHour) {
					return it, dtFieldOverflow
				}
			case 'M':
				if !it.adjustMicroseconds(val, fval, usecsPerMinute) {
					return it, dtFieldOverflow
				}
			case 'S':
				if !it.adjustMicroseconds(val, fval, usecsPerSec) {
					return it, dtFieldOverflow
				}
			case 0, ':':
				if unit == 0 && iso8601IntegerWidth(fieldStart) == 6 && !haveField {
					if !it.adjustMicroseconds(val/10000, 0, usecsPerHour) ||
						!it.adjustMicroseconds((val/100)%100, 0, usecsPerMinute) ||
						!it.adjustMicroseconds(val%100, 0, usecsPerSec) ||
						!it.adjustFractMicroseconds(fval, 1) {
						return it, dtFieldOverflow
					}
					return it, dtOK
				}
				if haveField {
					return it, dtBadFormat
				}
				if !it.adjustMicroseconds(val, fval, usecsPerHour) {
					return it, dtFieldOverflow
				}
				if unit == 0 {
					return it, dtOK
				}
				if val, fval, s, err = parseISO8601Number(s); err != dtOK {
					return it, err
				}
				if !it.adjustMicroseconds(val, fval, usecsPerMinute) {
					return it, dtFieldOverflow
				}
				if s == "" {
					return it, dtOK
				}
				if s[0] != ':' {
					return it, dtBadFormat
				}
				if val, fval, s, err = parseISO8601Number(s[1:]); err != dtOK {
					return it, err
				}
				if !it.adjustMicroseconds(val, fval, usecsPerSec) {
					return it, dtFieldOverflow
				}
				if s == "" {
					return it, dtOK
				}
				return it, dtBadFormat
			default:
				return it, dtBadFormat
			}
		}
		haveField = true
	}
	return it, dtOK
}

// ParseInterval is interval_in with typmod (-1 for none): the fields
// decide what a bare number means ('1' is hours for HOUR TO ...), and
// the typmod then truncates or rounds the result.
func ParseInterval(s string, typmod int32) (Interval, error) {
	rangeMask := intervalRange(typmod)
	var it itmIn
	fields, err := splitDateFields(s)
	if err == dtOK {
		it, err = decodeInterval(fields, rangeMask)
	}
	if err == dtBadFormat {
		it, err = decodeISO8601Interval(s)
	}
	switch err {
	case dtOK:
	case dtFieldOverflow, dtMonthDayOverflow:
		return Interval{}, pgerr.New(intervalFieldOverflow, "interval field value out of range: \"%s\"", s)
	default:
		return Interval{}, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type interval: \"%s\"", s)
	}
	months := int64(it.year)*monthsPerYear + int64(it.mon)
	if months < math.MinInt32 || months > math.MaxInt32 {
		return Interval{}, errIntervalOutOfRange()
	}
	iv, cerr := checkInterval(Interval{Months: int32(months), Days: it.mday, Micros: it.usec})
	if cerr != nil {
		return Interval{}, cerr
	}
	return ApplyIntervalTypmod(iv, typmod)
}

// ApplyIntervalTypmod is AdjustIntervalForTypmod: fields right of the
// range's last one are zeroed, and the seconds rounded to the precision.
func ApplyIntervalTypmod(iv Interval, typmod int32) (Interval, error) {
	if typmod < 0 {
		return iv, nil
	}
	switch intervalRange(typmod) {
	case IntervalMaskYear:
		iv.Months = iv.Months / monthsPerYear * monthsPerYear
		iv.Days, iv.Micros = 0, 0
	case IntervalMaskMonth, IntervalMaskYear | IntervalMaskMonth:
		iv.Days, iv.Micros = 0, 0
	case IntervalMaskDay:
		iv.Micros = 0
	case IntervalMaskHour, IntervalMaskDay | IntervalMaskHour:
		iv.Micros = iv.Micros / usecsPerHour * usecsPerHour
	case IntervalMaskMinute, IntervalMaskDay | IntervalMaskHour | IntervalMaskMinute, IntervalMaskHour | IntervalMaskMinute:
		iv.Micros = iv.Micros / usecsPerMinute * usecsPerMinute
	}
	if p := intervalPrecision(typmod); p != IntervalFullPrecision {
		if p < 0 || p > MaxIntervalPrecision {
			return Interval{}, pgerr.New(pgerr.InvalidParameterValue, "interval(%d) precision must be between %d and %d", p, 0, MaxIntervalPrecision)
		}
		scale := int64(1)
		for i := p; i < MaxIntervalPrecision; i++ {
			scale *= 10
		}
		offset := scale / 2
		if scale == 1 {
			offset = 0
		}
		if iv.Micros >= 0 {
			iv.Micros = (iv.Micros + offset) / scale * scale
		} else {
			iv.Micros = -((-iv.Micros + offset) / scale * scale)
		}
	}
	return checkInterval(iv)
}

// --- output

// splitInterval is interval2itm: years, months, days, hours, minutes,
// seconds and microseconds, each with the sign of its field (C's
// truncating division).
func splitInterval(iv Interval) (year, mon, mday, hour, min, sec, usec int64) {
	year = int64(iv.Months) / monthsPerYear
	mon = int64(iv.Months) % monthsPerYear
	mday = int64(iv.Days)
	t := iv.Micros
	hour = t / usecsPerHour
	t -= hour * usecsPerHour
	min = t / usecsPerMinute
	t -= min * usecsPerMinute
	sec = t / usecsPerSec
	usec = t - sec*usecsPerSec
	return
}

// appendInterval is EncodeInterval in IntervalStyle postgres:
// "1 year 2 mons -3 days +04:05:06.7".
func appendInterval(buf []byte, iv Interval) []byte {
	year, mon, mday, hour, min, sec, usec := splitInterval(iv)
	isZero, isBefore := true, false
	part := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if !isZero {
			buf = append(buf, ' ')
		}
		if isBefore && v > 0 {
			buf = append(buf, '+')
		}
		buf = strconv.AppendInt(buf, v, 10)
		buf = append(buf, ' ')
		buf = append(buf, unit...)
		if v != 1 {
			buf = append(buf, 's')
		}
		isBefore = v < 0
		isZero = false
	}
	part(year, "year")
	part(mon, "mon")
	part(mday, "day")
	if isZero || hour != 0 || min != 0 || sec != 0 || usec != 0 {
		minus := hour < 0 || min < 0 || sec < 0 || usec < 0
		if !isZero {
			buf = append(buf, ' ')
		}
		if minus {
			buf = append(buf, '-')
		} else if isBefore {
			buf = append(buf, '+')
		}
		buf = appendZeroPadded(buf, absInt64(hour), 2)
		buf = append(buf, ':')
		buf = appendZeroPadded(buf, absInt64(min), 2)
		buf = append(buf, ':')
		buf = appendZeroPadded(buf, absInt64(sec), 2)
		if usec != 0 {
			buf = append(buf, '.')
			f := absInt64(usec)
			width := 6
			for f%10 == 0 {
				f /= 10
				width--
			}
			buf = appendZeroPadded(buf, f, width)
		}
	}
	return buf
}

// --- comparison

// intervalSpan is interval_cmp_value as a pair: the span in whole days
// (months of 30 days, days of 24 hours) and the microseconds left over,
// in [0, one day). Comparing the pairs compares the 128-bit spans.
func intervalSpan(iv Interval) (days, usec int64) {
	days = int64(iv.Months)*daysPerMonth + int64(iv.Days)
	q := floorDiv(iv.Micros, usecsPerDay)
	return days + q, iv.Micros - q*usecsPerDay
}

// CompareInterval is interval_cmp.
func CompareInterval(a, b Interval) int {
	ad, au := intervalSpan(a)
	bd, bu := intervalSpan(b)
	switch {
	case ad < bd:
		return -1
	case ad > bd:
		return 1
	case au < bu:
		return -1
	case au > bu:
		return 1
	}
	return 0
}

// IntervalKey appends bytes that are equal for intervals that compare
// equal (interval_hash's equivalence: '1 month' = '30 days').
func IntervalKey(buf []byte, iv Interval) []byte {
	d, u := intervalSpan(iv)
	for i := 0; i < 8; i++ {
		buf = append(buf, byte(d>>(8*i)))
	}
	for i := 0; i < 8; i++ {
		buf = append(buf, byte(u>>(8*i)))
	}
	return buf
}

// --- arithmetic

// IntervalAdd is interval_pl.
func IntervalAdd(a, b Interval) (Interval, error) {
	return makeInterval(int64(a.Months)+int64(b.Months), int64(a.Days)+int64(b.Days), a.Micros+b.Micros)
}

// IntervalSub is interval_mi.
func IntervalSub(a, b Interval) (Interval, error) {
	return makeInterval(int64(a.Months)-int64(b.Months), int64(a.Days)-int64(b.Days), a.Micros-b.Micros)
}

// IntervalNeg is interval_um.
func IntervalNeg(a Interval) (Interval, error) {
	return makeInterval(-int64(a.Months), -int64(a.Days), -a.Micros)
}

func fitsInt32(f float64) bool { return f >= math.MinInt32 && f < -float64(math.MinInt32) }

func tsRound(f float64) float64 { return math.RoundToEven(f*1e6) / 1e6 }

// IntervalMul is interval_mul: months and days are multiplied and
// truncated, their fractions spill down into days and seconds.
func IntervalMul(iv Interval, factor float64) (Interval, error) {
	return intervalScale(iv, factor, false)
}

// IntervalDiv is interval_div; dividing by zero is 22012.
func IntervalDiv(iv Interval, factor float64) (Interval, error) {
	if factor == 0 {
		return Interval{}, ErrDivisionByZero()
	}
	return intervalScale(iv, factor, true)
}

func intervalScale(iv Interval, factor float64, divide bool) (Interval, error) {
	op := func(v float64) float64 {
		if divide {
			return v / factor
		}
		return v * factor
	}
	monthsF := op(float64(iv.Months))
	if math.IsNaN(monthsF) || !fitsInt32(monthsF) {
		return Interval{}, errIntervalOutOfRange()
	}
	daysF := op(float64(iv.Days))
	if math.IsNaN(daysF) || !fitsInt32(daysF) {
		return Interval{}, errIntervalOutOfRange()
	}
	months := int32(monthsF)
	days := int64(int32(daysF))
	monthRemainderDays := tsRound((monthsF - float64(months)) * daysPerMonth)
	secRemainder := tsRound((daysF - float64(days) + monthRemainderDays - float64(int32(monthRemainderDays))) * secsPerDay)
	if math.Abs(secRemainder) >= secsPerDay {
		whole := int64(int32(secRemainder / secsPerDay))
		days += whole
		secRemainder -= float64(whole * secsPerDay)
	}
	days += int64(int32(monthRemainderDays))
	t := math.RoundToEven(op(float64(iv.Micros)) + secRemainder*usecsPerSec)
	if math.IsNaN(t) || t < math.MinInt64 || t >= -float64(math.MinInt64) {
		return Interval{}, errIntervalOutOfRange()
	}
	return makeInterval(int64(months), days, int64(t))
}

// TimestampPlusInterval is timestamp_pl_interval (and, the session zone
// being UTC, timestamptz_pl_interval): months first, clamping the day to
// the month's end, then days, then the time; infinities stay.
func TimestampPlusInterval(ts int64, iv Interval) (int64, error) {
	if ts == TimestampNegInfinity || ts == TimestampPosInfinity {
		return ts, nil
	}
	if iv.Months != 0 {
		tm := splitTimestamp(ts)
		mon := tm.month + int64(iv.Months)
		year := tm.year
		if mon > 12 {
			year += (mon - 1) / 12
			mon = (mon-1)%12 + 1
		} else if mon < 1 {
			year += mon/12 - 1
			mon = mon%12 + 12
		}
		day := min(tm.day, monthLength(year, mon))
		v, ok := joinTimestamp(year, mon, day, tm.hour, tm.minute, tm.second, tm.usec)
		if !ok {
			return 0, errTimestampOutOfRange()
		}
		ts = v
	}
	if iv.Days != 0 {
		tm := splitTimestamp(ts)
		year, mon, day := civilFromDays(tm.days + int64(iv.Days))
		v, ok := joinTimestamp(year, mon, day, tm.hour, tm.minute, tm.second, tm.usec)
		if !ok {
			return 0, errTimestampOutOfRange()
		}
		ts = v
	}
	r := ts + iv.Micros
	if (iv.Micros > 0 && r < ts) || (iv.Micros < 0 && r > ts) || !validTimestamp(r) {
		return 0, errTimestampOutOfRange()
	}
	return r, nil
}

// TimestampMinusInterval is timestamp_mi_interval.
func TimestampMinusInterval(ts int64, iv Interval) (int64, error) {
	return TimestampPlusInterval(ts, Interval{Months: -iv.Months, Days: -iv.Days, Micros: -iv.Micros})
}

// DatePlusInterval is date_pl_interval: the date's midnight plus the
// interval, a timestamp.
func DatePlusInterval(date int32, iv Interval) (int64, error) {
	ts, err := dateToTimestamp(date)
	if err != nil {
		return 0, err
	}
	return TimestampPlusInterval(ts, iv)
}

// TimestampMinusTimestamp is timestamp_mi: the difference as hours,
// justified into days (justify_hours), as PostgreSQL does.
func TimestampMinusTimestamp(a, b int64) (Interval, error) {
	if a == TimestampNegInfinity || a == TimestampPosInfinity || b == TimestampNegInfinity || b == TimestampPosInfinity {
		return Interval{}, pgerr.New(pgerr.DatetimeFieldOverflow, "cannot subtract infinite timestamps")
	}
	d := a - b
	if (b < 0 && d < a) || (b > 0 && d > a) {
		return Interval{}, errIntervalOutOfRange()
	}
	return JustifyHours(Interval{Micros: d})
}

// JustifyHours is interval_justify_hours: whole 24-hour periods become
// days, with the time taking the days' sign.
func JustifyHours(iv Interval) (Interval, error) {
	whole := iv.Micros / usecsPerDay
	t := iv.Micros - whole*usecsPerDay
	days := int64(iv.Days) + whole
	if days < math.MinInt32 || days > math.MaxInt32 {
		return Interval{}, errIntervalOutOfRange()
	}
	if days > 0 && t < 0 {
		t += usecsPerDay
		days--
	} else if days < 0 && t > 0 {
		t -= usecsPerDay
		days++
	}
	return makeInterval(int64(iv.Months), days, t)
}

// JustifyDays is interval_justify_days: whole 30-day periods become
// months.
func JustifyDays(iv Interval) (Interval, error) {
	whole := int64(iv.Days) / daysPerMonth
	days := int64(iv.Days) - whole*daysPerMonth
	months := int64(iv.Months) + whole
	if months < math.MinInt32 || months > math.MaxInt32 {
		return Interval{}, errIntervalOutOfRange()
	}
	if months > 0 && days < 0 {
		days += daysPerMonth
		months--
	} else if months < 0 && days > 0 {
		days -= daysPerMonth
		months++
	}
	return makeInterval(months, days, iv.Micros)
}

// JustifyInterval is interval_justify_interval: both, with one sign.
func JustifyInterval(iv Interval) (Interval, error) {
	months, days, t := int64(iv.Months), int64(iv.Days), iv.Micros
	if (days > 0 && t > 0) || (days < 0 && t < 0) {
		whole := days / daysPerMonth
		days -= whole * daysPerMonth
		months += whole
		if months < math.MinInt32 || months > math.MaxInt32 {
			return Interval{}, errIntervalOutOfRange()
		}
	}
	wholeDay := t / usecsPerDay
	t -= wholeDay * usecsPerDay
	days += wholeDay
	whole := days / daysPerMonth
	days -= whole * daysPerMonth
	months += whole
	if months < math.MinInt32 || months > math.MaxInt32 {
		return Interval{}, errIntervalOutOfRange()
	}
	if months > 0 && (days < 0 || (days == 0 && t < 0)) {
		days += daysPerMonth
		months--
	} else if months < 0 && (days > 0 || (days == 0 && t > 0)) {
		days -= daysPerMonth
		months++
	}
	if days > 0 && t < 0 {
		t += usecsPerDay
		days--
	} else if days < 0 && t > 0 {
		t -= usecsPerDay
		days++
	}
	return makeInterval(months, days, t)
}

// Age is timestamp_age (timestamptz_age at UTC): the symbolic difference
// in years, months and days, borrowing from the month of the earlier
// (or, when a < b, the later) value.
func Age(a, b int64) (Interval, error) {
	if a == TimestampNegInfinity || a == TimestampPosInfinity || b == TimestampNegInfinity || b == TimestampPosInfinity {
		return Interval{}, errTimestampOutOfRange()
	}
	t1, t2 := splitTimestamp(a), splitTimestamp(b)
	usec := t1.usec - t2.usec
	sec := t1.second - t2.second
	mins := t1.minute - t2.minute
	hour := t1.hour - t2.hour
	mday := t1.day - t2.day
	mon := t1.month - t2.month
	year := t1.year - t2.year
	before := a < b
	if before {
		usec, sec, mins, hour, mday, mon, year = -usec, -sec, -mins, -hour, -mday, -mon, -year
	}
	for usec < 0 {
		usec += usecsPerSec
		sec--
	}
	for sec < 0 {
		sec += 60
		mins--
	}
	for mins < 0 {
		mins += 60
		hour--
	}
	for hour < 0 {
		hour += 24
		mday--
	}
	for mday < 0 {
		if before {
			mday += monthLength(t1.year, t1.month)
		} else {
			mday += monthLength(t2.year, t2.month)
		}
		mon--
	}
	for mon < 0 {
		mon += 12
		year--
	}
	if before {
		usec, sec, mins, hour, mday, mon, year = -usec, -sec, -mins, -hour, -mday, -mon, -year
	}
	months := year*monthsPerYear + mon
	micros := hour*usecsPerHour + mins*usecsPerMinute + sec*usecsPerSec + usec
	return makeInterval(months, mday, micros)
}

// --- extract

// ExtractInterval is EXTRACT(field FROM interval) (numeric, scale 6 for
// seconds and epoch, 3 for milliseconds), or date_part's double
// precision with asFloat.
func ExtractInterval(field string, iv Interval, asFloat bool) (any, error) {
	name := normalizeUnitName(field)
	year, mon, mday, hour, min, sec, usec := splitInterval(iv)
	var r int64
	u, isUnit := lookupUnit(name)
	if !isUnit {
		tok, ok := lookupDateToken(name)
		switch {
		case ok && tok.kind == tokenReserved && tok.value == reservedEpoch:
			return intervalEpoch(iv, asFloat), nil
		case ok && tok.kind == tokenUnits:
			return nil, errUnitNotSupported(name, IntervalT)
		}
		return nil, errUnitNotRecognized(name, IntervalT)
	}
	switch u {
	case unitMicrosecond:
		r = sec*usecsPerSec + usec
	case unitMillisecond:
		if asFloat {
			return float64(sec)*1000.0 + float64(usec)/1000.0, nil
		}
		return buildNumeric(new(apd.BigInt).SetInt64(sec*usecsPerSec+usec), 3), nil
	case unitSecond:
		if asFloat {
			return float64(sec) + float64(usec)/1000000.0, nil
		}
		return buildNumeric(new(apd.BigInt).SetInt64(sec*usecsPerSec+usec), 6), nil
	case unitMinute:
		r = min
	case unitHour:
		r = hour
	case unitDay:
		r = mday
	case unitMonth:
		r = mon
	case unitQuarter:
		r = mon/3 + 1
	case unitYear:
		r = year
	case unitDecade:
		r = year / 10
	case unitCentury:
		r = year / 100
	case unitMillennium:
		r = year / 1000
	default:
		return nil, errUnitNotSupported(name, IntervalT)
	}
	if asFloat {
		return float64(r), nil
	}
	return NumericFromInt64(r), nil
}

// intervalEpoch is the interval's length in seconds with years of
// 365.25 days and months of 30.
func intervalEpoch(iv Interval, asFloat bool) any {
	m := int64(iv.Months)
	if asFloat {
		r := float64(iv.Micros) / 1000000.0
		r += (365.25 * secsPerDay) * float64(m/monthsPerYear)
		r += (daysPerMonth * secsPerDay) * float64(m%monthsPerYear)
		r += secsPerDay * float64(iv.Days)
		return r
	}
	secs := (1461*(m/monthsPerYear) + 4*daysPerMonth*(m%monthsPerYear) + 4*int64(iv.Days)) * (secsPerDay / 4)
	n := new(big.Int).Mul(big.NewInt(secs), big.NewInt(usecsPerSec))
	n.Add(n, big.NewInt(iv.Micros))
	return buildNumeric(new(apd.BigInt).SetMathBigInt(n), 6)
}
