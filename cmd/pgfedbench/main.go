// Command pgfedbench reproduces the benchmark table of pgfed's first
// milestone: the same five queries over the same data, run side by side in
// pgfed and in PostgreSQL 15, with a plain Go loop as the floor for the
// cost of summing a column.
//
// Both engines are single-threaded for the comparison: both run with
// SET max_parallel_workers_per_gather = 0 (-suite parallel compares
// parallel plans). Results are read by a Go client in this process and discarded:
//
//   - pgfed through its embedding API, db.Query then rows.NextBatch() and
//     rows.Batch() (Arrow batches). For the query returning a million rows
//     the row-at-a-time path, rows.Next() and rows.Values(), is reported too.
//   - PostgreSQL through pgx on loopback TCP, rows.Next() and
//     rows.RawValues() (the wire bytes, undecoded). For the query returning
//     a million rows rows.Scan into Go integers is reported too.
//
// The data is table t(a integer, b integer) with, for i in [0, -rows),
// a = i % 1000 and b = i*k mod rows, k coprime to rows: a permutation of i,
// so b is unique, exactly a tenth of the rows pass b % 10 = 0 and sum(b) is
// known, but b arrives in no particular order (-sequential makes b = i,
// which makes ORDER BY b DESC LIMIT the worst case for a top-N heap). p
// holds the same rows, partitioned BY RANGE (b) into four equal
// partitions. Both engines load the tables with the same SQL (CREATE
// TABLE, then INSERT ... SELECT FROM generate_series); PostgreSQL then gets
// VACUUM ANALYZE. The workloads:
//
//	sum      SELECT sum(b) FROM t                          target PG/pgfed >= 5x
//	filter   SELECT a, b FROM t WHERE b % 10 = 0           target PG/pgfed >= 2x
//	groupby  SELECT a, count(*), sum(b) FROM t GROUP BY a  target PG/pgfed >= 5x
//	topn     SELECT a, b FROM t ORDER BY b DESC LIMIT 100  target PG/pgfed >= 5x
//	partsum  SELECT sum(b) FROM p                          target PG/pgfed >= 5x
//	loop     a Go loop summing a []int64 of -rows values, and the same
//	         over the Arrow values of SELECT b FROM t; pgfed's sum must be
//	         within 3x of the []int64 loop
//
// Each query is checked to give the same answer in both engines, run once
// to warm up, then timed -runs times, the engines taking turns so that
// background load affects both alike; the table shows the median and, in
// parentheses, the minimum, in milliseconds. Ratios compare medians.
//
// Usage:
//
//	go run ./cmd/pgfedbench [flags]
//
// The flags are:
//
//	-rows N         rows in t and p (default 10000000; e.g. 1000000 for a quick run)
//	-runs N         timed runs per query (default 5)
//	-only REGEXP    run only the workloads whose name matches, unanchored like
//	                go test -run ('sum' also picks partsum; '^(sum|loop)$' does not)
//	-json           print the results as JSON instead of a table
//	-sequential     make b = i instead of a permutation of i
//	-pgdsn DSN      use this PostgreSQL server instead of starting a throwaway
//	                cluster; the data goes in schema pgfedbench, which is
//	                dropped and recreated
//	-pgshared SIZE  shared_buffers of the throwaway cluster (default 2GB, so
//	                that both tables stay in PostgreSQL's buffer cache as they
//	                stay in pgfed's memory)
//	-cpuprofile P   after timing, profile pgfed running each selected query
//	                for at least two seconds and write P.NAME.pprof per
//	                workload, plus P.filter-rows.pprof for the row-at-a-time
//	                path (read with go tool pprof -top)
//
// -suite remote runs the remote suite instead, pgfed's foreign tables
// against PostgreSQL 15 with postgres_fdw over four throwaway data servers
// (see remote.go), with its own flags -remoterows N (rows per data
// server, default 1000000) and -fetch N (fetch_size, default 10000).
//
// -suite async runs the async suite, asynchronous Append sync against
// async at injected network latencies, in pgfed and in PostgreSQL 15 with
// postgres_fdw (see async.go), with its own flags -asyncrows N (rows per
// table, default 1000000) and -latency LIST (one-way latencies, default
// 0,1ms).
//
// -suite xact runs the xact suite, remote transactions (savepoints,
// COMMIT and ABORT with parallel_commit and parallel_abort off and on) and
// batch INSERTs into foreign tables, in pgfed and in PostgreSQL 15 with
// postgres_fdw over the async suite's servers (see xact.go), with the
// flags -latency, -runs, -only (seed, commit2, commit4, batch, local),
// -json and -pgshared, and its own -xactrows N (rows of the batch INSERT,
// default 100000) and -xactinserts N (single-row INSERTs of the local
// transaction, default 1000).
//
// -suite parallel runs the parallel suite, Gather and Gather Merge over
// a parallel scan of t at 0, 1 and 2 workers, in pgfed and in PostgreSQL
// 15 with the same worker counts (see parallel.go), with the flags -rows,
// -runs, -only (psum, pfilter, psort), -json, -sequential, -pgdsn,
// -pgshared and -cpuprofile of the local suite.
//
// -suite spill runs the spill suite, ORDER BY, GROUP BY and DISTINCT
// over s(k bigint, g bigint) at work_mem 4MB and 64MB with their peak
// memory, pgfed in a child process and PostgreSQL 15 in a fresh backend
// per query, then the cancel latency of each long operator (see
// spill.go), with the flags -runs (3 by default in this suite, fewer
// for a query whose runs would take over 20 s), -only
// (sort, groupby, distinct, cancel), -json and -pgshared, and its own
// -spillrows LIST (rows of s, default 10000000,50000000; the issue's
// full run is 10000000,50000000,200000000), -workmem LIST (default
// 4MB,64MB) and -cancelafter D (how long a query of the cancel table runs
// before it is cancelled, default 500ms).
//
// -suite tpch runs TPC-H's 22 queries over bench/tpch's generated data
// in pgfed, PostgreSQL 15 and, where bench/duckdb builds, DuckDB, at 0
// and 2 workers (1 and 2 DuckDB threads), checking every answer against
// PostgreSQL's (see tpch.go), with the flags -runs (3 by default in this
// suite), -only (a list of queries: Q1,Q6 or 1,6), -json, -pgdsn and
// -pgshared, and its own -sf (scale factor, default 1), -tpchseed,
// -tpchdata DIR (keep and reuse the generated files), -duckdb (auto,
// off or a binary), -pgindexes (none, pk or keys; default keys),
// -tpchtimeout (per run, default 10m) and -tpchjson FILE.
//
// The throwaway cluster (package pgtest: initdb in a temporary directory,
// server as the postgres OS user when run as root) needs PostgreSQL 15's
// server binaries. It is stopped and removed when the command ends, also on
// Ctrl-C or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"regexp"
	"syscall"
)

