package main

import (
	"fmt"
	"io"
	"strings"
)

// parallelReport is everything a parallel-suite run measured; -json
// prints it as is.
type parallelReport struct {
	Suite        string `json:"suite"`
	Rows         int    `json:"rows"`
	Data         string `json:"data"`
	Runs         int    `json:"runs"`
	GoVersion    string `json:"go_version"`
	Platform     string `json:"platform"`
	CPUs         int    `json:"cpus"`
	GOMAXPROCS   int    `json:"gomaxprocs"`
	LoadAvgStart string `json:"loadavg_start,omitempty"`
	LoadAvgEnd   string `json:"loadavg_end,omitempty"`
	// WakeMedianMs is how long a new goroutine waits to run on an idle
	// CPU while the current one is busy (median): the fixed cost before a
	// worker helps, which bounds the speedup of short queries.
	WakeMedianMs float64 `json:"wake_median_ms"`
	Postgres     string  `json:"postgres"` // which server, never its DSN
	// Settings are the PostgreSQL server's, as its main session sees
	// them (the timed sessions SET their own, SessionSettings).
	Settings        map[string]string `json:"postgres_settings,omitempty"`
	SessionSettings string            `json:"session_settings"`
	TableSettings   string            `json:"postgres_table_settings"`
	Loads           []load            `json:"loads"`
	// Lines are pgfed against PostgreSQL, one per workload and setting.
	Lines []parallelLine `json:"lines"`
	// Speedups are pgfed's own targets, one setting against another.
	Speedups []parallelSpeedup `json:"speedups,omitempty"`
	Plans    []parallelPlan    `json:"plans,omitempty"`
	Errors   []workloadError   `json:"errors,omitempty"`
}

// parallelLine is one workload at one setting in both engines.
type parallelLine struct {
	Workload            string    `json:"workload"`
	Title               string    `json:"title"`
	SQL                 string    `json:"sql"`
	Setting             string    `json:"setting"`
	Workers             int       `json:"workers"` // max_parallel_workers_per_gather
	LeaderParticipation bool      `json:"leader_participation"`
	Rows                int64     `json:"rows"`
	PGFed               side      `json:"pgfed"`
	Postgres            side      `json:"postgres"`
	PGFedPlan           planShape `json:"pgfed_plan"`
	PostgresPlan        planShape `json:"postgres_plan"`
	// *PlanProblem say how a plan is not what the setting asks for.
	PGFedPlanProblem    string `json:"pgfed_plan_problem,omitempty"`
	PostgresPlanProblem string `json:"postgres_plan_problem,omitempty"`
	// Ratio is PostgreSQL's median time over pgfed's.
	Ratio  float64 `json:"postgres_over_pgfed"`
	Target string  `json:"target"`
	Pass   *bool   `json:"pass"`
}

// parallelSpeedup is a target on pgfed's own times: Ratio is the median
// at setting Numerator over the one at Denominator.
type parallelSpeedup struct {
	Workload      string  `json:"workload"`
	Numerator     string  `json:"numerator"`
	Denominator   string  `json:"denominator"`
	NumeratorMS   timing  `json:"numerator_ms"`
	DenominatorMS timing  `json:"denominator_ms"`
	Ratio         float64 `json:"ratio"`
	Target        string  `json:"target"`
	Why           string  `json:"why"`
	// PlanProblem says how pgfed's plans are not the ones the target is
	// about; the target then fails whatever the ratio.
	PlanProblem string `json:"plan_problem,omitempty"`
	Pass        *bool  `json:"pass"`
}

// parallelPlan is one engine's plan of one workload at one setting.
type parallelPlan struct {
	Workload string `json:"workload"`
	Engine   string `json:"engine"`
	Setting  string `json:"setting"`
	SQL      string `json:"sql"`
	Plan     string `json:"plan"` // EXPLAIN (COSTS OFF)
	planShape
	// Problem says how the plan is not what the setting asks for.
	Problem string `json:"problem,omitempty"`
}

func writeParallelJSON(w io.Writer, rep *parallelReport) error {
	return writeIndentedJSON(w, rep)
}

