package main

// The spill suite (-suite spill) measures what issue 12's "Bounded
// memory" asks of sorts, hash aggregates and DISTINCT, and the cancel
// latency of every long operator, in pgfed and in PostgreSQL 15 side by
// side on the same data and settings.
//
// The data is table s(k bigint, g bigint) of N rows (each N of
// -spillrows): k = i*K mod N for i in [0, N), K coprime to N (as the
// local suite's b), a permutation of [0, N) in no particular order, and
// g = k mod (N/10): N/10 groups of 10 rows, many enough that hash
// aggregation spills at a small work_mem. Both engines load it with the
// same SQL (CREATE TABLE, then INSERT ... SELECT FROM generate_series in
// chunks of spillChunk rows); PostgreSQL then gets VACUUM ANALYZE. The
// queries, each returning one row that is checked:
//
//	sort      SELECT k FROM s ORDER BY k DESC OFFSET N-1    (all N rows sorted; answer 0)
//	groupby   SELECT count(*), sum(c), sum(t) FROM (SELECT g, count(*) AS c, sum(k) AS t
//	          FROM s GROUP BY g) x                          (a HashAggregate of N/10 groups)
//	distinct  SELECT count(*) FROM (SELECT DISTINCT g FROM s) x
//
// each at every work_mem of -workmem (4MB and 64MB by default), with
// max_parallel_workers_per_gather = 0 in both engines and, in
// PostgreSQL, jit = off; hash_mem_multiplier stays at its default (2).
// PostgreSQL's plan is checked first (EXPLAIN): where it would sort for
// groupby or distinct (GroupAggregate, Unique) rather than hash, the cell
// runs with enable_sort = off there, and the report says so.
//
// pgfed runs in a child process (pgfedbench started again with
// spillChildArg), which loads s itself, so that its memory is its own: a
// query's peak is the child's VmHWM over the cell minus its VmRSS at the
// cell's start, after a GC that returned the free memory to the
// operating system and a reset of VmHWM (clear_refs); where the reset is
// refused, every cell gets a fresh child. The data's size is the child's
// VmRSS after the load minus before. PostgreSQL runs each cell on a fresh
// connection, whose backend's /proc status is read (the cluster runs on
// this machine): its peak is the largest RssAnon (private anonymous
// memory: palloc'd sort and hash memory, the counterpart of pgfed's Go
// heap) sampled every memSampleInterval, minus RssAnon at the start;
// VmHWM minus VmRSS at the start is reported too, but it counts the
// shared buffers the backend touched (RssShmem), up to shared_buffers.
//
// A cell runs EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) once in each
// engine, which warms up and whose Sort Method / Batches / Memory Usage
// / Disk Usage lines the report shows, then -runs rounds in which each
// engine runs the query once, the order turning every round; a cell
// whose analyzed run took T in the slower engine gets at most
// spillCellBudget / T rounds (at least one), so that the 50M-row cells,
// where one PostgreSQL run takes up to a minute, are timed once. Tables
// show median (min) in ms and the rounds. The default run (10M and 50M
// rows) takes about 15 minutes on two cores, most of it PostgreSQL's;
// -spillrows
// 10000000,50000000,200000000 is the full run (hours, and about
// 10 GB of disk for PostgreSQL's table and temporary files).
//
// The cancel table runs long operators over the last s loaded and over
// generate_series, and stops each after -cancelafter (500 ms): in pgfed
// by cancelling the query's context and by statement_timeout, in
// PostgreSQL by a cancel request (pgconn's CancelRequest, what pgx sends)
// and by statement_timeout, at work_mem cancelWorkMem. It reports the
// delay from the cancel to the query's return and the SQLSTATE, which
// must be 57014; pgfed's target is the issue's, both ways within
// cancelTarget (a query that ended before its cancel is not judged). A query that has not returned
// cancelGuard after its cancel is stopped the hard way (pgfed's child
// killed, PostgreSQL's connection closed) and reported as such. COPY
// reads /dev/zero: pgfed's child opens with pgfed.WithFileAccess("/dev"),
// and PostgreSQL's superuser may read server files.
//
// Targets are reported and never fail the run; wrong answers and errors
// do.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// suiteSpill is the -suite name of this suite.
const suiteSpill = "spill"

