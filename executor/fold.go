package executor

// Constant folding at compile time: a subexpression that reads no column
// and no Param and calls no volatile function (random(), clock_timestamp
// ...) has one value for the whole statement, so it is evaluated once
// into a constant instead of once per row (`l_shipdate < date
// '1994-01-01' + interval '1 year'`, `l_discount >= 0.06 - 0.01`), as
// PostgreSQL's eval_const_expressions does for immutable expressions
// while planning. One that fails is left as it is, and fails, if at all,
// when a row reaches it.

import (
	"github.com/pgfed/pgfed/funcs"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// foldable reports whether e is worth folding: not already a constant or
// a column, and constant over the statement.
func foldable(e nodes.Expr) bool {
	switch e.(type) {
	case *nodes.Const, *nodes.ColumnRef, *nodes.Param:
		return false
	}
	ok := true
	nodes.WalkExpr(e, func(x nodes.Expr) {
		switch y := x.(type) {
		case *nodes.ColumnRef, *nodes.Param:
			ok = false
		case *nodes.FuncExpr:
			if f := funcs.Lookup(y.Name); f == nil || volatileCall(f, y) {
				ok = false
			}
		case *nodes.Const, *nodes.OpExpr, *nodes.Cast, *nodes.BoolExpr, *nodes.NullTest, *nodes.CaseExpr,
			*nodes.CoalesceExpr, *nodes.NullIfExpr, *nodes.MinMaxExpr, *nodes.DistinctExpr, *nodes.InList:
		default:
			ok = false // anything else is evaluated as written
		}
	})
	return ok
}

func volatileCall(f *funcs.Func, call *nodes.FuncExpr) bool {
	ts := make([]types.T, len(call.Args))
	for i, a := range call.Args {
		ts[i] = a.Type()
	}
	s := f.Overload(ts)
	return s == nil || s.Volatility == funcs.Volatile
}

// compileFolded evaluates a foldable e once; ok is false when it fails.
func compileFolded(e nodes.Expr, ec *ExecContext) (evaluator, bool) {
	v, err := evalConstWith(e, ec)
	if err != nil {
		return nil, false
	}
	c := &constEval{t: e.Type(), v: v}
	ec.consts = append(ec.consts, c)
	return c, true
}
