package logictest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// DB runs one SQL statement. Values are in PostgreSQL's text output format,
// nil meaning NULL. A statement without a result set (CREATE, INSERT
// without RETURNING...) returns nil columns; a result set without columns
// (SELECT FROM t) returns non-nil empty columns.
type DB interface {
	Query(ctx context.Context, sql string) (columns []string, rows [][]*string, err error)
}

// Engine names the engine behind a DB, for onlyif/skipif, and reads its
// errors.
type Engine struct {
	// Name is matched against onlyif/skipif; see KnownEngines.
	Name string
	// SQLState returns the SQLSTATE of an error the DB returned, or "" if it
	// has none (which never matches an expected code).
	SQLState func(error) string
	// Message returns the error message that a record's regexp must match.
	// If nil, err.Error() is used.
	Message func(error) string
}

func (e Engine) message(err error) string {
	if e.Message != nil {
		return e.Message(err)
	}
	return err.Error()
}

func (e Engine) validate() error {
	if e.Name == "" || e.SQLState == nil {
		return errors.New("logictest: Engine needs a Name and a SQLState function")
	}
	return nil
}

// recordTimeout bounds one statement, so that a hung engine fails the test
// with a position instead of running into go test's global timeout.
const recordTimeout = 2 * time.Minute

// maxMismatches stops a file after this many mismatches: past that point
// the engine is usually broken (e.g. its connection died) and more reports
// only bury the first, useful ones.
const maxMismatches = 100

// outcome is what a DB returned for one record.
type outcome struct {
	columns []string
	rows    [][]*string
	err     error
	code    string // SQLSTATE of err
	message string // message of err
}

func execute(db DB, eng Engine, r *Record) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	columns, rows, err := db.Query(ctx, r.SQL)
	if err != nil {
		return outcome{err: err, code: eng.SQLState(err), message: eng.message(err)}
	}
	return outcome{columns: columns, rows: rows}
}

// describe renders an outcome for messages.
func (o outcome) describe() string {
	if o.err != nil {
		return fmt.Sprintf("error %s: %v", orQuestionMark(o.code), o.err)
	}
	if o.columns == nil {
		return "success without result set"
	}
	return fmt.Sprintf("%d column(s), %d row(s)", len(o.columns), len(o.rows))
}

func orQuestionMark(code string) string {
	if code == "" {
		return "(no SQLSTATE)"
	}
	return code
}

// resultLines formats rows as lines of expected results.
func resultLines(rows [][]*string) []string {
	lines := make([]string, len(rows))
	for i, row := range rows {
		lines[i] = FormatRow(row)
	}
	return lines
}

// inCompareOrder puts result lines in the form the sort mode compares: as is,
// sorted, or split into sorted values.
func inCompareOrder(lines []string, mode SortMode) []string {
	switch mode {
	case RowSort:
		lines = slices.Clone(lines)
		slices.Sort(lines)
	case ValueSort:
		var values []string
		for _, line := range lines {
			values = append(values, strings.Split(line, "\t")...)
		}
		slices.Sort(values)
		lines = values
	}
	return lines
}

// mismatch describes how an outcome differs from a record's expectations,
// or returns "" if it does not.
func mismatch(r *Record, got outcome) string {
	if r.ExpectError {
		switch {
		case got.err == nil:
			return fmt.Sprintf("expected error %s, got %s", orQuestionMark(r.ErrorCode), got.describe())
		case r.ErrorCode != "" && got.code != r.ErrorCode:
			return fmt.Sprintf("expected error %s, got %s", r.ErrorCode, got.describe())
		case r.ErrorPattern != nil && !r.ErrorPattern.MatchString(got.message):
			return fmt.Sprintf("error message %q does not match %q", got.message, r.ErrorPattern)
		}
		return ""
	}
	if got.err != nil {
		return fmt.Sprintf("unexpected %s", got.describe())
	}
	if r.Kind != Query {
		return ""
	}
	if got.columns == nil {
		return "expected a result set, the statement returned none"
	}
	if len(got.columns) != len(r.ColumnTypes) {
		return fmt.Sprintf("expected %d column(s) (%s), got %d: %s\ngot rows:\n%s", len(r.ColumnTypes), r.ColumnTypes,
			len(got.columns), strings.Join(got.columns, ", "), indent(resultLines(got.rows)))
	}
	if r.ColumnNames && !slices.Equal(r.ExpectedColumns, got.columns) {
		return fmt.Sprintf("column names differ (-expected +got):\n%s", cmp.Diff(r.ExpectedColumns, got.columns))
	}
	expected := inCompareOrder(r.Expected, r.Sort)
	actual := inCompareOrder(resultLines(got.rows), r.Sort)
	if slices.Equal(expected, actual) {
		return ""
	}
	var report strings.Builder
	fmt.Fprintf(&report, "results differ (%s)\nexpected:\n%s\ngot:\n%s\ndiff (-expected +got):\n%s",
		r.Sort, indent(r.Expected), indent(resultLines(got.rows)), cmp.Diff(expected, actual))
	report.WriteString(tabHint(r))
	return report.String()
}

// tabHint points out expected rows with the wrong number of tab-separated
// values, the usual sign of spaces typed where a TAB belongs.
func tabHint(r *Record) string {
	for i, line := range r.Expected {
		if values := strings.Count(line, "\t") + 1; values != len(r.ColumnTypes) {
			return fmt.Sprintf("\nhint: expected row %d has %d TAB-separated value(s) but the query has %d column type(s); separate values with a single TAB",
				i+1, values, len(r.ColumnTypes))
		}
	}
	return ""
}

