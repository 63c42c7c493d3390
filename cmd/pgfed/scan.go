package main

import "strings"

// This file is the REPL's statement splitter. It follows psql's lexer
// (src/fe_utils/psqlscan.l) rather than the server's grammar because the
// REPL must decide, one input line at a time, whether a statement is
// complete, and must also spot backslash meta-commands, which the server's
// scanner knows nothing about. It only tracks what matters for that
// decision: quotes, comments, parentheses and psql's BEGIN ... END
// heuristic for SQL-standard function bodies.

// lexMode is the lexical context the scanner is in between two characters;
// it survives line ends, which is how a quote opened on one line keeps the
// statement open on the next.
type lexMode int

const (
	lexNormal   lexMode = iota
	lexQuote            // '...', also B'', X'', N'' and U&'' (standard_conforming_strings is on)
	lexEscQuote         // E'...', where a backslash escapes the next character
	lexIdent            // "..."
	lexDollar           // $tag$...$tag$
	lexComment          // /* ... */, which nests
)

// scanResult says why scan stopped.
type scanResult int

const (
	scanEOL       scanResult = iota // the line is used up
	scanSemicolon                   // a statement ended with the ';' just copied to the buffer
	scanBackslash                   // a meta-command starts at the returned position
)

// scanner splits input into statements the way psql does. Its zero value
// is ready for use.
type scanner struct {
	mode         lexMode
	dollarTag    string // the tag of the open dollar quote, without the $ signs
	commentDepth int
	parenDepth   int

	// content is set once the current statement holds more than
	// whitespace and comments, so that a lone ";" is not sent to the
	// engine (psql sends it and the server answers nothing).
	content bool

	// psql keeps semicolons inside CREATE FUNCTION ... BEGIN ATOMIC ... END
	// from ending the statement with a heuristic over the statement's first
	// identifiers; these fields replicate it.
	identCount int
	idents     [4]byte
	beginDepth int
}

// reset forgets everything, as after \r or Ctrl-C.
func (s *scanner) reset() { *s = scanner{} }

// inQuote reports whether the scanner is inside a literal, quoted
// identifier or comment, where even an empty line is part of the statement.
func (s *scanner) inQuote() bool { return s.mode != lexNormal }

// promptChar is psql's %R: what the continuation prompt shows about the
// open construct. bufEmpty tells whether any statement text is pending.
func (s *scanner) promptChar(bufEmpty bool) byte {
	switch s.mode {
	case lexQuote, lexEscQuote:
		return '\''
	case lexIdent:
		return '"'
	case lexDollar:
		return '$'
	case lexComment:
		return '*'
	}
	switch {
	case s.parenDepth > 0:
		return '('
	case !bufEmpty:
		return '-'
	}
	return '='
}

// scan copies line[pos:] to *buf until the end of the line, the end of a
// statement or the start of a meta-command, and returns which of these it
// met and the position where scanning should resume. Whitespace and "--"
// comments are dropped while *buf is empty, as psql does, so statements
// never start with blanks.
func (s *scanner) scan(line string, pos int, buf *[]byte) (scanResult, int) {
	i := pos
	for i < len(line) {
		if s.mode != lexNormal {
			i = s.scanQuoted(line, i, buf)
			continue
		}
		c := line[i]
		switch {
		case isSpace(c):
			if len(*buf) > 0 {
				*buf = append(*buf, c)
			}
			i++
		case c == '-' && i+1 < len(line) && line[i+1] == '-':
			if len(*buf) > 0 {
				*buf = append(*buf, line[i:]...)
			}
			i = len(line)
		case c == '/' && i+1 < len(line) && line[i+1] == '*':
			s.mode, s.commentDepth = lexComment, 1
			*buf = append(*buf, "/*"...)
			i += 2
		case c == '\'':
			s.mode, s.content = lexQuote, true
			*buf = append(*buf, c)
			i++
		case c == '"':
			s.mode, s.content = lexIdent, true
			*buf = append(*buf, c)
			i++
		case c == '$':
			s.content = true
			if tag, ok := dollarDelim(line[i:]); ok {
				s.mode, s.dollarTag = lexDollar, tag
				*buf = append(*buf, line[i:i+len(tag)+2]...)
				i += len(tag) + 2
			} else {
				*buf = append(*buf, c)
				i++
			}
		case isIdentStart(c):
			j := i + 1
			for j < len(line) && isIdentCont(line[j]) {
				j++
			}
			word := line[i:j]
			*buf = append(*buf, word...)
			s.content = true
			i = j
			if (word == "e" || word == "E") && i < len(line) && line[i] == '\'' {
				s.mode = lexEscQuote
				*buf = append(*buf, '\'')
				i++
				continue
			}
			s.noteIdentifier(word)
		case c >= '0' && c <= '9':
			// Consumed whole so that digits never start an identifier
			// ("1e5") or a dollar quote.
			j := i + 1
			for j < len(line) && isIdentCont(line[j]) && line[j] != '$' {
				j++
			}
			*buf = append(*buf, line[i:j]...)
			s.content = true
			i = j
		case c == '(':
			s.parenDepth++
			s.content = true
			*buf = append(*buf, c)
			i++
		case c == ')':
			if s.parenDepth > 0 {
				s.parenDepth--
			}
			s.content = true
			*buf = append(*buf, c)
			i++
		case c == ';':
			*buf = append(*buf, c)
			i++
			if s.parenDepth == 0 && s.beginDepth == 0 {
				s.identCount = 0
				return scanSemicolon, i
			}
		case c == '\\':
			// "\;" and "\:" put the character into the statement without
			// their usual meaning; any other backslash starts a
			// meta-command.
			if i+1 < len(line) && (line[i+1] == ';' || line[i+1] == ':') {
				*buf = append(*buf, line[i+1])
				if line[i+1] == ';' {
					s.identCount = 0
				}
				s.content = true
				i += 2
				continue
			}
			return scanBackslash, i
		default:
			s.content = true
			*buf = append(*buf, c)
			i++
		}
	}
	return scanEOL, i
}

