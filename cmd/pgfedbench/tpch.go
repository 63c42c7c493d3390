package main

// The TPC-H suite (-suite tpch) runs TPC-H's 22 queries (package
// bench/tpch: the specification's validation parameters) over data of
// scale factor -sf (default 1: 6 million lineitem rows) made by
// bench/tpch's generator, in pgfed, in PostgreSQL 15 and, where it can be
// built, in DuckDB, and checks every pgfed and DuckDB answer against
// PostgreSQL's.
//
// The data is generated once, as one PostgreSQL COPY text file per table
// (in -tpchdata, kept and reused while -sf and -tpchseed match, or in a
// temporary directory), and loaded from those files into every engine:
//
//   - pgfed: CREATE TABLE with the specification's columns (no keys:
//     pgfed has neither constraints nor indexes), then COPY ... FROM
//     STDIN through Session.SetCopyHandler, the embedding API's bulk
//     path.
//   - PostgreSQL: the same CREATE TABLE, COPY ... FROM STDIN through
//     pgx, then by -pgindexes: none; pk, the specification's primary
//     keys; or keys (the default), the primary keys and indexes on the
//     foreign keys, the auxiliary structures the specification permits.
//     Without an index on lineitem's l_partkey PostgreSQL runs Q17's and
//     Q20's correlated subqueries as a scan of lineitem per outer row
//     (hours at SF1), so keys is the default. Then VACUUM ANALYZE (and
//     ANALYZE in pgfed, so that neither engine's first query pays for
//     its statistics) and a CHECKPOINT (so that the checkpointer is not
//     writing the load while queries are timed).
//   - DuckDB: the same CREATE TABLE, COPY from the files (its CSV
//     reader, tab-separated), in the bench/duckdb child.
//
// Each query then runs in six contenders: pgfed and PostgreSQL with
// max_parallel_workers_per_gather 0 and 2 (a session or connection
// each, other settings at their defaults), DuckDB with SET threads 1 and
// 2. Every contender runs the query once to be checked (PostgreSQL at 0
// workers is the reference; see tpch_compare.go for the comparison),
// which is also its warm-up; then -runs rounds (default 3 in this
// suite) in which each contender whose answer was right runs it once,
// the contenders taking turns as in the other suites. The table shows
// the median of the timed runs: pgfed read in Arrow batches in this
// process, PostgreSQL's wire bytes read undecoded through pgx, DuckDB's
// time taken inside its child from the query's start to its last row.
//
// A query that pgfed fails at either setting (an error, a timeout of
// -tpchtimeout, or a wrong answer) is reported with its error and left
// out of the totals; so is one whose reference failed, or that DuckDB
// failed when DuckDB runs. The totals add the medians of the queries
// that every engine answered right, and their ratios compare those sums.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/bench/tpch"
)

// suiteTPCH is the -suite name of this suite.
const suiteTPCH = "tpch"

// tpchDefaultRuns is -runs when not given.
const tpchDefaultRuns = 3

// tpchOptions are the TPC-H suite's own flags.
type tpchOptions struct {
	sf        float64
	seed      uint64
	dataDir   string
	duckdb    string
	pgIndexes string
	timeout   time.Duration
	jsonPath  string
	queries   []int // from -only
}

// PostgreSQL index settings (-pgindexes).
const (
	pgIndexesNone = "none"
	pgIndexesPK   = "pk"
	pgIndexesKeys = "keys"
)

func addTPCHFlags(fs *flag.FlagSet, to *tpchOptions) {
	fs.Float64Var(&to.sf, "sf", 1, "tpch suite: scale factor (1: 6 million lineitem rows)")
	fs.Uint64Var(&to.seed, "tpchseed", tpch.DefaultSeed, "tpch suite: the generator's seed")
	fs.StringVar(&to.dataDir, "tpchdata", "", "tpch suite: directory of the generated COPY files, kept and reused while -sf and -tpchseed match (default: a temporary directory, removed at the end)")
	fs.StringVar(&to.duckdb, "duckdb", "auto", "tpch suite: auto (build bench/duckdb with go build; without DuckDB if that fails), off, or the path of a bench/duckdb binary")
	fs.StringVar(&to.pgIndexes, "pgindexes", pgIndexesKeys, "tpch suite: PostgreSQL's indexes: none, pk (the specification's primary keys) or keys (primary keys and indexes on the foreign keys)")
	fs.DurationVar(&to.timeout, "tpchtimeout", 10*time.Minute, "tpch suite: the longest one run of one query may take in any engine (statement_timeout)")
	fs.StringVar(&to.jsonPath, "tpchjson", "", "tpch suite: write the JSON report to this file (default: pgfedbench-tpch-sfSF.json in the temporary directory)")
}

