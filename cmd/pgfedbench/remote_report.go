package main

import (
	"fmt"
	"io"
	"strings"
)

// remoteReport is everything a remote-suite run measured; -json prints it
// as is.
type remoteReport struct {
	Suite         string `json:"suite"`
	Servers       int    `json:"data_servers"`
	RowsPerServer int    `json:"rows_per_server"`
	// FetchSize is the foreign servers' fetch_size in both engines, for the
	// partitioned workloads.
	FetchSize    int               `json:"fetch_size"`
	Runs         int               `json:"runs"`
	Data         string            `json:"data"`
	GoVersion    string            `json:"go_version"`
	Platform     string            `json:"platform"`
	CPUs         int               `json:"cpus"`
	GOMAXPROCS   int               `json:"gomaxprocs"`
	LoadAvgStart string            `json:"loadavg_start,omitempty"`
	LoadAvgEnd   string            `json:"loadavg_end,omitempty"`
	Settings     map[string]string `json:"coordinator_settings"`
	Loads        []remoteLoad      `json:"loads"`
	// CoordinatorAnalyzeMS is the coordinator's ANALYZE of the foreign
	// partitions, done once before the queries.
	CoordinatorAnalyzeMS float64             `json:"coordinator_analyze_ms"`
	Partitioned          []partitionedResult `json:"partitioned,omitempty"`
	Decode               []decodeResult      `json:"decode,omitempty"`
	Plans                []remotePlan        `json:"plans,omitempty"`
	Errors               []workloadError     `json:"errors,omitempty"`
}

// remoteLoad is the time taken to create and fill one data server's table.
type remoteLoad struct {
	Server   int     `json:"server"`
	Table    string  `json:"table"`
	Rows     int     `json:"rows"`
	LoadMS   float64 `json:"load_ms"`
	VacuumMS float64 `json:"vacuum_analyze_ms"`
}

// partitionedResult is one line of the partitioned table: a query over p
// and the contenders that ran it.
type partitionedResult struct {
	Workload   string       `json:"workload"`
	Title      string       `json:"title"`
	SQL        string       `json:"sql"`
	Rows       int64        `json:"rows"`
	Contenders []remoteSide `json:"contenders"`
	// Ratios are of median times, named by ratioNames' keys; a ratio
	// whose contenders failed is missing.
	Ratios map[string]float64 `json:"ratios"`
}

// remoteSide is one contender's timing.
type remoteSide struct {
	Key    string `json:"key"`
	Client string `json:"client"`
	timing
}

// decodeResult is one line of the decoding table.
type decodeResult struct {
	Key       string `json:"key"`
	Client    string `json:"client"`
	SQL       string `json:"sql"`
	FetchSize int    `json:"fetch_size,omitempty"` // 0: a plain query, no cursor
	Rows      int64  `json:"rows"`
	timing
	RowsPerSec    float64 `json:"rows_per_sec"`     // from the median time
	MaxRowsPerSec float64 `json:"max_rows_per_sec"` // from the minimum time
	// OfLimit is the pgx rows.Scan loop's median time over this one's: 1
	// is as fast as pgx on the same query.
	OfLimit float64 `json:"of_limit,omitempty"`
}

// remotePlan is an EXPLAIN (VERBOSE, COSTS OFF) of one query in one
// setting.
type remotePlan struct {
	Engine  string `json:"engine"`
	Setting string `json:"setting"`
	SQL     string `json:"sql"`
	Plan    string `json:"plan"`
}

// workloadError is a contender that failed or gave a wrong answer.
// writeVerdict ends a report with its targets' verdict.
func writeVerdict(w io.Writer, failed []string, judged int) {
	switch {
	case len(failed) > 0:
		fmt.Fprintf(w, "\nFAIL: %s\n", strings.Join(failed, "; "))
	case judged == 0:
		fmt.Fprintln(w, "\nno targets judged")
	default:
		fmt.Fprintf(w, "\nall %d targets met\n", judged)
	}
}

// writeWorkloadErrors lists the workloads that failed to run.
func writeWorkloadErrors(w io.Writer, errors []workloadError) {
	if len(errors) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "ERRORS")
		for _, e := range errors {
			fmt.Fprintf(w, "%s", e.Workload)
			if e.Contender != "" {
				fmt.Fprintf(w, ", %s", e.Contender)
			}
			fmt.Fprintln(w, ":")
			if e.SQL != "" {
				fmt.Fprintf(w, "  SQL: %s\n", e.SQL)
			}
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(e.Error, "\n", "\n  "))
		}
	}
}

type workloadError struct {
	Workload  string `json:"workload"`
	Contender string `json:"contender,omitempty"`
	SQL       string `json:"sql,omitempty"`
	Error     string `json:"error"`
}

// ratioNames are the ratios of the partitioned table, as numerator and
// denominator contender keys; above 1 means the denominator is faster.
var ratioNames = []struct {
	key, title, num, den string
}{
	{"postgres_over_pgfed_off", "PG/pgfed off", keyPostgresOff, keyPGFedOff},
	{"postgres_over_pgfed_on", "PG/pgfed on", keyPostgresOn, keyPGFedOn},
	{"pgfed_off_over_on", "pgfed off/on", keyPGFedOff, keyPGFedOn},
	{"postgres_off_over_on", "PG off/on", keyPostgresOff, keyPostgresOn},
}

