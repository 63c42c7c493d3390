package main

// The xact suite's report: what -json prints as is, and the tables of
// writeXactTable.

import (
	"fmt"
	"io"
	"strings"
)

// postgresSeedRoundTrips is postgres_fdw's round trips for the seed
// transaction as the issue counts them, for comparison with pgfed's
// requests.
const postgresSeedRoundTrips = 24

// xactReport is everything an xact-suite run measured.
type xactReport struct {
	Suite        string `json:"suite"`
	Servers      int    `json:"data_servers"`
	Runs         int    `json:"runs"`
	BatchRows    int    `json:"batch_rows"`
	LocalInserts int    `json:"local_inserts"`
	// Latencies are the one-way latencies of the phases, in order.
	Latencies    []string          `json:"latencies"`
	GoVersion    string            `json:"go_version"`
	Platform     string            `json:"platform"`
	CPUs         int               `json:"cpus"`
	GOMAXPROCS   int               `json:"gomaxprocs"`
	LoadAvgStart string            `json:"loadavg_start,omitempty"`
	LoadAvgEnd   string            `json:"loadavg_end,omitempty"`
	Settings     map[string]string `json:"coordinator_settings"`
	// PostgresParallelAbort is "accepted", or why the coordinator
	// refused the parallel_abort server option.
	PostgresParallelAbort string `json:"postgres_parallel_abort"`
	// BatchChecks are the remote INSERTs a batch INSERT really sent.
	BatchChecks []xactBatchCheck `json:"batch_checks,omitempty"`
	Phases      []xactPhase      `json:"phases"`
	Plans       []remotePlan     `json:"plans,omitempty"`
	Errors      []workloadError  `json:"errors,omitempty"`
}

// xactPhase is the results at one latency.
type xactPhase struct {
	Latency   string  `json:"latency"`
	LatencyMS float64 `json:"one_way_latency_ms"`
	// *PingMS are the median round trip of SELECT 1 on data server 1,
	// directly and through its proxy: what the latency really is.
	DirectPingMS float64      `json:"direct_select1_ms"`
	ProxyPingMS  float64      `json:"proxy_select1_ms"`
	Lines        []xactLine   `json:"lines"`
	Targets      []xactTarget `json:"targets,omitempty"`
}

// xactLine is one measure of one workload at one setting, in both
// engines.
type xactLine struct {
	Workload string  `json:"workload"`
	Title    string  `json:"title"`
	Measure  string  `json:"measure"`
	Setting  string  `json:"setting"`
	SQL      string  `json:"sql"`
	PGFed    *timing `json:"pgfed,omitempty"`
	Postgres *timing `json:"postgres,omitempty"`
	// *Note says why an engine has no time (n/a, skipped).
	PGFedNote    string `json:"pgfed_note,omitempty"`
	PostgresNote string `json:"postgres_note,omitempty"`
	// Note qualifies the line (what PostgreSQL ran instead).
	Note string `json:"note,omitempty"`
	// *RT are the median time in round trips (twice the one-way
	// latency), *Pings in the SELECT 1 round trips through a proxy (what
	// a round trip really took, the proxy's own delay included); 0 at
	// latency 0 and for the local workload.
	PGFedRT       float64 `json:"pgfed_round_trips,omitempty"`
	PostgresRT    float64 `json:"postgres_round_trips,omitempty"`
	PGFedPings    float64 `json:"pgfed_select1_round_trips,omitempty"`
	PostgresPings float64 `json:"postgres_select1_round_trips,omitempty"`
	// PGFedRequests is the median of the requests pgfed sent on its
	// remote connections, -1 if a connection closed during a run.
	PGFedRequests *int64 `json:"pgfed_requests,omitempty"`
	// Ratio is PostgreSQL's median time over pgfed's.
	Ratio float64 `json:"postgres_over_pgfed,omitempty"`
}

// xactBatchCheck is what one engine's batch INSERT of Rows rows sent at
// one batch_size: the remote INSERT statements, by their rows, as a
// statement trigger on the remote table counted them.
type xactBatchCheck struct {
	Engine  string `json:"engine"`
	Setting string `json:"setting"`
	Rows    int    `json:"rows"`
	Inserts string `json:"inserts"`
	Want    string `json:"want"`
	Pass    bool   `json:"pass"`
}

