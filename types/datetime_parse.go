package types

import (
	"math"
	"strconv"
	"strings"

	"github.com/pgfed/pgfed/pgerr"
)

// Date and timestamp input follows PostgreSQL's datetime.c: the string is
// split into typed fields (ParseDateTime), then the fields are interpreted
// in context (DecodeDateTime), with DateStyle ISO, MDY and the session time
// zone UTC. 'now', 'today', 'tomorrow' and 'yesterday' need the transaction
// time, which this package does not know: they are refused with 0A000.

// fieldKind classifies a field the way ParseDateTime does.
type fieldKind uint8

const (
	fieldNumber  fieldKind = iota // digits, possibly with a decimal point
	fieldDate                     // digits with two delimiters, or text with punctuation (also zone names)
	fieldTime                     // digits with colons
	fieldString                   // letters only
	fieldSpecial                  // a sign followed by letters
	fieldZone                     // a sign followed by digits: a numeric time zone
)

type dateField struct {
	text string // lowercased
	kind fieldKind
}

const (
	maxDateFields = 25  // MAXDATEFIELDS
	maxDateLen    = 128 // MAXDATELEN: field text, with a terminator per field, must fit
)

// dtError is a DTERR_* code: why a date/time string was refused.
type dtError uint8

const (
	dtOK dtError = iota
	dtBadFormat
	dtFieldOverflow
	dtMonthDayOverflow // field overflow that hints at the wrong DateStyle
	dtZoneDisplacementOverflow
	dtUnknownZone
	dtNeedsCurrentTime
)

// parseError is DateTimeParseError: the message for err on input s of the
// named type. detail carries an unknown zone name or the 'now'-like word.
func parseError(err dtError, s, typeName, detail string) error {
	switch err {
	case dtFieldOverflow:
		return pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
	case dtMonthDayOverflow:
		return pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s).
			WithHint("Perhaps you need a different \"datestyle\" setting.")
	case dtZoneDisplacementOverflow:
		return pgerr.New(invalidTimeZoneDisplacement, "time zone displacement out of range: \"%s\"", s)
	case dtUnknownZone:
		return pgerr.New(pgerr.InvalidParameterValue, "time zone \"%s\" not recognized", detail)
	case dtNeedsCurrentTime:
		return pgerr.New(pgerr.FeatureNotSupported, "date/time value \"%s\" is not supported", detail)
	}
	return pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type %s: \"%s\"", typeName, s)
}

