package types

import (
	"math"

	"github.com/pgfed/pgfed/pgerr"
)

// Infinite dates and timestamps (PostgreSQL's 'infinity' and '-infinity')
// are the extreme values of the datum types.
const (
	DateNegInfinity      int32 = math.MinInt32
	DatePosInfinity      int32 = math.MaxInt32
	TimestampNegInfinity int64 = math.MinInt64
	TimestampPosInfinity int64 = math.MaxInt64
)

const (
	usecsPerSec    = 1_000_000
	usecsPerMinute = 60 * usecsPerSec
	usecsPerHour   = 60 * usecsPerMinute
	usecsPerDay    = 24 * usecsPerHour
	secsPerDay     = 86_400

	// unixEpochJulian is the Julian day number of 1970-01-01.
	unixEpochJulian = 2440588

	// Dates run from Julian day 0 (4714-11-24 BC) to 5874897-12-31, as in
	// PostgreSQL; here they count days from 1970-01-01.
	minDateDays = -unixEpochJulian
	endDateDays = 2147483494 - unixEpochJulian // 5874898-01-01, exclusive

	// Timestamps also start at Julian day 0. PostgreSQL's end is
	// 294277-01-01, but int64 microseconds since 1970 (rather than since
	// 2000, as PostgreSQL counts) run out first, in 292277, so the end here
	// is the largest int64, which doubles as +infinity.
	minTimestamp = minDateDays * usecsPerDay
	// maxTimestampDays is the last date whose midnight is a valid timestamp.
	maxTimestampDays = (math.MaxInt64 - 1) / usecsPerDay
)

