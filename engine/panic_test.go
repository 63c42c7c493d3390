package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/pgfed/pgfed/pgerr"
)

// TestPanicBecomesInternalError checks the statement boundary: a panic
// anywhere in the engine is returned as SQLSTATE XX000, and the session
// keeps working for the next statement.
func TestPanicBecomesInternalError(t *testing.T) {
	old := beforeDispatch
	defer func() { beforeDispatch = old }()
	beforeDispatch = func(text string) {
		if strings.Contains(text, "boom") {
			panic("boom")
		}
	}
	e := New(Config{})
	defer e.Close()
	db := e.NewSession()
	ctx := context.Background()
	_, err := db.Exec(ctx, "SELECT 'boom'")
	if pgerr.Code(err) != pgerr.InternalError || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("got %v (code %s), want XX000 mentioning the panic", err, pgerr.Code(err))
	}
	rows, err := db.Query(ctx, "SELECT 1 + 1")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatalf("no row after a recovered panic: %v", rows.Err())
	}
	if v := rows.Value(0); v != int64(2) {
		t.Fatalf("got %v, want 2", v)
	}
}
