package main

// The async suite (-suite async) measures asynchronous Append: the
// workloads of the benchmark that came with PostgreSQL's asynchronous
// execution patch, each run with enable_async_append off (sync) and on
// (async), with a one-way network latency of 0 and 1 ms injected between
// the engines and the data servers.
//
// Five throwaway clusters are started: four data servers and a
// coordinator. Data server i (1 to 4) holds table t_i(a integer, b
// integer) of -asyncrows rows (1,000,000 by default, 4,000,000 in all),
// with a in [(i-1)*n, i*n) and b a permutation of [0, n); data server 1
// also holds copies of t_2, t_3 and t_4. Each data server sits behind a
// delayProxy of its own (delayproxy.go), running in a child process
// (delayproxy_process.go) so that it shares no Go scheduler with pgfed:
// every foreign server, in pgfed and in the coordinator, connects
// through the proxy, with fetch_size
// '100' and async_capable 'true'. The workloads, all of them sum(a) over
// the same 4n values of a:
//
//	t0        SELECT sum(a) FROM t0     one local table of 4n rows (pgfed's own)
//	pl        SELECT sum(a) FROM pl     4 local partitions of n rows
//	pf0       SELECT sum(a) FROM pf0    4 foreign partitions, t_1..t_4 on data server 1
//	pf0multi  SELECT sum(a) FROM pf0m   pf0 over a server with async_connections '4'
//	pf1       SELECT sum(a) FROM pf1    4 foreign partitions, t_i on data server i
//	pf1filter SELECT sum(a) FROM pf1 WHERE b >= 0
//	                                    pf1 with a filter every row passes, evaluated
//	                                    locally by each scan (pushdown is off)
//
// pgfed runs every workload in two sessions, with SET enable_async_append
// = off and on, and SET pgfed.pushdown = off and enable_partitionwise_
// aggregate = off in both, so that the sum is computed locally and the
// rows really travel. The coordinator, PostgreSQL 15 with postgres_fdw,
// runs pf0 and pf1 in two sessions with enable_async_append off and on,
// enable_partitionwise_aggregate = off and max_parallel_workers_per_gather
// = 0; postgres_fdw ships an aggregate only over a single foreign table,
// so over the partitioned tables its rows travel too. EXPLAIN VERBOSE of
// every workload in every session is checked for that (no sum in any
// Remote SQL) and for Async Foreign Scans exactly when async is on; in
// pgfed, EXPLAIN ANALYZE checks that the Append's rows really came
// asynchronously (Async Rows, not Sync Rows), because a plan can say async
// while the executor runs it synchronously. Each query's bytes through the
// proxies are counted: a sum computed remotely would come back in a few
// hundred bytes.
//
// pf0multi needs the server option async_connections (the partitions of
// that server read over up to that many connections sharing one exported
// snapshot). Where pgfed rejects the option as invalid, the workload is
// reported as not available.
//
// For each latency of -latency, in turn, every proxy is set to it and
// each workload is checked (the answer is known: the sum of 0 .. 4n-1)
// and timed: the check run is the warm-up, then -runs rounds in which
// each contender runs once. A query much quicker than asyncMinRun is run
// several times per timed run, and its time per query reported; such a
// query gets at least asyncQuickRuns timed runs.
//
// Targets, with sync/async the ratio of median times:
//
//	t0, pl        async within 3% of sync, at every latency (the median
//	              of the per-run ratios: the two modes take turns query by
//	              query within a run)
//	pf0           async not slower than sync (3% noise allowed), at every latency
//	pf0multi      sync/async >= 3 at 1 ms and more; not slower below
//	pf1           sync/async >= 3.5 at 1 ms and more
//	pf1filter     as pf1: a local filter keeps the scans async
//	pf0, pf1      pgfed faster than PostgreSQL, sync and async alike

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// suiteAsync is the -suite name of this suite.
const suiteAsync = "async"

// asyncServers is the number of data servers.
const asyncServers = 4

// asyncFetchSize is the foreign servers' fetch_size: small, so that a
// scan makes many round trips and latency shows.
const asyncFetchSize = 100

// asyncConnections is the async_connections of pf0multi's server.
const asyncConnections = 4

