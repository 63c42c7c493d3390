package main

// The parallel suite (-suite parallel) measures parallel query: Gather
// over a Parallel Seq Scan, with partial aggregates below it or many
// tuples through it, and Gather Merge over parallel sorts, in pgfed and in
// PostgreSQL 15, at the same worker counts.
//
// The data is the local suite's table t(a integer, b integer) of -rows
// rows (10,000,000 by default), loaded in both engines with the same SQL
// (see workloads.go). The workloads, each at the worker counts given:
//
//	psum     SELECT sum(a) FROM t                  0, 1 and 2 workers
//	pfilter  SELECT a, b FROM t WHERE b % 10 = 0   0 workers, 1 worker with the
//	                                               leader not participating, 2 workers
//	psort    SELECT a, b FROM t ORDER BY a         0 and 2 workers (Gather Merge)
//
// Each worker count is a session of its own in each engine (a pgfed
// session, a pgx connection), which SETs max_parallel_workers_per_gather
// to the count, parallel_setup_cost, parallel_tuple_cost and
// min_parallel_table_scan_size to 0 (so that size and cost never keep a
// plan serial) and, where said, parallel_leader_participation = off
// with debug_parallel_query = on (force_parallel_mode in PostgreSQL 15):
// PostgreSQL finds no one-worker parallel plan cheaper than the serial
// one when the leader does not participate, and then runs the serial plan
// under a single-copy Gather, the worker scanning and the leader only
// reading the queue (see parallelSetting.sets).
//
// PostgreSQL's t also gets ALTER TABLE t SET (parallel_workers = 2), so
// that its planner asks for exactly the session's count (the reloption
// is capped by max_parallel_workers_per_gather) rather than the count its
// size heuristic gives; the throwaway cluster keeps max_parallel_workers
// = 8 and max_worker_processes = 8, PostgreSQL's defaults.
//
// Before timing, every session's answer is checked against PostgreSQL's
// serial one (the row count and an order-insensitive hash of the rows,
// and for psort that a never decreases: rows with equal a may come in any
// order), and its plan is taken: EXPLAIN (COSTS OFF), printed once per
// engine, workload and worker count, must show no Gather at 0 workers and
// else the workload's node (Gather, or Gather Merge for psort) with
// "Workers Planned: N"; EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY
// OFF) gives "Workers Launched", which must reach N. A wrong answer skips
// the workload's timing, and is reported; a plan that is not the expected
// one is reported as a failed check.
//
// Then all the sessions of one workload are timed in alternation, pgfed
// and PostgreSQL taking turns at every worker count (measure, as in the
// local suite): pgfed read in Arrow batches, PostgreSQL's wire bytes read
// undecoded through pgx. Targets, on median times:
//
//	psum      0 workers / 2 workers >= 1.8 in pgfed
//	pfilter   1 worker, leader not participating / 0 workers <= 1.10 in
//	          pgfed: the tuple queue's whole cost within 10% of the serial plan
//	all       pgfed faster than PostgreSQL at the same worker count
//
// A psum or pfilter target measured on pgfed plans other than the
// expected ones fails whatever its ratio.

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// suiteParallel is the -suite name of this suite.
const suiteParallel = "parallel"

// parallelSetting is a session's parallel query setting: how many workers
// a Gather may have, and whether the leader runs the plan as well.
type parallelSetting struct {
	workers   int
	leaderOff bool
}

var (
	parallelSerial    = parallelSetting{workers: 0}
	parallelOne       = parallelSetting{workers: 1}
	parallelOneNoLead = parallelSetting{workers: 1, leaderOff: true}
	parallelTwo       = parallelSetting{workers: 2}
)

// parallelMaxWorkers is PostgreSQL's parallel_workers reloption on t: the
// most workers any setting asks for.
const parallelMaxWorkers = 2

func (p parallelSetting) String() string {
	s := fmt.Sprintf("%d workers", p.workers)
	if p.workers == 1 {
		s = "1 worker"
	}
	if p.leaderOff {
		s += ", leader off"
	}
	return s
}

