package pgfed_test

// Writes to foreign tables against real PostgreSQL 15 servers: INSERT
// (batch_size, pipelined), UPDATE and DELETE shipped whole or row by row
// through the remote ctid, RETURNING, COPY FROM, routing through
// partitioned tables, TRUNCATE, the updatable and truncatable options,
// hostile names, and transactions around all of them. The remote's
// statement log shows what was sent.

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/pgtest"
)

// logAll makes the remote database log every statement of connections
// opened from now on.
const logAll = `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET log_statement = ''all''', current_database()); END $$;`

// writeDB is a remote database with table w (a int PRIMARY KEY, b text,
// c float8 DEFAULT 0.5) and a pgfed session with foreign table fw over it.
func writeDB(t *testing.T, tableOpts string) (*pgfed.Session, *pgx.Conn) {
	t.Helper()
	s, remote := remoteDB(t, logAll+`CREATE TABLE public.w (a int PRIMARY KEY, b text, c float8 DEFAULT 0.5)`, "")
	opts := ""
	if tableOpts != "" {
		opts = ", " + tableOpts
	}
	mustExec(t, s, "CREATE FOREIGN TABLE fw (a int, b text, c float8) SERVER rs OPTIONS (table_name 'w'"+opts+")")
	return s, remote
}

