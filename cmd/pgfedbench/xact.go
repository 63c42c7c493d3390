package main

// The xact suite (-suite xact) measures transactions over foreign tables:
// the savepoints, commits and aborts that postgres_fdw's remote
// transactions follow, with parallel_commit and parallel_abort off and
// on, and INSERT into a foreign table at batch_size 1 and 100, in pgfed
// and in PostgreSQL 15 with postgres_fdw over the same data servers, at a
// one-way network latency of 0 and 1 ms (-latency).
//
// The async suite's clusters are started (startAsync: four data servers,
// each behind a delay proxy in a child process, and a coordinator), but
// not its tables. Data server i (1 to 4) holds r(a integer, b integer),
// empty, and data server 1 also big(a integer, b integer). Both engines
// declare servers s1..s4 through the proxies, foreign tables ft1..ft4 over
// r on s1..s4 and ftbig over big on s1, and a local table loc(a integer,
// b integer): pgfed's own Arrow table, a plain table of the coordinator.
// Each engine runs in a session of its own with the default settings,
// statement by statement as a client would send them (pgfed through
// Session.Exec, PostgreSQL through pgx on loopback, one simple-protocol
// round trip to the coordinator per statement). The workloads:
//
//	seed     the seed transaction of postgres_fdw's parallel abort, over
//	         ft1 and ft2 (two servers):
//	           BEGIN; SAVEPOINT s;
//	           INSERT INTO ft1 VALUES (10, 10); INSERT INTO ft2 VALUES (20, 20);
//	           ROLLBACK TO SAVEPOINT s; RELEASE SAVEPOINT s;
//	           INSERT INTO ft1 VALUES (10, 10); INSERT INTO ft2 VALUES (20, 20);
//	           ABORT;
//	         measured: ROLLBACK TO SAVEPOINT alone, ABORT alone, the whole
//	         transaction (the sum of its statements' latencies)
//	commit2  BEGIN; one INSERT into each of ft1, ft2; COMMIT: COMMIT alone
//	commit4  the same over ft1..ft4
//	batch    INSERT INTO ftbig SELECT g, g FROM generate_series(1, N) g
//	         (N from -xactrows, 100,000 by default), autocommit, at
//	         batch_size 1 and 100 (ALTER FOREIGN TABLE); big is truncated
//	         on its data server before every run, untimed
//	local    BEGIN; INSERT INTO loc VALUES (i, i) for i in 1..M (M from
//	         -xactinserts, 1,000 by default); COMMIT: the whole
//	         transaction; loc is truncated before every run, untimed
//
// seed, commit2 and commit4 run twice: with parallel_commit and
// parallel_abort 'false' on every server, then 'true' (ALTER SERVER ...
// OPTIONS (SET ...)). PostgreSQL 15's postgres_fdw has parallel_commit
// but not parallel_abort (PostgreSQL 16 added it): the coordinator is
// asked to take parallel_abort once, at declaration, and where it refuses
// it runs the parallel setting with parallel_commit only, and its
// ROLLBACK TO SAVEPOINT and ABORT lines there are reported as n/a. A
// contender whose check run takes more than xactRunBudget is not timed
// at that latency, and PostgreSQL's batch INSERT is skipped where its
// round trips alone would take that long (postgres_fdw sends a batch per
// round trip: batch_size 1 at 1 ms is 100,000 of 2 ms).
//
// Every run is checked: the seed transaction leaves r unchanged on both
// servers, a commit adds its row on every server, the batch INSERT leaves
// exactly N rows with the right sums in big, the local transaction M rows
// in loc, and pgfed leaves no remote transaction open. For each latency
// in turn, every workload at every setting is configured in both
// engines, run once per engine as a checked warm-up (which also makes
// again the connections an ALTER SERVER invalidated), then timed -runs
// rounds in which each engine runs once, the order turning every round
// so that background load affects both alike. Tables show median (min)
// in ms. At a latency above 0, a time is also given in round trips: RT,
// the median over twice the one-way latency, and pings, the median over
// the SELECT 1 round trip through a proxy, which adds the proxy's own
// delay (its timers are late by a fraction of a millisecond).
//
// pgfed's requests are counted on its remote connections (RoundTrips of
// Session.RemoteConnections, the median over runs of the difference
// before and after): requests sent, each awaiting its own answer, so that
// parallel ones count once each, and a pipeline of many commands counts
// once; the issue counts 24 round trips for postgres_fdw's seed
// transaction. Before the phases, the batch INSERT's mechanism is
// checked in both engines at each batch_size: EXPLAIN (VERBOSE, COSTS
// OFF) must show "Batch Size: N", and a statement trigger on big counts
// the rows of every remote INSERT of a run of xactCountedRows rows, which
// must come N at a time.
//
// Targets, reported and never failing the run, at latencies of 1 ms and
// more:
//
//	seed     ROLLBACK TO SAVEPOINT and ABORT within 1.3 round trips in
//	         pgfed with parallel_abort on (PostgreSQL 15 takes 2 and 4)
//	seed     the whole transaction at least 3x faster than PostgreSQL,
//	         both with the parallel setting
//	commit4  COMMIT within 1.3 round trips in pgfed with parallel_commit
//	         on: the four COMMITs overlap
//
// A round trip there is the measured one (pings): a SELECT 1 through the
// proxy takes about 1.3 nominal RT by itself, so a nominal bound would
// fail a command that costs exactly one round trip.
//
// and at every latency where both ran:
//
//	batch    pgfed not slower than PostgreSQL at the same batch_size
//	         (3% allowed for noise)

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"time"
)