// splitDateFields is ParseDateTime.
func splitDateFields(s string) ([]dateField, dtError) {
	var fields []dateField
	used := 0 // bytes of PostgreSQL's work buffer taken so far
	var field []byte
	appendChar := func(c byte) bool {
		if used+1 >= maxDateLen+1 {
			return false
		}
		used++
		field = append(field, c)
		return true
	}
	i := 0
	for i < len(s) {
		c := s[i]
		if isSpace(c) {
			i++
			continue
		}
		if len(fields) >= maxDateFields {
			return nil, dtBadFormat
		}
		field = field[:0]
		var kind fieldKind
		ok := true
		switch {
		case isDigit(c):
			for i < len(s) && isDigit(s[i]) && ok {
				ok = appendChar(s[i])
				i++
			}
			switch {
			case i < len(s) && s[i] == ':':
				kind = fieldTime
				for i < len(s) && (isDigit(s[i]) || s[i] == ':' || s[i] == '.') && ok {
					ok = appendChar(s[i])
					i++
				}
			case i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.'):
				delim := s[i]
				ok = appendChar(delim)
				i++
				if i < len(s) && isDigit(s[i]) {
					kind = fieldDate
					if delim == '.' {
						kind = fieldNumber
					}
					for i < len(s) && isDigit(s[i]) && ok {
						ok = appendChar(s[i])
						i++
					}
					// Only matching delimiters make a three-part date.
					if i < len(s) && s[i] == delim {
						kind = fieldDate
						for i < len(s) && (isDigit(s[i]) || s[i] == delim) && ok {
							ok = appendChar(s[i])
							i++
						}
					}
				} else {
					kind = fieldDate
					for i < len(s) && (isDigit(s[i]) || isAlpha(s[i]) || s[i] == delim) && ok {
						ok = appendChar(toLowerASCII(s[i]))
						i++
					}
				}
			default:
				kind = fieldNumber
			}
		case c == '.':
			kind = fieldNumber
			ok = appendChar(c)
			i++
			for i < len(s) && isDigit(s[i]) && ok {
				ok = appendChar(s[i])
				i++
			}
		case isAlpha(c):
			kind = fieldString
			for i < len(s) && isAlpha(s[i]) && ok {
				ok = appendChar(toLowerASCII(s[i]))
				i++
			}
			// Text followed by punctuation or digits is a date with a
			// textual month or a zone name like america/new_york or gmt+8,
			// unless the text so far is a keyword such as "t" or "j".
			isDate := false
			if i < len(s) {
				switch {
				case s[i] == '-' || s[i] == '/' || s[i] == '.':
					isDate = true
				case s[i] == '+' || isDigit(s[i]):
					_, known := lookupDateToken(string(field))
					isDate = !known
				}
			}
			if isDate {
				kind = fieldDate
				for ok {
					ok = appendChar(toLowerASCII(s[i]))
					i++
					if i >= len(s) || !(strings.IndexByte("+-/_.:", s[i]) >= 0 || isDigit(s[i]) || isAlpha(s[i])) {
						break
					}
				}
			}
		case c == '+' || c == '-':
			ok = appendChar(c)
			i++
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			switch {
			case i < len(s) && isDigit(s[i]):
				kind = fieldZone
				for i < len(s) && (isDigit(s[i]) || s[i] == ':' || s[i] == '.' || s[i] == '-') && ok {
					ok = appendChar(s[i])
					i++
				}
			case i < len(s) && isAlpha(s[i]):
				kind = fieldSpecial
				for i < len(s) && isAlpha(s[i]) && ok {
					ok = appendChar(toLowerASCII(s[i]))
					i++
				}
			default:
				return nil, dtBadFormat
			}
		case isPunct(c):
			i++ // other punctuation only separates fields
			continue
		default:
			return nil, dtBadFormat
		}
		if !ok {
			return nil, dtBadFormat
		}
		used++ // the field's terminator
		fields = append(fields, dateField{text: string(field), kind: kind})
	}
	return fields, dtOK
}

// isPunct is C's ispunct in the C locale.
func isPunct(c byte) bool {
	return c > ' ' && c < 0x7f && !isDigit(c) && !isAlpha(c)
}

// Bits of the field mask DecodeDateTime uses to refuse repeated fields.
type fieldMask uint32

const (
	maskYear fieldMask = 1 << iota
	maskMonth
	maskDay
	maskHour
	maskMinute
	maskSecond
	maskMillisecond
	maskMicrosecond
	maskDayOfYear
	maskWeekday
	maskZone
	maskDSTZone
	maskDSTModifier
	maskMeridian
	maskEra
	maskReserved

	maskDate    = maskYear | maskMonth | maskDay
	maskTime    = maskHour | maskMinute | maskSecond | maskMillisecond | maskMicrosecond
	maskAllSecs = maskSecond | maskMillisecond | maskMicrosecond
)

// dtValue is what a date/time string denotes.
type dtValue uint8

const (
	dtCalendar dtValue = iota // a date and time in the fields
	dtEpoch
	dtInfinity
	dtNegInfinity
)

const (
	meridian24 = iota
	meridianAM
	meridianPM
)

// dtDecoder holds DecodeDateTime's state and results (a struct pg_tm, fsec
// and the zone offset).
type dtDecoder struct {
	value                dtValue
	year, month, day     int64 // year as typed until validate; then astronomical
	hour, minute, second int64
	usec                 int64
	dayOfYear            int64
	// zone is the UTC offset in PostgreSQL's sign convention: seconds
	// west of Greenwich, so UTC = local + zone.
	zone int64

	fmask         fieldMask
	prefix        unit // a unit label ("j", "y", "t", ...) waiting for its number
	haveTextMonth bool
	isJulian      bool
	is2Digits     bool
	bc            bool
	meridian      int
	namedZone     *zoneRules
	// errDetail names the unknown zone, or the word needing the current
	// time ('now', 'today', ...), behind an error.
	errDetail        string
	needsCurrentTime bool
}

