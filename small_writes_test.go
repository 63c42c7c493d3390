package pgfed_test

// Small writes (issue 12): single-row INSERTs, autocommitted or many in
// one transaction, leave a table of few batches, so that a point SELECT
// after them scans at full speed; UPDATE, DELETE and older snapshots see
// and change the right rows after the merges.

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/pgfed/pgfed"
)

// smallWrites is the single-row writes of the tests and the benchmark.
const smallWrites = 20000

// maxBatches is what a table of 20,000 rows written a row at a time may
// be stored as: the merges leave one batch per bit of the row count,
// plus a few cut by UPDATE and DELETE.
const maxBatches = 20

func insertRows(t testing.TB, s *pgfed.Session, table string, from, to int) {
	t.Helper()
	ctx := context.Background()
	for i := from; i <= to; i++ {
		if _, err := s.Exec(ctx, fmt.Sprintf("INSERT INTO %s VALUES (%d, 'v%d')", table, i, i)); err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
	}
}

func checkRows(t *testing.T, s *pgfed.Session, sql string, want ...string) {
	t.Helper()
	if got := queryRows(t, s, sql); (len(got) != 0 || len(want) != 0) && !reflect.DeepEqual(got, want) {
		t.Errorf("%s: %q, want %q", sql, got, want)
	}
}

func checkBatches(t *testing.T, db *pgfed.DB, table string) {
	t.Helper()
	if n := pgfed.TableBatches(db, "public", table); n < 1 || n > maxBatches {
		t.Errorf("table %s is stored as %d batches, want 1 to %d", table, n, maxBatches)
	}
}

