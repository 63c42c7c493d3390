package main

// The xact suite's fixture: the async suite's servers and proxies, the
// tables of the transactions, a session of each engine with the default
// settings, and what runs, configures and checks one transaction.

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/pgerr"
)

// xactFixture is everything the xact suite runs against.
type xactFixture struct {
	*asyncFixture
	batchRows int // rows of the batch INSERT
	inserts   int // INSERTs of the local transaction

	fed *pgfed.Session // pgfed, default settings
	pg  *pgx.Conn      // the coordinator, default settings

	fedEngine, pgEngine *xactEngine

	// pgAbortErr is why the coordinator refused the parallel_abort server
	// option, nil if it took it.
	pgAbortErr error
}

// xactEngine is one engine as the suite drives it.
type xactEngine struct {
	name string // enginePGFed or enginePostgres
	exec func(ctx context.Context, sql string) error
	// answer returns the rows of a query as text.
	answer func(ctx context.Context, sql string) ([]string, error)
	// lines returns the first column of each row (EXPLAIN).
	lines func(ctx context.Context, sql string) ([]string, error)
	// connections are pgfed's remote connections with their request
	// counts; nil for PostgreSQL, whose requests are not counted.
	connections func() []pgfed.RemoteConnection
}

// startXact starts the async suite's clusters and proxies, opens the
// sessions, and creates the tables on the data servers and in both
// engines. On error, whatever was started is stopped.
func startXact(ctx context.Context, opts options) (_ *xactFixture, err error) {
	afx, err := startAsync(ctx, opts)
	if err != nil {
		return nil, err
	}
	fx := &xactFixture{asyncFixture: afx, batchRows: opts.xact.batchRows, inserts: opts.xact.inserts}
	defer func() {
		if err != nil {
			fx.close()
		}
	}()
	fx.fed = afx.db.NewSession()
	if fx.pg, err = pgx.Connect(ctx, afx.coord.DSN("postgres")); err != nil {
		return nil, fmt.Errorf("coordinator: %w", err)
	}
	fx.fedEngine = &xactEngine{
		name: enginePGFed,
		exec: func(ctx context.Context, sql string) error {
			_, err := fx.fed.Exec(ctx, sql)
			return err
		},
		answer: func(ctx context.Context, sql string) ([]string, error) {
			return fedAsyncContender("", "", fx.fed, sql).answer(ctx)
		},
		lines:       func(ctx context.Context, sql string) ([]string, error) { return fedLines(ctx, fx.fed, sql) },
		connections: fx.fed.RemoteConnections,
	}
	fx.pgEngine = &xactEngine{
		name: enginePostgres,
		exec: pgxExec(fx.pg),
		answer: func(ctx context.Context, sql string) ([]string, error) {
			return pgAsyncContender("", "", fx.pg, sql).answer(ctx)
		},
		lines: func(ctx context.Context, sql string) ([]string, error) { return pgxLines(ctx, fx.pg, sql) },
	}
	if err := fx.createRemote(ctx); err != nil {
		return nil, err
	}
	if err := fx.declare(ctx); err != nil {
		return nil, err
	}
	return fx, nil
}

// close ends the suite's own sessions, then what startAsync started.
func (fx *xactFixture) close() {
	if fx.fed != nil {
		_ = fx.fed.Close()
	}
	if fx.pg != nil {
		_ = fx.pg.Close(context.Background())
	}
	fx.asyncFixture.close()
}

// engines are the contenders, pgfed first.
func (fx *xactFixture) engines() []*xactEngine { return []*xactEngine{fx.fedEngine, fx.pgEngine} }

// createRemote creates r on every data server and big on the first,
// directly (not through the proxies).
func (fx *xactFixture) createRemote(ctx context.Context) error {
	for i, conn := range fx.dataConns {
		stmts := []string{"CREATE TABLE r (a integer, b integer)"}
		if i == 0 {
			stmts = append(stmts, "CREATE TABLE big (a integer, b integer)")
		}
		if _, err := execAll(ctx, pgxExec(conn), stmts); err != nil {
			return fmt.Errorf("data server %d: %w", i+1, err)
		}
	}
	return nil
}

