package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

func writeJSON(w io.Writer, rep *report) error {
	return writeIndentedJSON(w, rep)
}

// writeTable prints the report for people: the setup, the load times, the
// comparison with PostgreSQL, and the comparison with the Go loops.
func writeTable(w io.Writer, rep *report) error {
	// Errors are the writer's and sticky in the tabwriters and the final
	// Flush; checking each Fprintf would only repeat them.
	fmt.Fprintf(w, "pgfedbench: %d rows, %d timed runs per query after one warm-up; times in ms, median (min)\n",
		rep.Rows, rep.Runs)
	fmt.Fprintf(w, "data: %s\n", rep.Data)
	fmt.Fprintf(w, "client: %s %s, %d CPUs, GOMAXPROCS %d; load average %s at start, %s at end\n",
		rep.GoVersion, rep.Platform, rep.CPUs, rep.GOMAXPROCS, orDash(rep.LoadAvgStart), orDash(rep.LoadAvgEnd))
	if rep.Postgres != "" {
		s := rep.Settings
		fmt.Fprintf(w, "PostgreSQL %s, %s; max_parallel_workers_per_gather=%s shared_buffers=%s work_mem=%s jit=%s\n",
			s["server_version"], rep.Postgres, s["max_parallel_workers_per_gather"], s["shared_buffers"], s["work_mem"], s["jit"])
	}

	fmt.Fprintln(w)
	tw := newTabWriter(w)
	fmt.Fprintln(tw, "load\trows\tpgfed ms\tPostgreSQL ms\t+ VACUUM ANALYZE ms\t")
	for _, l := range rep.Loads {
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%s\t%s\t\n", l.Table, l.Rows, l.PGFedMS, optMS(l.PostgresMS), optMS(l.VacuumMS))
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	if len(rep.VsPostgres) > 0 {
		fmt.Fprintln(w)
		tw = newTabWriter(w)
		fmt.Fprintln(tw, "workload\trows\tpgfed ms\tPostgreSQL ms\tratio PG/pgfed\ttarget\tresult\t")
		for _, c := range rep.VsPostgres {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.2fx\t%s\t%s\t\n", c.Title, c.Rows, medMin(c.PGFed.timing), medMin(c.Other.timing),
				c.Ratio, target(c, ">="), result(c))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(w, "reading: %s vs %s; row at a time: %s vs %s\n", pgfedBatches, pgRaw, pgfedValues, pgScan)
	}

	if len(rep.Baselines) > 0 {
		fmt.Fprintln(w)
		tw = newTabWriter(w)
		if len(rep.VsLoop) > 0 {
			fmt.Fprintln(tw, "workload\trows\tpgfed ms\tGo loop ms\tratio pgfed/loop\ttarget\tresult\t")
			for _, c := range rep.VsLoop {
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.2fx\t%s\t%s\t\n", c.Title, c.Rows, medMin(c.PGFed.timing), medMin(c.Other.timing),
					c.Ratio, target(c, "<="), result(c))
			}
		} else {
			// Without the sum workload there is nothing to judge: just
			// the loops.
			fmt.Fprintln(tw, "baseline\trows\tms\t")
			for _, b := range rep.Baselines {
				fmt.Fprintf(tw, "%s\t%d\t%s\t\n", b.Name, rep.Rows, medMin(b.timing))
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}

	failed, judged := failures(rep)
	switch {
	case len(failed) > 0:
		fmt.Fprintf(w, "\nFAIL: %s\n", strings.Join(failed, "; "))
	case judged == 0:
		fmt.Fprintln(w, "\nno targets judged")
	default:
		fmt.Fprintln(w, "\nall targets met")
	}
	return nil
}

func newTabWriter(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func medMin(t timing) string { return fmt.Sprintf("%.1f (%.1f)", t.MedianMS, t.MinMS) }

// optMS prints a time that may be missing (no PostgreSQL in the run).
func optMS(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", v)
}

func target(c comparison, cmp string) string {
	if c.Pass == nil {
		return "-"
	}
	return fmt.Sprintf("%s%gx", cmp, c.Target)
}

func result(c comparison) string {
	switch {
	case c.Pass == nil:
		return "info"
	case *c.Pass:
		return "PASS"
	}
	return "FAIL"
}

// failures names the judged lines that missed their target, and counts
// the judged lines.
func failures(rep *report) (failed []string, judged int) {
	for _, cs := range [][]comparison{rep.VsPostgres, rep.VsLoop} {
		for _, c := range cs {
			if c.Pass == nil {
				continue
			}
			judged++
			if !*c.Pass {
				failed = append(failed, c.Title)
			}
		}
	}
	return failed, judged
}

// writeIndentedJSON writes a report as indented JSON (-json).
func writeIndentedJSON(w io.Writer, rep any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
