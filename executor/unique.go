package executor

// Unique returns the first row of each run of input rows that agree on
// its key columns (NULLs count as equal), for DISTINCT ON over input
// sorted on those keys. It remembers the last key across batches and
// selects the surviving rows of each batch in one pass.

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

type uniqueOp struct {
	plan  *nodes.Unique
	child Operator
	types []types.T
	last  []byte // encoded key of the last row seen; nil before the first
	buf   []byte
}

func newUnique(p *nodes.Unique, ec *ExecContext) (Operator, error) {
	c, err := Build(p.Child, ec)
	if err != nil {
		return nil, err
	}
	out := p.Child.Base().Out
	ts := make([]types.T, len(p.Keys))
	for i, k := range p.Keys {
		ts[i] = out[k].T
	}
	return &uniqueOp{plan: p, child: c, types: ts}, nil
}

func (u *uniqueOp) Open(ctx context.Context) error { u.last = nil; return u.child.Open(ctx) }
func (u *uniqueOp) Close() error                   { return u.child.Close() }

func (u *uniqueOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		b, err := u.child.Next(ctx)
		if err != nil {
			return nil, err
		}
		var sel []int32
		for r := 0; r < int(b.NumRows()); r++ {
			key := u.buf[:0]
			for i, k := range u.plan.Keys {
				key = encodeKey(key, u.types[i], types.DatumAt(b.Column(k), u.types[i], r))
			}
			u.buf = key
			if u.last != nil && string(key) == string(u.last) {
				continue
			}
			u.last = append(u.last[:0], key...)
			sel = append(sel, int32(r))
		}
		if len(sel) == 0 {
			b.Release()
			continue
		}
		if len(sel) == int(b.NumRows()) {
			return b, nil
		}
		out := takeBatch(b, sel)
		b.Release()
		return out, nil
	}
}
