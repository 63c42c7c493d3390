package logictest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// parseString parses content as a file named "x.test".
func parseString(content string) ([]Record, error) {
	return parseLines("x.test", splitLines(content))
}

// recordSummary is the part of a Record the parser tests compare.
type recordSummary struct {
	Line            int
	Kind            Kind
	SQL             string
	OnlyIf, SkipIf  []string
	ExpectError     bool
	ErrorCode       string
	ErrorPattern    string
	ColumnTypes     string
	Sort            SortMode
	ColumnNames     bool
	ExpectedColumns []string
	Expected        []string
}

func summarize(records []Record) []recordSummary {
	summaries := make([]recordSummary, len(records))
	for i, r := range records {
		summaries[i] = recordSummary{
			Line: r.Line, Kind: r.Kind, SQL: r.SQL, OnlyIf: r.OnlyIf, SkipIf: r.SkipIf,
			ExpectError: r.ExpectError, ErrorCode: r.ErrorCode,
			ColumnTypes: r.ColumnTypes, Sort: r.Sort, ColumnNames: r.ColumnNames,
			ExpectedColumns: r.ExpectedColumns, Expected: r.Expected,
		}
		if r.ErrorPattern != nil {
			summaries[i].ErrorPattern = r.ErrorPattern.String()
		}
	}
	return summaries
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []recordSummary
	}{
		{
			name:    "statement ok",
			content: "statement ok\nCREATE TABLE t (a int)\n",
			want:    []recordSummary{{Line: 1, Kind: Statement, SQL: "CREATE TABLE t (a int)"}},
		},
		{
			name: "comments, blank lines and multi-line SQL",
			content: "# leading comment\n\n  # indented comment\nstatement ok\nCREATE TABLE t (\n  a int\n)\n\n\n" +
				"# between\nstatement ok\nDROP TABLE t",
			want: []recordSummary{
				{Line: 4, Kind: Statement, SQL: "CREATE TABLE t (\n  a int\n)"},
				{Line: 11, Kind: Statement, SQL: "DROP TABLE t"},
			},
		},
		{
			name:    "statement error with code",
			content: "statement error 22012\nSELECT 1/0\n",
			want:    []recordSummary{{Line: 1, Kind: Statement, SQL: "SELECT 1/0", ExpectError: true, ErrorCode: "22012"}},
		},
		{
			name:    "statement error with code and regexp keeps the regexp's spaces",
			content: "statement error 42P01 relation \"nope\"  does not exist\nSELECT * FROM nope\n",
			want: []recordSummary{{Line: 1, Kind: Statement, SQL: "SELECT * FROM nope", ExpectError: true,
				ErrorCode: "42P01", ErrorPattern: `relation "nope"  does not exist`}},
		},
		{
			name:    "statement error without code",
			content: "statement error\nSELECT 1/0\n",
			want:    []recordSummary{{Line: 1, Kind: Statement, SQL: "SELECT 1/0", ExpectError: true}},
		},
		{
			name:    "a five-letter word is a regexp, not a SQLSTATE",
			content: "statement error ERROR: boom\nSELECT 1/0\n",
			want: []recordSummary{{Line: 1, Kind: Statement, SQL: "SELECT 1/0", ExpectError: true,
				ErrorPattern: "ERROR: boom"}},
		},
		{
			name:    "query error",
			content: "query error 22P02 invalid input syntax\nSELECT 'x'::int\n",
			want: []recordSummary{{Line: 1, Kind: Query, SQL: "SELECT 'x'::int", ExpectError: true,
				ErrorCode: "22P02", ErrorPattern: "invalid input syntax"}},
		},
		{
			name:    "query with rows, NULL and empty",
			content: "query IT rowsort\nSELECT a, b FROM t\n----\n1\tfoo\n2\tNULL\n3\t(empty)\n",
			want: []recordSummary{{Line: 1, Kind: Query, SQL: "SELECT a, b FROM t", ColumnTypes: "IT", Sort: RowSort,
				Expected: []string{"1\tfoo", "2\tNULL", "3\t(empty)"}}},
		},
		{
			name:    "query without results section expects no rows",
			content: "query I\nSELECT 1 WHERE false\n\nquery I nosort\nSELECT 1 WHERE false\n----\n",
			want: []recordSummary{
				{Line: 1, Kind: Query, SQL: "SELECT 1 WHERE false", ColumnTypes: "I"},
				{Line: 4, Kind: Query, SQL: "SELECT 1 WHERE false", ColumnTypes: "I"},
			},
		},
		{
			name:    "valuesort and colnames",
			content: "query II valuesort colnames\nSELECT 1 AS a, 2 AS \"b c\"\n----\na\tb c\n1\t2\n",
			want: []recordSummary{{Line: 1, Kind: Query, SQL: "SELECT 1 AS a, 2 AS \"b c\"", ColumnTypes: "II",
				Sort: ValueSort, ColumnNames: true, ExpectedColumns: []string{"a", "b c"}, Expected: []string{"1\t2"}}},
		},
		{
			name:    "conditions apply to the next record only",
			content: "onlyif pgfed\nstatement error 0A000\nSELECT 1\n\nskipif pgfed\nskipif postgres\nquery I\nSELECT 1\n----\n1\n\nstatement ok\nSELECT 1\n",
			want: []recordSummary{
				{Line: 2, Kind: Statement, SQL: "SELECT 1", OnlyIf: []string{"pgfed"}, ExpectError: true, ErrorCode: "0A000"},
				{Line: 7, Kind: Query, SQL: "SELECT 1", SkipIf: []string{"pgfed", "postgres"}, ColumnTypes: "I", Expected: []string{"1"}},
				{Line: 12, Kind: Statement, SQL: "SELECT 1"},
			},
		},
		{
			name:    "halt",
			content: "statement ok\nSELECT 1\n\nhalt\n\nstatement ok\nSELECT 2\n",
			want: []recordSummary{
				{Line: 1, Kind: Statement, SQL: "SELECT 1"},
				{Line: 4, Kind: Halt},
				{Line: 6, Kind: Statement, SQL: "SELECT 2"},
			},
		},
		{
			name:    "CRLF line ends",
			content: "query T\r\nSELECT 'a'\r\n----\r\na\r\n\r\nstatement ok\r\nSELECT 1\r\n",
			want: []recordSummary{
				{Line: 1, Kind: Query, SQL: "SELECT 'a'", ColumnTypes: "T", Expected: []string{"a"}},
				{Line: 6, Kind: Statement, SQL: "SELECT 1"},
			},
		},
		{
			name:    "empty file",
			content: "",
			want:    []recordSummary{},
		},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			records, err := parseString(test.content)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(test.want, summarize(records), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("records differ (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, content, wantError string
	}{
		{"unknown directive", "statment ok\nSELECT 1\n", `x.test:1: unknown directive "statment"`},
		{"statement without kind", "statement\nSELECT 1\n", "x.test:1: statement needs ok, error or column types"},
		{"statement with junk", "statement ok please\nSELECT 1\n", `x.test:1: want "statement ok"`},
		{"missing SQL", "# c\nstatement ok\n\n", "x.test:2: statement has no SQL"},
		{"missing SQL before separator", "query I\n----\n1\n", "x.test:1: query has no SQL"},
		{"statement with results", "statement ok\nSELECT 1\n----\n1\n", `x.test:3: only a query expecting rows has a "----" section`},
		{"query error with results", "query error 22012\nSELECT 1/0\n----\n1\n", `x.test:3: only a query expecting rows`},
		{"lower-case types", "query it\nSELECT 1, 'a'\n", `x.test:1: column types "it" must be upper-case letters`},
		{"unknown option", "query I sorted\nSELECT 1\n", `x.test:1: unknown query option "sorted"`},
		{"two sort modes", "query I rowsort valuesort\nSELECT 1\n", "x.test:1: more than one sort mode"},
		{"unknown engine", "onlyif pgfd\nstatement ok\nSELECT 1\n", `x.test:1: unknown engine "pgfd"`},
		{"condition without engine", "skipif\nstatement ok\nSELECT 1\n", `x.test:1: want "skipif" followed by one engine name`},
		{"condition then blank line", "onlyif pgfed\n\nstatement ok\nSELECT 1\n", "x.test:2: onlyif/skipif on line 1 must be directly followed by its record"},
		{"condition at end", "statement ok\nSELECT 1\n\nskipif pgfed\n", "x.test:4: onlyif/skipif at the end of the file has no record"},
		{"bad regexp", "statement error 22012 (unclosed\nSELECT 1/0\n", "x.test:1: bad error regexp"},
		{"halt with argument", "halt now\n", "x.test:1: halt takes no arguments"},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			_, err := parseString(test.content)
			if err == nil || !strings.Contains(err.Error(), test.wantError) {
				t.Errorf("got error %v, want one containing %q", err, test.wantError)
			}
		})
	}
}