// suiteXact is the -suite name of this suite.
const suiteXact = "xact"

// xactRunBudget is the longest a run may take: a contender whose check
// run takes longer is not timed at that setting and latency, and
// PostgreSQL's batch INSERT is not even tried when its round trips alone
// would take longer (batch_size 1 at 1 ms: 100,000 of 2 ms).
const xactRunBudget = time.Minute

// xactOptions are the xact suite's own flags; -latency is the async
// suite's, and -runs, -only, -json and -pgshared are shared.
type xactOptions struct {
	batchRows int // rows of the batch INSERT
	inserts   int // single-row INSERTs of the local transaction
	latencies []time.Duration
}

func addXactFlags(fs *flag.FlagSet, xo *xactOptions) {
	fs.IntVar(&xo.batchRows, "xactrows", 100_000, "xact suite: rows of INSERT INTO ftbig SELECT ... (the foreign batch INSERT)")
	fs.IntVar(&xo.inserts, "xactinserts", 1000, "xact suite: single-row INSERTs in the local transaction")
}

// check validates the xact flags once they are parsed, and parses
// -latency.
func (xo *xactOptions) check(opts options) error {
	if xo.batchRows < 1 || xo.batchRows > math.MaxInt32 {
		return fmt.Errorf("-xactrows must be between 1 and %d", math.MaxInt32)
	}
	if xo.inserts < 1 || xo.inserts > math.MaxInt32 {
		return fmt.Errorf("-xactinserts must be between 1 and %d", math.MaxInt32)
	}
	if opts.pgDSN != "" {
		return fmt.Errorf("-pgdsn is not used by the xact suite, which needs five throwaway clusters")
	}
	lats, err := parseLatencies(opts.async.latencyList)
	if err != nil {
		return fmt.Errorf("-latency: %v", err)
	}
	xo.latencies = lats
	return nil
}

// Workload names, for -only and the targets.
const (
	xactSeed    = "seed"
	xactCommit2 = "commit2"
	xactCommit4 = "commit4"
	xactBatch   = "batch"
	xactLocal   = "local"
	xactNames   = "seed, commit2, commit4, batch, local"
)

// Measures: the statements timed alone, and the whole run.
const (
	measureRollbackTo = "ROLLBACK TO SAVEPOINT"
	measureAbort      = "ABORT"
	measureCommit     = "COMMIT"
	measureWhole      = "whole transaction"
	measureInsert     = "INSERT ... SELECT"
)

// xactSetting is how the foreign servers or ftbig are configured for a
// block of runs.
type xactSetting struct {
	// parallel is parallel_commit and parallel_abort on every server.
	parallel bool
	// batchSize, if not 0, is ftbig's batch_size.
	batchSize int
	// local says there is nothing to configure: no foreign table is
	// written.
	local bool
}

var (
	settingSerial   = xactSetting{}
	settingParallel = xactSetting{parallel: true}
	settingLocal    = xactSetting{local: true}
)

