package pgfed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgfed/pgfed"
	"go.uber.org/goleak"
)

// parallelTable makes t(a, b, s) with n rows in many stored batches (one
// per INSERT), so that a parallel scan has many morsels to share out.
func parallelTable(t *testing.T, s *pgfed.Session, n, inserts int) {
	t.Helper()
	execSQL(t, s, "CREATE TABLE t (a int, b int, s text)")
	per := n / inserts
	for i := 0; i < inserts; i++ {
		execSQL(t, s, fmt.Sprintf("INSERT INTO t SELECT g %% 1000, g, 'v' || (g %% 13) FROM generate_series(%d, %d) g", i*per+1, (i+1)*per))
	}
}

// forceParallel makes the planner choose parallel plans on small tables.
func forceParallel(t *testing.T, s *pgfed.Session, workers int, leader bool) {
	t.Helper()
	execSQL(t, s, "SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0")
	execSQL(t, s, fmt.Sprintf("SET max_parallel_workers_per_gather = %d", workers))
	execSQL(t, s, fmt.Sprintf("SET parallel_leader_participation = %v", leader))
}

func explainText(t *testing.T, s *pgfed.Session, sql string) string {
	t.Helper()
	return strings.Join(queryRows(t, s, "EXPLAIN (COSTS OFF) "+sql), "\n")
}

// TestParallelMatchesSerial runs queries serially and with parallel plans
// (two workers, with and without the leader, and one worker) and compares
// the answers; the parallel plans are checked to be the parallel ones.
func TestParallelMatchesSerial(t *testing.T) {
	db := openDB(t)
	setup := db.NewSession()
	parallelTable(t, setup, 200000, 20)
	queries := []struct {
		sql     string
		node    string // the node the parallel plan must have
		ordered bool
	}{
		{"SELECT count(*), sum(a), sum(b), avg(a), min(s), max(b), bool_and(a < 999) FROM t", "Finalize Aggregate", true},
		{"SELECT count(*), sum(b) FROM t WHERE s = 'v3'", "Partial Aggregate", true},
		{"SELECT string_agg(s, ',' ORDER BY b DESC), count(DISTINCT a) FROM t WHERE b % 1000 = 1", "Gather", true},
		{"SELECT s, count(*), avg(b), max(a) FROM t GROUP BY s HAVING count(*) > 10", "Partial HashAggregate", false},
		{"SELECT a, b FROM t WHERE b % 1000 = 7", "Parallel Seq Scan", false},
		{"SELECT a, b, s FROM t ORDER BY b DESC LIMIT 25", "Gather Merge", true},
		{"SELECT a, b FROM t ORDER BY a, b DESC", "Gather Merge", true},
		{"SELECT s, b FROM t ORDER BY s, b LIMIT 1000", "Gather Merge", true},
		{"SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b", "Gather Merge", true},
		{"SELECT a * 2 AS x FROM t WHERE a < 3 ORDER BY x DESC, 1", "Gather Merge", true},
	}
	serial := db.NewSession()
	execSQL(t, serial, "SET max_parallel_workers_per_gather = 0")
	modes := []struct {
		name    string
		workers int
		leader  bool
	}{{"2 workers", 2, true}, {"2 workers, no leader", 2, false}, {"1 worker", 1, true}}
	for _, m := range modes {
		par := db.NewSession()
		forceParallel(t, par, m.workers, m.leader)
		for _, q := range queries {
			plan := explainText(t, par, q.sql)
			if !strings.Contains(plan, q.node) {
				t.Errorf("%s: %s: plan has no %s:\n%s", m.name, q.sql, q.node, plan)
			}
			want, got := queryRows(t, serial, q.sql), queryRows(t, par, q.sql)
			if !q.ordered {
				slices.Sort(want)
				slices.Sort(got)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s: %d rows differ from the serial plan's %d", m.name, q.sql, len(got), len(want))
			}
		}
	}
	if n := db.ParallelWorkersRunning(); n != 0 {
		t.Errorf("%d workers still running", n)
	}
}

