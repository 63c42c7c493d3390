package nodes

// Rewriting expressions: MapChildren and what is built on it.

// MapChildren rebuilds e with each direct sub-expression replaced by f's
// result (e itself when it has none). It is the one place that knows
// every expression kind's children for rewriting; WalkExpr is its
// read-only twin.
func MapChildren(e Expr, f func(Expr) (Expr, error)) (Expr, error) {
	list := func(es []Expr) ([]Expr, error) {
		out := make([]Expr, len(es))
		for i, x := range es {
			y, err := f(x)
			if err != nil {
				return nil, err
			}
			out[i] = y
		}
		return out, nil
	}
	var err error
	switch x := e.(type) {
	case *OpExpr:
		c := *x
		if c.Left != nil {
			if c.Left, err = f(x.Left); err != nil {
				return nil, err
			}
		}
		c.Right, err = f(x.Right)
		return &c, err
	case *FuncExpr:
		c := *x
		c.Args, err = list(x.Args)
		return &c, err
	case *BoolExpr:
		c := *x
		c.Args, err = list(x.Args)
		return &c, err
	case *NullTest:
		c := *x
		c.Arg, err = f(x.Arg)
		return &c, err
	case *DistinctExpr:
		c := *x
		if c.Left, err = f(x.Left); err != nil {
			return nil, err
		}
		c.Right, err = f(x.Right)
		return &c, err
	case *InList:
		c := *x
		if c.Arg, err = f(x.Arg); err != nil {
			return nil, err
		}
		c.List, err = list(x.List)
		return &c, err
	case *CaseExpr:
		c := *x
		c.Whens = make([]CaseWhen, len(x.Whens))
		for i, w := range x.Whens {
			if c.Whens[i].Cond, err = f(w.Cond); err != nil {
				return nil, err
			}
			if c.Whens[i].Result, err = f(w.Result); err != nil {
				return nil, err
			}
		}
		if x.Else != nil {
			c.Else, err = f(x.Else)
		}
		return &c, err
	case *Cast:
		c := *x
		c.Arg, err = f(x.Arg)
		return &c, err
	case *CoalesceExpr:
		c := *x
		c.Args, err = list(x.Args)
		return &c, err
	case *NullIfExpr:
		c := *x
		if c.Left, err = f(x.Left); err != nil {
			return nil, err
		}
		c.Right, err = f(x.Right)
		return &c, err
	case *MinMaxExpr:
		c := *x
		c.Args, err = list(x.Args)
		return &c, err
	case *SubPlan:
		c := *x
		if c.Args, err = list(x.Args); err != nil || x.HashLeft == nil {
			return &c, err
		}
		c.HashLeft, err = f(x.HashLeft)
		return &c, err
	}
	return e, nil
}

// MapColumns is e with every ColumnRef replaced by to's result for it.
func MapColumns(e Expr, to func(*ColumnRef) Expr) Expr {
	var f func(Expr) (Expr, error)
	f = func(x Expr) (Expr, error) {
		if c, ok := x.(*ColumnRef); ok {
			return to(c), nil
		}
		return MapChildren(x, f)
	}
	out, _ := f(e)
	return out
}
