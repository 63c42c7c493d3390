package funcs

// The built-in aggregates and their result types (the executor implements
// them, over whole argument arrays).

import "github.com/pgfed/pgfed/types"

var aggregates = map[string]*Agg{}

func init() {
	for _, a := range []*Agg{
		{Name: "count", NArgs: 1, Resolve: func(args []types.T) ([]types.T, types.T, bool) { return args, i8, true }},
		{Name: "sum", NArgs: 1, Resolve: sumType},
		{Name: "avg", NArgs: 1, Resolve: avgType},
		{Name: "min", NArgs: 1, Resolve: minMaxType},
		{Name: "max", NArgs: 1, Resolve: minMaxType},
		{Name: "bool_and", NArgs: 1, Resolve: boolAggType},
		{Name: "bool_or", NArgs: 1, Resolve: boolAggType},
		{Name: "every", NArgs: 1, Resolve: boolAggType},
		{Name: "string_agg", NArgs: 2, Resolve: stringAggType},
		{Name: "stddev", NArgs: 1, Resolve: varianceType},
		{Name: "stddev_samp", NArgs: 1, Resolve: varianceType},
		{Name: "stddev_pop", NArgs: 1, Resolve: varianceType},
		{Name: "variance", NArgs: 1, Resolve: varianceType},
		{Name: "var_samp", NArgs: 1, Resolve: varianceType},
		{Name: "var_pop", NArgs: 1, Resolve: varianceType},
	} {
		a.Remote = true
		aggregates[a.Name] = a
	}
	// The ordered-set aggregates: NArgs counts the direct arguments and
	// then the aggregated (WITHIN GROUP) ones, and Resolve sees their
	// types in that order. They are computed locally only (the remote
	// deparser has no WITHIN GROUP).
	for _, a := range []*Agg{
		{Name: "percentile_cont", NArgs: 2, Resolve: percentileContType},
		{Name: "percentile_disc", NArgs: 2, Resolve: percentileDiscType},
		{Name: "mode", NArgs: 1, Resolve: modeType},
	} {
		aggregates[a.Name] = a
		orderedSet[a.Name] = len(directArgs)
		directArgs = append(directArgs, a.NArgs-1)
	}
}

var (
	orderedSet = map[string]int{}
	directArgs []int
)

// OrderedSet reports whether name is an ordered-set aggregate (called
// with WITHIN GROUP), and how many direct arguments it takes.
func OrderedSet(name string) (direct int, ok bool) {
	i, ok := orderedSet[name]
	if !ok {
		return 0, false
	}
	return directArgs[i], true
}

// varianceType: stddev, stddev_samp, stddev_pop, variance, var_samp and
// var_pop give numeric for integers and numeric (computed exactly),
// double precision for real and double precision.
func varianceType(args []types.T) ([]types.T, types.T, bool) {
	t := args[0]
	switch {
	case t.IsInteger() || t.ID == types.Numeric:
		return args, num, true
	case t.IsFloat():
		return args, f8, true
	}
	return nil, types.T{}, false
}

// percentileContType: percentile_cont(float8) WITHIN GROUP (ORDER BY
// float8), or over interval.
func percentileContType(args []types.T) ([]types.T, types.T, bool) {
	if !castsTo(args[0], f8) {
		return nil, types.T{}, false
	}
	if args[1].ID == types.IntervalType {
		return []types.T{f8, types.IntervalT}, types.IntervalT, true
	}
	if !castsTo(args[1], f8) {
		return nil, types.T{}, false
	}
	return []types.T{f8, f8}, f8, true
}

// percentileDiscType: percentile_disc(float8) WITHIN GROUP (ORDER BY
// anyelement) returns the sorted type.
func percentileDiscType(args []types.T) ([]types.T, types.T, bool) {
	if !castsTo(args[0], f8) || !sortable(args[1]) {
		return nil, types.T{}, false
	}
	t := args[1].Base()
	return []types.T{f8, t}, t, true
}

// modeType: mode() WITHIN GROUP (ORDER BY anyelement).
func modeType(args []types.T) ([]types.T, types.T, bool) {
	if !sortable(args[0]) {
		return nil, types.T{}, false
	}
	t := args[0].Base()
	return []types.T{t}, t, true
}

func castsTo(from, to types.T) bool {
	return from.Base() == to.Base() || types.CanCast(from, to, types.CastImplicit)
}

func sortable(t types.T) bool { return t.ID != types.Unknown }

// sumType: integers sum to bigint (int2, int4) or numeric (int8), floats
// to themselves.
func sumType(args []types.T) ([]types.T, types.T, bool) {
	t := args[0]
	switch {
	case t.ID == types.Int2 || t.ID == types.Int4:
		return args, i8, true
	case t.ID == types.Int8 || t.ID == types.Numeric:
		return args, num, true
	case t.IsFloat():
		return args, t.Base(), true
	case t.ID == types.IntervalType:
		return []types.T{types.IntervalT}, types.IntervalT, true
	}
	return nil, types.T{}, false
}

func avgType(args []types.T) ([]types.T, types.T, bool) {
	t := args[0]
	switch {
	case t.IsInteger() || t.ID == types.Numeric:
		return args, num, true
	case t.IsFloat():
		return args, f8, true
	case t.ID == types.IntervalType:
		return []types.T{types.IntervalT}, types.IntervalT, true
	}
	return nil, types.T{}, false
}

// minMaxType: any ordered type but boolean; varchar goes as text (there
// is no min(varchar)), char(n) keeps its length.
func minMaxType(args []types.T) ([]types.T, types.T, bool) {
	t := args[0]
	switch t.ID {
	case types.Bool:
		return nil, types.T{}, false
	case types.Varchar, types.Name:
		return []types.T{txt}, txt, true
	case types.Bpchar:
		return args, t, true
	case types.IntervalType:
		return []types.T{types.IntervalT}, types.IntervalT, true
	}
	return args, t.Base(), true
}

func boolAggType(args []types.T) ([]types.T, types.T, bool) {
	if args[0].ID != types.Bool {
		return nil, types.T{}, false
	}
	return args, boolT, true
}

// stringAggType: string_agg(text, text); other string types go as text.
func stringAggType(args []types.T) ([]types.T, types.T, bool) {
	if !args[0].IsString() || !args[1].IsString() {
		return nil, types.T{}, false
	}
	return []types.T{txt, txt}, txt, true
}
