package executor

// Append returns the batches of each child in turn (UNION ALL, the
// partitions of a partitioned table). Children are opened lazily, one at
// a time, and each is closed as soon as it is exhausted, so that at most
// one child holds resources at a time. The async variant (registering
// async-capable children and polling an event channel between batches of
// the synchronous ones) builds on this node; see the package doc.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
)

type appendOp struct {
	kids   []Operator
	cur    int
	opened bool
}

func newAppend(p *nodes.Append, ec *ExecContext) (Operator, error) {
	kids, err := buildChildren(p.Kids, ec)
	if err != nil {
		return nil, err
	}
	return &appendOp{kids: kids}, nil
}

func (a *appendOp) Open(ctx context.Context) error {
	a.cur, a.opened = 0, false
	return nil
}

func (a *appendOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for a.cur < len(a.kids) {
		kid := a.kids[a.cur]
		if !a.opened {
			if err := kid.Open(ctx); err != nil {
				return nil, err
			}
			a.opened = true
		}
		b, err := kid.Next(ctx)
		if err == io.EOF {
			a.kids[a.cur] = nil
			if err := kid.Close(); err != nil {
				return nil, err
			}
			a.cur++
			a.opened = false
			continue
		}
		return b, err
	}
	return nil, io.EOF
}

func (a *appendOp) Close() error {
	var first error
	for i, k := range a.kids {
		if k != nil {
			if err := k.Close(); err != nil && first == nil {
				first = err
			}
			a.kids[i] = nil
		}
	}
	return first
}
