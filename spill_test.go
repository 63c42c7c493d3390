package pgfed_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/pgerr"
)

// spillTable is 100,000 rows (two stored batches) of keys of several
// types, NULLs among them, many duplicates and many distinct values.
const spillTable = `CREATE TABLE sp AS SELECT g AS id,
	CASE WHEN g % 97 = 0 THEN NULL ELSE (g::bigint * 7919) % 100003 END AS k,
	(g % 5000)::text AS t, (g % 1000)::numeric / 8 AS n, (g % 13)::float8 AS f,
	DATE '2020-01-01' + g % 400 AS d
	FROM generate_series(1, 100000) g`

// TestSpillMatchesInMemory: sorts and hash aggregates that spill (work_mem
// 64kB) give exactly the results of the same queries in memory, and
// EXPLAIN ANALYZE shows which of the two ran.
func TestSpillMatchesInMemory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := pgfed.Open(pgfed.WithTempDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := db.NewSession()
	execSQL(t, s, spillTable)
	execSQL(t, s, "SET max_parallel_workers_per_gather = 0")
	queries := []string{
		"SELECT id, k FROM sp ORDER BY k DESC NULLS FIRST, id LIMIT 70000",
		"SELECT t, id FROM sp ORDER BY t, id DESC OFFSET 60000",
		"SELECT n, f, d, id FROM sp ORDER BY f DESC, d, id OFFSET 99000",
		"SELECT k, count(*), sum(id), min(t), max(d) FROM sp GROUP BY k ORDER BY k",
		"SELECT t, f, count(*), avg(n) FROM sp GROUP BY t, f ORDER BY t, f",
		"SELECT count(*) FROM (SELECT DISTINCT k, t FROM sp) x",
		"SELECT d, count(DISTINCT f), string_agg(t, ',' ORDER BY id) FILTER (WHERE id < 2000) FROM sp GROUP BY d ORDER BY d",
	}
	// Run only what pgfed plans today; the list grows with the planner.
	var run []string
	for _, q := range queries {
		if _, err := runQuery(context.Background(), s, q); err == nil {
			run = append(run, q)
		}
	}
	if len(run) < 5 {
		t.Fatalf("only %d of the queries run", len(run))
	}
	for _, q := range run {
		execSQL(t, s, "SET work_mem = '1GB'")
		want := queryRows(t, s, q)
		execSQL(t, s, "SET work_mem = '64kB'")
		got := queryRows(t, s, q)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d rows spilled, %d in memory; first difference at %d", q, len(got), len(want), firstDiff(got, want))
		}
	}
	for _, tc := range []struct{ workMem, query, want string }{
		{"64kB", run[0], "Sort Method: external merge"}, // LIMIT 70000 is beyond top-N
		{"64kB", run[1], "Sort Method: external merge  Disk: "},
		{"1GB", run[1], "Sort Method: quicksort  Memory: "},
		{"64kB", run[3], "Disk Usage: "},
		{"1GB", run[3], "Batches: 1  Memory Usage: "},
	} {
		execSQL(t, s, "SET work_mem = '"+tc.workMem+"'")
		plan := strings.Join(queryRows(t, s, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) "+tc.query), "\n")
		if !strings.Contains(plan, tc.want) {
			t.Errorf("work_mem %s, %s:\n%s\nwant %q", tc.workMem, tc.query, plan, tc.want)
		}
	}
	// pgfed.debug_spill writes every input batch as a run: seven runs
	// are more than one merge pass takes (six at the smallest work_mem).
	q := "SELECT g FROM generate_series(1, 420000) g ORDER BY g % 1000, g DESC OFFSET 419990"
	want := queryRows(t, s, q)
	execSQL(t, s, "SET pgfed.debug_spill = on")
	if got := queryRows(t, s, q); !slices.Equal(got, want) || len(want) != 10 {
		t.Errorf("multi-pass merge: %q, want %q", got, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("temporary directory holds %d files after the queries", len(entries))
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestSpillCancelAndMemoryLimit: a spilling sort or aggregate stops
// promptly on cancel and leaves no file; a statement that needs more than
// pgfed.memory_limit (or the engine's limit) for what it cannot spill
// fails with 53200, and one that can spill spills earlier instead.
func TestSpillCancelAndMemoryLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := pgfed.Open(pgfed.WithTempDir(dir), pgfed.WithMemoryLimit(4<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := db.NewSession()
	execSQL(t, s, spillTable)
	execSQL(t, s, "SET max_parallel_workers_per_gather = 0")
	execSQL(t, s, "SET work_mem = '64kB'")

	for _, q := range []string{
		"SELECT g FROM generate_series(1, 30000000) g ORDER BY g DESC OFFSET 29999999",
		"SELECT count(*) FROM (SELECT g % 10000000 AS k, count(*) FROM generate_series(1, 30000000) g GROUP BY 1) x",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		start := time.Now()
		_, err := runQuery(ctx, s, q)
		late := time.Since(start) - 500*time.Millisecond
		cancel()
		if pgerr.Code(err) != "57014" {
			t.Errorf("%s: %v, want 57014", q, err)
		}
		if late > 2*time.Second {
			t.Errorf("%s: returned %v after the cancel", q, late)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: %d temporary files left after cancel", q, len(entries))
		}
	}

	// 1GB of work_mem, but the engine has 4MB: the sort spills at 4MB.
	execSQL(t, s, "SET work_mem = '1GB'")
	plan := strings.Join(queryRows(t, s, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT id FROM sp ORDER BY k OFFSET 99999"), "\n")
	if !strings.Contains(plan, "external merge") {
		t.Errorf("sort under a 4MB engine limit:\n%s", plan)
	}
	// One input batch (64K rows) is more than 64kB: nothing to spill first.
	execSQL(t, s, "SET pgfed.memory_limit = '64kB'")
	_, err = runQuery(context.Background(), s, "SELECT id FROM sp ORDER BY k OFFSET 99999")
	if pgerr.Code(err) != "53200" {
		t.Errorf("sort over pgfed.memory_limit: %v, want 53200", err)
	}
	execSQL(t, s, "RESET pgfed.memory_limit")
	if got := queryRows(t, s, "SELECT id FROM sp ORDER BY id OFFSET 99999"); !slices.Equal(got, []string{"100000"}) {
		t.Errorf("after the failure: %q", got)
	}
}