func (s xactSetting) String() string {
	switch {
	case s.local:
		return "local table"
	case s.batchSize > 0:
		return fmt.Sprintf("batch_size %d", s.batchSize)
	case s.parallel:
		return "parallel on"
	}
	return "parallel off"
}

// xactWorkload is one transaction of the suite.
type xactWorkload struct {
	name  string
	title string
	// servers is how many foreign servers the transaction writes to, 0
	// for the local one.
	servers  int
	settings []xactSetting
	// measures are reported in this order.
	measures []string
}

var xactWorkloads = []xactWorkload{
	{name: xactSeed, title: "seed transaction, 2 servers", servers: 2,
		settings: []xactSetting{settingSerial, settingParallel},
		measures: []string{measureRollbackTo, measureAbort, measureWhole}},
	{name: xactCommit2, title: "COMMIT over 2 servers", servers: 2,
		settings: []xactSetting{settingSerial, settingParallel}, measures: []string{measureCommit}},
	{name: xactCommit4, title: "COMMIT over 4 servers", servers: 4,
		settings: []xactSetting{settingSerial, settingParallel}, measures: []string{measureCommit}},
	{name: xactBatch, title: "batch INSERT into a foreign table", servers: 1,
		settings: []xactSetting{{batchSize: 1}, {batchSize: 100}}, measures: []string{measureInsert}},
	{name: xactLocal, title: "local transaction of single-row INSERTs",
		settings: []xactSetting{settingLocal}, measures: []string{measureWhole}},
}

// selectXact returns the workloads whose name -only matches.
func selectXact(opts options) []xactWorkload {
	var ws []xactWorkload
	for _, w := range xactWorkloads {
		if opts.only.MatchString(w.name) {
			ws = append(ws, w)
		}
	}
	return ws
}

