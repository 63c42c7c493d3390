package executor

// ForeignModify ships an UPDATE or DELETE of a foreign table whole
// (postgres_fdw's direct modification): one remote command, run when the
// ModifyTable above first asks for rows. It adds the rows the server
// changed to the statement's count and hands what the remote RETURNING
// gave back to the statement's RETURNING; to its parent it returns one
// batch without columns whose length is that count (EXPLAIN ANALYZE's
// rows), which the ModifyTable skips.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

type foreignModify struct {
	plan *nodes.ForeignModify
	ec   *ExecContext
	done bool
}

var _ Operator = (*foreignModify)(nil)

func newForeignModify(p *nodes.ForeignModify, ec *ExecContext) (Operator, error) {
	if ec.Remote == nil {
		return nil, pgerr.Internal("foreign modify without a remote connector")
	}
	return &foreignModify{plan: p, ec: ec}, nil
}

func (f *foreignModify) Open(context.Context) error { return nil }

func (f *foreignModify) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if f.done {
		return nil, io.EOF
	}
	f.done = true
	p := f.plan
	conn, err := f.ec.Remote.Conn(ctx, p.Server, p.MappingKey, 0)
	if err != nil {
		return nil, err
	}
	rows, affected, err := conn.Exec(ctx, p.RemoteSQL)
	if err != nil {
		return nil, err
	}
	f.ec.RowsAffected += affected
	if len(p.Returning) > 0 && f.ec.foreignReturned != nil && len(rows) > 0 {
		cols := make([]types.T, len(p.Table.Columns))
		for i, c := range p.Table.Columns {
			cols[i] = c.Type
		}
		b, err := returnedRows(p.Table.ArrowSchema(), cols, p.Returning, rows)
		if err != nil {
			return nil, err
		}
		err = f.ec.foreignReturned(b)
		b.Release()
		if err != nil {
			return nil, err
		}
	}
	if affected == 0 {
		return nil, io.EOF
	}
	return array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, affected), nil
}

func (f *foreignModify) Close() error { return nil }
