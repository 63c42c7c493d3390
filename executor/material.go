package executor

// Materialize keeps its child's rows so that its parent can read them
// again: the inner side of a Nested Loop, which reads the buffered
// batches themselves (rowBuffer), as often as it needs, without copying
// them. Read through Next, it passes its child's rows through as they
// come (nothing is kept), unless its rows were buffered already, which
// Next then returns.
//
// The buffered rows count against the memory pools (53200 beyond them);
// like PostgreSQL's tuplestore it would spill past work_mem, but a
// nested loop's inner side is small by the planner's choice, so pgfed
// keeps it in memory.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
)

// rowBuffer is an operator that holds all its rows and lends them out.
type rowBuffer interface {
	// bufferedRows reads the operator's input to its end (the first time)
	// and returns its rows, which stay owned by the operator, valid until
	// its Close.
	bufferedRows(ctx context.Context) ([]arrow.RecordBatch, error)
}

type materialOp struct {
	plan     *nodes.Material
	ec       *ExecContext
	child    Operator
	qual     *qual
	opened   bool
	buffered bool // the rows are in rows
	childEOF bool
	rows     []arrow.RecordBatch
	pos      int // Next over the buffered rows
	mem      reservation
}

func (*materialOp) ownsQual() {}

func newMaterial(p *nodes.Material, ec *ExecContext) (Operator, error) {
	q, err := newQual(&p.PlanBase, ec)
	if err != nil {
		return nil, err
	}
	child, err := Build(p.Child, ec)
	if err != nil {
		return nil, err
	}
	return &materialOp{plan: p, ec: ec, child: child, qual: q}, nil
}

func (m *materialOp) Open(ctx context.Context) error {
	m.opened = true
	m.mem = reservation{pool: m.ec.Memory}
	return m.child.Open(ctx)
}

// childNext is the child's next batch after the node's qual.
func (m *materialOp) childNext(ctx context.Context) (arrow.RecordBatch, error) {
	if m.childEOF {
		return nil, io.EOF
	}
	b, err := m.qual.next(func() (arrow.RecordBatch, error) { return m.child.Next(ctx) })
	if err != nil {
		m.childEOF = true
	}
	return b, err
}

func (m *materialOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !m.buffered {
		return m.childNext(ctx)
	}
	if m.pos >= len(m.rows) {
		return nil, io.EOF
	}
	b := m.rows[m.pos]
	m.pos++
	b.Retain()
	return b, nil
}

func (m *materialOp) bufferedRows(ctx context.Context) ([]arrow.RecordBatch, error) {
	if m.buffered {
		return m.rows, nil
	}
	if m.childEOF {
		return nil, pgerr.Internal("executor: Materialize was read through before its rows were buffered")
	}
	var bytes int64
	for {
		if err := checkCtx(ctx); err != nil {
			return nil, err
		}
		b, err := m.childNext(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		m.rows = append(m.rows, b)
		bytes += batchBytes(b)
		if err := m.mem.resize(bytes); err != nil {
			return nil, err
		}
	}
	m.buffered = true
	return m.rows, nil
}

func (m *materialOp) Close() error {
	releaseBatches(m.rows)
	m.rows = nil
	m.mem.free()
	m.qual.close()
	return m.child.Close()
}