// validTimestamp reports whether v is a finite timestamp within range.
func validTimestamp(v int64) bool { return v >= minTimestamp && v < math.MaxInt64 }

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date (astronomical year numbering: year 0 is 1 BC), using 400-year eras
// of 146097 days that start on March 1 so leap days fall at era ends.
func daysFromCivil(year, month, day int64) int64 {
	if month <= 2 {
		year--
	}
	era := floorDiv(year, 400)
	yearOfEra := year - era*400
	marchBasedMonth := (month + 9) % 12
	dayOfYear := (153*marchBasedMonth+2)/5 + day - 1
	dayOfEra := yearOfEra*365 + yearOfEra/4 - yearOfEra/100 + dayOfYear
	const daysFromEraStartToUnixEpoch = 719468 // 0000-03-01 to 1970-01-01
	return era*146097 + dayOfEra - daysFromEraStartToUnixEpoch
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(days int64) (year, month, day int64) {
	days += 719468
	era := floorDiv(days, 146097)
	dayOfEra := days - era*146097
	yearOfEra := (dayOfEra - dayOfEra/1460 + dayOfEra/36524 - dayOfEra/146096) / 365
	dayOfYear := dayOfEra - (365*yearOfEra + yearOfEra/4 - yearOfEra/100)
	marchBasedMonth := (5*dayOfYear + 2) / 153
	day = dayOfYear - (153*marchBasedMonth+2)/5 + 1
	month = marchBasedMonth + 3
	if month > 12 {
		month -= 12
	}
	year = yearOfEra + era*400
	if month <= 2 {
		year++
	}
	return year, month, day
}

func isLeapYear(year int64) bool {
	return year%4 == 0 && (year%100 != 0 || year%400 == 0)
}

var daysInMonth = [2][12]int64{
	{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
	{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
}

func monthLength(year, month int64) int64 {
	leap := 0
	if isLeapYear(year) {
		leap = 1
	}
	return daysInMonth[leap][month-1]
}

// validJulianDate is PostgreSQL's IS_VALID_JULIAN: the date is no earlier
// than November 4714 BC and before June 5874898 (days are checked later).
func validJulianDate(year, month int64) bool {
	return (year > -4713 || (year == -4713 && month >= 11)) &&
		(year < 5874898 || (year == 5874898 && month < 6))
}

// appendYearMonthDay writes YYYY-MM-DD with BC years as positive numbers
// (1 BC is year 0 astronomically); the caller adds " BC".
func appendYearMonthDay(buf []byte, year, month, day int64) []byte {
	if year <= 0 {
		year = 1 - year
	}
	buf = appendZeroPadded(buf, year, 4)
	buf = append(buf, '-')
	buf = appendZeroPadded(buf, month, 2)
	buf = append(buf, '-')
	return appendZeroPadded(buf, day, 2)
}

// appendZeroPadded writes non-negative v with at least width digits.
func appendZeroPadded(buf []byte, v int64, width int) []byte {
	var digits [20]byte
	i := len(digits)
	for v >= 10 || width > 1 {
		i--
		digits[i] = byte('0' + v%10)
		v /= 10
		width--
	}
	i--
	digits[i] = byte('0' + v)
	return append(buf, digits[i:]...)
}

// appendDate writes date_out's ISO form: 2024-01-15, 0044-03-15 BC,
// infinity, -infinity.
func appendDate(buf []byte, days int32) []byte {
	switch days {
	case DateNegInfinity:
		return append(buf, "-infinity"...)
	case DatePosInfinity:
		return append(buf, "infinity"...)
	}
	year, month, day := civilFromDays(int64(days))
	buf = appendYearMonthDay(buf, year, month, day)
	if year <= 0 {
		buf = append(buf, " BC"...)
	}
	return buf
}

// appendTimestamp writes timestamp_out's ISO form, YYYY-MM-DD HH:MM:SS with
// a fraction only when non-zero and without trailing zeros; withZone adds
// the UTC offset "+00" (before " BC").
func appendTimestamp(buf []byte, v int64, withZone bool) []byte {
	switch v {
	case TimestampNegInfinity:
		return append(buf, "-infinity"...)
	case TimestampPosInfinity:
		return append(buf, "infinity"...)
	}
	days := floorDiv(v, usecsPerDay)
	timeOfDay := v - days*usecsPerDay
	year, month, day := civilFromDays(days)
	buf = appendYearMonthDay(buf, year, month, day)
	buf = append(buf, ' ')
	buf = appendZeroPadded(buf, timeOfDay/usecsPerHour, 2)
	buf = append(buf, ':')
	buf = appendZeroPadded(buf, timeOfDay/usecsPerMinute%60, 2)
	buf = append(buf, ':')
	buf = appendZeroPadded(buf, timeOfDay/usecsPerSec%60, 2)
	if fraction := timeOfDay % usecsPerSec; fraction != 0 {
		buf = append(buf, '.')
		width := 6
		for fraction%10 == 0 {
			fraction /= 10
			width--
		}
		buf = appendZeroPadded(buf, fraction, width)
	}
	if withZone {
		buf = append(buf, "+00"...)
	}
	if year <= 0 {
		buf = append(buf, " BC"...)
	}
	return buf
}

// DatePlusDays is date_pli (and date_mii with days negated): an infinite
// date stays as it is; a result outside the date range is 22008 "date out
// of range".
func DatePlusDays(date int32, days int64) (int32, error) {
	if date == DateNegInfinity || date == DatePosInfinity {
		return date, nil
	}
	r := int64(date) + days
	if r < minDateDays || r >= endDateDays {
		return 0, errDateOutOfRange()
	}
	return int32(r), nil
}

// DateMinusDate is date_mi, the number of days from b to a; infinite
// dates are 22008 "cannot subtract infinite dates".
func DateMinusDate(a, b int32) (int64, error) {
	if a == DateNegInfinity || a == DatePosInfinity || b == DateNegInfinity || b == DatePosInfinity {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "cannot subtract infinite dates")
	}
	return int64(a) - int64(b), nil
}

func errDateOutOfRange() error {
	return pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range")
}

// dateToTimestamp is the date to timestamp (and, at UTC, timestamptz) cast:
// midnight of the date; 22008 "date out of range for timestamp".
func dateToTimestamp(days int32) (int64, error) {
	switch days {
	case DateNegInfinity:
		return TimestampNegInfinity, nil
	case DatePosInfinity:
		return TimestampPosInfinity, nil
	}
	if int64(days) > maxTimestampDays {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range for timestamp")
	}
	return int64(days) * usecsPerDay, nil
}

// timestampToDate is the timestamp (or timestamptz at UTC) to date cast.
func timestampToDate(v int64) int32 {
	switch v {
	case TimestampNegInfinity:
		return DateNegInfinity
	case TimestampPosInfinity:
		return DatePosInfinity
	}
	return int32(floorDiv(v, usecsPerDay))
}

func errTimestampOutOfRange() error {
	return pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
}

// brokenDownTime is a finite timestamp split into calendar fields, like
// PostgreSQL's struct pg_tm plus fsec (year is astronomical: 0 is 1 BC).
type brokenDownTime struct {
	year, month, day     int64
	hour, minute, second int64
	usec                 int64
	days                 int64 // days since 1970-01-01
}

func splitTimestamp(v int64) brokenDownTime {
	days := floorDiv(v, usecsPerDay)
	timeOfDay := v - days*usecsPerDay
	var tm brokenDownTime
	tm.days = days
	tm.year, tm.month, tm.day = civilFromDays(days)
	tm.hour = timeOfDay / usecsPerHour
	tm.minute = timeOfDay / usecsPerMinute % 60
	tm.second = timeOfDay / usecsPerSec % 60
	tm.usec = timeOfDay % usecsPerSec
	return tm
}

// joinTimestamp is tm2timestamp without a zone: the fields back to
// microseconds, or false when outside the timestamp range.
func joinTimestamp(year, month, day, hour, minute, second, usec int64) (int64, bool) {
	return joinTimestampZone(year, month, day, hour, minute, second, usec, 0)
}

// joinTimestampZone is tm2timestamp with a zone offset: the local fields
// plus offsetSecs seconds (the zone's distance west of UTC). As in
// PostgreSQL, the range is checked on the result, after the zone moved it,
// so 4714-11-23 23:00:00-01 BC is the first valid timestamptz.
func joinTimestampZone(year, month, day, hour, minute, second, usec, offsetSecs int64) (int64, bool) {
	if !validJulianDate(year, month) {
		return 0, false
	}
	days := daysFromCivil(year, month, day)
	// Keep the multiplication below from overflowing.
	if days < minDateDays-1 || days > maxTimestampDays+1 {
		return 0, false
	}
	// PostgreSQL adds up the seconds of the day in a 32-bit int, which only
	// wraps for hours given as a labeled number ("h 20240115").
	secondOfDay := (int32(hour)*60+int32(minute))*60 + int32(second)
	v := days*usecsPerDay + int64(secondOfDay)*usecsPerSec + usec
	if days > 0 && v < 0 { // wrapped around past the largest int64
		return 0, false
	}
	// tm2timestamp refuses a time of day that carries the date across
	// PostgreSQL's epoch, 2000-01-01 (possible only with hours given as a
	// labeled number, "h 100000").
	const postgresEpochDays = 10957
	pgDays, pgValue := days-postgresEpochDays, v-postgresEpochDays*usecsPerDay
	if (pgValue < 0 && pgDays > 0) || (pgValue > 0 && pgDays < -1) {
		return 0, false
	}
	offset := offsetSecs * usecsPerSec
	if (offset > 0 && v > math.MaxInt64-offset) || (offset < 0 && v < math.MinInt64-offset) {
		return 0, false
	}
	v += offset
	return v, validTimestamp(v)
}

// weekdayFromMonday is 0 for Monday through 6 for Sunday.
func weekdayFromMonday(days int64) int64 {
	return floorMod(days+3, 7) // 1970-01-01 was a Thursday
}

func floorMod(a, b int64) int64 {
	return a - floorDiv(a, b)*b
}

// isoWeek returns the ISO 8601 week-numbering year and week of a date: the
// week belongs to the year that holds its Thursday.
func isoWeek(days int64) (isoYear, week int64) {
	thursday := days - weekdayFromMonday(days) + 3
	isoYear, _, _ = civilFromDays(thursday)
	dayOfYear := thursday - daysFromCivil(isoYear, 1, 1)
	return isoYear, dayOfYear/7 + 1
}
