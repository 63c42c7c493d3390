package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/pgtest"
)

// reader runs a query once, reads its whole result the way one client API
// does, discards it, and returns the number of rows read.
type reader func(ctx context.Context) (int64, error)

// Sinks keep the last value a reader read reachable from a global, so the
// compiler can neither drop the reading nor move the values the readers
// produce onto the stack, which a real client keeping them could not do.
var (
	sinkValues []any
	sinkRaw    [][]byte
	sinkInt    int64 // the Go loops' sums
)

// execAll runs statements one by one and returns the time they took.
func execAll(ctx context.Context, exec func(context.Context, string) error, stmts []string) (time.Duration, error) {
	start := time.Now()
	for _, s := range stmts {
		if err := exec(ctx, s); err != nil {
			return 0, fmt.Errorf("%s: %w", s, err)
		}
	}
	return time.Since(start), nil
}

// pgfedEngine is the pgfed side: an in-process engine read through the
// embedding API.
type pgfedEngine struct {
	db *pgfed.DB
	// s runs the queries: the DB's default session, unless newSession
	// made the engine.
	s *pgfed.Session
}

func openPgfed() (*pgfedEngine, error) {
	db, err := pgfed.Open()
	if err != nil {
		return nil, err
	}
	return &pgfedEngine{db: db, s: db.Session()}, nil
}

// newSession returns the same engine seen through a new session: the
// same tables, settings (SET) of its own. Closing the engine openPgfed
// returned closes it too.
func (e *pgfedEngine) newSession() *pgfedEngine {
	return &pgfedEngine{db: e.db, s: e.db.NewSession()}
}

func (e *pgfedEngine) close() { _ = e.db.Close() }

func (e *pgfedEngine) exec(ctx context.Context, sql string) error {
	_, err := e.s.Exec(ctx, sql)
	return err
}

// batches reads whole Arrow batches, the bulk path meant for analytics.
func (e *pgfedEngine) batches(sql string) reader {
	return func(ctx context.Context) (int64, error) {
		rows, err := e.s.Query(ctx, sql)
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		var n int64
		for rows.NextBatch() {
			n += rows.Batch().NumRows()
		}
		return n, rows.Err()
	}
}

// values reads row at a time as Go values, like a database/sql client.
func (e *pgfedEngine) values(sql string) reader {
	return func(ctx context.Context) (int64, error) {
		rows, err := e.s.Query(ctx, sql)
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		var n int64
		var last []any
		for rows.Next() {
			last = rows.Values()
			n++
		}
		sinkValues = last
		return n, rows.Err()
	}
}

// fingerprint reads the result as Go values and summarizes it.
func (e *pgfedEngine) fingerprint(ctx context.Context, sql string, ordered bool) (fingerprint, error) {
	f := newFingerprint(ordered)
	err := e.eachRow(ctx, sql, f.add)
	return f, err
}

// eachRow runs sql and passes each row of the result, as Go values, to
// fn; the values are valid only during the call.
func (e *pgfedEngine) eachRow(ctx context.Context, sql string, fn func([]any)) error {
	rows, err := e.s.Query(ctx, sql)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		fn(rows.Values())
	}
	return rows.Err()
}

// keepBatches runs sql and keeps every batch it returns (retained: the
// caller must release them). For SELECT b FROM t these are views of the
// column as pgfed stores it, the data the Arrow-values loop sums.
func (e *pgfedEngine) keepBatches(ctx context.Context, sql string) ([]arrow.RecordBatch, error) {
	rows, err := e.s.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var kept []arrow.RecordBatch
	for rows.NextBatch() {
		b := rows.Batch()
		b.Retain()
		kept = append(kept, b)
	}
	if err := rows.Err(); err != nil {
		for _, b := range kept {
			b.Release()
		}
		return nil, err
	}
	return kept, nil
}

// schemaName holds the benchmark's tables in PostgreSQL, so that a run
// against an existing server (-pgdsn) cannot touch anything else.
const schemaName = "pgfedbench"

// postgresEngine is the PostgreSQL side: one pgx connection over loopback
// TCP, to a throwaway cluster unless -pgdsn names a server.
type postgresEngine struct {
	cluster *pgtest.Cluster // nil when -pgdsn is used
	conn    *pgx.Conn
	dsn     string
	// settings are the server settings that bear on the comparison, as the
	// benchmark's session sees them.
	settings map[string]string
}

// reportedSettings are shown with the results: the version, the settings
// this command changes, and the ones that most change the timings.
var reportedSettings = []string{"server_version", "max_parallel_workers_per_gather", "shared_buffers", "work_mem", "jit"}

