package pgfed_test

// Robustness (issue 12): no input crashes the process, hangs a statement
// or makes it lie.

import (
	"context"
	"strings"
	"testing"

	"github.com/pgfed/pgfed"
)

func openTest(t *testing.T) *pgfed.Session {
	t.Helper()
	db, err := pgfed.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db.NewSession()
}

// Deep expressions: as deep as PostgreSQL allows runs; deeper is 54001,
// never a crash, and the session goes on.
func TestDeepExpressions(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	wantRows(t, "3,000 terms", textRows(t, s, "SELECT 1"+strings.Repeat("+1", 2999)), "3000")
	wantRows(t, "3,000 concatenations", textRows(t, s, "SELECT length('a'"+strings.Repeat("||'a'", 2999)+")"), "3000")
	for _, sql := range []string{
		"SELECT 1" + strings.Repeat("+1", 25000),
		"SELECT 'a'" + strings.Repeat("||'a'", 50000),
	} {
		if _, err := s.Exec(ctx, sql); pgfed.ErrorCode(err) != "54001" {
			t.Errorf("%.30s...: %v, want 54001", sql, err)
		}
	}
	if _, err := s.Exec(ctx, "SELECT '\xff'"); pgfed.ErrorCode(err) != "22021" {
		t.Errorf("invalid UTF-8: %v, want 22021", err)
	}
	wantRows(t, "after", textRows(t, s, "SELECT 1"), "1")
}