// check validates the flags once they are parsed; fs tells whether -runs
// was given, only is -only's text: a list of queries (Q1,Q6 or 1,6).
func (to *tpchOptions) check(opts *options, fs *flag.FlagSet, only string) error {
	runsSet := false
	fs.Visit(func(f *flag.Flag) { runsSet = runsSet || f.Name == "runs" })
	if !runsSet {
		opts.runs = tpchDefaultRuns
	}
	if to.sf < tpch.MinScale || to.sf > tpch.MaxScale {
		return fmt.Errorf("-sf must be between %g and %g", tpch.MinScale, tpch.MaxScale)
	}
	switch to.pgIndexes {
	case pgIndexesNone, pgIndexesPK, pgIndexesKeys:
	default:
		return fmt.Errorf("-pgindexes must be %s, %s or %s", pgIndexesNone, pgIndexesPK, pgIndexesKeys)
	}
	if to.timeout <= 0 {
		return fmt.Errorf("-tpchtimeout must be positive")
	}
	if strings.TrimSpace(only) == "" {
		for i := range tpch.Queries(to.sf) {
			to.queries = append(to.queries, i+1)
		}
		return nil
	}
	qs, err := tpch.ParseQueryList(only)
	if err != nil {
		return fmt.Errorf("-only: %v", err)
	}
	if len(qs) == 0 {
		return fmt.Errorf("-only names no query")
	}
	to.queries = qs
	return nil
}

// Contender keys, in the order the contenders run.
const (
	tpchFed0  = "pgfed_w0"
	tpchPG0   = "postgres_w0"
	tpchDuck1 = "duckdb_t1"
	tpchFed2  = "pgfed_w2"
	tpchPG2   = "postgres_w2"
	tpchDuck2 = "duckdb_t2"
)

// tpchContender is one engine at one setting.
type tpchContender struct {
	key, engine, setting string
	// fetch runs the query and returns its whole answer as text.
	fetch func(ctx context.Context, sql string) (*tpchResult, error)
	// run runs the query once, reading and discarding its result, and
	// returns how long that took and the rows read.
	run func(ctx context.Context, sql string) (time.Duration, int64, error)
	// lenient compares text without trailing spaces (DuckDB).
	lenient bool
}

