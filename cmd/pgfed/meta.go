package main

import (
	"fmt"
	"strconv"
	"strings"
)

// cmdArgs reads a meta-command's arguments from the rest of its line, as
// psql's psqlscanslash.l does for ordinary options: arguments are split at
// whitespace; single quotes group and are removed, with a doubled quote
// and C-style backslash escapes inside; double quotes group and are kept;
// a backslash outside quotes ends the arguments, because it starts the
// next command.
type cmdArgs struct {
	line string
	pos  int
}

// next returns the next argument, or ok=false when there is none.
func (a *cmdArgs) next() (arg string, ok bool) {
	for a.pos < len(a.line) && isSpace(a.line[a.pos]) {
		a.pos++
	}
	if a.pos >= len(a.line) || a.line[a.pos] == '\\' {
		return "", false
	}
	var b strings.Builder
	for a.pos < len(a.line) {
		c := a.line[a.pos]
		switch {
		case isSpace(c) || c == '\\':
			return b.String(), true
		case c == '\'':
			a.pos++
			a.singleQuoted(&b)
		case c == '"':
			end := strings.IndexByte(a.line[a.pos+1:], '"')
			if end < 0 {
				end = len(a.line) - a.pos - 2
			}
			b.WriteString(a.line[a.pos : a.pos+end+2])
			a.pos += end + 2
		default:
			b.WriteByte(c)
			a.pos++
		}
	}
	return b.String(), true
}

// singleQuoted copies a single-quoted section, starting after its opening
// quote, decoding a doubled quote and the escapes \n \t \b \r \f \ooo \xhh.
func (a *cmdArgs) singleQuoted(b *strings.Builder) {
	s := a.line
	for a.pos < len(s) {
		c := s[a.pos]
		switch {
		case c == '\'' && a.pos+1 < len(s) && s[a.pos+1] == '\'':
			b.WriteByte('\'')
			a.pos += 2
		case c == '\'':
			a.pos++
			return
		case c == '\\' && a.pos+1 < len(s):
			a.pos++
			a.escape(b)
		default:
			b.WriteByte(c)
			a.pos++
		}
	}
}

// escape decodes the escape sequence whose backslash was just passed.
func (a *cmdArgs) escape(b *strings.Builder) {
	s := a.line
	c := s[a.pos]
	simple := map[byte]byte{'n': '\n', 't': '\t', 'b': '\b', 'r': '\r', 'f': '\f'}
	if e, ok := simple[c]; ok {
		b.WriteByte(e)
		a.pos++
		return
	}
	digits := func(maxLen int, valid func(byte) bool) string {
		end := a.pos
		for end < len(s) && end-a.pos < maxLen && valid(s[end]) {
			end++
		}
		return s[a.pos:end]
	}
	if c >= '0' && c <= '7' {
		d := digits(3, func(c byte) bool { return c >= '0' && c <= '7' })
		v, _ := strconv.ParseUint(d, 8, 16)
		b.WriteByte(byte(v))
		a.pos += len(d)
		return
	}
	if c == 'x' {
		a.pos++
		d := digits(2, func(c byte) bool {
			return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
		})
		if d == "" {
			b.WriteByte('x')
			return
		}
		v, _ := strconv.ParseUint(d, 16, 8)
		b.WriteByte(byte(v))
		a.pos += len(d)
		return
	}
	b.WriteByte(c)
	a.pos++
}

// metaCommand runs the meta-command whose backslash is at line[pos] and
// returns the position where SQL scanning resumes.
func (r *repl) metaCommand(line string, pos int, st *loopState) int {
	// The name is the character after the backslash plus everything up to
	// whitespace or the next backslash.
	end := pos + 1
	if end < len(line) {
		end++
	}
	for end < len(line) && !isSpace(line[end]) && line[end] != '\\' {
		end++
	}
	name := line[pos+1 : end]
	args := &cmdArgs{line: line, pos: end}

	if !r.runMetaCommand(name, args, st) {
		// Like psql, drop the rest of the line after a failed command.
		r.failed = true
		return len(line)
	}
	// Arguments the command did not take are reported and skipped.
	for {
		arg, ok := args.next()
		if !ok {
			break
		}
		r.clientWarning(fmt.Sprintf(`\%s: extra argument "%s" ignored`, name, arg))
	}
	if r.quit {
		return len(line)
	}
	// "\\" separates a meta-command from SQL that follows on the line.
	if strings.HasPrefix(line[args.pos:], `\\`) {
		return args.pos + 2
	}
	return args.pos
}