// decodeDateTime is DecodeDateTime for date, timestamp and timestamptz
// input (all of which accept a time zone). The decoder is returned even on
// error: errDetail names an unknown zone or a 'now'-like word.
func decodeDateTime(fields []dateField) (*dtDecoder, dtError) {
	d := &dtDecoder{}
	for i, f := range fields {
		var tmask fieldMask
		var err dtError
		switch f.kind {
		case fieldDate:
			tmask, err = d.decodeDateField(f.text)
		case fieldTime:
			if d.prefix != unitNone {
				if d.prefix != unitISOTime {
					return d, dtBadFormat
				}
				d.prefix = unitNone
			}
			tmask, err = d.decodeTime(f.text)
			if err == dtOK && timeOverflows(d.hour, d.minute, d.second, d.usec) {
				err = dtFieldOverflow
			}
		case fieldZone:
			var zone int64
			zone, err = decodeZoneOffset(f.text)
			d.zone = zone
			tmask = maskZone
		case fieldNumber:
			tmask, err = d.decodeNumberField(f.text)
		case fieldString, fieldSpecial:
			var skip bool
			tmask, skip, err = d.decodeWord(f.text, fields[i+1:])
			if skip {
				continue
			}
		default:
			err = dtBadFormat
		}
		if err != dtOK {
			return d, err
		}
		if tmask&d.fmask != 0 {
			return d, dtBadFormat
		}
		d.fmask |= tmask
	}
	// PostgreSQL 15 lets a unit label go unused ("1999-01-08 m"), and
	// checks the date fields even when a special value such as 'epoch' won.
	if d.needsCurrentTime && d.value == dtCalendar {
		return d, dtNeedsCurrentTime
	}
	if err := d.validateDate(); err != dtOK {
		return d, err
	}
	if d.meridian != meridian24 && d.hour > 12 {
		return d, dtFieldOverflow
	}
	if d.meridian == meridianAM && d.hour == 12 {
		d.hour = 0
	} else if d.meridian == meridianPM && d.hour != 12 {
		d.hour += 12
	}
	if d.value != dtCalendar {
		return d, dtOK
	}
	// A time without a date is not a timestamp (nor a date).
	if d.fmask&maskDate != maskDate {
		return d, dtBadFormat
	}
	if d.namedZone != nil {
		if d.fmask&maskDSTModifier != 0 {
			return d, dtBadFormat
		}
		d.zone = d.namedZone.offsetForLocal(d.year, d.month, d.day, d.hour, d.minute, d.second)
	}
	if d.fmask&maskZone == 0 {
		if d.fmask&maskDSTModifier != 0 {
			return d, dtBadFormat
		}
		d.zone = 0 // the session time zone is UTC
	}
	return d, dtOK
}

// decodeDateField handles a fieldDate: a date, or after a complete date a
// zone name or a run-together time with a zone (hhmmss-zz).
func (d *dtDecoder) decodeDateField(text string) (fieldMask, dtError) {
	if d.prefix == unitJulian {
		jday, rest, overflow := strtoint(text)
		if overflow || jday < 0 {
			return 0, dtFieldOverflow
		}
		d.setJulianDay(jday)
		zone, err := decodeZoneOffset(rest)
		if err != dtOK {
			return 0, err
		}
		d.zone = zone
		d.prefix = unitNone
		return maskDate | maskTime | maskZone, dtOK
	}
	if d.prefix == unitNone && d.fmask&(maskMonth|maskDay) != maskMonth|maskDay {
		return d.decodeDate(text, d.fmask)
	}
	if isDigit(text[0]) || d.prefix != unitNone {
		if d.prefix != unitNone {
			if d.prefix != unitISOTime {
				return 0, dtBadFormat
			}
			d.prefix = unitNone
		}
		if d.fmask&maskTime == maskTime {
			return 0, dtBadFormat
		}
		dash := strings.IndexByte(text, '-')
		if dash < 0 {
			return 0, dtBadFormat
		}
		zone, err := decodeZoneOffset(text[dash:])
		if err != dtOK {
			return 0, err
		}
		d.zone = zone
		tmask, err := d.decodeRunTogether(text[:dash], d.fmask)
		if err != dtOK {
			return 0, err
		}
		return tmask | maskZone, dtOK
	}
	zone := lookupZone(text)
	if zone == nil {
		d.errDetail = text
		return 0, dtUnknownZone
	}
	d.namedZone = zone
	return maskZone, dtOK
}

