package main

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/pgtest"
)

// asyncFixture is everything the async suite runs against: the data
// servers behind their delay proxies, the coordinator PostgreSQL with a
// sync and an async session, and pgfed with a sync and an async session.
type asyncFixture struct {
	rows int // rows in each table on the data servers

	clusters  []*pgtest.Cluster // the data servers, then the coordinator
	data      []*pgtest.Cluster
	dataConns []*pgx.Conn    // direct, to load the data servers
	proxies   []latencyProxy // proxies[i] forwards to data[i], from a child process

	coord         *pgtest.Cluster
	coordSync     *pgx.Conn // enable_async_append = off
	coordAsync    *pgx.Conn // enable_async_append = on
	coordSettings map[string]string

	db       *pgfed.DB
	fedSync  *pgfed.Session // enable_async_append = off
	fedAsync *pgfed.Session // enable_async_append = on; the DB's default session

	// multiErr is why pgfed refused the async_connections server option,
	// nil if it took it.
	multiErr error
}

// startAsync starts the clusters and the proxies, and opens the sessions.
// On error, whatever was started is stopped.
func startAsync(ctx context.Context, opts options) (_ *asyncFixture, err error) {
	fx := &asyncFixture{rows: opts.async.rows}
	defer func() {
		if err != nil {
			fx.close()
		}
	}()
	fx.clusters, err = pgtest.StartN(ctx, asyncServers+1, pgtest.Options{
		Settings: map[string]string{
			"shared_buffers":                  opts.pgShared,
			"max_parallel_workers_per_gather": "0",
		},
	})
	if err != nil {
		return nil, err
	}
	fx.data, fx.coord = fx.clusters[:asyncServers], fx.clusters[asyncServers]
	for _, c := range fx.data {
		conn, err := pgx.Connect(ctx, c.DSN("postgres"))
		if err != nil {
			return nil, err
		}
		fx.dataConns = append(fx.dataConns, conn)
		p, err := startProcessProxy(fmt.Sprintf("127.0.0.1:%d", c.Port()))
		if err != nil {
			return nil, fmt.Errorf("delay proxy: %w", err)
		}
		fx.proxies = append(fx.proxies, p)
	}

	for _, cs := range []struct {
		conn  **pgx.Conn
		async string
	}{{&fx.coordSync, "off"}, {&fx.coordAsync, "on"}} {
		if *cs.conn, err = pgx.Connect(ctx, fx.coord.DSN("postgres")); err != nil {
			return nil, err
		}
		setup := []string{
			"SET max_parallel_workers_per_gather = 0",
			"SET enable_partitionwise_aggregate = off",
			"SET enable_async_append = " + cs.async,
		}
		if _, err := execAll(ctx, pgxExec(*cs.conn), setup); err != nil {
			return nil, fmt.Errorf("coordinator: %w", err)
		}
	}
	fx.coordSettings = map[string]string{}
	for _, name := range coordinatorSettings {
		var v string
		if err := fx.coordAsync.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&v); err != nil {
			return nil, err
		}
		fx.coordSettings[name] = v
	}
	if !strings.HasPrefix(fx.coordSettings["server_version"], "15") {
		return nil, fmt.Errorf("PostgreSQL 15 is required for the comparison, the servers are %s", fx.coordSettings["server_version"])
	}

	if fx.db, err = pgfed.Open(); err != nil {
		return nil, fmt.Errorf("pgfed: %w", err)
	}
	fx.fedAsync, fx.fedSync = fx.db.Session(), fx.db.NewSession()
	for _, fs := range []struct {
		s     *pgfed.Session
		async string
	}{{fx.fedSync, "off"}, {fx.fedAsync, "on"}} {
		// max_parallel_workers_per_gather = 0: t0 and pl compare the
		// synchronous path, single-threaded like the foreign workloads.
		sets := "SET pgfed.pushdown = off; SET enable_partitionwise_aggregate = off; SET max_parallel_workers_per_gather = 0; SET enable_async_append = " + fs.async
		if _, err := fs.s.Exec(ctx, sets); err != nil {
			return nil, fmt.Errorf("pgfed: %s: %w", sets, err)
		}
	}
	return fx, nil
}

