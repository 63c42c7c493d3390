// Command pgfed is an interactive terminal for pgfed, in the manner of
// psql: it opens an in-memory database and runs SQL statements and psql's
// common meta-commands typed at a prompt, piped in, or given with -c and -f.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"

	"github.com/peterh/liner"

	"github.com/pgfed/pgfed"
)

func main() {
	os.Exit(pgfedMain(os.Args[1:]))
}

func pgfedMain(args []string) int {
	opts, err := parseArgs(args, os.Stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pgfed: error: %v\nTry \"pgfed --help\" for more information.\n", err)
		return 1
	}
	opts.owner = currentUser()
	opts.termWidth = func() int { return terminalWidth(os.Stdout) }

	// The REPL's user may COPY their own files, as psql's \copy does.
	db, err := pgfed.Open(pgfed.WithFileAccess("/"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "pgfed: error: %v\n", err)
		return 1
	}
	defer db.Close()
	sess := db.NewSession()
	defer sess.Close()

	// Like psql, be interactive only when reading a terminal and writing
	// to one, and no -c or -f was given.
	if len(opts.actions) == 0 && isTerminal(os.Stdin) && isTerminal(os.Stdout) {
		term := newLinerTerminal()
		defer term.close()
		opts.term = term
		// Ctrl-C reaches us as SIGINT only while a statement runs: at the
		// prompt liner keeps the terminal raw and reports it itself.
		// Non-interactive runs keep SIGINT's default, which ends the
		// process, much as psql stops a script on Ctrl-C.
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt)
		defer signal.Stop(sigs)
		opts.interrupts = sigs
		if !opts.quiet {
			fmt.Println("pgfed (PostgreSQL 15 dialect, in-memory database)")
			fmt.Println(`Type "\?" for help.`)
			fmt.Println()
		}
	}
	return run(context.Background(), os.Stdin, os.Stdout, os.Stderr, engineSession{sess}, opts)
}

// multiFlag collects -c and -f in the order given: psql runs them in that
// order, interleaved.
type multiFlag struct {
	actions *[]action
	file    bool
}

func (m multiFlag) String() string { return "" }

func (m multiFlag) Set(s string) error {
	*m.actions = append(*m.actions, action{file: m.file, text: s})
	return nil
}

const usage = `pgfed is an interactive terminal for pgfed, a query engine that speaks
PostgreSQL 15's SQL over in-memory Apache Arrow tables.

Usage:
  pgfed [OPTION]...

Options:
  -c, --command=COMMAND    run only single command (SQL or internal) and exit
  -f, --file=FILENAME      execute commands from file, then exit ("-" is stdin)
      --csv                CSV (Comma-Separated Values) table output mode
  -q, --quiet              run quietly (no command tags or informational messages)
  -?, --help               show this help, then exit

-c and -f may be repeated and mixed; they run in the order given.

Exit status:
  Without -c or -f, pgfed reads standard input: interactively, with line
  editing and history (~/.pgfed_history), when it is a terminal. A run that
  is not interactive (-c, -f or piped input) goes on after a failed
  statement or command, and exits with status 1 at the end if anything
  failed; otherwise the status is 0.
`

// parseArgs reads the command line. It returns flag.ErrHelp after printing
// the help to stdout.
func parseArgs(args []string, stdout io.Writer) (options, error) {
	var opts options
	fs := flag.NewFlagSet("pgfed", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported by the caller, help below
	fs.Var(multiFlag{actions: &opts.actions}, "c", "")
	fs.Var(multiFlag{actions: &opts.actions}, "command", "")
	fs.Var(multiFlag{actions: &opts.actions, file: true}, "f", "")
	fs.Var(multiFlag{actions: &opts.actions, file: true}, "file", "")
	fs.BoolVar(&opts.csv, "csv", false, "")
	fs.BoolVar(&opts.quiet, "q", false, "")
	fs.BoolVar(&opts.quiet, "quiet", false, "")
	help := false
	fs.BoolVar(&help, "?", false, "")
	fs.BoolVar(&help, "help", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) { // -h
			help = true
		} else {
			return opts, err
		}
	}
	if help {
		io.WriteString(stdout, usage)
		return opts, flag.ErrHelp
	}
	if fs.NArg() > 0 {
		return opts, fmt.Errorf("too many command-line arguments (first is %q)", fs.Arg(0))
	}
	return opts, nil
}

// engineSession adapts *pgfed.Session to Session: Query must return the
// Rows interface, and a nil *pgfed.Rows must not become a non-nil Rows.
type engineSession struct{ *pgfed.Session }

func (s engineSession) Query(ctx context.Context, sql string) (Rows, error) {
	rows, err := s.Session.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

func (s engineSession) Run(ctx context.Context, sql string, fn func(Rows) error) error {
	return s.Session.Run(ctx, sql, func(r *pgfed.Rows) error { return fn(r) })
}

// currentUser names the owner shown by \d: the OS user, as a fresh psql
// database would be owned by the user who created it.
func currentUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "pgfed"
}

// linerTerminal is the interactive Terminal: liner with psql-like
// history in ~/.pgfed_history.
type linerTerminal struct {
	state       *liner.State
	historyFile string
	// plain is set when liner cannot drive the output (it is not a
	// terminal after all); lines are then read without editing.
	plain *source
}

func newLinerTerminal() *linerTerminal {
	t := &linerTerminal{state: liner.NewLiner()}
	t.state.SetCtrlCAborts(true)
	if home, err := os.UserHomeDir(); err == nil {
		t.historyFile = filepath.Join(home, ".pgfed_history")
		if f, err := os.Open(t.historyFile); err == nil {
			t.state.ReadHistory(f)
			f.Close()
		}
	}
	return t
}

func (t *linerTerminal) Prompt(prompt string) (string, error) {
	if t.plain != nil {
		return t.plain.readLine("")
	}
	line, err := t.state.Prompt(prompt)
	switch {
	case errors.Is(err, liner.ErrPromptAborted):
		return "", errInterrupted
	case errors.Is(err, liner.ErrNotTerminalOutput):
		t.plain = &source{reader: newStdinReader()}
		return t.plain.readLine("")
	}
	return line, err
}

func (t *linerTerminal) AppendHistory(entry string) { t.state.AppendHistory(entry) }

// close saves the history and gives the terminal back its normal mode.
func (t *linerTerminal) close() {
	if t.historyFile != "" {
		if f, err := os.OpenFile(t.historyFile, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600); err == nil {
			t.state.WriteHistory(f)
			f.Close()
		}
	}
	t.state.Close()
}
