package types

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// unit is a date/time unit: the fields of EXTRACT and date_trunc, and the
// labels of ISO 8601 date input ("y2001m02d04", "J2451545", "T").
type unit uint8

const (
	unitNone unit = iota
	unitMicrosecond
	unitMillisecond
	unitSecond
	unitMinute
	unitHour
	unitDay
	unitWeek
	unitMonth
	unitQuarter
	unitYear
	unitDecade
	unitCentury
	unitMillennium
	unitJulian
	unitDayOfWeek
	unitDayOfYear
	unitISODayOfWeek
	unitISOYear
	unitTimezone
	unitTimezoneHour
	unitTimezoneMinute
	unitISOTime // the "T" between an ISO date and time; never a field
)

// tokenMaxLen is TOKMAXLEN: keywords are compared on this many characters,
// so "microseconds" finds "microsecon".
const tokenMaxLen = 10

func truncateToken(word string) string {
	if len(word) > tokenMaxLen {
		return word[:tokenMaxLen]
	}
	return word
}

// unitTokens is PostgreSQL's deltatktbl (its UNITS entries): the unit
// names date_trunc and EXTRACT accept first.
var unitTokens = map[string]unit{
	"c": unitCentury, "cent": unitCentury, "centuries": unitCentury, "century": unitCentury,
	"d": unitDay, "day": unitDay, "days": unitDay,
	"dec": unitDecade, "decade": unitDecade, "decades": unitDecade, "decs": unitDecade,
	"h": unitHour, "hour": unitHour, "hours": unitHour, "hr": unitHour, "hrs": unitHour,
	"m": unitMinute, "min": unitMinute, "mins": unitMinute, "minute": unitMinute, "minutes": unitMinute,
	"microsecon": unitMicrosecond, "us": unitMicrosecond, "usec": unitMicrosecond,
	"useconds": unitMicrosecond, "usecs": unitMicrosecond,
	"mil": unitMillennium, "millennia": unitMillennium, "millennium": unitMillennium, "mils": unitMillennium,
	"millisecon": unitMillisecond, "ms": unitMillisecond, "msec": unitMillisecond,
	"mseconds": unitMillisecond, "msecs": unitMillisecond,
	"mon": unitMonth, "mons": unitMonth, "month": unitMonth, "months": unitMonth,
	"qtr": unitQuarter, "quarter": unitQuarter,
	"s": unitSecond, "sec": unitSecond, "second": unitSecond, "seconds": unitSecond, "secs": unitSecond,
	"timezone": unitTimezone, "timezone_h": unitTimezoneHour, "timezone_m": unitTimezoneMinute,
	"w": unitWeek, "week": unitWeek, "weeks": unitWeek,
	"y": unitYear, "year": unitYear, "years": unitYear, "yr": unitYear, "yrs": unitYear,
}

// lookupUnit is DecodeUnits.
func lookupUnit(word string) (unit, bool) {
	u, ok := unitTokens[truncateToken(word)]
	return u, ok
}

// tokenKind is the type of a datetktbl keyword.
type tokenKind uint8

const (
	tokenReserved    tokenKind = iota + 1 // special values: epoch, infinity, now, ...
	tokenMonth                            // value: 1-12
	tokenWeekday                          // value: 0 (Sunday) - 6
	tokenMeridian                         // value: meridianAM or meridianPM
	tokenEra                              // value: eraAD or eraBC
	tokenUnits                            // value: a unit
	tokenISOTime                          // "t"
	tokenIgnore                           // "at", "on"
	tokenDSTModifier                      // "dst"; value: seconds added
)

const (
	eraAD = iota
	eraBC
)

// Values of tokenReserved keywords.
const (
	reservedEpoch = iota
	reservedInfinity
	reservedNegInfinity
	reservedAllBalls
	reservedNow
	reservedToday
	reservedTomorrow
	reservedYesterday
)

type dateToken struct {
	kind  tokenKind
	value int
}

