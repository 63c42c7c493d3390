package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the testdata/*.txt transcripts with the current output")

// A transcript (testdata/*.txt) is a REPL session against the fake
// session: free text describing it, then sections that start with a line
// "-- NAME --":
//
//	args    command-line arguments, one per line (optional)
//	input   what standard input holds
//	output  standard output and standard error, interleaved as written
//	status  the exit status
//	calls   the calls the REPL made on the session (fake sessions only)
//
// The test runs args and input through run and compares the whole file
// with what it would be with the actual output, status and calls; -update
// rewrites it. Sections keep their text exactly, except that a final
// newline is added to one that lacks it.
type transcript struct {
	comment string
	args    []string
	hasArgs bool
	input   string
	output  string
	status  string
	calls   string
	// hasCalls is set for sessions that log calls (the fake).
	hasCalls bool
}

var sectionRE = regexp.MustCompile(`(?m)^-- (args|input|output|status|calls) --\n`)

func parseTranscript(text string) (*transcript, error) {
	t := &transcript{}
	locs := sectionRE.FindAllStringSubmatchIndex(text, -1)
	if len(locs) == 0 {
		return nil, fmt.Errorf("no sections")
	}
	t.comment = text[:locs[0][0]]
	for i, loc := range locs {
		name := text[loc[2]:loc[3]]
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		body := text[loc[1]:end]
		switch name {
		case "args":
			t.hasArgs = true
			t.args = strings.Split(strings.TrimSuffix(body, "\n"), "\n")
		case "input":
			t.input = body
		case "output":
			t.output = body
		case "status":
			t.status = body
		case "calls":
			t.hasCalls = true
			t.calls = body
		}
	}
	return t, nil
}

func (t *transcript) String() string {
	var b strings.Builder
	b.WriteString(t.comment)
	section := func(name, body string) {
		fmt.Fprintf(&b, "-- %s --\n", name)
		b.WriteString(body)
		if body != "" && !strings.HasSuffix(body, "\n") {
			b.WriteByte('\n')
		}
	}
	if t.hasArgs {
		section("args", strings.Join(t.args, "\n"))
	}
	section("input", t.input)
	section("output", t.output)
	section("status", t.status)
	if t.hasCalls {
		section("calls", t.calls)
	}
	return b.String()
}

// fakeClock advances 1.5 ms each time it is read, so \timing prints
// "Time: 1.500 ms" for every statement.
func fakeClock() func() time.Time {
	var ticks atomic.Int64
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time {
		return base.Add(time.Duration(ticks.Add(1)) * 1500 * time.Microsecond)
	}
}

// callLogger is a session that records the calls made on it (the fake);
// transcripts run on it get a calls section.
type callLogger interface {
	callLog() []string
}

// runTranscript runs a session the way main would.
func runTranscript(args []string, input string, sess Session) (output string, status int, err error) {
	var out bytes.Buffer
	opts, err := parseArgs(args, &out)
	if errors.Is(err, flag.ErrHelp) {
		return out.String(), 0, nil
	}
	if err != nil {
		return "", 0, err
	}
	opts.owner = "pgfed"
	opts.now = fakeClock()
	status = run(context.Background(), strings.NewReader(input), &out, &out, sess, opts)
	return out.String(), status, nil
}

func TestTranscripts(t *testing.T) {
	checkTranscripts(t, "testdata/*.txt", func() Session { return newFakeSession() })
}

// checkTranscripts runs the transcripts matching glob, each on a new
// session from newSession, and compares or (-update) rewrites them. Other
// sessions than the fake, such as the real engine, can use it too.
func checkTranscripts(t *testing.T, glob string, newSession func() Session) {
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts match %s: %v", glob, err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := parseTranscript(string(data))
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			var args []string
			if tr.hasArgs {
				args = tr.args
			}
			sess := newSession()
			output, status, err := runTranscript(args, tr.input, sess)
			if err != nil {
				t.Fatalf("%s: arguments: %v", file, err)
			}
			tr.output = output
			tr.status = fmt.Sprintf("%d\n", status)
			tr.calls, tr.hasCalls = "", false
			if l, ok := sess.(callLogger); ok {
				tr.hasCalls = true
				for _, c := range l.callLog() {
					tr.calls += c + "\n"
				}
			}
			got := tr.String()
			if *update {
				if got != string(data) {
					if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			if diff := cmp.Diff(string(data), got); diff != "" {
				t.Errorf("%s differs (-want +got); run go test -update to accept:\n%s", file, diff)
			}
		})
	}
}