// asyncMinRun is the least time one timed run of a workload takes: a
// quicker query is repeated within the run, so that timer resolution and
// scheduling noise stay well below the 3% the local workloads are judged
// by.
const asyncMinRun = 250 * time.Millisecond

// asyncQuickRuns is the least number of timed runs of a workload quicker
// than asyncMinRun (t0, pl): whatever -runs says, their 3% targets need
// a median of several runs on a shared machine.
const asyncQuickRuns = 9

// asyncOptions are the async suite's own flags; -runs, -only, -json,
// -pgshared and -sequential are shared with the other suites.
type asyncOptions struct {
	rows        int    // rows in each table on the data servers
	latencyList string // -latency as given
	latencies   []time.Duration
}

func addAsyncFlags(fs *flag.FlagSet, ao *asyncOptions) {
	fs.IntVar(&ao.rows, "asyncrows", 1_000_000, "async suite: rows in each of the 4 tables (4 times that in all)")
	fs.StringVar(&ao.latencyList, "latency", "0,1ms", "async suite: comma-separated one-way latencies injected between the engines and the data servers (a bare number is milliseconds)")
}

// check validates the async flags once they are parsed, and parses the
// latencies.
func (ao *asyncOptions) check(opts options) error {
	// a runs up to 4n-1 and must fit in integer.
	if ao.rows < 1 || ao.rows > math.MaxInt32/asyncServers {
		return fmt.Errorf("-asyncrows must be between 1 and %d", math.MaxInt32/asyncServers)
	}
	if opts.pgDSN != "" {
		return fmt.Errorf("-pgdsn is not used by the async suite, which needs five throwaway clusters")
	}
	lats, err := parseLatencies(ao.latencyList)
	if err != nil {
		return fmt.Errorf("-latency: %v", err)
	}
	ao.latencies = lats
	return nil
}

// parseLatencies parses a comma-separated list of durations; a bare
// number is milliseconds.
func parseLatencies(list string) ([]time.Duration, error) {
	var out []time.Duration
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		d, err := time.ParseDuration(f)
		if err != nil {
			ms, nerr := strconv.ParseFloat(f, 64)
			if nerr != nil {
				return nil, fmt.Errorf("%q is neither a duration nor a number of milliseconds", f)
			}
			d = time.Duration(ms * float64(time.Millisecond))
		}
		if d < 0 {
			return nil, fmt.Errorf("%q is negative", f)
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no latency given")
	}
	return out, nil
}

// asyncWorkload is one query of the suite.
type asyncWorkload struct {
	name  string // what -only matches
	title string // the table's first column
	sql   string
	// postgres says the coordinator runs the query too (pf0 and pf1).
	postgres bool
	// foreign says the query reads foreign tables, so its rows must come
	// through the proxies.
	foreign bool
	// multi says the query needs the async_connections server option.
	multi bool
}

// Workload names, for -only and the targets.
const (
	asyncT0    = "t0"
	asyncPL    = "pl"
	asyncPF0   = "pf0"
	asyncPF0M  = "pf0multi"
	asyncPF1   = "pf1"
	asyncPF1F  = "pf1filter"
	asyncNames = "t0, pl, pf0, pf0multi, pf1, pf1filter"
)

var asyncWorkloads = []asyncWorkload{
	{name: asyncT0, title: "t0: 1 local table", sql: "SELECT sum(a) FROM t0"},
	{name: asyncPL, title: "pl: 4 local partitions", sql: "SELECT sum(a) FROM pl"},
	{name: asyncPF0, title: "pf0: 4 foreign partitions, 1 server", sql: "SELECT sum(a) FROM pf0", postgres: true, foreign: true},
	{name: asyncPF0M, title: fmt.Sprintf("pf0, async_connections '%d'", asyncConnections), sql: "SELECT sum(a) FROM pf0m", foreign: true, multi: true},
	{name: asyncPF1, title: "pf1: 4 foreign partitions, 4 servers", sql: "SELECT sum(a) FROM pf1", postgres: true, foreign: true},
	{name: asyncPF1F, title: "pf1 with a local filter", sql: "SELECT sum(a) FROM pf1 WHERE b >= 0", postgres: true, foreign: true},
}

