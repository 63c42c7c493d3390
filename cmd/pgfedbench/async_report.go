package main

import (
	"fmt"
	"io"
	"strings"
)

// asyncReport is everything an async-suite run measured; -json prints it
// as is.
type asyncReport struct {
	Suite        string `json:"suite"`
	Servers      int    `json:"data_servers"`
	RowsPerTable int    `json:"rows_per_table"`
	TotalRows    int    `json:"total_rows"`
	FetchSize    int    `json:"fetch_size"`
	Runs         int    `json:"runs"`
	// Latencies are the one-way latencies of the phases, in order.
	Latencies    []string          `json:"latencies"`
	Data         string            `json:"data"`
	GoVersion    string            `json:"go_version"`
	Platform     string            `json:"platform"`
	CPUs         int               `json:"cpus"`
	GOMAXPROCS   int               `json:"gomaxprocs"`
	LoadAvgStart string            `json:"loadavg_start,omitempty"`
	LoadAvgEnd   string            `json:"loadavg_end,omitempty"`
	Settings     map[string]string `json:"coordinator_settings"`
	Loads        []remoteLoad      `json:"loads"`
	// LocalLoadMS is pgfed's load of its own t0 and pl.
	LocalLoadMS float64 `json:"local_load_ms"`
	// CoordinatorAnalyzeMS is the coordinator's ANALYZE of the foreign
	// partitions, done once before the queries.
	CoordinatorAnalyzeMS float64 `json:"coordinator_analyze_ms"`
	// SeveralConnections is "available", or why pgfed refused the
	// async_connections server option.
	SeveralConnections string          `json:"several_connections"`
	Phases             []asyncPhase    `json:"phases"`
	Plans              []remotePlan    `json:"plans,omitempty"`
	Errors             []workloadError `json:"errors,omitempty"`
}

// asyncPhase is the results at one latency.
type asyncPhase struct {
	Latency   string  `json:"latency"`
	LatencyMS float64 `json:"one_way_latency_ms"`
	// *PingMS are the median round trip of SELECT 1 on data server 1,
	// directly and through its proxy: what the latency really is.
	DirectPingMS float64           `json:"direct_select1_ms"`
	ProxyPingMS  float64           `json:"proxy_select1_ms"`
	Rows         []asyncRow        `json:"rows"`
	VsPostgres   []asyncVsPostgres `json:"vs_postgres,omitempty"`
}

// asyncRow is one engine running one workload sync and async.
type asyncRow struct {
	Workload string `json:"workload"`
	Engine   string `json:"engine"` // pgfed or PostgreSQL
	Title    string `json:"title"`
	SQL      string `json:"sql"`
	// Note says why there are no times ("not available").
	Note string `json:"note,omitempty"`
	// Reps is the number of queries per timed run; the times are per
	// query.
	Reps  int     `json:"queries_per_run,omitempty"`
	Sync  *timing `json:"sync,omitempty"`
	Async *timing `json:"async,omitempty"`
	// *ServerBytes are the bytes the data servers sent during one query
	// (the check run).
	SyncServerBytes  int64   `json:"sync_server_bytes,omitempty"`
	AsyncServerBytes int64   `json:"async_server_bytes,omitempty"`
	Ratio            float64 `json:"sync_over_async,omitempty"`
	Target           string  `json:"target,omitempty"`
	Pass             *bool   `json:"pass,omitempty"`
}

// asyncVsPostgres compares pgfed with PostgreSQL on one workload in one
// mode: Ratio is PostgreSQL's median time over pgfed's.
type asyncVsPostgres struct {
	Workload   string  `json:"workload"`
	Mode       string  `json:"mode"` // sync or async
	PGFedMS    float64 `json:"pgfed_ms"`
	PostgresMS float64 `json:"postgres_ms"`
	Ratio      float64 `json:"postgres_over_pgfed"`
	Target     string  `json:"target"`
	Pass       *bool   `json:"pass"`
}

// asyncDataDescription says what the servers and pgfed hold, for the
// report.
func asyncDataDescription(d dataset) string {
	b := "b = g"
	if d.k != 1 {
		b = fmt.Sprintf("b = g * %d %% %d", d.k, d.n)
	}
	return fmt.Sprintf("t_i (i = 1..4) on data server i, and all four on data server 1: for g in [0, %d), a = (i-1)*%d + g, %s; "+
		"pgfed's t0 and pl hold a = 0 .. %d", d.n, d.n, b, asyncServers*d.n-1)
}

func writeAsyncJSON(w io.Writer, rep *asyncReport) error {
	return writeIndentedJSON(w, rep)
}

