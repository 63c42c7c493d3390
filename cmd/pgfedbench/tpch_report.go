package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// tpchReport is everything a TPC-H run measured; -json prints it, and
// the run writes it to JSONPath as well.
type tpchReport struct {
	Suite        string  `json:"suite"`
	ScaleFactor  float64 `json:"scale_factor"`
	Seed         uint64  `json:"seed"`
	Runs         int     `json:"runs"`
	TimeoutMS    float64 `json:"timeout_ms"`
	GoVersion    string  `json:"go_version"`
	Platform     string  `json:"platform"`
	CPUs         int     `json:"cpus"`
	GOMAXPROCS   int     `json:"gomaxprocs"`
	LoadAvgStart string  `json:"loadavg_start,omitempty"`
	LoadAvgEnd   string  `json:"loadavg_end,omitempty"`
	Postgres     string  `json:"postgres"` // which server, never its DSN
	// Settings are the PostgreSQL server's as its main session sees
	// them; the timed sessions set max_parallel_workers_per_gather and
	// statement_timeout.
	Settings  map[string]string `json:"postgres_settings,omitempty"`
	PGIndexes string            `json:"postgres_indexes"`
	// DuckDB is its version, or "not available: " and why.
	DuckDB  string `json:"duckdb"`
	Reading string `json:"reading"`

	GenerateMS       float64     `json:"generate_ms,omitempty"`
	Tables           []tpchTable `json:"tables"`
	PostgresIndexMS  float64     `json:"postgres_index_ms"`
	PostgresVacuumMS float64     `json:"postgres_vacuum_analyze_ms"`
	PGFedAnalyzeMS   float64     `json:"pgfed_analyze_ms"`
	Queries          []tpchQuery `json:"queries"`
	Totals           tpchTotal   `json:"totals"`
	JSONPath         string      `json:"-"`
}

// tpchTable is one table's size and load times.
type tpchTable struct {
	Table          string  `json:"table"`
	Rows           int64   `json:"rows"`
	Bytes          int64   `json:"copy_text_bytes"`
	Reused         bool    `json:"reused_files,omitempty"`
	GenerateMS     float64 `json:"generate_ms,omitempty"`
	PGFedLoadMS    float64 `json:"pgfed_load_ms"`
	PostgresLoadMS float64 `json:"postgres_load_ms"`
	DuckDBLoadMS   float64 `json:"duckdb_load_ms,omitempty"`
}

// tpchQuery is one query in every contender, by contender key.
type tpchQuery struct {
	Query   string               `json:"query"`
	Title   string               `json:"title"`
	Params  string               `json:"params"`
	SQL     string               `json:"sql"`
	Results map[string]*tpchCell `json:"results"`
}

// tpchCell is one contender's runs of one query.
type tpchCell struct {
	Engine  string `json:"engine"`
	Setting string `json:"setting"`
	Rows    int64  `json:"rows"`
	// CheckMS is the checked (and warm-up) run's time, the answer read
	// as text.
	CheckMS float64 `json:"check_ms"`
	Timing  *timing `json:"timing,omitempty"` // the timed runs; nil when not timed
	Error   string  `json:"error,omitempty"`
	// Wrong says the answer differed from PostgreSQL's; Unchecked that
	// there was no reference to check it against.
	Wrong     bool `json:"wrong_answer,omitempty"`
	Unchecked bool `json:"unchecked,omitempty"`
	// CPU is where the machine's CPU time went during each timed run;
	// Unsettled counts the runs that started before the machine was
	// idle (waitIdle gave up).
	CPU       []cpuUse `json:"cpu_runs,omitempty"`
	Unsettled int      `json:"unsettled_runs,omitempty"`

	durations []time.Duration
}

// tpchTotal adds up the medians of the queries every contender
// answered right.
type tpchTotal struct {
	Included []string           `json:"included"`
	Excluded []tpchExclusion    `json:"excluded,omitempty"`
	MS       map[string]float64 `json:"ms"`
	Ratios   []tpchRatio        `json:"ratios"`
}

type tpchExclusion struct {
	Query string `json:"query"`
	Why   string `json:"why"`
}

// tpchRatio is Num's time over Den's: above 1, Den is faster.
type tpchRatio struct {
	Name  string  `json:"name"`
	Num   string  `json:"numerator"`
	Den   string  `json:"denominator"`
	Ratio float64 `json:"ratio"`
}

// tpchContenderKeys are the contenders in table order, with their
// column titles.
var tpchContenderKeys = []struct{ key, title string }{
	{tpchFed0, "pgfed 0w"}, {tpchFed2, "pgfed 2w"},
	{tpchPG0, "PG 0w"}, {tpchPG2, "PG 2w"},
	{tpchDuck1, "DuckDB 1t"}, {tpchDuck2, "DuckDB 2t"},
}

