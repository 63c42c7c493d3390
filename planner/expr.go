package planner

// Transformation of parse-tree expressions into typed nodes.Expr: name
// resolution against a scope, operator and function resolution with
// PostgreSQL's coercions, and collection of aggregate calls.

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// aggRef stands for the result of aggregate idx until the Agg node is
// built; lifting turns it into a ColumnRef over the Agg's output.
type aggRef struct {
	idx  int
	call *nodes.AggCall
}

func (a *aggRef) Type() types.T  { return a.call.T }
func (a *aggRef) String() string { return a.call.String() }

// EqualExpr makes aggregate placeholders comparable by nodes.Equal: two
// calls of the same aggregate over the same arguments are the same value.
func (a *aggRef) EqualExpr(b nodes.Expr) bool {
	y, ok := b.(*aggRef)
	return ok && (a.idx == y.idx || nodes.EqualAggCalls(a.call, y.call))
}

var _ nodes.Equaler = (*aggRef)(nil)

// exprCtx is the state of one expression transformation.
type exprCtx struct {
	p     *planCtx
	scope *scope
	// aggs collects aggregate calls; nil where aggregates are not allowed,
	// and clause names the clause for the error message.
	aggs   *[]*nodes.AggCall
	clause string
	inAgg  bool
	// windows collects window function calls; nil where they are not
	// allowed (window.go).
	windows  *[]*windowCall
	inWindow bool
	// queryAggs, while a window aggregate is transformed, collects the
	// aggregates in its arguments, which are the query's (window.go).
	queryAggs *[]*nodes.AggCall
	// depth counts the transform calls under way: the outermost folds
	// the finished expression's constants (constfold.go), unless noFold:
	// an expression stored in the catalog (a DEFAULT) is kept as written,
	// as PostgreSQL folds only while planning.
	depth  int
	noFold bool
}

func errAt(err error, loc int32) error {
	if pe, ok := pgerr.As(err); ok && pe.Position == 0 && loc >= 0 {
		return pe.WithPosition(int(loc) + 1)
	}
	return err
}

// transform turns a parse tree into an expression, its immutable
// constant subexpressions folded.
func (c *exprCtx) transform(n *pg.Node) (nodes.Expr, error) {
	c.depth++
	e, err := c.transformNode(n)
	c.depth--
	if err == nil && c.depth == 0 && !c.noFold {
		e = foldConstants(e)
	}
	return e, err
}

