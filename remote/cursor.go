package remote

import (
	"context"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// Cursor is an open remote cursor (DECLARE cN CURSOR FOR ...).
type Cursor struct {
	c      *Conn
	name   string // c1, c2 ...
	query  string // the cursor's query, which errors name as postgres_fdw's do
	xactID uint64 // the remote transaction the cursor lives in
	oids   []uint32
	closed bool

	// The decoding plan for the local types last asked for: per column
	// the result format requested from the server and the decoder.
	cols     []types.T
	formats  []int16
	columns  []fetchColumn
	fetchN   int
	fetchSQL string
}

// OpenCursor declares a cursor for sql in the current remote transaction.
//
// The DECLARE goes out together with a Describe of a FETCH from the new
// cursor, in one round trip: knowing the remote column types before the
// first FETCH lets each FETCH ask for binary results only for the columns
// decoded here and text for the rest.
func (c *Conn) OpenCursor(ctx context.Context, sql string) (*Cursor, error) {
	return c.OpenCursorParams(ctx, sql, nil)
}

// OpenCursorParams is OpenCursor for a query with parameters ($1 ...),
// sent in text form with the DECLARE, as postgres_fdw sends a
// parameterized scan's.
func (c *Conn) OpenCursorParams(ctx context.Context, sql string, params [][]byte) (*Cursor, error) {
	if err := c.acquire(ctx); err != nil {
		return nil, err
	}
	defer c.release()
	if err := c.checkInXact(); err != nil {
		return nil, err
	}
	name := "c" + strconv.FormatUint(uint64(c.m.lastCursor.Add(1)), 10)
	oids, err := c.declare(ctx, "DECLARE "+name+" CURSOR FOR "+sql, "FETCH 1 FROM "+name, params)
	if err != nil {
		return nil, commandError(ctx, err, c.spec.Server, sql)
	}
	return &Cursor{c: c, name: name, query: sql, xactID: c.xactID, oids: oids}, nil
}

// declare runs the DECLARE command declareSQL and describes (without
// running) fetchSQL, returning the type OIDs of the cursor's columns.
func (c *Conn) declare(ctx context.Context, declareSQL, fetchSQL string, params [][]byte) ([]uint32, error) {
	var oids []uint32
	err := c.roundTrip(ctx, func(p *pgconn.Pipeline) {
		p.SendQueryParams(declareSQL, params, nil, nil, nil)
		p.SendPrepare("", fetchSQL, nil)
	}, func(p *pgconn.Pipeline) error {
		if err := readResult(p); err != nil {
			return err
		}
		res, err := p.GetResults()
		if err != nil {
			return err
		}
		d, ok := res.(*pgconn.StatementDescription)
		if !ok {
			return pgerr.Internal("remote: pipeline gave %T for a Describe", res)
		}
		oids = make([]uint32, len(d.Fields))
		for i, f := range d.Fields {
			oids[i] = f.DataTypeOID
		}
		return nil
	})
	return oids, err
}

// Fetch runs FETCH n and decodes the rows (binary format) into a batch of
// the given schema, whose columns have the SQL types cols (converting
// from the remote column types when they differ). eof is true when fewer
// than n rows came back. The batch is nil when no rows came back.
//
// Conversions follow postgres_fdw, which reads each remote value's text
// output with the local type's input function: a remote bigint too large
// for a local integer is 22003, a remote text too long for a local
// varchar(n) is 22001. With no columns (a scan only counting rows) the
// remote values are ignored.
func (cu *Cursor) Fetch(ctx context.Context, n int, schema *arrow.Schema, cols []types.T) (b arrow.RecordBatch, eof bool, err error) {
	r := FetchRequest{Cursor: cu, N: n, Schema: schema, Cols: cols}
	cu.c.FetchTogether(ctx, []*FetchRequest{&r})
	return r.Batch, r.EOF, r.Err
}

// FetchRequest is one cursor's FETCH in Conn.FetchTogether, with its
// outcome (as Cursor.Fetch returns them).
type FetchRequest struct {
	Cursor *Cursor
	N      int
	Schema *arrow.Schema
	Cols   []types.T

	Batch arrow.RecordBatch
	EOF   bool
	Err   error
}

// FetchTogether runs the FETCHes of several cursors of c in one round
// trip: one pipeline, one Sync, so the connection still carries one
// request at a time, but that request serves every cursor in reqs. Each
// request gets its own outcome; after a remote error the server skips
// the FETCHes that follow it, which then fail with the same error.
//
// Each FETCH text ("FETCH 100 FROM c1") is prepared on the connection the
// first time it is used, in the same pipeline, and later only bound and
// executed: the server no longer parses it every time. The statement
// names the cursor, not its query, so the next statement's c1 reuses it.
func (c *Conn) FetchTogether(ctx context.Context, reqs []*FetchRequest) {
	fail := func(rs []*FetchRequest, err error) {
		for _, r := range rs {
			r.Batch, r.EOF, r.Err = nil, false, err
		}
	}
	if err := c.acquire(ctx); err != nil {
		fail(reqs, err)
		return
	}
	defer c.release()
	for _, r := range reqs {
		if r.Cursor.c != c {
			fail(reqs, pgerr.Internal("remote: cursor %s fetched together with another connection's", r.Cursor.name))
			return
		}
		if err := r.Cursor.prepareFetch(r.N, r.Schema, r.Cols); err != nil {
			fail(reqs, err)
			return
		}
	}
	fresh := make([]bool, len(reqs))
	err := c.roundTrip(ctx, func(p *pgconn.Pipeline) {
		for i, r := range reqs {
			var name string
			name, fresh[i] = c.fetchStatement(r.Cursor.fetchSQL)
			if fresh[i] {
				p.SendPrepare(name, r.Cursor.fetchSQL, nil)
			}
			p.SendQueryPrepared(name, nil, nil, r.Cursor.formats)
		}
	}, func(p *pgconn.Pipeline) error {
		return readFetches(ctx, c, p, reqs, fresh)
	})
	if err != nil {
		// Until a pipeline has gone through, the new statements may not
		// exist on the server.
		for i, r := range reqs {
			if fresh[i] {
				delete(c.fetchStmts, r.Cursor.fetchSQL)
			}
		}
		if reqs[len(reqs)-1].Err == nil {
			// The requests were never read (a pending command failed, or
			// the connection broke after them).
			for _, r := range reqs {
				if r.Batch != nil {
					r.Batch.Release()
				}
			}
			fail(reqs, err)
		}
	}
}

// readFetches reads the FETCH results of reqs into them. After a failed
// one the server skipped the rest: from there on each request carries
// the failure, which is returned.
func readFetches(ctx context.Context, c *Conn, p *pgconn.Pipeline, reqs []*FetchRequest, fresh []bool) error {
	for i, r := range reqs {
		res, err := p.GetResults()
		if _, ok := res.(*pgconn.StatementDescription); ok && fresh[i] && err == nil {
			res, err = p.GetResults() // the statement is prepared; now its result
		}
		rr, ok := res.(*pgconn.ResultReader)
		if err == nil && !ok {
			err = pgerr.Internal("remote: pipeline gave %T for a FETCH", res)
		}
		if err == nil {
			r.Batch, r.EOF, r.Err = r.Cursor.readFetch(ctx, rr, r.N, r.Schema)
			err = r.Err
		} else {
			err = commandError(ctx, err, c.spec.Server, r.Cursor.query)
		}
		if err != nil {
			for _, rest := range reqs[i:] {
				rest.Batch, rest.EOF, rest.Err = nil, false, err
			}
			return err
		}
	}
	return nil
}

// prepareFetch checks that the cursor can be fetched from (busy held) and
// readies the FETCH command and the decoders for n rows of cols.
func (cu *Cursor) prepareFetch(n int, schema *arrow.Schema, cols []types.T) error {
	if n <= 0 {
		return pgerr.Internal("remote: fetch size %d is not positive", n)
	}
	c := cu.c
	if cu.closed {
		return pgerr.Internal("remote: cursor %s used after it was closed", cu.name)
	}
	if err := c.checkInXact(); err != nil {
		return err
	}
	if c.xactID != cu.xactID {
		return pgerr.Internal("remote: cursor %s used after its statement ended", cu.name)
	}
	if err := cu.plan(schema, cols); err != nil {
		return err
	}
	if n != cu.fetchN {
		cu.fetchN = n
		cu.fetchSQL = "FETCH " + strconv.Itoa(n) + " FROM " + cu.name
	}
	for i := range cu.columns {
		cu.columns[i].out.reset(min(n, maxPreallocRows))
	}
	return nil
}

// readFetch decodes the result of one FETCH n into a batch of schema.
func (cu *Cursor) readFetch(ctx context.Context, rr *pgconn.ResultReader, n int, schema *arrow.Schema) (b arrow.RecordBatch, eof bool, err error) {
	columns := cu.columns
	var decodeErr error
	if len(columns) > 0 && len(rr.FieldDescriptions()) != len(columns) {
		decodeErr = errResultMismatch()
	}
	rows := 0
	for rr.NextRow() {
		rows++
		if decodeErr != nil || len(columns) == 0 {
			continue // the rest of the result still has to be read
		}
		vals := rr.Values()
		for i := range columns {
			if err := columns[i].dec.decode(vals[i]); err != nil {
				decodeErr = err
				break
			}
		}
	}
	if _, err := rr.Close(); err != nil {
		return nil, false, commandError(ctx, err, cu.c.spec.Server, cu.query)
	}
	if decodeErr != nil {
		return nil, false, decodeErr
	}
	eof = rows < n
	if rows == 0 {
		return nil, eof, nil
	}
	arrs := make([]arrow.Array, len(columns))
	for i := range columns {
		arrs[i] = columns[i].out.finish(schema.Field(i).Type)
	}
	b = array.NewRecordBatch(schema, arrs, int64(rows))
	for _, a := range arrs {
		a.Release()
	}
	return b, eof, nil
}

// maxPreallocRows caps the rows whose room a FETCH reserves before it
// knows how many come back.
const maxPreallocRows = 16384

// plan chooses the result formats and decoders for the local types cols,
// unless the previous FETCH already did for the same types.
func (cu *Cursor) plan(schema *arrow.Schema, cols []types.T) error {
	if cu.columns != nil && slices.Equal(cols, cu.cols) {
		return nil
	}
	if schema.NumFields() != len(cols) {
		return pgerr.Internal("remote: schema has %d fields for %d column types", schema.NumFields(), len(cols))
	}
	if len(cols) > 0 && len(cols) != len(cu.oids) {
		return errResultMismatch()
	}
	cu.cols = slices.Clone(cols)
	cu.columns = make([]fetchColumn, len(cols))
	cu.formats = nil
	if len(cols) > 0 {
		cu.formats = make([]int16, len(cols))
	}
	for i, t := range cols {
		cu.columns[i], cu.formats[i] = newColumn(cu.oids[i], t)
	}
	return nil
}

// errResultMismatch is postgres_fdw's error for a remote result whose
// columns are not those of the foreign table.
func errResultMismatch() error {
	return pgerr.Internal("remote query result does not match the foreign table")
}

// Close closes the cursor. CLOSE cN goes with the next command on the
// connection, or not at all when the remote transaction ends first (which
// closes the cursor); a cursor whose remote transaction has ended, failed
// or lost its connection is already gone (or will be with the abort).
func (cu *Cursor) Close(ctx context.Context) error {
	if cu.closed {
		return nil
	}
	cu.closed = true
	cu.columns = nil
	c := cu.c
	if err := c.acquire(ctx); err != nil {
		return err
	}
	defer c.release()
	if c.broken() || !c.xact || c.xactID != cu.xactID || c.pg.TxStatus() != 'T' {
		return nil
	}
	c.pending = append(c.pending, "CLOSE "+cu.name)
	return nil
}

// Conn returns the connection the cursor lives on.
func (cu *Cursor) Conn() *Conn { return cu.c }