// tablesSQL declares the foreign tables ft1..ft4 and ftbig, and loc.
func (fx *xactFixture) tablesSQL() []string {
	var stmts []string
	for i := range fx.data {
		stmts = append(stmts, fmt.Sprintf("CREATE FOREIGN TABLE ft%d (a integer, b integer) SERVER s%d OPTIONS (schema_name 'public', table_name 'r')", i+1, i+1))
	}
	return append(stmts,
		"CREATE FOREIGN TABLE ftbig (a integer, b integer) SERVER s1 OPTIONS (schema_name 'public', table_name 'big', batch_size '1')",
		"CREATE TABLE loc (a integer, b integer)")
}

// declare creates the servers s1..s4 with parallel_commit 'false' (and
// parallel_abort 'false' where taken) and the tables in both engines.
func (fx *xactFixture) declare(ctx context.Context) error {
	fedStmts, pgStmts := []string{}, []string{"CREATE EXTENSION postgres_fdw"}
	for i := range fx.data {
		name := fmt.Sprintf("s%d", i+1)
		fedStmts = append(fedStmts, fx.serverSQL(name, i, ", parallel_commit 'false', parallel_abort 'false'")...)
		pgStmts = append(pgStmts, fx.serverSQL(name, i, ", parallel_commit 'false'")...)
	}
	if _, err := execAll(ctx, fx.fedEngine.exec, append(fedStmts, fx.tablesSQL()...)); err != nil {
		return fmt.Errorf("pgfed: %w", err)
	}
	if _, err := execAll(ctx, fx.pgEngine.exec, append(pgStmts, fx.tablesSQL()...)); err != nil {
		return fmt.Errorf("coordinator: %w", err)
	}
	return fx.probeParallelAbort(ctx)
}

// probeParallelAbort adds parallel_abort 'false' to the coordinator's
// servers; if it refuses the option as invalid (PostgreSQL 15),
// pgAbortErr says so and the servers go without.
func (fx *xactFixture) probeParallelAbort(ctx context.Context) error {
	for i := range fx.data {
		sql := fmt.Sprintf("ALTER SERVER s%d OPTIONS (ADD parallel_abort 'false')", i+1)
		err := fx.pgEngine.exec(ctx, sql)
		if pe := pgError(err); i == 0 && pe != nil && pe.Code == pgerr.FDWInvalidOptionName {
			fx.pgAbortErr = fmt.Errorf("%s: %w", sql, err)
			return nil
		}
		if err != nil {
			return fmt.Errorf("coordinator: %s: %w", sql, err)
		}
	}
	return nil
}

// apply configures e for set: parallel_commit and parallel_abort on
// every server, or ftbig's batch_size.
func (fx *xactFixture) apply(ctx context.Context, e *xactEngine, set xactSetting) error {
	var stmts []string
	switch {
	case set.local:
	case set.batchSize > 0:
		stmts = append(stmts, fmt.Sprintf("ALTER FOREIGN TABLE ftbig OPTIONS (SET batch_size '%d')", set.batchSize))
	default:
		opts := fmt.Sprintf("SET parallel_commit '%t'", set.parallel)
		if e == fx.fedEngine || fx.pgAbortErr == nil {
			opts += fmt.Sprintf(", SET parallel_abort '%t'", set.parallel)
		}
		for i := range fx.data {
			stmts = append(stmts, fmt.Sprintf("ALTER SERVER s%d OPTIONS (%s)", i+1, opts))
		}
	}
	_, err := execAll(ctx, e.exec, stmts)
	return err
}

// batchSQL is the batch INSERT.
func (fx *xactFixture) batchSQL() string {
	return fmt.Sprintf("INSERT INTO ftbig SELECT g, g FROM generate_series(1, %d) g", fx.batchRows)
}

// xactStep is one statement of a workload's run; measure, if set, names
// the time it took alone.
type xactStep struct {
	sql     string
	measure string
}

// steps are the statements of one run of w.
func (fx *xactFixture) steps(w xactWorkload) []xactStep {
	switch w.name {
	case xactSeed:
		return []xactStep{
			{sql: "BEGIN"},
			{sql: "SAVEPOINT s"},
			{sql: "INSERT INTO ft1 VALUES (10, 10)"},
			{sql: "INSERT INTO ft2 VALUES (20, 20)"},
			{sql: "ROLLBACK TO SAVEPOINT s", measure: measureRollbackTo},
			{sql: "RELEASE SAVEPOINT s"},
			{sql: "INSERT INTO ft1 VALUES (10, 10)"},
			{sql: "INSERT INTO ft2 VALUES (20, 20)"},
			{sql: "ABORT", measure: measureAbort},
		}
	case xactCommit2, xactCommit4:
		steps := []xactStep{{sql: "BEGIN"}}
		for i := range w.servers {
			steps = append(steps, xactStep{sql: fmt.Sprintf("INSERT INTO ft%d VALUES (%d, %d)", i+1, i+1, i+1)})
		}
		return append(steps, xactStep{sql: "COMMIT", measure: measureCommit})
	case xactBatch:
		return []xactStep{{sql: fx.batchSQL(), measure: measureInsert}}
	}
	steps := []xactStep{{sql: "BEGIN"}}
	for i := range fx.inserts {
		steps = append(steps, xactStep{sql: fmt.Sprintf("INSERT INTO loc VALUES (%d, %d)", i+1, i+1)})
	}
	return append(steps, xactStep{sql: "COMMIT"})
}

