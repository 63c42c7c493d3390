package types

import (
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/pgerr"
)

// normalizeUnitName is downcase_truncate_identifier, which date_trunc and
// EXTRACT apply to the unit: ASCII letters lowercased, and cut to
// NAMEDATALEN-1 (63) bytes on a character boundary.
func normalizeUnitName(field string) string {
	const maxIdentifierLen = 63
	b := []byte(field)
	for i, c := range b {
		b[i] = toLowerASCII(c)
	}
	if len(b) > maxIdentifierLen {
		cut := maxIdentifierLen
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		b = b[:cut]
	}
	return string(b)
}

func errUnitNotRecognized(name string, t T) error {
	return pgerr.New(pgerr.InvalidParameterValue, "unit \"%s\" not recognized for type %s", name, t)
}

func errUnitNotSupported(name string, t T) error {
	return pgerr.New(pgerr.FeatureNotSupported, "unit \"%s\" not supported for type %s", name, t)
}

// DateTrunc truncates a timestamp or timestamptz (microseconds; the session
// zone is UTC, so both behave alike) to the start of field: microseconds,
// milliseconds, second, minute, hour, day, week (Monday), month, quarter,
// year, decade, century or millennium, in any of PostgreSQL's spellings.
// Infinities come back unchanged, whatever the unit. Unknown units are 22023
// `unit "foo" not recognized for type ...`; known but unsuitable ones (such
// as timezone) are 0A000 "not supported"; results before 4714 BC are 22008
// "timestamp out of range".
func DateTrunc(field string, t T, v int64) (int64, error) {
	if t.ID != Timestamp && t.ID != TimestampTZ {
		return 0, pgerr.Internal("date_trunc is not defined for type %s", t)
	}
	if v == TimestampNegInfinity || v == TimestampPosInfinity {
		return v, nil
	}
	name := normalizeUnitName(field)
	u, ok := lookupUnit(name)
	if !ok {
		return 0, errUnitNotRecognized(name, t)
	}
	tm := splitTimestamp(v)
	year, month, day := tm.year, tm.month, tm.day
	hour, minute, second, usec := tm.hour, tm.minute, tm.second, tm.usec
	// Centuries and millennia start in years ending in 01; BC years count
	// down from year 0 (1 BC), hence the mirrored formulas.
	switch u {
	case unitMillennium:
		if year > 0 {
			year = (year+999)/1000*1000 - 999
		} else {
			year = -((999-(year-1))/1000)*1000 + 1
		}
	case unitCentury:
		if year > 0 {
			year = (year+99)/100*100 - 99
		} else {
			year = -((99-(year-1))/100)*100 + 1
		}
	case unitDecade:
		if year > 0 {
			year = year / 10 * 10
		} else {
			year = -((8 - (year - 1)) / 10) * 10
		}
	case unitWeek:
		// The ISO week starts on Monday.
		year, month, day = civilFromDays(tm.days - weekdayFromMonday(tm.days))
		hour, minute, second, usec = 0, 0, 0, 0
	}
	switch u {
	case unitMillennium, unitCentury, unitDecade, unitYear:
		month = 1
		fallthrough
	case unitQuarter:
		month = 3*((month-1)/3) + 1
		fallthrough
	case unitMonth:
		day = 1
		fallthrough
	case unitDay:
		hour = 0
		fallthrough
	case unitHour:
		minute = 0
		fallthrough
	case unitMinute:
		second = 0
		fallthrough
	case unitSecond:
		usec = 0
	case unitMillisecond:
		usec = usec / 1000 * 1000
	case unitMicrosecond, unitWeek:
	default:
		return 0, errUnitNotSupported(name, t)
	}
	result, ok := joinTimestamp(year, month, day, hour, minute, second, usec)
	if !ok {
		return 0, errTimestampOutOfRange()
	}
	return result, nil
}

// extractField is what an EXTRACT unit resolved to.
type extractField struct {
	unit  unit
	epoch bool
}

// resolveExtractField looks the unit up as PostgreSQL does: the unit table,
// then the date keywords (where "epoch" lives, and "dow", "julian", ...).
func resolveExtractField(name string, t T) (extractField, error) {
	if u, ok := lookupUnit(name); ok {
		return extractField{unit: u}, nil
	}
	tok, ok := lookupDateToken(name)
	switch {
	case ok && tok.kind == tokenUnits:
		return extractField{unit: unit(tok.value)}, nil
	case ok && tok.kind == tokenReserved && tok.value == reservedEpoch:
		return extractField{epoch: true}, nil
	case ok && tok.kind == tokenReserved: // infinity, now, ...
		return extractField{}, errUnitNotSupported(name, t)
	}
	return extractField{}, errUnitNotRecognized(name, t)
}

// increasesWithTime reports the fields that an infinite date or timestamp
// has as an infinity; the others (day of month, hour, ...) are NULL.
func (f extractField) increasesWithTime() bool {
	if f.epoch {
		return true
	}
	switch f.unit {
	case unitYear, unitDecade, unitCentury, unitMillennium, unitJulian, unitISOYear:
		return true
	}
	return false
}

// Extract is EXTRACT(field FROM v) for date (v int32), timestamp and
// timestamptz (v int64), returning numeric as PostgreSQL 14+ does: seconds
// and epoch of timestamps have scale 6, milliseconds scale 3, julian of a
// timestamp is a numeric division, everything else is an integer. Fields
// that oscillate (day, hour, ...) of an infinite value are SQL NULL,
// returned as nil; increasing ones (year, epoch, ...) are ±Infinity.
func Extract(field string, t T, v any) (*apd.Decimal, error) {
	if t.ID != Date && t.ID != Timestamp && t.ID != TimestampTZ {
		return nil, pgerr.Internal("extract is not defined for type %s", t)
	}
	name := normalizeUnitName(field)
	f, err := resolveExtractField(name, t)
	if err != nil {
		return nil, err
	}
	if t.ID == Date {
		return extractFromDate(f, name, t, asDate(v))
	}
	return extractFromTimestamp(f, name, t, asInt64(v))
}

