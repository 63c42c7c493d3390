package executor

// SubqueryScan passes the rows of a subquery in FROM through; its Filter
// and Targets (applied by the generic filter/projection wrapper) do the
// work. Lifecycle and errors are its child's.

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
)

// subqueryScan passes its child's rows through (its Filter and Targets,
// applied by the generic wrapper, do the work).
type subqueryScan struct{ child Operator }

func newSubqueryScan(p *nodes.SubqueryScan, ec *ExecContext) (Operator, error) {
	c, err := Build(p.Child, ec)
	if err != nil {
		return nil, err
	}
	return &subqueryScan{child: c}, nil
}

func (s *subqueryScan) Open(ctx context.Context) error { return s.child.Open(ctx) }
func (s *subqueryScan) Close() error                   { return s.child.Close() }
func (s *subqueryScan) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return s.child.Next(ctx)
}
