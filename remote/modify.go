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