func TestRunsOn(t *testing.T) {
	tests := []struct {
		onlyIf, skipIf []string
		engine         string
		want           bool
	}{
		{nil, nil, "postgres", true},
		{[]string{"pgfed"}, nil, "postgres", false},
		{[]string{"pgfed"}, nil, "pgfed", true},
		{nil, []string{"pgfed"}, "pgfed", false},
		{nil, []string{"pgfed"}, "postgres", true},
		{[]string{"pgfed", "postgres"}, []string{"postgres"}, "postgres", false},
	}
	for _, test := range tests {
		r := Record{OnlyIf: test.onlyIf, SkipIf: test.skipIf}
		if got := r.RunsOn(test.engine); got != test.want {
			t.Errorf("onlyif %v skipif %v: RunsOn(%q) = %v, want %v", test.onlyIf, test.skipIf, test.engine, got, test.want)
		}
	}
}

func ptr(s string) *string { return &s }

func TestFormatValue(t *testing.T) {
	tests := []struct {
		value *string
		want  string
	}{
		{nil, "NULL"},
		{ptr(""), "(empty)"},
		{ptr("NULL"), "NULL"}, // the string NULL is indistinguishable, as in sqllogictest
		{ptr("plain text"), "plain text"},
		{ptr("a\tb\nc\rd"), `a\tb\nc\rd`},
		{ptr(`\x0102`), `\x0102`},
		{ptr(`a\nb`), `a\\nb`},
		{ptr(`a\\b`), `a\\\b`},
		{ptr("a\\\nb"), `a\\\nb`},
		{ptr(`trailing\`), `trailing\`},
	}
	for _, test := range tests {
		if got := FormatValue(test.value); got != test.want {
			t.Errorf("FormatValue(%q) = %q, want %q", deref(test.value), got, test.want)
		}
	}
}

// TestFormatValueIsInjective checks that distinct non-empty strings built
// from the characters that need escaping never format the same.
func TestFormatValueIsInjective(t *testing.T) {
	alphabet := []string{`\`, "n", "t", "\n", "\t", "\r", "x"}
	seen := map[string]string{}
	var build func(prefix string, length int)
	build = func(prefix string, length int) {
		if prefix != "" {
			formatted := FormatValue(&prefix)
			if other, ok := seen[formatted]; ok {
				t.Fatalf("%q and %q both format as %q", other, prefix, formatted)
			}
			seen[formatted] = prefix
		}
		if length == 0 {
			return
		}
		for _, c := range alphabet {
			build(prefix+c, length-1)
		}
	}
	build("", 4)
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