// spillDefaultRuns is -runs when not given: PostgreSQL's runs of the
// 50M-row cells take up to a minute each.
const spillDefaultRuns = 3

// spillCellBudget is how long a cell's timed runs may take in the slower
// engine: spillRuns gives a cell fewer than -runs where its analyzed
// run says they would take longer.
const spillCellBudget = 20 * time.Second

// spillChunk is the most rows one INSERT of the load adds.
const spillChunk = 10_000_000

// cancelTarget is the bound on the cancel delay; cancelGuard
// how long after the cancel a query is waited for.
const (
	cancelTarget = 100 * time.Millisecond
	cancelGuard  = 30 * time.Second
)

// spillOptions are the spill suite's own flags.
type spillOptions struct {
	rowsList    string
	workMemList string
	cancelAfter time.Duration
	rows        []int
	workMems    []string
}

func addSpillFlags(fs *flag.FlagSet, so *spillOptions) {
	fs.StringVar(&so.rowsList, "spillrows", "10000000,50000000", "spill suite: rows of s, comma-separated (the issue's full run: 10000000,50000000,200000000)")
	fs.StringVar(&so.workMemList, "workmem", "4MB,64MB", "spill suite: work_mem settings, comma-separated")
	fs.DurationVar(&so.cancelAfter, "cancelafter", 500*time.Millisecond, "spill suite: how long the cancel table's queries run before they are cancelled")
}

// check validates the spill flags once they are parsed; fs tells whether
// -runs was given (else it is spillDefaultRuns).
func (so *spillOptions) check(opts *options, fs *flag.FlagSet) error {
	runsSet := false
	fs.Visit(func(f *flag.Flag) { runsSet = runsSet || f.Name == "runs" })
	if !runsSet {
		opts.runs = spillDefaultRuns
	}
	if opts.pgDSN != "" {
		return fmt.Errorf("-pgdsn is not used by the spill suite, which reads its throwaway cluster's backends' memory in /proc")
	}
	rows, err := parseSpillRows(so.rowsList)
	if err != nil {
		return fmt.Errorf("-spillrows: %v", err)
	}
	so.rows = rows
	if so.workMems, err = parseWorkMems(so.workMemList); err != nil {
		return fmt.Errorf("-workmem: %v", err)
	}
	if so.cancelAfter <= 0 {
		return fmt.Errorf("-cancelafter must be positive")
	}
	return nil
}

// spillMaxRows is the most rows of s: i*K, below N squared, must fit in
// a bigint.
const spillMaxRows = 2_000_000_000

// parseSpillRows parses -spillrows: row counts from 10 (one group) up.
func parseSpillRows(list string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(strings.ReplaceAll(f, "_", ""))
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 10 || n > spillMaxRows {
			return nil, fmt.Errorf("%q is not a row count between 10 and %d", f, spillMaxRows)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no row count in %q", list)
	}
	return out, nil
}

// parseWorkMems parses -workmem: sizes as SET work_mem takes them, a
// number and a unit (kB, MB, GB).
func parseWorkMems(list string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		num := strings.TrimRight(f, "kMGB")
		unit := f[len(num):]
		if _, err := strconv.Atoi(num); err != nil || !slices.Contains([]string{"kB", "MB", "GB"}, unit) {
			return nil, fmt.Errorf("%q is not a size such as 4MB", f)
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no size in %q", list)
	}
	return out, nil
}

// spillData describes s for one row count.
type spillData struct {
	n      int
	k      int64
	groups int
}

func newSpillData(n int) spillData {
	return spillData{n: n, k: newDataset(n, false).k, groups: n / 10}
}

func (d spillData) describe() string {
	return fmt.Sprintf("s(k bigint, g bigint): k = i * %d %% %d (a permutation of i), g = k %% %d", d.k, d.n, d.groups)
}

// loadSQL creates and fills s, in chunks.
func (d spillData) loadSQL() []string {
	stmts := []string{"CREATE TABLE s (k bigint, g bigint)"}
	for lo := 0; lo < d.n; lo += spillChunk {
		hi := min(lo+spillChunk, d.n) - 1
		stmts = append(stmts, fmt.Sprintf("INSERT INTO s SELECT i * %d %% %d, i * %d %% %d %% %d FROM generate_series(%d::bigint, %d::bigint) AS i",
			d.k, d.n, d.k, d.n, d.groups, lo, hi))
	}
	return stmts
}