// short is the setting in the table's workers column.
func (p parallelSetting) short() string {
	s := strconv.Itoa(p.workers)
	if p.leaderOff {
		s += ", leader off"
	}
	return s
}

// key names the setting in file names: w0, w1, w1-leader-off, w2.
func (p parallelSetting) key() string {
	s := "w" + strconv.Itoa(p.workers)
	if p.leaderOff {
		s += "-leader-off"
	}
	return s
}

// Names of the setting that puts a Gather on top of a plan the planner
// left serial, the worker running the whole plan alone (Single Copy):
// PostgreSQL 15's force_parallel_mode, renamed debug_parallel_query in
// PostgreSQL 16, the name pgfed has.
const (
	pgForceParallel  = "force_parallel_mode"
	fedForceParallel = "debug_parallel_query"
)

// sets are the statements that give a session the setting, the same in
// both engines but for the name of forceParallel.
//
// With the leader not participating, a one-worker Parallel Seq Scan costs
// as much as a Seq Scan (the worker does all the work), and the Gather
// above it nothing more at parallel_tuple_cost = 0: PostgreSQL keeps the
// serial plan, which ties and came first. forceParallel = on then puts
// the single-copy Gather over it, the same data flow: one worker runs
// the scan, every tuple crosses the queue, the leader only reads it. A
// planner that does choose a parallel plan is not affected.
func (p parallelSetting) sets(forceParallel string) []string {
	s := []string{
		fmt.Sprintf("SET max_parallel_workers_per_gather = %d", p.workers),
		"SET parallel_setup_cost = 0",
		"SET parallel_tuple_cost = 0",
		"SET min_parallel_table_scan_size = 0",
	}
	if p.leaderOff {
		s = append(s, "SET parallel_leader_participation = off", "SET "+forceParallel+" = on")
	}
	return s
}

// parallelSessionSettings describes sets for the report.
const parallelSessionSettings = "max_parallel_workers_per_gather = N, parallel_setup_cost = 0, parallel_tuple_cost = 0, " +
	"min_parallel_table_scan_size = 0; with the leader off, parallel_leader_participation = off and " +
	fedForceParallel + " (PostgreSQL 15: " + pgForceParallel + ") = on"

// parallelWorkload is one query of the suite and the settings it runs at.
type parallelWorkload struct {
	name  string // what -only matches
	title string
	sql   string
	// gather is the node a parallel plan of the query must have: Gather,
	// or Gather Merge.
	gather string
	// sortedOnA says the query orders by a, which has ties: the answer
	// check wants a ascending and ignores the order within one a.
	sortedOnA bool
	settings  []parallelSetting // the first is serial, the reference
}

// Workload names, for -only and the targets.
const (
	parallelSum    = "psum"
	parallelFilter = "pfilter"
	parallelSort   = "psort"
	parallelNames  = "psum, pfilter, psort"
)

// Plan nodes the parallel plans must show.
const (
	nodeGather      = "Gather"
	nodeGatherMerge = "Gather Merge"
)

var parallelWorkloads = []parallelWorkload{
	{name: parallelSum, title: "partial aggregates under Gather", sql: "SELECT sum(a) FROM t", gather: nodeGather,
		settings: []parallelSetting{parallelSerial, parallelOne, parallelTwo}},
	{name: parallelFilter, title: "tuple-heavy Gather", sql: "SELECT a, b FROM t WHERE b % 10 = 0", gather: nodeGather,
		settings: []parallelSetting{parallelSerial, parallelOneNoLead, parallelTwo}},
	{name: parallelSort, title: "Gather Merge", sql: "SELECT a, b FROM t ORDER BY a", gather: nodeGatherMerge, sortedOnA: true,
		settings: []parallelSetting{parallelSerial, parallelTwo}},
}

// parallelSpeedupTarget is a target on pgfed's own times: the median at
// setting num over the one at den.
type parallelSpeedupTarget struct {
	workload string
	num, den parallelSetting
	atLeast  bool // the ratio must be >= target, else <= target
	target   float64
	why      string
}

