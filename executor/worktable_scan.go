package executor

// WorkTable Scan: the recursive term's reference to its recursive CTE,
// reading the rows of the enclosing Recursive Union's previous iteration
// (its work table, found in the statement's cteRegistry when the scan
// opens; the union rebuilds its recursive term, and so this scan, for
// each iteration).

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
)

type workTableScanOp struct {
	plan   *nodes.WorkTableScan
	ec     *ExecContext
	qual   *qual
	reader *storeReader
}

func (*workTableScanOp) ownsQual() {}

func newWorkTableScan(p *nodes.WorkTableScan, ec *ExecContext) (Operator, error) {
	q, err := newQual(&p.PlanBase, ec)
	if err != nil {
		return nil, err
	}
	return &workTableScanOp{plan: p, ec: ec, qual: q}, nil
}

func (w *workTableScanOp) Open(ctx context.Context) error {
	wt := w.ec.cteRegistry().work[w.plan.WorkTable]
	if wt == nil {
		return pgerr.Internal("executor: WorkTable Scan on %s outside its Recursive Union", w.plan.Name)
	}
	if w.reader != nil {
		w.reader.close()
	}
	w.reader = wt.rows.reader()
	return nil
}

func (w *workTableScanOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if w.reader == nil {
		return nil, io.EOF
	}
	return w.qual.next(func() (arrow.RecordBatch, error) {
		if err := checkCtx(ctx); err != nil {
			return nil, err
		}
		b, ok, err := w.reader.next()
		if err == nil && !ok {
			err = io.EOF
		}
		return b, err
	})
}

func (w *workTableScanOp) Close() error {
	if w.reader != nil {
		w.reader.close()
		w.reader = nil
	}
	w.qual.close()
	return nil
}