// remoteRows lists a remote table's rows as "a|b|c" in order.
func remoteRows(t *testing.T, remote *pgx.Conn, query string) []string {
	t.Helper()
	rows, err := remote.Query(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			if v == nil {
				parts[i] = "NULL"
			} else {
				parts[i] = fmt.Sprint(v)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}

// pgfedStatements returns the statements pgfed's connections ran on the
// remote database of conn, in order, without transaction control.
func pgfedStatements(t *testing.T, remote *pgx.Conn) []string {
	t.Helper()
	ctx := context.Background()
	var pids []uint32
	rows, err := remote.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgfed' AND datname = current_database()")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var pid int32
		if err := rows.Scan(&pid); err != nil {
			t.Fatal(err)
		}
		pids = append(pids, uint32(pid))
	}
	rows.Close()
	out, err := pgtest.Shared(t).Statements(pids...)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, s := range out {
		switch {
		case strings.HasPrefix(s, "START TRANSACTION"), strings.HasPrefix(s, "COMMIT"), strings.HasPrefix(s, "ABORT"),
			strings.HasPrefix(s, "SAVEPOINT"), strings.HasPrefix(s, "RELEASE"), strings.HasPrefix(s, "ROLLBACK"),
			strings.HasPrefix(s, "CLOSE"), strings.HasPrefix(s, "FETCH"):
			continue
		}
		kept = append(kept, s)
	}
	return kept
}

func wantRows(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if got == nil {
		got = []string{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

func wantCode(t *testing.T, s *pgfed.Session, sql, code, message string) {
	t.Helper()
	_, err := s.Exec(context.Background(), sql)
	pe, ok := pgerr.As(err)
	if !ok || pe.Code != code || !strings.Contains(pe.Message, message) {
		t.Errorf("%s: %v, want %s %q", sql, err, code, message)
	}
}

func TestForeignInsert(t *testing.T) {
	s, remote := writeDB(t, "")
	ctx := context.Background()
	if tag, err := s.Exec(ctx, "INSERT INTO fw VALUES (1, 'one', 1.5), (2, 'two', 2.5)"); err != nil || tag != "INSERT 0 2" {
		t.Fatalf("INSERT: %q %v", tag, err)
	}
	// The local default of c (none: NULL) goes, not the remote's.
	mustExec(t, s, "INSERT INTO fw (a, b) SELECT g, 'g' || g FROM generate_series(3, 5) g")
	wantRows(t, "remote rows", remoteRows(t, remote, "SELECT * FROM w ORDER BY a"),
		"1|one|1.5", "2|two|2.5", "3|g3|NULL", "4|g4|NULL", "5|g5|NULL")
	wantRows(t, "RETURNING", textRows(t, s, "INSERT INTO fw VALUES (6, 'six') RETURNING a + 1, b, c"), "7|six|NULL")
	wantRows(t, "read back", textRows(t, s, "SELECT count(*), sum(a) FROM fw"), "6|21")
	// A remote error fails the statement and leaves nothing behind.
	wantCode(t, s, "INSERT INTO fw VALUES (10, 'x'), (1, 'dup')", "23505", "duplicate key value")
	wantRows(t, "after the failed INSERT", remoteRows(t, remote, "SELECT count(*) FROM w"), "6")
	// batch_size 1 (the default): one INSERT per row, as postgres_fdw.
	wantRows(t, "remote statements", pgfedStatements(t, remote)[:4],
		"INSERT INTO public.w(a, b, c) VALUES ($1, $2, $3)",
		"INSERT INTO public.w(a, b, c) VALUES ($1, $2, $3)",
		"INSERT INTO public.w(a, b, c) VALUES ($1, $2, $3)",
		"INSERT INTO public.w(a, b, c) VALUES ($1, $2, $3)")
}

func TestForeignInsertBatchSize(t *testing.T) {
	s, remote := writeDB(t, "batch_size '100'")
	mustExec(t, s, "INSERT INTO fw SELECT g, 'r' || g, g / 2.0 FROM generate_series(1, 250) g")
	wantRows(t, "remote count", remoteRows(t, remote, "SELECT count(*), sum(a), sum(c) FROM w"), "250|31375|15687.5")
	stmts := pgfedStatements(t, remote)
	var rowsPer []int
	for _, st := range stmts {
		if strings.HasPrefix(st, "INSERT") {
			rowsPer = append(rowsPer, strings.Count(st, "("))
		}
	}
	// 100 + 100 + 50 rows; the first "(" is the column list.
	if !reflect.DeepEqual(rowsPer, []int{101, 101, 51}) {
		t.Errorf("rows per remote INSERT (+1): %v", rowsPer)
	}
	explain := strings.Join(textRows(t, s, "EXPLAIN (VERBOSE, COSTS OFF) INSERT INTO fw SELECT g FROM generate_series(1, 3) g"), "\n")
	for _, want := range []string{"Insert on public.fw", "Remote SQL: INSERT INTO public.w(a, b, c) VALUES ($1, $2, $3)", "Batch Size: 100"} {
		if !strings.Contains(explain, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, explain)
		}
	}
	// With RETURNING, rows go one at a time, as in postgres_fdw.
	explain = strings.Join(textRows(t, s, "EXPLAIN (VERBOSE, COSTS OFF) INSERT INTO fw VALUES (1000) RETURNING *"), "\n")
	if !strings.Contains(explain, "RETURNING a, b, c") || !strings.Contains(explain, "Batch Size: 1") {
		t.Errorf("EXPLAIN with RETURNING:\n%s", explain)
	}
}

func TestForeignUpdateDelete(t *testing.T) {
	s, remote := writeDB(t, "")
	mustExec(t, s, "INSERT INTO fw SELECT g, 'r' || g, g FROM generate_series(1, 10) g")
	// Shippable: one remote statement each.
	explain := strings.Join(textRows(t, s, "EXPLAIN (VERBOSE, COSTS OFF) UPDATE fw SET b = b || '!' WHERE a <= 3"), "\n")
	want := "Update on public.fw\n  ->  Foreign Update on public.fw\n        Remote SQL: UPDATE public.w SET b = (b || '!'::text) WHERE ((a <= 3))"
	if explain != want {
		t.Errorf("EXPLAIN:\n%s\nwant\n%s", explain, want)
	}
	ctx := context.Background()
	if tag, err := s.Exec(ctx, "UPDATE fw SET b = b || '!' WHERE a <= 3"); err != nil || tag != "UPDATE 3" {
		t.Fatalf("UPDATE: %q %v", tag, err)
	}
	wantRows(t, "DELETE RETURNING", textRows(t, s, "DELETE FROM fw WHERE a > 8 RETURNING a, b"), "9|r9", "10|r10")
	wantRows(t, "UPDATE RETURNING", textRows(t, s, "UPDATE fw SET c = c * 10 WHERE a = 2 RETURNING c"), "20")
	stmts := pgfedStatements(t, remote)
	wantRows(t, "shipped statements", stmts[len(stmts)-3:],
		"UPDATE public.w SET b = (b || '!'::text) WHERE ((a <= 3))",
		"DELETE FROM public.w WHERE ((a > 8)) RETURNING a, b",
		"UPDATE public.w SET c = (c * 10::double precision) WHERE ((a = 2)) RETURNING c")

	// Not shippable (pushdown off): read FOR UPDATE, changed by ctid.
	mustExec(t, s, "SET pgfed.pushdown = off")
	explain = strings.Join(textRows(t, s, "EXPLAIN (VERBOSE, COSTS OFF) UPDATE fw SET b = upper(b) WHERE a < 3"), "\n")
	for _, w := range []string{"Remote SQL: UPDATE public.w SET b = $2 WHERE ctid = $1", "Foreign Scan on public.fw", "Remote SQL: SELECT a, b, c, ctid FROM public.w FOR UPDATE"} {
		if !strings.Contains(explain, w) {
			t.Errorf("EXPLAIN lacks %q:\n%s", w, explain)
		}
	}
	if tag, err := s.Exec(ctx, "UPDATE fw SET b = upper(b) WHERE a < 3"); err != nil || tag != "UPDATE 2" {
		t.Fatalf("UPDATE by ctid: %q %v", tag, err)
	}
	wantRows(t, "DELETE by ctid", textRows(t, s, "DELETE FROM fw WHERE a IN (4, 5) RETURNING *"), "4|r4|4", "5|r5|5")
	mustExec(t, s, "RESET pgfed.pushdown")
	wantRows(t, "remote rows", remoteRows(t, remote, "SELECT * FROM w ORDER BY a"),
		"1|R1!|1", "2|R2!|20", "3|r3!|3", "6|r6|6", "7|r7|7", "8|r8|8")
	stmts = pgfedStatements(t, remote)
	wantRows(t, "row by row", stmts[len(stmts)-6:],
		"DECLARE c1 CURSOR FOR SELECT a, b, c, ctid FROM public.w FOR UPDATE",
		"UPDATE public.w SET b = $2 WHERE ctid = $1",
		"UPDATE public.w SET b = $2 WHERE ctid = $1",
		"DECLARE c1 CURSOR FOR SELECT a, ctid FROM public.w FOR UPDATE",
		"DELETE FROM public.w WHERE ctid = $1 RETURNING a, b, c",
		"DELETE FROM public.w WHERE ctid = $1 RETURNING a, b, c")
}

func TestForeignWriteOptions(t *testing.T) {
	s, remote := writeDB(t, "updatable 'false'")
	wantCode(t, s, "INSERT INTO fw VALUES (1)", pgerr.ObjectNotInPrerequisiteState, `foreign table "fw" does not allow inserts`)
	wantCode(t, s, "UPDATE fw SET b = 'x'", pgerr.ObjectNotInPrerequisiteState, `foreign table "fw" does not allow updates`)
	wantCode(t, s, "DELETE FROM fw", pgerr.ObjectNotInPrerequisiteState, `foreign table "fw" does not allow deletes`)
	wantCode(t, s, "COPY fw FROM STDIN", pgerr.ObjectNotInPrerequisiteState, `foreign table "fw" does not allow inserts`)
	mustExec(t, s, "ALTER FOREIGN TABLE fw OPTIONS (SET updatable 'true')")
	mustExec(t, s, "ALTER SERVER rs OPTIONS (ADD updatable 'false')")
	mustExec(t, s, "INSERT INTO fw VALUES (1)") // the table's option wins
	mustExec(t, s, "ALTER SERVER rs OPTIONS (ADD truncatable 'false')")
	wantCode(t, s, "TRUNCATE fw", pgerr.ObjectNotInPrerequisiteState, `foreign table "fw" does not allow truncates`)
	mustExec(t, s, "ALTER FOREIGN TABLE fw OPTIONS (ADD truncatable 'true')")
	mustExec(t, s, "TRUNCATE fw")
	wantRows(t, "after TRUNCATE", remoteRows(t, remote, "SELECT count(*) FROM w"), "0")
	stmts := pgfedStatements(t, remote)
	wantRows(t, "TRUNCATE sent", stmts[len(stmts)-1:], "TRUNCATE public.w CONTINUE IDENTITY RESTRICT")
}

func TestForeignCopyFrom(t *testing.T) {
	s, remote := writeDB(t, "batch_size '10'")
	dir := t.TempDir()
	file := dir + "/rows.csv"
	var data strings.Builder
	for i := 1; i <= 25; i++ {
		fmt.Fprintf(&data, "%d,row %d\n", i, i)
	}
	if err := os.WriteFile(file, []byte(data.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tag, err := s.Exec(context.Background(), "COPY fw (a, b) FROM '"+file+"' (FORMAT csv)")
	if err != nil || tag != "COPY 25" {
		t.Fatalf("COPY: %q %v", tag, err)
	}
	wantRows(t, "remote", remoteRows(t, remote, "SELECT count(*), sum(a) FROM w"), "25|325")
}

// Partitioned tables route rows to foreign partitions, move updated rows
// between local and foreign ones, and refuse rows no partition takes.
func TestForeignPartitionWrites(t *testing.T) {
	s, remote := remoteDB(t, logAll+`CREATE TABLE public.p1 (k int, v text)`, "batch_size '50'")
	mustExec(t, s, "CREATE TABLE pt (k int, v text) PARTITION BY RANGE (k)")
	mustExec(t, s, "CREATE FOREIGN TABLE pt1 PARTITION OF pt FOR VALUES FROM (0) TO (100) SERVER rs OPTIONS (table_name 'p1')")
	mustExec(t, s, "CREATE TABLE pt2 PARTITION OF pt FOR VALUES FROM (100) TO (200)")
	ctx := context.Background()
	if tag, err := s.Exec(ctx, "INSERT INTO pt SELECT g, 'v' || g FROM generate_series(90, 109) g"); err != nil || tag != "INSERT 0 20" {
		t.Fatalf("INSERT: %q %v", tag, err)
	}
	wantRows(t, "remote partition", remoteRows(t, remote, "SELECT count(*), min(k), max(k) FROM p1"), "10|90|99")
	wantRows(t, "local partition", textRows(t, s, "SELECT count(*), min(k), max(k) FROM pt2"), "10|100|109")
	wantCode(t, s, "INSERT INTO pt VALUES (500, 'x')", "23514", `no partition of relation "pt" found for row`)
	// Shipped, and row by row: rows move from the foreign partition to
	// the local one and back.
	for _, pushdown := range []string{"on", "off"} {
		mustExec(t, s, "SET pgfed.pushdown = "+pushdown)
		if tag, err := s.Exec(ctx, "UPDATE pt SET v = v || '+' WHERE k IN (95, 105)"); err != nil || tag != "UPDATE 2" {
			t.Fatalf("pushdown %s: UPDATE: %q %v", pushdown, tag, err)
		}
	}
	wantRows(t, "updated", textRows(t, s, "SELECT k, v FROM pt WHERE k IN (95, 105) ORDER BY k"), "95|v95++", "105|v105++")
	mustExec(t, s, "SET pgfed.pushdown = off")
	if tag, err := s.Exec(ctx, "UPDATE pt SET k = k + 10 WHERE k BETWEEN 95 AND 99"); err != nil || tag != "UPDATE 5" {
		t.Fatalf("moving UPDATE: %q %v", tag, err)
	}
	wantRows(t, "after moving out", remoteRows(t, remote, "SELECT count(*), max(k) FROM p1"), "5|94")
	if tag, err := s.Exec(ctx, "UPDATE pt SET k = k - 100 WHERE k >= 105"); err != nil || tag != "UPDATE 10" {
		t.Fatalf("moving UPDATE back: %q %v", tag, err)
	}
	// 90..94 stayed; 5..9 came twice (the rows that moved out, back).
	wantRows(t, "after moving in", remoteRows(t, remote, "SELECT count(*), min(k), sum(k) FROM p1"), "15|5|530")
	wantRows(t, "all rows", textRows(t, s, "SELECT count(*), sum(k) FROM pt"), "20|1040")
	mustExec(t, s, "RESET pgfed.pushdown")
	if tag, err := s.Exec(ctx, "DELETE FROM pt WHERE k < 7 OR k > 100"); err != nil || tag != "DELETE 8" {
		t.Fatalf("DELETE: %q %v", tag, err)
	}
	wantRows(t, "left", textRows(t, s, "SELECT count(*) FROM pt"), "12")
	explain := strings.Join(textRows(t, s, "EXPLAIN (VERBOSE, COSTS OFF) DELETE FROM pt"), "\n")
	want := `Delete on public.pt
  Foreign Delete on public.pt1 pt_1
  Delete on public.pt2 pt_2
  ->  Append
        ->  Foreign Delete on public.pt1 pt_1
              Remote SQL: DELETE FROM public.p1
        ->  Seq Scan on public.pt2 pt_2
              Output: pt_2.tableoid, pt_2.ctid`
	if explain != want {
		t.Errorf("EXPLAIN:\n%s\nwant\n%s", explain, want)
	}
}

// Identifiers and values that need quoting reach the server intact.
func TestForeignWriteHostileNames(t *testing.T) {
	s, remote := remoteDB(t, `CREATE SCHEMA "we""ird"; CREATE TABLE "we""ird"."ta ble" ("co l" int PRIMARY KEY, "v'x" text)`, "")
	mustExec(t, s, `CREATE FOREIGN TABLE h (id int OPTIONS (column_name 'co l'), v text OPTIONS (column_name 'v''x')) SERVER rs OPTIONS (schema_name 'we"ird', table_name 'ta ble')`)
	mustExec(t, s, `INSERT INTO h VALUES (1, 'it''s; DROP TABLE x; --'), (2, E'back\\slash')`)
	mustExec(t, s, `UPDATE h SET v = v || '"' WHERE id = 1`)
	mustExec(t, s, "SET pgfed.pushdown = off")
	mustExec(t, s, `UPDATE h SET v = v || '''' WHERE id = 2`)
	wantRows(t, "remote", remoteRows(t, remote, `SELECT * FROM "we""ird"."ta ble" ORDER BY 1`),
		`1|it's; DROP TABLE x; --"`, `2|back\slash'`)
	mustExec(t, s, "TRUNCATE h")
	wantRows(t, "truncated", remoteRows(t, remote, `SELECT count(*) FROM "we""ird"."ta ble"`), "0")
}

// Foreign writes take part in the local transaction: ROLLBACK and
// ROLLBACK TO undo them remotely.
func TestForeignWritesInTransactions(t *testing.T) {
	s, remote := writeDB(t, "")
	mustExec(t, s, "BEGIN")
	mustExec(t, s, "INSERT INTO fw VALUES (1)")
	mustExec(t, s, "SAVEPOINT a")
	mustExec(t, s, "INSERT INTO fw VALUES (2)")
	wantRows(t, "own writes", textRows(t, s, "SELECT a FROM fw ORDER BY a"), "1", "2")
	mustExec(t, s, "ROLLBACK TO a")
	mustExec(t, s, "INSERT INTO fw VALUES (3)")
	wantRows(t, "not yet visible remotely", remoteRows(t, remote, "SELECT count(*) FROM w"), "0")
	mustExec(t, s, "COMMIT")
	wantRows(t, "committed", remoteRows(t, remote, "SELECT a FROM w ORDER BY a"), "1", "3")

	mustExec(t, s, "BEGIN")
	mustExec(t, s, "DELETE FROM fw")
	mustExec(t, s, "ROLLBACK")
	wantRows(t, "rolled back", remoteRows(t, remote, "SELECT a FROM w ORDER BY a"), "1", "3")

	// A multi-statement query is one transaction: all or nothing.
	if _, err := s.Exec(context.Background(), "INSERT INTO fw VALUES (4); INSERT INTO fw VALUES (1)"); pgerr.Code(err) != "23505" {
		t.Fatalf("multi-statement: %v", err)
	}
	wantRows(t, "after the failed multi-statement query", remoteRows(t, remote, "SELECT a FROM w ORDER BY a"), "1", "3")
}

// Reading and writing one foreign table in one statement: the scan's
// cursor keeps its snapshot, so the rows inserted are not read again.
func TestForeignInsertSelectSameTable(t *testing.T) {
	s, remote := writeDB(t, "batch_size '7'")
	mustExec(t, s, "INSERT INTO fw SELECT g, 'r', 1 FROM generate_series(1, 300) g")
	if tag, err := s.Exec(context.Background(), "INSERT INTO fw SELECT a + 1000, b, c FROM fw"); err != nil || tag != "INSERT 0 300" {
		t.Fatalf("INSERT SELECT: %q %v", tag, err)
	}
	wantRows(t, "remote", remoteRows(t, remote, "SELECT count(*), max(a) FROM w"), "600|1300")
}

// UPDATE and DELETE of async-capable foreign partitions on one server,
// shipped and row by row.
func TestForeignWritesAsyncPartitions(t *testing.T) {
	s := asyncSetup(t)
	ctx := context.Background()
	for _, pushdown := range []string{"on", "off"} {
		mustExec(t, s, "SET pgfed.pushdown = "+pushdown)
		if tag, err := s.Exec(ctx, "UPDATE ap SET v = v + 100 WHERE k % 500 = 0"); err != nil || tag != "UPDATE 8" {
			t.Fatalf("pushdown %s: UPDATE: %q %v", pushdown, tag, err)
		}
	}
	wantRows(t, "updated", textRows(t, s, "SELECT count(*) FROM ap WHERE v >= 200"), "8")
	mustExec(t, s, "SET pgfed.pushdown = off")
	if tag, err := s.Exec(ctx, "DELETE FROM ap WHERE v >= 200"); err != nil || tag != "DELETE 8" {
		t.Fatalf("DELETE: %q %v", tag, err)
	}
	wantRows(t, "left", textRows(t, s, "SELECT count(*) FROM ap"), "3992")
}

// Rows go in pipelines of a bounded size, also out of one large batch:
// a round trip per 4,096 rows, or per MiB of values.
func TestForeignInsertPipelines(t *testing.T) {
	s, remote := writeDB(t, "")
	trips := func() int64 {
		var n int64
		for _, c := range s.RemoteConnections() {
			n += c.RoundTrips
		}
		return n
	}
	mustExec(t, s, "INSERT INTO fw VALUES (0)") // connect
	before := trips()
	mustExec(t, s, "INSERT INTO fw SELECT g FROM generate_series(1, 10000) g")
	// 4096 + 4096 + 1808 rows, then COMMIT.
	if got := trips() - before; got != 4 {
		t.Errorf("10,000 rows at batch_size 1: %d round trips, want 4", got)
	}
	before = trips()
	mustExec(t, s, "INSERT INTO fw SELECT g, repeat('x', 300000) FROM generate_series(10001, 10010) g")
	// 300 kB a row: a MiB every 4 rows (4, 4, 2), then COMMIT.
	if got := trips() - before; got != 4 {
		t.Errorf("10 rows of 300 kB: %d round trips, want 4", got)
	}
	wantRows(t, "remote", remoteRows(t, remote, "SELECT count(*), sum(length(b)) FROM w"), "10011|3000000")
}