// runTPCH generates the data, loads it into every engine and runs the
// selected queries. Progress goes to logw.
func runTPCH(ctx context.Context, opts options, logw io.Writer) (*tpchReport, error) {
	logf := func(format string, args ...any) { fmt.Fprintf(logw, "pgfedbench: "+format+"\n", args...) }
	to := opts.tpch
	gen, err := tpch.New(to.sf, to.seed)
	if err != nil {
		return nil, err
	}
	rep := &tpchReport{
		Suite:        suiteTPCH,
		ScaleFactor:  to.sf,
		Seed:         to.seed,
		Runs:         opts.runs,
		TimeoutMS:    ms(to.timeout),
		GoVersion:    runtime.Version(),
		Platform:     runtime.GOOS + "/" + runtime.GOARCH,
		CPUs:         runtime.NumCPU(),
		GOMAXPROCS:   runtime.GOMAXPROCS(0),
		LoadAvgStart: loadAverage(),
		PGIndexes:    pgIndexesText(to.pgIndexes),
		Reading:      fmt.Sprintf("pgfed: %s; PostgreSQL: %s; DuckDB: database/sql Rows.Scan, timed inside its child process", pgfedBatches, pgRaw),
	}
	defer func() { rep.LoadAvgEnd = loadAverage() }()

	tmp, err := os.MkdirTemp("", "pgfedbench-tpch-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	dataDir := to.dataDir
	if dataDir == "" {
		dataDir = filepath.Join(tmp, "data")
	}
	files, err := generateTPCHFiles(ctx, gen, dataDir, rep, logf)
	if err != nil {
		return nil, err
	}

	logf("starting PostgreSQL")
	pg, err := startPostgres(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL: %w", err)
	}
	defer pg.close()
	rep.Settings = pg.settings
	delete(rep.Settings, "max_parallel_workers_per_gather") // the sessions set their own
	rep.Postgres = "throwaway pgtest cluster on 127.0.0.1"
	if pg.cluster == nil {
		rep.Postgres = "server given by -pgdsn"
	}
	fed, err := openPgfed()
	if err != nil {
		return nil, fmt.Errorf("pgfed: %w", err)
	}
	defer fed.close()
	if err := loadTPCH(ctx, fed, pg, files, to.pgIndexes, rep, logf); err != nil {
		return nil, err
	}

	duck := startTPCHDuckDB(ctx, to, tmp, files, rep, logf)
	if duck != nil {
		defer duck.close()
	}

	cs, closeAll, err := tpchContenders(ctx, fed, pg, duck, to.timeout)
	if err != nil {
		return nil, err
	}
	defer closeAll()

	queries := tpch.Queries(to.sf)
	for _, n := range to.queries {
		q := queries[n-1]
		res := runTPCHQuery(ctx, opts.runs, to.timeout, cs, q, logf)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rep.Queries = append(rep.Queries, res)
	}
	rep.Totals = tpchTotals(rep.Queries, duck != nil)

	path := to.jsonPath
	if path == "" {
		path = filepath.Join(os.TempDir(), fmt.Sprintf("pgfedbench-tpch-sf%s.json", strconv.FormatFloat(to.sf, 'f', -1, 64)))
	}
	rep.JSONPath = path
	if err := writeTPCHJSONFile(path, rep); err != nil {
		return nil, err
	}
	logf("wrote %s", path)
	return rep, nil
}

func pgIndexesText(setting string) string {
	switch setting {
	case pgIndexesNone:
		return "none: no primary keys, no indexes"
	case pgIndexesPK:
		return "pk: the specification's primary keys only"
	}
	return "keys: the specification's primary keys and an index on each foreign key (" +
		strings.Join(indexNames(), ", ") + ")"
}

func indexNames() []string {
	var out []string
	for _, s := range tpch.ForeignKeyIndexes() {
		// CREATE INDEX name ON table (columns)
		f := strings.Fields(s)
		out = append(out, f[4]+strings.Join(f[5:], " "))
	}
	return out
}

// tpchManifest describes generated files, so that -tpchdata can reuse
// them.
type tpchManifest struct {
	Generator   string            `json:"generator"`
	ScaleFactor float64           `json:"scale_factor"`
	Seed        uint64            `json:"seed"`
	Rows        map[string]int64  `json:"rows"`
	Bytes       map[string]int64  `json:"bytes"`
	Files       map[string]string `json:"files"`
}

// tpchGeneratorVersion changes whenever the generator's output does, so
// that older files are not reused.
const tpchGeneratorVersion = "pgfed bench/tpch 1"

const tpchManifestName = "manifest.json"

// generateTPCHFiles writes one COPY text file per table into dir, or
// reuses the files there when its manifest matches, and returns the
// files by table.
func generateTPCHFiles(ctx context.Context, gen *tpch.Generator, dir string, rep *tpchReport, logf func(string, ...any)) (map[tpch.Table]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	files := map[tpch.Table]string{}
	for _, t := range tpch.Tables {
		files[t] = filepath.Join(dir, t.String()+".tbl")
	}
	manifestPath := filepath.Join(dir, tpchManifestName)
	if m, ok := readTPCHManifest(manifestPath); ok && m.Generator == tpchGeneratorVersion &&
		m.ScaleFactor == gen.ScaleFactor() && m.Seed == gen.Seed() && tpchFilesIntact(m, files) {
		logf("reusing the generated files in %s", dir)
		for _, t := range tpch.Tables {
			rep.Tables = append(rep.Tables, tpchTable{Table: t.String(), Rows: m.Rows[t.String()], Bytes: m.Bytes[t.String()], Reused: true})
		}
		return files, nil
	}
	m := tpchManifest{Generator: tpchGeneratorVersion, ScaleFactor: gen.ScaleFactor(), Seed: gen.Seed(),
		Rows: map[string]int64{}, Bytes: map[string]int64{}, Files: map[string]string{}}
	start := time.Now()
	for _, t := range tpch.Tables {
		tstart := time.Now()
		rows, size, err := writeTPCHFile(ctx, gen, t, files[t])
		if err != nil {
			return nil, fmt.Errorf("generating %s: %w", t, err)
		}
		d := time.Since(tstart)
		rep.Tables = append(rep.Tables, tpchTable{Table: t.String(), Rows: rows, Bytes: size, GenerateMS: ms(d)})
		m.Rows[t.String()], m.Bytes[t.String()], m.Files[t.String()] = rows, size, filepath.Base(files[t])
		logf("generated %s: %d rows, %.0f MB in %.1f s", t, rows, float64(size)/1e6, d.Seconds())
	}
	rep.GenerateMS = ms(time.Since(start))
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return files, os.WriteFile(manifestPath, data, 0o644)
}

func readTPCHManifest(path string) (tpchManifest, bool) {
	var m tpchManifest
	data, err := os.ReadFile(path)
	if err != nil {
		return m, false
	}
	return m, json.Unmarshal(data, &m) == nil
}

func tpchFilesIntact(m tpchManifest, files map[tpch.Table]string) bool {
	for t, path := range files {
		st, err := os.Stat(path)
		if err != nil || st.Size() != m.Bytes[t.String()] {
			return false
		}
	}
	return true
}

func writeTPCHFile(ctx context.Context, gen *tpch.Generator, t tpch.Table, path string) (rows, size int64, err error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	cw := &countingWriter{w: f}
	rows, err = gen.WriteCopy(ctx, t, cw, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return rows, cw.n, err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// copyFromFile is a pgfed CopyHandler reading COPY FROM STDIN's data
// from an open file.
type copyFromFile struct{ r io.Reader }

func (c copyFromFile) CopyIn() (io.Reader, error) { return c.r, nil }
func (c copyFromFile) CopyOut() (io.Writer, error) {
	return nil, errors.New("pgfedbench: COPY TO STDOUT is not used")
}

// loadFedTable creates table t in pgfed's session s and fills it from
// file with COPY FROM STDIN.
func loadFedTable(ctx context.Context, s *pgfed.Session, t tpch.Table, file string) (time.Duration, error) {
	start := time.Now()
	if _, err := s.Exec(ctx, tpch.CreateTable(t)); err != nil {
		return 0, err
	}
	f, err := os.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s.SetCopyHandler(copyFromFile{f})
	defer s.SetCopyHandler(nil)
	if _, err := s.Exec(ctx, "COPY "+t.String()+" FROM STDIN"); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// loadPGTable creates table t in PostgreSQL and fills it from file with
// COPY FROM STDIN.
func loadPGTable(ctx context.Context, pg *postgresEngine, t tpch.Table, file string) (time.Duration, error) {
	start := time.Now()
	if err := pg.exec(ctx, tpch.CreateTable(t)); err != nil {
		return 0, err
	}
	f, err := os.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if _, err := pg.conn.PgConn().CopyFrom(ctx, f, "COPY "+t.String()+" FROM STDIN"); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// loadTPCH loads every table into pgfed and PostgreSQL, then builds
// PostgreSQL's indexes and runs VACUUM ANALYZE.
func loadTPCH(ctx context.Context, fed *pgfedEngine, pg *postgresEngine, files map[tpch.Table]string, indexes string, rep *tpchReport, logf func(string, ...any)) error {
	for i, t := range tpch.Tables {
		d, err := loadFedTable(ctx, fed.s, t, files[t])
		if err != nil {
			return fmt.Errorf("pgfed: loading %s: %w", t, err)
		}
		rep.Tables[i].PGFedLoadMS = ms(d)
		d2, err := loadPGTable(ctx, pg, t, files[t])
		if err != nil {
			return fmt.Errorf("PostgreSQL: loading %s: %w", t, err)
		}
		rep.Tables[i].PostgresLoadMS = ms(d2)
		logf("loaded %s: pgfed %.1f s, PostgreSQL %.1f s", t, d.Seconds(), d2.Seconds())
	}
	d, err := execAll(ctx, fed.exec, []string{"ANALYZE"})
	if err != nil {
		return fmt.Errorf("pgfed: %w", err)
	}
	rep.PGFedAnalyzeMS = ms(d)
	var stmts []string
	switch indexes {
	case pgIndexesPK:
		stmts = tpch.PrimaryKeys()
	case pgIndexesKeys:
		stmts = append(tpch.PrimaryKeys(), tpch.ForeignKeyIndexes()...)
	}
	if d, err = execAll(ctx, pg.exec, stmts); err != nil {
		return fmt.Errorf("PostgreSQL: %w", err)
	}
	rep.PostgresIndexMS = ms(d)
	// CHECKPOINT writes the load's dirty buffers now: else the
	// checkpointer writes gigabytes of them while the first queries run,
	// taking a core from whichever contender runs then.
	if d, err = execAll(ctx, pg.exec, []string{"VACUUM ANALYZE", "CHECKPOINT"}); err != nil {
		return fmt.Errorf("PostgreSQL: %w", err)
	}
	rep.PostgresVacuumMS = ms(d)
	logf("pgfed: ANALYZE %.1f s; PostgreSQL: indexes (%s) %.1f s, VACUUM ANALYZE %.1f s", rep.PGFedAnalyzeMS/1000, indexes, rep.PostgresIndexMS/1000, rep.PostgresVacuumMS/1000)
	return nil
}

// startTPCHDuckDB builds (or takes) the DuckDB child, starts it and
// loads the files; on any failure it records why in rep and returns nil.
func startTPCHDuckDB(ctx context.Context, to tpchOptions, tmp string, files map[tpch.Table]string, rep *tpchReport, logf func(string, ...any)) *duckChild {
	unavailable := func(reason string) *duckChild {
		rep.DuckDB = "not available: " + reason
		logf("DuckDB: %s", rep.DuckDB)
		return nil
	}
	bin := to.duckdb
	switch bin {
	case "off":
		return unavailable("-duckdb off")
	case "auto", "":
		logf("DuckDB: building %s", duckModuleDir)
		var err error
		if bin, err = buildDuckChild(ctx, tmp); err != nil {
			return unavailable(err.Error())
		}
	}
	child, err := startDuckChild(bin)
	if err != nil {
		return unavailable(fmt.Sprintf("starting %s: %v", bin, err))
	}
	var tables []duckTable
	for _, t := range tpch.Tables {
		abs, err := filepath.Abs(files[t])
		if err != nil {
			child.close()
			return unavailable(err.Error())
		}
		tables = append(tables, duckTable{Name: t.String(), DDL: tpch.CreateTable(t), File: abs})
	}
	start := time.Now()
	r, err := child.call(ctx, duckRequest{Op: "load", Tables: tables})
	if err != nil {
		child.close()
		return unavailable("loading the tables: " + err.Error())
	}
	for _, l := range r.Loaded {
		for i := range rep.Tables {
			if rep.Tables[i].Table == l.Table {
				rep.Tables[i].DuckDBLoadMS = l.MS
			}
		}
	}
	rep.DuckDB = "DuckDB " + r.Version + " (github.com/duckdb/duckdb-go/v2 in bench/duckdb, a child process)"
	logf("DuckDB %s: loaded in %.1f s", r.Version, time.Since(start).Seconds())
	return child
}

// tpchContenders opens the sessions: pgfed and PostgreSQL at 0 and 2
// workers, DuckDB at 1 and 2 threads when it runs. closeAll closes the
// PostgreSQL connections.
func tpchContenders(ctx context.Context, fed *pgfedEngine, pg *postgresEngine, duck *duckChild, timeout time.Duration) ([]tpchContender, func(), error) {
	var conns []*pgx.Conn
	closeAll := func() {
		for _, c := range conns {
			_ = c.Close(context.Background())
		}
	}
	timeoutSQL := fmt.Sprintf("SET statement_timeout = %d", timeout.Milliseconds())
	fedSession := func(workers int) (*pgfedEngine, error) {
		s := fed.newSession()
		_, err := execAll(ctx, s.exec, []string{fmt.Sprintf("SET max_parallel_workers_per_gather = %d", workers), timeoutSQL})
		return s, err
	}
	pgSession := func(workers int) (*postgresEngine, error) {
		conn, err := pgx.Connect(ctx, pg.dsn)
		if err != nil {
			return nil, err
		}
		conns = append(conns, conn)
		e := pgxOn(conn)
		_, err = execAll(ctx, e.exec, []string{"SET search_path = " + schemaName,
			fmt.Sprintf("SET max_parallel_workers_per_gather = %d", workers), timeoutSQL})
		return e, err
	}
	var cs []tpchContender
	for _, w := range []struct {
		workers int
		fedKey  string
		pgKey   string
		duckKey string
		threads int
	}{{0, tpchFed0, tpchPG0, tpchDuck1, 1}, {2, tpchFed2, tpchPG2, tpchDuck2, 2}} {
		f, err := fedSession(w.workers)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("pgfed: %w", err)
		}
		p, err := pgSession(w.workers)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("PostgreSQL: %w", err)
		}
		setting := fmt.Sprintf("%d workers", w.workers)
		cs = append(cs,
			tpchContender{key: w.fedKey, engine: enginePGFed, setting: setting,
				fetch: func(ctx context.Context, sql string) (*tpchResult, error) { return fedResult(ctx, f.s, sql) },
				run:   timedReader(f.batches)},
			tpchContender{key: w.pgKey, engine: enginePostgres, setting: setting,
				fetch: func(ctx context.Context, sql string) (*tpchResult, error) { return pgResult(ctx, p.conn, sql) },
				run:   timedReader(p.raw)})
		if duck != nil {
			threads := w.threads
			cs = append(cs, tpchContender{key: w.duckKey, engine: engineDuckDB, setting: fmt.Sprintf("%d threads", threads), lenient: true,
				fetch: func(ctx context.Context, sql string) (*tpchResult, error) {
					r, err := duckCall(ctx, duck, sql, threads, true, timeout)
					if err != nil {
						return nil, err
					}
					return duckResult(r), nil
				},
				run: func(ctx context.Context, sql string) (time.Duration, int64, error) {
					r, err := duckCall(ctx, duck, sql, threads, false, timeout)
					return time.Duration(r.MS * float64(time.Millisecond)), r.Rows, err
				}})
		}
	}
	// The order of the runs: at 0 workers / 1 thread, then at 2.
	sorted := make([]tpchContender, 0, len(cs))
	for _, key := range []string{tpchFed0, tpchPG0, tpchDuck1, tpchFed2, tpchPG2, tpchDuck2} {
		for _, c := range cs {
			if c.key == key {
				sorted = append(sorted, c)
			}
		}
	}
	return sorted, closeAll, nil
}

// engineDuckDB names DuckDB in the report.
const engineDuckDB = "DuckDB"

func duckCall(ctx context.Context, duck *duckChild, sql string, threads int, values bool, timeout time.Duration) (duckReply, error) {
	// The child stops the query at the timeout; the call waits a little
	// longer before it gives up on the child.
	ctx, cancel := context.WithTimeout(ctx, timeout+30*time.Second)
	defer cancel()
	return duck.call(ctx, duckRequest{Op: "query", SQL: sql, Threads: threads, Values: values, TimeoutMS: timeout.Milliseconds()})
}

// timedReader times one read of a reader made for sql.
func timedReader(mk func(sql string) reader) func(ctx context.Context, sql string) (time.Duration, int64, error) {
	return func(ctx context.Context, sql string) (time.Duration, int64, error) {
		read := mk(sql)
		start := time.Now()
		n, err := read(ctx)
		return time.Since(start), n, err
	}
}

// fedResult runs sql in a pgfed session and returns its answer as
// PostgreSQL's text output.
func fedResult(ctx context.Context, s *pgfed.Session, sql string) (*tpchResult, error) {
	rows, err := s.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	r := &tpchResult{Rows: [][]*string{}}
	for _, c := range rows.Columns() {
		r.Columns = append(r.Columns, c.Name)
		r.Kinds = append(r.Kinds, kindOfOID(c.Type.OID()))
	}
	for rows.Next() {
		row := make([]*string, len(r.Columns))
		for i := range row {
			if v, ok := rows.Text(i); ok {
				row[i] = &v
			}
		}
		r.Rows = append(r.Rows, row)
	}
	return r, rows.Err()
}

// pgResult runs sql in PostgreSQL with the simple query protocol, whose
// results come in text format, and returns the text.
func pgResult(ctx context.Context, conn *pgx.Conn, sql string) (*tpchResult, error) {
	rows, err := conn.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	r := &tpchResult{Rows: [][]*string{}}
	for _, f := range rows.FieldDescriptions() {
		r.Columns = append(r.Columns, f.Name)
		r.Kinds = append(r.Kinds, kindOfOID(f.DataTypeOID))
	}
	for rows.Next() {
		raw := rows.RawValues()
		row := make([]*string, len(raw))
		for i, v := range raw {
			if v != nil {
				s := string(v)
				row[i] = &s
			}
		}
		r.Rows = append(r.Rows, row)
	}
	return r, rows.Err()
}

// runTPCHQuery checks every contender's answer to q, then times those
// whose answer was right.
func runTPCHQuery(ctx context.Context, runs int, timeout time.Duration, cs []tpchContender, q tpch.Query, logf func(string, ...any)) tpchQuery {
	res := tpchQuery{Query: q.Name, Title: q.Title, Params: q.Params, SQL: q.SQL, Results: map[string]*tpchCell{}}
	var want *tpchResult
	var refErr string
	ok := map[string]bool{}
	// The reference first: PostgreSQL at 0 workers.
	ordered := append([]tpchContender(nil), cs...)
	for i, c := range ordered {
		if c.key == tpchPG0 {
			ordered[0], ordered[i] = ordered[i], ordered[0]
		}
	}
	for _, c := range ordered {
		cell := &tpchCell{Engine: c.engine, Setting: c.setting}
		res.Results[c.key] = cell
		runtime.GC()
		start := time.Now()
		got, err := c.fetch(ctx, q.SQL)
		cell.CheckMS = ms(time.Since(start))
		switch {
		case ctx.Err() != nil:
			return res
		case err != nil:
			cell.Error = describeError(err)
			if isTimeout(err) || cell.CheckMS >= ms(timeout) {
				cell.Error = fmt.Sprintf("timed out after %s: %s", timeout, cell.Error)
			}
		case c.key == tpchPG0:
			want = got
			cell.Rows = int64(len(got.Rows))
		case want == nil:
			cell.Rows = int64(len(got.Rows))
			cell.Error = "not checked: the reference (PostgreSQL, 0 workers) failed: " + refErr
			cell.Unchecked = true
		default:
			cell.Rows = int64(len(got.Rows))
			if d := compareResults(want, got, q.Ordered, compareOptions{trimText: c.lenient}); d != "" {
				cell.Error = "wrong answer: " + d
				cell.Wrong = true
			}
		}
		if c.key == tpchPG0 && cell.Error != "" {
			refErr = cell.Error
		}
		if cell.Error == "" {
			ok[c.key] = true
		} else {
			logf("%s: %s, %s: %s", q.Name, c.engine, c.setting, firstLine(cell.Error))
		}
	}
	// The timed runs, in turns.
	for range runs {
		for _, c := range cs {
			if !ok[c.key] {
				continue
			}
			runtime.GC()
			cell := res.Results[c.key]
			if waited, settled := waitIdle(3 * time.Second); !settled {
				cell.Unsettled++
				logf("%s: %s, %s: the machine was still busy after %.1f s", q.Name, c.engine, c.setting, waited.Seconds())
			}
			before := sampleCPU()
			d, n, err := c.run(ctx, q.SQL)
			if ctx.Err() != nil {
				return res
			}
			if use, ok := cpuSince(before); ok {
				cell.CPU = append(cell.CPU, use)
			}
			if err != nil {
				cell.Error = "timed run: " + describeError(err)
				ok[c.key] = false
				logf("%s: %s, %s: %s", q.Name, c.engine, c.setting, firstLine(cell.Error))
				continue
			}
			if n != cell.Rows {
				cell.Error = fmt.Sprintf("timed run read %d rows, the checked run %d", n, cell.Rows)
				ok[c.key] = false
				continue
			}
			cell.durations = append(cell.durations, d)
		}
	}
	var parts []string
	for _, c := range cs {
		cell := res.Results[c.key]
		if ok[c.key] && len(cell.durations) > 0 {
			t := newTiming(cell.durations)
			cell.Timing = &t
			parts = append(parts, fmt.Sprintf("%s %s %.0f ms", c.engine, c.setting, t.MedianMS))
		}
	}
	logf("%s: %s", q.Name, strings.Join(parts, ", "))
	return res
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	if pe := pgError(err); pe != nil && pe.Code == "57014" {
		return true
	}
	return pgfed.ErrorCode(err) == "57014"
}
