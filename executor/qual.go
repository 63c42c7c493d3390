package executor

// A node's qual and projection (its plan's Filter and Targets), applied to
// every batch the node produces, as PostgreSQL's ExecScan applies a scan's
// qual and projection inside the scan. Scans apply their own (qualOwner),
// so that what a scan computes never hides what it is: an async-capable
// foreign scan with a local filter stays async, and filters the batches it
// delivers out of band on its fetcher goroutine. Build wraps the other
// nodes (Agg's HAVING and targets, say) in a filterProject.

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/nodes"
)

// qual is a compiled Filter and Targets; a nil *qual passes batches
// through.
type qual struct {
	filter  evaluator
	targets []evaluator
	schema  *arrow.Schema
	// removed counts the rows the filter removed (nil without ANALYZE).
	removed *int64
	// pending are the further pieces of a batch whose projection was too
	// wide for one batch, which next returns before reading more.
	pending []arrow.RecordBatch
	// columns, when every target is a plain column, are their input
	// columns: the filter's passing rows are copied of those columns
	// alone (a filter on o_comment that outputs two integers copies no
	// text).
	columns []int
}

// qualOwner is implemented by the operators that apply their own plan
// node's Filter and Targets; Build wraps every other one.
type qualOwner interface {
	Operator
	ownsQual()
}

// newQual compiles b's Filter and Targets; nil when it has neither.
func newQual(b *nodes.PlanBase, ec *ExecContext) (*qual, error) {
	if b.Filter == nil && b.Targets == nil {
		return nil, nil
	}
	q := &qual{}
	var err error
	if b.Filter != nil {
		if q.filter, err = compileExpr(b.Filter, ec); err != nil {
			return nil, err
		}
	}
	if b.Targets != nil {
		if q.targets, err = compileExprs(b.Targets, ec); err != nil {
			return nil, err
		}
		q.schema = schemaOf(b.Out)
		q.columns = nodes.ColumnIndexes(b.Targets)
	}
	if ec.Stats != nil {
		q.removed = &ec.Stats.Node(b.ID).RowsRemovedByFilter
	}
	return q, nil
}

// apply filters and projects b, taking it over; the result is nil when
// no row passed the filter.
func (q *qual) apply(b arrow.RecordBatch) (arrow.RecordBatch, error) {
	if q == nil || b == nil {
		return b, nil
	}
	if q.filter != nil && q.columns != nil {
		return q.filterColumns(b)
	}
	if q.filter != nil {
		var err error
		if b, err = q.applyFilter(b); err != nil || b == nil {
			return nil, err
		}
	}
	if q.targets != nil {
		out, err := projectSplit(b, q.targets, q.schema)
		if err != nil {
			return nil, err
		}
		q.pending = append(q.pending, out[1:]...)
		return out[0], nil
	}
	return b, nil
}

// close releases pieces not handed out.
func (q *qual) close() {
	if q != nil {
		releaseBatches(q.pending)
		q.pending = nil
	}
}

// next calls produce until a batch has rows left after q (or produce
// ends or fails), so that a scan never returns an empty batch.
func (q *qual) next(produce func() (arrow.RecordBatch, error)) (arrow.RecordBatch, error) {
	if q != nil && len(q.pending) > 0 {
		b := q.pending[0]
		q.pending = q.pending[1:]
		return b, nil
	}
	for {
		b, err := produce()
		if err != nil || q == nil {
			return b, err
		}
		if b, err = q.apply(b); err != nil || b != nil {
			return b, err
		}
	}
}

// selectRows evaluates the filter over b: the rows that pass (all: every
// row), counted for EXPLAIN ANALYZE's Rows Removed by Filter.
func (q *qual) selectRows(b arrow.RecordBatch) (sel []int32, all bool, err error) {
	mask, err := q.filter.eval(b)
	if err != nil {
		return nil, false, err
	}
	sel, all = selection(mask.(*array.Boolean))
	mask.Release()
	if q.removed != nil && !all {
		*q.removed += b.NumRows() - int64(len(sel))
	}
	return sel, all, nil
}

// applyFilter returns the rows of b that pass the filter (nil if none);
// it takes over b.
func (q *qual) applyFilter(b arrow.RecordBatch) (arrow.RecordBatch, error) {
	sel, all, err := q.selectRows(b)
	if err != nil {
		b.Release()
		return nil, err
	}
	if all {
		return b, nil
	}
	if len(sel) == 0 {
		b.Release()
		return nil, nil
	}
	out := takeBatch(b, sel)
	b.Release()
	return out, nil
}

// filterColumns is apply for a qual whose targets are plain columns:
// the passing rows of those columns only.
func (q *qual) filterColumns(b arrow.RecordBatch) (arrow.RecordBatch, error) {
	defer b.Release()
	sel, all, err := q.selectRows(b)
	if err != nil || !all && len(sel) == 0 {
		return nil, err
	}
	if all {
		b.Retain() // projectColumns takes over b
		return projectColumns(b, q.columns, q.schema), nil
	}
	cols := make([]arrow.Array, len(q.columns))
	for i, c := range q.columns {
		cols[i] = takeArray(b.Column(c), sel)
	}
	return makeBatch(q.schema, cols, len(sel)), nil
}

// filterProject applies the qual of a node that does not apply its own.
type filterProject struct {
	child Operator
	qual  *qual
}

func (fp *filterProject) Open(ctx context.Context) error { return fp.child.Open(ctx) }
func (fp *filterProject) Close() error                   { fp.qual.close(); return fp.child.Close() }

func (fp *filterProject) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return fp.qual.next(func() (arrow.RecordBatch, error) { return fp.child.Next(ctx) })
}
