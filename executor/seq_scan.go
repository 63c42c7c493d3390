package executor

// SeqScan returns the stored batches of a local table, restricted to the
// columns the plan reads, without copying: each output batch shares the
// stored arrays (reference counted). The table's contents are captured at
// Open (a snapshot), so a statement never sees its own or concurrent
// writes mid-scan. Cancellation is checked before every batch.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

type seqScan struct {
	plan    *nodes.SeqScan
	schema  *arrow.Schema
	batches []arrow.RecordBatch
	pos     int
}

var _ Operator = (*seqScan)(nil)

func newSeqScan(p *nodes.SeqScan, ec *ExecContext) *seqScan {
	fields := make([]nodes.Field, len(p.Columns))
	for i, c := range p.Columns {
		col := p.Table.Columns[c]
		fields[i] = nodes.Field{Name: col.Name, T: col.Type}
	}
	return &seqScan{plan: p, schema: schemaOf(fields)}
}

func (s *seqScan) Open(ctx context.Context) error {
	s.batches = s.plan.Table.Snapshot()
	s.pos = 0
	return nil
}

func (s *seqScan) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := checkCtx(ctx); err != nil {
		return nil, err
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
	for _, b := range s.batches {
		if b != nil {
			b.Release()
		}
	}
	s.batches = nil
	return nil
}

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

// valuesScan evaluates the rows of a VALUES list into one batch.
type valuesScan struct {
	plan   *nodes.ValuesScan
	ec     *ExecContext
	schema *arrow.Schema
	done   bool
}

func newValuesScan(p *nodes.ValuesScan, ec *ExecContext) (Operator, error) {
	fields := make([]nodes.Field, len(p.Types))
	for i, t := range p.Types {
		fields[i] = nodes.Field{Name: "column" + itoa(i+1), T: t}
	}
	return &valuesScan{plan: p, ec: ec, schema: schemaOf(fields)}, nil
}

func (v *valuesScan) Open(ctx context.Context) error { v.done = false; return nil }
func (v *valuesScan) Close() error                   { return nil }
func (v *valuesScan) Next(ctx context.Context) (arrow.RecordBatch, error) {
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

// functionScan runs generate_series(start, stop [, step]) over integers,
// producing batches of at most BatchSize rows.
type functionScan struct {
	plan             *nodes.FunctionScan
	ec               *ExecContext
	schema           *arrow.Schema
	next, stop, step int64
	// numeric series
	dnext, dstop, dstep *apd.Decimal
	done                bool
}

func newFunctionScan(p *nodes.FunctionScan, ec *ExecContext) (Operator, error) {
	return &functionScan{plan: p, ec: ec, schema: schemaOf([]nodes.Field{{Name: p.Alias, T: p.T}})}, nil
}

func (f *functionScan) Open(ctx context.Context) error {
	args := make([]any, len(f.plan.Args))
	for i, e := range f.plan.Args {
		d, err := EvalConst(e, f.ec)
		if err != nil {
			return err
		}
		args[i] = d
	}
	f.done = false
	for _, a := range args {
		if a == nil {
			f.done = true
			return nil
		}
	}
	if f.plan.T.ID == types.Numeric {
		f.dnext, f.dstop, f.dstep = args[0].(*apd.Decimal), args[1].(*apd.Decimal), types.NumericFromInt64(1)
		if len(args) > 2 {
			f.dstep = args[2].(*apd.Decimal)
			if f.dstep.IsZero() {
				return errStepZero
			}
		}
		for i, d := range []*apd.Decimal{f.dnext, f.dstop, f.dstep} {
			if d.Form == apd.NaN {
				return pgerr.New(pgerr.InvalidParameterValue, "%s cannot be NaN", [...]string{"start value", "stop value", "step size"}[i])
			}
		}
		return nil
	}
	f.next, f.stop, f.step = args[0].(int64), args[1].(int64), 1
	if len(args) > 2 {
		f.step = args[2].(int64)
		if f.step == 0 {
			return errStepZero
		}
	}
	return nil
}

func (f *functionScan) Close() error { return nil }

// nextInts produces the next batch of an integer series straight into a
// typed buffer.
func (f *functionScan) nextInts() (arrow.RecordBatch, error) {
	vals := make([]int64, 0, f.ec.BatchSize)
	next, stop, step := f.next, f.stop, f.step
	for len(vals) < f.ec.BatchSize {
		if (step > 0 && next > stop) || (step < 0 && next < stop) {
			f.done = true
			break
		}
		vals = append(vals, next)
		nxt := next + step
		if (step > 0 && nxt < next) || (step < 0 && nxt > next) { // overflow ends the series
			f.done = true
			break
		}
		next = nxt
	}
	f.next = next
	if len(vals) == 0 {
		return nil, io.EOF
	}
	var arr arrow.Array
	if f.plan.T.ID == types.Int4 {
		arr = newFixedArray(f.plan.T.ArrowType(), convertSlice[int64, int32](vals), nil, 0)
	} else {
		arr = newFixedArray(f.plan.T.ArrowType(), vals, nil, 0)
	}
	return makeBatch(f.schema, []arrow.Array{arr}, len(vals)), nil
}

func (f *functionScan) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := checkCtx(ctx); err != nil {
		return nil, err
	}
	if f.done {
		return nil, io.EOF
	}
	if f.dnext == nil {
		return f.nextInts()
	}
	vals := make([]any, 0, 1024)
	if f.dnext != nil {
		for len(vals) < f.ec.BatchSize {
			c := f.dnext.Cmp(f.dstop)
			if (f.dstep.Negative && c < 0) || (!f.dstep.Negative && c > 0) {
				f.done = true
				break
			}
			vals = append(vals, f.dnext)
			nxt, err := types.NumericAdd(f.dnext, f.dstep)
			if err != nil {
				return nil, err
			}
			f.dnext = nxt
		}
	}
	for f.dnext == nil && len(vals) < f.ec.BatchSize {
		if (f.step > 0 && f.next > f.stop) || (f.step < 0 && f.next < f.stop) {
			f.done = true
			break
		}
		vals = append(vals, f.next)
		nxt := f.next + f.step
		if (f.step > 0 && nxt < f.next) || (f.step < 0 && nxt > f.next) { // overflow ends the series
			f.done = true
			break
		}
		f.next = nxt
	}
	if len(vals) == 0 {
		return nil, io.EOF
	}
	return makeBatch(f.schema, []arrow.Array{arrayOfDatums(f.plan.T, vals)}, len(vals)), nil
}
