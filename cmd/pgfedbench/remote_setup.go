package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/sync/errgroup"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/pgtest"
)

// remoteFixture is everything the remote suite runs against: the data
// servers, the coordinator PostgreSQL with two sessions (partitionwise
// aggregation off and on), and pgfed with two sessions (pushdown off and
// on).
type remoteFixture struct {
	rows int // rows on each data server

	clusters []*pgtest.Cluster // the data servers, then the coordinator
	data     []*pgtest.Cluster
	// dataConns connect to the data servers, to load them; dataConns[0]
	// also runs the pgx readers of the decode workload.
	dataConns []*pgx.Conn

	coord         *pgtest.Cluster
	coordOff      *pgx.Conn // enable_partitionwise_aggregate = off
	coordOn       *pgx.Conn // enable_partitionwise_aggregate = on
	coordSettings map[string]string

	db     *pgfed.DB
	fedOff *pgfed.Session // pgfed.pushdown = off
	fedOn  *pgfed.Session // pgfed.pushdown = on; the DB's default session
}

// Contender keys, stable names for the JSON and the profiles.
const (
	keyPGFedOff    = "pgfed-off"
	keyPGFedOn     = "pgfed-on"
	keyPostgresOff = "postgres-off"
	keyPostgresOn  = "postgres-on"

	decodeLimitKey = "pgx-scan"
)

// coordinatorSettings are reported with the results: the version and the
// settings that most change the coordinator's timings.
var coordinatorSettings = []string{"server_version", "max_parallel_workers_per_gather", "shared_buffers", "work_mem", "jit"}

// decodeFetchSizes are the fetch sizes of the decode workload's foreign
// tables and cursors.
var decodeFetchSizes = []int{100, 10000}

