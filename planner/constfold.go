package planner

// Constant folding, as PostgreSQL's eval_const_expressions does while
// planning: an operator, cast or function call whose arguments are all
// constants and which is immutable is evaluated once, here, and replaced
// by its value (`date '1994-01-01' + interval '1 year'` becomes
// '1995-01-01 00:00:00'::timestamp without time zone, `0.06 - 0.01`
// becomes 0.05), so that EXPLAIN, estimates, pruning and the SQL sent to
// remote servers see the constant PostgreSQL would.
//
// Only immutable expressions fold: stable ones (now(), anything on
// timestamptz, date and timestamp input and output, which read the
// session's settings) stay as written. An expression whose evaluation
// fails is left unfolded, so that its error is raised when, and only if,
// a row reaches it (`CASE WHEN b = 0 THEN 0 ELSE 1 / 0 END`).

import (
	"github.com/pgfed/pgfed/executor"
	"github.com/pgfed/pgfed/funcs"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// foldConstants returns e with its immutable constant subexpressions
// replaced by their values (bottom up, so that `(1 + 2) * 3` folds whole).
func foldConstants(e nodes.Expr) nodes.Expr {
	if e == nil {
		return nil
	}
	switch e.(type) {
	case *nodes.Const, *nodes.ColumnRef, *nodes.Param:
		return e
	}
	out, err := mapChildren(e, func(x nodes.Expr) (nodes.Expr, error) { return foldConstants(x), nil })
	if err != nil {
		return e
	}
	if !argsConst(out) || !immutable(out) {
		return out
	}
	v, err := executor.EvalConst(out, &executor.ExecContext{})
	if err != nil {
		return out // raised at run time, if a row gets there
	}
	return &nodes.Const{Value: v, T: out.Type()}
}

// argsConst reports whether e is an operator, cast or function call all
// of whose arguments are constants.
func argsConst(e nodes.Expr) bool {
	var args []nodes.Expr
	switch x := e.(type) {
	case *nodes.OpExpr:
		args = []nodes.Expr{x.Left, x.Right}
		if x.Left == nil {
			args = args[1:]
		}
	case *nodes.Cast:
		args = []nodes.Expr{x.Arg}
	case *nodes.FuncExpr:
		args = x.Args
	default:
		return false
	}
	for _, a := range args {
		if _, ok := a.(*nodes.Const); !ok {
			return false
		}
	}
	return true
}

// immutable reports whether an operator, cast or function call has
// PostgreSQL's immutable volatility for its argument types.
func immutable(e nodes.Expr) bool {
	switch x := e.(type) {
	case *nodes.OpExpr:
		// timestamptz arithmetic and comparisons across time zones are
		// stable (timestamptz_pl_interval follows the session zone).
		if x.T.ID == types.TimestampTZ || x.Right.Type().ID == types.TimestampTZ ||
			x.Left != nil && x.Left.Type().ID == types.TimestampTZ {
			return false
		}
		return true
	case *nodes.Cast:
		return immutableCast(x.Arg.Type(), x.T)
	case *nodes.FuncExpr:
		f := funcs.Lookup(x.Name)
		if f == nil || growsResult[x.Name] {
			return false
		}
		ts := make([]types.T, len(x.Args))
		for i, a := range x.Args {
			ts[i] = a.Type()
		}
		s := f.Overload(ts)
		return s != nil && s.Volatility == funcs.Immutable
	}
	return false
}

// growsResult are functions whose result can be far bigger than their
// arguments (repeat('x', 1000000000)): planning runs without the
// statement's cancellation and memory accounting, so they are computed
// when a row reaches them, where a cancel or statement_timeout stops
// them, never while planning (PostgreSQL folds them, checking for
// interrupts as it goes).
var growsResult = map[string]bool{"repeat": true, "lpad": true, "rpad": true}

// immutableCast reports whether the cast from one type to another is
// immutable in PostgreSQL: among numbers and booleans, among strings,
// numbers and booleans to and from strings (int4in, numeric_out ... are
// immutable), date to timestamp and back, and typmod coercions. Date,
// time and interval input and output (DateStyle, IntervalStyle, 'now')
// and everything on timestamptz are stable.
func immutableCast(from, to types.T) bool {
	if from.ID == types.Unknown {
		return true // a literal, which PostgreSQL types while parsing
	}
	number := func(t types.T) bool {
		return t.IsInteger() || t.IsFloat() || t.ID == types.Numeric || t.ID == types.Bool
	}
	switch {
	case from.ID == to.ID:
		return from.ID != types.TimestampTZ
	case number(from) && number(to), from.IsString() && to.IsString():
		return true
	case number(from) && to.IsString(), from.IsString() && number(to):
		return true
	case from.ID == types.Date && to.ID == types.Timestamp, from.ID == types.Timestamp && to.ID == types.Date:
		return true
	}
	return false
}
