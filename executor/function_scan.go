package executor

// FunctionScan runs generate_series(start, stop [, step]) over integers or
// numeric, producing batches of at most BatchSize rows, so that a huge
// series streams instead of materializing. The arguments are evaluated at
// Open; a NULL argument gives no rows; a zero step is error 22023.
// Cancellation is checked before every batch.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

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
	qual                *qual
}

func newFunctionScan(p *nodes.FunctionScan, ec *ExecContext) (Operator, error) {
	q, err := newQual(&p.PlanBase, ec)
	if err != nil {
		return nil, err
	}
	if p.Func == "postgres_fdw_get_connections" {
		return &connectionsScan{ec: ec, schema: schemaOf(p.Cols), qual: q}, nil
	}
	if p.Func == "pgfed_prepared_xacts" || p.Func == "pgfed_resolve_prepared" {
		return &preparedScan{plan: p, ec: ec, schema: schemaOf(p.Cols), qual: q}, nil
	}
	return &functionScan{plan: p, ec: ec, schema: schemaOf([]nodes.Field{{Name: p.Alias, T: p.T}}), qual: q}, nil
}

var (
	_ qualOwner = (*functionScan)(nil)
	_ qualOwner = (*connectionsScan)(nil)
)

func (f *functionScan) ownsQual()    {}
func (c *connectionsScan) ownsQual() {}

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
		}
		// generate_series_step_numeric refuses NaN and infinities in
		// start, stop and step, in that order, then a zero step.
		for i, d := range []*apd.Decimal{f.dnext, f.dstop, f.dstep} {
			if d.Form != apd.Finite {
				what := "infinity"
				if d.Form != apd.Infinite {
					what = "NaN"
				}
				return pgerr.New(pgerr.InvalidParameterValue, "%s cannot be %s", [...]string{"start value", "stop value", "step size"}[i], what)
			}
		}
		if f.dstep.IsZero() {
			return errStepZero
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

func (f *functionScan) Close() error { f.qual.close(); return nil }

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
	return f.qual.next(func() (arrow.RecordBatch, error) { return f.nextSeries(ctx) })
}

// numericSeriesBatch bounds a numeric series' batches: ~10 ms of work.
const numericSeriesBatch = 4096

// nextSeries produces the next batch of the series.
func (f *functionScan) nextSeries(ctx context.Context) (arrow.RecordBatch, error) {
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
		// Numeric steps cost microseconds each: smaller batches keep a
		// cancel prompt (each batch is one uninterruptible step).
		for len(vals) < min(f.ec.BatchSize, numericSeriesBatch) {
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

// connectionsScan is postgres_fdw_get_connections(): one row per remote
// connection of the session (server_name, valid).
type connectionsScan struct {
	ec     *ExecContext
	schema *arrow.Schema
	done   bool
	qual   *qual
}

func (c *connectionsScan) Open(ctx context.Context) error { c.done = false; return nil }
func (c *connectionsScan) Close() error                   { c.qual.close(); return nil }
func (c *connectionsScan) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return c.qual.next(c.list)
}

// list returns the connections as one batch.
func (c *connectionsScan) list() (arrow.RecordBatch, error) {
	if c.done || c.ec.Remote == nil {
		return nil, io.EOF
	}
	c.done = true
	conns := c.ec.Remote.Connections()
	if len(conns) == 0 {
		return nil, io.EOF
	}
	names, valid := make([]any, len(conns)), make([]any, len(conns))
	for i, ci := range conns {
		names[i], valid[i] = ci.Server, ci.Valid
	}
	return makeBatch(c.schema, []arrow.Array{arrayOfDatums(types.TextT, names), arrayOfDatums(types.BoolT, valid)}, len(conns)), nil
}

// preparedScan is pgfed_prepared_xacts(server) and
// pgfed_resolve_prepared(server): pgfed's prepared transactions on the
// server, resolved first by the latter.
type preparedScan struct {
	plan   *nodes.FunctionScan
	ec     *ExecContext
	schema *arrow.Schema
	done   bool
	qual   *qual
}

func (p *preparedScan) ownsQual()                      {}
func (p *preparedScan) Open(ctx context.Context) error { p.done = false; return nil }
func (p *preparedScan) Close() error                   { p.qual.close(); return nil }
func (p *preparedScan) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return p.qual.next(func() (arrow.RecordBatch, error) { return p.list(ctx) })
}

func (p *preparedScan) list(ctx context.Context) (arrow.RecordBatch, error) {
	if p.done {
		return nil, io.EOF
	}
	p.done = true
	if p.ec.Remote == nil {
		return nil, pgerr.Internal("executor: %s without a remote connector", p.plan.Func)
	}
	server, err := EvalConst(p.plan.Args[0], p.ec)
	if err != nil {
		return nil, err
	}
	if server == nil {
		return nil, io.EOF
	}
	xacts, err := p.ec.Remote.Prepared(ctx, server.(string), p.plan.Func == "pgfed_resolve_prepared")
	if err != nil {
		return nil, err
	}
	if len(xacts) == 0 {
		return nil, io.EOF
	}
	cols := make([][]any, 4)
	for _, x := range xacts {
		for i, v := range []string{x.GID, x.DecisionServer, x.Decision, x.Action} {
			cols[i] = append(cols[i], v)
		}
	}
	arrs := make([]arrow.Array, 4)
	for i := range arrs {
		arrs[i] = arrayOfDatums(types.TextT, cols[i])
	}
	return makeBatch(p.schema, arrs, len(xacts)), nil
}
