package executor

// Result produces one row with no columns, which its Targets project into
// the values of a SELECT without FROM (and its Filter may drop); with
// Empty set (every partition pruned) it produces nothing. It holds no
// resources.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
)

// resultOp produces one row with no columns (SELECT without FROM), or
// nothing when the plan is Empty.
type resultOp struct {
	plan *nodes.Result
	done bool
}

func (r *resultOp) Open(ctx context.Context) error { r.done = r.plan.Empty; return nil }
func (r *resultOp) Close() error                   { return nil }
func (r *resultOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if r.done {
		return nil, io.EOF
	}
	r.done = true
	return oneRowBatch(), nil
}