// startRemote starts the clusters and connects to them. On error,
// whatever was started is stopped.
func startRemote(ctx context.Context, opts options) (_ *remoteFixture, err error) {
	fx := &remoteFixture{rows: opts.remote.rows}
	defer func() {
		if err != nil {
			fx.close()
		}
	}()
	fx.clusters, err = pgtest.StartN(ctx, remoteServers+1, pgtest.Options{
		Settings: map[string]string{
			"shared_buffers": opts.pgShared,
			// The data servers' plain pgx query (the decode limit) must
			// not go parallel either; cursors never do.
			"max_parallel_workers_per_gather": "0",
		},
	})
	if err != nil {
		return nil, err
	}
	fx.data, fx.coord = fx.clusters[:remoteServers], fx.clusters[remoteServers]
	for _, c := range fx.data {
		conn, err := pgx.Connect(ctx, c.DSN("postgres"))
		if err != nil {
			return nil, err
		}
		fx.dataConns = append(fx.dataConns, conn)
	}

	for _, pw := range []struct {
		conn  **pgx.Conn
		value string
	}{{&fx.coordOff, "off"}, {&fx.coordOn, "on"}} {
		if *pw.conn, err = pgx.Connect(ctx, fx.coord.DSN("postgres")); err != nil {
			return nil, err
		}
		setup := []string{
			"SET max_parallel_workers_per_gather = 0",
			"SET enable_partitionwise_aggregate = " + pw.value,
		}
		if _, err := execAll(ctx, pgxExec(*pw.conn), setup); err != nil {
			return nil, fmt.Errorf("coordinator: %w", err)
		}
	}
	fx.coordSettings = map[string]string{}
	for _, name := range coordinatorSettings {
		var v string
		if err := fx.coordOn.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&v); err != nil {
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
	fx.fedOn, fx.fedOff = fx.db.Session(), fx.db.NewSession()
	for _, pd := range []struct {
		s     *pgfed.Session
		value string
	}{{fx.fedOff, "off"}, {fx.fedOn, "on"}} {
		// Pushdown "on" is everything pgfed can ship: conditions and,
		// with partitionwise aggregation, partial aggregates per partition
		// (the PostgreSQL side gets enable_partitionwise_aggregate too).
		sets := fmt.Sprintf("SET pgfed.pushdown = %s; SET enable_partitionwise_aggregate = %s", pd.value, pd.value)
		if _, err := pd.s.Exec(ctx, sets); err != nil {
			return nil, fmt.Errorf("pgfed: %w", err)
		}
	}
	return fx, nil
}

// close disconnects and stops every cluster. pgfed goes first, so that
// its remote connections end before their servers do.
func (fx *remoteFixture) close() {
	if fx.db != nil {
		_ = fx.db.Close()
	}
	for _, c := range append(append([]*pgx.Conn{}, fx.dataConns...), fx.coordOff, fx.coordOn) {
		if c != nil {
			_ = c.Close(context.Background())
		}
	}
	for _, c := range fx.clusters {
		_ = c.Stop()
	}
}

// load creates and fills t_i on data server i, the four concurrently, and
// returns the time each took.
func (fx *remoteFixture) load(ctx context.Context, data dataset) ([]remoteLoad, error) {
	loads := make([]remoteLoad, len(fx.data))
	g, gctx := errgroup.WithContext(ctx)
	for i, conn := range fx.dataConns {
		g.Go(func() error {
			l := remoteLoad{Server: i + 1, Table: dataTable(i), Rows: fx.rows}
			exec := pgxExec(conn)
			d, err := execAll(gctx, exec, []string{
				fmt.Sprintf("CREATE TABLE %s (a integer, b integer)", l.Table),
				fmt.Sprintf("INSERT INTO %s SELECT %d + g, %s FROM generate_series(0, %d) AS g",
					l.Table, i*fx.rows, data.bSQL(), fx.rows-1),
			})
			if err != nil {
				return fmt.Errorf("data server %d: %w", i+1, err)
			}
			l.LoadMS = ms(d)
			if d, err = execAll(gctx, exec, []string{"VACUUM ANALYZE " + l.Table}); err != nil {
				return fmt.Errorf("data server %d: %w", i+1, err)
			}
			l.VacuumMS = ms(d)
			loads[i] = l
			return nil
		})
	}
	return loads, g.Wait()
}

// dataTable is the table on data server i (0-based), t_1 to t_4.
func dataTable(i int) string { return fmt.Sprintf("t_%d", i+1) }

// partitionSQL is the partitioned table both engines declare over the
// data servers, fetching fetchSize rows at a time: the servers, the user
// mappings and p with its foreign partitions.
func (fx *remoteFixture) partitionSQL(fetchSize int) []string {
	var stmts []string
	for i, c := range fx.data {
		stmts = append(stmts,
			fmt.Sprintf("CREATE SERVER s%d FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '%d', dbname 'postgres', fetch_size '%d')",
				i+1, c.Port(), fetchSize),
			fmt.Sprintf("CREATE USER MAPPING FOR CURRENT_USER SERVER s%d OPTIONS (user 'postgres')", i+1))
	}
	stmts = append(stmts, "CREATE TABLE p (a integer, b integer) PARTITION BY RANGE (a)")
	for i := range fx.data {
		stmts = append(stmts, fmt.Sprintf(
			"CREATE FOREIGN TABLE p%d PARTITION OF p FOR VALUES FROM (%d) TO (%d) SERVER s%d OPTIONS (schema_name 'public', table_name '%s')",
			i+1, i*fx.rows, (i+1)*fx.rows, i+1, dataTable(i)))
	}
	return stmts
}

// decodeTable is the name of the decode workload's foreign table with the
// given fetch size.
func decodeTable(fetchSize int) string { return fmt.Sprintf("ft_fetch%d", fetchSize) }

// declare creates the foreign tables: p in both engines, and in pgfed
// also the decode workload's plain foreign tables over t_1. The
// coordinator then analyzes p's partitions, so that it plans with the
// real row counts; it returns the time that took (postgres_fdw samples by
// reading each table whole).
func (fx *remoteFixture) declare(ctx context.Context, fetchSize int) (analyzeMS float64, err error) {
	stmts := fx.partitionSQL(fetchSize)
	coordStmts := append([]string{"CREATE EXTENSION postgres_fdw"}, stmts...)
	if _, err := execAll(ctx, pgxExec(fx.coordOn), coordStmts); err != nil {
		return 0, fmt.Errorf("coordinator: %w", err)
	}
	var partitions []string
	for i := range fx.data {
		partitions = append(partitions, fmt.Sprintf("p%d", i+1))
	}
	d, err := execAll(ctx, pgxExec(fx.coordOn), []string{"ANALYZE " + strings.Join(partitions, ", ")})
	if err != nil {
		return 0, fmt.Errorf("coordinator: %w", err)
	}

	for _, n := range decodeFetchSizes {
		stmts = append(stmts, fmt.Sprintf(
			"CREATE FOREIGN TABLE %s (a integer, b integer) SERVER s1 OPTIONS (schema_name 'public', table_name '%s', fetch_size '%d')",
			decodeTable(n), dataTable(0), n))
	}
	exec := func(ctx context.Context, sql string) error {
		_, err := fx.fedOn.Exec(ctx, sql)
		return err
	}
	if _, err := execAll(ctx, exec, stmts); err != nil {
		return 0, fmt.Errorf("pgfed: %w", err)
	}
	return ms(d), nil
}

// remoteContender is a contender with what the answer check and the
// report need to know about it.
type remoteContender struct {
	key       string
	label     string
	sql       string
	fetchSize int  // decode workload: rows per FETCH; 0 for a plain query
	pgfed     bool // profiled with -cpuprofile
	read      reader
	// fingerprint reads the same result as read, summarizing it.
	fingerprint func(ctx context.Context) (fingerprint, error)
}

// partitionedContenders are the four ways to run sql over p, pgfed's
// first; the last, PostgreSQL's, is the reference answer.
func (fx *remoteFixture) partitionedContenders(sql string) []remoteContender {
	cs := []remoteContender{
		fedContender(keyPGFedOff, "pgfed pushdown off", fx.fedOff, sql),
		fedContender(keyPGFedOn, "pgfed pushdown on", fx.fedOn, sql),
	}
	for _, pg := range []struct {
		key, label string
		conn       *pgx.Conn
	}{
		{keyPostgresOff, "PostgreSQL partitionwise off", fx.coordOff},
		{keyPostgresOn, "PostgreSQL partitionwise on", fx.coordOn},
	} {
		e := pgxOn(pg.conn)
		cs = append(cs, remoteContender{
			key:   pg.key,
			label: pg.label,
			sql:   sql,
			read:  e.raw(sql),
			fingerprint: func(ctx context.Context) (fingerprint, error) {
				return e.fingerprint(ctx, sql, false)
			},
		})
	}
	return cs
}

// decodeContenders read t_1 whole: pgfed's plain foreign scans, pgx
// cursors, and last pgx's plain query, the limit and reference answer.
func (fx *remoteFixture) decodeContenders() []remoteContender {
	var cs []remoteContender
	for _, n := range decodeFetchSizes {
		sql := "SELECT a, b FROM " + decodeTable(n)
		c := fedContender(fmt.Sprintf("pgfed-fetch%d", n), "pgfed ForeignScan, NextBatch", fx.fedOn, sql)
		c.fetchSize = n
		cs = append(cs, c)
	}
	direct := "SELECT a, b FROM " + dataTable(0)
	for _, n := range decodeFetchSizes {
		cur := cursorReader{conn: fx.dataConns[0], sql: direct, fetchSize: n}
		cs = append(cs, remoteContender{
			key:         fmt.Sprintf("pgx-cursor%d", n),
			label:       "pgx cursor FETCH, rows.Scan",
			sql:         direct,
			fetchSize:   n,
			read:        cur.scan,
			fingerprint: cur.fingerprint,
		})
	}
	e := pgxOn(fx.dataConns[0])
	return append(cs, remoteContender{
		key:   decodeLimitKey,
		label: "pgx rows.Scan, plain query (the limit)",
		sql:   direct,
		read:  e.scan(direct),
		fingerprint: func(ctx context.Context) (fingerprint, error) {
			return e.fingerprint(ctx, direct, false)
		},
	})
}

// plans returns EXPLAIN (VERBOSE, COSTS OFF) of sql in every setting of
// both engines; a failing EXPLAIN gives its error as the plan.
func (fx *remoteFixture) plans(ctx context.Context, sql string) []remotePlan {
	explain := "EXPLAIN (VERBOSE, COSTS OFF) " + sql
	var out []remotePlan
	for _, f := range []struct {
		setting string
		s       *pgfed.Session
	}{{"pgfed.pushdown = off", fx.fedOff}, {"pgfed.pushdown = on", fx.fedOn}} {
		out = append(out, remotePlan{Engine: "pgfed", Setting: f.setting, SQL: sql, Plan: planText(fedLines(ctx, f.s, explain))})
	}
	for _, pg := range []struct {
		setting string
		conn    *pgx.Conn
	}{{"enable_partitionwise_aggregate = off", fx.coordOff}, {"enable_partitionwise_aggregate = on", fx.coordOn}} {
		out = append(out, remotePlan{Engine: "PostgreSQL", Setting: pg.setting, SQL: sql, Plan: planText(pgxLines(ctx, pg.conn, explain))})
	}
	return out
}

// decodePlans returns pgfed's EXPLAIN of the decode workload's scans.
func (fx *remoteFixture) decodePlans(ctx context.Context) []remotePlan {
	var out []remotePlan
	for _, n := range decodeFetchSizes {
		sql := "SELECT a, b FROM " + decodeTable(n)
		lines, err := fedLines(ctx, fx.fedOn, "EXPLAIN (VERBOSE, COSTS OFF) "+sql)
		out = append(out, remotePlan{Engine: "pgfed", Setting: fmt.Sprintf("fetch_size %d", n), SQL: sql, Plan: planText(lines, err)})
	}
	return out
}

func planText(lines []string, err error) string {
	if err != nil {
		return "ERROR: " + describeError(err)
	}
	return strings.Join(lines, "\n")
}

// fedContender reads sql in pgfed session s in Arrow batches.
func fedContender(key, label string, s *pgfed.Session, sql string) remoteContender {
	return remoteContender{
		key:   key,
		label: label,
		sql:   sql,
		pgfed: true,
		read: func(ctx context.Context) (int64, error) {
			rows, err := s.Query(ctx, sql)
			if err != nil {
				return 0, err
			}
			defer rows.Close()
			var n int64
			for rows.NextBatch() {
				n += rows.Batch().NumRows()
			}
			return n, rows.Err()
		},
		fingerprint: func(ctx context.Context) (fingerprint, error) {
			rows, err := s.Query(ctx, sql)
			if err != nil {
				return fingerprint{}, err
			}
			defer rows.Close()
			f := newFingerprint(false)
			for rows.Next() {
				f.add(rows.Values())
			}
			return f, rows.Err()
		},
	}
}

// pgxOn borrows the local suite's pgx readers (raw, scan, fingerprint)
// for conn. Nothing else of postgresEngine is meant for it: its close
// would drop the local suite's schema.
func pgxOn(conn *pgx.Conn) *postgresEngine { return &postgresEngine{conn: conn} }

func pgxExec(conn *pgx.Conn) func(context.Context, string) error {
	return func(ctx context.Context, sql string) error {
		_, err := conn.Exec(ctx, sql)
		return err
	}
}

// fedLines runs sql in pgfed and returns the first column of each row.
func fedLines(ctx context.Context, s *pgfed.Session, sql string) ([]string, error) {
	rows, err := s.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		v, _ := rows.Text(0)
		lines = append(lines, v)
	}
	return lines, rows.Err()
}

