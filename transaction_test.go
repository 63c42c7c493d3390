package pgfed_test

// Transactions through the public API: block tags and warnings, a
// multi-statement Exec as one implicit transaction (PostgreSQL 15's
// simple-query behaviour, recorded with psql -c), and sessions running
// concurrently: snapshots, waits, lost updates, 40001, 40P01, 55P03.

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgfed/pgfed"
)

// noticeLog collects a session's notices as "SEVERITY CODE message".
type noticeLog struct {
	mu  sync.Mutex
	got []string
}

func (l *noticeLog) add(n *pgfed.Notice) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, n.Severity+" "+n.Code+" "+n.Message)
}

func (l *noticeLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.got
	l.got = nil
	return out
}

func txnDB(t *testing.T) *pgfed.DB {
	t.Helper()
	db, err := pgfed.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	mustExec(t, db.Session(), "CREATE TABLE m (a int)")
	return db
}

func TestTransactionTagsAndWarnings(t *testing.T) {
	db := txnDB(t)
	s := db.NewSession()
	var log noticeLog
	s.SetNoticeHandler(log.add)
	ctx := context.Background()
	for _, tc := range []struct {
		sql, tag, code string
		notices        []string
	}{
		{"COMMIT", "COMMIT", "", []string{"WARNING 25P01 there is no transaction in progress"}},
		{"ABORT", "ROLLBACK", "", []string{"WARNING 25P01 there is no transaction in progress"}},
		{"SET TRANSACTION READ ONLY", "SET", "", []string{"WARNING 25P01 SET TRANSACTION can only be used in transaction blocks"}},
		{"SET LOCAL work_mem = '64MB'", "SET", "", []string{"WARNING 25P01 SET LOCAL can only be used in transaction blocks"}},
		{"SHOW work_mem", "SHOW", "", nil},
		{"BEGIN", "BEGIN", "", nil},
		{"BEGIN", "BEGIN", "", []string{"WARNING 25001 there is already a transaction in progress"}},
		{"SAVEPOINT a", "SAVEPOINT", "", nil},
		{"ROLLBACK TO a", "ROLLBACK", "", nil},
		{"RELEASE a", "RELEASE", "", nil},
		{"SELECT 1/0", "", "22012", nil},
		{"INSERT INTO m VALUES (1)", "", "25P02", nil},
		{"END", "ROLLBACK", "", nil},
		{"START TRANSACTION", "START TRANSACTION", "", nil},
		{"COMMIT AND CHAIN", "COMMIT", "", nil},
		{"ROLLBACK", "ROLLBACK", "", nil},
	} {
		tag, err := s.Exec(ctx, tc.sql)
		if pgfed.ErrorCode(err) != tc.code || tag != tc.tag {
			t.Errorf("%s: tag %q, error %v; want tag %q, code %q", tc.sql, tag, err, tc.tag, tc.code)
		}
		if got := log.take(); !reflect.DeepEqual(got, tc.notices) {
			t.Errorf("%s: notices %q, want %q", tc.sql, got, tc.notices)
		}
	}
	if got := queryRows(t, s, "SHOW work_mem"); !reflect.DeepEqual(got, []string{"4MB"}) {
		t.Errorf("SET LOCAL outside a block changed work_mem: %q", got)
	}
}

