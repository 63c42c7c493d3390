// Package logictest reads, runs and rewrites SQL logic-test files: files of
// SQL statements with their expected results or errors, in the style of
// sqllogictest and CockroachDB's logic tests. It knows no engine: anything
// that can run one SQL statement and return text values (DB) can be tested,
// and two engines can be run side by side (Differential).
//
// # File format
//
// A file is a sequence of records separated by blank lines. Lines starting
// with # between records are comments.
//
//	# a comment
//	statement ok
//	CREATE TABLE t (a int, b text)
//
//	statement error 22012
//	SELECT 1/0
//
//	statement error 42P01 relation "nope" does not exist
//	SELECT * FROM nope
//
//	query IT rowsort
//	SELECT a, b FROM t
//	----
//	1	foo
//	2	NULL
//	3	(empty)
//
// The first line of a record is its directive:
//
//   - "statement ok": the SQL must succeed; any rows it returns are ignored.
//   - "statement error [SQLSTATE] [REGEXP]": the SQL must fail with that
//     SQLSTATE, and REGEXP, if given, must match the error message. Without
//     a SQLSTATE any error is accepted (Rewrite fills it in).
//   - "query TYPES [OPTION...]": the SQL must return one column per type
//     letter (the letters document the types, e.g. I integer, T text, R
//     float/numeric, B bool; only their count is checked) and the rows after
//     the "----" line. Options: "nosort" (default: the order must match),
//     "rowsort" (rows are compared sorted), "valuesort" (all values are
//     compared as one sorted list), "colnames" (the first line after "----"
//     holds the column names).
//   - "query error [SQLSTATE] [REGEXP]": like statement error.
//   - "halt": stop processing the file here (handy while debugging).
//
// The SQL follows on one or more lines, up to the "----" line or the blank
// line that ends the record. One statement per record.
//
// Expected rows are one per line, values separated by a single TAB, in
// PostgreSQL's text output format. NULL is written NULL and the empty string
// (empty); newline, tab and carriage return inside values are written \n,
// \t and \r, and a backslash that would otherwise be read as part of such an
// escape is doubled (see FormatValue).
//
// A record may be preceded by "onlyif ENGINE" or "skipif ENGINE" lines
// (ENGINE is one of KnownEngines) to run it only on, or never on, that
// engine.
package logictest

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

// KnownEngines are the engine names onlyif/skipif accept; anything else is
// a parse error, so that a typo cannot silently skip a record.
var KnownEngines = []string{"pgfed", "postgres"}

// Kind says what a record does.
type Kind int

const (
	// Statement is a "statement ok" or "statement error" record.
	Statement Kind = iota + 1
	// Query is a "query" or "query error" record.
	Query
	// Halt stops processing the file.
	Halt
)

// SortMode says how a query's rows are compared.
type SortMode int

const (
	// NoSort compares rows in the order returned.
	NoSort SortMode = iota
	// RowSort compares the rows sorted.
	RowSort
	// ValueSort compares all values of all rows as one sorted list.
	ValueSort
)

var sortModeNames = map[SortMode]string{NoSort: "nosort", RowSort: "rowsort", ValueSort: "valuesort"}

func (m SortMode) String() string { return sortModeNames[m] }

// Record is one statement or query of a file with its expectations.
type Record struct {
	// Path and Line locate the record's directive line (1-based).
	Path string
	Line int
	Kind Kind
	// SQL is the statement text, its lines joined by "\n".
	SQL string
	// OnlyIf and SkipIf are the engines of the preceding onlyif/skipif lines.
	OnlyIf, SkipIf []string

	// ExpectError is set by "statement error" and "query error".
	ExpectError bool
	// ErrorCode is the expected SQLSTATE; empty accepts any error.
	ErrorCode string
	// ErrorPattern must match the error message, if not nil.
	ErrorPattern *regexp.Regexp

	// ColumnTypes has one letter per expected column (queries only).
	ColumnTypes string
	Sort        SortMode
	// ColumnNames is set by the colnames option; ExpectedColumns then holds
	// the names from the first line after "----".
	ColumnNames     bool
	ExpectedColumns []string
	// Expected are the expected rows as written in the file: formatted
	// values separated by tabs.
	Expected []string

	// Line indexes (0-based, end exclusive) of the record's parts, which
	// Rewrite replaces while keeping everything around them.
	directiveIndex int
	sqlStart       int
	sqlEnd         int
	end            int
}

