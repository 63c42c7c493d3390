package planner

// Function resolution: aggregates (collected for the Agg node) and the
// built-in scalar functions, with PostgreSQL's overload choice where the
// argument types need a conversion (numeric-category arguments go to the
// preferred type double precision unless an exact overload exists).

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/funcs"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

func (c *exprCtx) funcCall(fc *pg.FuncCall) (nodes.Expr, error) {
	name := strings.ToLower(opName(fc.Funcname))
	if fc.Over != nil {
		return c.windowFunc(fc, name)
	}
	if _, isWindow := windowFuncTypes[name]; isWindow && funcs.Lookup(name) == nil {
		return nil, errAt(pgerr.New(pgerr.WrongObjectType, "window function %s requires an OVER clause", name), fc.Location)
	}
	if agg := funcs.Aggregate(name); agg != nil {
		return c.aggregate(agg, fc)
	}
	if name == "generate_series" {
		return nil, pgerr.NotSupported("set-returning function generate_series outside FROM")
	}
	if fc.AggFilter != nil {
		// ParseFuncOrColumn transforms the FILTER before it looks the
		// function up.
		if _, err := c.filter(fc.AggFilter); err != nil {
			return nil, err
		}
	}
	args, err := c.transformList(fc.Args)
	if err != nil {
		return nil, err
	}
	if fc.AggWithinGroup {
		// The WITHIN GROUP expressions are arguments of the lookup too.
		for _, o := range fc.AggOrder {
			e, err := c.transform(o.GetSortBy().Node)
			if err != nil {
				return nil, err
			}
			args = append(args, e)
		}
	}
	if name == "age" && len(args) == 1 {
		if args, err = ageFromToday(args[0]); err != nil {
			return nil, err
		}
	}
	e, err := resolveFunc(name, args)
	if err != nil {
		return nil, err
	}
	// A plain function found where the call's syntax asks for an
	// aggregate (ParseFuncOrColumn's checks, in its order).
	switch {
	case fc.AggStar:
		return nil, pgerr.New(pgerr.WrongObjectType, "%s(*) specified, but %s is not an aggregate function", name, name)
	case fc.AggDistinct:
		return nil, pgerr.New(pgerr.WrongObjectType, "DISTINCT specified, but %s is not an aggregate function", name)
	case fc.AggWithinGroup:
		return nil, pgerr.New(pgerr.WrongObjectType, "WITHIN GROUP specified, but %s is not an aggregate function", name)
	case len(fc.AggOrder) > 0:
		return nil, pgerr.New(pgerr.WrongObjectType, "ORDER BY specified, but %s is not an aggregate function", name)
	case fc.AggFilter != nil:
		return nil, pgerr.New(pgerr.WrongObjectType, "FILTER specified, but %s is not an aggregate function", name)
	}
	return e, nil
}

// ageFromToday gives age(x) the arguments of the SQL function
// PostgreSQL defines it as: age(CAST(CURRENT_DATE AS t), x), with t
// timestamp for a timestamp x and timestamptz (the preferred type)
// otherwise.
func ageFromToday(x nodes.Expr) ([]nodes.Expr, error) {
	t := types.TimestampTZT
	if x.Type().ID == types.Timestamp {
		t = types.TimestampT
	}
	today, err := coerce(&nodes.Cast{Arg: &nodes.FuncExpr{Name: "now", T: types.TimestampTZT}, T: types.DateT, Explicit: true}, t, types.CastExplicit)
	if err != nil {
		return nil, err
	}
	return []nodes.Expr{today, x}, nil
}

// filter transforms an aggregate's FILTER (WHERE ...) clause as
// transformWhereClause does with EXPR_KIND_FILTER: over the aggregate's
// input, without aggregates, coerced to boolean.
func (c *exprCtx) filter(n *pg.Node) (nodes.Expr, error) {
	fec := &exprCtx{p: c.p, scope: c.scope, clause: "FILTER", inAgg: c.inAgg}
	f, err := fec.transform(n)
	if err != nil {
		return nil, err
	}
	return requireBool(f, "argument of FILTER")
}