// xactTarget is one judged line.
type xactTarget struct {
	Workload string  `json:"workload"`
	Measure  string  `json:"measure"`
	Setting  string  `json:"setting"`
	Text     string  `json:"target"`
	Value    float64 `json:"value"`
	Unit     string  `json:"unit"` // RT (pgfed's round trips) or x (PG/pgfed)
	// Pings is an RT target's value in SELECT 1 round trips through a
	// proxy, for reference.
	Pings float64 `json:"select1_round_trips,omitempty"`
	Pass  bool    `json:"pass"`
}

func writeXactJSON(w io.Writer, rep *xactReport) error {
	return writeIndentedJSON(w, rep)
}

// writeXactTable prints the xact report for people: the setup, a table
// and the targets per latency, the verdict, the errors, then the plans.
func writeXactTable(w io.Writer, rep *xactReport) error {
	// As in writeTable, errors are sticky in the tabwriters and checked
	// at each Flush.
	fmt.Fprintf(w, "pgfedbench -suite xact: %d timed runs per workload and setting after a checked warm-up; one-way latency %s\n",
		rep.Runs, strings.Join(rep.Latencies, ", "))
	fmt.Fprintf(w, "client: %s %s, %d CPUs, GOMAXPROCS %d; load average %s at start, %s at end\n",
		rep.GoVersion, rep.Platform, rep.CPUs, rep.GOMAXPROCS, orDash(rep.LoadAvgStart), orDash(rep.LoadAvgEnd))
	s := rep.Settings
	fmt.Fprintf(w, "PostgreSQL %s: %d throwaway clusters on 127.0.0.1 (the data servers, each behind a delay proxy, and a coordinator running postgres_fdw); shared_buffers=%s jit=%s\n",
		s["server_version"], rep.Servers+1, s["shared_buffers"], s["jit"])
	fmt.Fprintln(w, "both engines: servers s1..s4 through the proxies, ft1..ft4 over r on s1..s4, ftbig over big on s1, a local loc; default session settings;")
	fmt.Fprintln(w, "  pgfed embedded (Session.Exec), PostgreSQL through pgx on loopback (one simple-protocol round trip to the coordinator per statement)")
	fmt.Fprintf(w, "batch: INSERT INTO ftbig SELECT g, g FROM generate_series(1, %d) g; local: BEGIN, %d single-row INSERTs into loc, COMMIT\n",
		rep.BatchRows, rep.LocalInserts)
	fmt.Fprintln(w, "parallel off / on: parallel_commit and parallel_abort 'false' / 'true' on every server")
	fmt.Fprintf(w, "PostgreSQL's parallel_abort: %s\n", firstLine(rep.PostgresParallelAbort))
	if len(rep.BatchChecks) > 0 {
		fmt.Fprintln(w, "\nremote INSERTs of a batch INSERT, counted by a statement trigger on big:")
		tw := newTabWriter(w)
		for _, c := range rep.BatchChecks {
			fmt.Fprintf(tw, "  %s\t%s\t%d rows:\t%s\t%s\t\n", c.Engine, c.Setting, c.Rows, c.Inserts, passCell(&c.Pass))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}

	for _, ph := range rep.Phases {
		if err := writeXactPhase(w, ph); err != nil {
			return err
		}
	}

	writeSeedSummary(w, rep)
	failed, judged := xactFailures(rep)
	writeVerdict(w, failed, judged)

	writeWorkloadErrors(w, rep.Errors)

	if len(rep.Plans) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "PLANS")
		for _, p := range rep.Plans {
			fmt.Fprintf(w, "\n-- %s, %s: %s\n%s\n", p.Engine, p.Setting, p.SQL, p.Plan)
		}
	}
	return nil
}