// spillWorkload is one query of the suite.
type spillWorkload struct {
	name  string
	title string
	sql   func(d spillData) string
	want  func(d spillData) string
	// node is the operator that must spill: Sort or HashAggregate.
	node string
}

const (
	spillSort     = "sort"
	spillGroupBy  = "groupby"
	spillDistinct = "distinct"
	spillCancel   = "cancel"
	spillNames    = "sort, groupby, distinct, cancel"
)

var spillWorkloads = []spillWorkload{
	{name: spillSort, title: "ORDER BY k DESC OFFSET N-1", node: "Sort",
		sql:  func(d spillData) string { return fmt.Sprintf("SELECT k FROM s ORDER BY k DESC OFFSET %d", d.n-1) },
		want: func(spillData) string { return "0" }},
	{name: spillGroupBy, title: "GROUP BY g (N/10 groups)", node: "HashAggregate",
		sql: func(spillData) string {
			return "SELECT count(*), sum(c), sum(t) FROM (SELECT g, count(*) AS c, sum(k) AS t FROM s GROUP BY g) x"
		},
		want: func(d spillData) string {
			return fmt.Sprintf("%d %d %d", d.groups, d.n, int64(d.n)*int64(d.n-1)/2)
		}},
	{name: spillDistinct, title: "DISTINCT g (N/10 values)", node: "HashAggregate",
		sql:  func(spillData) string { return "SELECT count(*) FROM (SELECT DISTINCT g FROM s) x" },
		want: func(d spillData) string { return strconv.Itoa(d.groups) }},
}

// cancelWorkload is one long operator of the cancel table.
type cancelWorkload struct {
	name  string
	title string
	sql   func(d spillData) string
}

// cancelInList is the IN list's length, as in the issue.
const cancelInList = 100_000

var cancelWorkloads = []cancelWorkload{
	{name: "sort", title: "sort of s", sql: spillWorkloads[0].sql},
	{name: "groupby", title: "hash aggregate of s", sql: spillWorkloads[1].sql},
	{name: "distinct", title: "DISTINCT over s", sql: spillWorkloads[2].sql},
	{name: "series-sort", title: "generate_series into a sort", sql: func(spillData) string {
		return "SELECT g FROM generate_series(1, 100000000) g ORDER BY g DESC OFFSET 99999999"
	}},
	{name: "numeric-sort", title: "wide numeric generate_series into a sort", sql: func(spillData) string {
		return "SELECT g FROM generate_series(1e40, 1e40 + 50000000) g ORDER BY g DESC OFFSET 50000000"
	}},
	{name: "copy", title: "COPY FROM '/dev/zero'", sql: func(spillData) string { return "COPY spill_copy FROM '/dev/zero'" }},
	{name: "like", title: "LIKE over 100M rows", sql: func(spillData) string {
		return "SELECT count(*) FROM generate_series(1, 100000000) g WHERE repeat('a', 40) || g::text LIKE '%a%a%a%a%a%a%a%a%a%a%ab'"
	}},
	{name: "inlist", title: fmt.Sprintf("IN list of %d constants over 100M rows", cancelInList), sql: func(spillData) string {
		var b strings.Builder
		b.WriteString("SELECT count(*) FROM generate_series(1, 100000000) g WHERE g IN (")
		for i := range cancelInList {
			if i > 0 {
				b.WriteString(", ")
			}
			// None of them is in the series: every row is looked up.
			b.WriteString(strconv.Itoa(200_000_000 + 7*i))
		}
		b.WriteString(")")
		return b.String()
	}},
}

// cancelWorkMem is the cancel table's work_mem in both engines.
const cancelWorkMem = "4MB"

// cancelTable is the table the COPY of the cancel table fills.
const cancelTable = "CREATE TABLE spill_copy (t text)"

func selectSpill(opts options) (ws []spillWorkload, cancel bool) {
	for _, w := range spillWorkloads {
		if opts.only.MatchString(w.name) {
			ws = append(ws, w)
		}
	}
	return ws, opts.only.MatchString(spillCancel)
}

// spillFixture is what the suite runs against: PostgreSQL, and pgfed's
// child for the current s.
type spillFixture struct {
	pg    *spillPostgres
	child *spillChild
	cfg   spillChildConfig // the child's, to start it again
	data  spillData
	logf  func(string, ...any)
}

