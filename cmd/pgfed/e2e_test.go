package main

import (
	"testing"

	"github.com/pgfed/pgfed"
)

// newEngineSession opens a database of its own, closed when t ends, and
// returns a session on it.
func newEngineSession(t *testing.T) Session {
	db, err := pgfed.Open()
	if err != nil {
		// Called from subtests, where t.Fatal on the parent is not allowed.
		panic(err)
	}
	t.Cleanup(func() { db.Close() })
	return engineSession{db.NewSession()}
}

// TestEngineTranscripts runs the transcripts in testdata/e2e through the
// REPL against the real engine, each on a new database; -update rewrites
// them as it does those of TestTranscripts.
func TestEngineTranscripts(t *testing.T) {
	checkTranscripts(t, "testdata/e2e/*.txt", func() Session { return newEngineSession(t) })
}

// TestCopyToStdoutTag: psql 15 does not print the "COPY n" tag of COPY TO
// STDOUT when the data went to the query output, where the tag would be
// taken for data.
func TestCopyToStdoutTag(t *testing.T) {
	input := "create table t (a int);\ninsert into t values (1), (2);\ncopy t to stdout;\n"
	output, status, err := runTranscript(nil, input, newEngineSession(t))
	if err != nil {
		t.Fatal(err)
	}
	if want := "CREATE TABLE\nINSERT 0 2\n1\n2\n"; output != want || status != 0 {
		t.Errorf("output %q, status %d; want %q, 0", output, status, want)
	}
}
