package remote

import (
	"context"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgfed/pgfed/pgerr"
)

// Exec runs a command that changes data (INSERT, UPDATE, DELETE,
// TRUNCATE) in the remote transaction, in one round trip with whatever
// is pending. It returns the rows of its RETURNING clause as text (nil =
// NULL) and the number of rows it affected. args are the values of $1,
// $2 ... as QueryText takes them.
//
// From then on the connection counts as written in the transaction: its
// commit matters (a remote transaction that failed cannot be committed
// quietly), and reads go through it rather than through extra slots,
// which would not see the writes.
func (c *Conn) Exec(ctx context.Context, sql string, args ...any) (rows [][]*string, affected int64, err error) {
	params, err := textParams(args)
	if err != nil {
		return nil, 0, err
	}
	if err := c.acquire(ctx); err != nil {
		return nil, 0, err
	}
	defer c.release()
	if err := c.checkInXact(); err != nil {
		return nil, 0, err
	}
	c.wrote = true
	err = c.roundTrip(ctx, func(p *pgconn.Pipeline) {
		p.SendQueryParams(sql, params, nil, nil, nil)
	}, func(p *pgconn.Pipeline) error {
		res, err := p.GetResults()
		if err != nil {
			return commandError(ctx, err, c.spec.Server, sql)
		}
		rr, ok := res.(*pgconn.ResultReader)
		if !ok {
			return pgerr.Internal("remote: pipeline gave %T for a command", res)
		}
		rows = textRows(rr)
		tag, err := rr.Close()
		if err != nil {
			return commandError(ctx, err, c.spec.Server, sql)
		}
		affected = tag.RowsAffected()
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return rows, affected, nil
}

// Command is one data-changing command of ExecAll: SQL with its
// parameters ($1, $2 ...) as text (nil = NULL), which the server types
// from the statement (the target columns, a ctid).
type Command struct {
	SQL    string
	Params [][]byte
}

// ExecAll runs cmds, in order, in one round trip: one pipeline, one
// Sync, led by what is pending on the connection. Each distinct SQL text
// is prepared on the connection the first time (in the same pipeline)
// and later only bound and executed. A failing command stops the rest
// (the server skips them); its error names its SQL. It returns the rows
// of the commands' RETURNING clauses as text and the rows affected.
//
// Like Exec, it marks the connection written in the transaction.
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
	fresh := map[string]bool{}
	err = c.roundTrip(ctx, func(p *pgconn.Pipeline) {
		clear(fresh)
		for _, cmd := range cmds {
			// A statement prepared earlier in this pipeline is known by
			// then; the unnamed one (a full cache) is prepared each time.
			name, isNew := c.preparedStatement(cmd.SQL, "pgfed_write_")
			if isNew {
				p.SendPrepare(name, cmd.SQL, nil)
				fresh[cmd.SQL] = name != ""
			}
			p.SendQueryPrepared(name, cmd.Params, nil, nil)
		}
	}, func(p *pgconn.Pipeline) error {
		for _, cmd := range cmds {
			res, err := p.GetResults()
			if _, ok := res.(*pgconn.StatementDescription); ok && err == nil {
				res, err = p.GetResults() // the statement is prepared; now its result
			}
			if err != nil {
				return commandError(ctx, err, c.spec.Server, cmd.SQL)
			}
			rr, ok := res.(*pgconn.ResultReader)
			if !ok {
				return pgerr.Internal("remote: pipeline gave %T for a command", res)
			}
			rows = append(rows, textRows(rr)...)
			tag, err := rr.Close()
			if err != nil {
				return commandError(ctx, err, c.spec.Server, cmd.SQL)
			}
			affected += tag.RowsAffected()
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
