package planner

// Parse is the one way SQL text reaches pg_query's parser. The parser is
// C: a crash there (a stack overflow on a deeply nested expression) kills
// the whole process, which recover() cannot prevent. So what reaches it
// is bounded first, with PostgreSQL's errors: invalid UTF-8 is 22021, and
// an expression nested deeper than PostgreSQL's 2 MB stack allows is
// 54001 "stack depth limit exceeded".

import (
	"fmt"
	"strings"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
	"github.com/pgfed/pgfed/pgerr"
)

// MaxExprDepth bounds the operators one expression chains at one level
// of parentheses (a + b + c ... nests one node per operator). PostgreSQL
// 15 with its default max_stack_depth accepts about 4,000 and refuses
// 10,000; pg_query's tree decoder stops at about 5,000, and its C code
// overflows its stack at about 25,000.
const MaxExprDepth = 4000

// Parse parses sql into pg_query's tree, with PostgreSQL's errors: 42601
// with the cursor position (in characters) for a syntax error, 22021 for
// invalid UTF-8, 54001 for nesting past MaxExprDepth.
func Parse(sql string) (*pg.ParseResult, error) {
	if err := checkEncoding(sql); err != nil {
		return nil, err
	}
	if exprDepth(sql) > MaxExprDepth {
		return nil, errStackDepth()
	}
	tree, err := pg.Parse(sql)
	if err != nil {
		if strings.Contains(err.Error(), "exceeded maximum recursion depth") {
			return nil, errStackDepth()
		}
		pe := &pgerr.Error{Code: parseErrorCode(err.Error()), Message: err.Error()}
		if perr, ok := err.(*parser.Error); ok {
			// libpg_query's cursor already counts characters, as PostgreSQL's.
			pe.Position = perr.Cursorpos
		}
		return nil, pe
	}
	return tree, nil
}

// parseErrorCode is the SQLSTATE of a parser error. pg_query reports no
// SQLSTATE; nearly every grammar error is 42601, but gram.y checks float(p)'s
// precision itself with 22023, and a window frame's bounds with 42P20
// ("frame start cannot be UNBOUNDED FOLLOWING", "frame starting from
// following row cannot ...").
func parseErrorCode(msg string) string {
	switch {
	case strings.HasPrefix(msg, "precision for type float must be"):
		return pgerr.InvalidParameterValue
	case strings.HasPrefix(msg, "frame start"), strings.HasPrefix(msg, "frame end"), strings.HasPrefix(msg, "frame starting from"):
		return pgerr.WindowingError
	}
	return pgerr.SyntaxError
}

func errStackDepth() error {
	return pgerr.New(pgerr.StatementTooComplex, "stack depth limit exceeded").
		WithHint("Increase the configuration parameter \"max_stack_depth\" (currently 2048kB), after ensuring the platform's stack depth limit is adequate.")
}

// checkEncoding is PostgreSQL's report_invalid_encoding: the bytes of
// the first invalid sequence (as many as its lead byte announces).
func checkEncoding(sql string) error {
	if utf8.ValidString(sql) {
		return nil
	}
	for i := 0; i < len(sql); {
		r, size := utf8.DecodeRuneInString(sql[i:])
		if r != utf8.RuneError || size > 1 {
			i += size
			continue
		}
		n := sequenceLength(sql[i])
		var b strings.Builder
		for j := 0; j < n && i+j < len(sql); j++ {
			if j > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "0x%02x", sql[i+j])
		}
		return pgerr.New(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": %s", b.String())
	}
	return nil
}

// sequenceLength is the length a UTF-8 lead byte announces (1 for a byte
// that cannot lead).
func sequenceLength(b byte) int {
	switch {
	case b >= 0xf0 && b < 0xf8:
		return 4
	case b >= 0xe0:
		return 3
	case b >= 0xc0:
		return 2
	}
	return 1
}

// exprDepth estimates the deepest chain of operators in sql: the most
// operator tokens between two commas, ANDs or ORs (or parentheses) at one
// level of parentheses, plus the parentheses around them. Strings, quoted
// identifiers, dollar-quoted strings and comments do not count. It
// overestimates (a unary minus counts), which is fine for a bound far
// above what queries write.
func exprDepth(sql string) int {
	counts := []int{0} // operators so far, per open parenthesis
	deepest := 0
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"':
			i = skipQuoted(sql, i, c)
			continue
		case c == '$':
			i = skipDollar(sql, i)
			continue
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			i = skipComment(sql, i)
			continue
		case c == '(':
			counts = append(counts, 0)
		case c == ')':
			if len(counts) > 1 {
				counts = counts[:len(counts)-1]
			}
		case c == ',' || c == ';':
			counts[len(counts)-1] = 0
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(sql) && (sql[j] == '_' || sql[j] == '$' || sql[j] >= 'a' && sql[j] <= 'z' || sql[j] >= 'A' && sql[j] <= 'Z' || sql[j] >= '0' && sql[j] <= '9') {
				j++
			}
			// The parser flattens AND and OR chains into one list: the
			// operands between them nest no deeper.
			if w := sql[i:j]; strings.EqualFold(w, "and") || strings.EqualFold(w, "or") {
				counts[len(counts)-1] = 0
			}
			i = j
			continue
		case strings.IndexByte("+-*/<>=~!@#%^&|`?:", c) >= 0:
			for i+1 < len(sql) && strings.IndexByte("+-*/<>=~!@#%^&|`?:", sql[i+1]) >= 0 {
				i++
			}
			counts[len(counts)-1]++
			deepest = max(deepest, counts[len(counts)-1]+len(counts)-1)
		}
		i++
	}
	return deepest
}

// skipQuoted returns the index after the string or identifier quoted by
// q that starts at i (a doubled quote stays inside; a backslash escapes
// in an E” string).
func skipQuoted(sql string, i int, q byte) int {
	escapes := q == '\'' && i > 0 && (sql[i-1] == 'E' || sql[i-1] == 'e')
	for i++; i < len(sql); i++ {
		switch {
		case escapes && sql[i] == '\\':
			i++
		case sql[i] == q && i+1 < len(sql) && sql[i+1] == q:
			i++
		case sql[i] == q:
			return i + 1
		}
	}
	return i
}

// skipDollar returns the index after a dollar-quoted string starting at
// i, or after the $ when it is not one ($1 parameters).
func skipDollar(sql string, i int) int {
	j := i + 1
	for j < len(sql) && (sql[j] == '_' || sql[j] >= 'a' && sql[j] <= 'z' || sql[j] >= 'A' && sql[j] <= 'Z' || sql[j] >= '0' && sql[j] <= '9' && j > i+1) {
		j++
	}
	if j >= len(sql) || sql[j] != '$' {
		return i + 1
	}
	tag := sql[i : j+1]
	if end := strings.Index(sql[j+1:], tag); end >= 0 {
		return j + 1 + end + len(tag)
	}
	return len(sql)
}

// skipComment returns the index after the (nestable) comment at i.
func skipComment(sql string, i int) int {
	depth := 0
	for i < len(sql) {
		switch {
		case strings.HasPrefix(sql[i:], "/*"):
			depth++
			i += 2
		case strings.HasPrefix(sql[i:], "*/"):
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return i
}
