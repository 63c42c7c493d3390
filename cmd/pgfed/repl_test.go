package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeTerminal replays typed lines; an entry with err set is a key press
// (Ctrl-C) instead of a line. It records the prompts shown and history.
type fakeTerminal struct {
	inputs  []termInput
	prompts []string
	history []string
}

type termInput struct {
	line string
	err  error
}

func (f *fakeTerminal) Prompt(prompt string) (string, error) {
	f.prompts = append(f.prompts, prompt)
	if len(f.inputs) == 0 {
		return "", io.EOF
	}
	in := f.inputs[0]
	f.inputs = f.inputs[1:]
	return in.line, in.err
}

func (f *fakeTerminal) AppendHistory(entry string) { f.history = append(f.history, entry) }

func typed(lines ...string) []termInput {
	var in []termInput
	for _, l := range lines {
		in = append(in, termInput{line: l})
	}
	return in
}

var ctrlC = termInput{err: errInterrupted}

// runInteractive runs the REPL on a fake terminal and returns the output
// (both streams) and the session's calls.
func runInteractive(t *testing.T, term *fakeTerminal) (string, *fakeSession) {
	t.Helper()
	sess := newFakeSession()
	var out bytes.Buffer
	status := run(context.Background(), strings.NewReader("not read"), &out, &out, sess,
		options{term: term, owner: "pgfed"})
	if status != 0 {
		t.Errorf("interactive status %d, want 0", status)
	}
	return out.String(), sess
}

