package planner

import (
	"strings"
	"testing"

	"github.com/pgfed/pgfed/pgerr"
)

func TestParseBounds(t *testing.T) {
	ors := make([]string, 10000)
	for i := range ors {
		ors[i] = "a = 1"
	}
	for _, tc := range []struct {
		name, sql, code, message string
	}{
		{"long + chain", "SELECT 1" + strings.Repeat("+1", 100000), pgerr.StatementTooComplex, "stack depth limit exceeded"},
		{"long || chain", "SELECT 'a'" + strings.Repeat("||'a'", 50000), pgerr.StatementTooComplex, "stack depth limit exceeded"},
		{"long :: chain", "SELECT 1" + strings.Repeat("::int", 20000), pgerr.StatementTooComplex, "stack depth limit exceeded"},
		{"chain just under the bound", "SELECT 1" + strings.Repeat("+1", 3000), "", ""},
		{"chain in parentheses", "SELECT " + strings.Repeat("(1+", 2000) + "1" + strings.Repeat(")", 2000), "", ""},
		{"deep parentheses", "SELECT " + strings.Repeat("(", 10000) + "1" + strings.Repeat(")", 10000), pgerr.SyntaxError, "memory exhausted"},
		{"10,000 ORs", "SELECT 1 FROM t WHERE " + strings.Join(ors, " OR "), "", ""},
		{"many VALUES rows", "INSERT INTO t VALUES " + strings.Repeat("(-1, 2 + 3), ", 20000) + "(1, 1)", "", ""},
		{"operators in a string", "SELECT '" + strings.Repeat("+", 100000) + "'", "", ""},
		{"operators in an E string", `SELECT E'\'` + strings.Repeat("+", 100000) + "'", "", ""},
		{"operators in an identifier", `SELECT 1 AS "` + strings.Repeat("+", 100000) + `"`, "", ""},
		{"operators in a dollar string", "SELECT $x$" + strings.Repeat("+", 100000) + "$x$", "", ""},
		{"operators in comments", "SELECT 1 -- " + strings.Repeat("+", 100000) + "\n, 2 /* " + strings.Repeat("+", 100000) + " /* */ */", "", ""},
		{"invalid UTF-8", "SELECT '\xff'", pgerr.CharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8": 0xff`},
		{"truncated sequence", "SELECT 'a\xe2\x28\xa1'", pgerr.CharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8": 0xe2 0x28 0xa1`},
	} {
		_, err := Parse(tc.sql)
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		pe, ok := pgerr.As(err)
		if !ok || pe.Code != tc.code || !strings.Contains(pe.Message, tc.message) {
			t.Errorf("%s: %v, want %s %q", tc.name, err, tc.code, tc.message)
		}
	}
}