// TestParallelPartitions: a Parallel Append over partitions.
func TestParallelPartitions(t *testing.T) {
	s := openDB(t).NewSession()
	execSQL(t, s, "CREATE TABLE p (a int, b int) PARTITION BY RANGE (a)")
	for i := 0; i < 4; i++ {
		execSQL(t, s, fmt.Sprintf("CREATE TABLE p%d PARTITION OF p FOR VALUES FROM (%d) TO (%d)", i, i*25000, (i+1)*25000))
		execSQL(t, s, fmt.Sprintf("INSERT INTO p SELECT g, g %% 7 FROM generate_series(%d, %d) g", i*25000, (i+1)*25000-1))
	}
	want := queryRows(t, s, "SELECT count(*), sum(a), sum(b) FROM p")
	forceParallel(t, s, 2, true)
	plan := explainText(t, s, "SELECT count(*), sum(a), sum(b) FROM p")
	if !strings.Contains(plan, "Parallel Append") {
		t.Fatalf("no Parallel Append:\n%s", plan)
	}
	if got := queryRows(t, s, "SELECT count(*), sum(a), sum(b) FROM p"); !reflect.DeepEqual(got, want) {
		t.Errorf("parallel %q, serial %q", got, want)
	}
}

// TestParallelErrors: an error raised in a worker is the statement's error
// and stops the other workers; the session works afterwards.
func TestParallelErrors(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	db := openDB(t)
	s := db.NewSession()
	parallelTable(t, s, 100000, 10)
	forceParallel(t, s, 2, false) // no leader: the error must come from a worker
	for _, sql := range []string{
		"SELECT sum(100 / (b - 54321)) FROM t",
		"SELECT a, 100 / (b - 54321) FROM t",
		"SELECT a FROM t ORDER BY 100 / (b - 54321)",
	} {
		_, err := runQuery(context.Background(), s, sql)
		checkError(t, err, "22012", "division by zero")
	}
	if n := db.ParallelWorkersRunning(); n != 0 {
		t.Errorf("%d workers still running", n)
	}
	if got := queryRows(t, s, "SELECT count(*) FROM t"); !reflect.DeepEqual(got, []string{"100000"}) {
		t.Errorf("after the errors: %q", got)
	}
}

// TestParallelCancel: statement_timeout and a cancelled context stop the
// workers; an early end (LIMIT, closing the rows) stops them too.
func TestParallelCancel(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	db := openDB(t)
	s := db.NewSession()
	parallelTable(t, s, 1000000, 10)
	forceParallel(t, s, 2, true)
	// Sorting a million computed strings in the workers takes long enough
	// to be interrupted.
	slow := "SELECT count(*) FROM (SELECT a FROM t ORDER BY s || b::text || s) x"
	if plan := explainText(t, s, slow); !strings.Contains(plan, "Gather Merge") {
		t.Fatalf("no Gather Merge:\n%s", plan)
	}
	execSQL(t, s, "SET statement_timeout = '30ms'")
	_, err := runQuery(context.Background(), s, slow)
	checkError(t, err, "57014", "canceling statement due to statement timeout")
	execSQL(t, s, "RESET statement_timeout")

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	_, err = runQuery(ctx, s, slow)
	checkError(t, err, "57014", "canceling statement due to user request")

	if got := queryRows(t, s, "SELECT a FROM t WHERE b > 10 LIMIT 3"); len(got) != 3 {
		t.Errorf("LIMIT 3 gave %d rows", len(got))
	}
	rows, err := s.Query(context.Background(), "SELECT a, b FROM t")
	if err != nil {
		t.Fatal(err)
	}
	rows.Next()
	rows.Close()
	if n := db.ParallelWorkersRunning(); n != 0 {
		t.Errorf("%d workers still running", n)
	}
}