// options are the command-line flags.
type options struct {
	rows       int
	runs       int
	only       *regexp.Regexp
	json       bool
	pgDSN      string
	pgShared   string
	cpuProfile string
	sequential bool
	suite      string        // suiteLocal, suiteRemote, suiteAsync, suiteXact, suiteParallel, suiteSpill or suiteTPCH
	remote     remoteOptions // the remote suite's flags
	async      asyncOptions  // the async suite's flags (-latency is the xact suite's too)
	xact       xactOptions   // the xact suite's flags
	spill      spillOptions  // the spill suite's flags
	tpch       tpchOptions   // the tpch suite's flags
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == childProxyArg {
		os.Exit(runChildProxy(os.Args[2], os.Stdin, os.Stdout))
	}
	if len(os.Args) == 3 && os.Args[1] == spillChildArg {
		os.Exit(runSpillChild(os.Args[2], os.Stdin, os.Stdout))
	}
	os.Exit(benchMain(os.Args[1:]))
}

// benchMain returns the exit status, so that the deferred cleanup in run,
// above all stopping the PostgreSQL cluster, happens before os.Exit.
func benchMain(args []string) int {
	opts, err := parseFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pgfedbench: %v\n", err)
		return 2
	}
	// Ctrl-C cancels ctx, which aborts the running query in either engine;
	// run then unwinds and stops the cluster. pgtest's own signal handler
	// stops the cluster as well, whichever comes first.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch opts.suite {
	case suiteRemote:
		return suiteMain(ctx, opts, runRemote, writeRemoteJSON, writeRemoteTable, func(r *remoteReport) int { return len(r.Errors) })
	case suiteAsync:
		return suiteMain(ctx, opts, runAsync, writeAsyncJSON, writeAsyncTable, func(r *asyncReport) int { return len(r.Errors) })
	case suiteXact:
		return suiteMain(ctx, opts, runXact, writeXactJSON, writeXactTable, func(r *xactReport) int { return len(r.Errors) })
	case suiteParallel:
		return suiteMain(ctx, opts, runParallel, writeParallelJSON, writeParallelTable, func(r *parallelReport) int { return len(r.Errors) })
	case suiteSpill:
		return suiteMain(ctx, opts, runSpill, writeSpillJSON, writeSpillTable, func(r *spillReport) int { return len(r.Errors) })
	case suiteTPCH:
		return suiteMain(ctx, opts, runTPCH, writeTPCHJSON, writeTPCHTable, tpchFailures)
	}
	// The local suite reports its comparisons and never fails on them.
	return suiteMain(ctx, opts, run, writeJSON, writeTable, func(*report) int { return 0 })
}