func (c *exprCtx) transformNode(n *pg.Node) (nodes.Expr, error) {
	switch x := n.Node.(type) {
	case *pg.Node_ColumnRef:
		return c.columnRef(x.ColumnRef)
	case *pg.Node_AConst:
		return literal(x.AConst)
	case *pg.Node_AExpr:
		e, err := c.aExpr(x.AExpr)
		return e, errAt(err, x.AExpr.Location)
	case *pg.Node_BoolExpr:
		args := make([]nodes.Expr, len(x.BoolExpr.Args))
		for i, a := range x.BoolExpr.Args {
			e, err := c.boolArg(a, x.BoolExpr.Boolop)
			if err != nil {
				return nil, err
			}
			args[i] = e
		}
		switch x.BoolExpr.Boolop {
		case pg.BoolExprType_AND_EXPR:
			return &nodes.BoolExpr{Op: nodes.And, Args: flattenBool(nodes.And, args)}, nil
		case pg.BoolExprType_OR_EXPR:
			return &nodes.BoolExpr{Op: nodes.Or, Args: flattenBool(nodes.Or, args)}, nil
		}
		return &nodes.BoolExpr{Op: nodes.Not, Args: args}, nil
	case *pg.Node_NullTest:
		if fields, ok := rowFields(x.NullTest.Arg); ok {
			return c.rowNullTest(x.NullTest.Nulltesttype == pg.NullTestType_IS_NOT_NULL, fields)
		}
		arg, err := c.transform(x.NullTest.Arg)
		if err != nil {
			return nil, err
		}
		if arg.Type().ID == types.Unknown {
			arg, _ = coerce(arg, types.TextT, types.CastImplicit)
		}
		return &nodes.NullTest{Arg: arg, IsNot: x.NullTest.Nulltesttype == pg.NullTestType_IS_NOT_NULL}, nil
	case *pg.Node_BooleanTest:
		return c.booleanTest(x.BooleanTest)
	case *pg.Node_TypeCast:
		arg, err := c.transform(x.TypeCast.Arg)
		if err != nil {
			return nil, err
		}
		t, err := TypeFromName(x.TypeCast.TypeName)
		if err != nil {
			return nil, err
		}
		e, err := coerce(arg, t, types.CastExplicit)
		return e, errAt(err, x.TypeCast.Location)
	case *pg.Node_CaseExpr:
		return c.caseExpr(x.CaseExpr)
	case *pg.Node_CoalesceExpr:
		args, t, err := c.commonArgs(x.CoalesceExpr.Args, "COALESCE")
		if err != nil {
			return nil, errAt(err, x.CoalesceExpr.Location)
		}
		return &nodes.CoalesceExpr{Args: args, T: t}, nil
	case *pg.Node_MinMaxExpr:
		name := "GREATEST"
		if x.MinMaxExpr.Op == pg.MinMaxOp_IS_LEAST {
			name = "LEAST"
		}
		args, t, err := c.commonArgs(x.MinMaxExpr.Args, name)
		if err != nil {
			return nil, errAt(err, x.MinMaxExpr.Location)
		}
		return &nodes.MinMaxExpr{Greatest: name == "GREATEST", Args: args, T: t}, nil
	case *pg.Node_FuncCall:
		e, err := c.funcCall(x.FuncCall)
		return e, errAt(err, x.FuncCall.Location)
	case *pg.Node_SqlvalueFunction:
		switch x.SqlvalueFunction.Op {
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
			return &nodes.FuncExpr{Name: "now", T: types.TimestampTZT}, nil
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
			return &nodes.Cast{Arg: &nodes.FuncExpr{Name: "now", T: types.TimestampTZT}, T: types.DateT}, nil
		}
		return nil, errAt(pgerr.NotSupported("this SQL value function"), x.SqlvalueFunction.Location)
	case *pg.Node_SubLink:
		e, err := c.sublinkExpr(x.SubLink)
		return e, errAt(err, x.SubLink.Location)
	case *pg.Node_GroupingFunc:
		return c.groupingFunc(x.GroupingFunc)
	case *pg.Node_ParamRef:
		return nil, errAt(pgerr.NotSupported("parameter $n"), x.ParamRef.Location)
	case *pg.Node_AArrayExpr:
		return nil, errAt(pgerr.NotSupported("ARRAY"), x.AArrayExpr.Location)
	case *pg.Node_CollateClause:
		return nil, errAt(pgerr.NotSupported("COLLATE"), x.CollateClause.Location)
	case *pg.Node_RowExpr:
		return nil, errAt(pgerr.NotSupported("row constructor"), x.RowExpr.Location)
	}
	return nil, pgerr.NotSupported("expression " + nodeName(n))
}

// nodeName names a parse node kind for messages ("A_Indirection" ...).
func nodeName(n *pg.Node) string {
	s := strings.TrimPrefix(strings.TrimPrefix(typeName(n.Node), "*pg_query.Node_"), "Node_")
	return s
}

func typeName(v any) string {
	return strings.TrimPrefix(strings.Split(strings.TrimPrefix(fmtType(v), "*"), ".")[1], "Node_")
}

// boolArg transforms an argument of AND / OR / NOT, which must be boolean.
func (c *exprCtx) boolArg(n *pg.Node, op pg.BoolExprType) (nodes.Expr, error) {
	e, err := c.transform(n)
	if err != nil {
		return nil, err
	}
	name := map[pg.BoolExprType]string{pg.BoolExprType_AND_EXPR: "AND", pg.BoolExprType_OR_EXPR: "OR", pg.BoolExprType_NOT_EXPR: "NOT"}[op]
	return requireBool(e, "argument of "+name)
}

// requireBool coerces e to boolean or fails as PostgreSQL does.
func requireBool(e nodes.Expr, what string) (nodes.Expr, error) {
	if e.Type().ID == types.Bool {
		return e, nil
	}
	if e.Type().ID == types.Unknown {
		return coerce(e, types.BoolT, types.CastImplicit)
	}
	return nil, pgerr.New(pgerr.DatatypeMismatch, "%s must be type boolean, not type %s", what, e.Type())
}

