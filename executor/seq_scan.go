package executor

// SeqScan returns the stored batches of a local table, restricted to the
// columns the plan reads, without copying: each output batch shares the
// stored arrays (reference counted). The table's contents are captured at
// Open (a snapshot), so a statement never sees its own or concurrent
// writes mid-scan. Cancellation is checked before every batch.
//
// A Parallel Seq Scan (a copy in a Gather's participant) instead claims
// morsels of one snapshot shared by all the participants (parallel.go):
// each claim is one atomic add, and each row goes to one participant.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/nodes"
)

type seqScan struct {
	plan    *nodes.SeqScan
	ec      *ExecContext
	schema  *arrow.Schema
	batches []arrow.RecordBatch
	pos     int
	shared  *parallelScan // set for a Parallel Seq Scan under a Gather
	qual    *qual
}

var _ qualOwner = (*seqScan)(nil)

func newSeqScan(p *nodes.SeqScan, ec *ExecContext) (*seqScan, error) {
	fields := make([]nodes.Field, len(p.Columns))
	for i, c := range p.Columns {
		col := p.Table.Columns[c]
		fields[i] = nodes.Field{Name: col.Name, T: col.Type}
	}
	q, err := newQual(&p.PlanBase, ec)
	if err != nil {
		return nil, err
	}
	return &seqScan{plan: p, ec: ec, schema: schemaOf(fields), qual: q}, nil
}

func (s *seqScan) ownsQual() {}

func (s *seqScan) Open(ctx context.Context) error {
	if s.plan.Parallel && s.ec.parallel != nil {
		s.shared = s.ec.parallel.scan(s.plan.ID, s.plan.Table, s.ec.BatchSize)
		return nil
	}
	s.batches = s.plan.Table.Snapshot()
	s.pos = 0
	return nil
}

func (s *seqScan) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return s.qual.next(func() (arrow.RecordBatch, error) { return s.nextStored(ctx) })
}

// nextStored returns the next stored batch, restricted to the plan's columns.
func (s *seqScan) nextStored(ctx context.Context) (arrow.RecordBatch, error) {
	if err := checkCtx(ctx); err != nil {
		return nil, err
	}
	if s.shared != nil {
		b := s.shared.claim(s.ec.participant)
		if b == nil {
			return nil, io.EOF
		}
		return projectColumns(b, s.plan.Columns, s.schema), nil
	}
	if s.pos >= len(s.batches) {
		return nil, io.EOF
	}
	b := s.batches[s.pos]
	s.batches[s.pos] = nil
	s.pos++
	return projectColumns(b, s.plan.Columns, s.schema), nil
}

// projectColumns returns the columns cols of b as a new batch sharing the
// arrays; it takes over b.
func projectColumns(b arrow.RecordBatch, cols []int, schema *arrow.Schema) arrow.RecordBatch {
	defer b.Release()
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		arrs[i] = b.Column(c)
	}
	return array.NewRecordBatch(schema, arrs, b.NumRows())
}

func (s *seqScan) Close() error {
	s.shared = nil // the Gather owns the shared snapshot
	for _, b := range s.batches {
		if b != nil {
			b.Release()
		}
	}
	s.batches = nil
	return nil
}
