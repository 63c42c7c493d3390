package funcs

import (
	"testing"

	"github.com/pgfed/pgfed/types"
)

func TestRegistryIsComplete(t *testing.T) {
	for _, name := range Scalars() {
		f := Lookup(name)
		if (f.Bind == nil) == (f.Special == NotSpecial) {
			t.Errorf("%s: an implementation or a Special, exactly one", name)
		}
		if len(f.Overloads) == 0 {
			t.Errorf("%s: no overloads", name)
		}
		for _, s := range f.Overloads {
			if s.Result == (types.T{}) {
				t.Errorf("%s: overload without a result type", name)
			}
		}
	}
	for alias, target := range aliases {
		if f := Lookup(alias); f == nil || f.Name != target {
			t.Errorf("alias %s: %v", alias, f)
		}
	}
	for _, name := range Aggregates() {
		if a := Aggregate(name); a.Resolve == nil || a.NArgs < 1 {
			t.Errorf("aggregate %s: incomplete", name)
		}
	}
}

func TestShippable(t *testing.T) {
	txt, tstz, ts, vc := types.TextT, types.TimestampTZT, types.TimestampT, types.VarcharT
	for _, tc := range []struct {
		name string
		args []types.T
		want bool
	}{
		{"abs", []types.T{types.Int4T}, true},
		{"date_trunc", []types.T{txt, ts}, true},
		{"date_trunc", []types.T{txt, tstz}, false}, // reads TimeZone
		{"extract", []types.T{txt, tstz}, false},
		{"substr", []types.T{vc, types.Int4T}, true},   // varchar is text to the overload
		{"concat", []types.T{txt, types.Int4T}, false}, // stable
		{"now", nil, false},
		{"postgres_fdw_disconnect_all", nil, false}, // pgfed's session, not the remote's
		{"position", []types.T{txt, txt}, true},     // alias of strpos
		{"no_such_function", nil, false},
		{"abs", []types.T{txt}, false}, // no such overload
	} {
		if got := Shippable(tc.name, tc.args); got != tc.want {
			t.Errorf("Shippable(%s%v) = %v, want %v", tc.name, tc.args, got, tc.want)
		}
	}
}

func TestAggregateTypes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		arg    types.T
		result types.T
		ok     bool
	}{
		{"sum", types.Int4T, types.Int8T, true},
		{"sum", types.Int8T, types.NumericT, true},
		{"sum", types.Float4T, types.Float4T, true},
		{"sum", types.TextT, types.T{}, false},
		{"avg", types.Int2T, types.NumericT, true},
		{"avg", types.Float4T, types.Float8T, true},
		{"min", types.VarcharT, types.TextT, true},
		{"max", types.BoolT, types.T{}, false},
		{"bool_and", types.Int4T, types.T{}, false},
		{"count", types.TextT, types.Int8T, true},
	} {
		_, got, ok := Aggregate(tc.name).Resolve([]types.T{tc.arg})
		if ok != tc.ok || ok && got != tc.result {
			t.Errorf("%s(%s) = %s, %v; want %s, %v", tc.name, tc.arg, got, ok, tc.result, tc.ok)
		}
	}
}