// measuredSQL is what a line of w reports on: the statement timed, or
// for a whole transaction a summary of it.
func (fx *xactFixture) measuredSQL(w xactWorkload, measure string) string {
	steps := fx.steps(w)
	if measure != measureWhole {
		for _, s := range steps {
			if s.measure == measure {
				return s.sql
			}
		}
	}
	if len(steps) > 12 {
		return fmt.Sprintf("%s; %s; ... (%d statements); %s", steps[0].sql, steps[1].sql, len(steps), steps[len(steps)-1].sql)
	}
	sqls := make([]string, len(steps))
	for i, s := range steps {
		sqls[i] = s.sql
	}
	return strings.Join(sqls, "; ")
}

// blockLines are the lines of w at set, before timing: PostgreSQL's
// parallel ROLLBACK TO and ABORT are n/a where it has no parallel_abort.
func (fx *xactFixture) blockLines(w xactWorkload, set xactSetting) []xactLine {
	var lines []xactLine
	for _, m := range w.measures {
		l := xactLine{Workload: w.name, Title: w.title, Measure: m, Setting: set.String(), SQL: fx.measuredSQL(w, m)}
		if set.parallel && fx.pgAbortErr != nil {
			switch m {
			case measureRollbackTo, measureAbort:
				l.PostgresNote = "n/a: no parallel_abort"
			case measureWhole:
				l.Note = "PostgreSQL: parallel_commit only (no parallel_abort)"
			}
		}
		lines = append(lines, l)
	}
	return lines
}

// runChecked prepares a run of w in e (untimed), runs it and checks what
// it left behind.
func (fx *xactFixture) runChecked(ctx context.Context, e *xactEngine, w xactWorkload) (xactSample, error) {
	before, err := fx.prepare(ctx, e, w)
	if err != nil {
		return xactSample{}, fmt.Errorf("before the run: %w", err)
	}
	steps := fx.steps(w)
	// As in measure: no engine pays for the garbage of another.
	runtime.GC()
	s, err := runSteps(ctx, e, steps)
	if err != nil {
		return s, err
	}
	return s, fx.verify(ctx, e, w, before)
}

// runSteps runs steps one by one in e, timing each. The whole run's time
// is the sum of the statements': the client's own work between them is
// not the engine's. A failed statement rolls the transaction back.
func runSteps(ctx context.Context, e *xactEngine, steps []xactStep) (xactSample, error) {
	s := xactSample{times: map[string]time.Duration{}, requests: map[string]int64{}}
	var first []pgfed.RemoteConnection
	if e.connections != nil {
		first = e.connections()
	}
	for _, st := range steps {
		var before []pgfed.RemoteConnection
		if st.measure != "" && e.connections != nil {
			before = e.connections()
		}
		start := time.Now()
		err := e.exec(ctx, st.sql)
		d := time.Since(start)
		if err != nil {
			_ = e.exec(context.WithoutCancel(ctx), "ROLLBACK")
			return s, fmt.Errorf("%s: %w", st.sql, err)
		}
		s.times[measureWhole] += d
		if st.measure == "" {
			continue
		}
		s.times[st.measure] = d
		if e.connections != nil {
			s.requests[st.measure] = requestsBetween(before, e.connections())
		}
	}
	if e.connections != nil {
		s.requests[measureWhole] = requestsBetween(first, e.connections())
	}
	return s, nil
}

// remoteConnKey tells one remote connection from another, and from the
// one that replaced it.
type remoteConnKey struct {
	server, user string
	pid          uint32
}