// runXact starts the servers, declares the tables in both engines,
// checks the batch INSERT's plans, and runs the selected workloads at
// each latency. Progress goes to logw.
func runXact(ctx context.Context, opts options, logw io.Writer) (*xactReport, error) {
	logf := func(format string, args ...any) { fmt.Fprintf(logw, "pgfedbench: "+format+"\n", args...) }
	xo := opts.xact
	ws := selectXact(opts)
	if len(ws) == 0 {
		return nil, fmt.Errorf("-only %q matches no xact workload (the names are %s)", opts.only, xactNames)
	}
	rep := &xactReport{
		Suite:        suiteXact,
		Servers:      asyncServers,
		Runs:         opts.runs,
		BatchRows:    xo.batchRows,
		LocalInserts: xo.inserts,
		GoVersion:    runtime.Version(),
		Platform:     runtime.GOOS + "/" + runtime.GOARCH,
		CPUs:         runtime.NumCPU(),
		GOMAXPROCS:   runtime.GOMAXPROCS(0),
		LoadAvgStart: loadAverage(),
	}
	for _, l := range xo.latencies {
		rep.Latencies = append(rep.Latencies, l.String())
	}
	defer func() { rep.LoadAvgEnd = loadAverage() }()

	logf("starting %d PostgreSQL clusters (%d data servers and a coordinator) and a delay proxy per data server", asyncServers+1, asyncServers)
	fx, err := startXact(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer fx.close()
	rep.Settings = fx.coordSettings
	rep.PostgresParallelAbort = "accepted"
	if fx.pgAbortErr != nil {
		// pgx's errors say their SQLSTATE already.
		rep.PostgresParallelAbort = "refused: " + fx.pgAbortErr.Error()
		logf("the coordinator refuses parallel_abort: %v", fx.pgAbortErr)
	}

	for _, w := range ws {
		if w.name != xactBatch {
			continue
		}
		plans, checks, errs := fx.checkBatch(ctx, w)
		rep.Plans = append(rep.Plans, plans...)
		rep.BatchChecks = append(rep.BatchChecks, checks...)
		rep.Errors = append(rep.Errors, errs...)
		for _, c := range checks {
			logf("%s, %s: %s sent %s for %d rows", w.name, c.Setting, c.Engine, c.Inserts, c.Rows)
		}
		for _, e := range errs {
			logf("%s: %s: %s", w.name, e.Contender, e.Error)
		}
	}

	for _, lat := range xo.latencies {
		fx.setDelay(lat)
		phase := xactPhase{Latency: lat.String(), LatencyMS: ms(lat)}
		if phase.DirectPingMS, phase.ProxyPingMS, err = fx.pingRoundTrips(ctx); err != nil {
			return nil, fmt.Errorf("SELECT 1 round trip: %w", err)
		}
		logf("one-way latency %v: SELECT 1 round trip %.2f ms through the proxy, %.2f ms direct", lat, phase.ProxyPingMS, phase.DirectPingMS)
		for _, w := range ws {
			for _, set := range w.settings {
				lines, errs := runXactBlock(ctx, opts, fx, w, set, lat, logf)
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				phase.Lines = append(phase.Lines, lines...)
				rep.Errors = append(rep.Errors, errs...)
			}
		}
		for i := range phase.Lines {
			phase.Lines[i].setRoundTrips(lat, phase.ProxyPingMS)
		}
		phase.Targets = xactTargets(phase.Lines, lat)
		rep.Phases = append(rep.Phases, phase)
	}
	return rep, nil
}

// xactSample is what one run of a workload measured.
type xactSample struct {
	times map[string]time.Duration // by measure
	// requests are pgfed's remote requests during each measure; -1 when
	// a connection closed meanwhile, taking its count along. Absent for
	// PostgreSQL.
	requests map[string]int64
}

// runXactBlock runs w at one setting and latency: it configures both
// engines, checks one run of each, and times the engines that passed. It
// returns a line per measure and the failures.
func runXactBlock(ctx context.Context, opts options, fx *xactFixture, w xactWorkload, set xactSetting, lat time.Duration, logf func(string, ...any)) ([]xactLine, []workloadError) {
	var errs []workloadError
	fail := func(e *xactEngine, msg string) {
		errs = append(errs, workloadError{Workload: w.name, Contender: fmt.Sprintf("%s, %s at %v", e.name, set, lat), Error: msg})
		logf("%s, %s at %v: %s failed: %s", w.name, set, lat, e.name, msg)
	}
	lines := fx.blockLines(w, set)
	skip := func(e *xactEngine, reason string) {
		for i := range lines {
			if e == fx.fedEngine {
				lines[i].PGFedNote = reason
			} else {
				lines[i].PostgresNote = reason
			}
		}
		logf("%s, %s at %v: %s %s", w.name, set, lat, e.name, reason)
	}

	var ok []*xactEngine
	for _, e := range fx.engines() {
		if e == fx.pgEngine {
			if reason := postgresBatchSkip(set, fx.batchRows, lat); reason != "" {
				skip(e, reason)
				continue
			}
		}
		if err := fx.apply(ctx, e, set); err != nil {
			fail(e, describeError(err))
			continue
		}
		// The warm-up is also the guard against a run far slower than
		// expected: one that outlasts xactRunBudget is not timed.
		wctx, cancel := context.WithTimeout(ctx, xactRunBudget)
		_, err := fx.runChecked(wctx, e, w)
		cancel()
		switch {
		case err != nil && ctx.Err() == nil && wctx.Err() != nil:
			skip(e, fmt.Sprintf("skipped: the check run took more than %v", xactRunBudget))
		case err != nil:
			fail(e, describeError(err))
		default:
			ok = append(ok, e)
		}
	}
	samples := map[string][]xactSample{}
	for run := range opts.runs {
		order := slices.Clone(ok)
		if run%2 == 1 {
			slices.Reverse(order)
		}
		for _, e := range order {
			s, err := fx.runChecked(ctx, e, w)
			if err != nil {
				fail(e, describeError(err))
				return lines, errs
			}
			logf("%s, %s at %v: %s, run %d of %d: %.2f ms", w.name, set, lat, e.name, run+1, opts.runs, ms(s.times[w.measures[len(w.measures)-1]]))
			samples[e.name] = append(samples[e.name], s)
		}
	}
	for i := range lines {
		fillXactLine(&lines[i], samples)
	}
	return lines, errs
}

// postgresBatchSkip says why PostgreSQL's batch run is skipped at lat, ""
// if it is not: postgres_fdw sends each batch of the INSERT in a round
// trip of its own, and those alone would take more than xactRunBudget.
func postgresBatchSkip(set xactSetting, rows int, lat time.Duration) string {
	if set.batchSize == 0 {
		return ""
	}
	inserts := (rows + set.batchSize - 1) / set.batchSize
	cost := time.Duration(inserts) * 2 * lat
	if cost <= xactRunBudget {
		return ""
	}
	return fmt.Sprintf("skipped: %d round trips x %v = %v a run", inserts, 2*lat, cost.Round(time.Second))
}

// fillXactLine sets l's timings, pgfed's requests and the ratio from
// the engines' samples; an engine with a note keeps it instead.
func fillXactLine(l *xactLine, samples map[string][]xactSample) {
	summarize := func(engine string) (*timing, *int64) {
		ss := samples[engine]
		if len(ss) == 0 {
			return nil, nil
		}
		var ds []time.Duration
		var reqs []int64
		for _, s := range ss {
			ds = append(ds, s.times[l.Measure])
			if n, ok := s.requests[l.Measure]; ok {
				reqs = append(reqs, n)
			}
		}
		t := newTiming(ds)
		if len(reqs) == 0 {
			return &t, nil
		}
		slices.Sort(reqs)
		n := reqs[len(reqs)/2]
		if reqs[0] < 0 {
			n = -1
		}
		return &t, &n
	}
	if l.PGFedNote == "" {
		l.PGFed, l.PGFedRequests = summarize(enginePGFed)
	}
	if l.PostgresNote == "" {
		l.Postgres, _ = summarize(enginePostgres)
	}
	if l.PGFed != nil && l.Postgres != nil && l.PGFed.MedianMS > 0 {
		l.Ratio = l.Postgres.MedianMS / l.PGFed.MedianMS
	}
}

// setRoundTrips expresses l's medians in round trips at one-way latency
// lat, of twice lat and of pingMS (what SELECT 1 took through a proxy).
// The local workload goes through no proxy and gets none.
func (l *xactLine) setRoundTrips(lat time.Duration, pingMS float64) {
	if lat <= 0 || l.Workload == xactLocal {
		return
	}
	for _, side := range []struct {
		t         *timing
		rt, pings *float64
	}{{l.PGFed, &l.PGFedRT, &l.PGFedPings}, {l.Postgres, &l.PostgresRT, &l.PostgresPings}} {
		if side.t == nil {
			continue
		}
		*side.rt = side.t.MedianMS / (2 * ms(lat))
		if pingMS > 0 {
			*side.pings = side.t.MedianMS / pingMS
		}
	}
}

// Targets' limits.
const (
	xactMaxRT      = 1.3  // measured round trips of a parallel ROLLBACK TO, ABORT or COMMIT
	xactSeedFaster = 3.0  // PostgreSQL's seed transaction over pgfed's
	xactNoise      = 0.03 // how much slower "not slower" may measure
)

// xactTargets judges a phase's lines at latency lat.
func xactTargets(lines []xactLine, lat time.Duration) []xactTarget {
	high := lat >= time.Millisecond
	var out []xactTarget
	for _, l := range lines {
		var t *xactTarget
		switch {
		case !high && l.Workload != xactBatch:
		case l.Setting == settingParallel.String() && (l.Workload == xactSeed && l.Measure != measureWhole || l.Workload == xactCommit4):
			if l.PGFed != nil {
				t = &xactTarget{Text: fmt.Sprintf("<= %g round trips (pings)", xactMaxRT), Value: l.PGFedRT, Unit: "RT", Pings: l.PGFedPings, Pass: l.PGFedPings > 0 && l.PGFedPings <= xactMaxRT}
			}
		case l.Setting == settingParallel.String() && l.Workload == xactSeed:
			if l.Ratio > 0 {
				t = &xactTarget{Text: fmt.Sprintf("PG/pgfed >= %gx", xactSeedFaster), Value: l.Ratio, Unit: "x", Pass: l.Ratio >= xactSeedFaster}
			}
		case l.Workload == xactBatch:
			if l.Ratio > 0 {
				t = &xactTarget{Text: "pgfed not slower (+3%)", Value: l.Ratio, Unit: "x", Pass: 1/l.Ratio <= 1+xactNoise}
			}
		}
		if t != nil {
			t.Workload, t.Measure, t.Setting = l.Workload, l.Measure, l.Setting
			out = append(out, *t)
		}
	}
	return out
}
