package executor

// ForeignScan reads a foreign table through a remote cursor: Open gets the
// session's connection to the server (opening the statement's remote
// REPEATABLE READ transaction on first use) and declares a cursor for the
// plan's remote SQL; Next fetches FetchSize rows at a time, decoded from
// the binary format into a batch of the node's own rows; Close closes the
// cursor. The remote transaction is committed or aborted at the end of
// the statement by the session, not here.
//
// On an async_capable server the scan fetches ahead: as an async child of
// an Append, through the Append's fetchers (async.go); anywhere else but
// under an Append it is its own driver, with a fetcher that keeps the
// next FETCH in flight while the parent works on the current batch. As a
// synchronous child of an Append (enable_async_append off) it fetches
// when asked, as PostgreSQL's does. The scan applies its own local filter
// and projection to every batch, on whichever goroutine fetched it, so a
// local qual never turns async off.
//
// Errors: remote errors keep their SQLSTATE, with CONTEXT naming the
// remote SQL. Cancellation: the context reaches pgx, which sends a real
// cancel request to the server while a FETCH runs.

import (
	"context"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/remote"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// RemoteConnector gives foreign scans their connections; the session
// implements it over its remote.Manager and the catalog.
type RemoteConnector interface {
	// Conn returns connection slot (0 = primary) of server under a user
	// mapping; slots beyond 0 share the primary's snapshot.
	Conn(ctx context.Context, server, mappingKey string, slot int) (*remote.Conn, error)
	// Connection management, for postgres_fdw_get_connections() and
	// postgres_fdw_disconnect[_all]().
	Connections() []remote.ConnInfo
	Disconnect(server string) (bool, error)
	DisconnectAll() bool
	// Prepared lists pgfed's prepared transactions on server and, with
	// resolve, resolves them first (pgfed_prepared_xacts,
	// pgfed_resolve_prepared).
	Prepared(ctx context.Context, server string, resolve bool) ([]remote.PreparedXact, error)
}

type foreignScan struct {
	plan *nodes.ForeignScan
	ec   *ExecContext
	// schema and types are those of the columns fetched remotely; the
	// scan of an UPDATE or DELETE adds the leaf's tableoid at oidAt.
	schema     *arrow.Schema
	types      []types.T
	oidAt      []int
	fullSchema *arrow.Schema
	cursor     *remote.Cursor
	eof        bool

	// prefetch: an async-capable scan that is not an Append's async child
	// is its own driver: it fetches the next batches on a goroutine while
	// its parent works on the current one.
	prefetch *asyncDriver
	// noPrefetch is set by an Append for its synchronous children.
	noPrefetch bool
	// qual is the scan's local filter and projection, applied to every
	// batch it fetches, on whichever goroutine fetched it.
	qual *qual
}

var _ qualOwner = (*foreignScan)(nil)

func newForeignScan(p *nodes.ForeignScan, ec *ExecContext) (Operator, error) {
	remoteTypes := p.RemoteTypes()
	fields := make([]nodes.Field, len(remoteTypes))
	for i, t := range remoteTypes {
		fields[i] = nodes.Field{Name: "c" + itoa(i), T: t}
	}
	q, err := newQual(&p.PlanBase, ec)
	if err != nil {
		return nil, err
	}
	f := &foreignScan{plan: p, ec: ec, schema: schemaOf(fields), types: remoteTypes, qual: q}
	if len(remoteTypes) != len(p.Types) {
		for i, c := range p.Columns {
			if c == storage.TableOIDColumn {
				f.oidAt = append(f.oidAt, i)
			}
		}
		all := make([]nodes.Field, len(p.Types))
		for i, t := range p.Types {
			all[i] = nodes.Field{Name: "c" + itoa(i), T: t}
		}
		f.fullSchema = schemaOf(all)
	}
	return f, nil
}

// withTableOID adds the leaf's tableoid to a fetched batch where the
// scan's columns have it.
func (f *foreignScan) withTableOID(b arrow.RecordBatch) arrow.RecordBatch {
	if b == nil || f.oidAt == nil {
		return b
	}
	defer b.Release()
	n := int(b.NumRows())
	oids := make([]int64, n)
	for i := range oids {
		oids[i] = f.plan.Table.OID
	}
	oidArr := newFixedArray(arrow.PrimitiveTypes.Int64, oids, nil, 0)
	defer oidArr.Release()
	cols := make([]arrow.Array, 0, len(f.plan.Types))
	next, fetched := 0, 0
	for i := range f.plan.Types {
		if next < len(f.oidAt) && f.oidAt[next] == i {
			cols = append(cols, oidArr)
			next++
		} else {
			cols = append(cols, b.Column(fetched))
			fetched++
		}
		cols[len(cols)-1].Retain()
	}
	return makeBatch(f.fullSchema, cols, n)
}

func (f *foreignScan) ownsQual() {}

func (f *foreignScan) Open(ctx context.Context) error {
	if f.ec.Remote == nil {
		return pgerr.Internal("foreign scan without a remote connector")
	}
	conn, err := f.ec.Remote.Conn(ctx, f.plan.Server, f.plan.MappingKey, f.plan.ConnSlot)
	if err != nil {
		return err
	}
	f.eof = false
	sql, params, err := f.keyFilterSQL()
	if err != nil {
		return err
	}
	f.cursor, err = conn.OpenCursorParams(ctx, sql, params)
	if err != nil {
		return err
	}
	if f.plan.AsyncCapable && !f.plan.Async && !f.noPrefetch {
		f.startPrefetch(ctx)
	}
	return nil
}

func (f *foreignScan) startPrefetch(ctx context.Context) {
	f.prefetch = startAsync(ctx, []asyncChild{{op: f}}, asyncDemand, nil)
}

// nextPrefetched returns the next batch fetched ahead; taking it lets the
// fetcher go one batch further.
func (f *foreignScan) nextPrefetched(ctx context.Context) (arrow.RecordBatch, error) {
	d := f.prefetch
	for d.live > 0 {
		select {
		case ev := <-d.events:
			if b, err, ok := d.take(ev); ok {
				return b, err
			}
		case <-ctx.Done():
			return nil, CtxError(ctx)
		}
	}
	return nil, io.EOF
}

func (f *foreignScan) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if f.prefetch != nil {
		return f.nextPrefetched(ctx)
	}
	for !f.eof {
		if err := checkCtx(ctx); err != nil {
			return nil, err
		}
		// FetchAsync sets f.eof.
		if b, _, err := f.FetchAsync(ctx); err != nil || b != nil {
			return b, err
		}
	}
	return nil, io.EOF
}