// requestsBetween is the number of requests sent on the connections
// between two listings of them, -1 if one closed meanwhile (its count
// went with it).
func requestsBetween(before, after []pgfed.RemoteConnection) int64 {
	was := map[remoteConnKey]int64{}
	for _, c := range before {
		was[remoteConnKey{c.Server, c.User, c.BackendPID}] = c.RoundTrips
	}
	var n int64
	for _, c := range after {
		k := remoteConnKey{c.Server, c.User, c.BackendPID}
		n += c.RoundTrips - was[k]
		delete(was, k)
	}
	if len(was) > 0 {
		return -1
	}
	return n
}

// prepare readies a run of w: it empties big or loc, and returns the
// row counts of r on the servers a remote transaction writes to.
func (fx *xactFixture) prepare(ctx context.Context, e *xactEngine, w xactWorkload) ([]int64, error) {
	switch w.name {
	case xactBatch:
		return nil, pgxExec(fx.dataConns[0])(ctx, "TRUNCATE big")
	case xactLocal:
		return nil, e.exec(ctx, "TRUNCATE loc")
	}
	return fx.remoteCounts(ctx, w.servers)
}

// remoteCounts counts the rows of r on the first n data servers,
// directly.
func (fx *xactFixture) remoteCounts(ctx context.Context, n int) ([]int64, error) {
	counts := make([]int64, n)
	for i := range counts {
		if err := fx.dataConns[i].QueryRow(ctx, "SELECT count(*) FROM r").Scan(&counts[i]); err != nil {
			return nil, fmt.Errorf("data server %d: %w", i+1, err)
		}
	}
	return counts, nil
}

// verify checks what a run of w left: r unchanged after the seed
// transaction and one row more after a commit, on every server it
// wrote to; all of the batch's rows in big; all of the local rows in
// loc. In pgfed, no remote transaction may be left open.
func (fx *xactFixture) verify(ctx context.Context, e *xactEngine, w xactWorkload, before []int64) error {
	if e.connections != nil {
		for _, c := range e.connections() {
			if c.InXact {
				return fmt.Errorf("after the run, the connection to server %s is still in a remote transaction", c.Server)
			}
		}
	}
	switch w.name {
	case xactBatch:
		return verifyRows("big", fx.batchRows, func(sql string) ([]string, error) {
			return pgAsyncContender("", "", fx.dataConns[0], sql).answer(ctx)
		})
	case xactLocal:
		return verifyRows("loc", fx.inserts, func(sql string) ([]string, error) { return e.answer(ctx, sql) })
	}
	after, err := fx.remoteCounts(ctx, w.servers)
	if err != nil {
		return err
	}
	added := int64(1)
	if w.name == xactSeed {
		added = 0
	}
	for i := range after {
		if after[i] != before[i]+added {
			return fmt.Errorf("data server %d: r has %d rows after the transaction, %d before: want %d more", i+1, after[i], before[i], added)
		}
	}
	return nil
}

// verifyRows checks that table holds exactly the rows (g, g) for g in
// 1..n, by count and sums; answer runs the query where table is.
func verifyRows(table string, n int, answer func(string) ([]string, error)) error {
	got, err := answer("SELECT count(*), sum(a), sum(b) FROM " + table)
	if err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	sum := int64(n) * int64(n+1) / 2
	if want := fmt.Sprintf("%d %d %d", n, sum, sum); len(got) != 1 || got[0] != want {
		return fmt.Errorf("%s: count, sum(a), sum(b) = %q, want [%s]", table, got, want)
	}
	return nil
}

// xactCountedRows is the most rows of the counted batch INSERT: enough
// for ten batches of 100 and a short one.
const xactCountedRows = 1050

// countInsertsSQL makes data server 1 count the rows of every INSERT
// statement into big, in big_inserts: what each remote INSERT really
// carried. It is set up for checkBatch's runs only. The remote sessions
// run with search_path = pg_catalog, hence public.
var countInsertsSQL = []string{
	"CREATE TABLE big_inserts (n bigint)",
	`CREATE FUNCTION count_inserts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.big_inserts SELECT count(*) FROM new_rows;
	RETURN NULL;
END $$`,
	"CREATE TRIGGER count_inserts AFTER INSERT ON big REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_inserts()",
}

var uncountInsertsSQL = []string{"DROP TRIGGER count_inserts ON big", "DROP FUNCTION count_inserts()", "DROP TABLE big_inserts", "TRUNCATE big"}

