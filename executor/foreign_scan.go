package executor

// ForeignScan reads a foreign table through a remote cursor: Open gets the
// session's connection to the server (opening the statement's remote
// REPEATABLE READ transaction on first use) and declares a cursor for the
// plan's remote SQL; Next fetches FetchSize rows at a time, decoded from
// the binary format into a batch of the node's own rows; Close closes the
// cursor. The remote transaction is committed or aborted at the end of
// the statement by the session, not here.
//
// Errors: remote errors keep their SQLSTATE, with CONTEXT naming the
// remote SQL. Cancellation: the context reaches pgx, which sends a real
// cancel request to the server while a FETCH runs.

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/remote"
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
}

type foreignScan struct {
	plan   *nodes.ForeignScan
	ec     *ExecContext
	schema *arrow.Schema
	cursor *remote.Cursor
	eof    bool

	// prefetch: an async-capable scan that is not an Append's async child
	// is its own driver: it fetches the next batch on a goroutine while
	// its parent works on the current one.
	prefetch *prefetcher
}

// prefetcher runs the scan's RunAsync loop for the scan itself.
type prefetcher struct {
	events chan asyncEvent
	req    *AsyncRequest
	cancel context.CancelFunc
	done   chan struct{}
	ended  bool
}

var _ Operator = (*foreignScan)(nil)

func newForeignScan(p *nodes.ForeignScan, ec *ExecContext) (Operator, error) {
	fields := make([]nodes.Field, len(p.Types))
	for i, t := range p.Types {
		fields[i] = nodes.Field{Name: "c" + itoa(i), T: t}
	}
	return &foreignScan{plan: p, ec: ec, schema: schemaOf(fields)}, nil
}

func (f *foreignScan) Open(ctx context.Context) error {
	if f.ec.Remote == nil {
		return pgerr.Internal("foreign scan without a remote connector")
	}
	conn, err := f.ec.Remote.Conn(ctx, f.plan.Server, f.plan.MappingKey, f.plan.ConnSlot)
	if err != nil {
		return err
	}
	f.eof = false
	f.cursor, err = conn.OpenCursor(ctx, f.plan.RemoteSQL)
	if err != nil {
		return err
	}
	if f.plan.AsyncCapable && !f.plan.Async {
		f.startPrefetch(ctx)
	}
	return nil
}

func (f *foreignScan) startPrefetch(ctx context.Context) {
	pctx, cancel := context.WithCancel(ctx)
	p := &prefetcher{events: make(chan asyncEvent, 2), cancel: cancel, done: make(chan struct{})}
	p.req = &AsyncRequest{events: p.events, demand: make(chan struct{}, 1), mu: &sync.Mutex{}}
	p.req.demand <- struct{}{} // the first FETCH goes out now
	f.prefetch = p
	go func() {
		defer close(p.done)
		f.RunAsync(pctx, p.req)
	}()
}

// nextPrefetched returns the batch fetched ahead and asks for the next.
func (f *foreignScan) nextPrefetched(ctx context.Context) (arrow.RecordBatch, error) {
	p := f.prefetch
	if p.ended {
		return nil, io.EOF
	}
	select {
	case ev := <-p.events:
		if ev.done {
			p.ended = true
			if ev.err != nil {
				return nil, ev.err
			}
			return nil, io.EOF
		}
		p.req.demand <- struct{}{} // fetch the next batch while this one is used
		return ev.batch, nil
	case <-ctx.Done():
		return nil, CtxError(ctx)
	}
}

func (f *foreignScan) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if f.prefetch != nil {
		return f.nextPrefetched(ctx)
	}
	for !f.eof {
		if err := checkCtx(ctx); err != nil {
			return nil, err
		}
		b, eof, err := f.cursor.Fetch(ctx, f.plan.FetchSize, f.schema, f.plan.Types)
		if err != nil {
			return nil, err
		}
		f.eof = eof
		if b != nil && b.NumRows() > 0 {
			return b, nil
		}
		if b != nil {
			b.Release()
		}
	}
	return nil, io.EOF
}

// RunAsync implements AsyncCapable: fetch batches, one per demand token,
// and deliver them to the driver.
func (f *foreignScan) RunAsync(ctx context.Context, req *AsyncRequest) {
	func() {
		for !f.eof {
			if !req.wait(ctx) {
				req.finish(ctx, CtxError(ctx))
				return
			}
			start := time.Now()
			b, eof, err := f.cursor.Fetch(ctx, f.plan.FetchSize, f.schema, f.plan.Types)
			req.request(time.Since(start))
			if err != nil {
				req.finish(ctx, err)
				return
			}
			f.eof = eof
			if b == nil {
				continue
			}
			if b.NumRows() == 0 {
				b.Release()
				// No batch went out, so the demand token is still ours.
				req.demand <- struct{}{}
				continue
			}
			if !req.deliver(ctx, b) {
				req.finish(ctx, CtxError(ctx))
				return
			}
		}
		req.finish(ctx, nil)
	}()
}

var _ AsyncCapable = (*foreignScan)(nil)

func (f *foreignScan) Close() error {
	if p := f.prefetch; p != nil {
		f.prefetch = nil
		p.cancel()
		go func() {
			<-p.done
			close(p.events)
		}()
		for ev := range p.events {
			if ev.batch != nil {
				ev.batch.Release()
			}
		}
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
