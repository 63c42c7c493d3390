package logictest

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Rewrite runs the file at path on db, which serves as the oracle, and
// rewrites in place the expectations of every record whose outcome differs
// from them: statement ok/error, SQLSTATEs, column counts and expected rows;
// it also fills in the SQLSTATE of "error" records written without one.
// Records that already match, records excluded for eng by onlyif/skipif,
// comments, blank lines and SQL text are left exactly as they are.
//
// When an error's message no longer matches a record's regexp, the regexp
// becomes the quoted message; records without a regexp do not get one.
// Rows are written sorted for rowsort and valuesort, in the returned order
// otherwise. If the oracle returns an error without SQLSTATE (a broken
// connection, say), Rewrite leaves the file untouched and returns an error.
func Rewrite(path string, db DB, eng Engine) error {
	if err := eng.validate(); err != nil {
		return err
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	content, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := splitLines(string(content))
	records, err := parseLines(path, lines)
	if err != nil {
		return err
	}

	var rewritten []string
	copied := 0 // lines before this index are already in rewritten
	for i := range records {
		r := &records[i]
		if r.Kind == Halt {
			break
		}
		if !r.RunsOn(eng.Name) {
			continue
		}
		got := execute(db, eng, r)
		missingCode := r.ExpectError && r.ErrorCode == "" && got.err != nil
		if mismatch(r, got) == "" && !missingCode {
			continue
		}
		if got.err != nil && got.code == "" {
			return fmt.Errorf("%s: error without SQLSTATE, not rewriting the file: %v", r.position(), got.err)
		}
		replacement, err := rewriteRecord(r, lines, got)
		if err != nil {
			return err
		}
		rewritten = append(rewritten, lines[copied:r.directiveIndex]...)
		rewritten = append(rewritten, replacement...)
		copied = r.end
	}
	if copied == 0 {
		return nil // every record matched: leave the file untouched
	}
	rewritten = append(rewritten, lines[copied:]...)
	return os.WriteFile(path, []byte(strings.Join(rewritten, "\n")), info.Mode().Perm())
}

// rewriteRecord returns the lines that replace record r (its directive, SQL
// and results) so that it expects outcome got.
func rewriteRecord(r *Record, lines []string, got outcome) ([]string, error) {
	sqlLines := lines[r.sqlStart:r.sqlEnd]
	kindWord := "statement"
	if r.Kind == Query {
		kindWord = "query"
	}
	if got.err != nil {
		directive := kindWord + " error " + got.code
		if pattern := rewrittenPattern(r, got.message); pattern != "" {
			directive += " " + pattern
		}
		return append([]string{directive}, sqlLines...), nil
	}
	if r.Kind == Statement {
		return append([]string{"statement ok"}, sqlLines...), nil
	}

	if got.columns == nil {
		return nil, fmt.Errorf("%s: the query returned no result set; make it a statement record", r.position())
	}
	if len(got.columns) == 0 {
		return nil, fmt.Errorf("%s: the query returned no columns, which a query record cannot express; make it a statement record", r.position())
	}
	directive := "query " + columnTypesFor(r.ColumnTypes, len(got.columns))
	if r.Sort != NoSort {
		directive += " " + r.Sort.String()
	}
	if r.ColumnNames {
		directive += " colnames"
	}
	replacement := append([]string{directive}, sqlLines...)
	replacement = append(replacement, resultSeparator)
	if r.ColumnNames {
		replacement = append(replacement, strings.Join(got.columns, "\t"))
	}
	rows := resultLines(got.rows)
	if r.Sort != NoSort {
		slices.Sort(rows)
	}
	return append(replacement, rows...), nil
}

// rewrittenPattern keeps the record's regexp if it matches the oracle's
// message and otherwise replaces it by the quoted message; a record without
// regexp stays without.
func rewrittenPattern(r *Record, message string) string {
	switch {
	case r.ErrorPattern == nil:
		return ""
	case r.ErrorPattern.MatchString(message):
		return r.ErrorPattern.String()
	default:
		// The directive is one line, so a newline is written as the
		// regexp escape \n.
		return strings.ReplaceAll(regexp.QuoteMeta(message), "\n", `\n`)
	}
}

// columnTypesFor keeps the existing type letters when their count is right
// and otherwise pads with T (text) or cuts them to n letters: the oracle
// gives text values only, so it cannot tell the real types.
func columnTypesFor(existing string, n int) string {
	if len(existing) >= n {
		return existing[:n]
	}
	return existing + strings.Repeat("T", n-len(existing))
}