var parallelSpeedupTargets = []parallelSpeedupTarget{
	{workload: parallelSum, num: parallelSerial, den: parallelTwo, atLeast: true, target: 1.8,
		why: "2 workers at least 1.8x faster than none"},
	{workload: parallelFilter, num: parallelOneNoLead, den: parallelSerial, target: 1.10,
		why: "the tuple queue's whole cost within 10% of the serial plan"},
}

func (t parallelSpeedupTarget) text() string {
	if t.atLeast {
		return fmt.Sprintf(">= %gx", t.target)
	}
	return fmt.Sprintf("<= %gx", t.target)
}

func (t parallelSpeedupTarget) pass(ratio float64) bool {
	if t.atLeast {
		return ratio >= t.target
	}
	return ratio <= t.target
}

// parallelVsPostgresTarget is the target of every line: pgfed faster than
// PostgreSQL at the same worker count, PG/pgfed above 1.
const parallelVsPostgresTarget = "> 1x"

// selectParallel returns the workloads -only picks.
func selectParallel(only *regexp.Regexp) []parallelWorkload {
	var ws []parallelWorkload
	for _, w := range parallelWorkloads {
		if only.MatchString(w.name) {
			ws = append(ws, w)
		}
	}
	return ws
}

// parallelSession is one setting's session in each engine.
type parallelSession struct {
	fed *pgfedEngine
	// pg is on a connection of its own: close that, never pg.close(),
	// which would drop the benchmark's schema.
	pg *postgresEngine
}

// runParallel starts PostgreSQL, loads t into both engines, opens a
// session per setting in each and runs the selected workloads. Progress
// goes to logw.
func runParallel(ctx context.Context, opts options, logw io.Writer) (*parallelReport, error) {
	logf := func(format string, args ...any) { fmt.Fprintf(logw, "pgfedbench: "+format+"\n", args...) }
	ws := selectParallel(opts.only)
	if len(ws) == 0 {
		return nil, fmt.Errorf("-only %q matches no parallel workload (the names are %s)", opts.only, parallelNames)
	}
	data := newDataset(opts.rows, opts.sequential)
	rep := &parallelReport{
		Suite:           suiteParallel,
		Rows:            opts.rows,
		Data:            data.describe(),
		Runs:            opts.runs,
		GoVersion:       runtime.Version(),
		Platform:        runtime.GOOS + "/" + runtime.GOARCH,
		CPUs:            runtime.NumCPU(),
		GOMAXPROCS:      runtime.GOMAXPROCS(0),
		LoadAvgStart:    loadAverage(),
		SessionSettings: parallelSessionSettings,
		TableSettings:   fmt.Sprintf("ALTER TABLE t SET (parallel_workers = %d)", parallelMaxWorkers),
	}
	defer func() { rep.LoadAvgEnd = loadAverage() }()
	rep.WakeMedianMs = ms(wakeLatency(101))

	logf("starting PostgreSQL")
	pg, err := startPostgres(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL: %w", err)
	}
	defer pg.close()
	rep.Settings = pg.settings
	// The main session's max_parallel_workers_per_gather (0) is not the
	// timed sessions'; theirs are the settings'.
	delete(rep.Settings, "max_parallel_workers_per_gather")
	for _, name := range []string{"max_parallel_workers", "max_worker_processes"} {
		var v string
		if err := pg.conn.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&v); err != nil {
			return nil, fmt.Errorf("PostgreSQL: %w", err)
		}
		rep.Settings[name] = v
	}
	rep.Postgres = "throwaway pgtest cluster on 127.0.0.1"
	if pg.cluster == nil {
		rep.Postgres = "server given by -pgdsn"
	}
	fed, err := openPgfed()
	if err != nil {
		return nil, fmt.Errorf("pgfed: %w", err)
	}
	defer fed.close()

	l, err := loadTable(ctx, fed, pg, "t", opts.rows, data.tableSQL())
	if err != nil {
		return nil, err
	}
	logf("loaded t (%d rows): pgfed %.0f ms, PostgreSQL %.0f ms + VACUUM ANALYZE %.0f ms", opts.rows, l.PGFedMS, l.PostgresMS, l.VacuumMS)
	rep.Loads = append(rep.Loads, l)
	if err := pg.exec(ctx, rep.TableSettings); err != nil {
		return nil, fmt.Errorf("PostgreSQL: %s: %w", rep.TableSettings, err)
	}

	sessions := map[parallelSetting]parallelSession{}
	defer func() {
		for _, s := range sessions {
			_ = s.pg.conn.Close(context.Background())
		}
	}()
	for _, w := range ws {
		for _, set := range w.settings {
			if _, ok := sessions[set]; ok {
				continue
			}
			s, err := openParallelSession(ctx, fed, pg.dsn, set)
			if err != nil {
				return nil, err
			}
			sessions[set] = s
		}
	}

	for _, w := range ws {
		lines, plans, errs := runParallelWorkload(ctx, opts, sessions, w, logf)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rep.Lines = append(rep.Lines, lines...)
		rep.Plans = append(rep.Plans, plans...)
		rep.Errors = append(rep.Errors, errs...)
	}
	rep.Speedups = parallelSpeedups(rep.Lines)
	for _, s := range rep.Speedups {
		logf("%s: pgfed %s / %s: %.2fx, target %s", s.Workload, s.Numerator, s.Denominator, s.Ratio, s.Target)
	}
	return rep, nil
}

