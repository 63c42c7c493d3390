package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/pgtest"
)

func TestXactFlags(t *testing.T) {
	opts, err := parseFlags([]string{"-suite", "xact"})
	if err != nil {
		t.Fatalf("parseFlags(-suite xact): %v", err)
	}
	xo := opts.xact
	if opts.suite != suiteXact || xo.batchRows != 100_000 || xo.inserts != 1000 || opts.runs != 5 ||
		!slices.Equal(xo.latencies, []time.Duration{0, time.Millisecond}) {
		t.Errorf("-suite xact: suite %q, rows %d, inserts %d, runs %d, latencies %v; want xact, 100000, 1000, 5, [0 1ms]",
			opts.suite, xo.batchRows, xo.inserts, opts.runs, xo.latencies)
	}
	opts, err = parseFlags([]string{"-suite", "xact", "-xactrows", "1000", "-xactinserts", "10", "-latency", "2ms", "-only", "seed"})
	if err != nil {
		t.Fatalf("parseFlags: %v", err)
	}
	if xo := opts.xact; xo.batchRows != 1000 || xo.inserts != 10 || !slices.Equal(xo.latencies, []time.Duration{2 * time.Millisecond}) {
		t.Errorf("rows %d, inserts %d, latencies %v; want 1000, 10, [2ms]", xo.batchRows, xo.inserts, xo.latencies)
	}
	var names []string
	for _, w := range selectXact(opts) {
		names = append(names, w.name)
	}
	if !slices.Equal(names, []string{xactSeed}) {
		t.Errorf("-only seed: %v", names)
	}
	for _, args := range [][]string{
		{"-suite", "xact", "-xactrows", "0"},
		{"-suite", "xact", "-xactinserts", "0"},
		{"-suite", "xact", "-latency", "fast"},
		{"-suite", "xact", "-pgdsn", "postgres://localhost/x"},
	} {
		if _, err := parseFlags(args); err == nil {
			t.Errorf("parseFlags(%q): no error", args)
		}
	}
	if _, err := parseFlags([]string{"-suite", "xactt"}); err == nil || !strings.Contains(err.Error(), suiteXact) {
		t.Errorf("-suite xactt: error %v, want one naming %s", err, suiteXact)
	}
}

func TestRequestsBetween(t *testing.T) {
	conn := func(server string, pid uint32, trips int64) pgfed.RemoteConnection {
		return pgfed.RemoteConnection{Server: server, User: "postgres", Valid: true, BackendPID: pid, RoundTrips: trips}
	}
	before := []pgfed.RemoteConnection{conn("s1", 10, 5), conn("s2", 20, 7)}
	for _, tc := range []struct {
		name  string
		after []pgfed.RemoteConnection
		want  int64
	}{
		{"both used", []pgfed.RemoteConnection{conn("s1", 10, 7), conn("s2", 20, 9)}, 4},
		{"a new connection counts whole", []pgfed.RemoteConnection{conn("s1", 10, 5), conn("s2", 20, 7), conn("s3", 30, 2)}, 2},
		{"one reconnected", []pgfed.RemoteConnection{conn("s1", 11, 1), conn("s2", 20, 7)}, -1},
		{"one closed", []pgfed.RemoteConnection{conn("s2", 20, 8)}, -1},
	} {
		if got := requestsBetween(before, tc.after); got != tc.want {
			t.Errorf("%s: %d requests, want %d", tc.name, got, tc.want)
		}
	}
}

func TestPostgresBatchSkip(t *testing.T) {
	for _, tc := range []struct {
		set  xactSetting
		rows int
		lat  time.Duration
		skip bool
	}{
		{xactSetting{batchSize: 1}, 100_000, 0, false},
		{xactSetting{batchSize: 1}, 100_000, time.Millisecond, true}, // 200 s of round trips
		{xactSetting{batchSize: 100}, 100_000, time.Millisecond, false},
		{xactSetting{batchSize: 1}, 1000, time.Millisecond, false},
		{settingParallel, 100_000, time.Millisecond, false},
	} {
		if got := postgresBatchSkip(tc.set, tc.rows, tc.lat); (got != "") != tc.skip {
			t.Errorf("%s, %d rows at %v: %q, want skip %v", tc.set, tc.rows, tc.lat, got, tc.skip)
		}
	}
}