// dateTokens is PostgreSQL 15's datetktbl (which, unlike later releases,
// has no "+infinity").
var dateTokens = func() map[string]dateToken {
	tokens := map[string]dateToken{
		"epoch":     {tokenReserved, reservedEpoch},
		"infinity":  {tokenReserved, reservedInfinity},
		"-infinity": {tokenReserved, reservedNegInfinity},
		"allballs":  {tokenReserved, reservedAllBalls},
		"now":       {tokenReserved, reservedNow},
		"today":     {tokenReserved, reservedToday},
		"tomorrow":  {tokenReserved, reservedTomorrow},
		"yesterday": {tokenReserved, reservedYesterday},

		"ad":  {tokenEra, eraAD},
		"bc":  {tokenEra, eraBC},
		"am":  {tokenMeridian, meridianAM},
		"pm":  {tokenMeridian, meridianPM},
		"at":  {tokenIgnore, 0},
		"on":  {tokenIgnore, 0},
		"t":   {tokenISOTime, 0},
		"dst": {tokenDSTModifier, 3600},

		// ISO 8601 unit labels in input, and extra EXTRACT fields.
		"y":       {tokenUnits, int(unitYear)},
		"m":       {tokenUnits, int(unitMonth)},
		"d":       {tokenUnits, int(unitDay)},
		"h":       {tokenUnits, int(unitHour)},
		"mm":      {tokenUnits, int(unitMinute)},
		"s":       {tokenUnits, int(unitSecond)},
		"j":       {tokenUnits, int(unitJulian)},
		"jd":      {tokenUnits, int(unitJulian)},
		"julian":  {tokenUnits, int(unitJulian)},
		"dow":     {tokenUnits, int(unitDayOfWeek)},
		"doy":     {tokenUnits, int(unitDayOfYear)},
		"isodow":  {tokenUnits, int(unitISODayOfWeek)},
		"isoyear": {tokenUnits, int(unitISOYear)},
	}
	months := [][]string{
		{"jan", "january"}, {"feb", "february"}, {"mar", "march"}, {"apr", "april"},
		{"may"}, {"jun", "june"}, {"jul", "july"}, {"aug", "august"},
		{"sep", "sept", "september"}, {"oct", "october"}, {"nov", "november"}, {"dec", "december"},
	}
	for i, names := range months {
		for _, name := range names {
			tokens[name] = dateToken{tokenMonth, i + 1}
		}
	}
	weekdays := [][]string{
		{"sun", "sunday"}, {"mon", "monday"}, {"tue", "tues", "tuesday"}, {"wed", "weds", "wednesday"},
		{"thu", "thur", "thurs", "thursday"}, {"fri", "friday"}, {"sat", "saturday"},
	}
	for i, names := range weekdays {
		for _, name := range names {
			tokens[name] = dateToken{tokenWeekday, i}
		}
	}
	return tokens
}()

// lookupDateToken is DecodeSpecial.
func lookupDateToken(word string) (dateToken, bool) {
	tok, ok := dateTokens[truncateToken(word)]
	return tok, ok
}

// zoneAbbrev is a time zone abbreviation: its offset east of UTC in
// seconds, and whether it names daylight-saving time.
type zoneAbbrev struct {
	offset int64
	dst    bool
}