// restartChild ends the child, if any, and starts a new one loading
// fx.cfg.
func (fx *spillFixture) restartChild(ctx context.Context) (childReply, error) {
	fx.child.close()
	fx.child = nil
	c, err := startSpillChild(ctx, fx.cfg)
	if err != nil {
		return childReply{}, fmt.Errorf("pgfed: %w", err)
	}
	fx.child = c
	return c.ready, nil
}

// runSpill starts PostgreSQL, and for each row count loads s in both
// engines and measures every query at every work_mem; then the cancel
// table over the last s. Progress goes to logw.
func runSpill(ctx context.Context, opts options, logw io.Writer) (*spillReport, error) {
	logf := func(format string, args ...any) { fmt.Fprintf(logw, "pgfedbench: "+format+"\n", args...) }
	so := opts.spill
	ws, cancel := selectSpill(opts)
	if len(ws) == 0 && !cancel {
		return nil, fmt.Errorf("-only %q matches no spill workload (the names are %s)", opts.only, spillNames)
	}
	rep := &spillReport{
		Suite:         suiteSpill,
		Runs:          opts.runs,
		WorkMems:      so.workMems,
		CancelAfterMS: ms(so.cancelAfter),
		GoVersion:     runtime.Version(),
		Platform:      runtime.GOOS + "/" + runtime.GOARCH,
		CPUs:          runtime.NumCPU(),
		GOMAXPROCS:    runtime.GOMAXPROCS(0),
		LoadAvgStart:  loadAverage(),
		Memory:        spillMemoryNotes,
	}
	defer func() { rep.LoadAvgEnd = loadAverage() }()
	rows := so.rows
	if len(ws) == 0 {
		// The cancel table alone needs only the last s.
		rows = rows[len(rows)-1:]
	}
	rep.Rows = rows

	logf("starting PostgreSQL")
	pg, err := startSpillPostgres(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL: %w", err)
	}
	defer pg.close()
	rep.Settings = pg.settings
	fx := &spillFixture{pg: pg, logf: logf}
	defer func() { fx.child.close() }()

	for _, n := range rows {
		fx.data = newSpillData(n)
		l, err := fx.load(ctx)
		if err != nil {
			return nil, err
		}
		rep.Loads = append(rep.Loads, l)
		if rep.PGFedSettings == nil {
			rep.PGFedSettings = fx.fedSettings(ctx)
		}
		for _, w := range ws {
			for _, wm := range so.workMems {
				line, errs := fx.runCell(ctx, opts, w, wm)
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				rep.Lines = append(rep.Lines, line)
				rep.Errors = append(rep.Errors, errs...)
			}
		}
	}
	if cancel {
		lines, errs := fx.runCancels(ctx, so.cancelAfter)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rep.CancelRows = fx.data.n
		rep.Cancels = lines
		rep.Errors = append(rep.Errors, errs...)
	}
	return rep, nil
}

// load fills s with fx.data in PostgreSQL (replacing the last s), then
// starts a child loading the same.
func (fx *spillFixture) load(ctx context.Context) (spillLoad, error) {
	d := fx.data
	l := spillLoad{Rows: d.n, Data: d.describe()}
	fx.logf("loading %d rows into PostgreSQL", d.n)
	stmts := append([]string{"DROP TABLE IF EXISTS s"}, d.loadSQL()...)
	dur, err := execAll(ctx, pgxExec(fx.pg.admin), stmts)
	if err != nil {
		return l, fmt.Errorf("PostgreSQL: %w", err)
	}
	l.PostgresMS = ms(dur)
	if dur, err = execAll(ctx, pgxExec(fx.pg.admin), []string{"VACUUM ANALYZE s"}); err != nil {
		return l, fmt.Errorf("PostgreSQL: %w", err)
	}
	l.VacuumMS = ms(dur)
	if err := fx.pg.admin.QueryRow(ctx, "SELECT pg_table_size('s') / 1024").Scan(&l.PostgresTableKB); err != nil {
		return l, fmt.Errorf("PostgreSQL: %w", err)
	}

	fx.logf("loading %d rows into pgfed (a child process)", d.n)
	fx.cfg = spillChildConfig{Setup: spillSessionSQL("", false), Load: d.loadSQL(), FileDirs: []string{"/dev"}}
	ready, err := fx.restartChild(ctx)
	if err != nil {
		return l, err
	}
	l.PGFedMS = ready.LoadMS
	l.PGFedBefore, l.PGFedAfter = ready.Before, ready.After
	fx.logf("loaded %d rows: pgfed %.0f ms (RSS %s -> %s MB); PostgreSQL %.0f ms + VACUUM ANALYZE %.0f ms (table %s MB)",
		d.n, l.PGFedMS, mb(ready.Before.VmRSS), mb(ready.After.VmRSS), l.PostgresMS, l.VacuumMS, mb(l.PostgresTableKB))
	return l, nil
}

