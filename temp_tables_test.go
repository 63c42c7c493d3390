package pgfed_test

// Temporary tables across sessions (temp_tables.test covers one session):
// each session has its own pg_temp_N schema that no other session sees,
// which goes with its session; a temporary table shadows a permanent one
// for its own session only; ON COMMIT actions across transactions; \d
// lists temporary tables in their pg_temp_N schema.

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pgfed/pgfed"
)

func tempDB(t *testing.T) *pgfed.DB {
	t.Helper()
	db, err := pgfed.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// wantCode runs sql and checks that it fails with SQLSTATE code.
func tempWantCode(t *testing.T, s *pgfed.Session, sql, code string) {
	t.Helper()
	_, err := s.Exec(context.Background(), sql)
	if got := pgfed.ErrorCode(err); got != code {
		t.Fatalf("%s: error %v (SQLSTATE %q), want SQLSTATE %s", sql, err, got, code)
	}
}

func tempWantRows(t *testing.T, s *pgfed.Session, sql string, want ...string) {
	t.Helper()
	got := queryRows(t, s, sql)
	if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Fatalf("%s: got %q, want %q", sql, got, want)
	}
}

func TestTempTableOtherSessionsDoNotSeeIt(t *testing.T) {
	db := tempDB(t)
	a, b := db.NewSession(), db.NewSession()
	defer a.Close()
	defer b.Close()
	mustExec(t, a, "CREATE TEMP TABLE mine (x int)")
	mustExec(t, a, "INSERT INTO mine VALUES (1)")
	tempWantRows(t, a, "SELECT x FROM mine", "1")
	tempWantCode(t, b, "SELECT x FROM mine", "42P01")
	tempWantCode(t, b, "SELECT x FROM pg_temp.mine", "42P01")
	// Each session has a schema of its own: the same name in both.
	mustExec(t, b, "CREATE TEMP TABLE mine (y text)")
	mustExec(t, b, "INSERT INTO mine VALUES ('b')")
	tempWantRows(t, a, "SELECT x FROM mine", "1")
	tempWantRows(t, b, "SELECT y FROM mine", "b")
	// Naming the other session's schema reaches the table but not its rows.
	schemaOf := func(s *pgfed.Session) string {
		rels, err := s.ListRelations()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rels {
			if r.Name == "mine" {
				return r.Schema
			}
		}
		t.Fatal("\\d does not list the temporary table")
		return ""
	}
	sa, sb := schemaOf(a), schemaOf(b)
	if sa == sb || !strings.HasPrefix(sa, "pg_temp_") || !strings.HasPrefix(sb, "pg_temp_") {
		t.Fatalf("temporary schemas %q and %q, want two distinct pg_temp_N", sa, sb)
	}
	tempWantCode(t, b, "SELECT * FROM "+sa+".mine", "0A000")
	tempWantCode(t, b, "CREATE TABLE "+sa+".intruder (a int)", "42P16")
	tempWantRows(t, a, "SELECT x FROM "+sa+".mine", "1")
}

func TestTempTableGoneWithItsSession(t *testing.T) {
	db := tempDB(t)
	a := db.NewSession()
	mustExec(t, a, "CREATE TEMP TABLE short_lived (x int)")
	mustExec(t, a, "INSERT INTO short_lived SELECT g FROM generate_series(1, 1000) g")
	rels, err := a.ListRelations()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(rels, func(r pgfed.RelationInfo) bool { return r.Name == "short_lived" })
	if i < 0 {
		t.Fatalf("\\d lists %v, no short_lived", rels)
	}
	schema := rels[i].Schema
	a.Close()
	b := db.NewSession()
	defer b.Close()
	tempWantCode(t, b, "SELECT * FROM "+schema+".short_lived", "42P01")
	// The schema itself went too: the next session may reuse its number.
	mustExec(t, b, "CREATE TEMP TABLE short_lived (y int)")
	tempWantRows(t, b, "SELECT count(*) FROM short_lived", "0")
	// A session closed inside a transaction block drops its tables too.
	c := db.NewSession()
	mustExec(t, c, "CREATE TEMP TABLE in_block (x int)")
	mustExec(t, c, "BEGIN")
	mustExec(t, c, "INSERT INTO in_block VALUES (1)")
	c.Close()
	for _, r := range tempMust(b.ListRelations()) {
		if r.Name == "in_block" {
			t.Fatalf("a closed session's table is still listed: %v", r)
		}
	}
}

