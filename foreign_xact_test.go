package pgfed_test

// Remote transactions seen from SQL: a block keeps one remote snapshot
// per server, remote savepoints follow local ones, and the session stays
// usable after remote errors and early-stopped scans.

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/pgfed/pgfed/pgerr"
)

func TestForeignBlockSnapshot(t *testing.T) {
	s, remote := remoteDB(t, "CREATE TABLE public.r (a int); INSERT INTO public.r VALUES (1), (2), (3)", "")
	ctx := context.Background()
	mustExec(t, s, "CREATE FOREIGN TABLE r (a int) SERVER rs")
	count := func() string { return textRows(t, s, "SELECT count(*) FROM r")[0] }

	for _, iso := range []string{"READ COMMITTED", "REPEATABLE READ"} {
		before := count()
		mustExec(t, s, "BEGIN ISOLATION LEVEL "+iso)
		if got := count(); got != before {
			t.Fatalf("%s: count %s, want %s", iso, got, before)
		}
		if _, err := remote.Exec(ctx, "INSERT INTO public.r VALUES (9)"); err != nil {
			t.Fatal(err)
		}
		// Like postgres_fdw, one remote REPEATABLE READ transaction per
		// server for the whole local transaction.
		if got := count(); got != before {
			t.Errorf("%s: a row committed remotely during the block is visible (%s rows)", iso, got)
		}
		mustExec(t, s, "COMMIT")
		if got := count(); got == before {
			t.Errorf("%s: the row is not visible after the block", iso)
		}
	}
}

// A LIMIT that stops async foreign scans early inside a block leaves the
// remote transactions usable for the rest of it.
func TestForeignBlockAfterLimit(t *testing.T) {
	s := asyncSetup(t)
	mustExec(t, s, "BEGIN")
	for i := 0; i < 3; i++ {
		if got := textRows(t, s, "SELECT k FROM ap LIMIT 3"); len(got) != 3 {
			t.Fatalf("LIMIT 3 gave %v", got)
		}
	}
	if got := textRows(t, s, "SELECT count(*) FROM ap"); !reflect.DeepEqual(got, []string{"4000"}) {
		t.Fatalf("count after LIMITs in the block: %v", got)
	}
	mustExec(t, s, "COMMIT")
	if got := textRows(t, s, "SELECT count(*) FROM ap"); !reflect.DeepEqual(got, []string{"4000"}) {
		t.Fatalf("count after the block: %v", got)
	}
}

// A remote error inside a savepoint is undone by ROLLBACK TO, locally and
// remotely; at the top level it fails the block until ROLLBACK.
func TestForeignErrorInBlock(t *testing.T) {
	s, _ := remoteDB(t, "CREATE TABLE public.r (a int); INSERT INTO public.r VALUES (0), (1)", "")
	ctx := context.Background()
	mustExec(t, s, "CREATE FOREIGN TABLE r (a int) SERVER rs")
	mustExec(t, s, "BEGIN")
	mustExec(t, s, "SAVEPOINT a")
	if _, err := s.Exec(ctx, "SELECT 1 / a FROM r"); pgerr.Code(err) != "22012" {
		t.Fatalf("remote division by zero: %v", err)
	}
	if _, err := s.Exec(ctx, "SELECT count(*) FROM r"); pgerr.Code(err) != pgerr.InFailedSQLTransaction {
		t.Fatalf("in the failed block: %v", err)
	}
	mustExec(t, s, "ROLLBACK TO a")
	if got := textRows(t, s, "SELECT count(*) FROM r"); !reflect.DeepEqual(got, []string{"2"}) {
		t.Fatalf("after ROLLBACK TO: %v", got)
	}
	if _, err := s.Exec(ctx, "SELECT 1 / a FROM r"); pgerr.Code(err) != "22012" {
		t.Fatalf("remote division by zero: %v", err)
	}
	if tag, err := s.Exec(ctx, "COMMIT"); err != nil || tag != "ROLLBACK" {
		t.Fatalf("COMMIT of the failed block: %q %v", tag, err)
	}
	if got := textRows(t, s, "SELECT count(*) FROM r"); !reflect.DeepEqual(got, []string{"2"}) {
		t.Fatalf("after the block: %v", got)
	}
}

// The same while the stopped scans' FETCHes are still running remotely:
// stopping must not cancel them (which would abort the remote
// transaction the block goes on using).
func TestForeignBlockAfterLimitSlowRemote(t *testing.T) {
	s, _ := remoteDB(t, `CREATE VIEW public.slow AS
		SELECT g AS k, pg_sleep(0.002)::text AS pad FROM generate_series(1, 300) g`, "async_capable 'true', fetch_size '100'")
	mustExec(t, s, "CREATE TABLE sp (k int, pad text) PARTITION BY LIST (k)")
	for i, bound := range []string{"DEFAULT", "FOR VALUES IN (0)"} {
		srv := fmt.Sprintf("s%d", i)
		mustExec(t, s, fmt.Sprintf("CREATE SERVER %s FOREIGN DATA WRAPPER postgres_fdw OPTIONS (%s)", srv, serverOptionsOf(t, s)))
		mustExec(t, s, "CREATE USER MAPPING FOR CURRENT_USER SERVER "+srv+" OPTIONS (user 'postgres')")
		mustExec(t, s, fmt.Sprintf("CREATE FOREIGN TABLE sp%d PARTITION OF sp %s SERVER %s OPTIONS (table_name 'slow')", i, bound, srv))
	}
	mustExec(t, s, "BEGIN")
	if got := textRows(t, s, "SELECT k FROM sp LIMIT 1"); len(got) != 1 {
		t.Fatalf("LIMIT 1 gave %v", got)
	}
	if got := textRows(t, s, "SELECT count(*) FROM sp0"); !reflect.DeepEqual(got, []string{"300"}) {
		t.Fatalf("count after the LIMIT in the block: %v", got)
	}
	mustExec(t, s, "COMMIT")
}
