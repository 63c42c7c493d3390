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
	} {
		a.Remote = true
		aggregates[a.Name] = a
	}
}

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
	case types.Varchar:
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
