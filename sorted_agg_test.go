package pgfed_test

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pgfed/pgfed"
)

// TestAggStreamsSortedInput: a hashed Agg over a table stored in the
// order of a group key returns its groups as that key moves on
// (executor/agg_stream.go), and gives exactly the results of the same
// queries over the same rows stored shuffled, which it hashes. EXPLAIN
// ANALYZE shows the flushes; a table whose order a write broke, or whose
// key has a NULL, is hashed again.
func TestAggStreamsSortedInput(t *testing.T) {
	t.Parallel()
	db, err := pgfed.Open(pgfed.WithTempDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := db.NewSession()
	execSQL(t, s, "SET max_parallel_workers_per_gather = 0")
	// k: three rows a key, then one key over 130,000 rows (whole stored
	// batches); d: a date key of runs of 50.
	execSQL(t, s, `CREATE TABLE ord AS SELECT
		CASE WHEN g < 60000 THEN g / 3 ELSE 20000 + g / 190000 END AS k,
		g AS id, (g % 7)::numeric / 4 AS n, g % 5 AS m,
		DATE '2020-01-01' + g / 50 AS d
		FROM generate_series(1, 200000) g`)
	execSQL(t, s, "CREATE TABLE shuf AS SELECT * FROM ord ORDER BY (id * 7919) % 200003")

	queries := []string{
		"SELECT k, count(*), sum(n), avg(n), min(id), max(d) FROM %s GROUP BY k",
		"SELECT m, k, count(*), sum(id) FROM %s GROUP BY m, k",
		"SELECT d, sum(n), count(DISTINCT m) FROM %s WHERE id % 3 <> 0 GROUP BY d HAVING sum(n) > 10",
		"SELECT k, string_agg(m::text, ',' ORDER BY id DESC) FROM %s WHERE id < 1000 OR id > 199000 GROUP BY k",
	}
	for _, workMem := range []string{"4MB", "64kB"} {
		execSQL(t, s, "SET work_mem = '"+workMem+"'")
		for _, q := range queries {
			got := sortedQuery(t, s, strings.Replace(q, "%s", "ord", 1))
			want := sortedQuery(t, s, strings.Replace(q, "%s", "shuf", 1))
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("work_mem %s, %s: %d rows streamed, %d hashed; first difference at %d", workMem, q, len(got), len(want), firstDiff(got, want))
			}
		}
	}

	flushes := regexp.MustCompile(`Presorted Key: (\w+)  Flushes: (\d+)`)
	explain := func(q string) string {
		return strings.Join(queryRows(t, s, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) "+q), "\n")
	}
	for _, tc := range []struct {
		workMem, query, key string
		minFlushes          int
	}{
		// 20,000 keys of three rows, then one: a flush each 16K groups.
		{"4MB", "SELECT k, count(*) FROM ord GROUP BY k", "k", 1},
		{"4MB", "SELECT m, k, sum(n) FROM ord GROUP BY m, k", "k", 2},
		// 4,000 dates, few groups, but 64kB of memory: flushes by memory.
		{"64kB", "SELECT d, id % 2, sum(n) FROM ord GROUP BY d, id % 2", "d", 5},
	} {
		execSQL(t, s, "SET work_mem = '"+tc.workMem+"'")
		plan := explain(tc.query)
		m := flushes.FindStringSubmatch(plan)
		if m == nil || m[1] != tc.key {
			t.Errorf("%s: no streaming by %s:\n%s", tc.query, tc.key, plan)
			continue
		}
		if n, _ := strconv.Atoi(m[2]); n < tc.minFlushes || strings.Contains(plan, "Disk Usage") {
			t.Errorf("%s: %s flushes (want >= %d), and no disk:\n%s", tc.query, m[2], tc.minFlushes, plan)
		}
	}
	// One key's groups past work_mem (k = 20000 holds 140,000 ids): the
	// rest is hashed and spills, with the same answer.
	execSQL(t, s, "SET work_mem = '64kB'")
	q := "SELECT k, id, count(*), sum(n) FROM %s WHERE id > 20000 GROUP BY k, id"
	if got, want := sortedQuery(t, s, strings.Replace(q, "%s", "ord", 1)), sortedQuery(t, s, strings.Replace(q, "%s", "shuf", 1)); !slices.Equal(got, want) {
		t.Errorf("%s: %d rows, %d hashed; first difference at %d", q, len(got), len(want), firstDiff(got, want))
	}
	if plan := explain(strings.Replace(q, "%s", "ord", 1)); !strings.Contains(plan, "Then Hashed") || !strings.Contains(plan, "Disk Usage") {
		t.Errorf("one key's groups past work_mem did not go on hashing and spilling:\n%s", plan)
	}
	execSQL(t, s, "SET work_mem = '4MB'")
	if plan := explain("SELECT k, count(*) FROM shuf GROUP BY k"); strings.Contains(plan, "Presorted Key") {
		t.Errorf("shuffled input streamed:\n%s", plan)
	}

	// An UPDATE appends the row's new version: k is no longer in order.
	q = "SELECT k, count(*), sum(n) FROM %s GROUP BY k"
	for _, write := range []string{
		"UPDATE %s SET n = n + 1 WHERE id = 7",
		"INSERT INTO %s (k, id, n) VALUES (NULL, 0, 1)",
	} {
		execSQL(t, s, strings.Replace(write, "%s", "ord", 1))
		execSQL(t, s, strings.Replace(write, "%s", "shuf", 1))
		if plan := explain(strings.Replace(q, "%s", "ord", 1)); strings.Contains(plan, "Presorted Key") {
			t.Errorf("after %s, still streamed:\n%s", write, plan)
		}
		got := sortedQuery(t, s, strings.Replace(q, "%s", "ord", 1))
		want := sortedQuery(t, s, strings.Replace(q, "%s", "shuf", 1))
		if !slices.Equal(got, want) {
			t.Errorf("after %s: first difference at %d", write, firstDiff(got, want))
		}
	}
}

// sortedQuery is q's rows, sorted.
func sortedQuery(t *testing.T, s *pgfed.Session, q string) []string {
	t.Helper()
	rows := queryRows(t, s, q)
	slices.Sort(rows)
	return rows
}
