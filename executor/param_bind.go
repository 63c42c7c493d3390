package executor

// Expressions that read Params are compiled when first evaluated, with
// each Param replaced by its value: `c_acctbal > $0` (TPC-H Q22, $0 an
// InitPlan's average) then takes the same kernels, folding and scaled
// numeric compare as `c_acctbal > 0.00`, instead of spreading the value
// over an array per batch and comparing it row by row.
//
// A Param keeps one value for the life of the operators that read it:
// an InitPlan sets its Param when its host node opens, before any row
// flows below it, and a SubPlan or a parameterized Nested Loop builds its
// inner plan's operators afresh for each set of values (subplan.go,
// nested_loop_param.go). So the value seen at the first evaluation is
// the value of every later one. A Param without a value yet (none of the
// above) is compiled as written, and fails as before if read.
//
// Expressions holding a SubPlan are compiled at once, as written: their
// SubPlans register with the node being built (subPlanHost).

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
)

// lazyCompileMu serializes compiles at evaluation time: an async foreign
// scan filters on its fetcher goroutine, and compiling appends to the
// ExecContext it shares with the rest of its plan.
var lazyCompileMu sync.Mutex

// bindsParams reports whether e is compiled at its first evaluation: it
// reads a Param and holds no SubPlan.
func bindsParams(e nodes.Expr) bool {
	return nodes.ExprContains(e, func(x nodes.Expr) bool { _, ok := x.(*nodes.Param); return ok }) && !holdsSubPlan(e)
}

// paramBoundEval compiles its expression with its Params' values at the
// first evaluation, and evaluates that from then on.
type paramBoundEval struct {
	expr nodes.Expr
	ec   *ExecContext
	ev   evaluator
}

func (p *paramBoundEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	if p.ev == nil {
		ev, err := p.compile()
		if err != nil {
			return nil, err
		}
		p.ev = ev
	}
	return p.ev.eval(b)
}

func (p *paramBoundEval) compile() (evaluator, error) {
	bound, complete := bindParams(p.expr, p.ec.params)
	if !complete {
		bound = p.expr
	}
	lazyCompileMu.Lock()
	defer lazyCompileMu.Unlock()
	return compileWritten(bound, p.ec)
}

// bindParams is e with every Param replaced by a constant of its value;
// complete is false when some Param has no value yet.
func bindParams(e nodes.Expr, values *paramValues) (bound nodes.Expr, complete bool) {
	complete = true
	var f func(nodes.Expr) (nodes.Expr, error)
	f = func(x nodes.Expr) (nodes.Expr, error) {
		if p, ok := x.(*nodes.Param); ok {
			var v any
			var set bool
			if values != nil {
				v, set = values.get(p.ID)
			}
			if !set {
				complete = false
				return x, nil
			}
			return &nodes.Const{Value: v, T: p.T}, nil
		}
		return nodes.MapChildren(x, f)
	}
	bound, _ = f(e)
	return bound, complete
}