func indent(lines []string) string {
	if len(lines) == 0 {
		return "    (no rows)"
	}
	return "    " + strings.Join(lines, "\n    ")
}

// reporter is the part of testing.TB the runners use, so that their own
// tests can capture what they report.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
}

// Run runs every record of the file at path that applies to eng, in order,
// on db, and reports each mismatch with the record's file:line, its SQL and
// expected versus actual results. It keeps going after a mismatch, since
// later records usually still run (up to maxMismatches).
// slowRecordLimit is PGFED_LOGIC_SLOW, a duration: records that take at
// least as long are logged (with -v), to find what makes a file slow.
func slowRecordLimit() time.Duration {
	d, _ := time.ParseDuration(os.Getenv("PGFED_LOGIC_SLOW"))
	return d
}

// timedExecute is execute, logging the record when it takes slow or
// longer (slow > 0).
func timedExecute(t reporter, slow time.Duration, db DB, eng Engine, r *Record) outcome {
	start := time.Now()
	o := execute(db, eng, r)
	if took := time.Since(start); slow > 0 && took >= slow {
		t.Logf("%s: slow record on %s (%v)", r.position(), eng.Name, took.Round(time.Millisecond))
	}
	return o
}

func Run(t *testing.T, path string, db DB, eng Engine) {
	t.Helper()
	runFile(t, path, db, eng)
}

func runFile(t reporter, path string, db DB, eng Engine) {
	t.Helper()
	if err := eng.validate(); err != nil {
		t.Fatalf("%v", err)
		return
	}
	records, err := Parse(path)
	if err != nil {
		t.Fatalf("%v", err)
		return
	}
	mismatches := 0
	slow := slowRecordLimit()
	for i := range records {
		r := &records[i]
		if r.Kind == Halt {
			return
		}
		if !r.RunsOn(eng.Name) {
			continue
		}
		got := timedExecute(t, slow, db, eng, r)
		if problem := mismatch(r, got); problem != "" {
			t.Errorf("%s: %s\nSQL:\n%s", r.position(), problem, indent(strings.Split(r.SQL, "\n")))
			if mismatches++; mismatches == maxMismatches {
				t.Errorf("%s: stopping after %d mismatches", path, maxMismatches)
				return
			}
		}
	}
}

// Differential runs the file at path on two engines side by side, record by
// record, and reports every difference in outcome: success versus error,
// SQLSTATE, column count, column names (with colnames) and rows, compared
// per the record's sort mode. Expected results in the file are not
// consulted. Records that onlyif/skipif exclude for either engine are
// skipped on both, so the two databases go through the same statements.
func Differential(t *testing.T, path string, a DB, aEng Engine, b DB, bEng Engine) {
	t.Helper()
	differential(t, path, a, aEng, b, bEng)
}

func differential(t reporter, path string, a DB, aEng Engine, b DB, bEng Engine) {
	t.Helper()
	for _, eng := range []Engine{aEng, bEng} {
		if err := eng.validate(); err != nil {
			t.Fatalf("%v", err)
			return
		}
	}
	records, err := Parse(path)
	if err != nil {
		t.Fatalf("%v", err)
		return
	}
	differences := 0
	slow := slowRecordLimit()
	for i := range records {
		r := &records[i]
		if r.Kind == Halt {
			return
		}
		if !r.RunsOn(aEng.Name) || !r.RunsOn(bEng.Name) {
			continue
		}
		aOutcome, bOutcome := timedExecute(t, slow, a, aEng, r), timedExecute(t, slow, b, bEng, r)
		if difference := compareOutcomes(r, aEng.Name, aOutcome, bEng.Name, bOutcome); difference != "" {
			t.Errorf("%s: %s and %s differ: %s\nSQL:\n%s", r.position(), aEng.Name, bEng.Name, difference,
				indent(strings.Split(r.SQL, "\n")))
			if differences++; differences == maxMismatches {
				t.Errorf("%s: stopping after %d differences", path, maxMismatches)
				return
			}
		}
	}
}

// compareOutcomes describes how two engines' outcomes differ, or returns ""
// if they agree.
func compareOutcomes(r *Record, aName string, a outcome, bName string, b outcome) string {
	if (a.err == nil) != (b.err == nil) || a.code != b.code {
		return fmt.Sprintf("\n    %s: %s\n    %s: %s", aName, a.describe(), bName, b.describe())
	}
	if a.err != nil || r.Kind != Query {
		return ""
	}
	if (a.columns == nil) != (b.columns == nil) || len(a.columns) != len(b.columns) {
		return fmt.Sprintf("\n    %s: %s\n    %s: %s", aName, a.describe(), bName, b.describe())
	}
	if r.ColumnNames && !slices.Equal(a.columns, b.columns) {
		return fmt.Sprintf("column names differ (-%s +%s):\n%s", aName, bName, cmp.Diff(a.columns, b.columns))
	}
	aLines := inCompareOrder(resultLines(a.rows), r.Sort)
	bLines := inCompareOrder(resultLines(b.rows), r.Sort)
	if slices.Equal(aLines, bLines) {
		return ""
	}
	return fmt.Sprintf("results differ (%s) (-%s +%s):\n%s", r.Sort, aName, bName, cmp.Diff(aLines, bLines))
}