// fedSettings are pgfed's defaults of the settings that bear on the
// suite, or why it has none.
func (fx *spillFixture) fedSettings(ctx context.Context) map[string]string {
	out := map[string]string{}
	for _, name := range []string{"work_mem", "hash_mem_multiplier", "max_parallel_workers_per_gather"} {
		lines, err := fx.child.lines(ctx, "SHOW "+name)
		switch {
		case err != nil:
			out[name] = "error: " + firstLine(err.Error())
		case len(lines) == 1:
			out[name] = lines[0]
		}
	}
	return out
}

// runCell measures w over the current s at work_mem wm in both engines.
func (fx *spillFixture) runCell(ctx context.Context, opts options, w spillWorkload, wm string) (spillLine, []workloadError) {
	d := fx.data
	sql, want := w.sql(d), w.want(d)
	line := spillLine{Workload: w.name, Title: w.title, SQL: sql, Rows: d.n, WorkMem: wm, Node: w.node, Answer: want}
	label := fmt.Sprintf("%d rows, work_mem %s", d.n, wm)
	var errs []workloadError
	fail := func(engine string, err error) {
		errs = append(errs, workloadError{Workload: w.name, Contender: engine + ", " + label, SQL: sql, Error: describeError(err)})
		fx.logf("%s, %s: %s failed: %v", w.name, label, engine, err)
	}

	// pgfed: its settings, a fresh peak.
	fed := fx.child
	if fed == nil || fed.dead {
		if _, err := fx.restartChild(ctx); err != nil {
			fail(enginePGFed, err)
		}
		fed = fx.child
	}
	fedOK := fed != nil && !fed.dead
	var fedStart procMemory
	if fedOK {
		r, err := fed.do(ctx, childRequest{Op: "reset_peak"})
		if err == nil {
			err = fed.exec(ctx, fmt.Sprintf("SET work_mem = '%s'", wm))
		}
		if err != nil {
			fail(enginePGFed, err)
			fedOK = false
		} else {
			fedStart = *r.Mem
			if !r.PeakReset {
				line.PGFedNote = "VmHWM not resettable: a fresh process per cell"
			}
		}
	}

	// PostgreSQL: a fresh backend, the plan checked.
	conn, err := fx.pg.connect(ctx, wm)
	if err != nil {
		fail(enginePostgres, err)
	}
	pgOK := err == nil
	var pid string
	var pgStart procMemory
	var sampler *memSampler
	if pgOK {
		defer conn.Close(context.WithoutCancel(ctx))
		pid = strconv.Itoa(int(conn.PgConn().PID()))
		if note, err := fx.checkPostgresPlan(ctx, conn, w, sql); err != nil {
			fail(enginePostgres, err)
			pgOK = false
		} else {
			line.PostgresNote = note
		}
	}
	if pgOK {
		if pgStart, err = readProcMemory(pid); err != nil {
			line.PostgresNote = joinNotes(line.PostgresNote, "no memory: "+err.Error())
		} else {
			sampler = startMemSampler(pid)
		}
	}

	// The analyzed run: the warm-up, and the details.
	explain := "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " + sql
	var longest time.Duration
	if fedOK {
		start := time.Now()
		plan, err := fed.lines(ctx, explain)
		longest = max(longest, time.Since(start))
		if err != nil {
			fail(enginePGFed, err)
			fedOK = false
		}
		line.PGFedPlan = plan
		line.PGFedNodes, line.PGFedDetails = planDetails(plan)
	}
	if pgOK {
		start := time.Now()
		plan, err := pgxLines(ctx, conn, explain)
		longest = max(longest, time.Since(start))
		if err != nil {
			fail(enginePostgres, err)
			pgOK = false
		}
		line.PostgresPlan = plan
		line.PostgresNodes, line.PostgresDetails = planDetails(plan)
	}
	line.Runs = spillRuns(opts.runs, longest)

	// The timed rounds, taking turns.
	type engineRun struct {
		name string
		ok   *bool
		run  func() (time.Duration, string, error)
		ds   []time.Duration
	}
	engines := []*engineRun{
		{name: enginePGFed, ok: &fedOK, run: func() (time.Duration, string, error) {
			r, err := fed.do(ctx, childRequest{Op: "run", SQL: sql})
			return time.Duration(r.MS * float64(time.Millisecond)), r.First, err
		}},
		{name: enginePostgres, ok: &pgOK, run: func() (time.Duration, string, error) {
			runtime.GC()
			start := time.Now()
			_, first, err := pgRead(ctx, conn, sql)
			return time.Since(start), first, err
		}},
	}
	for round := range line.Runs {
		order := slices.Clone(engines)
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, e := range order {
			if !*e.ok {
				continue
			}
			d, got, err := e.run()
			if err == nil && got != want {
				err = fmt.Errorf("answer %q, want %q", got, want)
			}
			if err != nil {
				fail(e.name, err)
				*e.ok = false
				continue
			}
			e.ds = append(e.ds, d)
		}
		if ctx.Err() != nil {
			return line, errs
		}
	}

	// The peaks.
	if fedOK {
		r, err := fed.do(ctx, childRequest{Op: "memory"})
		if err != nil {
			fail(enginePGFed, err)
		} else {
			line.PGFedMemory = &fedMemory{StartRSSKB: fedStart.VmRSS, PeakKB: r.Mem.VmHWM, ExtraKB: r.Mem.VmHWM - fedStart.VmRSS}
		}
		if line.PGFedNote != "" {
			// The peak of a later cell would include this one's.
			fed.close()
		}
	}
	if sampler != nil {
		peak, samples, serr := sampler.finish()
		end, err := readProcMemory(pid)
		switch {
		case err != nil:
			line.PostgresNote = joinNotes(line.PostgresNote, "no memory at the end: "+err.Error())
		case serr != nil:
			line.PostgresNote = joinNotes(line.PostgresNote, "memory sampling stopped: "+serr.Error())
			fallthrough
		default:
			peak.RssAnon = max(peak.RssAnon, end.RssAnon)
			peak.RssShmem = max(peak.RssShmem, end.RssShmem)
			line.PostgresMemory = &pgMemory{
				StartRSSKB: pgStart.VmRSS, HWMKB: end.VmHWM, HWMExtraKB: end.VmHWM - pgStart.VmRSS,
				StartAnonKB: pgStart.RssAnon, PeakAnonKB: peak.RssAnon, ExtraAnonKB: peak.RssAnon - pgStart.RssAnon,
				PeakShmemKB: peak.RssShmem, Samples: samples,
			}
		}
	}

	for _, e := range engines {
		if len(e.ds) == 0 || !*e.ok {
			continue
		}
		t := newTiming(e.ds)
		if e.name == enginePGFed {
			line.PGFed = &t
		} else {
			line.Postgres = &t
		}
	}
	if line.PGFed != nil && line.Postgres != nil && line.PGFed.MedianMS > 0 {
		line.Ratio = line.Postgres.MedianMS / line.PGFed.MedianMS
	}
	fx.logf("%s, %s: pgfed %s ms, peak %s MB; PostgreSQL %s ms, peak %s MB",
		w.name, label, spillTimeCell(line.PGFed), fedPeakCell(line.PGFedMemory), spillTimeCell(line.Postgres), pgPeakCell(line.PostgresMemory))
	return line, errs
}