// writeParallelTable prints the parallel report for people: the setup,
// pgfed against PostgreSQL per workload and setting, pgfed's speedups,
// the verdict, the errors, then the plans.
func writeParallelTable(w io.Writer, rep *parallelReport) error {
	// As in writeTable, errors are sticky in the tabwriters and checked
	// at each Flush.
	fmt.Fprintf(w, "pgfedbench -suite parallel: %d rows, %d timed runs per query after a checked warm-up; times in ms, median (min)\n",
		rep.Rows, rep.Runs)
	fmt.Fprintf(w, "data: %s\n", rep.Data)
	fmt.Fprintf(w, "client: %s %s, %d CPUs, GOMAXPROCS %d; load average %s at start, %s at end\n",
		rep.GoVersion, rep.Platform, rep.CPUs, rep.GOMAXPROCS, orDash(rep.LoadAvgStart), orDash(rep.LoadAvgEnd))
	fmt.Fprintf(w, "a new goroutine starts on an idle CPU after %.3f ms (median): the fixed cost before a worker helps\n", rep.WakeMedianMs)
	s := rep.Settings
	fmt.Fprintf(w, "PostgreSQL %s, %s; max_parallel_workers=%s max_worker_processes=%s shared_buffers=%s work_mem=%s jit=%s\n",
		s["server_version"], rep.Postgres, s["max_parallel_workers"], s["max_worker_processes"], s["shared_buffers"], s["work_mem"], s["jit"])
	fmt.Fprintf(w, "sessions, both engines: SET %s; PostgreSQL: %s\n", rep.SessionSettings, rep.TableSettings)

	fmt.Fprintln(w)
	tw := newTabWriter(w)
	fmt.Fprintln(tw, "load\trows\tpgfed ms\tPostgreSQL ms\t+ VACUUM ANALYZE ms\t")
	for _, l := range rep.Loads {
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%s\t%s\t\n", l.Table, l.Rows, l.PGFedMS, optMS(l.PostgresMS), optMS(l.VacuumMS))
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	if len(rep.Lines) > 0 {
		fmt.Fprintln(w)
		tw = newTabWriter(w)
		fmt.Fprintln(tw, "workload\tworkers\trows\tpgfed ms\tPostgreSQL ms\tPG/pgfed\ttarget\tresult\tpgfed plan\tPostgreSQL plan\t")
		for _, l := range rep.Lines {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%.2fx\t%s\t%s\t%s\t%s\t\n", l.Workload, settingShort(l), l.Rows,
				medMin(l.PGFed.timing), medMin(l.Postgres.timing), l.Ratio, l.Target, passCell(l.Pass),
				planCell(l.PGFedPlan), planCell(l.PostgresPlan))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, l := range rep.Lines {
			if !seen[l.Workload] {
				seen[l.Workload] = true
				fmt.Fprintf(w, "%s: %s (%s)\n", l.Workload, l.SQL, l.Title)
			}
		}
		fmt.Fprintf(w, "reading: %s vs %s; PG/pgfed: PostgreSQL's median time over pgfed's, above 1 means pgfed is faster\n", pgfedBatches, pgRaw)
		fmt.Fprintln(w, "plan: the topmost Gather node, Workers Planned/Launched (Launched from EXPLAIN ANALYZE); serial: no Gather")
	}

	if len(rep.Speedups) > 0 {
		fmt.Fprintln(w)
		tw = newTabWriter(w)
		fmt.Fprintln(tw, "pgfed target\tms\tms\tratio\ttarget\tresult\t")
		for _, sp := range rep.Speedups {
			result := passCell(sp.Pass)
			if sp.PlanProblem != "" {
				result += " (plan)"
			}
			fmt.Fprintf(tw, "%s: %s / %s\t%s\t%s\t%.2fx\t%s\t%s\t\n", sp.Workload, sp.Numerator, sp.Denominator,
				medMin(sp.NumeratorMS), medMin(sp.DenominatorMS), sp.Ratio, sp.Target, result)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, sp := range rep.Speedups {
			fmt.Fprintf(w, "%s: %s\n", sp.Workload, sp.Why)
			if sp.PlanProblem != "" {
				fmt.Fprintf(w, "  (plan) pgfed's plans are not the ones the target is about: %s\n", sp.PlanProblem)
			}
		}
	}

	failed, judged := parallelFailures(rep)
	switch {
	case len(failed) > 0:
		fmt.Fprintf(w, "\nFAIL: %s\n", strings.Join(failed, "; "))
	case judged == 0:
		fmt.Fprintln(w, "\nno targets judged")
	default:
		fmt.Fprintf(w, "\nall %d targets and plan checks met\n", judged)
	}

	writeWorkloadErrors(w, rep.Errors)

	if len(rep.Plans) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "PLANS: %s; Workers Launched from %s\n", strings.TrimSpace(parallelExplain), strings.TrimSpace(parallelExplainAnalyze))
		for _, p := range rep.Plans {
			fmt.Fprintf(w, "\n-- %s, %s, %s: %s\n", p.Engine, p.Workload, p.Setting, p.SQL)
			if p.Launched != nil {
				fmt.Fprintf(w, "-- Workers Launched: %d\n", *p.Launched)
			}
			if p.Problem != "" {
				fmt.Fprintf(w, "-- NOT AS EXPECTED: %s\n", p.Problem)
			}
			fmt.Fprintln(w, p.Plan)
		}
	}
	return nil
}

// settingShort is a line's setting in the workers column: "2", "1,
// leader off".
func settingShort(l parallelLine) string {
	return parallelSetting{workers: l.Workers, leaderOff: !l.LeaderParticipation}.short()
}

// planCell is a plan's shape in the table: "serial", or the node and its
// workers planned/launched ("?" when not known).
func planCell(s planShape) string {
	if s.Node == "" {
		return "serial"
	}
	launched := "?"
	if s.Launched != nil {
		launched = fmt.Sprint(*s.Launched)
	}
	cell := fmt.Sprintf("%s %d/%s", s.Node, s.Planned, launched)
	if s.SingleCopy {
		cell += " single copy"
	}
	return cell
}

// parallelFailures names the judged lines, speedups and plan checks that
// missed, and counts them all.
func parallelFailures(rep *parallelReport) (failed []string, judged int) {
	for _, l := range rep.Lines {
		judged++
		if !*l.Pass {
			failed = append(failed, fmt.Sprintf("%s %s: PG/pgfed %.2fx, target %s", l.Workload, l.Setting, l.Ratio, l.Target))
		}
	}
	for _, s := range rep.Speedups {
		judged++
		if !*s.Pass {
			msg := fmt.Sprintf("%s: pgfed %s / %s %.2fx, target %s", s.Workload, s.Numerator, s.Denominator, s.Ratio, s.Target)
			if s.PlanProblem != "" {
				msg += " (plans not as expected)"
			}
			failed = append(failed, msg)
		}
	}
	for _, p := range rep.Plans {
		judged++
		if p.Problem != "" {
			failed = append(failed, fmt.Sprintf("%s plan of %s, %s: %s", p.Engine, p.Workload, p.Setting, p.Problem))
		}
	}
	return failed, judged
}