// zoneAbbrevs is PostgreSQL's "Default" timezone_abbreviations set with
// the offsets pg_timezone_abbrevs reports. Abbreviations whose meaning
// changed over history (such as MSK) keep their current offset here.
var zoneAbbrevs = func() map[string]zoneAbbrev {
	const table = `acdt 37800 t;acsst 37800 t;acst 34200 f;act -18000 f;acwst 31500 f;adt -10800 t;
aedt 39600 t;aesst 39600 t;aest 36000 f;aft 16200 f;akdt -28800 t;akst -32400 f;almst 25200 t;
almt 21600 f;amst 14400 f;amt -14400 f;anast 43200 f;anat 43200 f;arst -10800 f;art -10800 f;
ast -14400 f;awsst 32400 t;awst 28800 f;azost 0 t;azot -3600 f;azst 14400 f;azt 14400 f;
bdst 7200 t;bdt 21600 f;bnt 28800 f;bort 28800 f;bot -14400 f;bra -10800 f;brst -7200 t;
brt -10800 f;bst 3600 t;btt 21600 f;cadt 37800 t;cast 34200 f;cct 28800 f;cdt -18000 t;
cest 7200 t;cet 3600 f;cetdst 7200 t;chadt 49500 t;chast 45900 f;chut 36000 f;ckt -36000 f;
clst -10800 t;clt -10800 t;cot -18000 f;cst -21600 f;cxt 25200 f;davt 25200 f;ddut 36000 f;
easst -18000 t;east -18000 t;eat 10800 f;edt -14400 t;eest 10800 t;eet 7200 f;eetdst 10800 t;
egst 0 t;egt -3600 f;est -18000 f;fet 10800 f;fjst 46800 t;fjt 43200 f;fkst -10800 f;
fkt -10800 f;fnst -3600 t;fnt -7200 f;galt -21600 f;gamt -32400 f;gest 14400 f;get 14400 f;
gft -10800 f;gilt 43200 f;gmt 0 f;gyt -14400 f;hkt 28800 f;hst -36000 f;ict 25200 f;
idt 10800 t;iot 21600 f;irkst 28800 f;irkt 28800 f;irt 12600 f;ist 7200 f;jayt 32400 f;
jst 32400 f;kdt 36000 t;kgst 21600 t;kgt 21600 f;kost 39600 f;krast 25200 f;krat 25200 f;
kst 32400 f;lhdt 39600 t;lhst 37800 f;ligt 36000 f;lint 50400 f;lkt 19800 f;magst 39600 f;
magt 39600 f;mart -34200 f;mawt 18000 f;mdt -21600 t;mest 7200 t;mesz 7200 t;met 3600 f;
metdst 7200 t;mez 3600 f;mht 43200 f;mmt 23400 f;mpt 36000 f;msd 14400 t;msk 10800 f;
mst -25200 f;must 18000 t;mut 14400 f;mvt 18000 f;myt 28800 f;ndt -9000 t;nft -12600 f;
novst 25200 f;novt 25200 f;npt 20700 f;nst -12600 f;nut -39600 f;nzdt 46800 t;nzst 43200 f;
nzt 43200 f;omsst 21600 f;omst 21600 f;pdt -25200 t;pet -18000 f;petst 43200 f;pett 43200 f;
pgt 36000 f;pht 28800 f;pkst 21600 t;pkt 18000 f;pmdt -7200 t;pmst -10800 f;pont 39600 f;
pst -28800 f;pwt 32400 f;pyst -10800 t;pyt -10800 f;ret 14400 f;sadt 37800 t;sast 7200 f;
sct 14400 f;sgt 28800 f;taht -36000 f;tft 18000 f;tjt 18000 f;tkt 46800 f;tmt 18000 f;
tot 46800 f;trut 36000 f;tvt 43200 f;uct 0 f;ulast 32400 t;ulat 28800 f;ut 0 f;utc 0 f;
uyst -7200 t;uyt -10800 f;uzst 21600 t;uzt 18000 f;vet -14400 f;vlast 36000 f;vlat 36000 f;
volt 10800 f;vut 39600 f;wadt 28800 t;wakt 43200 f;wast 25200 f;wat 3600 f;wdt 32400 t;
wet 0 f;wetdst 3600 t;wft 43200 f;wgst -7200 t;wgt -10800 f;xjt 21600 f;yakst 32400 f;
yakt 32400 f;yapt 36000 f;yekst 21600 t;yekt 18000 f;z 0 f;zulu 0 f`
	abbrevs := make(map[string]zoneAbbrev)
	for _, entry := range strings.Split(table, ";") {
		fields := strings.Fields(entry) // name, offset, DST flag
		offset, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			panic("types: bad zone abbreviation entry " + entry)
		}
		abbrevs[fields[0]] = zoneAbbrev{offset: offset, dst: fields[2] == "t"}
	}
	return abbrevs
}()

func lookupZoneAbbrev(word string) (zoneAbbrev, bool) {
	z, ok := zoneAbbrevs[truncateToken(word)]
	return z, ok
}

// zoneRules is a named IANA time zone (America/New_York, Japan, ...).
type zoneRules struct {
	loc *time.Location
}

// offsetForLocal is DetermineTimeZoneOffset: the offset (PostgreSQL's
// sign: seconds west) of a local wall-clock time. In a spring-forward gap
// the earlier offset wins; in a fall-back overlap the later one does.
func (z *zoneRules) offsetForLocal(year, month, day, hour, minute, second int64) int64 {
	if !validJulianDate(year, month) {
		return 0 // out of range: PostgreSQL assumes UTC
	}
	local := daysFromCivil(year, month, day)*secsPerDay + (hour*60+minute)*60 + second
	// Find the first transition after a point surely before the wall time.
	probe := time.Unix(local-secsPerDay, 0).In(z.loc)
	_, before := probe.Zone()
	_, end := probe.ZoneBounds()
	if end.IsZero() {
		return -int64(before)
	}
	_, after := end.In(z.loc).Zone()
	boundary := end.Unix()
	beforeTime := local - int64(before)
	afterTime := local - int64(after)
	switch {
	case beforeTime < boundary && afterTime < boundary:
		return -int64(before)
	case beforeTime > boundary && afterTime >= boundary:
		return -int64(after)
	case beforeTime > afterTime:
		return -int64(before)
	}
	return -int64(after)
}