// close disconnects, stops the proxies and stops every cluster: pgfed and
// the coordinator first, so that their remote connections end before the
// proxies and the servers do.
func (fx *asyncFixture) close() {
	if fx.db != nil {
		_ = fx.db.Close()
	}
	for _, c := range append(append([]*pgx.Conn{}, fx.dataConns...), fx.coordSync, fx.coordAsync) {
		if c != nil {
			_ = c.Close(context.Background())
		}
	}
	for _, p := range fx.proxies {
		_ = p.Close()
	}
	for _, c := range fx.clusters {
		_ = c.Stop()
	}
}

// setDelay sets every proxy's one-way latency.
func (fx *asyncFixture) setDelay(d time.Duration) {
	for _, p := range fx.proxies {
		p.SetDelay(d)
	}
}

// serverBytes is the number of bytes the data servers have sent through
// the proxies so far.
func (fx *asyncFixture) serverBytes() int64 {
	var n int64
	for _, p := range fx.proxies {
		n += p.BytesToClient()
	}
	return n
}

// serverTables lists the tables of data server i (0-based), by their
// 0-based number: t_{i+1}, and on the first server all four, for pf0.
func serverTables(i int) []int {
	if i == 0 {
		return []int{0, 1, 2, 3}
	}
	return []int{i}
}