// decodeNumberField handles a fieldNumber.
func (d *dtDecoder) decodeNumberField(text string) (fieldMask, dtError) {
	if d.prefix != unitNone {
		return d.decodeLabeledNumber(text)
	}
	point := strings.IndexByte(text, '.')
	switch {
	case point >= 0 && d.fmask&maskDate == 0:
		// yyyy.ddd or yyyy.mm.dd
		return d.decodeDate(text, d.fmask)
	case point > 2:
		// A run-together date or time with a fraction: 20011225.5, 040506.789
		return d.decodeRunTogether(text, d.fmask)
	case len(text) >= 6 && (d.fmask&maskDate == 0 || d.fmask&maskTime == 0):
		// yyyymmdd or hhmmss; five digits or fewer is a year or the like.
		return d.decodeRunTogether(text, d.fmask)
	}
	return d.decodeNumber(text, d.haveTextMonth, d.fmask)
}

// decodeLabeledNumber handles a number after a unit label: PostgreSQL 15's
// ISO 8601 "y2001m02d04", Julian days "J2451545", and times after "T".
func (d *dtDecoder) decodeLabeledNumber(text string) (fieldMask, dtError) {
	val, rest, overflow := strtoint(text)
	if overflow {
		return 0, dtFieldOverflow
	}
	if rest != "" {
		if rest[0] != '.' {
			return 0, dtBadFormat
		}
		if d.prefix != unitJulian && d.prefix != unitISOTime && d.prefix != unitSecond {
			return 0, dtBadFormat
		}
	}
	var tmask fieldMask
	switch d.prefix {
	case unitYear:
		d.year, tmask = val, maskYear
	case unitMonth:
		// After a month and an hour, "m" means minutes.
		if d.fmask&maskMonth != 0 && d.fmask&maskHour != 0 {
			d.minute, tmask = val, maskMinute
		} else {
			d.month, tmask = val, maskMonth
		}
	case unitDay:
		d.day, tmask = val, maskDay
	case unitHour:
		d.hour, tmask = val, maskHour
	case unitMinute:
		d.minute, tmask = val, maskMinute
	case unitSecond:
		d.second, tmask = val, maskSecond
		if rest != "" {
			usec, err := parseFractionalSecond(rest)
			if err != dtOK {
				return 0, err
			}
			d.usec, tmask = usec, maskAllSecs
		}
	case unitJulian:
		if val < 0 {
			return 0, dtFieldOverflow
		}
		d.setJulianDay(val)
		tmask = maskDate
		if rest != "" {
			fraction, err := parseFraction(rest)
			if err != dtOK {
				return 0, err
			}
			// The fraction of a day, truncated to microseconds (dt2time).
			timeOfDay := int64(fraction * usecsPerDay)
			d.hour = timeOfDay / usecsPerHour
			d.minute = timeOfDay / usecsPerMinute % 60
			d.second = timeOfDay / usecsPerSec % 60
			d.usec = timeOfDay % usecsPerSec
			tmask |= maskTime
		}
	case unitISOTime:
		var err dtError
		tmask, err = d.decodeRunTogether(text, d.fmask|maskDate)
		if err != dtOK {
			return 0, err
		}
		if tmask != maskTime {
			return 0, dtBadFormat
		}
	default:
		return 0, dtBadFormat
	}
	d.prefix = unitNone
	d.value = dtCalendar
	return tmask, dtOK
}

func (d *dtDecoder) setJulianDay(jday int64) {
	d.year, d.month, d.day = civilFromDays(jday - unixEpochJulian)
	d.isJulian = true
}

