package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/xact"
)

// xactLog records the transaction events a session's statements cause.
type xactLog struct{ events []string }

func (l *xactLog) OnXact(ctx context.Context, ev xact.Event) error {
	l.events = append(l.events, ev.String())
	return nil
}

func (l *xactLog) take() string {
	s := strings.Join(l.events, " ")
	l.events = nil
	return s
}

func newSession(t *testing.T) (*Session, *xactLog) {
	t.Helper()
	e := New(Config{})
	t.Cleanup(e.Close)
	s := e.NewSession()
	log := &xactLog{}
	s.txn.Register(log)
	return s, log
}

func mustExec(t *testing.T, s *Session, sql string) {
	t.Helper()
	if _, err := s.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func count(t *testing.T, s *Session, table string) int64 {
	t.Helper()
	p, err := s.Query(context.Background(), "SELECT count(*) FROM "+table)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !p.Next() {
		t.Fatal(p.Err())
	}
	return p.Value(0).(int64)
}

// TestStatementIsItsTransaction: each statement ends its own implicit
// transaction, commit when it succeeded, abort when it failed; a query's
// ends with its portal.
func TestStatementIsItsTransaction(t *testing.T) {
	ctx := context.Background()
	s, log := newSession(t)
	mustExec(t, s, "CREATE TABLE t (a int NOT NULL)")
	if got := log.take(); got != "PreCommit Commit" {
		t.Errorf("CREATE TABLE: %q", got)
	}
	if _, err := s.Exec(ctx, "INSERT INTO t VALUES (1), (NULL)"); pgerr.Code(err) != pgerr.NotNullViolation {
		t.Fatalf("INSERT with a NULL: %v", err)
	}
	if got := log.take(); got != "Abort" {
		t.Errorf("failed INSERT: %q", got)
	}
	// INSERT without RETURNING runs and commits before Query returns.
	p, err := s.Query(ctx, "INSERT INTO t VALUES (1), (2)")
	if err != nil {
		t.Fatal(err)
	}
	if got := log.take(); got != "PreCommit Commit" {
		t.Errorf("INSERT: %q before the portal was read", got)
	}
	p.Close()
	// A SELECT commits when its portal ends, not before.
	p, err = s.Query(ctx, "SELECT a FROM t")
	if err != nil {
		t.Fatal(err)
	}
	if got := log.take(); got != "" {
		t.Errorf("open SELECT: %q", got)
	}
	for p.Next() {
	}
	if got := log.take(); got != "PreCommit Commit" {
		t.Errorf("exhausted SELECT: %q", got)
	}
	p.Close()
	if got := log.take(); got != "" {
		t.Errorf("Close after the end: %q", got)
	}
	// An error while reading aborts.
	p, err = s.Query(ctx, "SELECT 1 / (a - 2) FROM t")
	if err != nil {
		t.Fatal(err)
	}
	for p.Next() {
	}
	if pgerr.Code(p.Err()) != pgerr.DivisionByZero || log.take() != "Abort" {
		t.Errorf("failing SELECT: %v", p.Err())
	}
	p.Close()
	if n := count(t, s, "t"); n != 2 {
		t.Errorf("t has %d rows, want 2", n)
	}
}

// TestNewStatementClosesPortal: a portal left open is closed (and its
// statement committed) by the next statement, as a new simple query
// closes the unnamed portal.
func TestNewStatementClosesPortal(t *testing.T) {
	ctx := context.Background()
	s, log := newSession(t)
	mustExec(t, s, "CREATE TABLE t (a int)")
	log.take()
	p, err := s.Query(ctx, "INSERT INTO t SELECT g FROM generate_series(1, 3) g RETURNING a")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Next() {
		t.Fatal(p.Err())
	}
	if got := count(t, s, "t"); got != 3 {
		t.Errorf("after the next statement: %d rows, want 3", got)
	}
	if got := log.take(); got != "PreCommit Commit PreCommit Commit" {
		t.Errorf("events %q: the INSERT's end, then the count's", got)
	}
	if p.Next() {
		t.Error("a closed portal still returns rows")
	}
}

// TestCancelledStatementAborts: a statement whose context is cancelled
// while it runs ends with 57014 and its transaction aborts; its writes
// are dropped.
func TestCancelledStatementAborts(t *testing.T) {
	s, log := newSession(t)
	mustExec(t, s, "CREATE TABLE t (a int)")
	log.take()
	ctx, cancel := context.WithCancel(context.Background())
	p, err := s.Query(ctx, "SELECT g FROM generate_series(1, 10000000) g")
	if err != nil {
		t.Fatal(err)
	}
	if !p.NextBatch() {
		t.Fatal(p.Err())
	}
	cancel()
	for p.NextBatch() {
	}
	if pgerr.Code(p.Err()) != pgerr.QueryCanceled || log.take() != "Abort" {
		t.Errorf("cancelled SELECT: %v", p.Err())
	}
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Exec(cctx, "INSERT INTO t SELECT g FROM generate_series(1, 100000) g"); pgerr.Code(err) != pgerr.QueryCanceled {
		t.Errorf("cancelled INSERT: %v", err)
	}
	if got := log.take(); got != "Abort" {
		t.Errorf("cancelled INSERT: %q", got)
	}
	if n := count(t, s, "t"); n != 0 {
		t.Errorf("cancelled INSERT left %d rows", n)
	}
}