func startPostgres(ctx context.Context, opts options) (_ *postgresEngine, err error) {
	e := &postgresEngine{dsn: opts.pgDSN}
	defer func() {
		if err != nil {
			e.close()
		}
	}()
	if e.dsn == "" {
		e.cluster, err = pgtest.Start(ctx, pgtest.Options{
			Settings: map[string]string{"shared_buffers": opts.pgShared},
		})
		if err != nil {
			return nil, err
		}
		e.dsn = e.cluster.DSN("postgres")
	}
	e.conn, err = pgx.Connect(ctx, e.dsn)
	if err != nil {
		return nil, err
	}
	setup := []string{
		"DROP SCHEMA IF EXISTS " + schemaName + " CASCADE",
		"CREATE SCHEMA " + schemaName,
		"SET search_path = " + schemaName,
		// The local suite compares one core with one core (pgfed is set
		// likewise); -suite parallel compares parallel plans.
		"SET max_parallel_workers_per_gather = 0",
	}
	if _, err := execAll(ctx, e.exec, setup); err != nil {
		return nil, err
	}
	e.settings = map[string]string{}
	for _, name := range reportedSettings {
		var v string
		if err := e.conn.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&v); err != nil {
			return nil, err
		}
		e.settings[name] = v
	}
	if !strings.HasPrefix(e.settings["server_version"], "15") {
		return nil, fmt.Errorf("PostgreSQL 15 is required for the comparison, the server is %s", e.settings["server_version"])
	}
	return e, nil
}

// close drops the benchmark schema from a server we do not own, then
// disconnects and stops the throwaway cluster, if any.
func (e *postgresEngine) close() {
	if e.conn != nil {
		if e.cluster == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, _ = e.conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+schemaName+" CASCADE")
			cancel()
		}
		_ = e.conn.Close(context.Background())
	}
	if e.cluster != nil {
		_ = e.cluster.Stop()
	}
}

func (e *postgresEngine) exec(ctx context.Context, sql string) error {
	_, err := e.conn.Exec(ctx, sql)
	return err
}

// raw reads the wire bytes of every value without decoding them: the least
// a client can do, the counterpart of pgfed's batches. pgx prepares the
// statement on first use (the warm-up) and then receives integers in
// binary format.
func (e *postgresEngine) raw(sql string) reader {
	return func(ctx context.Context) (int64, error) {
		rows, err := e.conn.Query(ctx, sql)
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		var n int64
		var last [][]byte
		for rows.Next() {
			last = rows.RawValues()
			n++
		}
		sinkRaw = last
		return n, rows.Err()
	}
}

// scan decodes every row into Go integers with rows.Scan, as a typical
// pgx client does; the counterpart of pgfed's values.
func (e *postgresEngine) scan(sql string) reader {
	return func(ctx context.Context) (int64, error) {
		rows, err := e.conn.Query(ctx, sql)
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		dest, err := scanTargets(rows.FieldDescriptions())
		if err != nil {
			return 0, err
		}
		var n int64
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				return n, err
			}
			n++
		}
		sinkValues = dest
		return n, rows.Err()
	}
}

// scanTargets allocates one Go integer per result column, of the width the
// column's type has on the wire; the benchmark returns nothing else.
func scanTargets(fields []pgconn.FieldDescription) ([]any, error) {
	dest := make([]any, len(fields))
	for i, f := range fields {
		switch f.DataTypeOID {
		case pgtype.Int4OID:
			dest[i] = new(int32)
		case pgtype.Int8OID:
			dest[i] = new(int64)
		default:
			return nil, fmt.Errorf("scan: column %s has type OID %d, not an integer", f.Name, f.DataTypeOID)
		}
	}
	return dest, nil
}

// fingerprint reads the result as Go values and summarizes it.
func (e *postgresEngine) fingerprint(ctx context.Context, sql string, ordered bool) (fingerprint, error) {
	f := newFingerprint(ordered)
	err := e.eachRow(ctx, sql, f.add)
	return f, err
}

// eachRow runs sql and passes each row of the result, as Go values, to
// fn.
func (e *postgresEngine) eachRow(ctx context.Context, sql string, fn func([]any)) error {
	rows, err := e.conn.Query(ctx, sql)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return err
		}
		fn(vals)
	}
	return rows.Err()
}

// fingerprint summarizes a result so that two engines' answers can be
// compared without keeping a million rows around: the row count and a hash
// of the rows' text. The hash ignores row order (it adds the rows'
// hashes) unless the query orders its rows.
type fingerprint struct {
	Rows    int64
	Hash    uint64
	ordered bool
}

func newFingerprint(ordered bool) fingerprint { return fingerprint{ordered: ordered} }

// add hashes the row's values as text: the engines return integers as
// different Go types (pgfed int64 for every integer type, pgx int32 for
// integer), whose text is the same.
func (f *fingerprint) add(vals []any) {
	h := fnv.New64a()
	for i, v := range vals {
		if i > 0 {
			_, _ = io.WriteString(h, "|")
		}
		_, _ = fmt.Fprint(h, v)
	}
	row := h.Sum64()
	if f.ordered {
		const prime = 1099511628211
		f.Hash = (f.Hash ^ row) * prime
	} else {
		f.Hash += row
	}
	f.Rows++
}
