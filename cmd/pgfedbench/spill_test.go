package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgfed/pgfed/pgtest"
)

// init lets the test binary be the spill suite's pgfed child, as
// pgfedbench is when the suite starts it (TestMain, in
// delayproxy_process_test.go, knows only the proxy's child).
func init() {
	if len(os.Args) == 3 && os.Args[1] == spillChildArg {
		os.Exit(runSpillChild(os.Args[2], os.Stdin, os.Stdout))
	}
}

func TestSpillFlags(t *testing.T) {
	opts, err := parseFlags([]string{"-suite", "spill"})
	if err != nil {
		t.Fatal(err)
	}
	if opts.runs != spillDefaultRuns || !slices.Equal(opts.spill.rows, []int{10_000_000, 50_000_000}) ||
		!slices.Equal(opts.spill.workMems, []string{"4MB", "64MB"}) || opts.spill.cancelAfter != 500*time.Millisecond {
		t.Errorf("defaults: runs %d, rows %v, work_mem %v, cancel after %v", opts.runs, opts.spill.rows, opts.spill.workMems, opts.spill.cancelAfter)
	}
	opts, err = parseFlags([]string{"-suite", "spill", "-runs", "5", "-spillrows", "10_000_000, 200000000", "-workmem", "1MB,1GB,640kB"})
	if err != nil {
		t.Fatal(err)
	}
	if opts.runs != 5 || !slices.Equal(opts.spill.rows, []int{10_000_000, 200_000_000}) || !slices.Equal(opts.spill.workMems, []string{"1MB", "1GB", "640kB"}) {
		t.Errorf("given: runs %d, rows %v, work_mem %v", opts.runs, opts.spill.rows, opts.spill.workMems)
	}
	// The other suites keep -runs' own default.
	if opts, err := parseFlags(nil); err != nil || opts.runs != 5 {
		t.Errorf("local suite: runs %d, %v", opts.runs, err)
	}
	for _, args := range [][]string{
		{"-spillrows", "5"},
		{"-spillrows", "3000000000"},
		{"-spillrows", ""},
		{"-spillrows", "many"},
		{"-workmem", "4"},
		{"-workmem", "4TB"},
		{"-cancelafter", "0s"},
		{"-pgdsn", "postgres://elsewhere"},
	} {
		if _, err := parseFlags(append([]string{"-suite", "spill"}, args...)); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

func TestSpillData(t *testing.T) {
	d := newSpillData(25_000_000)
	stmts := d.loadSQL()
	if len(stmts) != 4 || stmts[0] != "CREATE TABLE s (k bigint, g bigint)" {
		t.Fatalf("load: %q", stmts)
	}
	re := regexp.MustCompile(`generate_series\((\d+)::bigint, (\d+)::bigint\)`)
	next := "0"
	for i, s := range stmts[1:] {
		m := re.FindStringSubmatch(s)
		if m == nil || m[1] != next {
			t.Fatalf("chunk %d: %q, want it to start at %s", i, s, next)
		}
		hi, _ := strconv.Atoi(m[2])
		next = strconv.Itoa(hi + 1)
	}
	if next != "25000000" {
		t.Errorf("the chunks end before %s, want 25000000", next)
	}
	if d.groups != 2_500_000 || gcd(d.k, int64(d.n)) != 1 {
		t.Errorf("groups %d, k %d", d.groups, d.k)
	}
	if got := spillWorkloads[1].want(newSpillData(100)); got != "10 100 4950" {
		t.Errorf("groupby's answer over 100 rows: %q", got)
	}
}

func TestParseProcStatus(t *testing.T) {
	status := "Name:\tpostgres\nVmPeak:\t  300000 kB\nVmHWM:\t   20480 kB\nVmRSS:\t   10240 kB\nRssAnon:\t    4096 kB\nRssFile:\t    2048 kB\nRssShmem:\t    4096 kB\nThreads:\t1\n"
	m, err := parseProcStatus(status)
	if err != nil {
		t.Fatal(err)
	}
	if want := (procMemory{VmRSS: 10240, VmHWM: 20480, RssAnon: 4096, RssFile: 2048, RssShmem: 4096}); m != want {
		t.Errorf("got %+v, want %+v", m, want)
	}
	if _, err := parseProcStatus("Name:\tx\n"); err == nil {
		t.Error("no memory lines: no error")
	}
	self, err := readProcMemory("self")
	if err != nil {
		t.Skip(err) // not Linux
	}
	if self.VmRSS <= 0 || self.VmHWM < self.VmRSS {
		t.Errorf("this process: %+v", self)
	}
}

func TestPlanDetails(t *testing.T) {
	plan := []string{
		"Aggregate (actual rows=1 loops=1)",
		"  ->  HashAggregate (actual rows=1000000 loops=1)",
		"        Group Key: s.g",
		"        Planned Partitions: 16  Batches: 81  Memory Usage: 8241kB  Disk Usage: 245776kB",
		"        ->  Seq Scan on s (actual rows=10000000 loops=1)",
		"Planning Time: 0.1 ms",
	}
	nodes, details := planDetails(plan)
	if !slices.Equal(nodes, []string{"Aggregate", "HashAggregate", "Seq Scan on s"}) {
		t.Errorf("nodes %q", nodes)
	}
	if !slices.Equal(details, []string{"HashAggregate: Planned Partitions: 16  Batches: 81  Memory Usage: 8241kB  Disk Usage: 245776kB"}) {
		t.Errorf("details %q", details)
	}
	_, details = planDetails([]string{"Limit (actual rows=1 loops=1)", "  ->  Sort (actual rows=10 loops=1)", "        Sort Key: k DESC", "        Sort Method: external merge  Disk: 176080kB"})
	if !slices.Equal(details, []string{"Sort: Sort Method: external merge  Disk: 176080kB"}) {
		t.Errorf("sort details %q", details)
	}
	// A plan without the lines (pgfed before the executor reports
	// them) has none.
	if _, details := planDetails([]string{"Sort (actual rows=10 loops=1)", "  Sort Key: k"}); len(details) != 0 {
		t.Errorf("details %q", details)
	}
}

func TestCancelJudge(t *testing.T) {
	ok := &cancelResult{DelayMS: 5, Code: "57014"}
	slow := &cancelResult{DelayMS: 150, Code: "57014"}
	done := &cancelResult{Completed: true}
	wrong := &cancelResult{DelayMS: 5, Code: "XX000"}
	killed := &cancelResult{Killed: true, Completed: true}
	for _, tc := range []struct {
		cancel, timeout *cancelResult
		want            string
	}{
		{ok, ok, "PASS"},
		{ok, slow, "FAIL"},
		{slow, done, "FAIL"},
		{done, ok, "PASS"},
		{done, done, "-"},
		{wrong, ok, "FAIL"},
		{killed, ok, "FAIL"},
		{nil, nil, "-"},
	} {
		l := cancelLine{PGFedCancel: tc.cancel, PGFedTimeout: tc.timeout}
		l.judge()
		got := "-"
		if l.Pass != nil {
			got = passCell(l.Pass)
		}
		if got != tc.want {
			t.Errorf("%s / %s: %s, want %s", cancelCell(tc.cancel), cancelCell(tc.timeout), got, tc.want)
		}
	}
}

func TestSpillRuns(t *testing.T) {
	for _, tc := range []struct {
		runs     int
		analyzed time.Duration
		want     int
	}{
		{3, 2 * time.Second, 3},
		{3, 8 * time.Second, 2},
		{3, 50 * time.Second, 1},
		{5, 0, 5},
	} {
		if got := spillRuns(tc.runs, tc.analyzed); got != tc.want {
			t.Errorf("spillRuns(%d, %v) = %d, want %d", tc.runs, tc.analyzed, got, tc.want)
		}
	}
}

func TestCancelResult(t *testing.T) {
	start := time.Now()
	var r cancelResult
	r.fill(start, start.Add(500*time.Millisecond), start.Add(520*time.Millisecond), errors.New("canceling statement due to user request"), "57014")
	if r.Completed || r.DelayMS != 20 || r.ElapsedMS != 520 || !r.cancelled() || cancelCell(&r) != "20.00 ms 57014" {
		t.Errorf("cancelled: %+v, %q", r, cancelCell(&r))
	}
	r = cancelResult{}
	r.fill(start, start.Add(500*time.Millisecond), start.Add(100*time.Millisecond), nil, "")
	if !r.Completed || r.cancelled() || cancelCell(&r) != "done in 100 ms" {
		t.Errorf("done: %+v, %q", r, cancelCell(&r))
	}
	r = cancelResult{}
	r.fill(start, time.Time{}, start.Add(time.Millisecond), errors.New("invalid byte sequence"), "22021")
	if !r.Completed || cancelCell(&r) != "22021 at 1.00 ms, before the cancel" {
		t.Errorf("error: %+v, %q", r, cancelCell(&r))
	}
	if got := cancelCell(&cancelResult{Killed: true}); !strings.Contains(got, "killed") {
		t.Errorf("killed: %q", got)
	}
}

// TestSpillChild drives a child process without PostgreSQL: it loads a
// small s, runs a query, reports its memory and cancels a long query.
func TestSpillChild(t *testing.T) {
	d := newSpillData(20_000)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := startSpillChild(ctx, spillChildConfig{Setup: spillSessionSQL("", false), Load: d.loadSQL(), FileDirs: []string{"/dev"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if c.ready.Before == nil || c.ready.After == nil || c.ready.After.VmRSS <= 0 {
		t.Errorf("ready: %+v", c.ready)
	}
	if err := c.exec(ctx, "SET work_mem = '4MB'"); err != nil {
		t.Fatal(err)
	}
	reset, err := c.do(ctx, childRequest{Op: "reset_peak"})
	if err != nil || reset.Mem == nil {
		t.Fatalf("reset_peak: %+v, %v", reset, err)
	}
	for _, w := range spillWorkloads {
		r, err := c.do(ctx, childRequest{Op: "run", SQL: w.sql(d)})
		if err != nil || r.Rows != 1 || r.First != w.want(d) || r.MS <= 0 {
			t.Errorf("%s: %+v, %v; want %q", w.name, r, err, w.want(d))
		}
	}
	mem, err := c.do(ctx, childRequest{Op: "memory"})
	if err != nil || mem.Mem.VmHWM < reset.Mem.VmRSS {
		t.Errorf("memory: %+v, %v (start %+v)", mem.Mem, err, reset.Mem)
	}
	if _, err := c.lines(ctx, "SELECT nonsense FROM s"); err == nil || !strings.Contains(err.Error(), "42703") {
		t.Errorf("an error's reply: %v", err)
	}
	r, err := c.call(ctx, childRequest{Op: "cancel", Mode: cancelByContext, AfterMS: 20,
		SQL: "SELECT g FROM generate_series(1, 100000000) g ORDER BY g DESC OFFSET 99999999"}, cancelGuard)
	if err != nil || r.Cancel == nil || r.Cancel.Completed || r.Cancel.ElapsedMS < 20 {
		t.Fatalf("cancel: %+v, %v", r.Cancel, err)
	}
	t.Logf("cancel: %s", cancelCell(r.Cancel))
	// A child that does not answer in time is killed.
	if _, err := c.call(ctx, childRequest{Op: "run", SQL: "SELECT count(*) FROM generate_series(1, 1000000000)"}, 50*time.Millisecond); !errors.Is(err, errChildGone) {
		t.Errorf("timeout: %v", err)
	}
	if _, err := c.call(ctx, childRequest{Op: "memory"}, 0); !errors.Is(err, errChildGone) {
		t.Errorf("after the kill: %v", err)
	}
}

func fakeSpillReport() *spillReport {
	ts := func(ms float64) *timing {
		t := newTiming([]time.Duration{time.Duration(ms * float64(time.Millisecond))})
		return &t
	}
	pass, fail := true, false
	return &spillReport{
		Suite: suiteSpill, Runs: 1, Rows: []int{1000}, WorkMems: []string{"4MB"}, CancelAfterMS: 500,
		GoVersion: "go1.x", Platform: "linux/amd64", CPUs: 2, GOMAXPROCS: 2,
		Settings:      map[string]string{"server_version": "15.0", "shared_buffers": "128MB", "hash_mem_multiplier": "2", "jit": "off"},
		PGFedSettings: map[string]string{"work_mem": "4MB", "hash_mem_multiplier": "error: unrecognized configuration parameter"},
		Memory:        spillMemoryNotes,
		Loads: []spillLoad{{Rows: 1000, Data: newSpillData(1000).describe(), PGFedMS: 5, PostgresMS: 10, VacuumMS: 2,
			PGFedBefore: &procMemory{VmRSS: 10240}, PGFedAfter: &procMemory{VmRSS: 20480}, PostgresTableKB: 48}},
		Lines: []spillLine{{Workload: spillSort, WorkMem: "4MB", Rows: 1000, Runs: 1, PGFed: ts(10), Postgres: ts(40), Ratio: 4,
			PGFedMemory:    &fedMemory{StartRSSKB: 20480, PeakKB: 30720, ExtraKB: 10240},
			PostgresMemory: &pgMemory{HWMExtraKB: 5120, ExtraAnonKB: 4096},
			PGFedNodes:     []string{"Limit", "Sort"}, PostgresNodes: []string{"Limit", "Sort"},
			PostgresDetails: []string{"Sort: Sort Method: external merge  Disk: 176080kB"},
			PostgresNote:    "enable_sort = off"}},
		CancelRows: 1000,
		Cancels: []cancelLine{
			{Name: "series-sort", SQL: "SELECT 1", PGFedCancel: &cancelResult{DelayMS: 5, Code: "57014"}, Pass: &pass,
				PostgresTimeout: &cancelResult{Completed: true, ElapsedMS: 3, Code: "22021", Error: "invalid byte sequence"}},
			{Name: "inlist", SQL: "SELECT 2", PGFedCancel: &cancelResult{DelayMS: 500, Code: "57014"}, Pass: &fail},
		},
		Errors: []workloadError{{Workload: spillSort, Contender: "pgfed, 1000 rows, work_mem 4MB", Error: "answer \"1\", want \"0\""}},
	}
}

func TestWriteSpillTable(t *testing.T) {
	rep := fakeSpillReport()
	var buf bytes.Buffer
	if err := writeSpillTable(&buf, rep); err != nil {
		t.Fatal(err)
	}
	out := regexp.MustCompile(` +`).ReplaceAllString(buf.String(), " ")
	wantInReport(t, out,
		"pgfedbench -suite spill: up to 1 timed runs per query (fewer where they would take over 20s)",
		"1000 rows 5 10 20 10 2 0.0",
		"sort 4MB 1 10.00 (10.00) 40.00 (40.00) 4.00x +10 +4.0 +5.0 enable_sort = off \n",
		"pgfed Limit <- Sort: no Sort Method / Batches / Memory Usage line\n",
		"PostgreSQL Limit <- Sort: Sort: Sort Method: external merge Disk: 176080kB\n",
		"series-sort 5.00 ms 57014 - - 22021 at 3.00 ms, before the cancel PASS \n",
		"series-sort, PostgreSQL statement_timeout: invalid byte sequence",
		"FAIL: cancel inlist: pgfed 500 ms 57014 / -, target 57014 within 100ms",
		"ERRORS\nsort, pgfed, 1000 rows, work_mem 4MB:\n answer",
	)
	back := reportJSON(t, func(w io.Writer) error { return writeSpillJSON(w, rep) })
	line := back["lines"].([]any)[0].(map[string]any)
	if line["postgres_over_pgfed"] != 4.0 || line["pgfed_memory"].(map[string]any)["query_peak_kb"] != 10240.0 {
		t.Errorf("JSON line: %v", line)
	}
}

// TestSpillSuite runs the whole suite small: 20,000 rows, one run, the
// cancel table at 50 ms. Every cell must have both engines' times and
// memory, and the cancel table every operator in every mode.
func TestSpillSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster")
	}
	opts, err := parseFlags([]string{"-suite", "spill", "-runs", "1", "-spillrows", "20000", "-cancelafter", "50ms", "-pgshared", "128MB"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := runSpill(ctx, opts, io.Discard)
	if errors.Is(err, pgtest.ErrNotInstalled) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rep.Errors {
		t.Errorf("%s, %s: %s: %s", e.Workload, e.Contender, e.SQL, e.Error)
	}
	if len(rep.Lines) != len(spillWorkloads)*2 {
		t.Fatalf("%d lines, want %d", len(rep.Lines), len(spillWorkloads)*2)
	}
	for _, l := range rep.Lines {
		what := l.Workload + ", work_mem " + l.WorkMem
		if l.PGFed == nil || l.Postgres == nil || l.PGFedMemory == nil || l.PostgresMemory == nil {
			t.Errorf("%s: pgfed %v %v, PostgreSQL %v %v", what, l.PGFed, l.PGFedMemory, l.Postgres, l.PostgresMemory)
			continue
		}
		if l.PGFedMemory.ExtraKB < 0 || l.PostgresMemory.Samples == 0 || l.PostgresMemory.HWMKB <= 0 {
			t.Errorf("%s: memory %+v, %+v", what, *l.PGFedMemory, *l.PostgresMemory)
		}
		if !slices.Contains(l.PostgresNodes, l.Node) || !slices.Contains(l.PGFedNodes, l.Node) {
			t.Errorf("%s: plans %q, %q lack %s", what, l.PGFedNodes, l.PostgresNodes, l.Node)
		}
		if len(l.PostgresDetails) == 0 {
			t.Errorf("%s: PostgreSQL's plan has no memory line: %q", what, l.PostgresPlan)
		}
	}
	if l := rep.Lines[0]; l.Workload != spillSort || l.WorkMem != "4MB" || l.Runs != 1 || !strings.Contains(strings.Join(l.PostgresDetails, " "), "Sort Method") {
		t.Errorf("the first line: %s at %s, %d runs, PostgreSQL's details %q", l.Workload, l.WorkMem, l.Runs, l.PostgresDetails)
	}
	if len(rep.Cancels) != len(cancelWorkloads) {
		t.Fatalf("%d cancel lines, want %d", len(rep.Cancels), len(cancelWorkloads))
	}
	for _, l := range rep.Cancels {
		if l.PGFedCancel == nil || l.PGFedTimeout == nil || l.PostgresCancel == nil || l.PostgresTimeout == nil {
			t.Errorf("cancel %s: a result is missing: %+v", l.Name, l)
		}
		if l.Name == "series-sort" && !l.PostgresTimeout.cancelled() {
			t.Errorf("cancel %s: PostgreSQL's statement_timeout: %+v", l.Name, *l.PostgresTimeout)
		}
	}
	var buf bytes.Buffer
	if err := writeSpillTable(&buf, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\n20000 rows\n", "\nsort 4MB ", "\ninlist "} {
		if !strings.Contains(regexp.MustCompile(` +`).ReplaceAllString(buf.String(), " "), want) {
			t.Errorf("the table lacks %q:\n%s", want, buf.String())
		}
	}
}
