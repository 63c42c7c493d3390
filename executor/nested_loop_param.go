package executor

// Parameterized Nested Loop (nodes.NestedLoop with Params; LATERAL): the
// inner side depends on the outer row, so it runs again for every outer
// row, as PostgreSQL's nestloop rescans an inner side with nestParams.
//
// Protocol: for each outer row the loop sets the Params from the row
// (evaluated over the whole outer batch at once) in a layer of its own
// over the statement's values, builds the inner side's operators afresh
// with that layer, and drains them; each inner batch is paired with the
// row (the row's index repeated), filtered by the JoinFilter, and
// returned. A LEFT join returns the row null-extended when nothing
// matched. The inner side's counters add up over its runs (loops = outer
// rows, as in PostgreSQL); the inner operators of a run are closed
// before the next run starts, and by Close when the parent stops early.
// Only inner and left joins are planned so.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

type paramLoop struct {
	plan        *nodes.NestedLoop
	ec          *ExecContext // the inner side's: with params
	params      *paramValues
	args        []evaluator
	outer       Operator
	shape       *joinShape
	filter      evaluator
	qual        *qual
	joinRemoved *int64

	outerOpen, outerDone bool
	ob                   arrow.RecordBatch // the outer batch
	argVals              []arrow.Array     // its Params' values
	row                  int               // its row being run (or next)
	inner                Operator          // the run of that row; nil between runs
	innerEC              *ExecContext
	matched              bool
	idx                  []int32
}

func (*paramLoop) ownsQual() {}

func newParamLoop(p *nodes.NestedLoop, ec *ExecContext) (Operator, error) {
	params := &paramValues{parent: ec.params}
	sub := *ec
	sub.params, sub.consts, sub.subPlans = params, nil, nil
	n := &paramLoop{plan: p, ec: &sub, params: params}
	n.shape = newJoinShape(p.Type, p.Outer.Base().Out, p.Inner.Base().Out)
	var err error
	for _, np := range p.Params {
		ev, err := compileExpr(np.Expr, ec)
		if err != nil {
			return nil, err
		}
		n.args = append(n.args, ev)
	}
	if p.JoinFilter != nil {
		if n.filter, err = compileExpr(p.JoinFilter, ec); err != nil {
			return nil, err
		}
	}
	if n.qual, err = newQual(&p.PlanBase, ec); err != nil {
		return nil, err
	}
	if ec.Stats != nil {
		n.joinRemoved = &ec.Stats.Node(p.ID).RowsRemovedByJoinFilter
	}
	if n.outer, err = Build(p.Outer, ec); err != nil {
		return nil, err
	}
	return n, nil
}

func (n *paramLoop) Open(ctx context.Context) error { return nil }

func (n *paramLoop) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return n.qual.next(func() (arrow.RecordBatch, error) { return n.produce(ctx) })
}

func (n *paramLoop) produce(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if err := checkCtx(ctx); err != nil {
			return nil, err
		}
		if n.inner != nil {
			out, err := n.innerStep(ctx)
			if err != nil || out != nil {
				return out, err
			}
			continue
		}
		if n.ob != nil && n.row < int(n.ob.NumRows()) {
			if err := n.startRun(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if err := n.nextOuter(ctx); err != nil {
			return nil, err
		}
	}
}

// nextOuter takes the next outer batch and evaluates its Params.
func (n *paramLoop) nextOuter(ctx context.Context) error {
	n.dropOuter()
	if n.outerDone {
		return io.EOF
	}
	if !n.outerOpen {
		n.outerOpen = true
		if err := n.outer.Open(ctx); err != nil {
			n.outerDone = true
			return err
		}
	}
	b, err := n.outer.Next(ctx)
	if err != nil {
		n.outerDone = true
		return err
	}
	if b, err = conform(b, n.shape.outer, "outer"); err != nil {
		return err
	}
	n.ob, n.row = b, 0
	for _, ev := range n.args {
		a, err := ev.eval(b)
		if err != nil {
			return err
		}
		n.argVals = append(n.argVals, a)
	}
	return nil
}

// startRun sets the Params from outer row n.row and opens a run of the
// inner side for it.
func (n *paramLoop) startRun(ctx context.Context) error {
	for i, np := range n.plan.Params {
		n.params.set(np.ID, types.DatumAt(n.argVals[i], np.Expr.Type(), n.row))
	}
	rec := *n.ec
	rec.consts = nil
	op, err := Build(n.plan.Inner, &rec)
	if err != nil {
		rec.Release()
		return err
	}
	n.inner, n.innerEC, n.matched = op, &rec, false
	return op.Open(ctx)
}

// innerStep pairs the next inner batch with the outer row; at the end of
// the run it returns the row null-extended for a LEFT join without a
// match. It returns nil when the step made no rows.
func (n *paramLoop) innerStep(ctx context.Context) (arrow.RecordBatch, error) {
	ib, err := n.inner.Next(ctx)
	if err == io.EOF {
		row := int32(n.row)
		unmatched := n.plan.Type == nodes.JoinLeft && !n.matched
		n.row++
		if err := n.endRun(); err != nil {
			return nil, err
		}
		if unmatched {
			return n.shape.outerRows(n.ob, []int32{row}), nil
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer ib.Release()
	if ib, err = conform(ib, n.shape.inner, "inner"); err != nil {
		return nil, err
	}
	rows := int(ib.NumRows())
	oi := n.idx[:0]
	ii := make([]int32, rows)
	for i := range rows {
		oi = append(oi, int32(n.row))
		ii[i] = int32(i)
	}
	n.idx = oi
	pairs := n.shape.pairBatch(n.ob, ib, oi, ii)
	if n.filter != nil {
		sel, all, err := filterPairs(n.filter, pairs, n.joinRemoved)
		if err != nil {
			pairs.Release()
			return nil, err
		}
		if !all {
			kept := takeBatch(pairs, sel)
			pairs.Release()
			pairs = kept
		}
	}
	if pairs.NumRows() == 0 {
		pairs.Release()
		return nil, nil
	}
	n.matched = true
	return pairs, nil
}

// endRun closes the inner side's run.
func (n *paramLoop) endRun() error {
	if n.inner == nil {
		return nil
	}
	err := n.inner.Close()
	n.innerEC.Release()
	n.inner, n.innerEC = nil, nil
	return err
}

func (n *paramLoop) dropOuter() {
	if n.ob != nil {
		n.ob.Release()
		n.ob = nil
	}
	releaseAll(n.argVals)
	n.argVals = n.argVals[:0]
}

func (n *paramLoop) Close() error {
	err := n.endRun()
	n.dropOuter()
	n.qual.close()
	if err2 := n.outer.Close(); err == nil {
		err = err2
	}
	n.ec.Release()
	return err
}