// FetchAsync implements AsyncCapable (and is Next's fetch): one FETCH,
// with the scan's qual applied. A batch is returned only when rows came
// back and passed the filter.
func (f *foreignScan) FetchAsync(ctx context.Context) (arrow.RecordBatch, bool, error) {
	b, eof, err := f.cursor.Fetch(ctx, f.plan.FetchSize, f.schema, f.types)
	if err != nil {
		return nil, false, err
	}
	f.eof = eof
	b, err = f.qualified(f.withTableOID(b))
	return b, eof, err
}

// qualified applies the scan's qual to a fetched batch; nil when no row
// is left (or none came back).
func (f *foreignScan) qualified(b arrow.RecordBatch) (arrow.RecordBatch, error) {
	if b != nil && b.NumRows() == 0 {
		b.Release()
		return nil, nil
	}
	rows := 0
	if b != nil {
		rows = int(b.NumRows())
	}
	out, err := f.qual.apply(b)
	if err == nil && f.qual != nil && len(f.qual.pending) > 0 {
		// One FETCH's rows are too wide for one batch: the async
		// protocol delivers one batch per fetch, so fail cleanly.
		out.Release()
		f.qual.close()
		return nil, errBatchTooWide(rows, 0, maxArrayBytes)
	}
	return out, err
}

// AsyncResource implements AsyncCapable: the scan's remote connection.
func (f *foreignScan) AsyncResource() any { return f.cursor.Conn() }

// fetchTogether implements asyncCombiner: the FETCHes of scans sharing a
// connection go out in one pipeline, one round trip for all of them.
func (f *foreignScan) fetchTogether(ctx context.Context, ops []AsyncCapable) []asyncResult {
	results := make([]asyncResult, len(ops))
	reqs := make([]*remote.FetchRequest, len(ops))
	for j, op := range ops {
		g, ok := op.(*foreignScan)
		if !ok {
			err := pgerr.Internal("foreign scan fetched together with %T", op)
			for j := range results {
				results[j].err = err
			}
			return results
		}
		reqs[j] = &remote.FetchRequest{Cursor: g.cursor, N: g.plan.FetchSize, Schema: g.schema, Cols: g.types}
	}
	f.cursor.Conn().FetchTogether(ctx, reqs)
	for j, r := range reqs {
		results[j] = asyncResult{eof: r.EOF, err: r.Err}
		if r.Err == nil {
			g := ops[j].(*foreignScan)
			g.eof = r.EOF
			results[j].batch, results[j].err = g.qualified(g.withTableOID(r.Batch))
		}
	}
	return results
}

var (
	_ AsyncCapable  = (*foreignScan)(nil)
	_ asyncCombiner = (*foreignScan)(nil)
)

func (f *foreignScan) Close() error {
	if d := f.prefetch; d != nil {
		f.prefetch = nil
		d.stop()
	}
	if f.cursor == nil {
		return nil
	}
	c := f.cursor
	f.cursor = nil
	// Closing must not depend on the statement's context, which may be
	// cancelled already; the session aborts the remote transaction anyway.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A CLOSE that fails (the fetch was cancelled, so the remote
	// transaction is aborted) changes nothing: the statement's end aborts
	// the remote transaction and its cursors with it.
	_ = c.Close(ctx)
	return nil
}