// decodeWord handles a fieldString or fieldSpecial: zone abbreviations
// first, then the keywords of datetktbl, then all-letter zone names. skip
// reports a word to ignore ("at", "on").
func (d *dtDecoder) decodeWord(text string, following []dateField) (tmask fieldMask, skip bool, err dtError) {
	if abbrev, ok := lookupZoneAbbrev(text); ok {
		d.zone = -abbrev.offset
		if abbrev.dst {
			return maskDSTZone | maskZone, false, dtOK
		}
		return maskZone, false, dtOK
	}
	tok, known := lookupDateToken(text)
	if !known {
		zone := lookupZone(text)
		if zone == nil {
			return 0, false, dtBadFormat
		}
		d.namedZone = zone
		return maskZone, false, dtOK
	}
	switch tok.kind {
	case tokenIgnore:
		return 0, true, dtOK
	case tokenReserved:
		switch tok.value {
		// In PostgreSQL 15 these only clash with one another; whatever
		// else the string holds is decoded and then ignored.
		case reservedEpoch:
			d.value = dtEpoch
			return maskReserved, false, dtOK
		case reservedInfinity:
			d.value = dtInfinity
			return maskReserved, false, dtOK
		case reservedNegInfinity:
			d.value = dtNegInfinity
			return maskReserved, false, dtOK
		case reservedAllBalls:
			d.value = dtCalendar
			d.hour, d.minute, d.second = 0, 0, 0
			d.zone = 0
			return maskTime | maskZone, false, dtOK
		case reservedNow:
			d.value, d.needsCurrentTime, d.errDetail = dtCalendar, true, text
		default: // today, tomorrow, yesterday
			d.value, d.needsCurrentTime, d.errDetail = dtCalendar, true, text
			return maskDate, false, dtOK
		}
		return maskDate | maskTime | maskZone, false, dtOK
	case tokenMonth:
		tmask = maskMonth
		// A numeric "month" already seen without a day was really the day.
		if d.fmask&maskMonth != 0 && !d.haveTextMonth && d.fmask&maskDay == 0 && d.month >= 1 && d.month <= 31 {
			d.day = d.month
			tmask = maskDay
		}
		d.haveTextMonth = true
		d.month = int64(tok.value)
		return tmask, false, dtOK
	case tokenDSTModifier:
		d.zone -= int64(tok.value)
		return maskDSTModifier | maskDSTZone, false, dtOK
	case tokenMeridian:
		d.meridian = tok.value
		return maskMeridian, false, dtOK
	case tokenEra:
		d.bc = tok.value == eraBC
		return maskEra, false, dtOK
	case tokenWeekday:
		return maskWeekday, false, dtOK // checked against nothing, as in PostgreSQL
	case tokenUnits:
		d.prefix = unit(tok.value)
		return 0, false, dtOK
	case tokenISOTime:
		// "T" between date and time: needs a complete date before it and
		// a time-like field after it.
		if d.fmask&maskDate != maskDate {
			return 0, false, dtBadFormat
		}
		if len(following) == 0 || (following[0].kind != fieldNumber && following[0].kind != fieldTime && following[0].kind != fieldDate) {
			return 0, false, dtBadFormat
		}
		d.prefix = unitISOTime
		return 0, false, dtOK
	}
	return 0, false, dtBadFormat
}

// decodeDate is DecodeDate: a date with delimiters, its parts split at any
// non-alphanumeric character; a textual month is found first.
func (d *dtDecoder) decodeDate(text string, fmask fieldMask) (fieldMask, dtError) {
	var parts []string
	i := 0
	for i < len(text) && len(parts) < maxDateFields {
		for i < len(text) && !isDigit(text[i]) && !isAlpha(text[i]) {
			i++
		}
		if i >= len(text) {
			return 0, dtBadFormat // a separator at the end
		}
		start := i
		if isDigit(text[i]) {
			for i < len(text) && isDigit(text[i]) {
				i++
			}
		} else {
			for i < len(text) && isAlpha(text[i]) {
				i++
			}
		}
		parts = append(parts, text[start:i])
		// PostgreSQL overwrites the character after each part with the
		// terminator, whatever it is.
		if i < len(text) {
			i++
		}
	}
	var tmask fieldMask
	haveTextMonth := false
	numeric := parts[:0:0]
	for _, part := range parts {
		if !isAlpha(part[0]) {
			numeric = append(numeric, part)
			continue
		}
		tok, ok := lookupDateToken(part)
		if ok && tok.kind == tokenIgnore {
			// Not marked as done, so it fails as a number below.
			numeric = append(numeric, part)
			continue
		}
		if !ok || tok.kind != tokenMonth || fmask&maskMonth != 0 {
			return 0, dtBadFormat
		}
		d.month = int64(tok.value)
		haveTextMonth = true
		fmask |= maskMonth
		tmask |= maskMonth
	}
	for _, part := range numeric {
		dmask, err := d.decodeNumber(part, haveTextMonth, fmask)
		if err != dtOK {
			return 0, err
		}
		if fmask&dmask != 0 {
			return 0, dtBadFormat
		}
		fmask |= dmask
		tmask |= dmask
	}
	if fmask&^(maskDayOfYear|maskZone) != maskDate {
		return 0, dtBadFormat
	}
	return tmask, dtOK
}