// scanQuoted copies text inside a quote or comment starting at line[i] and
// returns the position after what it consumed: up to and including the
// closing delimiter, or the end of the line.
func (s *scanner) scanQuoted(line string, i int, buf *[]byte) int {
	switch s.mode {
	case lexQuote, lexEscQuote, lexIdent:
		q := byte('\'')
		if s.mode == lexIdent {
			q = '"'
		}
		for j := i; j < len(line); j++ {
			c := line[j]
			if c == '\\' && s.mode == lexEscQuote && j+1 < len(line) {
				j++ // the escaped character, even a quote, is content
				continue
			}
			if c != q {
				continue
			}
			if j+1 < len(line) && line[j+1] == q {
				j++ // a doubled quote stands for itself
				continue
			}
			*buf = append(*buf, line[i:j+1]...)
			s.mode = lexNormal
			return j + 1
		}
	case lexDollar:
		delim := "$" + s.dollarTag + "$"
		if k := strings.Index(line[i:], delim); k >= 0 {
			end := i + k + len(delim)
			*buf = append(*buf, line[i:end]...)
			s.mode, s.dollarTag = lexNormal, ""
			return end
		}
	case lexComment:
		for j := i; j+1 < len(line); j++ {
			switch {
			case line[j] == '/' && line[j+1] == '*':
				s.commentDepth++
				j++
			case line[j] == '*' && line[j+1] == '/':
				s.commentDepth--
				j++
				if s.commentDepth == 0 {
					*buf = append(*buf, line[i:j+1]...)
					s.mode = lexNormal
					return j + 1
				}
			}
		}
	}
	*buf = append(*buf, line[i:]...)
	return len(line)
}

// noteIdentifier runs psql's heuristic for statements of the form
// CREATE [OR REPLACE] {FUNCTION|PROCEDURE} ... BEGIN ATOMIC ... END, whose
// body holds semicolons that must not end the statement: after such a
// start, BEGIN and CASE open a block (CASE only inside one) and END closes
// it, outside parentheses.
func (s *scanner) noteIdentifier(word string) {
	if s.identCount == 0 {
		s.idents = [4]byte{}
	}
	lower := strings.ToLower(word)
	switch lower {
	case "create", "function", "procedure", "or", "replace":
		if s.identCount < len(s.idents) {
			s.idents[s.identCount] = lower[0]
		}
	}
	s.identCount++
	id := s.idents
	routine := id[0] == 'c' && (id[1] == 'f' || id[1] == 'p' ||
		(id[1] == 'o' && id[2] == 'r' && (id[3] == 'f' || id[3] == 'p')))
	if !routine || s.parenDepth != 0 {
		return
	}
	switch lower {
	case "begin":
		s.beginDepth++
	case "case":
		if s.beginDepth > 0 {
			s.beginDepth++
		}
	case "end":
		if s.beginDepth > 0 {
			s.beginDepth--
		}
	}
}

// dollarDelim reports whether s starts with a dollar-quote delimiter
// ($$ or $tag$) and returns its tag.
func dollarDelim(s string) (string, bool) {
	if len(s) < 2 || s[0] != '$' {
		return "", false
	}
	for j := 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '$':
			return s[1:j], true
		case j == 1 && !isIdentStart(c), j > 1 && !isIdentCont(c):
			return "", false
		}
	}
	return "", false
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// isIdentStart and isIdentCont follow PostgreSQL's lexer, where every byte
// of a multibyte character counts as a letter.
func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentCont(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '$'
}
