package executor

// ValuesScan evaluates the rows of a VALUES list (constant expressions)
// into one batch on its first Next. Errors are those of the expressions
// (22P02, 22003 ...). It holds no resources between calls.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
)

// valuesScan evaluates the rows of a VALUES list into one batch.
type valuesScan struct {
	plan   *nodes.ValuesScan
	ec     *ExecContext
	schema *arrow.Schema
	done   bool
	qual   *qual
}

var _ qualOwner = (*valuesScan)(nil)

func newValuesScan(p *nodes.ValuesScan, ec *ExecContext) (Operator, error) {
	fields := make([]nodes.Field, len(p.Types))
	for i, t := range p.Types {
		fields[i] = nodes.Field{Name: "column" + itoa(i+1), T: t}
	}
	q, err := newQual(&p.PlanBase, ec)
	if err != nil {
		return nil, err
	}
	return &valuesScan{plan: p, ec: ec, schema: schemaOf(fields), qual: q}, nil
}

func (v *valuesScan) ownsQual()                      {}
func (v *valuesScan) Open(ctx context.Context) error { v.done = false; return nil }
func (v *valuesScan) Close() error                   { v.qual.close(); return nil }
func (v *valuesScan) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return v.qual.next(v.rows)
}

// rows evaluates the whole list into one batch, once.
func (v *valuesScan) rows() (arrow.RecordBatch, error) {
	if v.done {
		return nil, io.EOF
	}
	v.done = true
	cols := make([][]any, len(v.plan.Types))
	for _, row := range v.plan.Rows {
		for c, e := range row {
			d, err := EvalConst(e, v.ec)
			if err != nil {
				return nil, err
			}
			cols[c] = append(cols[c], d)
		}
	}
	arrs := make([]arrow.Array, len(cols))
	for c := range cols {
		arrs[c] = arrayOfDatums(v.plan.Types[c], cols[c])
	}
	return makeBatch(v.schema, arrs, len(v.plan.Rows)), nil
}