// DateField resolves an extract / date_part field of a date to the
// whole number it gives for a finite date (day number since 1970), for
// kernels that compute it per row without Extract's decimal; ok is
// false for a field Extract must handle (epoch, or one it rejects).
// Infinite dates are the caller's to send to Extract.
func DateField(field string) (fn func(days int32) int64, ok bool) {
	f, err := resolveExtractField(normalizeUnitName(field), DateT)
	if err != nil || f.epoch {
		return nil, false
	}
	if !calendarUnit(f.unit) {
		return nil, false
	}
	u := f.unit
	return func(days int32) int64 { return calendarField(u, int64(days)) }, true
}

// calendarUnit reports whether a date's field u is calendarField's: a
// whole number of the calendar date.
func calendarUnit(u unit) bool {
	switch u {
	case unitDay, unitMonth, unitQuarter, unitWeek, unitYear, unitDecade, unitCentury, unitMillennium,
		unitJulian, unitISOYear, unitDayOfWeek, unitISODayOfWeek, unitDayOfYear:
		return true
	}
	return false
}

func extractFromDate(f extractField, name string, t T, days int32) (*apd.Decimal, error) {
	if days == DateNegInfinity || days == DatePosInfinity {
		if f.increasesWithTime() {
			return newInfinity(days == DateNegInfinity), nil
		}
		switch f.unit {
		case unitDay, unitMonth, unitQuarter, unitWeek, unitDayOfWeek, unitISODayOfWeek, unitDayOfYear:
			return nil, nil
		}
		return nil, errUnitNotSupported(name, t)
	}
	if f.epoch {
		return NumericFromInt64(int64(days) * secsPerDay), nil
	}
	if calendarUnit(f.unit) {
		return NumericFromInt64(calendarField(f.unit, int64(days))), nil
	}
	return nil, errUnitNotSupported(name, t)
}

func extractFromTimestamp(f extractField, name string, t T, v int64) (*apd.Decimal, error) {
	if v == TimestampNegInfinity || v == TimestampPosInfinity {
		if f.increasesWithTime() {
			return newInfinity(v == TimestampNegInfinity), nil
		}
		return nil, nil
	}
	if f.epoch {
		return buildNumeric(new(apd.BigInt).SetInt64(v), 6), nil
	}
	tm := splitTimestamp(v)
	secondsInUsec := tm.second*usecsPerSec + tm.usec
	switch f.unit {
	case unitMicrosecond:
		return NumericFromInt64(secondsInUsec), nil
	case unitMillisecond:
		return buildNumeric(new(apd.BigInt).SetInt64(secondsInUsec), 3), nil
	case unitSecond:
		return buildNumeric(new(apd.BigInt).SetInt64(secondsInUsec), 6), nil
	case unitMinute:
		return NumericFromInt64(tm.minute), nil
	case unitHour:
		return NumericFromInt64(tm.hour), nil
	case unitJulian:
		// The Julian day plus the fraction of the day, by numeric division.
		timeOfDay := NumericFromInt64(v - tm.days*usecsPerDay)
		fraction, err := NumericDiv(timeOfDay, NumericFromInt64(usecsPerDay))
		if err != nil {
			return nil, err
		}
		return NumericAdd(NumericFromInt64(tm.days+unixEpochJulian), fraction)
	case unitDay, unitMonth, unitQuarter, unitWeek, unitYear, unitDecade, unitCentury, unitMillennium,
		unitISOYear, unitDayOfWeek, unitISODayOfWeek, unitDayOfYear:
		return NumericFromInt64(calendarField(f.unit, tm.days)), nil
	case unitTimezone, unitTimezoneHour, unitTimezoneMinute:
		if t.ID == TimestampTZ {
			return NumericFromInt64(0), nil // the session zone is UTC
		}
	}
	return nil, errUnitNotSupported(name, t)
}

// calendarField computes a date-based EXTRACT field of a day (days since
// 1970-01-01). Years are reported without a year 0: 1 BC is -1.
func calendarField(u unit, days int64) int64 {
	year, month, day := civilFromDays(days)
	switch u {
	case unitDay:
		return day
	case unitMonth:
		return month
	case unitQuarter:
		return (month-1)/3 + 1
	case unitWeek:
		_, week := isoWeek(days)
		return week
	case unitYear:
		if year > 0 {
			return year
		}
		return year - 1
	case unitDecade:
		if year >= 0 {
			return year / 10
		}
		return -((8 - (year - 1)) / 10)
	case unitCentury:
		if year > 0 {
			return (year + 99) / 100
		}
		return -((99 - (year - 1)) / 100)
	case unitMillennium:
		if year > 0 {
			return (year + 999) / 1000
		}
		return -((999 - (year - 1)) / 1000)
	case unitJulian:
		return days + unixEpochJulian
	case unitISOYear:
		isoYear, _ := isoWeek(days)
		if isoYear <= 0 {
			return isoYear - 1
		}
		return isoYear
	case unitDayOfWeek:
		return floorMod(days+4, 7) // Sunday is 0; 1970-01-01 was a Thursday
	case unitISODayOfWeek:
		return weekdayFromMonday(days) + 1
	case unitDayOfYear:
		return days - daysFromCivil(year, 1, 1) + 1
	}
	panic("types: not a calendar field")
}
