package executor

// Built-in scalar functions: the registry (package funcs) has their
// implementations, row by row over datums; the executor supplies what a
// function needs from the statement or the session (now(), the remote
// connections).

import (
	"github.com/pgfed/pgfed/funcs"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

func compileFunc(x *nodes.FuncExpr, ec *ExecContext) (evaluator, error) {
	f := funcs.Lookup(x.Name)
	if f == nil {
		return nil, pgerr.Internal("executor: no function %s", x.Name)
	}
	var fn funcs.Impl
	switch f.Special {
	case funcs.StatementTime:
		c := &constEval{t: x.T, v: ec.Now}
		ec.consts = append(ec.consts, c)
		return c, nil
	case funcs.Disconnect:
		fn = func(a []any) (any, error) {
			if ec.Remote == nil {
				return false, nil
			}
			return ec.Remote.Disconnect(a[0].(string))
		}
	case funcs.DisconnectAll:
		fn = func([]any) (any, error) { return ec.Remote != nil && ec.Remote.DisconnectAll(), nil }
	default:
		if ev, ok, err := compileStringKernel(x, ec); ok || err != nil { // string_kernels.go
			return ev, err
		}
		rows, err := compileFuncRowwise(f, x, ec)
		if err != nil {
			return nil, err
		}
		if ev, ok, err := compileDateField(x, rows, ec); ok || err != nil { // date_kernels.go
			return ev, err
		}
		return rows, nil
	}
	return compileRowwise(x.Args, x.T, f.Strict, ec, fn)
}

// compileFuncRowwise compiles a call of f, not special, row by row with
// the registry's implementation.
func compileFuncRowwise(f *funcs.Func, x *nodes.FuncExpr, ec *ExecContext) (evaluator, error) {
	argTypes := make([]types.T, len(x.Args))
	for i, a := range x.Args {
		argTypes[i] = a.Type()
	}
	return compileRowwise(x.Args, x.T, f.Strict, ec, f.Bind(argTypes))
}