// TestSmallWritesAutocommit: smallWrites autocommitted single-row INSERTs,
// with a REPEATABLE READ and a READ COMMITTED transaction open from the
// middle of them on.
func TestSmallWritesAutocommit(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	s := db.Session()
	execSQL(t, s, "CREATE TABLE t (id int, v text)")
	insertRows(t, s, "t", 1, smallWrites/4)

	rr, rc := db.NewSession(), db.NewSession()
	defer rr.Close()
	defer rc.Close()
	execSQL(t, rr, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	execSQL(t, rc, "BEGIN")
	checkRows(t, rr, "SELECT count(*), sum(id) FROM t", fmt.Sprintf("%d|%d", smallWrites/4, sum(1, smallWrites/4)))
	checkRows(t, rc, "SELECT count(*) FROM t", strconv.Itoa(smallWrites/4))

	insertRows(t, s, "t", smallWrites/4+1, smallWrites)
	checkBatches(t, db, "t")
	checkRows(t, s, "SELECT * FROM t WHERE id = 17", "17|v17")
	checkRows(t, s, "SELECT count(*), sum(id), min(v), max(id) FROM t", fmt.Sprintf("%d|%d|v1|%d", smallWrites, sum(1, smallWrites), smallWrites))

	// The REPEATABLE READ snapshot still reads the first quarter, and
	// cannot change the table since changed; READ COMMITTED reads and
	// changes the newest version.
	checkRows(t, rr, "SELECT count(*), sum(id) FROM t", fmt.Sprintf("%d|%d", smallWrites/4, sum(1, smallWrites/4)))
	checkRows(t, rr, "SELECT * FROM t WHERE id IN (17, 19000)", "17|v17")
	if _, err := rr.Exec(context.Background(), "UPDATE t SET v = 'rr' WHERE id = 17"); pgfed.ErrorCode(err) != "40001" {
		t.Errorf("REPEATABLE READ UPDATE after concurrent inserts: %v, want 40001", err)
	}
	execSQL(t, rr, "ROLLBACK")
	checkRows(t, rc, "SELECT count(*) FROM t", strconv.Itoa(smallWrites))
	if tag := execSQL(t, rc, "UPDATE t SET v = 'rc' WHERE id IN (18, 19001)"); tag != "UPDATE 2" {
		t.Errorf("READ COMMITTED UPDATE: %s", tag)
	}
	execSQL(t, rc, "COMMIT")
	checkRows(t, s, "SELECT * FROM t WHERE id IN (17, 18, 19001) ORDER BY id", "17|v17", "18|rc", "19001|rc")

	// UPDATE and DELETE after the merges, autocommitted.
	if tag := execSQL(t, s, "UPDATE t SET v = 'updated' WHERE id = 17"); tag != "UPDATE 1" {
		t.Errorf("UPDATE: %s", tag)
	}
	if tag := execSQL(t, s, "DELETE FROM t WHERE id % 1000 = 0"); tag != "DELETE "+strconv.Itoa(smallWrites/1000) {
		t.Errorf("DELETE: %s", tag)
	}
	checkRows(t, s, "SELECT * FROM t WHERE id = 17", "17|updated")
	checkRows(t, s, "SELECT * FROM t WHERE id IN (1000, 5000, 20000)")
	checkRows(t, s, "SELECT * FROM t WHERE id BETWEEN 998 AND 1002 ORDER BY id", "998|v998", "999|v999", "1001|v1001", "1002|v1002")
	checkRows(t, s, "SELECT count(*), sum(id) FROM t", fmt.Sprintf("%d|%d", smallWrites-smallWrites/1000, sum(1, smallWrites)-1000*sum(1, smallWrites/1000)))

	// Single-row UPDATEs and DELETEs, each its own transaction, then
	// more inserts: the table stays merged.
	for i := 1; i <= 200; i++ {
		execSQL(t, s, fmt.Sprintf("UPDATE t SET v = 'u%d' WHERE id = %d", i, 100+i))
		execSQL(t, s, fmt.Sprintf("DELETE FROM t WHERE id = %d", 5000+i))
	}
	insertRows(t, s, "t", smallWrites+1, smallWrites+500)
	checkBatches(t, db, "t")
	checkRows(t, s, "SELECT * FROM t WHERE id IN (101, 300, 301, 5001, 5200, 5201, 20500) ORDER BY id",
		"101|u1", "300|u200", "301|v301", "5201|v5201", "20500|v20500")
	checkRows(t, s, "SELECT count(*) FROM t", strconv.Itoa(smallWrites-smallWrites/1000-200+500))
}

// TestSmallWritesInTransaction: smallWrites single-row INSERTs in one
// transaction (with a savepoint rolled back among them) read back, and
// changed, by the transaction itself, then committed.
func TestSmallWritesInTransaction(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	s := db.Session()
	other := db.NewSession()
	defer other.Close()
	execSQL(t, s, "CREATE TABLE u (id int, v text)")
	execSQL(t, s, "BEGIN")
	insertRows(t, s, "u", 1, smallWrites/2)
	execSQL(t, s, "SAVEPOINT a")
	insertRows(t, s, "u", -100, -1)
	checkRows(t, s, "SELECT count(*) FROM u", strconv.Itoa(smallWrites/2+100))
	execSQL(t, s, "ROLLBACK TO a")
	insertRows(t, s, "u", smallWrites/2+1, smallWrites)
	checkRows(t, s, "SELECT * FROM u WHERE id = 17", "17|v17")
	checkRows(t, other, "SELECT count(*) FROM u", "0")
	if tag := execSQL(t, s, "UPDATE u SET v = 'updated' WHERE id IN (17, 19999)"); tag != "UPDATE 2" {
		t.Errorf("UPDATE: %s", tag)
	}
	insertRows(t, s, "u", smallWrites+1, smallWrites+10)
	if tag := execSQL(t, s, "DELETE FROM u WHERE id % 1000 = 1"); tag != "DELETE 21" {
		t.Errorf("DELETE: %s", tag)
	}
	checkRows(t, s, "SELECT * FROM u WHERE id IN (1, 17, 1001, 19999, 20001, 20002) ORDER BY id", "17|updated", "19999|updated", "20002|v20002")
	execSQL(t, s, "COMMIT")
	checkBatches(t, db, "u")
	checkRows(t, other, "SELECT * FROM u WHERE id IN (1, 17, 1001, 19999, 20001, 20002) ORDER BY id", "17|updated", "19999|updated", "20002|v20002")
	checkRows(t, other, "SELECT count(*), min(id), max(id) FROM u", fmt.Sprintf("%d|2|%d", smallWrites+10-21, smallWrites+10))
}

func sum(from, to int) int { return (from + to) * (to - from + 1) / 2 }

// BenchmarkPointSelectAfterSmallInserts: a point SELECT on a table
// written by 20,000 single-row INSERTs (each its own transaction), which
// scans the few batches they were merged into.
func BenchmarkPointSelectAfterSmallInserts(b *testing.B) {
	db := openDB(b)
	s := db.Session()
	execSQL(b, s, "CREATE TABLE t (id int, v text)")
	insertRows(b, s, "t", 1, smallWrites)
	ctx := context.Background()
	for b.Loop() {
		rows, err := s.Query(ctx, "SELECT * FROM t WHERE id = 17")
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		if err := rows.Err(); err != nil || n != 1 {
			b.Fatalf("%d rows, %v", n, err)
		}
		rows.Close()
	}
	b.ReportMetric(float64(pgfed.TableBatches(db, "public", "t")), "batches")
}