// writeAsyncTable prints the async report for people: the setup, a table
// per latency, the targets missed, the errors, then the plans.
func writeAsyncTable(w io.Writer, rep *asyncReport) error {
	// As in writeTable, errors are sticky in the tabwriters and checked
	// at each Flush.
	fmt.Fprintf(w, "pgfedbench -suite async: %d rows in all (%d per table), fetch_size %d, %d timed runs per query after a checked warm-up; one-way latency %s\n",
		rep.TotalRows, rep.RowsPerTable, rep.FetchSize, rep.Runs, strings.Join(rep.Latencies, ", "))
	fmt.Fprintf(w, "data: %s\n", rep.Data)
	fmt.Fprintf(w, "client: %s %s, %d CPUs, GOMAXPROCS %d; load average %s at start, %s at end\n",
		rep.GoVersion, rep.Platform, rep.CPUs, rep.GOMAXPROCS, orDash(rep.LoadAvgStart), orDash(rep.LoadAvgEnd))
	s := rep.Settings
	fmt.Fprintf(w, "PostgreSQL %s: %d throwaway clusters on 127.0.0.1 (the data servers, each behind a delay proxy, and a coordinator running postgres_fdw); "+
		"max_parallel_workers_per_gather=%s shared_buffers=%s work_mem=%s jit=%s\n",
		s["server_version"], rep.Servers+1, s["max_parallel_workers_per_gather"], s["shared_buffers"], s["work_mem"], s["jit"])
	fmt.Fprintln(w, "pgfed: pgfed.pushdown = off, enable_partitionwise_aggregate = off; PostgreSQL: enable_partitionwise_aggregate = off;")
	fmt.Fprintln(w, "  both: foreign servers with fetch_size '100', async_capable 'true'; sync / async = enable_async_append off / on")
	fmt.Fprintf(w, "several connections (async_connections '%d'): %s\n", asyncConnections, rep.SeveralConnections)

	fmt.Fprintln(w)
	tw := newTabWriter(w)
	fmt.Fprintln(tw, "load\tserver\trows\tms\t+ VACUUM ANALYZE ms\t")
	for _, l := range rep.Loads {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.0f\t\n", l.Table, l.Server, l.Rows, l.LoadMS, l.VacuumMS)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "pgfed t0 and pl (%d rows each): %.0f ms; coordinator ANALYZE of the foreign partitions: %.0f ms\n",
		rep.TotalRows, rep.LocalLoadMS, rep.CoordinatorAnalyzeMS)

	for _, ph := range rep.Phases {
		if err := writeAsyncPhase(w, ph); err != nil {
			return err
		}
	}

	failed, judged := asyncFailures(rep)
	writeVerdict(w, failed, judged)

	writeWorkloadErrors(w, rep.Errors)

	if len(rep.Plans) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "PLANS: EXPLAIN (VERBOSE, COSTS OFF)")
		for _, p := range rep.Plans {
			fmt.Fprintf(w, "\n-- %s, %s: %s\n%s\n", p.Engine, p.Setting, p.SQL, p.Plan)
		}
	}
	return nil
}

// writeAsyncPhase prints the two tables of one latency: sync against
// async, and pgfed against PostgreSQL.
func writeAsyncPhase(w io.Writer, ph asyncPhase) error {
	fmt.Fprintf(w, "\none-way latency %s: SELECT 1 round trip %.2f ms through the proxy, %.2f ms direct; ms per query, median (min)\n",
		ph.Latency, ph.ProxyPingMS, ph.DirectPingMS)
	tw := newTabWriter(w)
	fmt.Fprintln(tw, "workload\tsync ms\tasync ms\tsync/async\ttarget\tresult\tMB from servers sync/async\t")
	for _, r := range ph.Rows {
		title := r.Title
		if r.Engine != "pgfed" {
			title = r.Engine + " " + title
		}
		if r.Note != "" {
			fmt.Fprintf(tw, "%s\t%s\t\t\t%s\t\t\t\n", title, r.Note, orDash(r.Target))
			continue
		}
		ratio := "-"
		if r.Ratio > 0 {
			ratio = fmt.Sprintf("%.2fx", r.Ratio)
		}
		mb := "-"
		if r.SyncServerBytes > 0 || r.AsyncServerBytes > 0 {
			mb = fmt.Sprintf("%.1f / %.1f", float64(r.SyncServerBytes)/1e6, float64(r.AsyncServerBytes)/1e6)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", title, timingCell(r.Sync), timingCell(r.Async), ratio,
			orDash(r.Target), passCell(r.Pass), mb)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if reps := maxReps(ph.Rows); reps > 1 {
		fmt.Fprintf(w, "quick queries ran up to %d times per timed run (at least %v a run); times are per query\n", reps, asyncMinRun)
	}

	if len(ph.VsPostgres) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw = newTabWriter(w)
	fmt.Fprintln(tw, "pgfed vs PostgreSQL\tmode\tpgfed ms\tPostgreSQL ms\tPG/pgfed\ttarget\tresult\t")
	for _, v := range ph.VsPostgres {
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%.2fx\t%s\t%s\t\n", v.Workload, v.Mode, v.PGFedMS, v.PostgresMS, v.Ratio, v.Target, passCell(v.Pass))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "PG/pgfed: PostgreSQL's median time over pgfed's; above 1 means pgfed is faster")
	return nil
}

func timingCell(t *timing) string {
	if t == nil {
		return "error"
	}
	return medMin(*t)
}

func passCell(p *bool) string {
	switch {
	case p == nil:
		return "info"
	case *p:
		return "PASS"
	}
	return "FAIL"
}

func maxReps(rows []asyncRow) int {
	n := 0
	for _, r := range rows {
		n = max(n, r.Reps)
	}
	return n
}

// asyncFailures names the judged lines that missed their target, and
// counts the judged lines.
func asyncFailures(rep *asyncReport) (failed []string, judged int) {
	for _, ph := range rep.Phases {
		for _, r := range ph.Rows {
			if r.Pass == nil {
				continue
			}
			judged++
			if !*r.Pass {
				failed = append(failed, fmt.Sprintf("%s at %s: sync/async %.2fx, target %s", r.Workload, ph.Latency, r.Ratio, r.Target))
			}
		}
		for _, v := range ph.VsPostgres {
			judged++
			if !*v.Pass {
				failed = append(failed, fmt.Sprintf("%s %s at %s: PG/pgfed %.2fx, target %s", v.Workload, v.Mode, ph.Latency, v.Ratio, v.Target))
			}
		}
	}
	return failed, judged
}