func (c *exprCtx) aggregate(agg *funcs.Agg, fc *pg.FuncCall) (nodes.Expr, error) {
	name := agg.Name
	if c.aggs == nil {
		clause := c.clause
		if clause == "" {
			clause = "this context"
		}
		return nil, pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in %s", clause)
	}
	if c.inAgg {
		return nil, pgerr.New(pgerr.GroupingError, "aggregate function calls cannot be nested")
	}
	inner := *c
	inner.inAgg = true
	if c.queryAggs != nil {
		// A window aggregate's arguments may hold the query's own
		// aggregates (sum(count(*)) OVER ()), computed by the grouping
		// below the window.
		inner.inAgg, inner.aggs, inner.queryAggs = false, c.queryAggs, nil
	}
	call := &nodes.AggCall{Name: name, Star: fc.AggStar, Distinct: fc.AggDistinct}
	if fc.AggFilter != nil {
		f, err := c.filter(fc.AggFilter)
		if err != nil {
			return nil, err
		}
		call.Filter = f
	}
	if nDirect, ok := funcs.OrderedSet(name); ok || fc.AggWithinGroup {
		return c.orderedSetAggregate(agg, fc, call, nDirect, ok)
	}
	args, err := inner.transformList(fc.Args)
	if err != nil {
		return nil, err
	}
	if outerLevelAggregate(args) {
		// PostgreSQL makes it an aggregate of the outer query
		// (agglevelsup); computing it here would be another answer.
		return nil, errAt(pgerr.NotSupported("an aggregate in a subquery over only the outer query's columns"), fc.Location)
	}
	bad := func() error { return funcMissing(name, args) }
	if call.Star {
		if name != "count" {
			return nil, pgerr.New(pgerr.WrongObjectType, "%s(*) must be used to call a parameterless aggregate function", name)
		}
		call.T = types.Int8T
	} else {
		if len(args) != agg.NArgs {
			return nil, bad()
		}
		if call.T, err = resolveAggArgs(agg, args, 0, bad); err != nil {
			return nil, err
		}
	}
	call.Args = args
	for _, o := range fc.AggOrder {
		sb := o.GetSortBy()
		if sb.SortbyDir == pg.SortByDir_SORTBY_USING {
			return nil, pgerr.NotSupported("ORDER BY USING")
		}
		e, err := inner.transform(sb.Node)
		if err != nil {
			return nil, err
		}
		if e.Type().ID == types.Unknown {
			e, _ = coerce(e, types.TextT, types.CastImplicit)
		}
		if call.Distinct {
			// The sort key must be one of the arguments; it sorts by the
			// argument as coerced (PostgreSQL's findTargetlistEntrySQL99).
			i := slices.IndexFunc(args, func(a nodes.Expr) bool { return nodes.Equal(e, stripImplicit(a)) })
			if i < 0 {
				return nil, errAt(pgerr.New(pgerr.InvalidColumnReference, "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list"), sb.Location)
			}
			e = args[i]
		}
		desc, nullsFirst := sortDirection(sb)
		call.OrderBy = append(call.OrderBy, nodes.SortKey{Expr: e, Desc: desc, NullsFirst: nullsFirst})
	}
	*c.aggs = append(*c.aggs, call)
	return &aggRef{idx: len(*c.aggs) - 1, call: call}, nil
}

// orderedSetAggregate plans NAME(direct args) WITHIN GROUP (ORDER BY
// aggregated args) [FILTER (WHERE ...)]: call.Args are the direct
// arguments and call.OrderBy the aggregated ones with their sort order.
// isOrderedSet is false for a plain aggregate called with WITHIN GROUP.
func (c *exprCtx) orderedSetAggregate(agg *funcs.Agg, fc *pg.FuncCall, call *nodes.AggCall, nDirect int, isOrderedSet bool) (nodes.Expr, error) {
	name := agg.Name
	inner := *c
	inner.inAgg = true
	direct, err := inner.transformList(fc.Args)
	if err != nil {
		return nil, err
	}
	var sorted []nodes.Expr
	var sortBys []*pg.SortBy
	for _, o := range fc.AggOrder {
		sb := o.GetSortBy()
		if sb.SortbyDir == pg.SortByDir_SORTBY_USING {
			return nil, pgerr.NotSupported("ORDER BY USING")
		}
		e, err := inner.transform(sb.Node)
		if err != nil {
			return nil, err
		}
		sorted = append(sorted, e)
		sortBys = append(sortBys, sb)
	}
	all := append(slices.Clone(direct), sorted...)
	bad := func() error { return funcMissing(name, all) }
	if len(all) != agg.NArgs || (isOrderedSet && fc.AggWithinGroup && len(direct) != nDirect) {
		return nil, bad()
	}
	if !isOrderedSet {
		return nil, pgerr.New(pgerr.WrongObjectType, "%s is not an ordered-set aggregate, so it cannot have WITHIN GROUP", name)
	}
	if !fc.AggWithinGroup {
		return nil, pgerr.New(pgerr.WrongObjectType, "WITHIN GROUP is required for ordered-set aggregate %s", name)
	}
	// An unknown literal goes as text when it is aggregated; a direct
	// argument takes the declared type.
	result, err := resolveAggArgs(agg, all, nDirect, bad)
	if err != nil {
		return nil, err
	}
	for i, n := range fc.Args {
		if HasColumnRef(n) || hasAgg(all[i]) {
			// PostgreSQL evaluates direct arguments once per group, so they
			// may use only grouped columns; pgfed takes constants.
			return nil, pgerr.NotSupported("direct arguments of " + name + " that are not constants")
		}
	}
	call.T = result
	call.WithinGroup = true
	call.Args = all[:nDirect]
	for i, sb := range sortBys {
		desc, nullsFirst := sortDirection(sb)
		call.OrderBy = append(call.OrderBy, nodes.SortKey{Expr: all[nDirect+i], Desc: desc, NullsFirst: nullsFirst})
	}
	*c.aggs = append(*c.aggs, call)
	return &aggRef{idx: len(*c.aggs) - 1, call: call}, nil
}