// The zone database is read from the system, as PostgreSQL built with
// system tzdata does, and looked up case-insensitively like pg_tzset.
var zoneDatabase struct {
	once   sync.Once
	names  map[string]string // lowercased name -> file name
	mu     sync.Mutex
	loaded map[string]*zoneRules
}

var zoneInfoDirs = []string{"/usr/share/zoneinfo", "/usr/share/lib/zoneinfo", "/usr/lib/locale/TZ"}

func indexZoneDatabase() {
	zoneDatabase.names = make(map[string]string)
	zoneDatabase.loaded = make(map[string]*zoneRules)
	dirs := zoneInfoDirs
	if dir := os.Getenv("ZONEINFO"); dir != "" {
		dirs = append([]string{dir}, dirs...)
	}
	for _, dir := range dirs {
		root := os.DirFS(dir)
		_ = fs.WalkDir(root, ".", func(name string, entry fs.DirEntry, err error) error {
			if err != nil || entry.IsDir() || name == "." {
				return nil
			}
			lower := strings.ToLower(name)
			if _, seen := zoneDatabase.names[lower]; !seen {
				zoneDatabase.names[lower] = path.Join(dir, name)
			}
			return nil
		})
		if len(zoneDatabase.names) > 0 {
			return
		}
	}
}

// lookupZone finds a time zone by its lowercased name, or nil: a zone of
// the database, or else a POSIX-style fixed zone such as "gmt+8".
func lookupZone(lowerName string) *zoneRules {
	zoneDatabase.once.Do(indexZoneDatabase)
	file, ok := zoneDatabase.names[lowerName]
	if !ok {
		return posixZone(lowerName)
	}
	zoneDatabase.mu.Lock()
	defer zoneDatabase.mu.Unlock()
	if z, ok := zoneDatabase.loaded[file]; ok {
		return z
	}
	var z *zoneRules
	if data, err := os.ReadFile(file); err == nil {
		if loc, err := time.LoadLocationFromTZData(lowerName, data); err == nil {
			z = &zoneRules{loc: loc}
		}
	}
	zoneDatabase.loaded[file] = z // remember failures too: not every file is a zone
	return z
}

// posixZone reads a POSIX TZ specification, which PostgreSQL accepts as a
// zone name when no zone file matches: STD offset [DST [offset]
// [,start[/time],end[/time]]], e.g. "gmt+8" or "cet-1cest". Offsets count
// west ("gmt+8" is UTC-8). Without rules, DST follows the US rules
// M3.2.0,M11.1.0 (PostgreSQL would use its posixrules file, which differs
// only before 2007).
func posixZone(spec string) *zoneRules {
	p := posixParser{rest: spec}
	std, ok := p.name()
	if !ok || p.rest == "" {
		return nil
	}
	stdWest, ok := p.offset()
	if !ok {
		return nil
	}
	if p.rest == "" {
		return &zoneRules{loc: time.FixedZone(strings.ToUpper(spec), int(-stdWest))}
	}
	dst, ok := p.name()
	if !ok || dst == "" {
		return nil
	}
	dstWest := stdWest - 3600
	if p.rest != "" && p.rest[0] != ',' && p.rest[0] != ';' {
		if dstWest, ok = p.offset(); !ok {
			return nil
		}
	}
	rules := "M3.2.0,M11.1.0"
	if p.rest != "" {
		if p.rest[0] != ',' && p.rest[0] != ';' {
			return nil
		}
		p.rest = p.rest[1:]
		start, ok1 := p.rule()
		if !ok1 || p.rest == "" || p.rest[0] != ',' {
			return nil
		}
		p.rest = p.rest[1:]
		end, ok2 := p.rule()
		if !ok2 || p.rest != "" {
			return nil
		}
		rules = start + "," + end
	}
	// Go evaluates such rules only as the "extend" footer of zone data past
	// its last transition, so wrap the canonical spec in minimal TZif data.
	tz := fmt.Sprintf("<%s>%s<%s>%s,%s", std, formatPOSIXOffset(stdWest), dst, formatPOSIXOffset(dstWest), rules)
	loc, err := time.LoadLocationFromTZData(strings.ToUpper(spec), tzifWithFooter(tz))
	if err != nil {
		return nil
	}
	return &zoneRules{loc: loc}
}

// posixParser walks a POSIX TZ specification as tzcode's tzparse does.
type posixParser struct{ rest string }

