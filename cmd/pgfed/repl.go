package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pgfed/pgfed"
)

// Session is what the REPL uses of a *pgfed.Session. main adapts the real
// session (see engineSession); tests use a fake.
type Session interface {
	Query(ctx context.Context, sql string) (Rows, error)
	// Run runs every statement of sql as one query (one implicit
	// transaction), calling fn with each statement's result.
	Run(ctx context.Context, sql string, fn func(Rows) error) error
	SetCopyHandler(h pgfed.CopyHandler)
	SetNoticeHandler(fn func(*pgfed.Notice))
	ListRelations() ([]pgfed.RelationInfo, error)
	DescribeRelation(name string) (*pgfed.RelationDesc, error)
	ListServers() ([]pgfed.ServerInfo, error)
	ListUserMappings() ([]pgfed.UserMappingInfo, error)
	ListForeignTables() ([]pgfed.ForeignTableInfo, error)
}

// Rows is what the REPL uses of a *pgfed.Rows, an interface so that tests
// can fake results.
type Rows interface {
	ReturnsRows() bool
	Columns() []pgfed.Column
	Next() bool
	Text(i int) (s string, ok bool)
	Err() error
	Tag() string
	Close() error
}

// Terminal is an interactive line editor (liner in main).
type Terminal interface {
	// Prompt shows prompt and returns the line typed, without its
	// newline: io.EOF on Ctrl-D, errInterrupted on Ctrl-C.
	Prompt(prompt string) (string, error)
	AppendHistory(entry string)
}

// errInterrupted is what a Terminal returns when the user presses Ctrl-C
// at a prompt.
var errInterrupted = errors.New("interrupted")

// action is one -c or -f option, run in command-line order.
type action struct {
	file bool   // text is a file name (-f) rather than a command (-c)
	text string // the command, or the file name ("-" for standard input)
}

// options configures run.
type options struct {
	actions []action
	csv     bool
	quiet   bool // -q: no command tags or informational messages

	// term, when set, makes the session interactive: input comes from it
	// rather than from run's reader, with prompts and history.
	term Terminal
	// interrupts delivers Ctrl-C (SIGINT) while statements run; each one
	// cancels the running statement.
	interrupts <-chan os.Signal
	// owner is the Owner column of \d.
	owner string
	// termWidth reports the terminal's width for \x auto, 0 if unknown.
	termWidth func() int
	// now is the clock \timing reads; tests stub it.
	now func() time.Time
}