// openParallelSession opens a pgfed session and a PostgreSQL connection
// with the setting.
func openParallelSession(ctx context.Context, fed *pgfedEngine, dsn string, set parallelSetting) (parallelSession, error) {
	s := parallelSession{fed: fed.newSession()}
	if _, err := execAll(ctx, s.fed.exec, set.sets(fedForceParallel)); err != nil {
		return s, fmt.Errorf("pgfed, %s: %w", set, err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return s, fmt.Errorf("PostgreSQL, %s: %w", set, err)
	}
	s.pg = pgxOn(conn)
	stmts := append([]string{"SET search_path = " + schemaName}, set.sets(pgForceParallel)...)
	if _, err := execAll(ctx, s.pg.exec, stmts); err != nil {
		_ = conn.Close(context.Background())
		return s, fmt.Errorf("PostgreSQL, %s: %w", set, err)
	}
	return s, nil
}

// parallelContender is one engine at one setting.
type parallelContender struct {
	engine  string // pgfed or PostgreSQL
	setting parallelSetting
	label   string
	read    reader
	eachRow func(ctx context.Context, sql string, fn func([]any)) error
	lines   func(ctx context.Context, sql string) ([]string, error)
}

// Engine names in the report.
const (
	enginePGFed    = "pgfed"
	enginePostgres = "PostgreSQL"
)

// parallelContenders returns w's contenders, pgfed then PostgreSQL at
// each setting in turn: the order they are timed in.
func parallelContenders(sessions map[parallelSetting]parallelSession, w parallelWorkload) []parallelContender {
	var cs []parallelContender
	for _, set := range w.settings {
		s := sessions[set]
		cs = append(cs,
			parallelContender{
				engine: enginePGFed, setting: set, label: enginePGFed + ", " + set.String(),
				read: s.fed.batches(w.sql), eachRow: s.fed.eachRow,
				lines: func(ctx context.Context, sql string) ([]string, error) { return fedLines(ctx, s.fed.s, sql) },
			},
			parallelContender{
				engine: enginePostgres, setting: set, label: enginePostgres + ", " + set.String(),
				read: s.pg.raw(w.sql), eachRow: s.pg.eachRow,
				lines: func(ctx context.Context, sql string) ([]string, error) { return pgxLines(ctx, s.pg.conn, sql) },
			})
	}
	return cs
}

// runParallelWorkload checks every contender's answer, takes their plans,
// and if the answers agree times them. It returns a line per setting,
// the plans and the failures.
func runParallelWorkload(ctx context.Context, opts options, sessions map[parallelSetting]parallelSession, w parallelWorkload, logf func(string, ...any)) ([]parallelLine, []parallelPlan, []workloadError) {
	cs := parallelContenders(sessions, w)
	var errs []workloadError
	fail := func(c parallelContender, sql, msg string) {
		errs = append(errs, workloadError{Workload: w.name, Contender: c.label, SQL: sql, Error: msg})
		logf("%s: %s: %s", w.name, c.label, msg)
	}

	// The answers, against PostgreSQL's serial one (cs[1]).
	ref := cs[1]
	want := newParallelAnswer(w.sortedOnA)
	if err := ref.eachRow(ctx, w.sql, want.add); err != nil {
		fail(ref, w.sql, describeError(err))
		return nil, nil, errs
	}
	if want.Unsorted > 0 {
		fail(ref, w.sql, fmt.Sprintf("the reference answer has %d rows out of order on a", want.Unsorted))
		return nil, nil, errs
	}
	for i, c := range cs {
		if i == 1 {
			continue
		}
		a := newParallelAnswer(w.sortedOnA)
		if err := c.eachRow(ctx, w.sql, a.add); err != nil {
			fail(c, w.sql, describeError(err))
			continue
		}
		if d := a.differs(want); d != "" {
			fail(c, w.sql, "answer differs from PostgreSQL's with 0 workers: "+d)
		}
	}
	if ctx.Err() != nil {
		return nil, nil, errs
	}

	// The plans, once per contender.
	var plans []parallelPlan
	for _, c := range cs {
		p := takeParallelPlan(ctx, c, w)
		plans = append(plans, p)
		if p.Problem != "" {
			logf("%s: %s: plan: %s", w.name, c.label, p.Problem)
		}
	}
	if len(errs) > 0 {
		logf("%s: not timed: wrong or failed answers", w.name)
		return nil, plans, errs
	}

	mcs := make([]contender, len(cs))
	for i, c := range cs {
		mcs[i] = contender{label: c.label, read: c.read}
	}
	timings, rows, err := measure(ctx, opts.runs, mcs)
	if err != nil {
		return nil, plans, append(errs, workloadError{Workload: w.name, SQL: w.sql, Error: describeError(err)})
	}

	var lines []parallelLine
	for i := 0; i < len(cs); i += 2 {
		set := cs[i].setting
		line := parallelLine{
			Workload:            w.name,
			Title:               w.title,
			SQL:                 w.sql,
			Setting:             set.String(),
			Workers:             set.workers,
			LeaderParticipation: !set.leaderOff,
			Rows:                rows,
			PGFed:               side{pgfedBatches, timings[i]},
			Postgres:            side{pgRaw, timings[i+1]},
			PGFedPlan:           plans[i].planShape,
			PostgresPlan:        plans[i+1].planShape,
			PGFedPlanProblem:    plans[i].Problem,
			PostgresPlanProblem: plans[i+1].Problem,
			Target:              parallelVsPostgresTarget,
		}
		line.Ratio = line.Postgres.MedianMS / line.PGFed.MedianMS
		pass := line.Ratio > 1
		line.Pass = &pass
		logf("%s, %s: pgfed %.1f ms, PostgreSQL %.1f ms (medians), PG/pgfed %.2fx", w.name, set, line.PGFed.MedianMS, line.Postgres.MedianMS, line.Ratio)
		lines = append(lines, line)
	}

	if opts.cpuProfile != "" {
		for _, c := range cs {
			if c.engine != enginePGFed {
				continue
			}
			path := opts.cpuProfile + "." + w.name + "-" + c.setting.key() + ".pprof"
			if err := profile(ctx, path, opts.runs, c.read); err != nil {
				return lines, plans, append(errs, workloadError{Workload: w.name, Contender: c.label, SQL: w.sql, Error: "profile: " + describeError(err)})
			}
			logf("wrote %s", path)
		}
	}
	return lines, plans, errs
}

// Plans are taken with these: the shape, and the workers launched.
const (
	parallelExplain        = "EXPLAIN (COSTS OFF) "
	parallelExplainAnalyze = "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) "
)

// takeParallelPlan explains w in c's session and checks the plan.
func takeParallelPlan(ctx context.Context, c parallelContender, w parallelWorkload) parallelPlan {
	p := parallelPlan{Workload: w.name, Engine: c.engine, Setting: c.setting.String(), SQL: w.sql}
	lines, err := c.lines(ctx, parallelExplain+w.sql)
	p.Plan = planText(lines, err)
	if err != nil {
		p.Problem = "EXPLAIN failed: " + describeError(err)
		return p
	}
	p.planShape = parsePlanShape(lines)
	analyzed, err := c.lines(ctx, parallelExplainAnalyze+w.sql)
	if err != nil {
		p.Problem = "EXPLAIN ANALYZE failed: " + describeError(err)
		return p
	}
	p.Launched = parsePlanShape(analyzed).Launched
	p.Problem = planShapeProblem(p.planShape, w.gather, c.setting.workers)
	return p
}

// planShape is what a plan says of its parallelism.
type planShape struct {
	// Node is the topmost Gather or Gather Merge, "" when there is none
	// (a serial plan).
	Node string `json:"gather_node,omitempty"`
	// Planned is that node's Workers Planned.
	Planned int `json:"workers_planned"`
	// Launched is its Workers Launched, from EXPLAIN ANALYZE; nil when
	// not known.
	Launched *int `json:"workers_launched,omitempty"`
	// SingleCopy is a Gather whose one worker runs the plan alone
	// ("Single Copy: true").
	SingleCopy bool `json:"single_copy,omitempty"`
}

// parsePlanShape reads the topmost Gather or Gather Merge of an EXPLAIN
// text and its Workers Planned and Launched.
func parsePlanShape(lines []string) planShape {
	var s planShape
	for _, line := range lines {
		text := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "->"))
		if s.Node == "" {
			// EXPLAIN ANALYZE appends " (actual ...)" to the node name.
			name, _, _ := strings.Cut(text, " (")
			if name == nodeGather || name == nodeGatherMerge {
				s.Node = name
			}
			continue
		}
		if v, ok := strings.CutPrefix(text, "Workers Planned:"); ok && s.Planned == 0 {
			s.Planned, _ = strconv.Atoi(strings.TrimSpace(v))
		}
		if text == "Single Copy: true" {
			s.SingleCopy = true
		}
		if v, ok := strings.CutPrefix(text, "Workers Launched:"); ok && s.Launched == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				s.Launched = &n
			}
		}
	}
	return s
}