// decodeNumber is DecodeNumber: a plain number read as year, month or day
// from what has been seen so far and DateStyle MDY.
func (d *dtDecoder) decodeNumber(text string, haveTextMonth bool, fmask fieldMask) (fieldMask, dtError) {
	val, rest, overflow := strtoint(text)
	if overflow {
		return 0, dtFieldOverflow
	}
	if len(rest) == len(text) {
		return 0, dtBadFormat
	}
	if rest != "" {
		if rest[0] != '.' {
			return 0, dtBadFormat
		}
		// More than two digits before a point: a date or run-together time.
		if len(text)-len(rest) > 2 {
			return d.decodeRunTogether(text, fmask|maskDate)
		}
		usec, err := parseFractionalSecond(rest)
		if err != dtOK {
			return 0, err
		}
		d.usec = usec
	}
	// Three digits after a year is the day of the year.
	if len(text) == 3 && fmask&maskDate == maskYear && val >= 1 && val <= 366 {
		d.dayOfYear = val
		return maskDayOfYear | maskMonth | maskDay, dtOK
	}
	var tmask fieldMask
	switch fmask & maskDate {
	case 0:
		// Either YYYY-MM-DD with a year of three or more digits, or the
		// DateStyle order, which is MDY.
		if len(text) >= 3 {
			d.year, tmask = val, maskYear
		} else {
			d.month, tmask = val, maskMonth
		}
	case maskYear:
		d.month, tmask = val, maskMonth
	case maskMonth:
		if haveTextMonth && len(text) >= 3 {
			d.year, tmask = val, maskYear
		} else {
			d.day, tmask = val, maskDay
		}
	case maskYear | maskMonth:
		if haveTextMonth && len(text) >= 3 && d.is2Digits {
			// DD-MON-YYYY: the number taken for a year was the day.
			d.day = d.year
			d.year = val
			d.is2Digits = false
		} else {
			d.day = val
		}
		tmask = maskDay
	case maskDay:
		d.month, tmask = val, maskMonth
	case maskMonth | maskDay:
		d.year, tmask = val, maskYear
	case maskDate:
		return d.decodeRunTogether(text, fmask)
	default:
		return 0, dtBadFormat
	}
	if tmask == maskYear {
		d.is2Digits = len(text) <= 2
	}
	return tmask, dtOK
}

// decodeRunTogether is DecodeNumberField: digits that hold a whole date
// (yyyymmdd, yymmdd) or time (hhmmss, hhmm), maybe with a fraction of a
// second.
func (d *dtDecoder) decodeRunTogether(text string, fmask fieldMask) (fieldMask, dtError) {
	for i := 0; i < len(text); i++ {
		if !isDigit(text[i]) && text[i] != '.' {
			return 0, dtBadFormat
		}
	}
	if point := strings.IndexByte(text, '.'); point >= 0 {
		usec, err := parseFractionalSecond(text[point:])
		if err != dtOK {
			return 0, err
		}
		d.usec = usec
		text = text[:point]
	} else if fmask&maskDate != maskDate && len(text) >= 6 {
		n := len(text)
		d.day = atoi(text[n-2:])
		d.month = atoi(text[n-4 : n-2])
		d.year = atoi(text[:n-4])
		if n-4 == 2 {
			d.is2Digits = true
		}
		return maskDate, dtOK
	}
	if fmask&maskTime != maskTime {
		switch len(text) {
		case 6:
			d.hour, d.minute, d.second = atoi(text[:2]), atoi(text[2:4]), atoi(text[4:])
			return maskTime, dtOK
		case 4:
			d.hour, d.minute, d.second = atoi(text[:2]), atoi(text[2:]), 0
			return maskTime, dtOK
		}
	}
	return 0, dtBadFormat
}

