package main

// The remote suite (-suite remote) measures pgfed's foreign tables against
// PostgreSQL 15 running postgres_fdw, over the same remote servers in the
// same run.
//
// Five throwaway clusters are started: four data servers and a
// coordinator. Data server i (1 to 4) holds table t_i(a integer, b
// integer) of -remoterows rows, with a in [(i-1)*n, i*n) and b a
// permutation of [0, n) (as in the local suite: b % 10 = 0 keeps exactly
// a tenth of the rows). Both pgfed (a fresh pgfed.Open()) and the
// coordinator, with CREATE EXTENSION postgres_fdw, declare the same four
// servers s1..s4 (127.0.0.1, fetch_size from -fetch), a user mapping for
// the current user, and the same table p(a integer, b integer) PARTITION
// BY RANGE (a) whose four partitions p1..p4 are foreign tables over t_1..t_4.
//
// Workloads:
//
//	sum     SELECT sum(a) FROM p
//	filter  SELECT a, b FROM p WHERE b % 10 = 0
//
// each run four ways, measured in alternation: pgfed with SET
// pgfed.pushdown = off and on, read with db.Query and NextBatch; and the
// coordinator with enable_partitionwise_aggregate off and on, read through
// pgx with Next and RawValues. That setting is the closest PostgreSQL has
// to switching pushdown: postgres_fdw ships WHERE clauses either way, and
// ships an aggregate over a partitioned table only with partitionwise
// aggregation, and then only whole per-partition aggregates (a GROUP BY
// that includes the partition key). PostgreSQL 15 does not ship partial
// aggregates, so a plain sum(a) is computed locally in both settings.
// The coordinator runs with max_parallel_workers_per_gather = 0 and its
// servers without async_capable, and pgfed's Append reads one partition
// at a time: the partitions are read one after the other on both sides.
//
//	decode  SELECT a, b FROM ft, a plain foreign table over t_1
//
// is the decoding throughput of a single ForeignScan, in rows per second,
// at fetch_size 100 and 10000 (two foreign tables, as pgfed has no ALTER
// FOREIGN TABLE), against what pgx itself reaches on the same server:
// rows.Scan of SELECT a, b FROM t_1 (the limit), and for reference a
// cursor read with FETCH 100 and FETCH 10000 and rows.Scan, the way
// postgres_fdw and pgfed read.
//
// The answers of all contenders are checked against each other and against
// the known sum and row count before timing. A pgfed failure does not end
// the run: the error and its SQL are reported and the other workloads go on.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/pgfed/pgfed/pgerr"
)

// Suite names for -suite.
const (
	suiteLocal  = "local"
	suiteRemote = "remote"
)

// remoteServers is the number of data servers, one per partition of p.
const remoteServers = 4

// remoteOptions are the remote suite's own flags; -runs, -only, -json,
// -pgshared, -sequential and -cpuprofile are shared with the local suite.
type remoteOptions struct {
	rows      int // rows on each data server
	fetchSize int // the servers' fetch_size, for the partitioned workloads
}

func addRemoteFlags(fs *flag.FlagSet, ro *remoteOptions) {
	fs.IntVar(&ro.rows, "remoterows", 1_000_000, "remote suite: rows on each of the 4 data servers")
	fs.IntVar(&ro.fetchSize, "fetch", 10000, "remote suite: fetch_size of the foreign servers (pgfed and postgres_fdw) for sum and filter")
}

// check validates the remote flags once they are parsed.
func (ro remoteOptions) check(opts options) error {
	// a runs up to 4n-1 and must fit in integer.
	if ro.rows < 1 || ro.rows > math.MaxInt32/remoteServers {
		return fmt.Errorf("-remoterows must be between 1 and %d", math.MaxInt32/remoteServers)
	}
	if ro.fetchSize < 1 {
		return fmt.Errorf("-fetch must be at least 1")
	}
	if opts.pgDSN != "" {
		return fmt.Errorf("-pgdsn is not used by the remote suite, which needs five throwaway clusters")
	}
	return nil
}

// Remote workload names, for -only.
const (
	remoteSumName    = "sum"
	remoteFilterName = "filter"
	remoteDecodeName = "decode"
)

// partitionedWorkload is a query over p, run by all four contenders.
type partitionedWorkload struct {
	name  string
	title string
	sql   string
	// want is the expected answer when it is known exactly (the sum),
	// else nil; wantRows is the expected number of rows.
	want     []any
	wantRows int64
}

func partitionedWorkloads(n int) []partitionedWorkload {
	total := int64(remoteServers) * int64(n)
	return []partitionedWorkload{
		{
			name:  remoteSumName,
			title: "sum(a) over 4 foreign partitions",
			sql:   "SELECT sum(a) FROM p",
			// a takes every value in [0, 4n) once.
			want:     []any{total * (total - 1) / 2},
			wantRows: 1,
		},
		{
			name:  remoteFilterName,
			title: "a, b where b % 10 = 0 over 4 foreign partitions",
			sql:   "SELECT a, b FROM p WHERE b % 10 = 0",
			// b is a permutation of [0, n) on each server: the multiples
			// of 10 below n, ceil(n/10) of them, on each.
			wantRows: int64(remoteServers) * int64((n+9)/10),
		},
	}
}