// run is the REPL: it reads statements and meta-commands from the -c and -f
// actions, from the terminal, or else from in, runs them on sess and writes
// results to out and messages to errOut. It returns the process exit
// status: 1 if a non-interactive run had any failure, else 0.
func run(ctx context.Context, in io.Reader, out, errOut io.Writer, sess Session, opts options) int {
	if opts.now == nil {
		opts.now = time.Now
	}
	if opts.termWidth == nil {
		opts.termWidth = func() int { return 0 }
	}
	r := &repl{
		ctx:    ctx,
		sess:   sess,
		opts:   opts,
		out:    bufio.NewWriter(out),
		errOut: &syncWriter{w: errOut},
	}
	if opts.csv {
		r.format = formatCSV
	}
	sess.SetNoticeHandler(r.notice)
	sess.SetCopyHandler(copyHandler{r})

	done := make(chan struct{})
	defer close(done)
	if opts.interrupts != nil {
		go r.watchInterrupts(opts.interrupts, done)
	}

	// Standard input is read through one buffer whoever reads it: -f -,
	// or COPY FROM STDIN in a -c command (psql reads that data from
	// standard input, as in "... | pgfed -c 'COPY t FROM STDIN'").
	stdin := bufio.NewReader(in)
	switch {
	case len(opts.actions) > 0:
		for _, a := range opts.actions {
			if r.quit {
				break
			}
			switch {
			case a.file:
				r.runFile(a.text, stdin)
			case strings.HasPrefix(strings.TrimSpace(a.text), `\`):
				// A -c holding a meta-command runs it (psql's -c is either
				// SQL or one backslash command).
				r.mainLoop(&source{
					reader:   bufio.NewReader(strings.NewReader(a.text)),
					copyFrom: &source{reader: stdin},
				})
			default:
				r.sendCommand(a.text, &source{copyFrom: &source{reader: stdin}})
			}
		}
	case opts.term != nil:
		r.mainLoop(&source{term: opts.term})
	default:
		r.mainLoop(&source{reader: stdin})
	}
	r.out.Flush()
	if r.failed && opts.term == nil {
		return 1
	}
	return 0
}

// repl is the state of one run.
type repl struct {
	ctx    context.Context
	sess   Session
	opts   options
	out    *bufio.Writer
	errOut *syncWriter
	// copiedOut is set when the running statement wrote COPY data to out.
	copiedOut bool

	// Settings changed by meta-commands.
	timing   bool
	expanded expandedMode
	format   outputFormat

	src       *source // the input being read
	depth     int     // \i nesting
	lastQuery string  // for \g and \p on an empty buffer
	failed    bool    // something failed: the exit status of a script
	quit      bool

	// copyIn is the reader handed to the engine by the running COPY FROM
	// STDIN, drained afterwards so that unread data is not taken for SQL.
	copyIn *copyReader

	mu     sync.Mutex
	cancel context.CancelFunc // cancels the running statement, if any
}

// source is one input stream: the terminal, a file, standard input or a
// -c string. Statements and COPY data both come from it.
type source struct {
	term   Terminal
	reader *bufio.Reader
	// name is the file name messages are prefixed with, psql-style
	// ("pgfed:FILE:LINE: "); empty for the terminal, piped input and -c.
	name   string
	lineno int
	// copyFrom, if set, is where COPY FROM STDIN data comes from instead
	// of this input.
	copyFrom *source
}

func (s *source) interactive() bool { return s.term != nil }

// readLine returns the next line without its newline, io.EOF at the end.
func (s *source) readLine(prompt string) (string, error) {
	if s.term != nil {
		line, err := s.term.Prompt(prompt)
		if err == nil {
			s.lineno++
		}
		return line, err
	}
	line, err := s.reader.ReadString('\n')
	if err == io.EOF && line != "" {
		err = nil // a last line without a newline still counts
	}
	if err != nil {
		return "", err
	}
	s.lineno++
	return strings.TrimSuffix(line, "\n"), nil
}

// syncWriter serialises writes to the error stream, which notices from the
// engine and the Ctrl-C watcher share with the main loop.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// watchInterrupts cancels the running statement on each interrupt. Outside
// a statement an interrupt does nothing: at the prompt the terminal itself
// turns Ctrl-C into errInterrupted.
func (r *repl) watchInterrupts(ch <-chan os.Signal, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case <-ch:
			r.mu.Lock()
			if r.cancel != nil {
				r.cancel()
				r.cancel = nil
				// psql says so too; the error follows when the engine
				// notices the cancellation.
				io.WriteString(r.errOut, "Cancel request sent\n")
			}
			r.mu.Unlock()
		}
	}
}

func (r *repl) setCancel(cancel context.CancelFunc) {
	r.mu.Lock()
	r.cancel = cancel
	r.mu.Unlock()
}

// cancelStatement cancels the running statement, as Ctrl-C while COPY
// data is typed does.
func (r *repl) cancelStatement() {
	r.mu.Lock()
	if r.cancel != nil {
		r.cancel()
		r.cancel = nil
	}
	r.mu.Unlock()
}

// loopState is the statement being assembled by one mainLoop. Like psql,
// every input (each -c, file and \i) has its own, so an included file
// cannot finish a statement begun outside it.
type loopState struct {
	sc  scanner
	buf []byte
}

func (st *loopState) reset() {
	st.sc.reset()
	st.buf = st.buf[:0]
}

// mainLoop is psql's MainLoop: it reads src line by line, sends each
// complete statement and runs meta-commands, until the input ends or \q.
func (r *repl) mainLoop(src *source) {
	outer := r.src
	r.src = src
	defer func() { r.src = outer }()

	var st loopState
	var history []string // lines of the entry being typed, for the terminal's history
	for !r.quit && r.ctx.Err() == nil {
		prompt := ""
		if src.interactive() {
			prompt = "pgfed" + string(st.sc.promptChar(len(st.buf) == 0)) + "> "
		}
		r.out.Flush()
		line, err := src.readLine(prompt)
		if errors.Is(err, errInterrupted) {
			// Ctrl-C at the prompt discards the statement being typed.
			st.reset()
			history = nil
			continue
		}
		if err == io.EOF {
			if src.interactive() {
				if !r.opts.quiet {
					r.println(`\q`)
				}
			} else if st.sc.content {
				// psql sends what is left at the end of a script,
				// even without a semicolon.
				r.sendQuery(string(st.buf))
			}
			break
		}
		if err != nil {
			r.clientError(fmt.Sprintf("could not read input: %v", err))
			break
		}
		if line == "" && !st.sc.inQuote() {
			continue
		}
		if src.interactive() {
			history = append(history, line)
			if r.plainWordCommand(line, &st) {
				r.flushHistory(&history)
				continue
			}
		}
		r.processLine(line, &st)
		if src.interactive() && len(st.buf) == 0 {
			r.flushHistory(&history)
		}
	}
	r.out.Flush()
}

// processLine scans one input line, sending the statements it completes
// and running the meta-commands it holds.
func (r *repl) processLine(line string, st *loopState) {
	// Lines are joined with newlines; remember where this one was added so
	// that a line holding only a meta-command leaves the buffer unchanged.
	addedNL := -1
	if len(st.buf) > 0 {
		st.buf = append(st.buf, '\n')
		addedNL = len(st.buf)
	}
	for pos := 0; !r.quit; {
		res, next := st.sc.scan(line, pos, &st.buf)
		pos = next
		switch res {
		case scanSemicolon:
			if st.sc.content {
				r.sendQuery(string(st.buf))
			}
			st.buf = st.buf[:0]
			st.sc.content = false
			continue
		case scanBackslash:
			if len(st.buf) == addedNL {
				st.buf = st.buf[:addedNL-1]
			}
			pos = r.metaCommand(line, pos, st)
			continue
		}
		return
	}
}

// plainWordCommand handles psql's words "help", "quit" and "exit", which
// act as commands when typed alone (perhaps with a semicolon) on the first
// line of a statement at an interactive prompt.
func (r *repl) plainWordCommand(line string, st *loopState) bool {
	word := strings.TrimRight(strings.TrimSpace(line), ";")
	word = strings.ToLower(strings.TrimSpace(word))
	if word != "help" && word != "quit" && word != "exit" {
		return false
	}
	if len(st.buf) > 0 {
		// Like psql, hint but let the word join the statement.
		switch {
		case word == "help":
			r.println(`Use \? for help or press control-C to clear the input buffer.`)
		case st.sc.inQuote():
			r.println(`Use control-D to quit.`)
		default:
			r.println(`Use \q to quit.`)
		}
		return false
	}
	if word == "help" {
		r.print(introHelp)
	} else {
		r.quit = true
	}
	return true
}

const introHelp = `You are using pgfed, a query engine that speaks PostgreSQL 15's SQL over
in-memory Apache Arrow tables.
Type:  \? for help with pgfed commands
       \q to quit
`

// flushHistory adds the lines of a finished entry to the terminal's
// history as one line: liner's history holds single lines, and recalling a
// whole statement is what one wants.
func (r *repl) flushHistory(lines *[]string) {
	if len(*lines) == 0 {
		return
	}
	parts := make([]string, 0, len(*lines))
	for _, l := range *lines {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	if len(parts) > 0 {
		r.opts.term.AppendHistory(strings.Join(parts, " "))
	}
	*lines = nil
}

// runFile runs a -f file; "-" is standard input.
func (r *repl) runFile(name string, stdin *bufio.Reader) {
	if name == "-" {
		r.mainLoop(&source{reader: stdin, name: "<stdin>"})
		return
	}
	f, err := os.Open(name)
	if err != nil {
		r.out.Flush()
		fmt.Fprintf(r.errOut, "pgfed: error: %s: %s\n", name, describeOSError(err))
		r.failed = true
		return
	}
	defer f.Close()
	r.mainLoop(&source{reader: bufio.NewReader(f), name: name})
}

// sendQuery runs one statement and prints its result or error.
func (r *repl) sendQuery(sql string) {
	r.lastQuery = sql
	ctx, cancel := context.WithCancel(r.ctx)
	r.setCancel(cancel)
	start := r.opts.now()
	res, err := r.execute(ctx, sql)
	elapsed := r.opts.now().Sub(start)
	r.setCancel(nil)
	cancel()
	r.finishCopyIn()

	if err != nil {
		r.serverError(err, sql)
	} else {
		r.printResult(res)
	}
	if r.timing {
		r.println(formatTiming(elapsed))
	}
	r.out.Flush()
}

// sendCommand sends a -c string as psql does: as one query, whose
// statements are one implicit transaction; each statement's result is
// printed, and the first error ends the query.
func (r *repl) sendCommand(sql string, src *source) {
	outer := r.src
	r.src = src
	defer func() { r.src = outer }()
	r.lastQuery = sql
	ctx, cancel := context.WithCancel(r.ctx)
	r.setCancel(cancel)
	r.copiedOut = false
	err := r.sess.Run(ctx, sql, func(rows Rows) error {
		res, err := r.collect(rows)
		r.finishCopyIn()
		if err == nil {
			r.printResult(res)
		}
		r.copiedOut = false // set by the next statement's COPY TO STDOUT
		return err
	})
	r.setCancel(nil)
	cancel()
	if err != nil {
		r.serverError(err, sql)
	}
	r.out.Flush()
}

// result is a statement's outcome, read in full before printing because
// column widths depend on every row (psql does the same).
type result struct {
	returnsRows bool
	columns     []pgfed.Column
	rows        [][]string
	tag         string
}

func (r *repl) execute(ctx context.Context, sql string) (*result, error) {
	r.copiedOut = false
	rows, err := r.sess.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	return r.collect(rows)
}

// collect reads a statement's result to its end and closes it.
func (r *repl) collect(rows Rows) (*result, error) {
	res := &result{returnsRows: rows.ReturnsRows()}
	if res.returnsRows {
		res.columns = rows.Columns()
	}
	// Iterate even without a result set: the tag is only known once
	// iteration has ended.
	for rows.Next() {
		if !res.returnsRows {
			continue
		}
		row := make([]string, len(res.columns))
		for i := range row {
			if s, ok := rows.Text(i); ok {
				row[i] = s // NULL stays "", psql's default null display
			}
		}
		res.rows = append(res.rows, row)
	}
	err := rows.Err()
	res.tag = rows.Tag()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (r *repl) printResult(res *result) {
	if res.returnsRows {
		t := &table{
			headers:    make([]string, len(res.columns)),
			rightAlign: make([]bool, len(res.columns)),
			rows:       res.rows,
		}
		for i, c := range res.columns {
			t.headers[i] = c.Name
			t.rightAlign[i] = c.Type.IsNumeric()
		}
		r.printTable(t, true)
		// psql shows the tag after the rows only for DML with RETURNING.
		for _, verb := range []string{"INSERT", "UPDATE", "DELETE"} {
			if strings.HasPrefix(res.tag, verb) {
				r.info(res.tag)
			}
		}
		return
	}
	if res.tag != "" && !(r.copiedOut && strings.HasPrefix(res.tag, "COPY")) {
		r.info(res.tag)
	}
}

// printTable prints t in the current format; allowExpanded is false for
// \d NAME, which psql never shows expanded.
func (r *repl) printTable(t *table, allowExpanded bool) {
	o := printOptions{format: r.format, termWidth: r.opts.termWidth()}
	if allowExpanded {
		o.expanded = r.expanded
	}
	printTable(r.out, t, o)
}

// print writes to the output stream.
func (r *repl) print(s string) { r.out.WriteString(s) }

func (r *repl) println(s string) {
	r.out.WriteString(s)
	r.out.WriteByte('\n')
}

// info prints an informational line (a command tag, "Timing is on."),
// which -q suppresses.
func (r *repl) info(s string) {
	if !r.opts.quiet {
		r.println(s)
	}
}

// location is psql's message prefix while a file is read: "pgfed:FILE:LINE: ".
func (r *repl) location() string {
	if r.src == nil || r.src.name == "" {
		return ""
	}
	return fmt.Sprintf("pgfed:%s:%d: ", r.src.name, r.src.lineno)
}

// writeErr writes a message to the error stream after flushing the output
// stream, so that the two interleave on a terminal as they happened.
func (r *repl) writeErr(s string) {
	r.out.Flush()
	io.WriteString(r.errOut, s)
}

// serverError reports an error from the engine and marks the run failed.
func (r *repl) serverError(err error, query string) {
	r.failed = true
	r.writeErr(r.location() + formatError(err, query))
}

// clientError reports an error of the REPL itself (a bad meta-command, a
// missing file) the way psql's logging does: bare on a terminal, as
// "pgfed:FILE:LINE: error: ..." in a file.
func (r *repl) clientError(msg string) {
	r.failed = true
	r.clientMessage("error", msg)
}

func (r *repl) clientWarning(msg string) { r.clientMessage("warning", msg) }

func (r *repl) clientMessage(level, msg string) {
	if loc := r.location(); loc != "" {
		msg = loc + level + ": " + msg
	}
	r.writeErr(msg + "\n")
}

// notice is the session's notice handler.
func (r *repl) notice(n *pgfed.Notice) {
	io.WriteString(r.errOut, r.location()+formatNotice(n))
}

// includeFile runs \i and \ir.
func (r *repl) includeFile(name string, relative bool) {
	if relative && !filepath.IsAbs(name) && r.src != nil && r.src.name != "" {
		name = filepath.Join(filepath.Dir(r.src.name), name)
	}
	const maxDepth = 64 // a file that includes itself would recurse forever
	if r.depth >= maxDepth {
		r.clientError(fmt.Sprintf("%s: input files nested too deeply", name))
		return
	}
	f, err := os.Open(name)
	if err != nil {
		r.clientError(fmt.Sprintf("%s: %s", name, describeOSError(err)))
		return
	}
	defer f.Close()
	r.depth++
	r.mainLoop(&source{reader: bufio.NewReader(f), name: name})
	r.depth--
}

// describeOSError spells a file error like C's strerror, as psql shows it:
// "No such file or directory".
func describeOSError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	s := err.Error()
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}