func tempMust[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestTempTableShadowsPermanentForItsSessionOnly(t *testing.T) {
	db := tempDB(t)
	a, b := db.NewSession(), db.NewSession()
	defer a.Close()
	defer b.Close()
	mustExec(t, a, "CREATE TABLE items (v text)")
	mustExec(t, a, "INSERT INTO items VALUES ('permanent')")
	mustExec(t, a, "CREATE TEMP TABLE items (v text)")
	mustExec(t, a, "INSERT INTO items VALUES ('temporary')")
	tempWantRows(t, a, "SELECT v FROM items", "temporary")
	tempWantRows(t, a, "SELECT v FROM public.items", "permanent")
	tempWantRows(t, b, "SELECT v FROM items", "permanent")
	// \d shows what unqualified names reach: the temporary table, not
	// the one it hides.
	rels := tempMust(a.ListRelations())
	if len(rels) != 1 || !strings.HasPrefix(rels[0].Schema, "pg_temp_") || rels[0].Name != "items" {
		t.Fatalf("\\d in the shadowing session: %v", rels)
	}
	d, err := a.DescribeRelation("items")
	if err != nil || !strings.HasPrefix(d.Schema, "pg_temp_") {
		t.Fatalf("\\d items: %+v, %v", d, err)
	}
	// DROP takes the temporary table, revealing the permanent one.
	mustExec(t, a, "DROP TABLE items")
	tempWantRows(t, a, "SELECT v FROM items", "permanent")
	// A rolled-back DROP of the temporary table leaves it shadowing.
	mustExec(t, a, "CREATE TEMP TABLE items (v text)")
	mustExec(t, a, "BEGIN; DROP TABLE items; ROLLBACK")
	tempWantRows(t, a, "SELECT count(*) FROM items", "0")
	mustExec(t, a, "SET search_path = public, pg_temp")
	tempWantRows(t, a, "SELECT v FROM items", "permanent")
	mustExec(t, a, "RESET search_path")
	tempWantRows(t, a, "SELECT count(*) FROM items", "0")
}

func TestTempTableOnCommit(t *testing.T) {
	db := tempDB(t)
	s := db.NewSession()
	defer s.Close()
	mustExec(t, s, "CREATE TEMP TABLE d (x int) ON COMMIT DELETE ROWS")
	// The rows last until the transaction that wrote them commits...
	mustExec(t, s, "BEGIN")
	mustExec(t, s, "INSERT INTO d VALUES (1), (2)")
	tempWantRows(t, s, "SELECT count(*) FROM d", "2")
	mustExec(t, s, "COMMIT")
	tempWantRows(t, s, "SELECT count(*) FROM d", "0")
	// ...or, written by a multi-statement query, until it ends.
	tempWantRowsRun(t, s, "INSERT INTO d VALUES (1); SELECT count(*) FROM d", "1")
	tempWantRows(t, s, "SELECT count(*) FROM d", "0")
	// A transaction that rolls back has nothing to delete but its own rows.
	mustExec(t, s, "BEGIN")
	mustExec(t, s, "INSERT INTO d VALUES (3)")
	mustExec(t, s, "ROLLBACK")
	tempWantRows(t, s, "SELECT count(*) FROM d", "0")

	// ON COMMIT DROP in a block: gone at COMMIT, and not left behind by
	// a ROLLBACK either.
	mustExec(t, s, "BEGIN")
	mustExec(t, s, "CREATE TEMP TABLE g (x int) ON COMMIT DROP")
	mustExec(t, s, "INSERT INTO g VALUES (1)")
	tempWantRows(t, s, "SELECT x FROM g", "1")
	mustExec(t, s, "COMMIT")
	tempWantCode(t, s, "SELECT x FROM g", "42P01")
	mustExec(t, s, "BEGIN")
	mustExec(t, s, "CREATE TEMP TABLE g (x int) ON COMMIT DROP")
	mustExec(t, s, "ROLLBACK")
	tempWantCode(t, s, "SELECT x FROM g", "42P01")
	// COMMIT AND CHAIN drops it too, the chained block going on.
	mustExec(t, s, "BEGIN")
	mustExec(t, s, "CREATE TEMP TABLE g (x int) ON COMMIT DROP")
	mustExec(t, s, "COMMIT AND CHAIN")
	tempWantCode(t, s, "SELECT x FROM g", "42P01")
	mustExec(t, s, "ROLLBACK")

	// ON COMMIT PRESERVE ROWS across transactions.
	mustExec(t, s, "CREATE TEMP TABLE p (x int) ON COMMIT PRESERVE ROWS")
	mustExec(t, s, "BEGIN; INSERT INTO p VALUES (1); COMMIT")
	mustExec(t, s, "INSERT INTO p VALUES (2)")
	tempWantRows(t, s, "SELECT count(*) FROM p", "2")
}

// wantRowsRun runs a multi-statement query and checks the last result.
func tempWantRowsRun(t *testing.T, s *pgfed.Session, sql string, want ...string) {
	t.Helper()
	var got []string
	err := s.Run(context.Background(), sql, func(r *pgfed.Rows) error {
		got = got[:0]
		for r.Next() {
			v, _ := r.Text(0)
			got = append(got, v)
		}
		return r.Err()
	})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: got %q, %v; want %q", sql, got, err, want)
	}
}

func TestTempTableCreatedInRolledBackTransaction(t *testing.T) {
	db := tempDB(t)
	s := db.NewSession()
	defer s.Close()
	mustExec(t, s, "BEGIN")
	mustExec(t, s, "CREATE TEMP TABLE r (x int)")
	mustExec(t, s, "INSERT INTO r VALUES (1)")
	mustExec(t, s, "ROLLBACK")
	tempWantCode(t, s, "SELECT * FROM r", "42P01")
	// A multi-statement query that fails takes its temporary table along.
	tempWantCode(t, s, "CREATE TEMP TABLE r2 (x int); SELECT 1/0", "22012")
	tempWantCode(t, s, "SELECT * FROM r2", "42P01")
}

// Parallel workers read temporary tables as they read any other: they
// share the leader's memory (see commands/temptables.go).
func TestTempTableParallelScan(t *testing.T) {
	db := tempDB(t)
	s := db.NewSession()
	defer s.Close()
	mustExec(t, s, "CREATE TEMP TABLE big AS SELECT g AS a FROM generate_series(1, 200000) g")
	mustExec(t, s, "SET parallel_setup_cost = 0")
	mustExec(t, s, "SET parallel_tuple_cost = 0")
	mustExec(t, s, "SET min_parallel_table_scan_size = 0")
	plan := strings.Join(queryRows(t, s, "EXPLAIN (COSTS OFF) SELECT count(*) FROM big"), "\n")
	if !strings.Contains(plan, "Gather") {
		t.Logf("no parallel plan for a temporary table:\n%s", plan)
	}
	tempWantRows(t, s, "SELECT count(*), sum(a) FROM big", "200000|20000100000")
}