// pgxLines runs sql in PostgreSQL and returns the first column of each row.
func pgxLines(ctx context.Context, conn *pgx.Conn, sql string) ([]string, error) {
	rows, err := conn.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// cursorReader reads a query the way postgres_fdw and pgfed do: in a
// REPEATABLE READ transaction, DECLARE a cursor, FETCH fetchSize rows at a
// time until a short batch, CLOSE, COMMIT.
type cursorReader struct {
	conn      *pgx.Conn
	sql       string
	fetchSize int
}

const benchCursor = "pgfedbench_c"

// run reads the whole result, calling row for each row.
func (c cursorReader) run(ctx context.Context, row func(pgx.Rows) error) (n int64, err error) {
	tx, err := c.conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		return 0, err
	}
	// After a Commit, Rollback does nothing.
	defer func() { _ = tx.Rollback(context.Background()) }()
	if _, err := tx.Exec(ctx, "DECLARE "+benchCursor+" CURSOR FOR "+c.sql); err != nil {
		return 0, err
	}
	fetch := fmt.Sprintf("FETCH %d FROM %s", c.fetchSize, benchCursor)
	for {
		rows, err := tx.Query(ctx, fetch)
		if err != nil {
			return n, err
		}
		got := 0
		for rows.Next() {
			if err := row(rows); err != nil {
				rows.Close()
				return n, err
			}
			got++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return n, err
		}
		n += int64(got)
		if got < c.fetchSize {
			break
		}
	}
	if _, err := tx.Exec(ctx, "CLOSE "+benchCursor); err != nil {
		return n, err
	}
	return n, tx.Commit(ctx)
}

// scan decodes every row into Go integers with rows.Scan.
func (c cursorReader) scan(ctx context.Context) (int64, error) {
	var dest []any
	n, err := c.run(ctx, func(rows pgx.Rows) error {
		if dest == nil {
			var err error
			if dest, err = scanTargets(rows.FieldDescriptions()); err != nil {
				return err
			}
		}
		return rows.Scan(dest...)
	})
	sinkValues = dest
	return n, err
}

func (c cursorReader) fingerprint(ctx context.Context) (fingerprint, error) {
	f := newFingerprint(false)
	_, err := c.run(ctx, func(rows pgx.Rows) error {
		vals, err := rows.Values()
		if err != nil {
			return err
		}
		f.add(vals)
		return nil
	})
	return f, err
}

// pgError returns PostgreSQL's error inside err, or nil.
func pgError(err error) *pgconn.PgError {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}