// asyncTarget is a workload's goal at one latency, on the ratio of the
// sync median time over the async one.
type asyncTarget struct {
	text string
	pass func(syncOverAsync float64) bool
}

// asyncNoise is the relative difference taken for noise: "within 3%" for
// the local workloads, and how much slower async may measure and still
// count as not slower.
const asyncNoise = 0.03

var (
	targetSame = &asyncTarget{
		text: "within ±3%",
		pass: func(r float64) bool { return math.Abs(1/r-1) <= asyncNoise },
	}
	targetNotSlower = &asyncTarget{
		text: "not slower (+3%)",
		pass: func(r float64) bool { return 1/r <= 1+asyncNoise },
	}
)

func targetAtLeast(x float64) *asyncTarget {
	return &asyncTarget{text: fmt.Sprintf(">= %gx", x), pass: func(r float64) bool { return r >= x }}
}

// asyncTargetFor is the target of pgfed's sync/async ratio for w at one
// latency; nil when there is none (reported only).
func asyncTargetFor(w asyncWorkload, latency time.Duration) *asyncTarget {
	high := latency >= time.Millisecond
	switch w.name {
	case asyncT0, asyncPL:
		return targetSame
	case asyncPF0:
		return targetNotSlower
	case asyncPF0M:
		if high {
			return targetAtLeast(3)
		}
		return targetNotSlower
	case asyncPF1, asyncPF1F:
		if high {
			return targetAtLeast(3.5)
		}
	}
	return nil
}