// tpchRatioDefs are the ratios of the table and the totals.
var tpchRatioDefs = []struct{ name, num, den string }{
	{"PG/pgfed 0w", tpchPG0, tpchFed0},
	{"PG/pgfed 2w", tpchPG2, tpchFed2},
	{"DuckDB 1t/pgfed 0w", tpchDuck1, tpchFed0},
	{"DuckDB 2t/pgfed 2w", tpchDuck2, tpchFed2},
	{"pgfed 0w/2w", tpchFed0, tpchFed2},
	{"PG 0w/2w", tpchPG0, tpchPG2},
}

// tpchTotals sums the medians of the queries that every contender
// answered right (with DuckDB's only when it ran).
func tpchTotals(qs []tpchQuery, duck bool) tpchTotal {
	t := tpchTotal{MS: map[string]float64{}}
	for _, q := range qs {
		var why []string
		for _, k := range tpchContenderKeys {
			c := q.Results[k.key]
			if c == nil {
				if duck || !strings.HasPrefix(k.key, "duckdb") {
					why = append(why, k.title+": not run")
				}
				continue
			}
			if c.Timing == nil {
				why = append(why, fmt.Sprintf("%s %s: %s", c.Engine, c.Setting, firstLine(c.Error)))
			}
		}
		if len(why) > 0 {
			t.Excluded = append(t.Excluded, tpchExclusion{Query: q.Query, Why: strings.Join(why, "; ")})
			continue
		}
		t.Included = append(t.Included, q.Query)
		for key, c := range q.Results {
			t.MS[key] += c.Timing.MedianMS
		}
	}
	for _, r := range tpchRatioDefs {
		num, okN := t.MS[r.num]
		den, okD := t.MS[r.den]
		if okN && okD && den > 0 {
			t.Ratios = append(t.Ratios, tpchRatio{Name: r.name, Num: r.num, Den: r.den, Ratio: num / den})
		}
	}
	return t
}

// tpchFailures counts the cells that failed, in any engine.
func tpchFailures(rep *tpchReport) int {
	n := 0
	for _, q := range rep.Queries {
		for _, c := range q.Results {
			if c.Error != "" {
				n++
			}
		}
	}
	return n
}

func writeTPCHJSON(w io.Writer, rep *tpchReport) error { return writeIndentedJSON(w, rep) }

func writeTPCHJSONFile(path string, rep *tpchReport) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeTPCHJSON(f, rep); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// cellText is a cell of the times table: the median in ms, or what
// went wrong.
func cellText(c *tpchCell) string {
	switch {
	case c == nil:
		return "-"
	case c.Timing != nil:
		return fmt.Sprintf("%.0f", c.Timing.MedianMS)
	case c.Wrong:
		return "WRONG"
	case c.Unchecked:
		return "unchecked"
	case strings.HasPrefix(c.Error, "timed out"):
		return "TIMEOUT"
	}
	return "ERROR"
}

func ratioText(q tpchQuery, num, den string) string {
	n, d := q.Results[num], q.Results[den]
	if n == nil || d == nil || n.Timing == nil || d.Timing == nil || d.Timing.MedianMS == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", n.Timing.MedianMS/d.Timing.MedianMS)
}

