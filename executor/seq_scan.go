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
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

type seqScan struct {
	plan    *nodes.SeqScan
	ec      *ExecContext
	schema  *arrow.Schema
	batches []arrow.RecordBatch
	pos     int
	shared  *parallelScan // set for a Parallel Seq Scan under a Gather
	qual    *qual
	system  bool // the scan reads system columns (UPDATE, DELETE)

	filters  []*scanFilter // runtime filters, applied before qual
	filtered *int64        // rows they removed (nil without ANALYZE)
	sel      []int32
}

var _ qualOwner = (*seqScan)(nil)

func newSeqScan(p *nodes.SeqScan, ec *ExecContext) (*seqScan, error) {
	fields := make([]nodes.Field, len(p.Columns))
	for i, c := range p.Columns {
		fields[i] = nodes.Field{Name: p.Table.ColumnName(c), T: p.Table.ColumnType(c)}
	}
	q, err := newQual(&p.PlanBase, ec)
	if err != nil {
		return nil, err
	}
	sc := &seqScan{plan: p, ec: ec, schema: schemaOf(fields), qual: q}
	if sc.filters, err = newScanFilters(p.RuntimeFilters, ec); err != nil {
		return nil, err
	}
	if ec.Stats != nil && len(sc.filters) > 0 {
		sc.filtered = &ec.Stats.Node(p.ID).RowsRemovedByRuntimeFilter
	}
	sc.system = slices.ContainsFunc(p.Columns, func(c int) bool { return c < 0 })
	if sc.system && p.Parallel {
		return nil, pgerr.Internal("executor: a Parallel Seq Scan cannot read system columns")
	}
	return sc, nil
}

func (s *seqScan) ownsQual() {}

// markNumerics marks the stored numeric arrays of b, whose parsed vectors
// later statements may reuse (numeric_cache.go).
func (s *seqScan) markNumerics(b arrow.RecordBatch) arrow.RecordBatch {
	for i, c := range s.plan.Columns {
		if s.plan.Table.ColumnType(c).ID == types.Numeric {
			if strs, ok := b.Column(i).(*array.String); ok {
				markStored(strs)
			}
		}
	}
	return b
}

func (s *seqScan) Open(ctx context.Context) error {
	for _, f := range s.filters {
		f.reset()
	}
	if s.plan.Parallel && s.ec.parallel != nil {
		s.shared = s.ec.parallel.scan(s.plan.ID, func() []arrow.RecordBatch { return s.ec.tableBatches(s.plan.Table) }, s.ec.BatchSize)
		return nil
	}
	s.batches = s.ec.tableBatches(s.plan.Table)
	s.pos = 0
	return nil
}

func (s *seqScan) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return s.qual.next(func() (arrow.RecordBatch, error) { return s.nextFiltered(ctx) })
}

// nextFiltered is the next stored batch with rows left after the
// runtime filters.
func (s *seqScan) nextFiltered(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		b, err := s.nextStored(ctx)
		if err != nil || len(s.filters) == 0 {
			return b, err
		}
		if b, err = applyRuntimeFilters(s.filters, b, &s.sel, s.filtered); err != nil || b != nil {
			return b, err
		}
	}
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
		return s.markNumerics(projectColumns(b, s.plan.Columns, s.schema)), nil
	}
	if s.pos >= len(s.batches) {
		return nil, io.EOF
	}
	b := s.batches[s.pos]
	s.batches[s.pos] = nil
	s.pos++
	if s.system {
		return s.withSystemColumns(b, s.pos-1), nil
	}
	return s.markNumerics(projectColumns(b, s.plan.Columns, s.schema)), nil
}

// withSystemColumns is projectColumns for a scan that also reads system
// columns: batch is the stored batch's position in the snapshot, which
// with the row number is the row's ctid.
func (s *seqScan) withSystemColumns(b arrow.RecordBatch, batch int) arrow.RecordBatch {
	defer b.Release()
	n := int(b.NumRows())
	arrs := make([]arrow.Array, len(s.plan.Columns))
	for i, c := range s.plan.Columns {
		switch c {
		case storage.CtidColumn:
			ids := make([]int64, n)
			for r := range ids {
				ids[r] = storage.Ctid(batch, r)
			}
			arrs[i] = newFixedArray(arrow.PrimitiveTypes.Int64, ids, nil, 0)
		case storage.TableOIDColumn:
			arrs[i] = constArray(types.Int8T, s.plan.Table.OID, n)
		default:
			arrs[i] = b.Column(c)
			arrs[i].Retain()
		}
	}
	return makeBatch(s.schema, arrs, n)
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
	s.qual.close()
	s.shared = nil // the Gather owns the shared snapshot
	for _, b := range s.batches {
		if b != nil {
			b.Release()
		}
	}
	s.batches = nil
	return nil
}