// name reads a zone abbreviation: <anything> or characters up to a digit,
// sign or comma (PostgreSQL allows any length).
func (p *posixParser) name() (string, bool) {
	if strings.HasPrefix(p.rest, "<") {
		end := strings.IndexByte(p.rest, '>')
		if end < 0 {
			return "", false
		}
		name := p.rest[1:end]
		p.rest = p.rest[end+1:]
		return name, true
	}
	end := strings.IndexAny(p.rest, "0123456789,-+")
	if end < 0 {
		end = len(p.rest)
	}
	name := p.rest[:end]
	p.rest = p.rest[end:]
	return name, true
}

// number reads digits with a value in [0, limit].
func (p *posixParser) number(limit int64) (int64, bool) {
	i := 0
	var v int64
	for i < len(p.rest) && isDigit(p.rest[i]) {
		v = v*10 + int64(p.rest[i]-'0')
		if v > limit {
			return 0, false
		}
		i++
	}
	p.rest = p.rest[i:]
	return v, i > 0
}

// offset reads [+-]hh[:mm[:ss]] as seconds (west positive, as written).
func (p *posixParser) offset() (int64, bool) {
	sign := int64(1)
	if p.rest != "" && (p.rest[0] == '+' || p.rest[0] == '-') {
		if p.rest[0] == '-' {
			sign = -1
		}
		p.rest = p.rest[1:]
	}
	secs, ok := p.number(24*7 - 1)
	if !ok {
		return 0, false
	}
	secs *= 3600
	for _, part := range []struct{ limit, scale int64 }{{59, 60}, {60, 1}} {
		if !strings.HasPrefix(p.rest, ":") {
			break
		}
		p.rest = p.rest[1:]
		v, ok := p.number(part.limit)
		if !ok {
			return 0, false
		}
		secs += v * part.scale
	}
	return sign * secs, true
}

// rule reads Jn, n or Mm.w.d with an optional /time, returned canonical.
func (p *posixParser) rule() (string, bool) {
	var day string
	switch {
	case strings.HasPrefix(p.rest, "J"):
		p.rest = p.rest[1:]
		n, ok := p.number(365)
		if !ok || n < 1 {
			return "", false
		}
		day = fmt.Sprintf("J%d", n)
	case strings.HasPrefix(p.rest, "M"):
		p.rest = p.rest[1:]
		var parts [3]int64
		for i, bounds := range [][2]int64{{1, 12}, {1, 5}, {0, 6}} {
			if i > 0 {
				if !strings.HasPrefix(p.rest, ".") {
					return "", false
				}
				p.rest = p.rest[1:]
			}
			v, ok := p.number(bounds[1])
			if !ok || v < bounds[0] {
				return "", false
			}
			parts[i] = v
		}
		day = fmt.Sprintf("M%d.%d.%d", parts[0], parts[1], parts[2])
	default:
		n, ok := p.number(365)
		if !ok {
			return "", false
		}
		day = fmt.Sprintf("%d", n)
	}
	if !strings.HasPrefix(p.rest, "/") {
		return day, true
	}
	p.rest = p.rest[1:]
	at, ok := p.offset()
	if !ok {
		return "", false
	}
	return day + "/" + formatPOSIXOffset(at), true
}

func formatPOSIXOffset(secs int64) string {
	sign := ""
	if secs < 0 {
		sign, secs = "-", -secs
	}
	return fmt.Sprintf("%s%d:%02d:%02d", sign, secs/3600, secs/60%60, secs%60)
}

// tzifWithFooter builds TZif version 2 data with a single ancient
// transition to UTC and tz as the footer that governs all later times.
func tzifWithFooter(tz string) []byte {
	var b []byte
	header := func(timeCount uint32) {
		b = append(b, "TZif2"...)
		b = append(b, make([]byte, 15)...)
		// isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
		for _, n := range []uint32{0, 0, 0, timeCount, 1, 1} {
			b = binary.BigEndian.AppendUint32(b, n)
		}
	}
	zoneType := []byte{0, 0, 0, 0, 0, 0} // UTC offset 0, not DST, name index 0
	header(0)
	b = append(b, zoneType...)
	b = append(b, 0) // the empty name
	header(1)
	var longAgo int64 = -1 << 50 // seconds, far before 4714 BC
	b = binary.BigEndian.AppendUint64(b, uint64(longAgo))
	b = append(b, 0)
	b = append(b, zoneType...)
	b = append(b, 0)
	return append(append(append(b, '\n'), tz...), '\n')
}
