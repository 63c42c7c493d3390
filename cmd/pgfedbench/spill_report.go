package main

// The spill suite's report: what -json prints as is, and the tables of
// writeSpillTable.

import (
	"fmt"
	"io"
	"strings"
)

// spillReport is everything a spill-suite run measured.
type spillReport struct {
	Suite         string   `json:"suite"`
	Runs          int      `json:"runs"`
	Rows          []int    `json:"rows"`
	WorkMems      []string `json:"work_mem"`
	CancelAfterMS float64  `json:"cancel_after_ms"`
	GoVersion     string   `json:"go_version"`
	Platform      string   `json:"platform"`
	CPUs          int      `json:"cpus"`
	GOMAXPROCS    int      `json:"gomaxprocs"`
	LoadAvgStart  string   `json:"loadavg_start,omitempty"`
	LoadAvgEnd    string   `json:"loadavg_end,omitempty"`
	// Settings are PostgreSQL's, as a cell's session sees them before
	// its work_mem; PGFedSettings pgfed's defaults (or the error SHOW
	// gave).
	Settings      map[string]string `json:"postgres_settings"`
	PGFedSettings map[string]string `json:"pgfed_settings,omitempty"`
	// Memory says what the memory figures are.
	Memory []string    `json:"memory_notes"`
	Loads  []spillLoad `json:"loads"`
	Lines  []spillLine `json:"lines"`
	// CancelRows is the rows of the s the cancel table's queries over s
	// read.
	CancelRows int             `json:"cancel_rows,omitempty"`
	Cancels    []cancelLine    `json:"cancels,omitempty"`
	Errors     []workloadError `json:"errors,omitempty"`
}

// spillMemoryNotes explain the memory columns.
var spillMemoryNotes = []string{
	"pgfed peak: the query's own, VmHWM of pgfed's process (a child holding only s) over the cell's runs minus its VmRSS at the cell's start, after a GC that returned free memory to the OS; Go garbage not yet collected counts, as it occupies memory",
	"pgfed data: the child's VmRSS after loading s minus before (after a GC); with GOGC=100 the Go heap may grow to about twice the live heap (s included) before a collection, so pgfed's peak may include up to the data's size of garbage",
	"PostgreSQL peak: the query's own, the largest RssAnon (private anonymous memory: palloc, sort and hash memory) of the cell's backend, sampled every 5 ms over the cell's runs, minus its RssAnon at the start of the connection",
	"PostgreSQL HWM: the backend's VmHWM minus its VmRSS at the start; it includes the shared buffers the backend touched (RssShmem, up to shared_buffers), which are not the query's own",
}

// spillLoad is one row count's load.
type spillLoad struct {
	Rows       int     `json:"rows"`
	Data       string  `json:"data"`
	PGFedMS    float64 `json:"pgfed_ms"`
	PostgresMS float64 `json:"postgres_ms"`
	VacuumMS   float64 `json:"postgres_vacuum_analyze_ms"`
	// PGFedBefore and PGFedAfter are the child's memory before and
	// after the load.
	PGFedBefore     *procMemory `json:"pgfed_before_load,omitempty"`
	PGFedAfter      *procMemory `json:"pgfed_after_load,omitempty"`
	PostgresTableKB int64       `json:"postgres_table_kb"`
}

// pgfedDataKB is the memory s takes in pgfed's child.
func (l spillLoad) pgfedDataKB() int64 {
	if l.PGFedBefore == nil || l.PGFedAfter == nil {
		return 0
	}
	return l.PGFedAfter.VmRSS - l.PGFedBefore.VmRSS
}