// writeXactPhase prints one latency's table and targets.
func writeXactPhase(w io.Writer, ph xactPhase) error {
	fmt.Fprintf(w, "\none-way latency %s: SELECT 1 round trip %.2f ms through the proxy, %.2f ms direct; ms, median (min)",
		ph.Latency, ph.ProxyPingMS, ph.DirectPingMS)
	if ph.LatencyMS > 0 {
		fmt.Fprintf(w, ";\n  RT: the median in round trips of %g ms; pings: in SELECT 1 round trips through the proxy (%.2f ms)", 2*ph.LatencyMS, ph.ProxyPingMS)
	}
	fmt.Fprintln(w)
	tw := newTabWriter(w)
	fmt.Fprintln(tw, "workload\tmeasure\tsetting\tpgfed ms\tRT\tpings\trequests\tPostgreSQL ms\tRT\tpings\tPG/pgfed\tnote\t")
	for _, l := range ph.Lines {
		ratio := "-"
		if l.Ratio > 0 {
			ratio = fmt.Sprintf("%.2fx", l.Ratio)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", l.Workload, l.Measure, l.Setting,
			xactCell(l.PGFed, l.PGFedNote), rtCell(l.PGFedRT), rtCell(l.PGFedPings), requestsCell(l.PGFedRequests),
			xactCell(l.Postgres, l.PostgresNote), rtCell(l.PostgresRT), rtCell(l.PostgresPings), ratio, l.Note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "requests: sent by pgfed on its remote connections, each awaiting its answer (parallel ones count once each, a pipeline of commands once);")
	fmt.Fprintln(w, "  PG/pgfed above 1: pgfed faster")

	if len(ph.Targets) == 0 {
		return nil
	}
	fmt.Fprintf(w, "targets at %s:\n", ph.Latency)
	tw = newTabWriter(w)
	for _, t := range ph.Targets {
		fmt.Fprintf(tw, "  %s\t%s, %s, %s:\t%s\ttarget %s\t\n", passCell(&t.Pass), t.Workload, t.Measure, t.Setting, targetValue(t), t.Text)
	}
	return tw.Flush()
}

// writeSeedSummary sets the seed transaction's round trips beside the
// issue's count for postgres_fdw: pgfed's requests, and in both engines
// the time in SELECT 1 round trips at each latency above 0.
func writeSeedSummary(w io.Writer, rep *xactReport) {
	fmt.Fprintf(w, "\nseed transaction: postgres_fdw makes %d round trips (the issue's count)\n", postgresSeedRoundTrips)
	for _, ph := range rep.Phases {
		for _, l := range ph.Lines {
			if l.Workload != xactSeed || l.Measure != measureWhole || ph.LatencyMS == 0 {
				continue
			}
			fmt.Fprintf(w, "  at %s, %s: pgfed %s requests, %.2f pings; PostgreSQL %.2f pings\n",
				ph.Latency, l.Setting, requestsCell(l.PGFedRequests), l.PGFedPings, l.PostgresPings)
		}
	}
}

// xactCell is a time, or the note saying why there is none.
func xactCell(t *timing, note string) string {
	switch {
	case note != "":
		return note
	case t == nil:
		return "error"
	}
	return fmt.Sprintf("%s (%s)", xactMS(t.MedianMS), xactMS(t.MinMS))
}

// xactMS prints milliseconds to three significant digits or so: the
// statements of the suite take from a tenth of a millisecond to seconds.
func xactMS(v float64) string {
	switch {
	case v < 1:
		return fmt.Sprintf("%.3f", v)
	case v < 100:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

func rtCell(rt float64) string {
	if rt == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", rt)
}

func requestsCell(n *int64) string {
	switch {
	case n == nil:
		return "-"
	case *n < 0:
		return "?"
	}
	return fmt.Sprint(*n)
}

func targetValue(t xactTarget) string {
	if t.Unit == "x" {
		return fmt.Sprintf("PG/pgfed %.2fx", t.Value)
	}
	v := fmt.Sprintf("pgfed %.2f %s", t.Value, t.Unit)
	if t.Pings > 0 {
		v += fmt.Sprintf(" (%.2f pings)", t.Pings)
	}
	return v
}

// firstLine is s up to its first newline (a refusal's HINT lists every
// valid option).
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// xactFailures names the targets missed, and counts the targets judged.
func xactFailures(rep *xactReport) (failed []string, judged int) {
	for _, ph := range rep.Phases {
		for _, t := range ph.Targets {
			judged++
			if !t.Pass {
				failed = append(failed, fmt.Sprintf("%s %s, %s at %s: %s, target %s", t.Workload, t.Measure, t.Setting, ph.Latency, targetValue(t), t.Text))
			}
		}
	}
	return failed, judged
}