// spillRuns is how many timed runs a cell gets: runs, fewer where the
// analyzed run of the slower engine says they would take more than
// spillCellBudget, at least one.
func spillRuns(runs int, analyzed time.Duration) int {
	if analyzed <= 0 {
		return runs
	}
	return max(1, min(runs, int(spillCellBudget/analyzed)))
}

// checkPostgresPlan makes sure PostgreSQL runs w with w's operator: a
// HashAggregate where it would sort (GroupAggregate, Unique), by
// enable_sort = off. The note says what was changed.
func (fx *spillFixture) checkPostgresPlan(ctx context.Context, conn *pgx.Conn, w spillWorkload, sql string) (string, error) {
	hasNode := func() (bool, error) {
		plan, err := pgxLines(ctx, conn, "EXPLAIN (COSTS OFF) "+sql)
		if err != nil {
			return false, err
		}
		nodes, _ := planDetails(plan)
		return slices.Contains(nodes, w.node), nil
	}
	ok, err := hasNode()
	if err != nil || ok {
		return "", err
	}
	if err := pgxExec(conn)(ctx, "SET enable_sort = off"); err != nil {
		return "", err
	}
	if ok, err = hasNode(); err != nil {
		return "", err
	}
	if !ok {
		return fmt.Sprintf("no %s even with enable_sort = off", w.node), nil
	}
	return fmt.Sprintf("enable_sort = off (PostgreSQL's plan sorted instead of a %s)", w.node), nil
}

