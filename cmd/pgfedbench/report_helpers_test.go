package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// wantInReport checks that a printed report holds each of wants.
func wantInReport(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// reportJSON writes a report with write (a suite's -json writer) and
// reads it back.
func reportJSON(t *testing.T, write func(io.Writer) error) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("JSON: %v", err)
	}
	return back
}
