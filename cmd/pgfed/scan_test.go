package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

func TestSplitStatements(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		stmts []string
		rest  string
	}{
		{"one", "select 1;", []string{"select 1;"}, ""},
		{"several on a line", "select 1; select 2;select 3;", []string{"select 1;", "select 2;", "select 3;"}, ""},
		{"spanning lines", "select\n  1\n;", []string{"select\n  1\n;"}, ""},
		{"empty lines between are dropped", "select\n\n1;", []string{"select\n1;"}, ""},
		{"leading blanks dropped", "   \t select 1;", []string{"select 1;"}, ""},
		{"leading line comment dropped", "-- hi\nselect 1;", []string{"select 1;"}, ""},
		{"inner line comment kept", "select 1 -- one;\n;", []string{"select 1 -- one;\n;"}, ""},
		{"comment after statement", "select 1; -- done;", []string{"select 1;"}, ""},
		{"block comment kept", "/* c; */ select 1;", []string{"/* c; */ select 1;"}, ""},
		{"nested block comment", "select /* a /* b; */ c; */ 1;", []string{"select /* a /* b; */ c; */ 1;"}, ""},
		{"block comment across lines", "select /* ;\n; */ 1;", []string{"select /* ;\n; */ 1;"}, ""},
		{"lone semicolons", ";\n ; ;\n/* x */;", nil, ""},
		{"single quotes", "select 'a;b', 'it''s;';", []string{"select 'a;b', 'it''s;';"}, ""},
		{"backslash is plain in standard strings", `select 'a\'; select 2;`, []string{`select 'a\';`, "select 2;"}, ""},
		{"escape string", `select E'a\';b';`, []string{`select E'a\';b';`}, ""},
		{"escape string lower case", `select e'\\'; select 2;`, []string{`select e'\\';`, "select 2;"}, ""},
		{"identifier ending in e is not an escape string", `select xe'\'; select 2;`, []string{`select xe'\';`, "select 2;"}, ""},
		{"quoted identifier", `select 1 as "a;""b";`, []string{`select 1 as "a;""b";`}, ""},
		{"string across lines", "select 'a\n\n;b';", []string{"select 'a\n\n;b';"}, ""},
		{"dollar quote", "select $$a;b$$;", []string{"select $$a;b$$;"}, ""},
		{"tagged dollar quote", "select $f$ $$; $g$ ; $f$;", []string{"select $f$ $$; $g$ ; $f$;"}, ""},
		{"dollar quote across lines", "select $$\n;\n$$;", []string{"select $$\n;\n$$;"}, ""},
		{"parameter is not a dollar quote", "select $1; select 2;", []string{"select $1;", "select 2;"}, ""},
		{"dollar inside identifier", "select a$b$; select 2;", []string{"select a$b$;", "select 2;"}, ""},
		{"parentheses", "select (1;\n2);", []string{"select (1;\n2);"}, ""},
		{"unbalanced close paren", "select 1); select 2;", []string{"select 1);", "select 2;"}, ""},
		{"escaped semicolon", `select 1 \; select 2;`, []string{"select 1 ; select 2;"}, ""},
		{"begin atomic body", "create function f() returns int language sql begin atomic select 1; select 2; end; select 3;",
			[]string{"create function f() returns int language sql begin atomic select 1; select 2; end;", "select 3;"}, ""},
		{"case inside begin atomic", "create or replace procedure p() begin atomic select case when true then 1 end; end; select 4;",
			[]string{"create or replace procedure p() begin atomic select case when true then 1 end; end;", "select 4;"}, ""},
		{"begin outside a routine", "begin; select 1;", []string{"begin;", "select 1;"}, ""},
		{"unterminated quote keeps reading", "select 'abc;\ndef;", nil, "select 'abc;\ndef;"},
		{"rest without semicolon", "select 1; select 2", []string{"select 1;"}, "select 2"},
		{"multibyte identifiers", "select 日本;", []string{"select 日本;"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stmts, rest := splitStatements(tt.in)
			if diff := cmp.Diff(tt.stmts, stmts); diff != "" {
				t.Errorf("statements (-want +got):\n%s", diff)
			}
			if rest != tt.rest {
				t.Errorf("rest = %q, want %q", rest, tt.rest)
			}
		})
	}
}

