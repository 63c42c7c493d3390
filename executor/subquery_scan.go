package executor

// SubqueryScan passes the rows of a subquery in FROM through, applying its
// own Filter and Targets (the subquery's WHERE above it and its select
// list). Lifecycle and errors are its child's.

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
)

type subqueryScan struct {
	child Operator
	qual  *qual
}

var _ qualOwner = (*subqueryScan)(nil)

func newSubqueryScan(p *nodes.SubqueryScan, ec *ExecContext) (Operator, error) {
	q, err := newQual(&p.PlanBase, ec)
	if err != nil {
		return nil, err
	}
	c, err := Build(p.Child, ec)
	if err != nil {
		return nil, err
	}
	return &subqueryScan{child: c, qual: q}, nil
}

func (s *subqueryScan) ownsQual()                      {}
func (s *subqueryScan) Open(ctx context.Context) error { return s.child.Open(ctx) }
func (s *subqueryScan) Close() error                   { s.qual.close(); return s.child.Close() }
func (s *subqueryScan) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return s.qual.next(func() (arrow.RecordBatch, error) { return s.child.Next(ctx) })
}