func TestDescribeInserts(t *testing.T) {
	for _, tc := range []struct {
		groups []string
		want   string
	}{
		{[]string{"100 10", "50 1"}, "10 INSERTs of 100 rows, 1 of 50"},
		{[]string{"1 1050"}, "1050 INSERTs of 1 row"},
		{nil, "no INSERT"},
	} {
		if got := describeInserts(tc.groups); got != tc.want {
			t.Errorf("describeInserts(%q) = %q, want %q", tc.groups, got, tc.want)
		}
	}
}

// fakeXactLine is a line with made-up medians, in round trips at 1 ms.
func fakeXactLine(workload, measure string, set xactSetting, fedMS, pgMS float64) xactLine {
	l := xactLine{Workload: workload, Title: workload, Measure: measure, Setting: set.String(), SQL: measure}
	samples := map[string][]xactSample{}
	for _, side := range []struct {
		engine string
		ms     float64
	}{{enginePGFed, fedMS}, {enginePostgres, pgMS}} {
		if side.ms == 0 {
			continue
		}
		d := time.Duration(side.ms * float64(time.Millisecond))
		samples[side.engine] = []xactSample{{times: map[string]time.Duration{measure: d}, requests: map[string]int64{}}}
		if side.engine == enginePGFed {
			samples[side.engine][0].requests[measure] = 2
		}
	}
	if pgMS == 0 {
		l.PostgresNote = "n/a: no parallel_abort"
	}
	fillXactLine(&l, samples)
	l.setRoundTrips(time.Millisecond, 2.5)
	return l
}

func TestXactTargets(t *testing.T) {
	lines := []xactLine{
		fakeXactLine(xactSeed, measureRollbackTo, settingSerial, 4, 4),
		fakeXactLine(xactSeed, measureRollbackTo, settingParallel, 2.4, 0),
		fakeXactLine(xactSeed, measureAbort, settingParallel, 3.5, 0),
		fakeXactLine(xactSeed, measureWhole, settingParallel, 15, 50),
		fakeXactLine(xactCommit2, measureCommit, settingParallel, 2.2, 2.2),
		fakeXactLine(xactCommit4, measureCommit, settingSerial, 8, 8),
		fakeXactLine(xactCommit4, measureCommit, settingParallel, 2.5, 2.5),
		fakeXactLine(xactBatch, measureInsert, xactSetting{batchSize: 100}, 100, 101),
		fakeXactLine(xactBatch, measureInsert, xactSetting{batchSize: 1}, 100, 96),
		fakeXactLine(xactLocal, measureWhole, settingLocal, 40, 100),
	}
	if l := lines[1]; math.Abs(l.PGFedRT-1.2) > 1e-9 || math.Abs(l.PGFedPings-0.96) > 1e-9 || l.Postgres != nil || *l.PGFedRequests != 2 {
		t.Errorf("parallel ROLLBACK TO: %.2f RT, %.2f pings, PostgreSQL %v, requests %d; want 1.2, 0.96, none, 2",
			l.PGFedRT, l.PGFedPings, l.Postgres, *l.PGFedRequests)
	}
	if l := lines[9]; l.PGFedRT != 0 || l.Ratio != 2.5 {
		t.Errorf("local: %.2f RT, ratio %.2f; want no round trips, 2.5", l.PGFedRT, l.Ratio)
	}
	type verdict struct {
		what string
		pass bool
	}
	judge := func(ts []xactTarget) []verdict {
		var out []verdict
		for _, t := range ts {
			out = append(out, verdict{t.Workload + " " + t.Measure + ", " + t.Setting, t.Pass})
		}
		return out
	}
	want := []verdict{
		{"seed ROLLBACK TO SAVEPOINT, parallel on", true},
		{"seed ABORT, parallel on", false}, // 1.4 pings
		{"seed whole transaction, parallel on", true},
		{"commit4 COMMIT, parallel on", true},
		{"batch INSERT ... SELECT, batch_size 100", true},
		{"batch INSERT ... SELECT, batch_size 1", false}, // 4% slower
	}
	if got := judge(xactTargets(lines, time.Millisecond)); !slices.Equal(got, want) {
		t.Errorf("targets at 1ms:\n got %v\nwant %v", got, want)
	}
	// Below 1 ms only the batch INSERTs are judged.
	if got := judge(xactTargets(lines, 0)); !slices.Equal(got, want[4:]) {
		t.Errorf("targets at 0:\n got %v\nwant %v", got, want[4:])
	}
}