// RunsOn reports whether the record's onlyif/skipif lines let it run on the
// named engine.
func (r *Record) RunsOn(engine string) bool {
	if len(r.OnlyIf) > 0 && !slices.Contains(r.OnlyIf, engine) {
		return false
	}
	return !slices.Contains(r.SkipIf, engine)
}

// position is the record's "path:line" for messages; editors jump to it.
func (r *Record) position() string {
	return fmt.Sprintf("%s:%d", r.Path, r.Line)
}

// Parse reads a logic-test file.
func Parse(path string) ([]Record, error) {
	content, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseLines(path, splitLines(string(content)))
}

// splitLines splits file content into lines without their "\n" (or "\r\n").
// Content ending in "\n" yields a last empty element, so joining the lines
// with "\n" gives back the content.
func splitLines(content string) []string {
	lines := strings.Split(content, "\n")
	for i, line := range lines {
		lines[i] = strings.TrimSuffix(line, "\r")
	}
	return lines
}

const resultSeparator = "----"

func isBlank(line string) bool { return strings.TrimSpace(line) == "" }

// parser holds the state of parsing one file.
type parser struct {
	path    string
	lines   []string
	records []Record
	// Conditions seen since the last record, for the next one.
	onlyIf, skipIf []string
	conditionLine  int
}

func (p *parser) errorf(index int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.path, index+1, fmt.Sprintf(format, args...))
}

func parseLines(path string, lines []string) ([]Record, error) {
	// The empty string after the file's final newline is not a line.
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	p := &parser{path: path, lines: lines}
	for i := 0; i < len(lines); {
		line := lines[i]
		if isBlank(line) {
			if p.conditionLine != 0 {
				return nil, p.errorf(i, "onlyif/skipif on line %d must be directly followed by its record", p.conditionLine)
			}
			i++
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			i++
			continue
		}
		fields := strings.Fields(line)
		switch fields[0] {
		case "onlyif", "skipif":
			if err := p.condition(i, fields); err != nil {
				return nil, err
			}
			i++
		case "halt":
			if len(fields) != 1 {
				return nil, p.errorf(i, "halt takes no arguments")
			}
			p.records = append(p.records, p.newRecord(i, Halt))
			i++
		case "statement", "query":
			next, err := p.record(i, fields)
			if err != nil {
				return nil, err
			}
			i = next
		default:
			return nil, p.errorf(i, "unknown directive %q (want statement, query, onlyif, skipif, halt or a # comment)", fields[0])
		}
	}
	if p.conditionLine != 0 {
		return nil, p.errorf(p.conditionLine-1, "onlyif/skipif at the end of the file has no record")
	}
	return p.records, nil
}

func (p *parser) condition(index int, fields []string) error {
	if len(fields) != 2 {
		return p.errorf(index, "want %q followed by one engine name", fields[0])
	}
	engine := fields[1]
	if !slices.Contains(KnownEngines, engine) {
		return p.errorf(index, "unknown engine %q (known: %s)", engine, strings.Join(KnownEngines, ", "))
	}
	if fields[0] == "onlyif" {
		p.onlyIf = append(p.onlyIf, engine)
	} else {
		p.skipIf = append(p.skipIf, engine)
	}
	if p.conditionLine == 0 {
		p.conditionLine = index + 1
	}
	return nil
}

// newRecord starts a record at the directive on line index, taking over the
// pending conditions.
func (p *parser) newRecord(index int, kind Kind) Record {
	r := Record{
		Path:           p.path,
		Line:           index + 1,
		Kind:           kind,
		OnlyIf:         p.onlyIf,
		SkipIf:         p.skipIf,
		directiveIndex: index,
		sqlStart:       index + 1,
		sqlEnd:         index + 1,
		end:            index + 1,
	}
	p.onlyIf, p.skipIf, p.conditionLine = nil, nil, 0
	return r
}