// checkBatch checks, in both engines at each of w's batch sizes, that
// the batch INSERT sends batch_size rows per remote INSERT: EXPLAIN
// (VERBOSE, COSTS OFF) must show "Batch Size: N", and a run of at most
// xactCountedRows rows, with a statement trigger on big counting, must
// come as INSERTs of N rows (the last one shorter). It returns the plans,
// the counts and the failures.
func (fx *xactFixture) checkBatch(ctx context.Context, w xactWorkload) ([]remotePlan, []xactBatchCheck, []workloadError) {
	data := pgxExec(fx.dataConns[0])
	if _, err := execAll(ctx, data, countInsertsSQL); err != nil {
		return nil, nil, []workloadError{{Workload: w.name, Contender: "data server 1", Error: describeError(err)}}
	}
	defer func() { _, _ = execAll(context.WithoutCancel(ctx), data, uncountInsertsSQL) }()

	explain := "EXPLAIN (VERBOSE, COSTS OFF) " + fx.batchSQL()
	rows := min(fx.batchRows, xactCountedRows)
	counted := fmt.Sprintf("INSERT INTO ftbig SELECT g, g FROM generate_series(1, %d) g", rows)
	var (
		plans  []remotePlan
		checks []xactBatchCheck
		errs   []workloadError
	)
	for _, set := range w.settings {
		for _, e := range fx.engines() {
			fail := func(sql, msg string) {
				errs = append(errs, workloadError{Workload: w.name, Contender: "batch check, " + e.name + " " + set.String(), SQL: sql, Error: msg})
			}
			if err := fx.apply(ctx, e, set); err != nil {
				fail("", describeError(err))
				continue
			}
			lines, err := e.lines(ctx, explain)
			plans = append(plans, remotePlan{Engine: e.name, Setting: set.String(), SQL: explain, Plan: planText(lines, err)})
			if want := fmt.Sprintf("Batch Size: %d", set.batchSize); err == nil && !containsLine(lines, want) {
				fail(explain, fmt.Sprintf("no %q in the plan", want))
			} else if err != nil {
				fail(explain, describeError(err))
			}
			c, err := fx.countInserts(ctx, e, counted, rows, set.batchSize)
			if err != nil {
				fail(counted, describeError(err))
				continue
			}
			c.Setting = set.String()
			if !c.Pass {
				fail(counted, fmt.Sprintf("the remote INSERTs carried %s, want %s", c.Inserts, c.Want))
			}
			checks = append(checks, c)
		}
	}
	return plans, checks, errs
}

// countInserts runs sql, a batch INSERT of rows rows, in e, and reports
// the remote INSERTs big_inserts counted against what batch size k
// gives.
func (fx *xactFixture) countInserts(ctx context.Context, e *xactEngine, sql string, rows, k int) (xactBatchCheck, error) {
	data := pgxExec(fx.dataConns[0])
	if _, err := execAll(ctx, data, []string{"TRUNCATE big", "TRUNCATE big_inserts"}); err != nil {
		return xactBatchCheck{}, err
	}
	if err := e.exec(ctx, sql); err != nil {
		return xactBatchCheck{}, err
	}
	got, err := pgAsyncContender("", "", fx.dataConns[0], "SELECT n, count(*) FROM big_inserts GROUP BY n ORDER BY n DESC").answer(ctx)
	if err != nil {
		return xactBatchCheck{}, err
	}
	want := []string{fmt.Sprintf("%d %d", k, rows/k)}
	if rows%k != 0 {
		want = append(want, fmt.Sprintf("%d 1", rows%k))
	}
	return xactBatchCheck{
		Engine:  e.name,
		Rows:    rows,
		Inserts: describeInserts(got),
		Want:    describeInserts(want),
		Pass:    slices.Equal(got, want),
	}, nil
}

// describeInserts says "10 INSERTs of 100 rows, 1 of 50" for the rows
// "100 10", "50 1" of SELECT n, count(*) ... GROUP BY n.
func describeInserts(groups []string) string {
	var parts []string
	for i, g := range groups {
		n, count, _ := strings.Cut(g, " ")
		rows := " rows"
		if n == "1" {
			rows = " row"
		}
		if i == 0 {
			parts = append(parts, fmt.Sprintf("%s INSERTs of %s%s", count, n, rows))
		} else {
			parts = append(parts, fmt.Sprintf("%s of %s", count, n))
		}
	}
	if len(parts) == 0 {
		return "no INSERT"
	}
	return strings.Join(parts, ", ")
}

// containsLine says whether a line of lines, trimmed, is want.
func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) == want {
			return true
		}
	}
	return false
}
