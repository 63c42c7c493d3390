package planner

// Function resolution: aggregates (collected for the Agg node) and the
// built-in scalar functions, with PostgreSQL's overload choice where the
// argument types need a conversion (numeric-category arguments go to the
// preferred type double precision unless an exact overload exists).

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

var aggregateNames = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true,
	"bool_and": true, "bool_or": true, "every": true, "string_agg": true,
}

func (c *exprCtx) funcCall(fc *pg.FuncCall) (nodes.Expr, error) {
	name := strings.ToLower(opName(fc.Funcname))
	if fc.Over != nil {
		return nil, pgerr.NotSupported("window function " + name)
	}
	if aggregateNames[name] {
		return c.aggregate(name, fc)
	}
	if fc.AggStar || fc.AggDistinct || fc.AggFilter != nil || len(fc.AggOrder) > 0 {
		return nil, pgerr.New(pgerr.WrongObjectType, "%s is not an aggregate function", name)
	}
	if name == "generate_series" {
		return nil, pgerr.NotSupported("set-returning function generate_series outside FROM")
	}
	args, err := c.transformList(fc.Args)
	if err != nil {
		return nil, err
	}
	return resolveFunc(name, args)
}

func (c *exprCtx) aggregate(name string, fc *pg.FuncCall) (nodes.Expr, error) {
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
	call := &nodes.AggCall{Name: name, Star: fc.AggStar, Distinct: fc.AggDistinct}
	args, err := inner.transformList(fc.Args)
	if err != nil {
		return nil, err
	}
	if fc.AggFilter != nil {
		return nil, pgerr.NotSupported("FILTER in aggregate calls")
	}
	bad := func() error {
		ts := make([]string, len(args))
		for i, a := range args {
			ts[i] = a.Type().String()
		}
		return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(ts, ", ")).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	if call.Star {
		if name != "count" {
			return nil, pgerr.New(pgerr.WrongObjectType, "%s(*) must be used to call a parameterless aggregate function", name)
		}
		call.T = types.Int8T
	} else {
		want := 1
		if name == "string_agg" {
			want = 2
		}
		if len(args) != want {
			return nil, bad()
		}
		for i, a := range args {
			if a.Type().ID == types.Unknown {
				if args[i], err = coerce(a, types.TextT, types.CastImplicit); err != nil {
					return nil, err
				}
			}
		}
		t := args[0].Type()
		switch name {
		case "count":
			call.T = types.Int8T
		case "sum":
			switch {
			case t.ID == types.Int2 || t.ID == types.Int4:
				call.T = types.Int8T
			case t.ID == types.Int8 || t.ID == types.Numeric:
				call.T = types.NumericT
			case t.IsFloat():
				call.T = t.Base()
			default:
				return nil, bad()
			}
		case "avg":
			switch {
			case t.IsInteger() || t.ID == types.Numeric:
				call.T = types.NumericT
			case t.IsFloat():
				call.T = types.Float8T
			default:
				return nil, bad()
			}
		case "min", "max":
			if t.ID == types.Bool {
				return nil, bad()
			}
			if t.ID == types.Varchar {
				t = types.TextT
				args[0], _ = coerce(args[0], t, types.CastImplicit)
			}
			call.T = t.Base()
			if t.ID == types.Bpchar {
				call.T = t
			}
		case "bool_and", "bool_or", "every":
			if t.ID != types.Bool {
				return nil, bad()
			}
			call.T = types.BoolT
		case "string_agg":
			if !t.IsString() || !args[1].Type().IsString() {
				return nil, bad()
			}
			for i := range args {
				if args[i], err = toText(args[i]); err != nil {
					return nil, err
				}
			}
			call.T = types.TextT
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
		desc := sb.SortbyDir == pg.SortByDir_SORTBY_DESC
		nullsFirst := desc
		switch sb.SortbyNulls {
		case pg.SortByNulls_SORTBY_NULLS_FIRST:
			nullsFirst = true
		case pg.SortByNulls_SORTBY_NULLS_LAST:
			nullsFirst = false
		}
		call.OrderBy = append(call.OrderBy, nodes.SortKey{Expr: e, Desc: desc, NullsFirst: nullsFirst})
	}
	*c.aggs = append(*c.aggs, call)
	return &aggRef{idx: len(*c.aggs) - 1, call: call}, nil
}

// signature is one overload of a scalar function.
type signature struct {
	args      []types.T
	variadic  bool // the last argument repeats (any type: concat)
	result    types.T
	sameAsArg bool // result is the (first) argument's type
}

func sig(result types.T, args ...types.T) signature { return signature{args: args, result: result} }

var (
	i2, i4, i8, f4, f8, num = types.Int2T, types.Int4T, types.Int8T, types.Float4T, types.Float8T, types.NumericT
	txt, ts, tstz, date     = types.TextT, types.TimestampT, types.TimestampTZT, types.DateT
)

var scalarFuncs = map[string][]signature{
	"abs":              {sig(i2, i2), sig(i4, i4), sig(i8, i8), sig(f4, f4), sig(f8, f8), sig(num, num)},
	"round":            {sig(f8, f8), sig(num, num), sig(num, num, i4)},
	"trunc":            {sig(f8, f8), sig(num, num), sig(num, num, i4)},
	"floor":            {sig(f8, f8), sig(num, num)},
	"ceil":             {sig(f8, f8), sig(num, num)},
	"ceiling":          {sig(f8, f8), sig(num, num)},
	"mod":              {sig(i2, i2, i2), sig(i4, i4, i4), sig(i8, i8, i8), sig(num, num, num)},
	"power":            {sig(f8, f8, f8), sig(num, num, num)},
	"pow":              {sig(f8, f8, f8), sig(num, num, num)},
	"sqrt":             {sig(f8, f8), sig(num, num)},
	"lower":            {sig(txt, txt)},
	"upper":            {sig(txt, txt)},
	"length":           {sig(i4, txt), sig(i4, types.BpcharT)},
	"char_length":      {sig(i4, txt), sig(i4, types.BpcharT)},
	"character_length": {sig(i4, txt), sig(i4, types.BpcharT)},
	"octet_length":     {sig(i4, txt)},
	"substr":           {sig(txt, txt, i4), sig(txt, txt, i4, i4)},
	"substring":        {sig(txt, txt, i4), sig(txt, txt, i4, i4)},
	"strpos":           {sig(i4, txt, txt)},
	"position":         {sig(i4, txt, txt)},
	"btrim":            {sig(txt, txt), sig(txt, txt, txt)},
	"ltrim":            {sig(txt, txt), sig(txt, txt, txt)},
	"rtrim":            {sig(txt, txt), sig(txt, txt, txt)},
	"replace":          {sig(txt, txt, txt, txt)},
	"like_escape":      {sig(txt, txt, txt)},
	"concat":           {{variadic: true, result: txt}},
	"now":              {sig(tstz)},
	// postgres_fdw\'s connection functions (volatile: never shipped).
	"postgres_fdw_disconnect":     {sig(types.BoolT, txt)},
	"postgres_fdw_disconnect_all": {sig(types.BoolT)},
	"statement_timestamp":         {sig(tstz)},
	"transaction_timestamp":       {sig(tstz)},
	"date_trunc":                  {sig(ts, txt, ts), sig(tstz, txt, tstz)},
	"extract":                     {sig(num, txt, date), sig(num, txt, ts), sig(num, txt, tstz)},
	"date_part":                   {sig(f8, txt, date), sig(f8, txt, ts), sig(f8, txt, tstz)},
}

// resolveFunc picks the overload of name for args (exact match first, then
// implicit conversions, preferring double precision and timestamptz as
// PostgreSQL's preferred types) and coerces the arguments.
func resolveFunc(name string, args []nodes.Expr) (nodes.Expr, error) {
	sigs, ok := scalarFuncs[name]
	if !ok {
		return nil, funcMissing(name, args)
	}
	if name == "position" {
		name = "strpos"
	}
	if name == "ceiling" {
		name = "ceil"
	}
	if name == "pow" {
		name = "power"
	}
	if len(sigs) == 1 && sigs[0].variadic {
		if len(args) == 0 {
			return nil, funcMissing(name, args)
		}
		return &nodes.FuncExpr{Name: name, Args: args, T: sigs[0].result}, nil
	}
	var best *signature
	bestScore := -1
	for i := range sigs {
		s := &sigs[i]
		if len(s.args) != len(args) {
			continue
		}
		score, ok := matchScore(s.args, args)
		if ok && score > bestScore {
			best, bestScore = s, score
		}
	}
	if best == nil {
		return nil, funcMissing(name, args)
	}
	out := make([]nodes.Expr, len(args))
	for i, a := range args {
		e, err := coerce(a, best.args[i], types.CastImplicit)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return &nodes.FuncExpr{Name: name, Args: out, T: best.result}, nil
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

func funcMissing(name string, args []nodes.Expr) error {
	ts := make([]string, len(args))
	for i, a := range args {
		ts[i] = a.Type().String()
	}
	return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(ts, ", ")).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
}
