package pgfed_test

// Foreign tables against real PostgreSQL 15 servers (throwaway pgtest
// clusters): DDL, scans of every type, pushdown on and off giving the
// same results, EXPLAIN's Remote SQL, remote errors, unreachable servers,
// cancellation that reaches the remote, partitioned tables mixing local
// and foreign partitions.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/pgtest"
)

// remoteDB makes a fresh database on the shared cluster, runs setup SQL
// there, and returns a pgfed session with a server "rs" pointing at it
// (user mapping for the current user).
func remoteDB(t *testing.T, setup string, serverOpts string) (*pgfed.Session, *pgx.Conn) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs PostgreSQL")
	}
	cluster := pgtest.Shared(t)
	ctx := context.Background()
	name := fmt.Sprintf("fdw_%d", time.Now().UnixNano())
	if err := cluster.CreateDatabase(ctx, name); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, cluster.DSN(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if setup != "" {
		if _, err := conn.Exec(ctx, setup); err != nil {
			t.Fatal(err)
		}
	}
	db, err := pgfed.Open(pgfed.WithFileAccess(os.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := db.NewSession()
	opts := fmt.Sprintf("host '127.0.0.1', port '%d', dbname '%s'", cluster.Port(), name)
	if serverOpts != "" {
		opts += ", " + serverOpts
	}
	mustExec(t, s, "CREATE SERVER rs FOREIGN DATA WRAPPER postgres_fdw OPTIONS ("+opts+")")
	mustExec(t, s, "CREATE USER MAPPING FOR CURRENT_USER SERVER rs OPTIONS (user 'postgres')")
	return s, conn
}

func mustExec(t *testing.T, s *pgfed.Session, sql string) {
	t.Helper()
	if _, err := s.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// textRows runs a query and returns its rows as "a|b" strings.
func textRows(t *testing.T, s *pgfed.Session, sql string) []string {
	t.Helper()
	rows, err := s.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		parts := make([]string, len(rows.Columns()))
		for i := range parts {
			v, ok := rows.Text(i)
			if !ok {
				v = "NULL"
			}
			parts[i] = v
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

const typesSetup = `
CREATE TABLE public.alltypes (
	id int PRIMARY KEY, s smallint, i integer, b bigint, r real, d double precision,
	n numeric(10,2), nn numeric, f boolean, t text, v varchar(5), c char(3),
	dt date, ts timestamp, tz timestamptz);
INSERT INTO public.alltypes VALUES
	(1, -32768, 2147483647, -9223372036854775808, 1.5, 'NaN', 12345678.91, 0.0100, true, 'it''s', 'abcde', 'x', '2024-02-29', '2024-02-29 12:34:56.789', '2024-02-29 12:34:56+00'),
	(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
	(3, 0, -1, 42, '-Infinity', -0.0, -0.01, 'NaN', false, 'üñï€', '', 'ab', '0044-03-15 BC', 'infinity', '1999-12-31 23:59:59.999999+00');`

const typesForeign = `CREATE FOREIGN TABLE ft (
	id int, s smallint, i integer, b bigint, r real, d double precision,
	n numeric(10,2), nn numeric, f boolean, t text, v varchar(5), c char(3),
	dt date, ts timestamp, tz timestamptz) SERVER rs OPTIONS (schema_name 'public', table_name 'alltypes')`

func TestForeignScanAllTypes(t *testing.T) {
	s, conn := remoteDB(t, typesSetup, "")
	mustExec(t, s, typesForeign)
	got := textRows(t, s, "SELECT * FROM ft ORDER BY id")
	// What PostgreSQL itself prints for the same rows.
	rows, err := conn.Query(context.Background(), "SELECT * FROM public.alltypes ORDER BY id", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for rows.Next() {
		var parts []string
		for _, raw := range rows.RawValues() {
			if raw == nil {
				parts = append(parts, "NULL")
			} else {
				parts = append(parts, string(raw))
			}
		}
		want = append(want, strings.Join(parts, "|"))
	}
	rows.Close()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("foreign scan\n got %q\nwant %q", got, want)
	}
}

// TestPushdownOnOff runs queries with pushdown on and off and requires the
// same results, and checks what EXPLAIN VERBOSE says was shipped.
func TestPushdownOnOff(t *testing.T) {
	s, _ := remoteDB(t, `CREATE TABLE public.nums AS SELECT g AS a, g % 7 AS b, 'v' || g AS c FROM generate_series(1, 2000) g`, "fetch_size '333'")
	mustExec(t, s, "CREATE FOREIGN TABLE nums (a int, b int, c text) SERVER rs OPTIONS (table_name 'nums')")
	queries := []string{
		"SELECT a, c FROM nums WHERE b = 3 ORDER BY a",
		"SELECT count(*), sum(a), avg(a), min(a), max(b) FROM nums",
		"SELECT b, count(*), sum(a) FROM nums GROUP BY b ORDER BY b",
		"SELECT b, count(*) FROM nums GROUP BY b HAVING count(*) > 285 ORDER BY b",
		"SELECT a FROM nums ORDER BY a DESC LIMIT 5",
		"SELECT a FROM nums WHERE c LIKE 'v19%' AND a % 2 = 0 ORDER BY a",
		"SELECT count(*) FROM nums WHERE a BETWEEN 10 AND 20 OR c = 'v5'",
		"SELECT a + b AS x FROM nums WHERE a < 4 ORDER BY x",
	}
	for _, q := range queries {
		mustExec(t, s, "SET pgfed.pushdown = on")
		on := textRows(t, s, q)
		mustExec(t, s, "SET pgfed.pushdown = off")
		off := textRows(t, s, q)
		if !reflect.DeepEqual(on, off) || len(on) == 0 {
			t.Errorf("%s:\npushdown on  %q\npushdown off %q", q, on, off)
		}
	}
	mustExec(t, s, "SET pgfed.pushdown = on")
	for _, tc := range []struct{ query, remote string }{
		{"SELECT a, c FROM nums WHERE b = 3", "Remote SQL: SELECT a, c FROM public.nums WHERE ((b = 3))"},
		{"SELECT count(*), sum(a) FROM nums", "Remote SQL: SELECT count(*), sum(a) FROM public.nums"},
		{"SELECT a FROM nums ORDER BY a DESC LIMIT 5", "Remote SQL: SELECT a FROM public.nums ORDER BY a DESC NULLS FIRST LIMIT 5::bigint"},
		{"SELECT b, count(*) FROM nums GROUP BY b", "Remote SQL: SELECT b, count(*) FROM public.nums GROUP BY 1"},
		{"SELECT b, count(*) FROM nums GROUP BY b", "Relations: Aggregate on (public.nums nums)"},
		{"SELECT a FROM nums WHERE a > 3 AND c || 'x' = now()::text", "Filter: ((nums.c || 'x'::text) = (now())::text)"},
	} {
		plan := strings.Join(textRows(t, s, "EXPLAIN (VERBOSE, COSTS OFF) "+tc.query), "\n")
		if !strings.Contains(plan, tc.remote) {
			t.Errorf("EXPLAIN of %s:\n%s\nwant a line %q", tc.query, plan, tc.remote)
		}
		if strings.Contains(plan, "postgres") && strings.Contains(plan, "password") {
			t.Errorf("EXPLAIN shows connection secrets:\n%s", plan)
		}
	}
}

func TestForeignErrors(t *testing.T) {
	s, _ := remoteDB(t, `CREATE TABLE public.z (a int); INSERT INTO z VALUES (0)`, "")
	mustExec(t, s, "CREATE FOREIGN TABLE z (a int) SERVER rs")
	mustExec(t, s, "CREATE FOREIGN TABLE missing (a int) SERVER rs")
	_, err := s.Exec(context.Background(), "SELECT * FROM missing")
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != "42P01" || !strings.Contains(pe.Context, "remote SQL command") {
		t.Errorf("remote missing table: %#v", err)
	}
	// The session stays usable.
	if got := textRows(t, s, "SELECT a FROM z"); !reflect.DeepEqual(got, []string{"0"}) {
		t.Errorf("after a remote error: %q", got)
	}
	// An unreachable server names the server.
	mustExec(t, s, "CREATE SERVER dead FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '1', dbname 'x')")
	mustExec(t, s, "CREATE USER MAPPING FOR PUBLIC SERVER dead OPTIONS (user 'u', password 'topsecret')")
	mustExec(t, s, "CREATE FOREIGN TABLE deadt (a int) SERVER dead")
	_, err = s.Exec(context.Background(), "SELECT * FROM deadt")
	if !errors.As(err, &pe) || pe.Code != "08001" || !strings.Contains(pe.Message, `"dead"`) {
		t.Errorf("unreachable server: %v", err)
	}
	if err != nil && (strings.Contains(err.Error(), "topsecret") || strings.Contains(pe.Detail, "topsecret")) {
		t.Errorf("error shows the password: %v / %s", err, pe.Detail)
	}
}

func TestForeignCancel(t *testing.T) {
	s, conn := remoteDB(t, `CREATE VIEW public.slow AS SELECT 1 AS a FROM pg_sleep(30)`, "")
	mustExec(t, s, "CREATE FOREIGN TABLE slow (a int) SERVER rs")
	mustExec(t, s, "SET statement_timeout = '300ms'")
	start := time.Now()
	_, err := s.Exec(context.Background(), "SELECT * FROM slow")
	if pgerr.Code(err) != "57014" || time.Since(start) > 10*time.Second {
		t.Fatalf("statement_timeout: %v after %v", err, time.Since(start))
	}
	// The remote query was cancelled, not left running.
	var n int
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep%' AND state = 'active' AND pid <> pg_backend_pid()").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n != 0 {
		t.Errorf("the remote query still runs after the cancel")
	}
	mustExec(t, s, "SET statement_timeout = 0")
	mustExec(t, s, "CREATE FOREIGN TABLE one (x int) SERVER rs OPTIONS (table_name 'pg_class')")
	// The connection is usable after the cancel.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.Exec(ctx, "SELECT 1 FROM (SELECT 1) AS t"); err != nil {
		t.Fatal(err)
	}
}

func TestMixedPartitions(t *testing.T) {
	s, _ := remoteDB(t, `CREATE TABLE public.p_remote (k int, v text); INSERT INTO p_remote SELECT g, 'r' || g FROM generate_series(100, 199) g`, "")
	mustExec(t, s, "CREATE TABLE p (k int, v text) PARTITION BY RANGE (k)")
	mustExec(t, s, "CREATE TABLE p_local PARTITION OF p FOR VALUES FROM (0) TO (100)")
	mustExec(t, s, "CREATE FOREIGN TABLE p_far PARTITION OF p FOR VALUES FROM (100) TO (200) SERVER rs OPTIONS (table_name 'p_remote')")
	mustExec(t, s, "INSERT INTO p_local SELECT g, 'l' || g FROM generate_series(0, 99) g")
	if got := textRows(t, s, "SELECT count(*), min(k), max(k) FROM p"); !reflect.DeepEqual(got, []string{"200|0|199"}) {
		t.Errorf("mixed partitions: %q", got)
	}
	if got := textRows(t, s, "SELECT v FROM p WHERE k = 150"); !reflect.DeepEqual(got, []string{"r150"}) {
		t.Errorf("pruned to the foreign partition: %q", got)
	}
	plan := strings.Join(textRows(t, s, "EXPLAIN (COSTS OFF) SELECT * FROM p"), "\n")
	if !strings.Contains(plan, "Foreign Scan on p_far p_2") || !strings.Contains(plan, "Seq Scan on p_local p_1") {
		t.Errorf("plan:\n%s", plan)
	}
}

func TestImportForeignSchema(t *testing.T) {
	s, _ := remoteDB(t, `CREATE SCHEMA remote;
		CREATE TABLE remote.a (id int NOT NULL, name varchar(10), amount numeric(8,2), at timestamptz, doc json);
		CREATE TABLE remote.b (x bigint);
		CREATE TABLE remote."Mixed Case" ("Col" text);
		INSERT INTO remote.a VALUES (1, 'one', 1.50, '2024-01-01 00:00:00+00', '{"k": 1}');`, "")
	mustExec(t, s, "CREATE SCHEMA imported")
	mustExec(t, s, "IMPORT FOREIGN SCHEMA remote EXCEPT (b) FROM SERVER rs INTO imported")
	if got := textRows(t, s, "SELECT id, name, amount, at, doc FROM imported.a"); !reflect.DeepEqual(got, []string{`1|one|1.50|2024-01-01 00:00:00+00|{"k": 1}`}) {
		t.Errorf("imported a: %q", got)
	}
	if got := textRows(t, s, `SELECT count(*) FROM imported."Mixed Case"`); !reflect.DeepEqual(got, []string{"0"}) {
		t.Errorf(`imported "Mixed Case": %q`, got)
	}
	if _, err := s.Exec(context.Background(), "SELECT * FROM imported.b"); pgerr.Code(err) != "42P01" {
		t.Errorf("EXCEPT (b) imported b anyway: %v", err)
	}
	d, err := s.DescribeRelation("imported.a")
	if err != nil || d.Kind != "foreign table" || !d.Columns[0].NotNull || d.Columns[1].Type != "character varying(10)" {
		t.Errorf("describe imported.a: %+v, %v", d, err)
	}
	mustExec(t, s, "CREATE SCHEMA only_b")
	mustExec(t, s, "IMPORT FOREIGN SCHEMA remote LIMIT TO (b) FROM SERVER rs INTO only_b")
	if got := textRows(t, s, "SELECT count(*) FROM only_b.b"); !reflect.DeepEqual(got, []string{"0"}) {
		t.Errorf("LIMIT TO (b): %q", got)
	}
	_, err = s.Exec(context.Background(), "IMPORT FOREIGN SCHEMA nosuch FROM SERVER rs INTO imported")
	if pgerr.Code(err) != "HV00L" {
		t.Errorf("missing remote schema: %v", err)
	}
}

func TestConnectionFunctions(t *testing.T) {
	s, _ := remoteDB(t, `CREATE TABLE public.c (a int); INSERT INTO c VALUES (1)`, "")
	mustExec(t, s, "CREATE FOREIGN TABLE c (a int) SERVER rs")
	if got := textRows(t, s, "SELECT * FROM postgres_fdw_get_connections()"); len(got) != 0 {
		t.Errorf("connections before any use: %q", got)
	}
	textRows(t, s, "SELECT * FROM c")
	if got := textRows(t, s, "SELECT server_name, valid FROM postgres_fdw_get_connections() ORDER BY 1"); !reflect.DeepEqual(got, []string{"rs|t"}) {
		t.Errorf("connections after a scan: %q", got)
	}
	if got := textRows(t, s, "SELECT postgres_fdw_disconnect('rs')"); !reflect.DeepEqual(got, []string{"t"}) {
		t.Errorf("disconnect: %q", got)
	}
	if got := textRows(t, s, "SELECT count(*) FROM postgres_fdw_get_connections()"); !reflect.DeepEqual(got, []string{"0"}) {
		t.Errorf("connections after disconnect: %q", got)
	}
	if got := textRows(t, s, "SELECT a FROM c"); !reflect.DeepEqual(got, []string{"1"}) {
		t.Errorf("reconnect after disconnect: %q", got)
	}
	if got := textRows(t, s, "SELECT postgres_fdw_disconnect_all()"); !reflect.DeepEqual(got, []string{"t"}) {
		t.Errorf("disconnect_all: %q", got)
	}
	if _, err := s.Exec(context.Background(), "SELECT postgres_fdw_disconnect('nosuch')"); pgerr.Code(err) != "42704" {
		t.Errorf("disconnect of an unknown server: %v", err)
	}
}

// TestForeignWritesRefused: writes to foreign tables are not supported
// yet and must fail, never land in local storage.
// TestPartitionwiseAggregate: with enable_partitionwise_aggregate, each
// foreign partition computes partial aggregates remotely and local
// partitions locally; the finalize step must give the same answers as the
// plain plan.
func TestPartitionwiseAggregate(t *testing.T) {
	s, _ := remoteDB(t, `CREATE TABLE public.r1 (k int, g int, v numeric, f real, s text);
		INSERT INTO r1 SELECT x, x % 3, x * 1.5, x / 4.0, 's' || x FROM generate_series(100, 199) x;
		CREATE TABLE public.r2 (k int, g int, v numeric, f real, s text);
		INSERT INTO r2 SELECT x, x % 3, x * 1.5, x / 4.0, 's' || x FROM generate_series(200, 299) x;`, "")
	mustExec(t, s, "CREATE TABLE p (k int, g int, v numeric, f real, s text) PARTITION BY RANGE (k)")
	mustExec(t, s, "CREATE TABLE p0 PARTITION OF p FOR VALUES FROM (0) TO (100)")
	mustExec(t, s, "CREATE FOREIGN TABLE p1 PARTITION OF p FOR VALUES FROM (100) TO (200) SERVER rs OPTIONS (table_name 'r1')")
	mustExec(t, s, "CREATE FOREIGN TABLE p2 PARTITION OF p FOR VALUES FROM (200) TO (300) SERVER rs OPTIONS (table_name 'r2')")
	mustExec(t, s, "INSERT INTO p0 SELECT x, x % 3, x * 1.5, x / 4.0, 's' || x FROM generate_series(0, 99) x")
	queries := []string{
		"SELECT count(*), sum(k), avg(k), min(v), max(v), avg(v), avg(f), sum(f) FROM p",
		"SELECT g, count(*), sum(k), avg(v), min(s), max(k) FROM p GROUP BY g ORDER BY g",
		"SELECT g, count(*) FROM p GROUP BY g HAVING avg(k) > 149 ORDER BY g",
		"SELECT count(*), avg(k) FROM p WHERE k % 2 = 0",
	}
	for _, q := range queries {
		mustExec(t, s, "SET enable_partitionwise_aggregate = off")
		plain := textRows(t, s, q)
		mustExec(t, s, "SET enable_partitionwise_aggregate = on")
		split := textRows(t, s, q)
		if !reflect.DeepEqual(plain, split) {
			t.Errorf("%s:\nplain        %q\npartitionwise %q", q, plain, split)
		}
	}
	plan := strings.Join(textRows(t, s, "EXPLAIN (VERBOSE, COSTS OFF) SELECT g, count(*), avg(k) FROM p GROUP BY g"), "\n")
	for _, want := range []string{"Finalize HashAggregate", "Partial HashAggregate", "Relations: Aggregate on (public.p1 p_2)", "Remote SQL: SELECT g, count(*), sum(k), count(k) FROM public.r1 GROUP BY 1"} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan lacks %q:\n%s", want, plan)
		}
	}
}

// asyncSetup makes a partitioned table of four foreign partitions on four
// servers (all pointing at the test cluster, so each has its own
// connection) with async_capable on.
func asyncSetup(t *testing.T) *pgfed.Session {
	t.Helper()
	setup := ""
	for i := 1; i <= 4; i++ {
		setup += fmt.Sprintf("CREATE TABLE public.part%d AS SELECT g AS k, g %% 7 AS v FROM generate_series(%d, %d) g;", i, (i-1)*1000, i*1000-1)
	}
	s, _ := remoteDB(t, setup, "async_capable 'true', fetch_size '100'")
	rows := textRows(t, s, "SELECT 1") // warm nothing; keeps the helper's session
	_ = rows
	mustExec(t, s, "CREATE TABLE ap (k int, v int) PARTITION BY RANGE (k)")
	for i := 1; i <= 4; i++ {
		// Servers s1..s4 copy rs's options so that each has a connection.
		mustExec(t, s, fmt.Sprintf("CREATE SERVER s%d FOREIGN DATA WRAPPER postgres_fdw OPTIONS (%s)", i, serverOptionsOf(t, s)))
		mustExec(t, s, fmt.Sprintf("CREATE USER MAPPING FOR CURRENT_USER SERVER s%d OPTIONS (user 'postgres')", i))
		mustExec(t, s, fmt.Sprintf("CREATE FOREIGN TABLE ap%d PARTITION OF ap FOR VALUES FROM (%d) TO (%d) SERVER s%d OPTIONS (table_name 'part%d')", i, (i-1)*1000, i*1000, i, i))
	}
	return s
}

// serverOptionsOf returns rs's options as an OPTIONS list.
func serverOptionsOf(t *testing.T, s *pgfed.Session) string {
	t.Helper()
	servers, err := s.ListServers()
	if err != nil {
		t.Fatal(err)
	}
	for _, srv := range servers {
		if srv.Name == "rs" {
			var parts []string
			for k, v := range srv.Options {
				parts = append(parts, fmt.Sprintf("%s '%s'", k, v))
			}
			return strings.Join(parts, ", ")
		}
	}
	t.Fatal("no server rs")
	return ""
}

func TestAsyncAppend(t *testing.T) {
	s := asyncSetup(t)
	queries := []string{
		"SELECT count(*), sum(k), sum(v) FROM ap",
		"SELECT k FROM ap WHERE v = 3 ORDER BY k",
		"SELECT v, count(*) FROM ap GROUP BY v ORDER BY v",
	}
	for _, q := range queries {
		mustExec(t, s, "SET enable_async_append = off")
		sync := textRows(t, s, q)
		mustExec(t, s, "SET enable_async_append = on")
		async := textRows(t, s, q)
		if !reflect.DeepEqual(sync, async) || len(async) == 0 {
			t.Errorf("%s:\nsync  %q\nasync %q", q, sync, async)
		}
	}
	plan := strings.Join(textRows(t, s, "EXPLAIN (COSTS OFF) SELECT * FROM ap"), "\n")
	if strings.Count(plan, "Async Foreign Scan on ap") != 4 {
		t.Errorf("plan:\n%s", plan)
	}
	// LIMIT stops the async children early; the session stays usable and
	// no goroutine is left (goleak in TestMain).
	for i := 0; i < 5; i++ {
		if got := textRows(t, s, "SELECT k FROM ap LIMIT 3"); len(got) != 3 {
			t.Fatalf("LIMIT 3: %q", got)
		}
	}
	if got := textRows(t, s, "SELECT count(*) FROM ap"); !reflect.DeepEqual(got, []string{"4000"}) {
		t.Errorf("after LIMITs: %q", got)
	}
	// EXPLAIN ANALYZE counts async rows at the Append and per child.
	an := strings.Join(textRows(t, s, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM ap"), "\n")
	if !strings.Contains(an, "Append (actual rows=4000 loops=1)") || strings.Count(an, "(actual rows=1000 loops=1)") != 4 ||
		!strings.Contains(an, "Async Rows: 4000") || !strings.Contains(an, "Sync Rows: 0") || strings.Count(an, "Async Rows: 1000") != 4 {
		t.Errorf("EXPLAIN ANALYZE:\n%s", an)
	}
	// The whole TIMING OFF output is deterministic: a golden.
	golden := []string{"Append (actual rows=4000 loops=1)", "  Async Rows: 4000", "  Sync Rows: 0"}
	for i := 1; i <= 4; i++ {
		golden = append(golden,
			fmt.Sprintf("  ->  Async Foreign Scan on ap%d ap_%d (actual rows=1000 loops=1)", i, i),
			"        Async Rows: 1000",
			"        Remote Requests: 11") // ten full FETCH 100 and the empty one that ends it
	}
	if got := textRows(t, s, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM ap"); !reflect.DeepEqual(got, golden) {
		t.Errorf("EXPLAIN ANALYZE TIMING OFF:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(golden, "\n"))
	}
	// A failing child ends the statement with its error and releases the rest.
	mustExec(t, s, "CREATE TABLE apx (k int, v int) PARTITION BY RANGE (k)")
	mustExec(t, s, "CREATE FOREIGN TABLE apxa PARTITION OF apx FOR VALUES FROM (0) TO (1000) SERVER s2 OPTIONS (table_name 'part1')")
	mustExec(t, s, "CREATE FOREIGN TABLE apxb PARTITION OF apx FOR VALUES FROM (1000) TO (2000) SERVER s1 OPTIONS (table_name 'nosuch')")
	if _, err := s.Exec(context.Background(), "SELECT * FROM apx"); pgerr.Code(err) != "42P01" {
		t.Errorf("failing async child: %v", err)
	}
	if got := textRows(t, s, "SELECT count(*) FROM ap"); !reflect.DeepEqual(got, []string{"4000"}) {
		t.Errorf("after a failing child: %q", got)
	}
}

// TestAsyncSameConnection: async partitions on one server share its one
// connection; their FETCHes go out together and results are right.
func TestAsyncSameConnection(t *testing.T) {
	setup := ""
	for i := 1; i <= 3; i++ {
		setup += fmt.Sprintf("CREATE TABLE public.q%d AS SELECT g AS k FROM generate_series(%d, %d) g;", i, (i-1)*500, i*500-1)
	}
	s, _ := remoteDB(t, setup, "async_capable 'true', fetch_size '50'")
	mustExec(t, s, "CREATE TABLE q (k int) PARTITION BY RANGE (k)")
	for i := 1; i <= 3; i++ {
		mustExec(t, s, fmt.Sprintf("CREATE FOREIGN TABLE q_%d PARTITION OF q FOR VALUES FROM (%d) TO (%d) SERVER rs OPTIONS (table_name 'q%d')", i, (i-1)*500, i*500, i))
	}
	if got := textRows(t, s, "SELECT count(*), sum(k), count(DISTINCT k) FROM q"); !reflect.DeepEqual(got, []string{"1500|1124250|1500"}) {
		t.Errorf("three async scans on one connection: %q", got)
	}
	if got := textRows(t, s, "SELECT k FROM q ORDER BY k DESC LIMIT 2"); !reflect.DeepEqual(got, []string{"1499", "1498"}) {
		t.Errorf("LIMIT: %q", got)
	}
	if got := textRows(t, s, "SELECT count(*) FROM postgres_fdw_get_connections()"); !reflect.DeepEqual(got, []string{"1"}) {
		t.Errorf("connections: %q (one per server and user mapping)", got)
	}
	// The three scans' FETCHes go out together: each scan still makes 11
	// requests (10 of 50 rows, one finding the end) and counts its own
	// rows, all of them async.
	rows := textRows(t, s, "EXPLAIN (ANALYZE, FORMAT JSON) SELECT * FROM q")
	var doc []struct {
		Plan struct {
			AsyncRows float64 `json:"Async Rows"`
			Rows      float64 `json:"Actual Rows"`
			Plans     []struct {
				Rows      float64 `json:"Actual Rows"`
				AsyncRows float64 `json:"Async Rows"`
				Requests  float64 `json:"Remote Requests"`
			} `json:"Plans"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(rows[0]), &doc); err != nil {
		t.Fatal(err)
	}
	app := doc[0].Plan
	if app.Rows != 1500 || app.AsyncRows != 1500 || len(app.Plans) != 3 {
		t.Fatalf("Append rows %v, async %v, %d children", app.Rows, app.AsyncRows, len(app.Plans))
	}
	for i, k := range app.Plans {
		if k.Rows != 500 || k.AsyncRows != 500 || k.Requests != 11 {
			t.Errorf("scan %d: rows %v, async rows %v, requests %v; want 500, 500, 11", i+1, k.Rows, k.AsyncRows, k.Requests)
		}
	}
}

// TestAsyncSameConnectionTimeout: statement_timeout while a combined
// request waits on one slow scan cancels it on the server, and the
// connection serves the next statement.
func TestAsyncSameConnectionTimeout(t *testing.T) {
	s, conn := remoteDB(t, `CREATE TABLE public.quick AS SELECT g AS k FROM generate_series(1, 100) g;
		CREATE VIEW public.sleepy AS SELECT 1000 + g AS k FROM generate_series(1, 3) g, pg_sleep(30) s;`, "async_capable 'true'")
	mustExec(t, s, "CREATE TABLE st (k int) PARTITION BY RANGE (k)")
	mustExec(t, s, "CREATE FOREIGN TABLE st_quick PARTITION OF st FOR VALUES FROM (0) TO (1000) SERVER rs OPTIONS (table_name 'quick')")
	mustExec(t, s, "CREATE FOREIGN TABLE st_sleepy PARTITION OF st FOR VALUES FROM (1000) TO (2000) SERVER rs OPTIONS (table_name 'sleepy')")
	mustExec(t, s, "SET statement_timeout = '300ms'")
	start := time.Now()
	_, err := s.Exec(context.Background(), "SELECT count(*) FROM st")
	if pgerr.Code(err) != "57014" || time.Since(start) > 10*time.Second {
		t.Fatalf("timeout: %v after %v", err, time.Since(start))
	}
	waitRemoteStopped(t, conn, "sleepy")
	mustExec(t, s, "SET statement_timeout = 0")
	if got := textRows(t, s, "SELECT count(*), sum(k) FROM st_quick"); !reflect.DeepEqual(got, []string{"100|5050"}) {
		t.Errorf("after the timeout: %q", got)
	}
}

// TestAsyncTimeout: statement_timeout while async children fetch from a
// slow remote stops them all and cancels the remote query.
func TestAsyncTimeout(t *testing.T) {
	s, conn := remoteDB(t, `CREATE TABLE public.fast AS SELECT g AS k FROM generate_series(1, 100) g;
		CREATE VIEW public.slow AS SELECT 1000 + g AS k FROM generate_series(1, 3) g, pg_sleep(30) s;`, "async_capable 'true'")
	mustExec(t, s, "CREATE TABLE fs (k int) PARTITION BY RANGE (k)")
	mustExec(t, s, "CREATE FOREIGN TABLE fs_fast PARTITION OF fs FOR VALUES FROM (0) TO (1000) SERVER rs OPTIONS (table_name 'fast')")
	mustExec(t, s, "CREATE SERVER rs2 FOREIGN DATA WRAPPER postgres_fdw OPTIONS ("+serverOptionsOf(t, s)+")")
	mustExec(t, s, "CREATE USER MAPPING FOR CURRENT_USER SERVER rs2 OPTIONS (user 'postgres')")
	mustExec(t, s, "CREATE FOREIGN TABLE fs_slow PARTITION OF fs FOR VALUES FROM (1000) TO (2000) SERVER rs2 OPTIONS (table_name 'slow')")
	mustExec(t, s, "SET statement_timeout = '300ms'")
	start := time.Now()
	_, err := s.Exec(context.Background(), "SELECT count(*) FROM fs")
	if pgerr.Code(err) != "57014" || time.Since(start) > 10*time.Second {
		t.Fatalf("timeout: %v after %v", err, time.Since(start))
	}
	waitRemoteStopped(t, conn, "slow")
	mustExec(t, s, "SET statement_timeout = 0")
	if got := textRows(t, s, "SELECT count(*) FROM fs_fast"); !reflect.DeepEqual(got, []string{"100"}) {
		t.Errorf("after the timeout: %q", got)
	}
	// A cancelled context (Ctrl-C in the REPL) does the same.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start = time.Now()
	_, err = s.Exec(ctx, "SELECT count(*) FROM fs")
	if pgerr.Code(err) != "57014" || !strings.Contains(err.Error(), "user request") || time.Since(start) > 10*time.Second {
		t.Fatalf("cancel: %v after %v", err, time.Since(start))
	}
	if got := textRows(t, s, "SELECT count(*) FROM fs_fast"); !reflect.DeepEqual(got, []string{"100"}) {
		t.Errorf("after the cancel: %q", got)
	}
}

// waitRemoteStopped waits until no remote query mentioning word runs any
// more (a cancel request takes effect asynchronously), for up to 5 s.
func waitRemoteStopped(t *testing.T, conn *pgx.Conn, word string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var n int
		if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%' || $1 || '%' AND state = 'active' AND pid <> pg_backend_pid()", word).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the remote query on %s still runs after the timeout", word)
		}
	}
}

// TestAsyncLocalQual: foreign partitions whose scans carry a local
// filter, a local projection or both stay async (the scan applies them to
// the batches it delivers out of band), with pushdown on and off; the
// counters, not only the rows, show it. concat() is not shippable, so it
// stays local even with pushdown.
func TestAsyncLocalQual(t *testing.T) {
	s := asyncSetup(t)
	// Rows of each partition with v = 3 (k % 7 = 3 in [0, 1000), ...).
	matching := []int{143, 143, 143, 142}
	all := []int{1000, 1000, 1000, 1000}
	queries := []struct {
		sql    string
		rows   []int // per partition
		filter bool  // a filter that stays local even with pushdown
	}{
		{"SELECT k FROM ap WHERE concat(v) = '3'", matching, true},
		{"SELECT concat(k) FROM ap", all, false},
		{"SELECT k + 1, concat(v) FROM ap WHERE concat(v) = '3'", matching, true},
		{"SELECT k + 1 FROM ap WHERE v = 3", matching, false},
	}
	for _, pushdown := range []string{"on", "off"} {
		mustExec(t, s, "SET pgfed.pushdown = "+pushdown)
		for _, q := range queries {
			an := strings.Join(textRows(t, s, "EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) "+q.sql), "\n")
			total := 0
			for _, n := range q.rows {
				total += n
			}
			want := []string{fmt.Sprintf("Append (actual rows=%d loops=1)", total), fmt.Sprintf("Async Rows: %d", total), "Sync Rows: 0"}
			for i, n := range q.rows {
				want = append(want, fmt.Sprintf("Async Foreign Scan on public.ap%d ap_%d (actual rows=%d loops=1)", i+1, i+1, n))
				if q.filter || pushdown == "off" && q.rows[0] != 1000 {
					want = append(want, fmt.Sprintf("Rows Removed by Filter: %d", 1000-n))
				}
			}
			for _, w := range want {
				if !strings.Contains(an, w) {
					t.Errorf("pushdown %s, %s: no %q in\n%s", pushdown, q.sql, w, an)
				}
			}
			// Each child counts its own async rows (the lines under each scan).
			var childAsync []string
			for _, line := range strings.Split(an, "\n")[1:] {
				if l := strings.TrimSpace(line); strings.HasPrefix(l, "Async Rows:") && strings.HasPrefix(line, "        ") {
					childAsync = append(childAsync, l)
				}
			}
			var wantAsync []string
			for _, n := range q.rows {
				wantAsync = append(wantAsync, fmt.Sprintf("Async Rows: %d", n))
			}
			if !reflect.DeepEqual(childAsync, wantAsync) {
				t.Errorf("pushdown %s, %s: children's %q, want %q", pushdown, q.sql, childAsync, wantAsync)
			}
			if rows := textRows(t, s, q.sql); len(rows) != total {
				t.Errorf("pushdown %s, %s: %d rows, want %d", pushdown, q.sql, len(rows), total)
			}
		}
	}
}

// TestPrefetchScan: an async-capable foreign table read on its own
// prefetches its next batch; results, LIMIT and errors are unchanged.
func TestPrefetchScan(t *testing.T) {
	s, _ := remoteDB(t, `CREATE TABLE public.pre AS SELECT g AS k FROM generate_series(1, 1000) g`, "async_capable 'true', fetch_size '64'")
	mustExec(t, s, "CREATE FOREIGN TABLE pre (k int) SERVER rs")
	mustExec(t, s, "CREATE FOREIGN TABLE pre_missing (k int) SERVER rs OPTIONS (table_name 'nosuch')")
	if got := textRows(t, s, "SELECT count(*), sum(k) FROM pre WHERE k % 3 = 0"); !reflect.DeepEqual(got, []string{"333|166833"}) {
		t.Errorf("prefetched scan: %q", got)
	}
	mustExec(t, s, "SET pgfed.pushdown = off")
	if got := textRows(t, s, "SELECT k FROM pre LIMIT 2"); !reflect.DeepEqual(got, []string{"1", "2"}) {
		t.Errorf("LIMIT: %q", got)
	}
	if got := textRows(t, s, "SELECT count(*) FROM pre"); !reflect.DeepEqual(got, []string{"1000"}) {
		t.Errorf("all rows: %q", got)
	}
	if _, err := s.Exec(context.Background(), "SELECT * FROM pre_missing"); pgerr.Code(err) != "42P01" {
		t.Errorf("missing remote table: %v", err)
	}
}

// TestAsyncExplainInvariants checks EXPLAIN ANALYZE (FORMAT JSON) on
// async plans: an Append's rows are its children's rows, its async rows
// the async children's, every executed node has loops >= 1 and sane times.
func TestAsyncExplainInvariants(t *testing.T) {
	s := asyncSetup(t)
	mustExec(t, s, "CREATE TABLE ap_local PARTITION OF ap FOR VALUES FROM (4000) TO (5000)")
	mustExec(t, s, "INSERT INTO ap_local SELECT g, g % 7 FROM generate_series(4000, 4499) g")
	for _, q := range []string{
		"SELECT * FROM ap",
		"SELECT k FROM ap WHERE v = 2",
		"SELECT count(*) FROM ap",
		"SELECT * FROM ap LIMIT 10",
	} {
		rows := textRows(t, s, "EXPLAIN (ANALYZE, FORMAT JSON) "+q)
		var doc []struct {
			Plan map[string]any `json:"Plan"`
		}
		if err := json.Unmarshal([]byte(rows[0]), &doc); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var check func(n map[string]any)
		check = func(n map[string]any) {
			num := func(k string) float64 { v, _ := n[k].(float64); return v }
			kids, _ := n["Plans"].([]any)
			if loops := num("Actual Loops"); loops >= 1 && num("Actual Total Time") < num("Actual Startup Time") {
				t.Errorf("%s: %s total time %v < startup %v", q, n["Node Type"], num("Actual Total Time"), num("Actual Startup Time"))
			}
			if n["Node Type"] == "Append" && num("Actual Loops") >= 1 {
				var rows, async float64
				for _, k := range kids {
					km := k.(map[string]any)
					l, _ := km["Actual Loops"].(float64)
					r, _ := km["Actual Rows"].(float64)
					a, _ := km["Async Rows"].(float64)
					rows += r * l
					async += a * l
				}
				// LIMIT may stop the Append before it passed every delivered
				// batch up; otherwise the counts must match exactly.
				if !strings.Contains(q, "LIMIT") && rows != num("Actual Rows") {
					t.Errorf("%s: Append rows %v, children %v", q, num("Actual Rows"), rows)
				}
				if !strings.Contains(q, "LIMIT") && async != num("Async Rows") {
					t.Errorf("%s: Append async rows %v, async children %v", q, num("Async Rows"), async)
				}
			}
			for _, k := range kids {
				check(k.(map[string]any))
			}
		}
		check(doc[0].Plan)
	}
}

// TestAsyncConnections: with async_connections, the partitions of one
// server are read over several connections that share one snapshot.
func TestAsyncConnections(t *testing.T) {
	setup := ""
	for i := 1; i <= 4; i++ {
		setup += fmt.Sprintf("CREATE TABLE public.c%d AS SELECT g AS k FROM generate_series(%d, %d) g;", i, (i-1)*1000, i*1000-1)
	}
	s, _ := remoteDB(t, setup, "async_capable 'true', async_connections '4', fetch_size '100'")
	mustExec(t, s, "CREATE TABLE cp (k int) PARTITION BY RANGE (k)")
	for i := 1; i <= 4; i++ {
		mustExec(t, s, fmt.Sprintf("CREATE FOREIGN TABLE cp%d PARTITION OF cp FOR VALUES FROM (%d) TO (%d) SERVER rs OPTIONS (table_name 'c%d')", i, (i-1)*1000, i*1000, i))
	}
	if got := textRows(t, s, "SELECT count(*), sum(k) FROM cp"); !reflect.DeepEqual(got, []string{"4000|7998000"}) {
		t.Errorf("over four connections: %q", got)
	}
	if got := textRows(t, s, "SELECT count(*) FROM postgres_fdw_get_connections()"); !reflect.DeepEqual(got, []string{"4"}) {
		t.Errorf("connections: %q, want 4 (one per slot)", got)
	}
	if got := textRows(t, s, "SELECT k FROM cp ORDER BY k LIMIT 2"); !reflect.DeepEqual(got, []string{"0", "1"}) {
		t.Errorf("LIMIT: %q", got)
	}
}

// TestParallelAppendForeign: a Parallel Append over local and foreign
// partitions runs each foreign partition whole in one participant and
// shares the local ones out; the answers are the serial plan's.
func TestParallelAppendForeign(t *testing.T) {
	s, _ := remoteDB(t, `CREATE TABLE public.f1 (k int, v int); INSERT INTO f1 SELECT g, g % 7 FROM generate_series(100000, 149999) g;
		CREATE TABLE public.f2 (k int, v int); INSERT INTO f2 SELECT g, g % 7 FROM generate_series(150000, 199999) g`, "")
	mustExec(t, s, "CREATE TABLE p (k int, v int) PARTITION BY RANGE (k)")
	mustExec(t, s, "CREATE TABLE p_l1 PARTITION OF p FOR VALUES FROM (0) TO (50000)")
	mustExec(t, s, "CREATE TABLE p_l2 PARTITION OF p FOR VALUES FROM (50000) TO (100000)")
	mustExec(t, s, "CREATE FOREIGN TABLE p_f1 PARTITION OF p FOR VALUES FROM (100000) TO (150000) SERVER rs OPTIONS (table_name 'f1')")
	mustExec(t, s, "CREATE FOREIGN TABLE p_f2 PARTITION OF p FOR VALUES FROM (150000) TO (200000) SERVER rs OPTIONS (table_name 'f2')")
	mustExec(t, s, "INSERT INTO p_l1 SELECT g, g % 7 FROM generate_series(0, 49999) g")
	mustExec(t, s, "INSERT INTO p_l2 SELECT g, g % 7 FROM generate_series(50000, 99999) g")
	queries := []string{
		"SELECT count(*), sum(k), sum(v), min(k), max(k) FROM p",
		"SELECT v, count(*) FROM p GROUP BY v ORDER BY v",
		"SELECT k FROM p WHERE k % 9999 = 0 ORDER BY k",
	}
	mustExec(t, s, "SET max_parallel_workers_per_gather = 0")
	var want [][]string
	for _, q := range queries {
		want = append(want, textRows(t, s, q))
	}
	mustExec(t, s, "SET max_parallel_workers_per_gather = 2")
	mustExec(t, s, "SET parallel_setup_cost = 0")
	mustExec(t, s, "SET parallel_tuple_cost = 0")
	mustExec(t, s, "SET min_parallel_table_scan_size = 0")
	plan := strings.Join(textRows(t, s, "EXPLAIN (COSTS OFF) "+queries[0]), "\n")
	if !strings.Contains(plan, "Parallel Append") || !strings.Contains(plan, "Foreign Scan on p_f1") || !strings.Contains(plan, "Parallel Seq Scan on p_l1") {
		t.Fatalf("plan:\n%s", plan)
	}
	for _, leader := range []string{"on", "off"} {
		mustExec(t, s, "SET parallel_leader_participation = "+leader)
		for i, q := range queries {
			if got := textRows(t, s, q); !reflect.DeepEqual(got, want[i]) {
				t.Errorf("leader %s: %s: %q, want %q", leader, q, got, want[i])
			}
		}
	}
	// The foreign rows are counted once each: EXPLAIN ANALYZE shows each
	// foreign partition read by exactly one participant.
	text := strings.Join(textRows(t, s, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM p"), "\n")
	if !strings.Contains(text, "Foreign Scan on p_f1 p_3 (actual rows=50000 loops=1)") {
		t.Errorf("foreign partition not read exactly once:\n%s", text)
	}
}