// writeTPCHTable prints the report for people: the setup, the loads,
// the times per query with their ratios, the totals, then every failure
// with its error.
func writeTPCHTable(w io.Writer, rep *tpchReport) error {
	fmt.Fprintf(w, "pgfedbench -suite tpch: SF %g (seed %d), %d timed runs per query after a checked warm-up; times in ms, medians\n",
		rep.ScaleFactor, rep.Seed, rep.Runs)
	fmt.Fprintf(w, "client: %s %s, %d CPUs, GOMAXPROCS %d; load average %s at start, %s at end\n",
		rep.GoVersion, rep.Platform, rep.CPUs, rep.GOMAXPROCS, orDash(rep.LoadAvgStart), orDash(rep.LoadAvgEnd))
	s := rep.Settings
	fmt.Fprintf(w, "PostgreSQL %s, %s; shared_buffers=%s work_mem=%s jit=%s; indexes: %s\n",
		s["server_version"], rep.Postgres, s["shared_buffers"], s["work_mem"], s["jit"], rep.PGIndexes)
	fmt.Fprintf(w, "DuckDB: %s\n", rep.DuckDB)
	fmt.Fprintf(w, "sessions: pgfed and PostgreSQL SET max_parallel_workers_per_gather = 0 (0w) or 2 (2w); DuckDB SET threads = 1 (1t) or 2 (2t); statement timeout %.0f s\n",
		rep.TimeoutMS/1000)
	fmt.Fprintf(w, "reading: %s\n", rep.Reading)

	fmt.Fprintln(w)
	tw := newTabWriter(w)
	fmt.Fprintln(tw, "table\trows\tCOPY text MB\tgenerate ms\tpgfed load ms\tPostgreSQL load ms\tDuckDB load ms\t")
	for _, t := range rep.Tables {
		gen := optMS(t.GenerateMS)
		if t.Reused {
			gen = "reused"
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%s\t%.0f\t%.0f\t%s\t\n", t.Table, t.Rows, float64(t.Bytes)/1e6, gen,
			t.PGFedLoadMS, t.PostgresLoadMS, optMS(t.DuckDBLoadMS))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "after COPY: pgfed ANALYZE %.0f ms; PostgreSQL indexes %.0f ms, VACUUM ANALYZE %.0f ms\n", rep.PGFedAnalyzeMS, rep.PostgresIndexMS, rep.PostgresVacuumMS)

	fmt.Fprintln(w)
	tw = newTabWriter(w)
	header := []string{"query"}
	for _, k := range tpchContenderKeys {
		header = append(header, k.title)
	}
	for _, r := range tpchRatioDefs[:4] {
		header = append(header, r.name)
	}
	fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
	for _, q := range rep.Queries {
		row := []string{q.Query}
		for _, k := range tpchContenderKeys {
			row = append(row, cellText(q.Results[k.key]))
		}
		for _, r := range tpchRatioDefs[:4] {
			row = append(row, ratioText(q, r.num, r.den))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	t := rep.Totals
	row := []string{fmt.Sprintf("total (%d)", len(t.Included))}
	for _, k := range tpchContenderKeys {
		if v, ok := t.MS[k.key]; ok {
			row = append(row, fmt.Sprintf("%.0f", v))
		} else {
			row = append(row, "-")
		}
	}
	for _, r := range tpchRatioDefs[:4] {
		cell := "-"
		for _, tr := range t.Ratios {
			if tr.Name == r.name {
				cell = fmt.Sprintf("%.2fx", tr.Ratio)
			}
		}
		row = append(row, cell)
	}
	fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "ratios: the other engine's median over pgfed's, above 1 means pgfed is faster")
	if len(t.Included) > 0 {
		fmt.Fprintf(w, "totals: sums of the medians of the %d queries every engine answered right: %s\n", len(t.Included), strings.Join(t.Included, " "))
		for _, r := range t.Ratios {
			if r.Name == tpchRatioDefs[4].name || r.Name == tpchRatioDefs[5].name {
				fmt.Fprintf(w, "  %s: %.2fx\n", r.Name, r.Ratio)
			}
		}
	} else {
		fmt.Fprintln(w, "totals: no query was answered right by every engine")
	}
	if len(t.Excluded) > 0 {
		fmt.Fprintln(w, "left out of the totals:")
		for _, e := range t.Excluded {
			fmt.Fprintf(w, "  %s: %s\n", e.Query, e.Why)
		}
	}

	if err := writeTPCHCPU(w, rep); err != nil {
		return err
	}

	var fails []workloadError
	for _, q := range rep.Queries {
		for _, k := range tpchContenderKeys {
			if c := q.Results[k.key]; c != nil && c.Error != "" {
				fails = append(fails, workloadError{Workload: q.Query, Contender: c.Engine + ", " + c.Setting, Error: c.Error})
			}
		}
	}
	if len(fails) == 0 {
		fmt.Fprintln(w, "\nevery answer checked and right")
	} else {
		fmt.Fprintf(w, "\nFAIL: %d failed runs (below)\n", len(fails))
		writeWorkloadErrors(w, fails)
	}
	if rep.JSONPath != "" {
		fmt.Fprintf(w, "\nJSON report: %s\n", rep.JSONPath)
	}
	return nil
}

// writeTPCHCPU prints where the machine's CPU time went during each
// contender's timed runs: pgfed runs inside pgfedbench's process, so for
// pgfed the busy time beyond that process's is other processes' work
// that competed with it.
func writeTPCHCPU(w io.Writer, rep *tpchReport) error {
	fmt.Fprintln(w, "\nCPU during the timed runs (sums over every run): wall, all processes' busy time, pgfedbench's own (pgfed itself, or another engine's client), steal by the hypervisor")
	tw := newTabWriter(w)
	fmt.Fprintln(tw, "contender\twall ms\tbusy ms\tpgfedbench ms\tsteal ms\tunsettled runs\t")
	for _, k := range tpchContenderKeys {
		var wall float64
		var use cpuUse
		unsettled, seen := 0, false
		for _, q := range rep.Queries {
			c := q.Results[k.key]
			if c == nil || c.Timing == nil {
				continue
			}
			seen = true
			for _, r := range c.Timing.RunsMS {
				wall += r
			}
			for _, u := range c.CPU {
				use.BusyMS += u.BusyMS
				use.SelfMS += u.SelfMS
				use.StealMS += u.StealMS
			}
			unsettled += c.Unsettled
		}
		if seen {
			fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.0f\t%.0f\t%d\t\n", k.title, wall, use.BusyMS, use.SelfMS, use.StealMS, unsettled)
		}
	}
	return tw.Flush()
}