// load creates and fills the data servers' tables, the servers
// concurrently, and returns the time each table took.
func (fx *asyncFixture) load(ctx context.Context, data dataset) ([]remoteLoad, error) {
	loads := make([][]remoteLoad, len(fx.data))
	g, gctx := errgroup.WithContext(ctx)
	for i, conn := range fx.dataConns {
		g.Go(func() error {
			exec := pgxExec(conn)
			for _, t := range serverTables(i) {
				l := remoteLoad{Server: i + 1, Table: dataTable(t), Rows: fx.rows}
				d, err := execAll(gctx, exec, []string{
					fmt.Sprintf("CREATE TABLE %s (a integer, b integer)", l.Table),
					fmt.Sprintf("INSERT INTO %s SELECT %d + g, %s FROM generate_series(0, %d) AS g",
						l.Table, t*fx.rows, data.bSQL(), fx.rows-1),
				})
				if err != nil {
					return fmt.Errorf("data server %d: %w", i+1, err)
				}
				l.LoadMS = ms(d)
				if d, err = execAll(gctx, exec, []string{"VACUUM ANALYZE " + l.Table}); err != nil {
					return fmt.Errorf("data server %d: %w", i+1, err)
				}
				l.VacuumMS = ms(d)
				loads[i] = append(loads[i], l)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var out []remoteLoad
	for _, ls := range loads {
		out = append(out, ls...)
	}
	return out, nil
}

// loadLocal creates and fills pgfed's own tables, t0 and pl, with the
// same values of a as the data servers hold together, and returns the
// time that took.
func (fx *asyncFixture) loadLocal(ctx context.Context, sequential bool) (float64, error) {
	total := asyncServers * fx.rows
	insert := func(table string) string {
		return fmt.Sprintf("INSERT INTO %s SELECT g, %s FROM generate_series(0, %d) AS g",
			table, newDataset(total, sequential).bSQL(), total-1)
	}
	stmts := []string{
		"CREATE TABLE t0 (a integer, b integer)",
		insert("t0"),
		"CREATE TABLE pl (a integer, b integer) PARTITION BY RANGE (a)",
	}
	for i := range asyncServers {
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE pl_%d PARTITION OF pl FOR VALUES FROM (%d) TO (%d)",
			i+1, i*fx.rows, (i+1)*fx.rows))
	}
	stmts = append(stmts, insert("pl"))
	d, err := execAll(ctx, fx.fedExec, stmts)
	if err != nil {
		return 0, fmt.Errorf("pgfed: %w", err)
	}
	return ms(d), nil
}

func (fx *asyncFixture) fedExec(ctx context.Context, sql string) error {
	_, err := fx.fedAsync.Exec(ctx, sql)
	return err
}

// serverSQL declares foreign server name over data server i (0-based),
// through its proxy, with extra options appended, and the user mapping.
func (fx *asyncFixture) serverSQL(name string, i int, extra string) []string {
	return []string{
		fmt.Sprintf("CREATE SERVER %s FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '%d', dbname 'postgres', fetch_size '%d', async_capable 'true'%s)",
			name, fx.proxies[i].Port(), asyncFetchSize, extra),
		fmt.Sprintf("CREATE USER MAPPING FOR CURRENT_USER SERVER %s OPTIONS (user 'postgres')", name),
	}
}

// partitionedSQL declares table name (a integer, b integer), partitioned
// by range of a, whose partition i (0-based) is a foreign table over
// t_{i+1} on server servers[i].
func (fx *asyncFixture) partitionedSQL(name string, servers []string) []string {
	stmts := []string{fmt.Sprintf("CREATE TABLE %s (a integer, b integer) PARTITION BY RANGE (a)", name)}
	for i, srv := range servers {
		stmts = append(stmts, fmt.Sprintf(
			"CREATE FOREIGN TABLE %s_%d PARTITION OF %s FOR VALUES FROM (%d) TO (%d) SERVER %s OPTIONS (schema_name 'public', table_name '%s')",
			name, i+1, name, i*fx.rows, (i+1)*fx.rows, srv, dataTable(i)))
	}
	return stmts
}

// declare creates pf0 and pf1 in both engines, and pf0m in pgfed if it
// takes the async_connections option. The coordinator then analyzes the
// foreign partitions, so that it plans with the real row counts; it
// returns the time that took.
func (fx *asyncFixture) declare(ctx context.Context) (analyzeMS float64, err error) {
	var stmts []string
	for i := range fx.data {
		stmts = append(stmts, fx.serverSQL(fmt.Sprintf("s%d", i+1), i, "")...)
	}
	stmts = append(stmts, fx.partitionedSQL("pf0", []string{"s1", "s1", "s1", "s1"})...)
	stmts = append(stmts, fx.partitionedSQL("pf1", []string{"s1", "s2", "s3", "s4"})...)

	coordStmts := append([]string{"CREATE EXTENSION postgres_fdw"}, stmts...)
	if _, err := execAll(ctx, pgxExec(fx.coordAsync), coordStmts); err != nil {
		return 0, fmt.Errorf("coordinator: %w", err)
	}
	var partitions []string
	for _, t := range []string{"pf0", "pf1"} {
		for i := range asyncServers {
			partitions = append(partitions, fmt.Sprintf("%s_%d", t, i+1))
		}
	}
	d, err := execAll(ctx, pgxExec(fx.coordAsync), []string{"ANALYZE " + strings.Join(partitions, ", ")})
	if err != nil {
		return 0, fmt.Errorf("coordinator: %w", err)
	}

	if _, err := execAll(ctx, fx.fedExec, stmts); err != nil {
		return 0, fmt.Errorf("pgfed: %w", err)
	}
	if err := fx.declareMulti(ctx); err != nil {
		return 0, fmt.Errorf("pgfed: %w", err)
	}
	return ms(d), nil
}

// declareMulti declares pf0m, pf0 over server s1m: data server 1 with
// async_connections. If pgfed rejects the option as invalid, multiErr
// says so and pf0m is not declared.
func (fx *asyncFixture) declareMulti(ctx context.Context) error {
	server := fx.serverSQL("s1m", 0, fmt.Sprintf(", async_connections '%d'", asyncConnections))
	err := fx.fedExec(ctx, server[0])
	if pe, ok := pgerr.As(err); ok && pe.Code == pgerr.FDWInvalidOptionName {
		fx.multiErr = fmt.Errorf("%s: %w", server[0], err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", server[0], err)
	}
	stmts := append(server[1:], fx.partitionedSQL("pf0m", []string{"s1m", "s1m", "s1m", "s1m"})...)
	_, err = execAll(ctx, fx.fedExec, stmts)
	return err
}

// contenders are the ways to run w: pgfed sync and async, then
// PostgreSQL sync and async if it runs w.
func (fx *asyncFixture) contenders(w asyncWorkload) []asyncContender {
	cs := []asyncContender{
		fedAsyncContender("pgfed-sync", "pgfed sync", fx.fedSync, w.sql),
		fedAsyncContender("pgfed-async", "pgfed async", fx.fedAsync, w.sql),
	}
	if w.postgres {
		cs = append(cs,
			pgAsyncContender("postgres-sync", "PostgreSQL sync", fx.coordSync, w.sql),
			pgAsyncContender("postgres-async", "PostgreSQL async", fx.coordAsync, w.sql))
	}
	return cs
}

func fedAsyncContender(key, label string, s *pgfed.Session, sql string) asyncContender {
	return asyncContender{
		key:   key,
		label: label,
		read:  fedContender(key, label, s, sql).read,
		answer: func(ctx context.Context) ([]string, error) {
			rows, err := s.Query(ctx, sql)
			if err != nil {
				return nil, err
			}
			defer rows.Close()
			var out []string
			for rows.Next() {
				out = append(out, fmt.Sprint(rows.Values()...))
			}
			return out, rows.Err()
		},
	}
}

func pgAsyncContender(key, label string, conn *pgx.Conn, sql string) asyncContender {
	return asyncContender{
		key:   key,
		label: label,
		read:  pgxOn(conn).raw(sql),
		answer: func(ctx context.Context) ([]string, error) {
			rows, err := conn.Query(ctx, sql)
			if err != nil {
				return nil, err
			}
			defer rows.Close()
			var out []string
			for rows.Next() {
				vals, err := rows.Values()
				if err != nil {
					return nil, err
				}
				out = append(out, fmt.Sprint(vals...))
			}
			return out, rows.Err()
		},
	}
}

// asyncMinRowBytes is the least a row of one integer takes on the wire
// (a DataRow message: type, length, column count, value length, at least
// one digit): fewer bytes than rows times this from the servers means the
// rows did not travel.
const asyncMinRowBytes = 12

// checkWorkload runs every contender of w once, as its warm-up, and
// returns those that gave the right answer, the sum of 0 .. 4n-1, with
// what the run took; the others are failures. A contender of a foreign
// workload that got fewer bytes from the servers than the rows take
// failed too: its aggregate was computed remotely.
func (fx *asyncFixture) checkWorkload(ctx context.Context, w asyncWorkload, lat time.Duration) ([]asyncChecked, []workloadError) {
	total := int64(asyncServers) * int64(fx.rows)
	want := fmt.Sprint(total * (total - 1) / 2)
	var (
		ok   []asyncChecked
		errs []workloadError
	)
	for _, c := range fx.contenders(w) {
		fail := func(msg string) {
			errs = append(errs, workloadError{Workload: w.name, Contender: fmt.Sprintf("%s at %v", c.label, lat), SQL: w.sql, Error: msg})
		}
		before := fx.serverBytes()
		start := time.Now()
		got, err := c.answer(ctx)
		elapsed := time.Since(start)
		bytes := fx.serverBytes() - before
		switch {
		case err != nil:
			fail(describeError(err))
		case len(got) != 1 || got[0] != want:
			fail(fmt.Sprintf("wrong answer: %q, want [%s]", got, want))
		case w.foreign && bytes < total*asyncMinRowBytes:
			fail(fmt.Sprintf("only %d bytes came from the data servers for %d rows: the rows did not travel (aggregate pushed down?)", bytes, total))
		default:
			ok = append(ok, asyncChecked{asyncContender: c, checkTime: elapsed, serverBytes: bytes})
		}
	}
	return ok, errs
}

// checkPlans returns EXPLAIN (VERBOSE, COSTS OFF) of w in every session
// that runs it, and a failure for each plan that does not do what the
// suite measures: for a foreign workload, a sum in a Remote SQL (rows
// would not travel), or Async Foreign Scans in a sync session or none in
// an async one.
func (fx *asyncFixture) checkPlans(ctx context.Context, w asyncWorkload) ([]remotePlan, []workloadError) {
	if w.multi && fx.multiErr != nil {
		return nil, nil
	}
	explain := "EXPLAIN (VERBOSE, COSTS OFF) " + w.sql
	type session struct {
		engine, setting string
		async           bool
		lines           func() ([]string, error)
	}
	sessions := []session{
		{"pgfed", "enable_async_append = off", false, func() ([]string, error) { return fedLines(ctx, fx.fedSync, explain) }},
		{"pgfed", "enable_async_append = on", true, func() ([]string, error) { return fedLines(ctx, fx.fedAsync, explain) }},
	}
	if w.postgres {
		sessions = append(sessions,
			session{"PostgreSQL", "enable_async_append = off", false, func() ([]string, error) { return pgxLines(ctx, fx.coordSync, explain) }},
			session{"PostgreSQL", "enable_async_append = on", true, func() ([]string, error) { return pgxLines(ctx, fx.coordAsync, explain) }})
	}
	if w.foreign {
		analyze := "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) " + w.sql
		sessions = append(sessions,
			session{"pgfed", "enable_async_append = off, ANALYZE", false, func() ([]string, error) { return fedLines(ctx, fx.fedSync, analyze) }},
			session{"pgfed", "enable_async_append = on, ANALYZE", true, func() ([]string, error) { return fedLines(ctx, fx.fedAsync, analyze) }})
	}
	var (
		plans []remotePlan
		errs  []workloadError
	)
	for _, s := range sessions {
		lines, err := s.lines()
		plans = append(plans, remotePlan{Engine: s.engine, Setting: s.setting, SQL: w.sql, Plan: planText(lines, err)})
		var problems []string
		if err != nil {
			problems = append(problems, describeError(err))
		} else if w.foreign && strings.HasSuffix(s.setting, "ANALYZE") {
			problems = analyzeProblems(lines, s.async)
		} else if w.foreign {
			problems = planProblems(lines, s.async)
		}
		for _, p := range problems {
			errs = append(errs, workloadError{Workload: w.name, Contender: "EXPLAIN, " + s.engine + " " + s.setting, SQL: explain, Error: p})
		}
	}
	return plans, errs
}

// planProblems checks an EXPLAIN VERBOSE of a foreign workload: no
// aggregate shipped, and async scans exactly when async is on.
func planProblems(lines []string, async bool) []string {
	var problems []string
	asyncScans := 0
	for _, l := range lines {
		lower := strings.ToLower(l)
		if strings.Contains(lower, "remote sql:") && strings.Contains(lower, "sum(") ||
			strings.Contains(lower, "relations: aggregate on") {
			problems = append(problems, "the aggregate is pushed down: "+strings.TrimSpace(l))
		}
		if strings.Contains(l, "Async Foreign Scan") {
			asyncScans++
		}
	}
	switch {
	case async && asyncScans == 0:
		problems = append(problems, "no Async Foreign Scan with enable_async_append = on")
	case !async && asyncScans > 0:
		problems = append(problems, fmt.Sprintf("%d Async Foreign Scans with enable_async_append = off", asyncScans))
	}
	return problems
}

// analyzeProblems checks pgfed's EXPLAIN ANALYZE of a foreign workload:
// with async on, every row the Append returned came from an async child
// (Async Rows, no Sync Rows); with async off, none did.
func analyzeProblems(lines []string, async bool) []string {
	var appendRows, asyncRows, syncRows string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "->  Append (actual rows=") || strings.HasPrefix(t, "Append (actual rows="):
			appendRows, _, _ = strings.Cut(strings.TrimPrefix(strings.TrimPrefix(t, "->  "), "Append (actual rows="), " ")
		case appendRows != "" && asyncRows == "" && strings.HasPrefix(t, "Async Rows: "):
			asyncRows = strings.TrimPrefix(t, "Async Rows: ")
		case appendRows != "" && syncRows == "" && strings.HasPrefix(t, "Sync Rows: "):
			syncRows = strings.TrimPrefix(t, "Sync Rows: ")
		}
	}
	switch {
	case appendRows == "":
		return []string{"no Append in EXPLAIN ANALYZE"}
	case async && (asyncRows != appendRows || syncRows != "0"):
		return []string{fmt.Sprintf("with enable_async_append = on the Append returned %s rows, %q of them async and %q sync: the scans did not run asynchronously", appendRows, asyncRows, syncRows)}
	case !async && asyncRows != "":
		return []string{fmt.Sprintf("with enable_async_append = off the Append counted %s async rows", asyncRows)}
	}
	return nil
}