// resolveFunc picks the overload of name for args (exact match first, then
// implicit conversions, preferring double precision and timestamptz as
// PostgreSQL's preferred types) and coerces the arguments.
func resolveFunc(name string, args []nodes.Expr) (nodes.Expr, error) {
	f := funcs.Lookup(name)
	if f == nil {
		return nil, funcMissing(name, args)
	}
	if len(f.Overloads) == 1 && f.Overloads[0].Variadic {
		if len(args) == 0 {
			return nil, funcMissing(name, args)
		}
		return &nodes.FuncExpr{Name: f.Name, Args: args, T: f.Overloads[0].Result}, nil
	}
	var best *funcs.Signature
	bestScore := -1
	for i := range f.Overloads {
		s := &f.Overloads[i]
		if len(s.Args) != len(args) {
			continue
		}
		score, ok := matchScore(s.Args, args)
		if ok && score > bestScore {
			best, bestScore = s, score
		}
	}
	if best == nil {
		return nil, funcMissing(name, args)
	}
	out := make([]nodes.Expr, len(args))
	for i, a := range args {
		e, err := coerce(a, best.Args[i], types.CastImplicit)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return &nodes.FuncExpr{Name: f.Name, Args: out, T: best.Result}, nil
}

// matchScore rates how well args fit params: exact matches score highest,
// conversions to a preferred type next; ok is false if some argument cannot
// be converted implicitly.
func matchScore(params []types.T, args []nodes.Expr) (int, bool) {
	score := 0
	for i, p := range params {
		at := args[i].Type()
		switch {
		case at.Base() == p.Base():
			score += 100
		case at.ID == types.Unknown:
			if p.ID == types.Text {
				score += 10
			} else {
				score += 1
			}
		case types.CanCast(at, p, types.CastImplicit):
			if p.ID == types.Float8 || p.ID == types.TimestampTZ || p.ID == types.Text {
				score += 10
			} else {
				score += 5
			}
		default:
			return 0, false
		}
	}
	return score, true
}

// resolveAggArgs picks agg's overload for args, coercing them to its
// argument types in place, and returns its result type. Untyped literals
// from index textFrom on are taken as text first, as PostgreSQL does for
// aggregated arguments.
func resolveAggArgs(agg *funcs.Agg, args []nodes.Expr, textFrom int, bad func() error) (types.T, error) {
	ts := make([]types.T, len(args))
	for i, a := range args {
		if i >= textFrom && a.Type().ID == types.Unknown {
			var err error
			if args[i], err = coerce(a, types.TextT, types.CastImplicit); err != nil {
				return types.T{}, err
			}
		}
		ts[i] = args[i].Type()
	}
	argTypes, result, ok := agg.Resolve(ts)
	if !ok {
		return types.T{}, bad()
	}
	for i := range args {
		var err error
		if args[i], err = coerce(args[i], argTypes[i], types.CastImplicit); err != nil {
			return types.T{}, err
		}
	}
	return result, nil
}

func funcMissing(name string, args []nodes.Expr) error {
	ts := make([]string, len(args))
	for i, a := range args {
		ts[i] = a.Type().String()
	}
	return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(ts, ", ")).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
}

// outerLevelAggregate reports whether aggregate arguments read the
// columns of an enclosing query (SubPlan and LATERAL Params carry their
// outer names) and none of this query's.
func outerLevelAggregate(args []nodes.Expr) bool {
	outer, own := false, false
	for _, a := range args {
		nodes.WalkExpr(a, func(x nodes.Expr) {
			switch y := x.(type) {
			case *nodes.Param:
				outer = outer || y.Name != ""
			case *nodes.ColumnRef:
				own = true
			}
		})
	}
	return outer && !own
}