// runAsync starts and loads the servers, declares the tables in both
// engines, and runs the selected workloads at each latency. Progress goes
// to logw.
func runAsync(ctx context.Context, opts options, logw io.Writer) (*asyncReport, error) {
	logf := func(format string, args ...any) { fmt.Fprintf(logw, "pgfedbench: "+format+"\n", args...) }
	ao := opts.async
	var ws []asyncWorkload
	for _, w := range asyncWorkloads {
		if opts.only.MatchString(w.name) {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 {
		return nil, fmt.Errorf("-only %q matches no async workload (the names are %s)", opts.only, asyncNames)
	}

	data := newDataset(ao.rows, opts.sequential)
	rep := &asyncReport{
		Suite:        suiteAsync,
		Servers:      asyncServers,
		RowsPerTable: ao.rows,
		TotalRows:    asyncServers * ao.rows,
		FetchSize:    asyncFetchSize,
		Runs:         opts.runs,
		Data:         asyncDataDescription(data),
		GoVersion:    runtime.Version(),
		Platform:     runtime.GOOS + "/" + runtime.GOARCH,
		CPUs:         runtime.NumCPU(),
		GOMAXPROCS:   runtime.GOMAXPROCS(0),
		LoadAvgStart: loadAverage(),
	}
	for _, l := range ao.latencies {
		rep.Latencies = append(rep.Latencies, l.String())
	}
	defer func() { rep.LoadAvgEnd = loadAverage() }()

	logf("starting %d PostgreSQL clusters (%d data servers and a coordinator) and a delay proxy per data server", asyncServers+1, asyncServers)
	fx, err := startAsync(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer fx.close()
	rep.Settings = fx.coordSettings

	start := time.Now()
	if rep.Loads, err = fx.load(ctx, data); err != nil {
		return nil, err
	}
	for _, l := range rep.Loads {
		logf("loaded %s on data server %d (%d rows): %.0f ms + VACUUM ANALYZE %.0f ms", l.Table, l.Server, l.Rows, l.LoadMS, l.VacuumMS)
	}
	logf("data servers loaded in %.0f ms (concurrently)", ms(time.Since(start)))
	if rep.LocalLoadMS, err = fx.loadLocal(ctx, opts.sequential); err != nil {
		return nil, err
	}
	logf("loaded pgfed's local t0 and pl (%d rows each) in %.0f ms", rep.TotalRows, rep.LocalLoadMS)
	if rep.CoordinatorAnalyzeMS, err = fx.declare(ctx); err != nil {
		return nil, err
	}
	logf("declared the foreign tables; the coordinator's ANALYZE of the foreign partitions took %.0f ms", rep.CoordinatorAnalyzeMS)
	rep.SeveralConnections = "available"
	if fx.multiErr != nil {
		rep.SeveralConnections = "not available: " + describeError(fx.multiErr)
		logf("async_connections: %s", rep.SeveralConnections)
	}

	for _, w := range ws {
		plans, errs := fx.checkPlans(ctx, w)
		rep.Plans = append(rep.Plans, plans...)
		rep.Errors = append(rep.Errors, errs...)
		for _, e := range errs {
			logf("%s: %s: %s", w.name, e.Contender, e.Error)
		}
	}

	for _, lat := range ao.latencies {
		fx.setDelay(lat)
		phase := asyncPhase{Latency: lat.String(), LatencyMS: ms(lat)}
		if phase.DirectPingMS, phase.ProxyPingMS, err = fx.pingRoundTrips(ctx); err != nil {
			return nil, fmt.Errorf("SELECT 1 round trip: %w", err)
		}
		logf("one-way latency %v: SELECT 1 round trip %.2f ms through the proxy, %.2f ms direct", lat, phase.ProxyPingMS, phase.DirectPingMS)
		for _, w := range ws {
			rows, vs, errs := runAsyncWorkload(ctx, opts, fx, w, lat, logf)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			phase.Rows = append(phase.Rows, rows...)
			phase.VsPostgres = append(phase.VsPostgres, vs...)
			rep.Errors = append(rep.Errors, errs...)
		}
		rep.Phases = append(rep.Phases, phase)
	}
	return rep, nil
}

// asyncContender is one way to run a workload: an engine and a setting of
// enable_async_append.
type asyncContender struct {
	key   string // "pgfed-sync", "postgres-async" ...
	label string
	read  reader
	// answer runs the query and returns its rows as text.
	answer func(ctx context.Context) ([]string, error)
}

// asyncChecked is a contender that gave the right answer, with what its
// check run measured.
type asyncChecked struct {
	asyncContender
	checkTime   time.Duration
	serverBytes int64 // bytes from the data servers during the check run
}

// runAsyncWorkload checks and times w at one latency. It returns pgfed's
// line (and PostgreSQL's, for pf0 and pf1), the comparisons of pgfed with
// PostgreSQL, and the failures.
func runAsyncWorkload(ctx context.Context, opts options, fx *asyncFixture, w asyncWorkload, lat time.Duration, logf func(string, ...any)) ([]asyncRow, []asyncVsPostgres, []workloadError) {
	target := asyncTargetFor(w, lat)
	fedRow := asyncRow{Workload: w.name, Engine: "pgfed", Title: w.title, SQL: w.sql}
	if target != nil {
		fedRow.Target = target.text
	}
	if w.multi && fx.multiErr != nil {
		fedRow.Note = "not available"
		return []asyncRow{fedRow}, nil, nil
	}

	checked, errs := fx.checkWorkload(ctx, w, lat)
	for _, e := range errs {
		logf("%s at %v: %s failed: %s", w.name, lat, e.Contender, e.Error)
	}
	var reps int
	var timings map[string]timing
	if len(checked) > 0 {
		reps = repetitions(checked)
		runs := opts.runs
		if reps > 1 {
			// A quick query: more runs cost little and steady the median.
			runs = max(runs, asyncQuickRuns)
		}
		var err error
		timings, err = timeAsync(ctx, runs, reps, checked, func(c asyncChecked, run int, d time.Duration) {
			logf("%s at %v: %s, run %d of %d: %.1f ms", w.name, lat, c.label, run, runs, ms(d))
		})
		if err != nil {
			errs = append(errs, workloadError{Workload: w.name, SQL: w.sql, Error: describeError(err)})
			timings = nil
		}
	}
	bytes := map[string]int64{}
	for _, c := range checked {
		bytes[c.key] = c.serverBytes
	}

	fill := func(r *asyncRow, engine string) {
		r.Reps = reps
		if t, ok := timings[engine+"-sync"]; ok {
			r.Sync = &t
			r.SyncServerBytes = bytes[engine+"-sync"]
		}
		if t, ok := timings[engine+"-async"]; ok {
			r.Async = &t
			r.AsyncServerBytes = bytes[engine+"-async"]
		}
		if r.Sync == nil || r.Async == nil {
			return
		}
		r.Ratio = r.Sync.MedianMS / r.Async.MedianMS
		if reps > 1 {
			// The two modes took turns query by query (timeAsync), so
			// run i of one is paired with run i of the other.
			r.Ratio = pairedRatio(r.Sync.RunsMS, r.Async.RunsMS)
		}
		logf("%s at %v: %s sync %.1f ms, async %.1f ms, sync/async %.2fx", w.name, lat, r.Engine, r.Sync.MedianMS, r.Async.MedianMS, r.Ratio)
	}
	fill(&fedRow, "pgfed")
	if target != nil && fedRow.Ratio > 0 {
		pass := target.pass(fedRow.Ratio)
		fedRow.Pass = &pass
	}
	rows := []asyncRow{fedRow}
	if !w.postgres {
		return rows, nil, errs
	}

	pgRow := asyncRow{Workload: w.name, Engine: "PostgreSQL", Title: w.title, SQL: w.sql}
	fill(&pgRow, "postgres")
	rows = append(rows, pgRow)
	var vs []asyncVsPostgres
	for _, mode := range []struct {
		name      string
		fed, post *timing
	}{{"sync", fedRow.Sync, pgRow.Sync}, {"async", fedRow.Async, pgRow.Async}} {
		if mode.fed == nil || mode.post == nil {
			continue
		}
		v := asyncVsPostgres{
			Workload:   w.name,
			Mode:       mode.name,
			PGFedMS:    mode.fed.MedianMS,
			PostgresMS: mode.post.MedianMS,
			Ratio:      mode.post.MedianMS / mode.fed.MedianMS,
			Target:     "> 1x",
		}
		pass := v.Ratio > 1
		v.Pass = &pass
		vs = append(vs, v)
	}
	return rows, vs, errs
}

// repetitions is how many times each query runs within one timed run: as
// many as the quickest contender's check run fits in asyncMinRun.
func repetitions(cs []asyncChecked) int {
	quickest := cs[0].checkTime
	for _, c := range cs[1:] {
		quickest = min(quickest, c.checkTime)
	}
	if quickest <= 0 {
		return 1
	}
	return max(1, int(math.Ceil(float64(asyncMinRun)/float64(quickest))))
}

// pairedRatio is the median over runs of a[i]/b[i]: for contenders that
// took turns within each run, it cancels what changed from run to run
// (background load), which a ratio of the two medians does not.
func pairedRatio(a, b []float64) float64 {
	ratios := make([]float64, min(len(a), len(b)))
	for i := range ratios {
		ratios[i] = a[i] / b[i]
	}
	slices.Sort(ratios)
	m := len(ratios) / 2
	if len(ratios)%2 == 1 {
		return ratios[m]
	}
	return (ratios[m-1] + ratios[m]) / 2
}

// timeAsync times runs rounds, each contender running reps queries per
// round, taking turns so that background load affects all alike: a slow
// query (reps 1) runs once per contender per round; quick ones (reps > 1)
// take turns query by query, so that the load of any moment falls on all
// contenders alike. It returns each contender's time per query by key,
// and calls progress after every run.
func timeAsync(ctx context.Context, runs, reps int, cs []asyncChecked, progress func(asyncChecked, int, time.Duration)) (map[string]timing, error) {
	durations := make([][]time.Duration, len(cs))
	for run := range runs {
		// As in measure: collect the previous runs' garbage now, so that
		// no contender pays for another's.
		runtime.GC()
		spent := make([]time.Duration, len(cs))
		for rep := range reps {
			for j := range cs {
				// Every other query the order turns, so that neither
				// contender always runs right after the other.
				i := j
				if rep%2 == 1 {
					i = len(cs) - 1 - j
				}
				c := cs[i]
				if reps == 1 {
					runtime.GC()
				}
				start := time.Now()
				if _, err := c.read(ctx); err != nil {
					return nil, fmt.Errorf("%s: %w", c.label, err)
				}
				spent[i] += time.Since(start)
			}
		}
		for i, c := range cs {
			progress(c, run+1, spent[i])
			durations[i] = append(durations[i], spent[i]/time.Duration(reps))
		}
	}
	out := map[string]timing{}
	for i, c := range cs {
		out[c.key] = newTiming(durations[i])
	}
	return out, nil
}