func TestWriteXactTable(t *testing.T) {
	lines := []xactLine{
		fakeXactLine(xactSeed, measureRollbackTo, settingParallel, 2.4, 0),
		fakeXactLine(xactSeed, measureWhole, settingParallel, 15, 50),
		fakeXactLine(xactBatch, measureInsert, xactSetting{batchSize: 1}, 100, 0),
	}
	lines[1].Note = "PostgreSQL: parallel_commit only (no parallel_abort)"
	lines[2].PostgresNote = "skipped: too slow"
	rep := &xactReport{
		Suite: suiteXact, Servers: 4, Runs: 3, BatchRows: 1000, LocalInserts: 10,
		Latencies: []string{"1ms"}, GoVersion: "go1.x", Platform: "linux/amd64", CPUs: 2, GOMAXPROCS: 2,
		Settings:              map[string]string{"server_version": "15.0", "shared_buffers": "128MB", "jit": "on"},
		PostgresParallelAbort: "refused: invalid option \"parallel_abort\"\nHINT: valid options are ...",
		BatchChecks:           []xactBatchCheck{{Engine: enginePGFed, Setting: "batch_size 100", Rows: 1050, Inserts: "10 INSERTs of 100 rows, 1 of 50", Pass: true}},
		Phases: []xactPhase{{Latency: "1ms", LatencyMS: 1, DirectPingMS: 0.05, ProxyPingMS: 2.5, Lines: lines,
			Targets: xactTargets(lines, time.Millisecond)}},
		Errors: []workloadError{{Workload: xactBatch, Contender: "PostgreSQL, batch_size 1 at 1ms", Error: "conn closed"}},
	}
	var buf bytes.Buffer
	if err := writeXactTable(&buf, rep); err != nil {
		t.Fatal(err)
	}
	// Column widths depend on every cell: compare with runs of spaces
	// collapsed.
	out := regexp.MustCompile(` +`).ReplaceAllString(buf.String(), " ")
	wantInReport(t, out,
		"pgfedbench -suite xact: 3 timed runs",
		"PostgreSQL's parallel_abort: refused: invalid option \"parallel_abort\"\n",
		"pgfed batch_size 100 1050 rows: 10 INSERTs of 100 rows, 1 of 50 PASS",
		"seed ROLLBACK TO SAVEPOINT parallel on 2.40 (2.40) 1.20 0.96 2 n/a: no parallel_abort - - - \n",
		"seed whole transaction parallel on 15.00 (15.00) 7.50 6.00 2 50.00 (50.00) 25.00 20.00 3.33x PostgreSQL: parallel_commit only (no parallel_abort) \n",
		"batch INSERT ... SELECT batch_size 1 100 (100) 50.00 40.00 2 skipped: too slow - - - \n",
		"PASS seed, ROLLBACK TO SAVEPOINT, parallel on: pgfed 1.20 RT (0.96 pings) target <= 1.3 round trips (pings)",
		"PASS seed, whole transaction, parallel on: PG/pgfed 3.33x target PG/pgfed >= 3x",
		"seed transaction: postgres_fdw makes 24 round trips (the issue's count)\n at 1ms, parallel on: pgfed 2 requests, 6.00 pings; PostgreSQL 20.00 pings\n",
		"all 2 targets met",
		"ERRORS\nbatch, PostgreSQL, batch_size 1 at 1ms:\n conn closed",
	)

	back := reportJSON(t, func(w io.Writer) error { return writeXactJSON(w, rep) })
	line := back["phases"].([]any)[0].(map[string]any)["lines"].([]any)[1].(map[string]any)
	if line["postgres_over_pgfed"] != 50.0/15 || line["pgfed_round_trips"] != 7.5 || line["pgfed_requests"] != 2.0 {
		t.Errorf("JSON line: %v", line)
	}
}