// TestMultiStatementExec: several statements in one Exec are one
// implicit transaction, as PostgreSQL's simple query (the expectations
// were recorded with psql -c against PostgreSQL 15).
func TestMultiStatementExec(t *testing.T) {
	db := txnDB(t)
	s := db.NewSession()
	var log noticeLog
	s.SetNoticeHandler(log.add)
	ctx := context.Background()
	values := func() string { return strings.Join(queryRows(t, s, "SELECT a FROM m ORDER BY a"), ",") }

	if _, err := s.Exec(ctx, "INSERT INTO m VALUES (1); INSERT INTO m VALUES (2); SELECT 1/0; INSERT INTO m VALUES (3)"); pgfed.ErrorCode(err) != "22012" {
		t.Fatalf("failing query: %v", err)
	}
	if got := values(); got != "" {
		t.Errorf("a failed multi-statement query left %q", got)
	}
	// COMMIT in the middle ends what ran so far (with PostgreSQL's warning).
	if _, err := s.Exec(ctx, "INSERT INTO m VALUES (4); COMMIT; INSERT INTO m VALUES (5); SELECT 1/0"); pgfed.ErrorCode(err) != "22012" {
		t.Fatalf("COMMIT then an error: %v", err)
	}
	if got := log.take(); !reflect.DeepEqual(got, []string{"WARNING 25P01 there is no transaction in progress"}) {
		t.Errorf("notices %q", got)
	}
	// BEGIN turns the implicit block into an explicit one, from its start.
	if _, err := s.Exec(ctx, "INSERT INTO m VALUES (6); BEGIN; INSERT INTO m VALUES (7); COMMIT; INSERT INTO m VALUES (8); SELECT 1/0"); pgfed.ErrorCode(err) != "22012" {
		t.Fatalf("BEGIN inside: %v", err)
	}
	if got := values(); got != "4,6,7" {
		t.Errorf("after BEGIN inside a query: %q, want 4,6,7", got)
	}
	// A block opened by one Exec stays open for the next.
	mustExec(t, s, "BEGIN; INSERT INTO m VALUES (9)")
	if got := values(); got != "4,6,7,9" {
		t.Errorf("inside the open block: %q", got)
	}
	mustExec(t, s, "ROLLBACK")
	if got := values(); got != "4,6,7" {
		t.Errorf("after ROLLBACK: %q", got)
	}
	for _, tc := range []struct{ sql, code string }{
		{"SAVEPOINT a; SELECT 1", "25P01"},
		{"SELECT 1; SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", "25001"},
	} {
		if _, err := s.Exec(ctx, tc.sql); pgfed.ErrorCode(err) != tc.code {
			t.Errorf("%s: %v, want %s", tc.sql, err, tc.code)
		}
	}
	// SET LOCAL lasts for the rest of the query's implicit transaction.
	rows := map[string][]string{}
	err := s.Run(ctx, "SET LOCAL work_mem = '64MB'; SHOW work_mem", func(r *pgfed.Rows) error {
		for r.Next() {
			v, _ := r.Text(0)
			rows[r.Tag()] = append(rows[r.Tag()], v)
		}
		return r.Err()
	})
	if err != nil || !reflect.DeepEqual(rows[""], []string{"64MB"}) && !reflect.DeepEqual(rows["SHOW"], []string{"64MB"}) {
		t.Errorf("SET LOCAL in a query: %v, %v", rows, err)
	}
	if got := queryRows(t, s, "SHOW work_mem"); !reflect.DeepEqual(got, []string{"4MB"}) {
		t.Errorf("after the query: work_mem %q", got)
	}
	if got := log.take(); len(got) != 0 {
		t.Errorf("notices %q", got)
	}
}