// decodeTime is DecodeTime: hh:mm, hh:mm:ss, hh:mm:ss.fff, or mm:ss.fff.
func (d *dtDecoder) decodeTime(text string) (fieldMask, dtError) {
	hour, rest, overflow := strtoint(text)
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
	var second, usec int64
	switch {
	case rest == "":
	case rest[0] == '.':
		// Two fields with a fraction are minutes and seconds.
		var err dtError
		if usec, err = parseFractionalSecond(rest); err != dtOK {
			return 0, err
		}
		hour, minute, second = 0, hour, minute
	case rest[0] == ':':
		second, rest, overflow = strtoint(rest[1:])
		if overflow {
			return 0, dtFieldOverflow
		}
		if rest != "" {
			if rest[0] != '.' {
				return 0, dtBadFormat
			}
			var err dtError
			if usec, err = parseFractionalSecond(rest); err != dtOK {
				return 0, err
			}
		}
	default:
		return 0, dtBadFormat
	}
	if hour < 0 || minute < 0 || minute > 59 || second < 0 || second > 60 || usec < 0 || usec > usecsPerSec {
		return 0, dtFieldOverflow
	}
	d.hour, d.minute, d.second, d.usec = hour, minute, second, usec
	return maskTime, dtOK
}

// timeOverflows allows 24:00:00 and a leap second 60, but nothing past the
// end of the day.
func timeOverflows(hour, minute, second, usec int64) bool {
	if hour < 0 || hour > 24 || minute < 0 || minute > 59 || second < 0 || second > 60 || usec < 0 || usec > usecsPerSec {
		return true
	}
	return ((hour*60+minute)*60+second)*usecsPerSec+usec > usecsPerDay
}