// planDetailKeys mark the lines of a plan node that say how much memory
// and disk it used.
var planDetailKeys = []string{"Sort Method", "Batches:", "Memory Usage", "Disk Usage", "Planned Partitions", "Peak Memory"}

// planDetails returns the nodes of a text EXPLAIN, top down, and their
// memory and disk lines, each prefixed by its node's name.
func planDetails(plan []string) (nodes, details []string) {
	node := ""
	for i, line := range plan {
		t := strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(t, "->"); ok || i == 0 {
			name := strings.TrimSpace(rest)
			if i == 0 && !ok {
				name = t
			}
			if j := strings.Index(name, " ("); j >= 0 {
				name = name[:j]
			}
			node = name
			nodes = append(nodes, name)
			continue
		}
		for _, k := range planDetailKeys {
			if strings.Contains(t, k) {
				details = append(details, node+": "+t)
				break
			}
		}
	}
	return nodes, details
}

func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// runCancels runs the cancel table: each long operator, in each engine,
// stopped each way.
func (fx *spillFixture) runCancels(ctx context.Context, after time.Duration) ([]cancelLine, []workloadError) {
	var lines []cancelLine
	var errs []workloadError
	fail := func(w cancelWorkload, engine string, err error) {
		errs = append(errs, workloadError{Workload: "cancel " + w.name, Contender: engine, Error: describeError(err)})
		fx.logf("cancel %s: %s failed: %v", w.name, engine, err)
	}
	fedTable := false
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			_ = conn.Close(context.WithoutCancel(ctx))
		}
	}()
	if _, err := execAll(ctx, pgxExec(fx.pg.admin), []string{"DROP TABLE IF EXISTS spill_copy", cancelTable}); err != nil {
		fail(cancelWorkloads[0], enginePostgres, err)
	}
	for _, w := range cancelWorkloads {
		sql := w.sql(fx.data)
		l := cancelLine{Name: w.name, Title: w.title, SQL: sql}
		if len(sql) > 200 {
			l.SQL = sql[:150] + fmt.Sprintf("... (%d bytes)", len(sql))
		}
		for _, mode := range []string{cancelByContext, cancelByTimeout} {
			// pgfed, in its child: killed if the query does not return.
			if fx.child == nil || fx.child.dead {
				if _, err := fx.restartChild(ctx); err != nil {
					fail(w, enginePGFed, err)
				}
				fedTable = false
			}
			if fx.child != nil && !fx.child.dead && !fedTable {
				// The cells left their work_mem behind.
				if _, err := execAll(ctx, fx.child.exec, []string{cancelTable, "SET work_mem = '" + cancelWorkMem + "'"}); err != nil {
					fail(w, enginePGFed, err)
				}
				fedTable = true
			}
			if fx.child != nil && !fx.child.dead {
				r, err := fx.child.call(ctx, childRequest{Op: "cancel", SQL: sql, Mode: mode, AfterMS: ms(after)}, after+cancelGuard)
				switch {
				case errors.Is(err, errChildGone) && ctx.Err() == nil:
					l.set(enginePGFed, mode, &cancelResult{Mode: mode, Killed: true, ElapsedMS: ms(after + cancelGuard), Error: err.Error()})
				case err != nil:
					fail(w, enginePGFed, err)
				default:
					l.set(enginePGFed, mode, r.Cancel)
				}
			}
			if ctx.Err() != nil {
				return lines, errs
			}

			// PostgreSQL, on a connection opened again after a hard stop.
			if conn == nil {
				c, err := fx.pg.connect(ctx, cancelWorkMem)
				if err != nil {
					fail(w, enginePostgres, err)
					continue
				}
				conn = c
			}
			res, err := postgresCancel(ctx, conn, sql, mode, after)
			if err != nil {
				fail(w, enginePostgres, err)
			}
			if res != nil {
				l.set(enginePostgres, mode, res)
				if res.Killed {
					// pgx closed the connection; its backend may run on
					// until it next writes to the client.
					pid := conn.PgConn().PID()
					_ = conn.Close(context.WithoutCancel(ctx))
					conn = nil
					_ = pgxExec(fx.pg.admin)(ctx, fmt.Sprintf("SELECT pg_terminate_backend(%d)", pid))
				}
			}
			if ctx.Err() != nil {
				return lines, errs
			}
		}
		l.judge()
		fx.logf("cancel %s: pgfed %s / %s; PostgreSQL %s / %s", w.name,
			cancelCell(l.PGFedCancel), cancelCell(l.PGFedTimeout), cancelCell(l.PostgresCancel), cancelCell(l.PostgresTimeout))
		lines = append(lines, l)
	}
	return lines, errs
}