// runRemote starts the clusters, loads them, declares the foreign tables
// in pgfed and in the coordinator, and times the selected workloads.
// Progress goes to logw.
func runRemote(ctx context.Context, opts options, logw io.Writer) (*remoteReport, error) {
	logf := func(format string, args ...any) { fmt.Fprintf(logw, "pgfedbench: "+format+"\n", args...) }
	ro := opts.remote
	var ws []partitionedWorkload
	for _, w := range partitionedWorkloads(ro.rows) {
		if opts.only.MatchString(w.name) {
			ws = append(ws, w)
		}
	}
	decode := opts.only.MatchString(remoteDecodeName)
	if len(ws) == 0 && !decode {
		return nil, fmt.Errorf("-only %q matches no remote workload (the names are %s, %s, %s)",
			opts.only, remoteSumName, remoteFilterName, remoteDecodeName)
	}

	data := newDataset(ro.rows, opts.sequential)
	rep := &remoteReport{
		Suite:         suiteRemote,
		Servers:       remoteServers,
		RowsPerServer: ro.rows,
		FetchSize:     ro.fetchSize,
		Runs:          opts.runs,
		Data:          remoteDataDescription(data),
		GoVersion:     runtime.Version(),
		Platform:      runtime.GOOS + "/" + runtime.GOARCH,
		CPUs:          runtime.NumCPU(),
		GOMAXPROCS:    runtime.GOMAXPROCS(0),
		LoadAvgStart:  loadAverage(),
	}
	defer func() { rep.LoadAvgEnd = loadAverage() }()

	logf("starting %d PostgreSQL clusters (%d data servers and a coordinator)", remoteServers+1, remoteServers)
	fx, err := startRemote(ctx, opts)
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
	logf("all data servers loaded in %.0f ms (concurrently)", ms(time.Since(start)))
	analyzeMS, err := fx.declare(ctx, ro.fetchSize)
	if err != nil {
		return nil, err
	}
	rep.CoordinatorAnalyzeMS = analyzeMS
	logf("declared the foreign tables; the coordinator's ANALYZE of p1..p4 took %.0f ms", analyzeMS)

	for _, w := range ws {
		res, errs := runPartitioned(ctx, opts, fx, w, logf)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rep.Errors = append(rep.Errors, errs...)
		if res != nil {
			rep.Partitioned = append(rep.Partitioned, *res)
		}
		rep.Plans = append(rep.Plans, fx.plans(ctx, w.sql)...)
	}
	if decode {
		res, errs := runDecode(ctx, opts, fx, logf)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rep.Errors = append(rep.Errors, errs...)
		rep.Decode = res
		rep.Plans = append(rep.Plans, fx.decodePlans(ctx)...)
	}
	return rep, nil
}

// runPartitioned checks and times one workload over p with the four
// contenders. A contender that fails or gives a wrong answer is left out
// of the timing and reported; the result is nil when none is left.
func runPartitioned(ctx context.Context, opts options, fx *remoteFixture, w partitionedWorkload, logf func(string, ...any)) (*partitionedResult, []workloadError) {
	all := fx.partitionedContenders(w.sql)
	var want *fingerprint
	if w.want != nil {
		f := newFingerprint(false)
		f.add(w.want)
		want = &f
	}
	cs, errs := checkAnswers(ctx, w.name, w.sql, all, want, w.wantRows)
	for _, e := range errs {
		logf("%s: %s failed: %s", w.name, e.Contender, e.Error)
	}
	if len(cs) == 0 {
		return nil, errs
	}
	timings, rows, err := measure(ctx, opts.runs, contendersOf(cs))
	if err != nil {
		return nil, append(errs, workloadError{Workload: w.name, SQL: w.sql, Error: describeError(err)})
	}
	res := &partitionedResult{Workload: w.name, Title: w.title, SQL: w.sql, Rows: rows}
	for i, c := range cs {
		res.Contenders = append(res.Contenders, remoteSide{Key: c.key, Client: c.label, timing: timings[i]})
		logf("%s: %s %.1f ms (median)", w.name, c.label, timings[i].MedianMS)
	}
	res.Ratios = partitionedRatios(res.Contenders)

	if opts.cpuProfile != "" {
		for _, c := range cs {
			if !c.pgfed {
				continue
			}
			path := opts.cpuProfile + ".remote-" + w.name + "-" + c.key + ".pprof"
			if err := profile(ctx, path, opts.runs, c.read); err != nil {
				return res, append(errs, workloadError{Workload: w.name, Contender: c.label, SQL: w.sql, Error: "profile: " + describeError(err)})
			}
			logf("wrote %s", path)
		}
	}
	return res, errs
}