func partitionedRatios(sides []remoteSide) map[string]float64 {
	median := map[string]float64{}
	for _, s := range sides {
		median[s.Key] = s.MedianMS
	}
	ratios := map[string]float64{}
	for _, r := range ratioNames {
		num, ok1 := median[r.num]
		den, ok2 := median[r.den]
		if ok1 && ok2 && den > 0 {
			ratios[r.key] = num / den
		}
	}
	return ratios
}

// remoteDataDescription says what the data servers hold, for the report.
func remoteDataDescription(d dataset) string {
	b := "b = g (ascending)"
	if d.k != 1 {
		b = fmt.Sprintf("b = g * %d %% %d (a permutation of g)", d.k, d.n)
	}
	return fmt.Sprintf("data server i (1..4): t_i(a integer, b integer), for g in [0, %d): a = (i-1)*%d + g, %s", d.n, d.n, b)
}

func writeRemoteJSON(w io.Writer, rep *remoteReport) error {
	return writeIndentedJSON(w, rep)
}

// writeRemoteTable prints the remote report for people: the setup, the
// loads, the partitioned workloads, the decoding throughput, the errors,
// then the plans.
func writeRemoteTable(w io.Writer, rep *remoteReport) error {
	// As in writeTable, errors are sticky in the tabwriters and checked
	// at each Flush.
	fmt.Fprintf(w, "pgfedbench -suite remote: %d data servers x %d rows, fetch_size %d, %d timed runs per query after one warm-up; times in ms, median (min)\n",
		rep.Servers, rep.RowsPerServer, rep.FetchSize, rep.Runs)
	fmt.Fprintf(w, "data: %s\n", rep.Data)
	fmt.Fprintf(w, "client: %s %s, %d CPUs, GOMAXPROCS %d; load average %s at start, %s at end\n",
		rep.GoVersion, rep.Platform, rep.CPUs, rep.GOMAXPROCS, orDash(rep.LoadAvgStart), orDash(rep.LoadAvgEnd))
	s := rep.Settings
	fmt.Fprintf(w, "PostgreSQL %s: %d throwaway clusters on 127.0.0.1 (the data servers and a coordinator running postgres_fdw); "+
		"max_parallel_workers_per_gather=%s shared_buffers=%s work_mem=%s jit=%s; async_capable off (the default)\n",
		s["server_version"], rep.Servers+1, s["max_parallel_workers_per_gather"], s["shared_buffers"], s["work_mem"], s["jit"])

	fmt.Fprintln(w)
	tw := newTabWriter(w)
	fmt.Fprintln(tw, "load\tserver\trows\tms\t+ VACUUM ANALYZE ms\t")
	for _, l := range rep.Loads {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.0f\t\n", l.Table, l.Server, l.Rows, l.LoadMS, l.VacuumMS)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "coordinator ANALYZE p1..p4 (once, before the queries): %.0f ms\n", rep.CoordinatorAnalyzeMS)

	if len(rep.Partitioned) > 0 {
		fmt.Fprintln(w)
		tw = newTabWriter(w)
		header := []string{"workload", "rows", "pgfed off", "pgfed on", "PG off", "PG on"}
		for _, r := range ratioNames {
			header = append(header, r.title)
		}
		fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
		for _, p := range rep.Partitioned {
			cells := []string{p.Title, fmt.Sprint(p.Rows)}
			for _, key := range []string{keyPGFedOff, keyPGFedOn, keyPostgresOff, keyPostgresOn} {
				cells = append(cells, sideCell(p.Contenders, key))
			}
			for _, r := range ratioNames {
				cells = append(cells, ratioCell(p.Ratios, r.key))
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w, "pgfed off/on: SET pgfed.pushdown = off/on and enable_partitionwise_aggregate = off/on, read with db.Query and NextBatch")
		fmt.Fprintln(w, "PG off/on: PostgreSQL 15 + postgres_fdw with enable_partitionwise_aggregate = off/on, read with pgx Next+RawValues;")
		fmt.Fprintln(w, "  postgres_fdw ships WHERE clauses either way, and never ships a partial aggregate (a partition's share of sum(a))")
		fmt.Fprintln(w, "ratios compare medians; PG/pgfed above 1 means pgfed is faster, off/on above 1 means pushdown helps")
	}

	if len(rep.Decode) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "decoding throughput: %d rows of two integers from data server 1\n", rep.Decode[0].Rows)
		tw = newTabWriter(w)
		fmt.Fprintln(tw, "reader\tSQL\tfetch\tms\trows/s (median)\trows/s (best)\tof limit\t")
		for _, d := range rep.Decode {
			fetch := "-"
			if d.FetchSize > 0 {
				fetch = fmt.Sprint(d.FetchSize)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%.0f%%\t\n", d.Client, d.SQL, fetch, medMin(d.timing),
				rate(d.RowsPerSec), rate(d.MaxRowsPerSec), 100*d.OfLimit)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w, "of limit: the pgx rows.Scan loop's median time over the reader's (100% is as fast as pgx on the plain query)")
	}

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

// sideCell is a contender's time, or "error" when it was left out.
func sideCell(sides []remoteSide, key string) string {
	for _, s := range sides {
		if s.Key == key {
			return medMin(s.timing)
		}
	}
	return "error"
}

func ratioCell(ratios map[string]float64, key string) string {
	if r, ok := ratios[key]; ok {
		return fmt.Sprintf("%.2fx", r)
	}
	return "-"
}

// rate prints rows per second in millions.
func rate(perSec float64) string { return fmt.Sprintf("%.2fM", perSec/1e6) }
