package remote

// Round trips: every command pgfed sends goes out in a pipeline with one
// Sync, led by the commands the connection has pending (the remote
// transaction's START, savepoints not yet created, cursors to close,
// savepoints to release), so that bookkeeping never costs a round trip
// of its own. A trip is started (sent) and finished (read) separately,
// which lets commit and abort send to every server before reading any
// answer.

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// trip is one round trip in flight on a connection, busy held: the
// pending commands and the caller's went out with one Sync.
type trip struct {
	c       *Conn
	ctx     context.Context
	p       *pgconn.Pipeline
	pending []string
	// starts is set when the trip opens the remote transaction: failing
	// on a reused connection before anything ran, it can be retried on a
	// new one.
	starts bool
	// cleanup trips (ABORT, ROLLBACK TO) do not end with the caller's
	// context: their wait is bounded by cleanupTimeout from the moment
	// finish starts reading, as postgres_fdw's deadlines are.
	cleanup bool
	stop    context.CancelFunc
	err     error    // sending failed
	cmds    []string // the caller's commands, when sent with sendAll
}

// startTrip sends c's pending commands and then what send queues, with a
// Sync, and does not wait. busy must be held.
func (c *Conn) startTrip(ctx context.Context, cleanup bool, send func(p *pgconn.Pipeline)) *trip {
	t := &trip{c: c, pending: c.pending, starts: c.startPending, cleanup: cleanup}
	c.pending, c.startPending = nil, false
	t.ctx, t.stop = context.WithCancel(ctx)
	if cleanup {
		t.ctx, t.stop = context.WithCancel(context.WithoutCancel(ctx))
	}
	if c.broken() {
		t.err = lostError(c.spec.Server)
		return t
	}
	t.p = c.pg.StartPipeline(t.ctx)
	for _, sql := range t.pending {
		t.p.SendQueryParams(sql, nil, nil, nil, nil)
	}
	if send != nil {
		send(t.p)
	}
	if err := t.p.Sync(); err != nil {
		_ = t.p.Close()
		t.p = nil
		t.err = commandError(t.ctx, err, c.spec.Server, t.firstSQL())
		return t
	}
	c.roundTrips.Add(1)
	return t
}

func (t *trip) firstSQL() string {
	if len(t.pending) > 0 {
		return t.pending[0]
	}
	return ""
}

// finish reads the trip's results: first the pending commands', then,
// if they all succeeded, the caller's with read (which may leave results
// unread: the rest up to the Sync is discarded). The first error wins.
//
// A pending command that fails leaves the remote transaction in a state
// not worth guessing at: the connection is marked changing, to be
// discarded at the end of the local transaction.
func (t *trip) finish(read func(p *pgconn.Pipeline) error) error {
	defer t.stop()
	c := t.c
	if t.err != nil {
		c.failedChange(t.pending)
		return t.err
	}
	if t.cleanup {
		timer := time.AfterFunc(cleanupTimeout, t.stop)
		defer timer.Stop()
	}
	var err error
	for _, sql := range t.pending {
		if err = readResult(t.p); err != nil {
			err = commandError(t.ctx, err, c.spec.Server, sql)
			break
		}
	}
	pendingFailed := err != nil
	if err == nil && read != nil {
		err = read(t.p)
	}
	if derr := drainToSync(t.p); derr != nil && err == nil {
		err = commandError(t.ctx, derr, c.spec.Server, t.firstSQL())
	}
	if cerr := t.p.Close(); cerr != nil && err == nil {
		err = commandError(t.ctx, cerr, c.spec.Server, t.firstSQL())
	}
	if pendingFailed {
		c.failedChange(t.pending)
	} else if t.starts {
		c.started = true
	}
	return err
}

// roundTrip is startTrip and finish together; a trip that opens the
// remote transaction on a reused connection that turns out dead (the
// server restarted, the backend was terminated while idle) is sent again
// on a new connection, once: nothing of the transaction is lost then.
func (c *Conn) roundTrip(ctx context.Context, send func(p *pgconn.Pipeline), read func(p *pgconn.Pipeline) error) error {
	pending, starts := c.pending, c.startPending
	err := c.startTrip(ctx, false, send).finish(read)
	if err == nil || !starts || !c.reused || !c.broken() || ctx.Err() != nil {
		return err
	}
	if rerr := c.reconnect(ctx); rerr != nil {
		return rerr
	}
	c.pending, c.startPending, c.changing = pending, true, false
	return c.startTrip(ctx, false, send).finish(read)
}

// failedChange marks c after pending transaction commands failed.
func (c *Conn) failedChange(pending []string) {
	if len(pending) > 0 {
		c.changing = true
	}
}

// readResult reads the next result of a pipeline, a command's whose
// rows do not matter.
func readResult(p *pgconn.Pipeline) error {
	res, err := p.GetResults()
	if err != nil {
		return err
	}
	rr, ok := res.(*pgconn.ResultReader)
	if !ok {
		return errors.New("pipeline: unexpected result for a command")
	}
	_, err = rr.Close()
	return err
}

// drainToSync reads and discards a pipeline's results up to its Sync.
// After an error the server skips to the Sync; an error that is not the
// server's means the connection is gone.
func drainToSync(p *pgconn.Pipeline) error {
	var first error
	for {
		res, err := p.GetResults()
		if err != nil {
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) {
				return err
			}
			if first == nil {
				first = err
			}
			continue
		}
		switch r := res.(type) {
		case *pgconn.ResultReader:
			if _, err := r.Close(); err != nil && first == nil {
				first = err
			}
		case *pgconn.StatementDescription:
		default: // *pgconn.PipelineSync, or nil when nothing is left
			return first
		}
	}
}

// run runs commands whose results do not matter in one round trip, after
// the pending ones; busy held.
func (c *Conn) run(ctx context.Context, cmds ...string) error {
	return c.roundTrip(ctx, sendAll(cmds), readAll(ctx, c, cmds))
}

// sendAll queues commands without parameters.
func sendAll(cmds []string) func(p *pgconn.Pipeline) {
	return func(p *pgconn.Pipeline) {
		for _, sql := range cmds {
			p.SendQueryParams(sql, nil, nil, nil, nil)
		}
	}
}

// readAll reads the results of commands queued by sendAll.
func readAll(ctx context.Context, c *Conn, cmds []string) func(p *pgconn.Pipeline) error {
	return func(p *pgconn.Pipeline) error {
		for _, sql := range cmds {
			if err := readResult(p); err != nil {
				return commandError(ctx, err, c.spec.Server, sql)
			}
		}
		return nil
	}
}