// runDecode times the plain foreign scans and the pgx readers of t_1, and
// turns the times into rows per second.
func runDecode(ctx context.Context, opts options, fx *remoteFixture, logf func(string, ...any)) ([]decodeResult, []workloadError) {
	all := fx.decodeContenders()
	// Every reader returns t_1 whole; the pgx rows.Scan reader, last, is
	// the reference answer.
	cs, errs := checkAnswers(ctx, remoteDecodeName, "", all, nil, int64(fx.rows))
	for _, e := range errs {
		logf("%s: %s failed: %s", remoteDecodeName, e.Contender, e.Error)
	}
	if len(cs) == 0 {
		return nil, errs
	}
	timings, rows, err := measure(ctx, opts.runs, contendersOf(cs))
	if err != nil {
		return nil, append(errs, workloadError{Workload: remoteDecodeName, Error: describeError(err)})
	}
	var limit *timing
	for i, c := range cs {
		if c.key == decodeLimitKey {
			limit = &timings[i]
		}
	}
	var out []decodeResult
	for i, c := range cs {
		d := decodeResult{
			Key:           c.key,
			Client:        c.label,
			SQL:           c.sql,
			FetchSize:     c.fetchSize,
			Rows:          rows,
			timing:        timings[i],
			RowsPerSec:    rowsPerSecond(rows, timings[i].MedianMS),
			MaxRowsPerSec: rowsPerSecond(rows, timings[i].MinMS),
		}
		if limit != nil {
			d.OfLimit = limit.MedianMS / timings[i].MedianMS
		}
		logf("%s: %s %.1f ms (median), %.2fM rows/s", remoteDecodeName, c.label, d.MedianMS, d.RowsPerSec/1e6)
		out = append(out, d)
	}

	if opts.cpuProfile != "" {
		for _, c := range cs {
			if !c.pgfed {
				continue
			}
			path := opts.cpuProfile + ".remote-decode-" + c.key + ".pprof"
			if err := profile(ctx, path, opts.runs, c.read); err != nil {
				return out, append(errs, workloadError{Workload: remoteDecodeName, Contender: c.label, SQL: c.sql, Error: "profile: " + describeError(err)})
			}
			logf("wrote %s", path)
		}
	}
	return out, errs
}

// checkAnswers runs each contender once, summarizing its answer, and
// returns those that succeed with the right answer, and an error for each
// of the others. The answer is right if it has wantRows rows, matches
// want when given, and otherwise matches that of the last contender (a
// PostgreSQL one), or the first that succeeds if the last fails.
func checkAnswers(ctx context.Context, workload, sql string, cs []remoteContender, want *fingerprint, wantRows int64) ([]remoteContender, []workloadError) {
	type answer struct {
		c remoteContender
		f fingerprint
	}
	var (
		answers []answer
		errs    []workloadError
	)
	fail := func(c remoteContender, msg string) {
		q := sql
		if q == "" {
			q = c.sql
		}
		errs = append(errs, workloadError{Workload: workload, Contender: c.label, SQL: q, Error: msg})
	}
	for _, c := range cs {
		f, err := c.fingerprint(ctx)
		if err != nil {
			fail(c, describeError(err))
			continue
		}
		answers = append(answers, answer{c, f})
	}
	if want == nil && len(answers) > 0 {
		want = &answers[len(answers)-1].f
		if answers[len(answers)-1].c.pgfed {
			want = &answers[0].f
		}
	}
	var ok []remoteContender
	for _, a := range answers {
		switch {
		case a.f.Rows != wantRows:
			fail(a.c, fmt.Sprintf("wrong answer: %d rows, want %d", a.f.Rows, wantRows))
		case a.f.Hash != want.Hash:
			fail(a.c, fmt.Sprintf("wrong answer: %d rows with hash %x, want hash %x", a.f.Rows, a.f.Hash, want.Hash))
		default:
			ok = append(ok, a.c)
		}
	}
	return ok, errs
}

func contendersOf(rcs []remoteContender) []contender {
	cs := make([]contender, len(rcs))
	for i, c := range rcs {
		cs[i] = contender{label: c.label, read: c.read}
	}
	return cs
}

// rowsPerSecond is rows read in ms milliseconds as a rate.
func rowsPerSecond(rows int64, ms float64) float64 {
	if ms <= 0 {
		return 0
	}
	return float64(rows) / (ms / 1000)
}

// describeError spells an error out in full: for pgfed's and PostgreSQL's
// errors the SQLSTATE, detail, hint and context too.
func describeError(err error) string {
	var code, detail, hint, where string
	if pe, ok := pgerr.As(err); ok {
		code, detail, hint, where = pe.Code, pe.Detail, pe.Hint, pe.Context
	} else if pe := pgError(err); pe != nil {
		code, detail, hint, where = pe.Code, pe.Detail, pe.Hint, pe.Where
	}
	var b strings.Builder
	b.WriteString(err.Error())
	if code != "" {
		fmt.Fprintf(&b, " (SQLSTATE %s)", code)
	}
	for _, f := range []struct{ name, text string }{{"DETAIL", detail}, {"HINT", hint}, {"CONTEXT", where}} {
		if f.text != "" {
			fmt.Fprintf(&b, "\n%s: %s", f.name, f.text)
		}
	}
	return b.String()
}