// planShapeProblem says how a plan misses what the setting asks for: no
// Gather at 0 workers, else node with Workers Planned equal to workers
// and, when known, as many launched. "" is a plan as expected.
func planShapeProblem(s planShape, node string, workers int) string {
	if workers == 0 {
		if s.Node != "" {
			return fmt.Sprintf("%s with 0 workers allowed", s.Node)
		}
		return ""
	}
	var problems []string
	switch {
	case s.Node == "":
		problems = append(problems, fmt.Sprintf("serial, no %s", node))
	case s.Node != node:
		problems = append(problems, fmt.Sprintf("%s, not %s", s.Node, node))
	}
	if s.Node != "" && s.Planned != workers {
		problems = append(problems, fmt.Sprintf("Workers Planned: %d, want %d", s.Planned, workers))
	}
	if s.Node != "" && s.Launched != nil && *s.Launched < s.Planned {
		problems = append(problems, fmt.Sprintf("Workers Launched: %d of %d planned", *s.Launched, s.Planned))
	}
	return strings.Join(problems, "; ")
}

// parallelAnswer summarizes a result for the answer check: the row count
// and an order-insensitive hash, and for a query ordered by a, how many
// rows break that order. Rows with the same a may come in any order
// (Gather Merge and a serial sort break ties differently), so the order
// is checked on a alone.
type parallelAnswer struct {
	fingerprint
	sortedOnFirst bool
	// Unsorted counts the rows whose first value is below the previous
	// row's, or not an integer.
	Unsorted int64
	prev     int64
}