// spillLine is one query at one row count and work_mem, in both
// engines.
type spillLine struct {
	Workload string `json:"workload"`
	Title    string `json:"title"`
	SQL      string `json:"sql"`
	Rows     int    `json:"rows"`
	WorkMem  string `json:"work_mem"`
	// Runs is the timed runs of each engine (spillRuns).
	Runs int `json:"runs"`
	// Node is the operator that must spill; Answer the checked result.
	Node     string  `json:"node"`
	Answer   string  `json:"answer"`
	PGFed    *timing `json:"pgfed,omitempty"`
	Postgres *timing `json:"postgres,omitempty"`
	// Ratio is PostgreSQL's median over pgfed's.
	Ratio          float64    `json:"postgres_over_pgfed,omitempty"`
	PGFedMemory    *fedMemory `json:"pgfed_memory,omitempty"`
	PostgresMemory *pgMemory  `json:"postgres_memory,omitempty"`
	// *Nodes are the plan's nodes top down, *Details the memory and disk
	// lines of EXPLAIN ANALYZE, *Plan the whole of it.
	PGFedNodes      []string `json:"pgfed_nodes,omitempty"`
	PGFedDetails    []string `json:"pgfed_details,omitempty"`
	PGFedPlan       []string `json:"pgfed_plan,omitempty"`
	PostgresNodes   []string `json:"postgres_nodes,omitempty"`
	PostgresDetails []string `json:"postgres_details,omitempty"`
	PostgresPlan    []string `json:"postgres_plan,omitempty"`
	PGFedNote       string   `json:"pgfed_note,omitempty"`
	PostgresNote    string   `json:"postgres_note,omitempty"`
}

// cancelLine is one operator of the cancel table.
type cancelLine struct {
	Name            string        `json:"name"`
	Title           string        `json:"title"`
	SQL             string        `json:"sql"`
	PGFedCancel     *cancelResult `json:"pgfed_cancel,omitempty"`
	PGFedTimeout    *cancelResult `json:"pgfed_statement_timeout,omitempty"`
	PostgresCancel  *cancelResult `json:"postgres_cancel_request,omitempty"`
	PostgresTimeout *cancelResult `json:"postgres_statement_timeout,omitempty"`
	// Pass judges pgfed: 57014 within cancelTarget of the cancel, both
	// ways; nil when the query ended before both.
	Pass *bool `json:"pass,omitempty"`
}

// judge sets Pass from pgfed's results.
func (l *cancelLine) judge() {
	l.Pass = nil
	for _, r := range []*cancelResult{l.PGFedCancel, l.PGFedTimeout} {
		if r == nil || r.Completed && !r.Killed {
			continue
		}
		pass := r.cancelled() && r.DelayMS <= ms(cancelTarget) && (l.Pass == nil || *l.Pass)
		l.Pass = &pass
	}
}

func (l *cancelLine) set(engine, mode string, r *cancelResult) {
	switch {
	case engine == enginePGFed && mode == cancelByContext:
		l.PGFedCancel = r
	case engine == enginePGFed:
		l.PGFedTimeout = r
	case mode == cancelByContext:
		l.PostgresCancel = r
	default:
		l.PostgresTimeout = r
	}
}

func writeSpillJSON(w io.Writer, rep *spillReport) error {
	return writeIndentedJSON(w, rep)
}