func parseFlags(args []string) (options, error) {
	var opts options
	fs := flag.NewFlagSet("pgfedbench", flag.ContinueOnError)
	fs.IntVar(&opts.rows, "rows", 10_000_000, "rows in tables t and p")
	fs.IntVar(&opts.runs, "runs", 5, "timed runs per query (the median and the minimum are reported)")
	only := fs.String("only", "", "run only workloads whose name matches this regexp (sum, filter, groupby, topn, partsum, loop)")
	fs.BoolVar(&opts.json, "json", false, "print machine-readable JSON instead of a table")
	fs.StringVar(&opts.pgDSN, "pgdsn", "", "existing PostgreSQL server to use instead of a throwaway cluster")
	fs.StringVar(&opts.pgShared, "pgshared", "2GB", "shared_buffers of the throwaway cluster")
	fs.BoolVar(&opts.sequential, "sequential", false, "make b = i (ascending) instead of a permutation of i")
	fs.StringVar(&opts.cpuProfile, "cpuprofile", "", "write a CPU profile of pgfed per workload to `prefix`.NAME.pprof")
	fs.StringVar(&opts.suite, "suite", suiteLocal, "benchmark suite: local (pgfed's own tables), remote (foreign tables vs postgres_fdw), async (async Append at injected latency), xact (remote transactions and batch INSERTs at injected latency), parallel (Gather at 0, 1 and 2 workers), spill (sorts and hash aggregates at a small work_mem, with peak memory, and cancel latency) or tpch (TPC-H's 22 queries against PostgreSQL and DuckDB)")
	addRemoteFlags(fs, &opts.remote)
	addAsyncFlags(fs, &opts.async)
	addXactFlags(fs, &opts.xact)
	addSpillFlags(fs, &opts.spill)
	addTPCHFlags(fs, &opts.tpch)
	if err := fs.Parse(args); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		return opts, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	// Four range partitions need at least one row each, and b must fit in
	// integer.
	if opts.rows < 4 || opts.rows > math.MaxInt32 {
		return opts, fmt.Errorf("-rows must be between 4 and %d", math.MaxInt32)
	}
	if opts.runs < 1 {
		return opts, fmt.Errorf("-runs must be at least 1")
	}
	switch opts.suite {
	case suiteLocal, suiteParallel:
	case suiteRemote:
		if err := opts.remote.check(opts); err != nil {
			return opts, err
		}
	case suiteAsync:
		if err := opts.async.check(opts); err != nil {
			return opts, err
		}
	case suiteXact:
		if err := opts.xact.check(opts); err != nil {
			return opts, err
		}
	case suiteSpill:
		if err := opts.spill.check(&opts, fs); err != nil {
			return opts, err
		}
	case suiteTPCH:
		if err := opts.tpch.check(&opts, fs, *only); err != nil {
			return opts, err
		}
	default:
		return opts, fmt.Errorf("-suite must be %s, %s, %s, %s, %s, %s or %s", suiteLocal, suiteRemote, suiteAsync, suiteXact, suiteParallel, suiteSpill, suiteTPCH)
	}
	re, err := regexp.Compile(*only)
	if err != nil {
		return opts, fmt.Errorf("-only: %v", err)
	}
	opts.only = re
	return opts, nil
}

// suiteMain runs a suite (remote, async, xact, parallel) and prints its
// report as JSON or a table; it returns the exit status, as benchMain
// does: 130 when interrupted, 1 on an error or when a workload failed.
func suiteMain[R any](ctx context.Context, opts options,
	run func(context.Context, options, io.Writer) (R, error),
	writeJSON, writeTable func(io.Writer, R) error,
	failures func(R) int) int {
	rep, err := run(ctx, opts, os.Stderr)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(os.Stderr, "pgfedbench: interrupted")
			return 130
		}
		fmt.Fprintf(os.Stderr, "pgfedbench: %v\n", err)
		return 1
	}
	write := writeTable
	if opts.json {
		write = writeJSON
	}
	if err := write(os.Stdout, rep); err != nil {
		fmt.Fprintf(os.Stderr, "pgfedbench: %v\n", err)
		return 1
	}
	if failures(rep) > 0 {
		return 1
	}
	return 0
}
