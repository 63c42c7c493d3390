package main

import (
	"bytes"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestParallelFlags(t *testing.T) {
	opts, err := parseFlags([]string{"-suite", "parallel"})
	if err != nil {
		t.Fatalf("parseFlags(-suite parallel): %v", err)
	}
	if opts.suite != suiteParallel || opts.rows != 10_000_000 || opts.runs != 5 {
		t.Errorf("-suite parallel: suite %q, rows %d, runs %d; want parallel, 10000000, 5", opts.suite, opts.rows, opts.runs)
	}
	opts, err = parseFlags([]string{"-suite", "parallel", "-rows", "200000", "-runs", "1", "-only", "psort", "-json"})
	if err != nil {
		t.Fatalf("parseFlags: %v", err)
	}
	if opts.rows != 200000 || opts.runs != 1 || !opts.json {
		t.Errorf("rows %d, runs %d, json %v; want 200000, 1, true", opts.rows, opts.runs, opts.json)
	}
	if _, err := parseFlags([]string{"-suite", "parallell"}); err == nil || !strings.Contains(err.Error(), suiteParallel) {
		t.Errorf("-suite parallell: error %v, want one naming %s", err, suiteParallel)
	}

	for _, tc := range []struct {
		only string
		want []string
	}{
		{"", []string{"psum", "pfilter", "psort"}},
		{"sum", []string{"psum"}},
		{"^p(sum|sort)$", []string{"psum", "psort"}},
		{"^sum$", nil},
	} {
		var got []string
		for _, w := range selectParallel(regexp.MustCompile(tc.only)) {
			got = append(got, w.name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("-only %q: %v, want %v", tc.only, got, tc.want)
		}
	}
}

func TestParallelWorkloads(t *testing.T) {
	// The settings: psum 0, 1, 2; pfilter 0, 1 with the leader
	// off, 2; psort 0, 2; the serial one first, as the reference.
	want := map[string][]parallelSetting{
		parallelSum:    {parallelSerial, parallelOne, parallelTwo},
		parallelFilter: {parallelSerial, parallelOneNoLead, parallelTwo},
		parallelSort:   {parallelSerial, parallelTwo},
	}
	for _, w := range parallelWorkloads {
		if !slices.Equal(w.settings, want[w.name]) {
			t.Errorf("%s: settings %v, want %v", w.name, w.settings, want[w.name])
		}
		for _, s := range w.settings {
			if s.workers > parallelMaxWorkers {
				t.Errorf("%s: %s, more than t's parallel_workers %d", w.name, s, parallelMaxWorkers)
			}
		}
	}
	for _, tc := range []struct {
		set               parallelSetting
		str, short, key   string
		leaderOff, forced bool
	}{
		{parallelSerial, "0 workers", "0", "w0", false, false},
		{parallelOne, "1 worker", "1", "w1", false, false},
		{parallelOneNoLead, "1 worker, leader off", "1, leader off", "w1-leader-off", true, true},
		{parallelTwo, "2 workers", "2", "w2", false, false},
	} {
		if tc.set.String() != tc.str || tc.set.short() != tc.short || tc.set.key() != tc.key {
			t.Errorf("%+v: %q, %q, %q; want %q, %q, %q", tc.set, tc.set.String(), tc.set.short(), tc.set.key(), tc.str, tc.short, tc.key)
		}
		for _, force := range []string{pgForceParallel, fedForceParallel} {
			sets := tc.set.sets(force)
			if !slices.Contains(sets, "SET max_parallel_workers_per_gather = "+tc.short[:1]) ||
				!slices.Contains(sets, "SET parallel_setup_cost = 0") ||
				!slices.Contains(sets, "SET parallel_tuple_cost = 0") ||
				!slices.Contains(sets, "SET min_parallel_table_scan_size = 0") {
				t.Errorf("%s: sets %q lack the common settings", tc.set, sets)
			}
			if got := slices.Contains(sets, "SET parallel_leader_participation = off"); got != tc.leaderOff {
				t.Errorf("%s: leader off in %q: %v, want %v", tc.set, sets, got, tc.leaderOff)
			}
			if got := slices.Contains(sets, "SET "+force+" = on"); got != tc.forced {
				t.Errorf("%s: %s on in %q: %v, want %v", tc.set, force, sets, got, tc.forced)
			}
		}
	}
}

func TestParsePlanShape(t *testing.T) {
	two, one := 2, 1
	for _, tc := range []struct {
		name    string
		lines   []string
		want    planShape
		node    string
		workers int
		problem string // a substring; "" for none
	}{
		{
			name:  "serial aggregate",
			lines: []string{"Aggregate", "  ->  Seq Scan on t"},
			want:  planShape{}, node: nodeGather, workers: 0,
		},
		{
			name:  "serial where workers were allowed",
			lines: []string{"Aggregate", "  ->  Seq Scan on t"},
			want:  planShape{}, node: nodeGather, workers: 2, problem: "serial, no Gather",
		},
		{
			name: "partial aggregate, analyzed",
			lines: []string{
				"Finalize Aggregate (actual rows=1 loops=1)",
				"  ->  Gather (actual rows=3 loops=1)",
				"        Workers Planned: 2",
				"        Workers Launched: 2",
				"        ->  Partial Aggregate (actual rows=1 loops=3)",
				"              ->  Parallel Seq Scan on t (actual rows=66667 loops=3)",
			},
			want: planShape{Node: nodeGather, Planned: 2, Launched: &two}, node: nodeGather, workers: 2,
		},
		{
			name: "fewer launched",
			lines: []string{
				"Gather (actual rows=20000 loops=1)",
				"  Workers Planned: 2",
				"  Workers Launched: 1",
				"  ->  Parallel Seq Scan on t (actual rows=10000 loops=2)",
			},
			want: planShape{Node: nodeGather, Planned: 2, Launched: &one}, node: nodeGather, workers: 2,
			problem: "Workers Launched: 1 of 2 planned",
		},
		{
			name: "gather merge",
			lines: []string{
				"Gather Merge",
				"  Workers Planned: 2",
				"  ->  Sort",
				"        Sort Key: a",
				"        ->  Parallel Seq Scan on t",
			},
			want: planShape{Node: nodeGatherMerge, Planned: 2}, node: nodeGatherMerge, workers: 2,
		},
		{
			name: "gather where gather merge is wanted",
			lines: []string{
				"Sort",
				"  Sort Key: a",
				"  ->  Gather",
				"        Workers Planned: 1",
				"        ->  Parallel Seq Scan on t",
			},
			want: planShape{Node: nodeGather, Planned: 1}, node: nodeGatherMerge, workers: 2,
			problem: "Gather, not Gather Merge; Workers Planned: 1, want 2",
		},
		{
			name: "single copy",
			lines: []string{
				"Gather",
				"  Workers Planned: 1",
				"  Single Copy: true",
				"  ->  Seq Scan on t",
				"        Filter: ((b % 10) = 0)",
			},
			want: planShape{Node: nodeGather, Planned: 1, SingleCopy: true}, node: nodeGather, workers: 1,
		},
		{
			name: "gather with no workers allowed",
			lines: []string{
				"Gather",
				"  Workers Planned: 1",
				"  Single Copy: true",
				"  ->  Seq Scan on t",
			},
			want: planShape{Node: nodeGather, Planned: 1, SingleCopy: true}, node: nodeGather, workers: 0,
			problem: "Gather with 0 workers allowed",
		},
	} {
		got := parsePlanShape(tc.lines)
		if got.Node != tc.want.Node || got.Planned != tc.want.Planned || got.SingleCopy != tc.want.SingleCopy ||
			(got.Launched == nil) != (tc.want.Launched == nil) || (got.Launched != nil && *got.Launched != *tc.want.Launched) {
			t.Errorf("%s: shape %+v (launched %v), want %+v (launched %v)", tc.name, got, deref(got.Launched), tc.want, deref(tc.want.Launched))
		}
		problem := planShapeProblem(got, tc.node, tc.workers)
		if (tc.problem == "") != (problem == "") || !strings.Contains(problem, tc.problem) {
			t.Errorf("%s: problem %q, want %q", tc.name, problem, tc.problem)
		}
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestParallelAnswer(t *testing.T) {
	answer := func(sorted bool, rows ...[]any) *parallelAnswer {
		a := newParallelAnswer(sorted)
		for _, r := range rows {
			a.add(r)
		}
		return a
	}
	// PostgreSQL's serial sort and pgfed's merge break the ties of a
	// differently, and the engines return different integer types.
	pg := answer(true, []any{int32(0), int32(10)}, []any{int32(0), int32(20)}, []any{int32(1), int32(5)})
	fed := answer(true, []any{int64(0), int64(20)}, []any{int64(0), int64(10)}, []any{int64(1), int64(5)})
	if d := fed.differs(pg); d != "" {
		t.Errorf("ties in another order: %s", d)
	}
	unsorted := answer(true, []any{int64(1), int64(5)}, []any{int64(0), int64(20)}, []any{int64(0), int64(10)})
	if d := unsorted.differs(pg); !strings.Contains(d, "1 rows out of order on a") || strings.Contains(d, "hash") {
		t.Errorf("a out of order: %q", d)
	}
	// Unordered workloads ignore the order.
	if d := answer(false, []any{int64(1), int64(5)}, []any{int64(0), int64(10)}).differs(answer(false, []any{int32(0), int32(10)}, []any{int32(1), int32(5)})); d != "" {
		t.Errorf("unordered: %s", d)
	}
	missing := answer(true, []any{int64(0), int64(10)}, []any{int64(0), int64(20)})
	if d := missing.differs(pg); !strings.Contains(d, "2 rows") || !strings.Contains(d, "want 3 rows") {
		t.Errorf("a row missing: %q", d)
	}
	if a := answer(true, []any{"x"}); a.Unsorted != 1 {
		t.Errorf("non-integer a: Unsorted %d, want 1", a.Unsorted)
	}
}

// fakeLine is a line with made-up medians; its pgfed plan problem is
// the one fedPlan has at set.
func fakeLine(workload string, set parallelSetting, fedMS, pgMS float64, fedPlan planShape) parallelLine {
	l := parallelLine{
		Workload: workload, Title: workload, SQL: "SELECT " + workload,
		Setting: set.String(), Workers: set.workers, LeaderParticipation: !set.leaderOff,
		Rows:      1,
		PGFed:     side{pgfedBatches, timing{MedianMS: fedMS, MinMS: fedMS, RunsMS: []float64{fedMS}}},
		Postgres:  side{pgRaw, timing{MedianMS: pgMS, MinMS: pgMS, RunsMS: []float64{pgMS}}},
		PGFedPlan: fedPlan, PostgresPlan: fedPlan,
		Ratio:  pgMS / fedMS,
		Target: parallelVsPostgresTarget,
	}
	pass := l.Ratio > 1
	l.Pass = &pass
	w := map[string]parallelWorkload{}
	for _, pw := range parallelWorkloads {
		w[pw.name] = pw
	}
	l.PGFedPlanProblem = planShapeProblem(fedPlan, w[workload].gather, set.workers)
	return l
}

func TestParallelSpeedups(t *testing.T) {
	two, one := 2, 1
	gather2 := planShape{Node: nodeGather, Planned: 2, Launched: &two}
	single := planShape{Node: nodeGather, Planned: 1, Launched: &one, SingleCopy: true}
	lines := []parallelLine{
		fakeLine(parallelSum, parallelSerial, 100, 300, planShape{}),
		fakeLine(parallelSum, parallelOne, 60, 200, planShape{Node: nodeGather, Planned: 1, Launched: &one}),
		fakeLine(parallelSum, parallelTwo, 50, 150, gather2),
		fakeLine(parallelFilter, parallelSerial, 100, 300, planShape{}),
		fakeLine(parallelFilter, parallelOneNoLead, 115, 300, single),
		fakeLine(parallelFilter, parallelTwo, 60, 200, gather2),
	}
	got := parallelSpeedups(lines)
	if len(got) != 2 {
		t.Fatalf("%d speedups, want 2: %+v", len(got), got)
	}
	if s := got[0]; s.Workload != parallelSum || s.Ratio != 2 || !*s.Pass || s.Numerator != "0 workers" || s.Denominator != "2 workers" {
		t.Errorf("psum: %+v, want 0 workers / 2 workers = 2, PASS", s)
	}
	if s := got[1]; s.Workload != parallelFilter || s.Ratio != 1.15 || *s.Pass || s.Numerator != "1 worker, leader off" {
		t.Errorf("pfilter: %+v, want 1 worker, leader off / 0 workers = 1.15, FAIL", s)
	}

	// A speedup of serial plans fails whatever the ratio.
	lines[4] = fakeLine(parallelFilter, parallelOneNoLead, 100, 300, planShape{})
	got = parallelSpeedups(lines)
	if s := got[1]; *s.Pass || !strings.Contains(s.PlanProblem, "serial, no Gather") {
		t.Errorf("pfilter with a serial plan: pass %v, plan problem %q; want FAIL and serial, no Gather", *s.Pass, s.PlanProblem)
	}

	// Without psum's 2-worker line there is no psum target.
	got = parallelSpeedups(slices.Delete(slices.Clone(lines), 2, 3))
	if len(got) != 1 || got[0].Workload != parallelFilter {
		t.Errorf("without psum at 2 workers: %+v, want only pfilter", got)
	}
}

func TestWriteParallelTable(t *testing.T) {
	two, one := 2, 1
	gather2 := planShape{Node: nodeGather, Planned: 2, Launched: &two}
	rep := &parallelReport{
		Suite: suiteParallel, Rows: 1000, Data: "a = i % 1000", Runs: 3,
		GoVersion: "go1.x", Platform: "linux/amd64", CPUs: 2, GOMAXPROCS: 2,
		Postgres:        "throwaway pgtest cluster on 127.0.0.1",
		Settings:        map[string]string{"server_version": "15.0", "max_parallel_workers": "8", "max_worker_processes": "8"},
		SessionSettings: parallelSessionSettings,
		TableSettings:   "ALTER TABLE t SET (parallel_workers = 2)",
		Loads:           []load{{Table: "t", Rows: 1000, PGFedMS: 1, PostgresMS: 2, VacuumMS: 3}},
		Lines: []parallelLine{
			fakeLine(parallelSum, parallelSerial, 100, 300, planShape{}),
			fakeLine(parallelSum, parallelTwo, 50, 40, gather2),
			fakeLine(parallelFilter, parallelSerial, 10, 30, planShape{}),
			fakeLine(parallelFilter, parallelOneNoLead, 10.5, 30, planShape{Node: nodeGather, Planned: 1, Launched: &one, SingleCopy: true}),
		},
		Plans: []parallelPlan{
			{Workload: parallelSum, Engine: enginePGFed, Setting: "2 workers", SQL: "SELECT sum(a) FROM t",
				Plan: "Finalize Aggregate\n  ->  Gather\n        Workers Planned: 2", planShape: gather2},
			{Workload: parallelSort, Engine: enginePGFed, Setting: "2 workers", SQL: "SELECT a, b FROM t ORDER BY a",
				Plan: "Sort\n  Sort Key: a\n  ->  Seq Scan on t", Problem: "serial, no Gather Merge"},
		},
		Errors: []workloadError{{Workload: parallelSort, Contender: "pgfed, 2 workers", SQL: "SELECT a, b FROM t ORDER BY a", Error: "answer differs"}},
	}
	rep.Speedups = parallelSpeedups(rep.Lines)

	var buf bytes.Buffer
	if err := writeParallelTable(&buf, rep); err != nil {
		t.Fatal(err)
	}
	// Column widths depend on every cell: compare with runs of spaces
	// collapsed.
	spaces := regexp.MustCompile(` +`)
	out := spaces.ReplaceAllString(buf.String(), " ")
	wantInReport(t, out,
		"pgfedbench -suite parallel: 1000 rows, 3 timed runs",
		"max_parallel_workers=8",
		"ALTER TABLE t SET (parallel_workers = 2)",
		"psum 0 1 100.0 (100.0) 300.0 (300.0) 3.00x > 1x PASS serial serial \n",
		"psum 2 1 50.0 (50.0) 40.0 (40.0) 0.80x > 1x FAIL Gather 2/2 Gather 2/2 \n",
		"pfilter 1, leader off 1 10.5 (10.5) 30.0 (30.0) 2.86x > 1x PASS Gather 1/1 single copy Gather 1/1 single copy \n",
		"psum: SELECT psum (",
		"psum: 0 workers / 2 workers 100.0 (100.0) 50.0 (50.0) 2.00x >= 1.8x PASS \n",
		"pfilter: 1 worker, leader off / 0 workers 10.5 (10.5) 10.0 (10.0) 1.05x <= 1.1x PASS \n",
		"FAIL: psum 2 workers: PG/pgfed 0.80x, target > 1x; pgfed plan of psort, 2 workers: serial, no Gather Merge",
		"ERRORS\npsort, pgfed, 2 workers:\n SQL: SELECT a, b FROM t ORDER BY a\n answer differs",
		"-- pgfed, psum, 2 workers: SELECT sum(a) FROM t\n-- Workers Launched: 2\nFinalize Aggregate",
		"-- NOT AS EXPECTED: serial, no Gather Merge\nSort",
	)

	failed, judged := parallelFailures(rep)
	if judged != 4+2+2 || len(failed) != 2 {
		t.Errorf("parallelFailures: %d judged, failed %q; want 8 judged, 2 failed", judged, failed)
	}

	back := reportJSON(t, func(w io.Writer) error { return writeParallelJSON(w, rep) })
	lines := back["lines"].([]any)
	first := lines[1].(map[string]any)
	if first["postgres_over_pgfed"] != 0.8 || first["pass"] != false || first["setting"] != "2 workers" {
		t.Errorf("JSON line: %v", first)
	}
	plan := back["plans"].([]any)[0].(map[string]any)
	if plan["gather_node"] != nodeGather || plan["workers_planned"] != 2.0 || plan["workers_launched"] != 2.0 {
		t.Errorf("JSON plan: %v", plan)
	}
}