// postgresCancel runs sql on conn and stops it after after: by a cancel
// request, or by statement_timeout. A query still running cancelGuard
// later is abandoned: pgx closes the connection (Killed).
func postgresCancel(ctx context.Context, conn *pgx.Conn, sql, mode string, after time.Duration) (*cancelResult, error) {
	res := &cancelResult{Mode: mode}
	exec := pgxExec(conn)
	if mode == cancelByTimeout {
		if err := exec(ctx, fmt.Sprintf("SET statement_timeout = %d", after.Milliseconds())); err != nil {
			return nil, err
		}
	}
	qctx, stop := context.WithTimeout(ctx, after+cancelGuard)
	defer stop()
	at := make(chan time.Time, 1)
	var timer *time.Timer
	if mode == cancelByContext {
		timer = time.AfterFunc(after, func() {
			at <- time.Now()
			_ = conn.PgConn().CancelRequest(context.WithoutCancel(ctx))
		})
	}
	start := time.Now()
	_, _, err := pgRead(qctx, conn, sql)
	end := time.Now()
	var cancelledAt time.Time
	if mode == cancelByContext {
		if timer.Stop() {
			// Never fired.
		} else {
			cancelledAt = <-at
		}
	} else {
		cancelledAt = start.Add(after)
	}
	code := ""
	if pe := pgError(err); pe != nil {
		code = pe.Code
	}
	res.fill(start, cancelledAt, end, err, code)
	if qctx.Err() != nil && ctx.Err() == nil {
		res.Killed = true
		return res, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if mode == cancelByTimeout {
		if err := exec(ctx, "SET statement_timeout = 0"); err != nil {
			return res, err
		}
	}
	if mode == cancelByContext && res.Completed {
		// A cancel request that arrives after the query's end may stop
		// the next statement; let it land on an idle connection.
		time.Sleep(10 * time.Millisecond)
	}
	return res, nil
}

// fedMemory is pgfed's memory over a cell, in kB: its child's VmRSS at
// the start (the data and the runtime), its VmHWM at the end, and the
// difference, the query's own peak.
type fedMemory struct {
	StartRSSKB int64 `json:"start_rss_kb"`
	PeakKB     int64 `json:"vm_hwm_kb"`
	ExtraKB    int64 `json:"query_peak_kb"`
}

// pgMemory is PostgreSQL's backend's memory over a cell, in kB.
type pgMemory struct {
	StartRSSKB int64 `json:"start_rss_kb"`
	HWMKB      int64 `json:"vm_hwm_kb"`
	// HWMExtraKB is VmHWM at the end minus VmRSS at the start: shared
	// buffers touched included.
	HWMExtraKB  int64 `json:"vm_hwm_above_start_kb"`
	StartAnonKB int64 `json:"start_rss_anon_kb"`
	PeakAnonKB  int64 `json:"peak_rss_anon_kb"`
	// ExtraAnonKB is the query's own peak: sampled RssAnon above the
	// start.
	ExtraAnonKB int64 `json:"query_peak_kb"`
	PeakShmemKB int64 `json:"peak_rss_shmem_kb"`
	Samples     int   `json:"samples"`
}