// TestParallelWorkerLimit: max_parallel_workers bounds the workers
// launched; with none available the leader runs the plan, whatever
// parallel_leader_participation says.
func TestParallelWorkerLimit(t *testing.T) {
	s := openDB(t).NewSession()
	parallelTable(t, s, 10000, 4)
	forceParallel(t, s, 2, false)
	for _, c := range []struct{ max, launched string }{{"8", "2"}, {"1", "1"}, {"0", "0"}} {
		execSQL(t, s, "SET max_parallel_workers = "+c.max)
		plan := queryRows(t, s, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM t")
		text := strings.Join(plan, "\n")
		if !strings.Contains(text, "Workers Launched: "+c.launched) || !strings.Contains(text, "Workers Planned: 2") {
			t.Errorf("max_parallel_workers %s:\n%s", c.max, text)
		}
		if got := queryRows(t, s, "SELECT count(*) FROM t"); !reflect.DeepEqual(got, []string{"10000"}) {
			t.Errorf("max_parallel_workers %s: count %q", c.max, got)
		}
	}
}

// TestMaxWorkerProcesses: the Open option bounds the workers of all the
// engine's sessions together, below each session's max_parallel_workers.
func TestMaxWorkerProcesses(t *testing.T) {
	db, err := pgfed.Open(pgfed.WithMaxWorkerProcesses(1))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := db.NewSession()
	parallelTable(t, s, 10000, 4)
	forceParallel(t, s, 2, false)
	plan := strings.Join(queryRows(t, s, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM t"), "\n")
	if !strings.Contains(plan, "Workers Planned: 2") || !strings.Contains(plan, "Workers Launched: 1") {
		t.Errorf("with max_worker_processes 1:\n%s", plan)
	}
}

// TestParallelExplainAnalyze: with VERBOSE each worker's share is shown,
// and the node's rows are the sum of the participants'; JSON carries the
// same as "Workers".
func TestParallelExplainAnalyze(t *testing.T) {
	s := openDB(t).NewSession()
	parallelTable(t, s, 100000, 10)
	forceParallel(t, s, 2, false)
	text := strings.Join(queryRows(t, s, "EXPLAIN (ANALYZE, VERBOSE, COSTS OFF) SELECT a FROM t WHERE b % 2 = 0"), "\n")
	for _, want := range []string{"Gather (actual time=", "Workers Launched: 2", "Parallel Seq Scan on public.t (actual time=", "Worker 0:  actual time=", "Worker 1:  actual time="} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	js := queryRows(t, s, "EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, FORMAT JSON) SELECT a FROM t WHERE b % 2 = 0")
	var doc []struct {
		Plan struct {
			NodeType        string `json:"Node Type"`
			WorkersPlanned  int    `json:"Workers Planned"`
			WorkersLaunched int    `json:"Workers Launched"`
			ActualRows      int    `json:"Actual Rows"`
			Plans           []struct {
				NodeType      string `json:"Node Type"`
				ParallelAware bool   `json:"Parallel Aware"`
				ActualRows    int    `json:"Actual Rows"`
				ActualLoops   int    `json:"Actual Loops"`
				Workers       []struct {
					Number int `json:"Worker Number"`
					Rows   int `json:"Actual Rows"`
					Loops  int `json:"Actual Loops"`
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(js[0]), &doc); err != nil {
		t.Fatal(err)
	}
	g := doc[0].Plan
	if g.NodeType != "Gather" || g.WorkersPlanned != 2 || g.WorkersLaunched != 2 || g.ActualRows != 50000 {
		t.Fatalf("Gather: %+v", g)
	}
	scan := g.Plans[0]
	if scan.NodeType != "Seq Scan" && scan.NodeType != "Parallel Seq Scan" || !scan.ParallelAware || scan.ActualLoops != 2 || len(scan.Workers) != 2 {
		t.Fatalf("scan: %+v", scan)
	}
	sum := 0
	for _, w := range scan.Workers {
		sum += w.Rows * w.Loops
	}
	if sum != scan.ActualRows*scan.ActualLoops {
		t.Errorf("workers' rows add up to %d, the node's to %d", sum, scan.ActualRows*scan.ActualLoops)
	}
}

// TestParallelSettings: PostgreSQL's names, defaults, display formats and
// errors for the parallel query settings.
func TestParallelSettings(t *testing.T) {
	s := openDB(t).NewSession()
	for _, c := range []struct{ set, show, want string }{
		{"", "max_parallel_workers_per_gather", "2"},
		{"", "max_parallel_workers", "8"},
		{"", "parallel_leader_participation", "on"},
		{"", "parallel_setup_cost", "1000"},
		{"", "parallel_tuple_cost", "0.1"},
		{"", "min_parallel_table_scan_size", "8MB"},
		{"", "debug_parallel_query", "off"},
		{"SET min_parallel_table_scan_size = 1024", "min_parallel_table_scan_size", "8MB"}, // 8kB blocks
		{"SET min_parallel_table_scan_size = '64kB'", "min_parallel_table_scan_size", "64kB"},
		{"SET min_parallel_table_scan_size = 0", "min_parallel_table_scan_size", "0"},
		{"SET parallel_tuple_cost = 0.25", "parallel_tuple_cost", "0.25"},
		{"SET parallel_leader_participation = false", "parallel_leader_participation", "off"},
		{"SET force_parallel_mode = regress", "debug_parallel_query", "regress"}, // PostgreSQL 15's name
		{"SET debug_parallel_query = true", "force_parallel_mode", "on"},
	} {
		if c.set != "" {
			execSQL(t, s, c.set)
		}
		if got := queryRows(t, s, "SHOW "+c.show); !reflect.DeepEqual(got, []string{c.want}) {
			t.Errorf("%s; SHOW %s = %q, want %q", c.set, c.show, got, c.want)
		}
	}
	for _, c := range []struct{ sql, msg string }{
		{"SET max_parallel_workers_per_gather = 2000", `2000 is outside the valid range for parameter "max_parallel_workers_per_gather" (0 .. 1024)`},
		{"SET max_parallel_workers = -1", `-1 is outside the valid range for parameter "max_parallel_workers" (0 .. 1024)`},
		{"SET parallel_setup_cost = -1", `-1 is outside the valid range for parameter "parallel_setup_cost" (0 .. 1.79769e+308)`},
		{"SET parallel_tuple_cost = 'cheap'", `parameter "parallel_tuple_cost" requires a numeric value`},
		{"SET min_parallel_table_scan_size = '8 parsecs'", `invalid value for parameter "min_parallel_table_scan_size": "8 parsecs"`},
		{"SET debug_parallel_query = maybe", `invalid value for parameter "debug_parallel_query": "maybe"`},
		{"SET parallel_leader_participation = 2", `parameter "parallel_leader_participation" requires a Boolean value`},
	} {
		_, err := s.Exec(context.Background(), c.sql)
		checkError(t, err, "22023", c.msg)
	}
}

// TestParallelInitPlanRunsOnce: an InitPlan of a node under a Gather runs
// once for all the participants (the others wait for its value), as
// PostgreSQL's leader evaluates it once, and every participant filters
// by the same value.
func TestParallelInitPlanRunsOnce(t *testing.T) {
	s := openDB(t).NewSession()
	parallelTable(t, s, 100000, 10)
	q := "SELECT count(*), sum(b) FROM (SELECT a, b FROM t WHERE b > (SELECT avg(b) FROM t WHERE a < 10)) x"
	execSQL(t, s, "SET max_parallel_workers_per_gather = 0")
	want := queryRows(t, s, q)
	for _, leader := range []bool{true, false} {
		forceParallel(t, s, 2, leader)
		if got := queryRows(t, s, q); !slices.Equal(got, want) {
			t.Errorf("leader %v: %v, serial %v", leader, got, want)
		}
		plan := strings.Join(queryRows(t, s, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) "+q), "\n")
		gather := strings.Index(plan, "Gather")
		init := strings.Index(plan, "InitPlan 1")
		if gather < 0 || init < gather || !strings.Contains(plan, "Workers Launched: 2") {
			t.Fatalf("leader %v: no InitPlan under a Gather with two workers:\n%s", leader, plan)
		}
		if !strings.Contains(plan[init:], "Aggregate (actual rows=1 loops=1)") {
			t.Errorf("leader %v: the InitPlan ran more than once:\n%s", leader, plan)
		}
	}
}