// runMetaCommand runs one command and reports whether it succeeded. It
// prints its own error messages.
func (r *repl) runMetaCommand(name string, args *cmdArgs, st *loopState) bool {
	switch name {
	case "q", "quit":
		r.quit = true
	case "?":
		r.print(metaHelp(r.timing, r.expanded))
	case "echo":
		var words []string
		for {
			w, ok := args.next()
			if !ok {
				break
			}
			words = append(words, w)
		}
		newline := true
		if len(words) > 0 && words[0] == "-n" {
			words, newline = words[1:], false
		}
		r.print(strings.Join(words, " "))
		if newline {
			r.print("\n")
		}
	case "timing":
		if arg, ok := args.next(); ok {
			on, valid := parseBool(arg)
			if !valid {
				r.clientError(fmt.Sprintf(`unrecognized value "%s" for "\timing": Boolean expected`, arg))
				r.info(onOff("Timing is %s.", r.timing))
				return false
			}
			r.timing = on
		} else {
			r.timing = !r.timing
		}
		r.info(onOff("Timing is %s.", r.timing))
	case "x":
		return r.setExpanded(args)
	case "des", "des+":
		return r.listServers(name == "des+")
	case "deu", "deu+":
		return r.listUserMappings(name == "deu+")
	case "det", "det+":
		return r.listForeignTables(name == "det+")
	case "d", "d+":
		pattern, ok := args.next()
		if !ok {
			return r.listRelations()
		}
		return r.describeRelation(pattern, name == "d+")
	case "i", "include", "ir", "include_relative":
		file, ok := args.next()
		if !ok {
			r.clientError(fmt.Sprintf(`\%s: missing required argument`, name))
			return false
		}
		r.out.Flush()
		r.includeFile(file, strings.HasPrefix(name, "ir") || name == "include_relative")
	case "g":
		sql := string(st.buf)
		if !st.sc.content {
			sql = r.lastQuery
		}
		st.reset()
		if sql != "" {
			r.sendQuery(sql)
		}
	case "r", "reset":
		st.reset()
		r.info("Query buffer reset (cleared).")
	case "p", "print":
		switch {
		case len(st.buf) > 0:
			r.println(string(st.buf))
		case r.lastQuery != "":
			r.println(r.lastQuery)
		default:
			r.println("Query buffer is empty.")
		}
	default:
		msg := `invalid command \` + name
		if r.src.interactive() {
			msg += "\nTry \\? for help."
		}
		r.clientError(msg)
		return false
	}
	return true
}

// setExpanded runs \x [on|off|auto].
func (r *repl) setExpanded(args *cmdArgs) bool {
	arg, ok := args.next()
	switch {
	case !ok:
		if r.expanded == expandedOff {
			r.expanded = expandedOn
		} else {
			r.expanded = expandedOff
		}
	case arg != "" && strings.HasPrefix("auto", strings.ToLower(arg)):
		r.expanded = expandedAuto
	default:
		on, valid := parseBool(arg)
		if !valid {
			r.clientError(fmt.Sprintf("unrecognized value \"%s\" for \"expanded\"\nAvailable values are: on, off, auto.", arg))
			return false
		}
		r.expanded = expandedOff
		if on {
			r.expanded = expandedOn
		}
	}
	switch r.expanded {
	case expandedAuto:
		r.info("Expanded display is used automatically.")
	default:
		r.info(onOff("Expanded display is %s.", r.expanded == expandedOn))
	}
	return true
}

func onOff(format string, on bool) string {
	if on {
		return fmt.Sprintf(format, "on")
	}
	return fmt.Sprintf(format, "off")
}

// parseBool is psql's ParseVariableBool: any unambiguous prefix of true,
// false, yes, no, on, off, or 1 and 0, in any case.
func parseBool(s string) (value, ok bool) {
	l := strings.ToLower(s)
	switch {
	case l == "":
		return false, false
	case strings.HasPrefix("true", l), strings.HasPrefix("yes", l), l == "1":
		return true, true
	case strings.HasPrefix("false", l), strings.HasPrefix("no", l), l == "0":
		return false, true
	case len(l) >= 2 && strings.HasPrefix("on", l):
		return true, true
	case len(l) >= 2 && strings.HasPrefix("off", l):
		return false, true
	}
	return false, false
}

// metaHelp is the text of \?.
func metaHelp(timing bool, expanded expandedMode) string {
	state := func(on bool) string {
		if on {
			return "on"
		}
		return "off"
	}
	x := state(expanded == expandedOn)
	if expanded == expandedAuto {
		x = "auto"
	}
	return `General
  \q                     quit pgfed
  \?                     show help on backslash commands

Query Buffer
  \g                     execute the query buffer (or the previous query if it is empty)
  \p                     show the contents of the query buffer
  \r                     reset (clear) the query buffer

Input/Output
  \echo [-n] [STRING]    write string to standard output (-n for no newline)
  \i FILE                execute commands from file
  \ir FILE               as \i, but relative to location of current script

Formatting
  \timing [on|off]       toggle timing of commands (currently ` + state(timing) + `)
  \x [on|off|auto]       toggle expanded output (currently ` + x + `)

Informational
  \d                     list tables
  \d NAME                describe table
  \d+ NAME               describe table, listing its partitions

Statements end with ";" and may span lines. Ctrl-C cancels a running
statement or clears the statement being typed; Ctrl-D or \q quits.
With -c, -f or piped input, pgfed goes on after a failed statement or
command and exits with status 1 at the end if anything failed.

`
}