func TestInteractivePromptsAndHistory(t *testing.T) {
	var in []termInput
	in = append(in, typed("select (1,", "2)", "+ 'a", "b';")...)
	in = append(in, typed("select /* c", "*/ 1;", "select $$", "$$;", `select "x`, `";`)...)
	in = append(in, typed("select", "  'typed then discarded'")...)
	in = append(in, ctrlC)
	in = append(in, typed("select 2; select", "3;", `\foo`, "")...)
	term := &fakeTerminal{inputs: in}
	out, sess := runInteractive(t, term)

	wantPrompts := []string{
		"pgfed=> ", "pgfed(> ", "pgfed-> ", "pgfed'> ",
		"pgfed=> ", "pgfed*> ", "pgfed=> ", "pgfed$> ", "pgfed=> ", `pgfed"> `,
		"pgfed=> ", "pgfed-> ", "pgfed-> ",
		"pgfed=> ", "pgfed-> ", "pgfed=> ", "pgfed=> ", "pgfed=> ",
	}
	if diff := cmp.Diff(wantPrompts, term.prompts); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
	wantCalls := []string{
		`Query "select (1,\n2)\n+ 'a\nb';"`,
		`Query "select /* c\n*/ 1;"`,
		`Query "select $$\n$$;"`,
		`Query "select \"x\n\";"`,
		`Query "select 2;"`,
		`Query "select\n3;"`,
	}
	if diff := cmp.Diff(wantCalls, sess.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	wantHistory := []string{
		"select (1, 2) + 'a b';",
		"select /* c */ 1;",
		"select $$ $$;",
		`select "x ";`,
		"select 2; select 3;",
		`\foo`,
	}
	if diff := cmp.Diff(wantHistory, term.history); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	if !strings.Contains(out, "invalid command \\foo\nTry \\? for help.\n") {
		t.Errorf("unknown command message missing from:\n%s", out)
	}
	if !strings.HasSuffix(out, "\\q\n") {
		t.Errorf("Ctrl-D should print \\q, got:\n%s", out)
	}
}

func TestInteractiveWords(t *testing.T) {
	term := &fakeTerminal{inputs: typed("help", "select", "quit", ";", "exit;", "select 'not read';")}
	out, sess := runInteractive(t, term)
	if !strings.HasPrefix(out, introHelp) {
		t.Errorf("help should print the introduction, got:\n%s", out)
	}
	if !strings.Contains(out, "Use \\q to quit.\n") {
		t.Errorf("quit inside a statement should hint at \\q, got:\n%s", out)
	}
	// "quit" inside a statement joins it, as in psql.
	if diff := cmp.Diff([]string{`Query "select\nquit\n;"`}, sess.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if len(term.inputs) != 1 {
		t.Errorf("exit should stop reading; %d inputs left", len(term.inputs))
	}
}

func TestInteractiveCopy(t *testing.T) {
	term := &fakeTerminal{inputs: typed("copy t from stdin;", "1\ta", `\.`, "copy t to stdout;")}
	out, _ := runInteractive(t, term)
	want := "Enter data to be copied followed by a newline.\n" +
		"End with a backslash and a period on a line by itself, or an EOF signal.\n" +
		"COPY 1\n1\ta\n\\q\n" // no tag after COPY TO STDOUT, as in psql
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
	if diff := cmp.Diff([]string{"pgfed=> ", ">> ", ">> ", "pgfed=> ", "pgfed=> "}, term.prompts); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
}

func TestInteractiveCopyCanceled(t *testing.T) {
	in := append(typed("copy t from stdin;", "1\ta"), ctrlC)
	in = append(in, typed("select 'next';")...)
	term := &fakeTerminal{inputs: in}
	out, sess := runInteractive(t, term)
	if !strings.Contains(out, "ERROR:  canceling statement due to user request\n") {
		t.Errorf("Ctrl-C during COPY data should cancel it, got:\n%s", out)
	}
	if len(sess.calls) != 2 || !strings.Contains(sess.calls[1], "select 'next'") {
		t.Errorf("the REPL should go on after the cancel; calls %q", sess.calls)
	}
}

// TestCancelRunningStatement checks that an interrupt cancels the running
// statement and that the REPL then goes on.
func TestCancelRunningStatement(t *testing.T) {
	sess := newFakeSession()
	sigs := make(chan os.Signal, 1)
	go func() {
		<-sess.started
		sigs <- os.Interrupt
	}()
	var out bytes.Buffer
	errOut := &lockedBuffer{}
	done := make(chan int)
	go func() {
		done <- run(context.Background(), strings.NewReader("select pg_sleep(1000);\nselect 'after';\n"),
			&out, errOut, sess, options{interrupts: sigs})
	}()
	select {
	case status := <-done:
		if status != 1 {
			t.Errorf("status %d, want 1", status)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the statement was not canceled")
	}
	if got, want := errOut.String(), "Cancel request sent\nERROR:  canceling statement due to user request\n"; got != want {
		t.Errorf("errors %q, want %q", got, want)
	}
	if !strings.Contains(out.String(), "select 'after';") {
		t.Errorf("the next statement did not run:\n%s", out.String())
	}
}

// lockedBuffer is written by the interrupt watcher and the main loop.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestStreams checks that results go to the output stream and errors and
// notices to the error stream.
func TestStreams(t *testing.T) {
	var out, errOut bytes.Buffer
	status := run(context.Background(),
		strings.NewReader("select * frm t;\ndrop table if exists nosuch;\r\n\\echo done"),
		&out, &errOut, newFakeSession(), options{})
	if status != 1 {
		t.Errorf("status %d, want 1", status)
	}
	if got, want := out.String(), "DROP TABLE\ndone\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
	wantErr := "ERROR:  syntax error at or near \"frm\"\nLINE 1: select * frm t;\n                 ^\n" +
		"NOTICE:  table \"nosuch\" does not exist, skipping\n"
	if got := errOut.String(); got != wantErr {
		t.Errorf("errors %q, want %q", got, wantErr)
	}
}

func TestNoRelations(t *testing.T) {
	sess := newFakeSession()
	sess.relations = nil
	var out bytes.Buffer
	status := run(context.Background(), strings.NewReader(`\d`), &out, &out, sess, options{})
	if got := out.String(); got != "Did not find any relations.\n" || status != 0 {
		t.Errorf("got %q, status %d", got, status)
	}
}

func TestContextCanceledStopsRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sess := newFakeSession()
	run(ctx, strings.NewReader("select 1;\n"), io.Discard, io.Discard, sess, options{})
	if len(sess.calls) != 0 {
		t.Errorf("calls after cancel: %q", sess.calls)
	}
}

func TestParseArgs(t *testing.T) {
	opts, err := parseArgs([]string{"-c", "select 1", "--file=a.sql", "--command", `\d`, "-f", "b.sql", "--csv", "-q"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := []action{{text: "select 1"}, {file: true, text: "a.sql"}, {text: `\d`}, {file: true, text: "b.sql"}}
	if diff := cmp.Diff(want, opts.actions, cmp.AllowUnexported(action{})); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
	if !opts.csv || !opts.quiet {
		t.Errorf("csv %v quiet %v", opts.csv, opts.quiet)
	}
	if _, err := parseArgs([]string{"--bogus"}, io.Discard); err == nil {
		t.Error("unknown flag accepted")
	}
	if _, err := parseArgs([]string{"dbname"}, io.Discard); err == nil {
		t.Error("positional argument accepted")
	}
	var help bytes.Buffer
	if _, err := parseArgs([]string{"-?"}, &help); err == nil || !strings.Contains(help.String(), "Exit status") {
		t.Errorf("-? gave %v and %q", err, help.String())
	}
}

func TestCmdArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		rest string
	}{
		{"", nil, ""},
		{"  a b\tc  ", []string{"a", "b", "c"}, ""},
		{`'a b' 'it''s' 'x\ty\n' '\101\x41\q'`, []string{"a b", "it's", "x\ty\n", "AAq"}, ""},
		{`"Mixed Case"."t" a'b'c`, []string{`"Mixed Case"."t"`, "abc"}, ""},
		{`a\b c`, []string{"a"}, `\b c`},
		{`a \\ select 1;`, []string{"a"}, `\\ select 1;`},
		{`'unterminated`, []string{"unterminated"}, ""},
	}
	for _, tt := range tests {
		a := &cmdArgs{line: tt.in}
		var got []string
		for {
			arg, ok := a.next()
			if !ok {
				break
			}
			got = append(got, arg)
		}
		if !cmp.Equal(tt.want, got) || tt.in[a.pos:] != tt.rest {
			t.Errorf("%q: args %q rest %q, want %q rest %q", tt.in, got, tt.in[a.pos:], tt.want, tt.rest)
		}
	}
}

func TestParseBool(t *testing.T) {
	for in, want := range map[string]bool{"on": true, "ON": true, "of": false, "off": false, "t": true,
		"tr": true, "yes": true, "y": true, "n": false, "no": false, "f": false, "1": true, "0": false} {
		if got, ok := parseBool(in); !ok || got != want {
			t.Errorf("parseBool(%q) = %v, %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "o", "maybe", "2", "onn"} {
		if _, ok := parseBool(in); ok {
			t.Errorf("parseBool(%q) accepted", in)
		}
	}
}

func TestFakeSQLName(t *testing.T) {
	for in, want := range map[string]string{
		"t": "t", "T": "t", `"T"`: "T", "Public.T": "public.t", `s."Odd ""x"""`: `s.Odd "x"`,
	} {
		if got := sqlName(in); got != want {
			t.Errorf("sqlName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDescribeOSError(t *testing.T) {
	_, err := os.Open("testdata/no such file")
	if got := describeOSError(err); got != "No such file or directory" {
		t.Errorf("got %q", got)
	}
	if got := describeOSError(errors.New("x")); got != "X" {
		t.Errorf("got %q", got)
	}
}