func flattenBool(op nodes.BoolOp, args []nodes.Expr) []nodes.Expr {
	var out []nodes.Expr
	for _, a := range args {
		if b, ok := a.(*nodes.BoolExpr); ok && b.Op == op {
			out = append(out, b.Args...)
		} else {
			out = append(out, a)
		}
	}
	return out
}

func (c *exprCtx) columnRef(cr *pg.ColumnRef) (nodes.Expr, error) {
	var parts []string
	for _, f := range cr.Fields {
		if s := f.GetString_(); s != nil {
			parts = append(parts, s.Sval)
		} else {
			return nil, errAt(pgerr.NotSupported("* in this position"), cr.Location)
		}
	}
	if c.scope == nil {
		if c.p.namesOuterQuery(parts, pgerr.New(pgerr.UndefinedColumn, "")) {
			e, err := c.p.outerColumn(parts)
			return e, errAt(err, cr.Location)
		}
		if len(parts) > 1 {
			return nil, errAt(pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", parts[len(parts)-2]), cr.Location)
		}
		return nil, errAt(pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", parts[0]), cr.Location)
	}
	e, err := c.scope.resolve(parts)
	if err != nil {
		if c.p.namesOuterQuery(parts, err) {
			e, err := c.p.outerColumn(parts)
			return e, errAt(err, cr.Location)
		}
		return nil, errAt(err, cr.Location)
	}
	return e, nil
}

func (c *exprCtx) transformList(ns []*pg.Node) ([]nodes.Expr, error) {
	out := make([]nodes.Expr, len(ns))
	for i, n := range ns {
		e, err := c.transform(n)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// commonArgs transforms ns and coerces them to their common type.
func (c *exprCtx) commonArgs(ns []*pg.Node, what string) ([]nodes.Expr, types.T, error) {
	args, err := c.transformList(ns)
	if err != nil {
		return nil, types.T{}, err
	}
	return coerceAll(args, what)
}

func coerceAll(args []nodes.Expr, what string) ([]nodes.Expr, types.T, error) {
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	t, err := commonType(ts, what)
	if err != nil {
		return nil, types.T{}, err
	}
	for i, a := range args {
		if args[i], err = coerce(a, t, types.CastImplicit); err != nil {
			return nil, types.T{}, err
		}
	}
	return args, t, nil
}

func opName(names []*pg.Node) string {
	if len(names) == 0 {
		return ""
	}
	return names[len(names)-1].GetString_().Sval
}

func (c *exprCtx) aExpr(a *pg.A_Expr) (nodes.Expr, error) {
	if e, ok, err := c.rowForm(a); ok {
		return e, err
	}
	op := opName(a.Name)
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		var l nodes.Expr
		var err error
		if a.Lexpr != nil {
			if l, err = c.transform(a.Lexpr); err != nil {
				return nil, err
			}
		}
		r, err := c.transform(a.Rexpr)
		if err != nil {
			return nil, err
		}
		return makeOp(op, l, r)
	case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE:
		l, err := c.transform(a.Lexpr)
		if err != nil {
			return nil, err
		}
		r, err := c.transform(a.Rexpr)
		if err != nil {
			return nil, err
		}
		return makeOp(op, l, r)
	case pg.A_Expr_Kind_AEXPR_IN:
		arg, err := c.transform(a.Lexpr)
		if err != nil {
			return nil, err
		}
		list, err := c.transformList(a.Rexpr.GetList().Items)
		if err != nil {
			return nil, err
		}
		all, _, err := coerceAll(append([]nodes.Expr{arg}, list...), "IN")
		if err != nil {
			return nil, err
		}
		return &nodes.InList{Arg: all[0], List: all[1:], Not: op == "<>"}, nil
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN, pg.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		arg, err := c.transform(a.Lexpr)
		if err != nil {
			return nil, err
		}
		bounds, err := c.transformList(a.Rexpr.GetList().Items)
		if err != nil {
			return nil, err
		}
		not := a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN || a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM
		between := func(lo, hi nodes.Expr) (nodes.Expr, error) {
			if not {
				x, err := makeOp("<", arg, lo)
				if err != nil {
					return nil, err
				}
				y, err := makeOp(">", arg, hi)
				if err != nil {
					return nil, err
				}
				return &nodes.BoolExpr{Op: nodes.Or, Args: []nodes.Expr{x, y}}, nil
			}
			x, err := makeOp(">=", arg, lo)
			if err != nil {
				return nil, err
			}
			y, err := makeOp("<=", arg, hi)
			if err != nil {
				return nil, err
			}
			return &nodes.BoolExpr{Op: nodes.And, Args: []nodes.Expr{x, y}}, nil
		}
		e, err := between(bounds[0], bounds[1])
		if err != nil || a.Kind == pg.A_Expr_Kind_AEXPR_BETWEEN || a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN {
			return e, err
		}
		e2, err := between(bounds[1], bounds[0])
		if err != nil {
			return nil, err
		}
		if not {
			return &nodes.BoolExpr{Op: nodes.And, Args: []nodes.Expr{e, e2}}, nil
		}
		return &nodes.BoolExpr{Op: nodes.Or, Args: []nodes.Expr{e, e2}}, nil
	case pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT, pg.A_Expr_Kind_AEXPR_NULLIF:
		l, err := c.transform(a.Lexpr)
		if err != nil {
			return nil, err
		}
		r, err := c.transform(a.Rexpr)
		if err != nil {
			return nil, err
		}
		if a.Kind == pg.A_Expr_Kind_AEXPR_NULLIF {
			t, args, err := distinctOperands(l, r)
			if err != nil {
				return nil, err
			}
			return &nodes.NullIfExpr{Left: args[0], Right: args[1], T: t}, nil
		}
		return distinctExpr(l, r, a.Kind == pg.A_Expr_Kind_AEXPR_NOT_DISTINCT)
	}
	return nil, pgerr.NotSupported("operator " + op + " of this form")
}

// distinctOperands coerces the operands of IS DISTINCT FROM or NULLIF to
// their common type, which they compare with =.
func distinctOperands(l, r nodes.Expr) (types.T, []nodes.Expr, error) {
	t, ok := operandType(l.Type(), r.Type())
	if !ok {
		return types.T{}, nil, opMissing("=", l, r)
	}
	args := make([]nodes.Expr, 2)
	var err error
	if args[0], err = coerce(l, t, types.CastImplicit); err != nil {
		return types.T{}, nil, err
	}
	if args[1], err = coerce(r, t, types.CastImplicit); err != nil {
		return types.T{}, nil, err
	}
	return t, args, nil
}

// distinctExpr is l IS [NOT] DISTINCT FROM r.
func distinctExpr(l, r nodes.Expr, not bool) (nodes.Expr, error) {
	_, args, err := distinctOperands(l, r)
	if err != nil {
		return nil, err
	}
	return &nodes.DistinctExpr{Left: args[0], Right: args[1], Not: not}, nil
}

// rowForm is the row constructor form of a, if it has one: both sides
// rows in a comparison or IS DISTINCT FROM, a row before IN.
func (c *exprCtx) rowForm(a *pg.A_Expr) (nodes.Expr, bool, error) {
	lf, lrow := rowFields(a.Lexpr)
	if !lrow {
		return nil, false, nil
	}
	op := opName(a.Name)
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_IN:
		e, err := c.rowIn(op == "<>", lf, a.Rexpr.GetList().Items)
		return e, true, err
	case pg.A_Expr_Kind_AEXPR_OP, pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		rf, rrow := rowFields(a.Rexpr)
		if !rrow {
			return nil, false, nil
		}
		var e nodes.Expr
		var err error
		if a.Kind == pg.A_Expr_Kind_AEXPR_OP {
			e, err = c.rowCompare(op, lf, rf)
		} else {
			e, err = c.rowDistinct(a.Kind == pg.A_Expr_Kind_AEXPR_NOT_DISTINCT, lf, rf)
		}
		return e, true, err
	}
	return nil, false, nil
}

// makeOp resolves a binary (or, with l nil, prefix) operator.
func makeOp(op string, l, r nodes.Expr) (nodes.Expr, error) {
	if l == nil {
		switch op {
		case "~":
			return bitwiseNot(r)
		case "|/", "||/":
			// dsqrt and dcbrt exist for double precision only.
			if r.Type().ID != types.Unknown && !types.CanCast(r.Type(), types.Float8T, types.CastImplicit) {
				return nil, opMissing(op, nil, r)
			}
			rc, err := coerce(r, types.Float8T, types.CastImplicit)
			if err != nil {
				return nil, err
			}
			return &nodes.OpExpr{Op: op, Right: rc, T: types.Float8T}, nil
		case "@":
			if r.Type().ID == types.Unknown {
				// The preferred type of the numeric category wins.
				var err error
				if r, err = coerce(r, types.Float8T, types.CastImplicit); err != nil {
					return nil, err
				}
			}
			if numericRank(r.Type()) == 0 {
				return nil, opMissing(op, nil, r)
			}
			return &nodes.OpExpr{Op: op, Right: r, T: r.Type().Base()}, nil
		case "-", "+":
		default:
			return nil, opMissing(op, nil, r)
		}
		if r.Type().ID == types.Unknown {
			var err error
			if r, err = coerce(r, types.NumericT, types.CastImplicit); err != nil {
				return nil, err
			}
		}
		if numericRank(r.Type()) == 0 && r.Type().ID != types.IntervalType {
			return nil, opMissing(op, nil, r)
		}
		return &nodes.OpExpr{Op: op, Right: r, T: r.Type().Base()}, nil
	}
	lt, rt := l.Type(), r.Type()
	switch op {
	case "+", "-", "*", "/", "%":
		if e, ok, err := intervalArith(op, l, r); ok || err != nil {
			return e, err
		}
		if lt.ID == types.Date || rt.ID == types.Date {
			return dateArith(op, l, r)
		}
		t, ok := operandType(lt, rt)
		if !ok || numericRank(t) == 0 || (op == "%" && t.IsFloat()) {
			return nil, opMissing(op, l, r)
		}
		return coercedOp(op, l, r, t, t)
	case "^":
		return powerOp(l, r)
	case "&", "|", "#":
		t, ok := operandType(lt, rt)
		if !ok || !t.IsInteger() {
			return nil, opMissing(op, l, r)
		}
		return coercedOp(op, l, r, t, t)
	case "<<", ">>":
		return shiftOp(op, l, r)
	case "=", "<>", "!=", "<", "<=", ">", ">=":
		if op == "!=" {
			op = "<>"
		}
		if lt.ID == types.Bpchar && rt.ID == types.Bpchar {
			return &nodes.OpExpr{Op: op, Left: l, Right: r, T: types.BoolT}, nil
		}
		if lt.ID == types.Bpchar && rt.ID == types.Unknown {
			rc, err := coerce(r, lt.Base(), types.CastImplicit)
			if err != nil {
				return nil, err
			}
			return &nodes.OpExpr{Op: op, Left: l, Right: rc, T: types.BoolT}, nil
		}
		if rt.ID == types.Bpchar && lt.ID == types.Unknown {
			lc, err := coerce(l, rt.Base(), types.CastImplicit)
			if err != nil {
				return nil, err
			}
			return &nodes.OpExpr{Op: op, Left: lc, Right: r, T: types.BoolT}, nil
		}
		t, ok := operandType(lt, rt)
		if !ok {
			return nil, opMissing(op, l, r)
		}
		return coercedOp(op, l, r, t, types.BoolT)
	case "||":
		if !(lt.IsString() || lt.ID == types.Unknown || rt.IsString() || rt.ID == types.Unknown) {
			return nil, opMissing(op, l, r)
		}
		lc, err := toText(l)
		if err != nil {
			return nil, err
		}
		rc, err := toText(r)
		if err != nil {
			return nil, err
		}
		return &nodes.OpExpr{Op: op, Left: lc, Right: rc, T: types.TextT}, nil
	case "~~", "!~~", "~~*", "!~~*":
		if !(lt.IsString() || lt.ID == types.Unknown) || !(rt.IsString() || rt.ID == types.Unknown) {
			return nil, opMissing(op, l, r)
		}
		lc := l
		if lt.ID != types.Bpchar { // char(n) LIKE sees the padding (bpcharlike)
			var err error
			if lc, err = toText(l); err != nil {
				return nil, err
			}
		}
		rc, err := toText(r)
		if err != nil {
			return nil, err
		}
		return &nodes.OpExpr{Op: op, Left: lc, Right: rc, T: types.BoolT}, nil
	}
	return nil, opMissing(op, l, r)
}

// coercedOp is l op r with both operands coerced implicitly to t, of
// result type res.
func coercedOp(op string, l, r nodes.Expr, t, res types.T) (nodes.Expr, error) {
	lc, err := coerce(l, t, types.CastImplicit)
	if err != nil {
		return nil, err
	}
	rc, err := coerce(r, t, types.CastImplicit)
	if err != nil {
		return nil, err
	}
	return &nodes.OpExpr{Op: op, Left: lc, Right: rc, T: res}, nil
}

// bitwiseNot types ~ (int2not, int4not, int8not).
func bitwiseNot(r nodes.Expr) (nodes.Expr, error) {
	if r.Type().ID == types.Unknown {
		var err error
		if r, err = coerce(r, types.Int4T, types.CastImplicit); err != nil {
			return nil, err
		}
	}
	if !r.Type().IsInteger() {
		return nil, opMissing("~", nil, r)
	}
	return &nodes.OpExpr{Op: "~", Right: r, T: r.Type().Base()}, nil
}

// powerOp types ^, which PostgreSQL has for double precision (dpow) and
// numeric (numeric_power) only: numeric when one operand is numeric and
// the other converts to it implicitly (an integer, numeric or an untyped
// literal), else double precision, the numeric category's preferred type
// (so integer ^ integer is double precision).
func powerOp(l, r nodes.Expr) (nodes.Expr, error) {
	lt, rt := l.Type(), r.Type()
	exactOrNumeric := func(t types.T) bool {
		return t.ID == types.Numeric || t.IsInteger() || t.ID == types.Unknown
	}
	t := types.Float8T
	if (lt.ID == types.Numeric && exactOrNumeric(rt)) || (rt.ID == types.Numeric && exactOrNumeric(lt)) {
		t = types.NumericT
	}
	for _, e := range []nodes.Expr{l, r} {
		if et := e.Type(); et.ID != types.Unknown && et.Base() != t.Base() && !types.CanCast(et, t, types.CastImplicit) {
			return nil, opMissing("^", l, r)
		}
	}
	return coercedOp("^", l, r, t, t)
}

// shiftOp types << and >> on integers (int2shl, int4shl, int8shl and the
// shr ones): the left operand keeps its integer type, the shift count is
// an integer (int4).
func shiftOp(op string, l, r nodes.Expr) (nodes.Expr, error) {
	lt, rt := l.Type(), r.Type()
	if lt.ID == types.Unknown {
		var err error
		if l, err = coerce(l, types.Int4T, types.CastImplicit); err != nil {
			return nil, err
		}
		lt = l.Type()
	}
	if !lt.IsInteger() || (rt.ID != types.Unknown && !rt.IsInteger()) || rt.ID == types.Int8 {
		return nil, opMissing(op, l, r)
	}
	rc, err := coerce(r, types.Int4T, types.CastImplicit)
	if err != nil {
		return nil, err
	}
	return &nodes.OpExpr{Op: op, Left: l, Right: rc, T: lt.Base()}, nil
}

// toText converts any value to text (for || and LIKE), as PostgreSQL's
// anynonarray || text does through the type's output function.
func toText(e nodes.Expr) (nodes.Expr, error) {
	t := e.Type()
	if t.ID == types.Text {
		return e, nil
	}
	if t.ID == types.Unknown {
		return coerce(e, types.TextT, types.CastImplicit)
	}
	if c, ok := e.(*nodes.Const); ok && c.Value != nil {
		v, err := types.Cast(c.Value, t, types.TextT, true)
		if err != nil {
			return nil, err
		}
		return &nodes.Const{T: types.TextT, Value: v}, nil
	}
	return &nodes.Cast{Arg: e, T: types.TextT}, nil
}

// operandType is the type both operands of a binary arithmetic or
// comparison operator are converted to, following PostgreSQL's operator
// resolution over its built-in operators: an untyped literal takes the
// other side's type; integers widen to the wider integer (int24, int48
// operators exist); real meets anything else as double precision (float48
// operators win by the preferred-type rule); otherwise the wider type of
// the category wins.
func operandType(lt, rt types.T) (types.T, bool) {
	switch {
	case lt.ID == types.Unknown && rt.ID == types.Unknown:
		return types.TextT, true
	case lt.ID == types.Unknown:
		return rt.Base(), true
	case rt.ID == types.Unknown:
		return lt.Base(), true
	}
	if numericRank(lt) > 0 && numericRank(rt) > 0 && lt.ID != rt.ID && (lt.ID == types.Float4 || rt.ID == types.Float4) {
		return types.Float8T, true
	}
	if (lt.ID == types.Name) != (rt.ID == types.Name) && lt.IsString() && rt.IsString() {
		// name against another string type is name's cross-type operator
		// with text (nameeqtext, ...): a text comparison, nothing cut.
		return types.TextT, true
	}
	return widen(lt, rt)
}

func dateArith(op string, l, r nodes.Expr) (nodes.Expr, error) {
	lt, rt := l.Type(), r.Type()
	var err error
	switch {
	case lt.ID == types.Date && rt.ID == types.Date && op == "-":
		return &nodes.OpExpr{Op: op, Left: l, Right: r, T: types.Int4T}, nil
	case lt.ID == types.Date && (rt.IsInteger() || rt.ID == types.Unknown) && (op == "+" || op == "-"):
		if r, err = coerce(r, types.Int4T, types.CastImplicit); err != nil {
			return nil, err
		}
		return &nodes.OpExpr{Op: op, Left: l, Right: r, T: types.DateT}, nil
	case rt.ID == types.Date && (lt.IsInteger() || lt.ID == types.Unknown) && op == "+":
		if l, err = coerce(l, types.Int4T, types.CastImplicit); err != nil {
			return nil, err
		}
		return &nodes.OpExpr{Op: op, Left: l, Right: r, T: types.DateT}, nil
	case lt.ID == types.Date && rt.ID == types.Unknown && op == "-":
		if r, err = coerce(r, types.DateT, types.CastImplicit); err != nil {
			return nil, err
		}
		return &nodes.OpExpr{Op: op, Left: l, Right: r, T: types.Int4T}, nil
	}
	return nil, opMissing(op, l, r)
}

// intervalArith types the operators of interval and of timestamps
// among each other (PostgreSQL's interval_pl, timestamp_pl_interval,
// date_pl_interval, timestamp_mi, interval_mul ...): ok is false when
// the operands are none of those, so that other rules apply. An untyped
// literal takes the type the other side's operator wants (interval
// beside an interval or a timestamp's + and -, timestamp in ts - ts).
func intervalArith(op string, l, r nodes.Expr) (nodes.Expr, bool, error) {
	lt, rt := l.Type(), r.Type()
	isTS := func(t types.T) bool { return t.ID == types.Timestamp || t.ID == types.TimestampTZ }
	iv := types.IntervalT
	mk := func(l, r nodes.Expr, lt, rt, res types.T) (nodes.Expr, bool, error) {
		lc, err := coerce(l, lt, types.CastImplicit)
		if err != nil {
			return nil, true, err
		}
		rc, err := coerce(r, rt, types.CastImplicit)
		if err != nil {
			return nil, true, err
		}
		return &nodes.OpExpr{Op: op, Left: lc, Right: rc, T: res}, true, nil
	}
	li, ri := lt.ID == types.IntervalType, rt.ID == types.IntervalType
	lu, ru := lt.ID == types.Unknown, rt.ID == types.Unknown
	// The timestamp an interval moves: date is read as timestamp.
	moved := func(t types.T) types.T {
		if t.ID == types.Date {
			return types.TimestampT
		}
		return t.Base()
	}
	switch op {
	case "+":
		switch {
		case li && (ri || ru), lu && ri:
			return mk(l, r, iv, iv, iv)
		case ri && (isTS(lt) || lt.ID == types.Date):
			return mk(l, r, moved(lt), iv, moved(lt))
		case li && (isTS(rt) || rt.ID == types.Date):
			return mk(l, r, iv, moved(rt), moved(rt))
		case ru && isTS(lt):
			return mk(l, r, lt.Base(), iv, lt.Base())
		case lu && isTS(rt):
			return mk(l, r, iv, rt.Base(), rt.Base())
		}
	case "-":
		switch {
		case li && (ri || ru), lu && ri:
			return mk(l, r, iv, iv, iv)
		case ri && (isTS(lt) || lt.ID == types.Date):
			return mk(l, r, moved(lt), iv, moved(lt))
		case (isTS(lt) || isTS(rt)) && (isTS(lt) || lt.ID == types.Date || lu) && (isTS(rt) || rt.ID == types.Date || ru):
			t, ok := widen(moved(lt), moved(rt))
			if lu {
				t = moved(rt)
			} else if ru {
				t = moved(lt)
			}
			if !ok && !lu && !ru {
				return nil, true, opMissing(op, l, r)
			}
			return mk(l, r, t, t, iv)
		}
	case "*":
		switch {
		case li && (numericRank(rt) > 0 || ru):
			return mk(l, r, iv, types.Float8T, iv)
		case ri && (numericRank(lt) > 0 || lu):
			return mk(l, r, types.Float8T, iv, iv)
		}
	case "/":
		if li && (numericRank(rt) > 0 || ru) {
			return mk(l, r, iv, types.Float8T, iv)
		}
	}
	if li || ri {
		return nil, true, opMissing(op, l, r)
	}
	return nil, false, nil
}

func opMissing(op string, l, r nodes.Expr) error {
	var sig string
	if l == nil {
		sig = op + " " + r.Type().String()
	} else {
		sig = l.Type().String() + " " + op + " " + r.Type().String()
	}
	return pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s", sig).
		WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
}

func (c *exprCtx) booleanTest(bt *pg.BooleanTest) (nodes.Expr, error) {
	arg, err := c.transform(bt.Arg)
	if err != nil {
		return nil, err
	}
	if arg, err = requireBool(arg, "argument of IS TRUE"); err != nil {
		return nil, err
	}
	f := &nodes.Const{T: types.BoolT, Value: false}
	switch bt.Booltesttype {
	case pg.BoolTestType_IS_TRUE:
		return &nodes.CoalesceExpr{Args: []nodes.Expr{arg, f}, T: types.BoolT}, nil
	case pg.BoolTestType_IS_NOT_TRUE:
		return &nodes.BoolExpr{Op: nodes.Not, Args: []nodes.Expr{&nodes.CoalesceExpr{Args: []nodes.Expr{arg, f}, T: types.BoolT}}}, nil
	case pg.BoolTestType_IS_FALSE:
		return &nodes.CoalesceExpr{Args: []nodes.Expr{&nodes.BoolExpr{Op: nodes.Not, Args: []nodes.Expr{arg}}, f}, T: types.BoolT}, nil
	case pg.BoolTestType_IS_NOT_FALSE:
		return &nodes.BoolExpr{Op: nodes.Not, Args: []nodes.Expr{&nodes.CoalesceExpr{Args: []nodes.Expr{&nodes.BoolExpr{Op: nodes.Not, Args: []nodes.Expr{arg}}, f}, T: types.BoolT}}}, nil
	case pg.BoolTestType_IS_UNKNOWN:
		return &nodes.NullTest{Arg: arg}, nil
	default:
		return &nodes.NullTest{Arg: arg, IsNot: true}, nil
	}
}

func (c *exprCtx) caseExpr(ce *pg.CaseExpr) (nodes.Expr, error) {
	var arg nodes.Expr
	var err error
	if ce.Arg != nil {
		if arg, err = c.transform(ce.Arg); err != nil {
			return nil, err
		}
	}
	var conds, results []nodes.Expr
	for _, w := range ce.Args {
		cw := w.GetCaseWhen()
		cond, err := c.transform(cw.Expr)
		if err != nil {
			return nil, err
		}
		if arg != nil {
			if cond, err = makeOp("=", arg, cond); err != nil {
				return nil, errAt(err, cw.Location)
			}
		} else if cond, err = requireBool(cond, "argument of CASE/WHEN"); err != nil {
			return nil, errAt(err, cw.Location)
		}
		res, err := c.transform(cw.Result)
		if err != nil {
			return nil, err
		}
		conds = append(conds, cond)
		results = append(results, res)
	}
	if ce.Defresult != nil {
		d, err := c.transform(ce.Defresult)
		if err != nil {
			return nil, err
		}
		results = append(results, d)
	}
	results, t, err := coerceAll(results, "CASE")
	if err != nil {
		return nil, errAt(err, ce.Location)
	}
	out := &nodes.CaseExpr{T: t}
	for i, cond := range conds {
		out.Whens = append(out.Whens, nodes.CaseWhen{Cond: cond, Result: results[i]})
	}
	if ce.Defresult != nil {
		out.Else = results[len(results)-1]
	}
	return out, nil
}