// asyncPings is how many SELECT 1 round trips pingRoundTrips times each
// way.
const asyncPings = 21

// pingRoundTrips measures what the proxies add: the median round trip of
// SELECT 1 on data server 1, directly and through its proxy, in ms.
func (fx *asyncFixture) pingRoundTrips(ctx context.Context) (direct, proxied float64, err error) {
	dsn, err := url.Parse(fx.data[0].DSN("postgres"))
	if err != nil {
		return 0, 0, err
	}
	dsn.Host = fx.proxies[0].Addr()
	viaProxy, err := pgx.Connect(ctx, dsn.String())
	if err != nil {
		return 0, 0, fmt.Errorf("through the proxy: %w", err)
	}
	defer viaProxy.Close(context.Background())
	median := func(conn *pgx.Conn) (float64, error) {
		var ds []time.Duration
		for range asyncPings {
			start := time.Now()
			if _, err := conn.Exec(ctx, "SELECT 1"); err != nil {
				return 0, err
			}
			ds = append(ds, time.Since(start))
		}
		return newTiming(ds).MedianMS, nil
	}
	if direct, err = median(fx.dataConns[0]); err != nil {
		return 0, 0, err
	}
	if proxied, err = median(viaProxy); err != nil {
		return 0, 0, fmt.Errorf("through the proxy: %w", err)
	}
	return direct, proxied, nil
}