// record parses the statement or query record whose directive is on line
// index and returns the index of the line after it.
func (p *parser) record(index int, fields []string) (int, error) {
	kind := Statement
	if fields[0] == "query" {
		kind = Query
	}
	r := p.newRecord(index, kind)
	if err := p.directive(&r, index, fields); err != nil {
		return 0, err
	}

	i := index + 1
	for i < len(p.lines) && !isBlank(p.lines[i]) && strings.TrimSpace(p.lines[i]) != resultSeparator {
		i++
	}
	r.sqlEnd = i
	if r.sqlEnd == r.sqlStart {
		return 0, p.errorf(index, "%s has no SQL", fields[0])
	}
	r.SQL = strings.Join(p.lines[r.sqlStart:r.sqlEnd], "\n")

	if i < len(p.lines) && strings.TrimSpace(p.lines[i]) == resultSeparator {
		if kind != Query || r.ExpectError {
			return 0, p.errorf(i, "only a query expecting rows has a %q section", resultSeparator)
		}
		i++
		resultStart := i
		for i < len(p.lines) && !isBlank(p.lines[i]) {
			i++
		}
		results := p.lines[resultStart:i]
		if r.ColumnNames && len(results) > 0 {
			r.ExpectedColumns = strings.Split(results[0], "\t")
			results = results[1:]
		}
		r.Expected = slices.Clone(results)
	}
	r.end = i
	p.records = append(p.records, r)
	return i, nil
}

// directive parses the directive line's fields into r.
func (p *parser) directive(r *Record, index int, fields []string) error {
	if len(fields) < 2 {
		return p.errorf(index, "%s needs ok, error or column types", fields[0])
	}
	if fields[1] == "error" {
		r.ExpectError = true
		return p.errorExpectation(r, index)
	}
	if r.Kind == Statement {
		if fields[1] != "ok" || len(fields) != 2 {
			return p.errorf(index, "want \"statement ok\" or \"statement error [SQLSTATE] [REGEXP]\"")
		}
		return nil
	}

	r.ColumnTypes = fields[1]
	for _, letter := range r.ColumnTypes {
		if letter < 'A' || letter > 'Z' {
			return p.errorf(index, "column types %q must be upper-case letters, one per column", r.ColumnTypes)
		}
	}
	sortSeen := false
	for _, option := range fields[2:] {
		switch option {
		case "nosort", "rowsort", "valuesort":
			if sortSeen {
				return p.errorf(index, "more than one sort mode")
			}
			sortSeen = true
			r.Sort = map[string]SortMode{"nosort": NoSort, "rowsort": RowSort, "valuesort": ValueSort}[option]
		case "colnames":
			r.ColumnNames = true
		default:
			return p.errorf(index, "unknown query option %q (want nosort, rowsort, valuesort or colnames)", option)
		}
	}
	return nil
}

// sqlStatePattern matches a SQLSTATE: five digits or upper-case letters.
// Every SQLSTATE has a digit, which keeps a message starting with a
// five-letter word such as "ERROR" from being taken for one.
var sqlStatePattern = regexp.MustCompile(`^[0-9A-Z]{5}$`)

func looksLikeSQLState(word string) bool {
	return sqlStatePattern.MatchString(word) && strings.ContainsAny(word, "0123456789")
}

// errorExpectation parses "statement error [SQLSTATE] [REGEXP]" (or query).
func (p *parser) errorExpectation(r *Record, index int) error {
	// The regexp is the raw rest of the line: its spaces matter.
	rest := strings.TrimSpace(p.lines[index])
	rest = strings.TrimSpace(strings.TrimPrefix(rest, strings.Fields(rest)[0]))
	rest = strings.TrimSpace(strings.TrimPrefix(rest, "error"))
	if word, afterWord, _ := strings.Cut(rest, " "); looksLikeSQLState(word) {
		r.ErrorCode = word
		rest = strings.TrimSpace(afterWord)
	}
	if rest != "" {
		pattern, err := regexp.Compile(rest)
		if err != nil {
			return p.errorf(index, "bad error regexp: %v", err)
		}
		r.ErrorPattern = pattern
	}
	return nil
}

// FormatValue renders a value as written in expected results: NULL for
// nil, (empty) for the empty string, and otherwise the text with newline,
// tab and carriage return written as \n, \t and \r. A backslash is doubled
// only where it would otherwise read as such an escape (followed by n, t, r,
// a backslash, or one of those control characters), so the common values
// with backslashes (bytea's \x..., regexps) stay as PostgreSQL prints them,
// and distinct values always render differently.
func FormatValue(value *string) string {
	if value == nil {
		return "NULL"
	}
	if *value == "" {
		return "(empty)"
	}
	text := *value
	if !strings.ContainsAny(text, "\\\n\t\r") {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\\':
			b.WriteByte('\\')
			if i+1 < len(text) && strings.IndexByte("ntr\\\n\t\r", text[i+1]) >= 0 {
				b.WriteByte('\\')
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// FormatRow renders a row as a line of expected results.
func FormatRow(row []*string) string {
	values := make([]string, len(row))
	for i, value := range row {
		values[i] = FormatValue(value)
	}
	return strings.Join(values, "\t")
}