// writeSpillTable prints the spill report for people: the setup, the
// loads, a table per row count with the plans' memory lines, the
// cancel table and the errors.
func writeSpillTable(w io.Writer, rep *spillReport) error {
	// As in writeTable, errors are sticky in the tabwriters and checked
	// at each Flush.
	fmt.Fprintf(w, "pgfedbench -suite spill: up to %d timed runs per query (fewer where they would take over %v) after an EXPLAIN ANALYZE run, engines taking turns; times in ms, median (min)\n",
		rep.Runs, spillCellBudget)
	fmt.Fprintf(w, "client: %s %s, %d CPUs, GOMAXPROCS %d; load average %s at start, %s at end\n",
		rep.GoVersion, rep.Platform, rep.CPUs, rep.GOMAXPROCS, orDash(rep.LoadAvgStart), orDash(rep.LoadAvgEnd))
	s := rep.Settings
	fmt.Fprintf(w, "PostgreSQL %s: throwaway cluster on 127.0.0.1, shared_buffers=%s max_wal_size=%s; sessions: hash_mem_multiplier=%s max_parallel_workers_per_gather=%s jit=%s\n",
		s["server_version"], s["shared_buffers"], s["max_wal_size"], s["hash_mem_multiplier"], s["max_parallel_workers_per_gather"], s["jit"])
	if len(rep.PGFedSettings) > 0 {
		f := rep.PGFedSettings
		fmt.Fprintf(w, "pgfed defaults: work_mem=%s hash_mem_multiplier=%s; sessions: max_parallel_workers_per_gather=0\n",
			orDash(f["work_mem"]), orDash(f["hash_mem_multiplier"]))
	}
	fmt.Fprintf(w, "work_mem: %s in both engines\n", strings.Join(rep.WorkMems, ", "))
	fmt.Fprintln(w, "memory (MB):")
	for _, n := range rep.Memory {
		fmt.Fprintf(w, "  - %s\n", n)
	}

	if len(rep.Loads) > 0 {
		fmt.Fprintln(w)
		tw := newTabWriter(w)
		fmt.Fprintln(tw, "load\tpgfed ms\tpgfed data MB\tpgfed RSS MB\tPostgreSQL ms\t+ VACUUM ANALYZE ms\tPostgreSQL table MB\t")
		for _, l := range rep.Loads {
			rss := "-"
			if l.PGFedAfter != nil {
				rss = mb(l.PGFedAfter.VmRSS)
			}
			fmt.Fprintf(tw, "%d rows\t%.0f\t%s\t%s\t%.0f\t%.0f\t%s\t\n", l.Rows, l.PGFedMS, mb(l.pgfedDataKB()), rss,
				l.PostgresMS, l.VacuumMS, mb(l.PostgresTableKB))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, l := range rep.Loads {
			fmt.Fprintf(w, "  %d rows: %s\n", l.Rows, l.Data)
		}
	}

	for _, n := range rep.Rows {
		var lines []spillLine
		for _, l := range rep.Lines {
			if l.Rows == n {
				lines = append(lines, l)
			}
		}
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%d rows\n", n)
		tw := newTabWriter(w)
		fmt.Fprintln(tw, "query\twork_mem\truns\tpgfed ms\tPostgreSQL ms\tPG/pgfed\tpgfed peak MB\tPG peak MB\tPG HWM MB\tnote\t")
		for _, l := range lines {
			ratio := "-"
			if l.Ratio > 0 {
				ratio = fmt.Sprintf("%.2fx", l.Ratio)
			}
			hwm := "-"
			if m := l.PostgresMemory; m != nil {
				hwm = "+" + mb(m.HWMExtraKB)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", l.Workload, l.WorkMem, l.Runs, spillTimeCell(l.PGFed), spillTimeCell(l.Postgres),
				ratio, fedPeakCell(l.PGFedMemory), pgPeakCell(l.PostgresMemory), hwm, joinNotes(l.PGFedNote, l.PostgresNote))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF):")
		for _, l := range lines {
			fmt.Fprintf(w, "  %s, work_mem %s:\n", l.Workload, l.WorkMem)
			for _, side := range []struct {
				engine  string
				nodes   []string
				details []string
			}{{enginePGFed, l.PGFedNodes, l.PGFedDetails}, {enginePostgres, l.PostgresNodes, l.PostgresDetails}} {
				if len(side.nodes) == 0 {
					fmt.Fprintf(w, "    %-10s (no plan)\n", side.engine)
					continue
				}
				details := "no Sort Method / Batches / Memory Usage line"
				if len(side.details) > 0 {
					details = strings.Join(side.details, "; ")
				}
				fmt.Fprintf(w, "    %-10s %s: %s\n", side.engine, strings.Join(side.nodes, " <- "), details)
			}
		}
	}

	if len(rep.Cancels) > 0 {
		fmt.Fprintf(w, "\ncancel latency: each query stopped after %.0f ms; ms from the cancel to the query's return, and its SQLSTATE (57014 expected); s has %d rows, work_mem %s\n",
			rep.CancelAfterMS, rep.CancelRows, cancelWorkMem)
		tw := newTabWriter(w)
		fmt.Fprintln(tw, "operator\tpgfed cancel\tpgfed statement_timeout\tPostgreSQL cancel request\tPostgreSQL statement_timeout\ttarget\t")
		for _, l := range rep.Cancels {
			target := "-"
			if l.Pass != nil {
				target = passCell(l.Pass)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", l.Name, cancelCell(l.PGFedCancel), cancelCell(l.PGFedTimeout),
				cancelCell(l.PostgresCancel), cancelCell(l.PostgresTimeout), target)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(w, "target: pgfed returns 57014 within %v of the cancel and of the timeout (issue 12); \"done\": the query ended before the cancel\n", cancelTarget)
		for _, l := range rep.Cancels {
			fmt.Fprintf(w, "  %-13s %s: %s\n", l.Name, l.Title, l.SQL)
		}
		var notes []string
		for _, l := range rep.Cancels {
			for _, r := range []struct {
				who string
				r   *cancelResult
			}{{"pgfed cancel", l.PGFedCancel}, {"pgfed statement_timeout", l.PGFedTimeout},
				{"PostgreSQL cancel request", l.PostgresCancel}, {"PostgreSQL statement_timeout", l.PostgresTimeout}} {
				if r.r != nil && r.r.Error != "" && !r.r.cancelled() {
					notes = append(notes, fmt.Sprintf("  %s, %s: %s", l.Name, r.who, r.r.Error))
				}
			}
		}
		if len(notes) > 0 {
			fmt.Fprintln(w, "errors other than 57014:")
			fmt.Fprintln(w, strings.Join(notes, "\n"))
		}
	}
	failed, judged := spillFailures(rep)
	writeVerdict(w, failed, judged)

	writeWorkloadErrors(w, rep.Errors)
	return nil
}

// spillFailures names the cancel targets missed, and counts the ones
// judged.
func spillFailures(rep *spillReport) (failed []string, judged int) {
	for _, l := range rep.Cancels {
		if l.Pass == nil {
			continue
		}
		judged++
		if !*l.Pass {
			failed = append(failed, fmt.Sprintf("cancel %s: pgfed %s / %s, target 57014 within %v", l.Name, cancelCell(l.PGFedCancel), cancelCell(l.PGFedTimeout), cancelTarget))
		}
	}
	return failed, judged
}

// mb prints kB as MB.
func mb(kb int64) string {
	v := float64(kb) / 1024
	switch {
	case v < 0 && v > -10 || v >= 0 && v < 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

func spillTimeCell(t *timing) string {
	if t == nil {
		return "-"
	}
	return fmt.Sprintf("%s (%s)", xactMS(t.MedianMS), xactMS(t.MinMS))
}

func fedPeakCell(m *fedMemory) string {
	if m == nil {
		return "-"
	}
	return "+" + mb(m.ExtraKB)
}

func pgPeakCell(m *pgMemory) string {
	if m == nil {
		return "-"
	}
	return "+" + mb(m.ExtraAnonKB)
}

// cancelCell is how a query of the cancel table ended: the delay and
// SQLSTATE, "done" and its time when it ended before the cancel,
// "killed" when it did not return.
func cancelCell(r *cancelResult) string {
	switch {
	case r == nil:
		return "-"
	case r.Killed:
		return fmt.Sprintf("no return in %v: killed", cancelGuard)
	case r.Completed && r.Code != "":
		return fmt.Sprintf("%s at %s ms, before the cancel", r.Code, xactMS(r.ElapsedMS))
	case r.Completed:
		return fmt.Sprintf("done in %s ms", xactMS(r.ElapsedMS))
	case r.Code == "":
		return fmt.Sprintf("%s ms, no error", xactMS(r.DelayMS))
	}
	return fmt.Sprintf("%s ms %s", xactMS(r.DelayMS), r.Code)
}