// TestIsolation: readers never see uncommitted rows; READ COMMITTED sees
// each commit from its next statement on, REPEATABLE READ keeps its first
// statement's snapshot.
func TestIsolation(t *testing.T) {
	db := txnDB(t)
	w, rc, rr := db.NewSession(), db.NewSession(), db.NewSession()
	count := func(s *pgfed.Session) string { return queryRows(t, s, "SELECT count(*) FROM m")[0] }
	mustExec(t, rc, "BEGIN")
	mustExec(t, rr, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	if count(rc) != "0" || count(rr) != "0" {
		t.Fatal("not empty")
	}
	mustExec(t, w, "BEGIN")
	mustExec(t, w, "INSERT INTO m VALUES (1), (2)")
	if got := count(rc); got != "0" {
		t.Errorf("READ COMMITTED sees %s uncommitted rows", got)
	}
	if got := count(w); got != "2" {
		t.Errorf("the writer sees %s of its own rows", got)
	}
	mustExec(t, w, "COMMIT")
	if got := count(rc); got != "2" {
		t.Errorf("READ COMMITTED after the commit: %s, want 2", got)
	}
	if got := count(rr); got != "0" {
		t.Errorf("REPEATABLE READ after the commit: %s, want its snapshot's 0", got)
	}
	mustExec(t, rr, "COMMIT")
	mustExec(t, rc, "COMMIT")
	if got := count(rr); got != "2" {
		t.Errorf("after the REPEATABLE READ transaction: %s, want 2", got)
	}
}

// TestNoLostUpdates: two sessions each increment one counter in
// transactions of their own; no increment is lost (the second writer
// waits for the first and reads its committed value).
func TestNoLostUpdates(t *testing.T) {
	db := txnDB(t)
	mustExec(t, db.Session(), "CREATE TABLE c (id int, v int)")
	mustExec(t, db.Session(), "INSERT INTO c VALUES (1, 0), (2, 0)")
	const each = 1000
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := db.NewSession()
			defer s.Close()
			for range each {
				if _, err := s.Exec(context.Background(), "BEGIN; UPDATE c SET v = v + 1 WHERE id = 1; COMMIT"); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := queryRows(t, db.Session(), "SELECT id, v FROM c ORDER BY id"); !reflect.DeepEqual(got, []string{"1|2000", "2|0"}) {
		t.Errorf("counters %q, want 1|2000 and 2|0", got)
	}
}

// TestWriterWaitsForWriter: an UPDATE of a table another transaction is
// changing waits for it; READ COMMITTED then applies to the committed
// result, REPEATABLE READ fails with 40001.
func TestWriterWaitsForWriter(t *testing.T) {
	for _, tc := range []struct {
		isolation string
		code      string
		want      string
	}{
		{"READ COMMITTED", "", "1|21"},
		{"REPEATABLE READ", "40001", "1|20"},
	} {
		t.Run(tc.isolation, func(t *testing.T) {
			db := txnDB(t)
			mustExec(t, db.Session(), "CREATE TABLE c (id int, v int)")
			mustExec(t, db.Session(), "INSERT INTO c VALUES (1, 10)")
			a, b := db.NewSession(), db.NewSession()
			mustExec(t, a, "BEGIN")
			mustExec(t, a, "UPDATE c SET v = v * 2")
			mustExec(t, b, "BEGIN ISOLATION LEVEL "+tc.isolation)
			queryRows(t, b, "SELECT v FROM c") // b's snapshot: before a's commit
			done := make(chan error, 1)
			go func() {
				_, err := b.Exec(context.Background(), "UPDATE c SET v = v + 1")
				done <- err
			}()
			select {
			case err := <-done:
				t.Fatalf("the second writer did not wait: %v", err)
			case <-time.After(50 * time.Millisecond):
			}
			mustExec(t, a, "COMMIT")
			select {
			case err := <-done:
				if pgfed.ErrorCode(err) != tc.code && !(err == nil && tc.code == "") {
					t.Fatalf("second writer: %v, want %q", err, tc.code)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the second writer still waits after the first committed")
			}
			if tc.code == "" {
				mustExec(t, b, "COMMIT")
			} else {
				mustExec(t, b, "ROLLBACK")
			}
			if got := queryRows(t, db.Session(), "SELECT id, v FROM c"); !reflect.DeepEqual(got, []string{tc.want}) {
				t.Errorf("c = %q, want %s", got, tc.want)
			}
		})
	}
}

// TestDeadlockAndLockTimeout: crossing waits are 40P01 for the one that
// closes the cycle (its block aborts, the other goes on); lock_timeout
// and statement_timeout end a wait with 55P03 and 57014.
func TestDeadlockAndLockTimeout(t *testing.T) {
	db := txnDB(t)
	mustExec(t, db.Session(), "CREATE TABLE t1 (a int); CREATE TABLE t2 (a int); INSERT INTO t1 VALUES (1); INSERT INTO t2 VALUES (1)")
	a, b := db.NewSession(), db.NewSession()
	mustExec(t, a, "BEGIN; UPDATE t1 SET a = a + 1")
	mustExec(t, b, "BEGIN; UPDATE t2 SET a = a + 1")
	done := make(chan error, 1)
	go func() {
		_, err := a.Exec(context.Background(), "UPDATE t2 SET a = a + 10")
		done <- err
	}()
	time.Sleep(30 * time.Millisecond)
	_, err := b.Exec(context.Background(), "UPDATE t1 SET a = a + 10")
	if pgfed.ErrorCode(err) != "40P01" {
		t.Fatalf("closing the cycle: %v, want 40P01", err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the other transaction: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the other transaction still waits after the deadlock victim aborted")
	}
	mustExec(t, b, "ROLLBACK")
	mustExec(t, a, "COMMIT")
	if got := queryRows(t, db.Session(), "SELECT t1.a FROM t1"); !reflect.DeepEqual(got, []string{"2"}) {
		t.Errorf("t1 %q", got)
	}
	if got := queryRows(t, db.Session(), "SELECT a FROM t2"); !reflect.DeepEqual(got, []string{"11"}) {
		t.Errorf("t2 %q", got)
	}

	mustExec(t, a, "BEGIN; DELETE FROM t1")
	for _, set := range []struct{ setting, code string }{
		{"lock_timeout = '30ms'", "55P03"},
		{"statement_timeout = '30ms'", "57014"},
	} {
		mustExec(t, b, "RESET ALL; SET "+set.setting)
		start := time.Now()
		if _, err := b.Exec(context.Background(), "UPDATE t1 SET a = 0"); pgfed.ErrorCode(err) != set.code {
			t.Errorf("%s: %v, want %s", set.setting, err, set.code)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: the wait ended after %v", set.setting, d)
		}
	}
	mustExec(t, a, "ROLLBACK")
	mustExec(t, b, "RESET ALL")
	if got := queryRows(t, b, "SELECT a FROM t1"); !reflect.DeepEqual(got, []string{"2"}) {
		t.Errorf("t1 after the rolled back DELETE: %q", got)
	}
}

var _ = fmt.Sprint
