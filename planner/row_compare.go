package planner

// Row constructors in comparisons: (a, b) = (c, d), (a, b) < (c, d),
// (a, b) IS DISTINCT FROM (c, d), (a, b) IN ((1, 2), (3, 4)) and
// ROW(a, b) IS NULL, expanded into their columns' comparisons as
// parse_expr.c's make_row_comparison_op and make_row_distinct_op do:
//
//   - = is the AND of the pairs' =, <> the OR of their <>;
//   - < <= > >= decide at the first pair that is unequal or NULL:
//     a1 < b1 OR (a1 = b1 AND (a2 < b2 OR (a2 = b2 AND ... an <= bn))),
//     which is NULL exactly when PostgreSQL's row comparison is (the
//     first pair that is not equal has a NULL);
//   - IS DISTINCT FROM is the OR of the pairs', IS NOT DISTINCT FROM its
//     negation;
//   - IN is the OR of the rows' =, NOT IN the AND of their <>;
//   - ROW(...) IS NULL holds when every field is NULL, IS NOT NULL when
//     none is (so both can be false).
//
// A row is a value only in these positions; elsewhere (a SELECT list,
// a function argument) a row constructor is still not supported.

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// rowFields is the fields of a row constructor, (a, b) or ROW(a, b).
func rowFields(n *pg.Node) ([]*pg.Node, bool) {
	if n == nil {
		return nil, false
	}
	if r := n.GetRowExpr(); r != nil {
		return r.Args, true
	}
	return nil, false
}

// rowPair transforms the fields of two row constructors, which must be
// as long as each other.
func (c *exprCtx) rowPair(l, r []*pg.Node) ([]nodes.Expr, []nodes.Expr, error) {
	if len(l) != len(r) {
		return nil, nil, pgerr.New(pgerr.SyntaxError, "unequal number of entries in row expressions")
	}
	if len(l) == 0 {
		return nil, nil, pgerr.NotSupported("comparison of rows of zero length")
	}
	le, err := c.transformList(l)
	if err != nil {
		return nil, nil, err
	}
	re, err := c.transformList(r)
	if err != nil {
		return nil, nil, err
	}
	return le, re, nil
}

// rowCompare is (l) op (r) for op one of = <> < <= > >=.
func (c *exprCtx) rowCompare(op string, l, r []*pg.Node) (nodes.Expr, error) {
	le, re, err := c.rowPair(l, r)
	if err != nil {
		return nil, err
	}
	return rowCompareExprs(op, le, re)
}

func rowCompareExprs(op string, le, re []nodes.Expr) (nodes.Expr, error) {
	switch op {
	case "=", "<>":
		pairs, err := pairOps(op, le, re)
		if err != nil {
			return nil, err
		}
		if op == "=" {
			return boolOf(nodes.And, pairs), nil
		}
		return boolOf(nodes.Or, pairs), nil
	case "<", "<=", ">", ">=":
		return rowOrdering(op, le, re)
	}
	return nil, pgerr.New(pgerr.UndefinedFunction, "could not determine interpretation of row comparison operator %s", op).
		WithHint("Row comparison operators must be associated with btree operator families.")
}

// rowOrdering builds a1 < b1 OR (a1 = b1 AND rest) from the last pair
// out; the last pair uses op itself (<= for <=), the others its strict
// form.
func rowOrdering(op string, le, re []nodes.Expr) (nodes.Expr, error) {
	strict := op[:1]
	last := len(le) - 1
	e, err := makeOp(op, le[last], re[last])
	if err != nil {
		return nil, err
	}
	for i := last - 1; i >= 0; i-- {
		lt, err := makeOp(strict, le[i], re[i])
		if err != nil {
			return nil, err
		}
		eq, err := makeOp("=", le[i], re[i])
		if err != nil {
			return nil, err
		}
		e = boolOf(nodes.Or, []nodes.Expr{lt, boolOf(nodes.And, []nodes.Expr{eq, e})})
	}
	return e, nil
}

// pairOps is le[i] op re[i] for every i.
func pairOps(op string, le, re []nodes.Expr) ([]nodes.Expr, error) {
	out := make([]nodes.Expr, len(le))
	for i := range le {
		e, err := makeOp(op, le[i], re[i])
		if err != nil {
			return nil, err
		}
		if out[i], err = requireBool(e, "row comparison operator"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// boolOf is args joined by op (the one argument itself).
func boolOf(op nodes.BoolOp, args []nodes.Expr) nodes.Expr {
	if len(args) == 1 {
		return args[0]
	}
	return &nodes.BoolExpr{Op: op, Args: flattenBool(op, args)}
}

// rowDistinct is (l) IS [NOT] DISTINCT FROM (r).
func (c *exprCtx) rowDistinct(not bool, l, r []*pg.Node) (nodes.Expr, error) {
	le, re, err := c.rowPair(l, r)
	if err != nil {
		return nil, err
	}
	pairs := make([]nodes.Expr, len(le))
	for i := range le {
		if pairs[i], err = distinctExpr(le[i], re[i], false); err != nil {
			return nil, err
		}
	}
	e := boolOf(nodes.Or, pairs)
	if not {
		return &nodes.BoolExpr{Op: nodes.Not, Args: []nodes.Expr{e}}, nil
	}
	return e, nil
}

// rowIn is (l) [NOT] IN ((...), ...): every item must be a row.
func (c *exprCtx) rowIn(not bool, l []*pg.Node, items []*pg.Node) (nodes.Expr, error) {
	op, join := "=", nodes.Or
	if not {
		op, join = "<>", nodes.And
	}
	var terms []nodes.Expr
	for _, it := range items {
		r, ok := rowFields(it)
		if !ok {
			return nil, pgerr.New(pgerr.SyntaxError, "unequal number of entries in row expressions")
		}
		e, err := c.rowCompare(op, l, r)
		if err != nil {
			return nil, err
		}
		terms = append(terms, e)
	}
	return boolOf(join, terms), nil
}

// rowNullTest is ROW(...) IS [NOT] NULL: every field NULL (not NULL).
func (c *exprCtx) rowNullTest(isNot bool, fields []*pg.Node) (nodes.Expr, error) {
	args, err := c.transformList(fields)
	if err != nil {
		return nil, err
	}
	tests := make([]nodes.Expr, len(args))
	for i, a := range args {
		tests[i] = &nodes.NullTest{Arg: a, IsNot: isNot}
	}
	if len(tests) == 0 {
		return &nodes.Const{Value: !isNot, T: types.BoolT}, nil
	}
	return boolOf(nodes.And, tests), nil
}
