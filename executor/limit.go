package executor

// Limit skips OFFSET rows, then returns at most LIMIT rows, slicing the
// batch that crosses a boundary (zero-copy). Once the limit is reached it
// returns io.EOF without pulling its child again, so the child stops early;
// the child's resources are released at Close.

import (
	"context"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
)

type limitOp struct {
	plan       *nodes.Limit
	ec         *ExecContext
	child      Operator
	left, skip int64
}

func newLimit(p *nodes.Limit, ec *ExecContext) (Operator, error) {
	c, err := Build(p.Child, ec)
	if err != nil {
		return nil, err
	}
	return &limitOp{plan: p, ec: ec, child: c}, nil
}

func (l *limitOp) Open(ctx context.Context) error {
	l.left, l.skip = math.MaxInt64, 0
	if l.plan.Count != nil {
		d, err := EvalConst(l.plan.Count, l.ec)
		if err != nil {
			return err
		}
		if d != nil {
			l.left = d.(int64)
			if l.left < 0 {
				return pgerr.New(pgerr.InvalidRowCountInLimit, "LIMIT must not be negative")
			}
		}
	}
	if l.plan.Offset != nil {
		d, err := EvalConst(l.plan.Offset, l.ec)
		if err != nil {
			return err
		}
		if d != nil {
			l.skip = d.(int64)
			if l.skip < 0 {
				return pgerr.New(pgerr.InvalidRowCountInOffset, "OFFSET must not be negative")
			}
		}
	}
	if l.left == 0 {
		return nil
	}
	return l.child.Open(ctx)
}

func (l *limitOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for l.left > 0 {
		b, err := l.child.Next(ctx)
		if err != nil {
			return nil, err
		}
		n := b.NumRows()
		if l.skip >= n {
			l.skip -= n
			b.Release()
			continue
		}
		start := l.skip
		l.skip = 0
		end := n
		if end-start > l.left {
			end = start + l.left
		}
		l.left -= end - start
		if start == 0 && end == n {
			return b, nil
		}
		s := b.NewSlice(start, end)
		b.Release()
		return s, nil
	}
	return nil, io.EOF
}

func (l *limitOp) Close() error { return l.child.Close() }
