package remote

import (
	"context"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgfed/pgfed/pgerr"
)

// Command is one data-changing command of ExecAll: SQL with its
// parameters ($1, $2 ...) as text (nil = NULL), which the server types
// from the statement (the target columns, a ctid). Repeated commands
// (Prepare) are prepared on the connection the first time and later
// only bound and executed.
type Command struct {
	SQL     string
	Params  [][]byte
	Prepare bool
}

// xidSQL gives the remote transaction's id, which names it in the GIDs
// of a two-phase commit (twophase.go).
const xidSQL = "SELECT pg_current_xact_id()::text"

// Exec runs a command that changes data (INSERT, UPDATE, DELETE,
// TRUNCATE) in the remote transaction, in one round trip with whatever
// is pending. It returns the rows of its RETURNING clause as text (nil =
// NULL) and the number of rows it affected. args are the values of $1,
// $2 ... as QueryText takes them.
func (c *Conn) Exec(ctx context.Context, sql string, args ...any) (rows [][]*string, affected int64, err error) {
	params, err := textParams(args)
	if err != nil {
		return nil, 0, err
	}
	return c.ExecAll(ctx, []Command{{SQL: sql, Params: params}})
}

// ExecAll runs cmds, in order, in one round trip: one pipeline, one
// Sync, led by what is pending on the connection. A failing command
// stops the rest (the server skips them); its error names its SQL. It
// returns the rows of the commands' RETURNING clauses as text and the
// rows affected.
//
// From then on the connection counts as written in the transaction: its
// commit matters (a remote transaction that failed cannot be committed
// quietly), and reads go through it rather than through extra slots,
// which would not see the writes. Under pgfed.two_phase_commit the first
// write also learns the remote transaction's id, in the same round trip.
func (c *Conn) ExecAll(ctx context.Context, cmds []Command) (rows [][]*string, affected int64, err error) {
	if len(cmds) == 0 {
		return nil, 0, nil
	}
	if err := c.acquire(ctx); err != nil {
		return nil, 0, err
	}
	defer c.release()
	if err := c.checkInXact(); err != nil {
		return nil, 0, err
	}
	c.wrote = true
	wantXid := c.xid == "" && c.m.twoPhase()
	fresh := map[string]bool{}
	err = c.roundTrip(ctx, func(p *pgconn.Pipeline) {
		clear(fresh)
		for _, cmd := range cmds {
			c.sendCommand(p, cmd, fresh)
		}
		if wantXid {
			p.SendQueryParams(xidSQL, nil, nil, nil, nil)
		}
	}, func(p *pgconn.Pipeline) error {
		for _, cmd := range cmds {
			got, n, err := c.readCommand(ctx, p, cmd)
			if err != nil {
				return err
			}
			rows, affected = append(rows, got...), affected+n
		}
		if wantXid {
			got, _, err := c.readCommand(ctx, p, Command{SQL: xidSQL})
			if err != nil {
				return err
			}
			if len(got) == 1 && len(got[0]) == 1 && got[0][0] != nil {
				c.xid = *got[0][0]
			}
		}
		return nil
	})
	if err != nil {
		for sql, isNew := range fresh {
			if isNew {
				delete(c.fetchStmts, sql)
			}
		}
		return nil, 0, err
	}
	return rows, affected, nil
}

// sendCommand queues cmd. A statement prepared earlier in the same
// pipeline is known by then; the unnamed one (not cached, or a full
// cache) is prepared each time.
func (c *Conn) sendCommand(p *pgconn.Pipeline, cmd Command, fresh map[string]bool) {
	if !cmd.Prepare {
		p.SendQueryParams(cmd.SQL, cmd.Params, nil, nil, nil)
		return
	}
	name, isNew := c.preparedStatement(cmd.SQL, "pgfed_write_")
	if isNew {
		p.SendPrepare(name, cmd.SQL, nil)
		fresh[cmd.SQL] = name != ""
	}
	p.SendQueryPrepared(name, cmd.Params, nil, nil)
}

// readCommand reads the result of a command sendCommand queued.
func (c *Conn) readCommand(ctx context.Context, p *pgconn.Pipeline, cmd Command) ([][]*string, int64, error) {
	res, err := p.GetResults()
	if _, ok := res.(*pgconn.StatementDescription); ok && err == nil {
		res, err = p.GetResults() // the statement is prepared; now its result
	}
	if err != nil {
		return nil, 0, commandError(ctx, err, c.spec.Server, cmd.SQL)
	}
	rr, ok := res.(*pgconn.ResultReader)
	if !ok {
		return nil, 0, pgerr.Internal("remote: pipeline gave %T for a command", res)
	}
	rows := textRows(rr)
	tag, err := rr.Close()
	if err != nil {
		return nil, 0, commandError(ctx, err, c.spec.Server, cmd.SQL)
	}
	return rows, tag.RowsAffected(), nil
}