func newParallelAnswer(sortedOnFirst bool) *parallelAnswer {
	return &parallelAnswer{fingerprint: newFingerprint(false), sortedOnFirst: sortedOnFirst}
}

func (a *parallelAnswer) add(vals []any) {
	a.fingerprint.add(vals)
	if !a.sortedOnFirst || len(vals) == 0 {
		return
	}
	v, ok := asInt64(vals[0])
	if !ok || (a.Rows > 1 && v < a.prev) {
		a.Unsorted++
	}
	a.prev = v
}

// differs says how a differs from want, "" when it does not.
func (a *parallelAnswer) differs(want *parallelAnswer) string {
	var d []string
	if a.Rows != want.Rows || a.Hash != want.Hash {
		d = append(d, fmt.Sprintf("%d rows (hash %x), want %d rows (hash %x)", a.Rows, a.Hash, want.Rows, want.Hash))
	}
	if a.Unsorted > 0 {
		d = append(d, fmt.Sprintf("%d rows out of order on a", a.Unsorted))
	}
	return strings.Join(d, "; ")
}

// asInt64 converts the integer types the engines return (pgfed int64,
// pgx int32 for integer).
func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	case int:
		return int64(x), true
	}
	return 0, false
}

// parallelSpeedups judges pgfed's own targets on the lines measured; a
// target whose lines are missing (not selected, not timed) is left out.
func parallelSpeedups(lines []parallelLine) []parallelSpeedup {
	find := func(workload string, set parallelSetting) *parallelLine {
		for i := range lines {
			l := &lines[i]
			if l.Workload == workload && l.Workers == set.workers && l.LeaderParticipation == !set.leaderOff {
				return l
			}
		}
		return nil
	}
	var out []parallelSpeedup
	for _, t := range parallelSpeedupTargets {
		num, den := find(t.workload, t.num), find(t.workload, t.den)
		if num == nil || den == nil {
			continue
		}
		s := parallelSpeedup{
			Workload:      t.workload,
			Numerator:     t.num.String(),
			Denominator:   t.den.String(),
			NumeratorMS:   num.PGFed.timing,
			DenominatorMS: den.PGFed.timing,
			Ratio:         num.PGFed.MedianMS / den.PGFed.MedianMS,
			Target:        t.text(),
			Why:           t.why,
		}
		// A ratio of plans other than the ones the target is about
		// says nothing of it.
		var problems []string
		for _, l := range []*parallelLine{num, den} {
			if l.PGFedPlanProblem != "" {
				problems = append(problems, fmt.Sprintf("%s: %s", l.Setting, l.PGFedPlanProblem))
			}
		}
		s.PlanProblem = strings.Join(problems, "; ")
		pass := t.pass(s.Ratio) && s.PlanProblem == ""
		s.Pass = &pass
		out = append(out, s)
	}
	return out
}

// wakeLatency measures, n times, how long a goroutine started while the
// current one keeps its CPU busy takes to run (on the other, idle CPU),
// and returns the median. On virtual machines whose idle CPUs halt this
// is the cost of waking one, paid by every parallel query before its
// workers help.
func wakeLatency(n int) time.Duration {
	if runtime.GOMAXPROCS(0) < 2 {
		return 0
	}
	ds := make([]time.Duration, 0, n)
	for range n {
		time.Sleep(2 * time.Millisecond) // let the other CPU go idle
		start := time.Now()
		started := make(chan time.Time, 1)
		go func() { started <- time.Now() }()
		var ran time.Time
		for ran.IsZero() { // stay busy: the goroutine must run elsewhere
			select {
			case ran = <-started:
			default:
			}
		}
		ds = append(ds, ran.Sub(start))
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}