// TestXactSuite runs the whole suite small: one run at latency 0, a
// batch INSERT of 1,000 rows, a local transaction of 100 INSERTs. Every
// workload must report both engines at every setting, without errors.
func TestXactSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts five PostgreSQL clusters")
	}
	opts, err := parseFlags([]string{"-suite", "xact", "-runs", "1", "-latency", "0", "-xactrows", "1000", "-xactinserts", "100", "-pgshared", "128MB"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := runXact(ctx, opts, io.Discard)
	if errors.Is(err, pgtest.ErrNotInstalled) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rep.Errors {
		t.Errorf("%s, %s: %s: %s", e.Workload, e.Contender, e.SQL, e.Error)
	}
	if len(rep.Phases) != 1 {
		t.Fatalf("%d phases, want 1", len(rep.Phases))
	}
	want := 0
	for _, w := range xactWorkloads {
		want += len(w.settings) * len(w.measures)
	}
	lines := rep.Phases[0].Lines
	if len(lines) != want {
		t.Errorf("%d lines, want %d", len(lines), want)
	}
	for _, l := range lines {
		if l.PGFed == nil || l.PGFedNote != "" {
			t.Errorf("%s %s, %s: no pgfed time (%s)", l.Workload, l.Measure, l.Setting, l.PGFedNote)
		}
		naAbort := strings.HasPrefix(l.PostgresNote, "n/a") && l.Setting == settingParallel.String() &&
			(l.Measure == measureRollbackTo || l.Measure == measureAbort)
		if (l.Postgres == nil) != naAbort {
			t.Errorf("%s %s, %s: PostgreSQL time %v, note %q", l.Workload, l.Measure, l.Setting, l.Postgres, l.PostgresNote)
		}
		if l.Workload != xactLocal && (l.PGFedRequests == nil || *l.PGFedRequests <= 0) {
			t.Errorf("%s %s, %s: pgfed requests %v", l.Workload, l.Measure, l.Setting, l.PGFedRequests)
		}
		if l.Workload == xactSeed && l.Measure == measureWhole && *l.PGFedRequests != 8 {
			// INSERT, ROLLBACK TO, INSERT, ABORT on each of the two servers.
			t.Errorf("seed transaction, %s: %d pgfed requests, want 8", l.Setting, *l.PGFedRequests)
		}
	}
	if len(rep.BatchChecks) != 4 {
		t.Errorf("%d batch checks, want 4 (2 engines, 2 batch sizes)", len(rep.BatchChecks))
	}
	if !strings.HasPrefix(rep.Settings["server_version"], "15") || !strings.HasPrefix(rep.PostgresParallelAbort, "refused") {
		t.Errorf("PostgreSQL %s, parallel_abort %q: want 15, refused", rep.Settings["server_version"], rep.PostgresParallelAbort)
	}
	var buf bytes.Buffer
	if err := writeXactTable(&buf, rep); err != nil {
		t.Fatal(err)
	}
	for _, w := range xactWorkloads {
		if !strings.Contains(buf.String(), "\n"+w.name+" ") {
			t.Errorf("the table has no line of %s:\n%s", w.name, buf.String())
		}
	}
}