// TestSplitMatchesServerScanner checks the splitter against PostgreSQL's
// own scanner (through pg_query) on inputs where psql and the server agree:
// no semicolons in parentheses or BEGIN ATOMIC bodies, no leading "--"
// comments (psql drops them).
func TestSplitMatchesServerScanner(t *testing.T) {
	inputs := []string{
		"select 1; select 2;",
		"select 'a;b' ; select \"x;y\" from t;",
		"select $$;$$; select $q$ $$ ; $q$; select 2",
		"select E'\\';' ; select 'it''s';",
		"select /* ; /* ; */ ; */ 1; select 2;",
		"select 1 -- ;\n, 2;",
		"select x::text, $1, a$b from t;;; select U&'\\0041;';",
		"insert into t values ('a\nb;c');\nselect 2;",
		"select b'01', x'ff', n'x;'; select 3;",
	}
	for _, in := range inputs {
		want, err := pg_query.SplitWithScanner(in, true)
		if err != nil {
			t.Fatalf("pg_query on %q: %v", in, err)
		}
		stmts, rest := splitStatements(in)
		if strings.TrimSpace(rest) != "" {
			stmts = append(stmts, rest)
		}
		var got []string
		for _, s := range stmts {
			got = append(got, strings.TrimSpace(strings.TrimSuffix(s, ";")))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q (-server +repl):\n%s", in, diff)
		}
	}
}

func TestPromptChar(t *testing.T) {
	tests := []struct {
		in   string
		want byte
	}{
		{"", '='},
		{"select 1; ", '='},
		{"select", '-'},
		{"select (1,", '('},
		{"select (1, (2)", '('},
		{"select 'abc", '\''},
		{"select E'abc\\'", '\''},
		{`select "abc`, '"'},
		{"select $x$ abc", '$'},
		{"select /* abc", '*'},
		{"select /* /* */", '*'},
		{"select ('(", '\''},
	}
	for _, tt := range tests {
		var s scanner
		var buf []byte
		for pos := 0; ; {
			res, next := s.scan(tt.in, pos, &buf)
			pos = next
			if res != scanSemicolon {
				break
			}
			buf = buf[:0]
		}
		if got := s.promptChar(len(buf) == 0); got != tt.want {
			t.Errorf("%q: prompt %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestScanStopsAtBackslash(t *testing.T) {
	var s scanner
	var buf []byte
	line := `select 'a\b' \g`
	res, pos := s.scan(line, 0, &buf)
	if res != scanBackslash || pos != len(line)-2 {
		t.Fatalf("scan = %v at %d, want backslash at %d", res, pos, len(line)-2)
	}
	if got := string(buf); got != `select 'a\b' ` {
		t.Errorf("buffer %q", got)
	}
}

// splitStatements splits a complete text into the statements the REPL
// would send for it, each with its terminating semicolon, plus whatever is
// left without one, driving the scanner the way repl.processLine does but
// taking backslashes as text.
func splitStatements(text string) (stmts []string, rest string) {
	var s scanner
	var buf []byte
	for _, line := range strings.Split(text, "\n") {
		if line == "" && !s.inQuote() {
			continue
		}
		if len(buf) > 0 {
			buf = append(buf, '\n')
		}
		for pos := 0; ; {
			res, next := s.scan(line, pos, &buf)
			pos = next
			if res == scanSemicolon {
				if s.content {
					stmts = append(stmts, string(buf))
				}
				buf, s.content = buf[:0], false
				continue
			}
			if res == scanBackslash {
				// Not a meta-command here: keep the backslash.
				buf = append(buf, '\\')
				s.content = true
				pos++
				continue
			}
			break
		}
	}
	return stmts, string(buf)
}
