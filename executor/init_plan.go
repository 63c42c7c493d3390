package executor

// InitPlans (nodes.InitPlan): the uncorrelated subqueries of a node's
// expressions, run to completion when the node opens, before anything
// below it starts (so that a foreign scan fetching ahead, or a parallel
// worker, already sees their values). Each sets one Param of the
// statement (paramValues, shared with the copies a Gather runs). A
// scalar subquery gives the first column of its only row, NULL without
// rows, and fails with 21000 on a second row; an EXISTS gives whether it
// returned a row, and stops reading after the first.
//
// PostgreSQL runs an initplan at the first evaluation of its Param; pgfed
// runs it at Open, so a subquery that fails is an error even when the
// node would not have evaluated it (no rows to filter). Under a Gather,
// the participants' copies of a node run its InitPlans once between
// them (parallelShared.initPlan): the first to open it runs them, the
// others wait for the values.

import (
	"context"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// paramValues are the statement's Param values; a SubPlan's layer
// (parent set) holds the Params of its subquery's runs over them.
type paramValues struct {
	mu     sync.RWMutex
	values map[int]any
	parent *paramValues
}

func (p *paramValues) set(id int, v any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.values == nil {
		p.values = map[int]any{}
	}
	p.values[id] = v
}

func (p *paramValues) get(id int) (any, bool) {
	p.mu.RLock()
	v, ok := p.values[id]
	p.mu.RUnlock()
	if !ok && p.parent != nil {
		return p.parent.get(id)
	}
	return v, ok
}

// initPlanRunner runs a node's InitPlans when it opens.
type initPlanRunner struct {
	Operator
	inits []*nodes.InitPlan
	ops   []Operator
	ec    *ExecContext
}

func newInitPlanRunner(op Operator, inits []*nodes.InitPlan, ec *ExecContext) (Operator, error) {
	r := &initPlanRunner{Operator: op, inits: inits, ec: ec}
	for _, ip := range inits {
		sub, err := Build(ip.Plan, ec)
		if err != nil {
			r.Close()
			return nil, err
		}
		r.ops = append(r.ops, sub)
	}
	return r, nil
}

func (r *initPlanRunner) Open(ctx context.Context) error {
	for i, ip := range r.inits {
		op := r.ops[i]
		r.ops[i] = nil
		var v any
		var err error
		if sh := r.ec.parallel; sh != nil {
			// Under a Gather: one run for all the participants.
			si := sh.initPlan(ip.ID)
			ran := false
			si.once.Do(func() {
				ran = true
				si.value, si.err = runInitPlan(ctx, op, ip)
			})
			if !ran && op != nil {
				op.Close() // another participant ran it
			}
			v, err = si.value, si.err
		} else {
			v, err = runInitPlan(ctx, op, ip)
		}
		if err != nil {
			return err
		}
		r.ec.params.set(ip.ID, v)
	}
	return r.Operator.Open(ctx)
}

func (r *initPlanRunner) Close() error {
	for _, op := range r.ops {
		if op != nil {
			op.Close()
		}
	}
	return r.Operator.Close()
}

// runInitPlan runs one InitPlan's operator to its value and closes it.
func runInitPlan(ctx context.Context, op Operator, ip *nodes.InitPlan) (any, error) {
	defer op.Close()
	if err := op.Open(ctx); err != nil {
		return nil, err
	}
	var value any
	rows := 0
	for {
		b, err := op.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		n := int(b.NumRows())
		if rows == 0 && n > 0 && !ip.Exists {
			f := ip.Plan.Base().Out[0]
			value = types.DatumAt(b.Column(0), f.T, 0)
		}
		rows += n
		b.Release()
		if ip.Exists && rows > 0 {
			return true, nil
		}
		if rows > 1 {
			return nil, pgerr.New(pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
		}
	}
	if ip.Exists {
		return false, nil
	}
	return value, nil
}

// paramEval evaluates a Param: its InitPlan's value, as a constant.
type paramEval struct {
	p      *nodes.Param
	values *paramValues
}

func (e *paramEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	v, ok := e.values.get(e.p.ID)
	if !ok {
		return nil, pgerr.Internal("executor: %s used before its InitPlan ran", e.p)
	}
	return constArray(e.p.T, v, int(b.NumRows())), nil
}