// parseFraction reads "." followed by digits as a fraction in [0, 1).
func parseFraction(text string) (float64, dtError) {
	if text == "." {
		return 0, dtOK
	}
	for i := 1; i < len(text); i++ {
		if !isDigit(text[i]) {
			return 0, dtBadFormat
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return 0, dtBadFormat
	}
	return f, dtOK
}

// parseFractionalSecond reads a fraction of a second as microseconds,
// rounding half to even on the double value as PostgreSQL's rint does.
func parseFractionalSecond(text string) (int64, dtError) {
	f, err := parseFraction(text)
	if err != dtOK {
		return 0, err
	}
	return int64(math.RoundToEven(f * usecsPerSec)), dtOK
}

// decodeZoneOffset is DecodeTimezone: +hh, +hhmm, +hh:mm or +hh:mm:ss (or
// with -), returned in PostgreSQL's sign convention (seconds west).
func decodeZoneOffset(text string) (int64, dtError) {
	if text == "" || (text[0] != '+' && text[0] != '-') {
		return 0, dtBadFormat
	}
	hour, rest, overflow := strtoint(text[1:])
	if overflow {
		return 0, dtZoneDisplacementOverflow
	}
	var minute, second int64
	switch {
	case rest != "" && rest[0] == ':':
		if minute, rest, overflow = strtoint(rest[1:]); overflow {
			return 0, dtZoneDisplacementOverflow
		}
		if rest != "" && rest[0] == ':' {
			if second, rest, overflow = strtoint(rest[1:]); overflow {
				return 0, dtZoneDisplacementOverflow
			}
		}
	case rest == "" && len(text) > 3:
		// Run together: +hhmm.
		hour, minute = hour/100, hour%100
	}
	const maxZoneHours = 15 // MAX_TZDISP_HOUR
	if hour < 0 || hour > maxZoneHours || minute < 0 || minute >= 60 || second < 0 || second >= 60 {
		return 0, dtZoneDisplacementOverflow
	}
	east := (hour*60+minute)*60 + second
	if text[0] == '-' {
		east = -east
	}
	if rest != "" {
		return 0, dtBadFormat
	}
	return -east, dtOK
}

// validateDate is ValidateDate: applies BC and two-digit years and the day
// of the year, then checks the month and day.
func (d *dtDecoder) validateDate() dtError {
	if d.fmask&maskYear != 0 {
		switch {
		case d.isJulian:
			// Already astronomical.
		case d.bc:
			if d.year <= 0 {
				return dtFieldOverflow
			}
			d.year = -(d.year - 1) // 1 BC is year 0
		case d.is2Digits:
			if d.year < 0 {
				return dtFieldOverflow
			}
			if d.year < 70 {
				d.year += 2000
			} else if d.year < 100 {
				d.year += 1900
			}
		default:
			if d.year <= 0 {
				return dtFieldOverflow
			}
		}
	}
	if d.fmask&maskDayOfYear != 0 {
		d.year, d.month, d.day = civilFromDays(daysFromCivil(d.year, 1, 1) + d.dayOfYear - 1)
	}
	if d.fmask&maskMonth != 0 && (d.month < 1 || d.month > 12) {
		return dtMonthDayOverflow
	}
	if d.fmask&maskDay != 0 && (d.day < 1 || d.day > 31) {
		return dtMonthDayOverflow
	}
	if d.fmask&maskDate == maskDate && d.day > monthLength(d.year, d.month) {
		return dtFieldOverflow
	}
	return dtOK
}

// strtoint is PostgreSQL's strtoint (C's strtol limited to int): leading
// blanks, a sign, digits. With no digits it returns s unconsumed; val is
// meaningful only without overflow.
func strtoint(s string) (val int64, rest string, overflow bool) {
	val, rest, overflow = strtoi64(s)
	return val, rest, overflow || val > math.MaxInt32 || val < math.MinInt32
}

// atoi is C's atoi as glibc has it: strtol saturating at the int64
// limits, then truncated to a 32-bit int.
func atoi(s string) int64 {
	var v int64
	for i := 0; i < len(s) && isDigit(s[i]); i++ {
		digit := int64(s[i] - '0')
		if v > (math.MaxInt64-digit)/10 {
			v = math.MaxInt64
			break
		}
		v = v*10 + digit
	}
	return int64(int32(v))
}

// parseDateTimeFields runs both steps of date/time input.
func parseDateTimeFields(s string) (*dtDecoder, dtError) {
	fields, err := splitDateFields(s)
	if err != dtOK {
		return &dtDecoder{}, err
	}
	return decodeDateTime(fields)
}

// parseDate is date_in.
func parseDate(s string) (int32, error) {
	d, err := parseDateTimeFields(s)
	if err != dtOK {
		return 0, parseError(err, s, "date", d.errDetail)
	}
	switch d.value {
	case dtEpoch:
		return 0, nil
	case dtInfinity:
		return DatePosInfinity, nil
	case dtNegInfinity:
		return DateNegInfinity, nil
	}
	if !validJulianDate(d.year, d.month) {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range: \"%s\"", s)
	}
	days := daysFromCivil(d.year, d.month, d.day)
	if days < minDateDays || days >= endDateDays {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range: \"%s\"", s)
	}
	return int32(days), nil
}

// parseTimestamp is timestamp_in, or timestamptz_in when withZone: a zone
// in the input is ignored for timestamp and converts to UTC for timestamptz.
func parseTimestamp(s string, withZone bool) (int64, error) {
	typeName := "timestamp"
	if withZone {
		typeName = "timestamp with time zone"
	}
	d, err := parseDateTimeFields(s)
	if err != dtOK {
		return 0, parseError(err, s, typeName, d.errDetail)
	}
	switch d.value {
	case dtEpoch:
		return 0, nil
	case dtInfinity:
		return TimestampPosInfinity, nil
	case dtNegInfinity:
		return TimestampNegInfinity, nil
	}
	zone := int64(0)
	if withZone {
		zone = d.zone
	}
	v, ok := joinTimestampZone(d.year, d.month, d.day, d.hour, d.minute, d.second, d.usec, zone)
	if !ok {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", s)
	}
	return v, nil
}
