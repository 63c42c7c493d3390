package pgfed_test

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pgfed/pgfed"
)

// parallelHashTables makes big(k, v), 200,000 rows, and dim(k, name),
// 50,000 rows with some NULL keys, each in 20 stored batches.
func parallelHashTables(t *testing.T, s *pgfed.Session) {
	t.Helper()
	execSQL(t, s, "CREATE TABLE big (k int, v int)")
	execSQL(t, s, "CREATE TABLE dim (k int, name text)")
	for i := 0; i < 20; i++ {
		execSQL(t, s, fmt.Sprintf("INSERT INTO big SELECT g %% 60000, g FROM generate_series(%d, %d) g", i*10000+1, (i+1)*10000))
		execSQL(t, s, fmt.Sprintf("INSERT INTO dim SELECT CASE WHEN g %% 97 = 0 THEN NULL ELSE g END, 'n' || (g %% 7) FROM generate_series(%d, %d) g", i*2500+1, (i+1)*2500))
	}
}

// TestParallelHashMatchesSerial: joins planned as Parallel Hash Joins
// (with and without the leader, spilling or not) give the serial answers.
func TestParallelHashMatchesSerial(t *testing.T) {
	db := openDB(t)
	setup := db.NewSession()
	parallelHashTables(t, setup)
	queries := []string{
		"SELECT count(*), sum(big.v), count(dim.name) FROM big JOIN dim ON big.k = dim.k",
		"SELECT dim.name, count(*), sum(big.v) FROM big JOIN dim ON big.k = dim.k GROUP BY dim.name",
		"SELECT count(*), count(dim.k), sum(big.v) FROM big LEFT JOIN dim ON big.k = dim.k AND dim.name <> 'n3'",
		"SELECT count(*), sum(v) FROM big WHERE EXISTS (SELECT 1 FROM dim WHERE dim.k = big.k AND dim.name = 'n1')",
		"SELECT count(*), sum(v) FROM big WHERE NOT EXISTS (SELECT 1 FROM dim WHERE dim.k = big.k)",
		"SELECT count(*), sum(v) FROM big WHERE k NOT IN (SELECT k FROM dim WHERE k IS NOT NULL)",
		"SELECT count(*) FROM big WHERE k NOT IN (SELECT k FROM dim)",
		"SELECT big.k, big.v, dim.name FROM big JOIN dim ON big.k = dim.k WHERE big.v % 5000 = 3",
		// Skew: one key holds nearly the whole build side (the reference
		// note's pitfall 5, a hot key during a parallel build).
		"SELECT count(*), sum(big.v) FROM big JOIN dim ON (CASE WHEN dim.k < 49000 THEN 1 ELSE dim.k END) = (CASE WHEN big.v < 100 THEN 1 ELSE big.k + 100000 END)",
	}
	serial := db.NewSession()
	execSQL(t, serial, "SET max_parallel_workers_per_gather = 0")
	want := make([][]string, len(queries))
	for i, q := range queries {
		want[i] = queryRows(t, serial, q)
		slices.Sort(want[i])
	}
	modes := []struct {
		name     string
		settings []string
	}{
		{"2 workers", nil},
		{"2 workers, no leader", []string{"SET parallel_leader_participation = off"}},
		{"1 worker", []string{"SET max_parallel_workers_per_gather = 1"}},
		{"spill", []string{"SET work_mem = '64kB'", "SET hash_mem_multiplier = 1"}},
		{"debug spill", []string{"SET pgfed.debug_spill = on"}},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s := db.NewSession()
			forceParallel(t, s, 2, true)
			for _, set := range m.settings {
				execSQL(t, s, set)
			}
			for i, q := range queries {
				if plan := explainText(t, s, q); !strings.Contains(plan, "Parallel Hash") && !strings.Contains(q, "NOT IN (SELECT k FROM dim)") {
					t.Errorf("%s: no Parallel Hash in\n%s", q, plan)
				}
				got := queryRows(t, s, q)
				slices.Sort(got)
				if !slices.Equal(got, want[i]) {
					t.Errorf("%s: %d rows %.300v, want %d rows %.300v", q, len(got), got, len(want[i]), want[i])
				}
			}
		})
	}
}

var actualRowsLoops = regexp.MustCompile(`\(actual rows=(\d+) loops=(\d+)\)`)

// TestParallelHashExplainAnalyze: EXPLAIN ANALYZE of a Parallel Hash
// Join with two workers shows the shared build: the Parallel Hash run by
// all three participants, their rows adding up to the inner table's, and
// the inner side read once in all, not once per participant.
func TestParallelHashExplainAnalyze(t *testing.T) {
	s := openDB(t).NewSession()
	parallelHashTables(t, s)
	forceParallel(t, s, 2, true)
	lines := queryRows(t, s, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM big JOIN dim ON big.k = dim.k")
	t.Logf("%s", strings.Join(lines, "\n"))
	text := strings.Join(lines, "\n")
	for _, want := range []string{"Workers Launched: 2", "->  Parallel Hash Join (actual rows=", "->  Parallel Hash (actual rows=", "Buckets: "} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	total := func(line string) (int, int) {
		m := actualRowsLoops.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("no actual rows in %q", line)
		}
		rows, _ := strconv.Atoi(m[1])
		loops, _ := strconv.Atoi(m[2])
		return rows, loops
	}
	for i, line := range lines {
		if !strings.Contains(line, "->  Parallel Hash (") {
			continue
		}
		// The Hash's rows are each participant's own inserts (dim's rows
		// without the NULL keys), per loop.
		rows, loops := total(line)
		if loops != 3 || phAbs(rows*loops-49485) > loops {
			t.Errorf("Parallel Hash: rows %d loops %d, want 49485 rows over 3 loops:\n%s", rows, loops, text)
		}
		scan := lines[i+2]
		if !strings.Contains(scan, "Parallel Seq Scan on dim") {
			t.Fatalf("the Parallel Hash's child is %q:\n%s", scan, text)
		}
		rows, loops = total(scan)
		if loops < 1 || loops > 3 || phAbs(rows*loops-50000) > loops {
			t.Errorf("inner scan: rows %d loops %d: not 50000 rows read once:\n%s", rows, loops, text)
		}
		return
	}
	t.Fatalf("no Parallel Hash in:\n%s", text)
}

func phAbs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
