package planner

import (
	"testing"

	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

func TestFoldConstants(t *testing.T) {
	i4 := func(v int64) nodes.Expr { return &nodes.Const{Value: v, T: types.Int4T} }
	num := func(s string) nodes.Expr {
		d, err := types.NumericFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		return &nodes.Const{Value: d, T: types.NumericT}
	}
	op := func(o string, l, r nodes.Expr, res types.T) nodes.Expr {
		return &nodes.OpExpr{Op: o, Left: l, Right: r, T: res}
	}
	col := &nodes.ColumnRef{Index: 0, Name: "a", T: types.Int4T}
	day := &nodes.Const{Value: int32(8766), T: types.DateT} // 1994-01-01
	year := &nodes.Const{Value: types.Interval{Months: 12}, T: types.IntervalT}
	tstz := &nodes.Const{Value: int64(0), T: types.TimestampTZT}
	for _, tc := range []struct {
		name string
		e    nodes.Expr
		want string
	}{
		{"integer arithmetic", op("*", op("+", i4(1), i4(2), types.Int4T), i4(3), types.Int4T), "9"},
		{"numeric keeps its scale", op("-", num("0.06"), num("0.01"), types.NumericT), "0.05"},
		{"integer-valued numeric prints typed", &nodes.Cast{Arg: op("+", i4(1), i4(10), types.Int4T), T: types.NumericT}, "'11'::numeric"},
		{"date plus interval", op("+", &nodes.Cast{Arg: day, T: types.TimestampT}, year, types.TimestampT),
			"'1995-01-01 00:00:00'::timestamp without time zone"},
		{"inside a column expression", op("<", col, op("+", i4(1), i4(10), types.Int4T), types.BoolT), "(a < 11)"},
		// Errors stay where they are, raised only if a row reaches them.
		{"division by zero", op("/", i4(1), i4(0), types.Int4T), "(1 / 0)"},
		{"overflow", op("+", i4(2147483647), i4(1), types.Int4T), "(2147483647 + 1)"},
		// Stable and volatile expressions are not folded.
		{"timestamptz arithmetic", op("+", tstz, year, types.TimestampTZT), "('1970-01-01 00:00:00+00'::timestamp with time zone + '1 year'::interval)"},
		{"date to timestamptz", &nodes.Cast{Arg: day, T: types.TimestampTZT}, "'1994-01-01'::date"},
		{"date to text", &nodes.Cast{Arg: day, T: types.TextT}, "'1994-01-01'::date"},
		{"now()", &nodes.FuncExpr{Name: "now", T: types.TimestampTZT}, "now()"},
		{"random()", op("*", &nodes.FuncExpr{Name: "random", T: types.Float8T}, &nodes.Const{Value: 10.0, T: types.Float8T}, types.Float8T),
			"(random() * '10'::double precision)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := foldConstants(tc.e).String(); got != tc.want {
				t.Errorf("fold(%s) = %s, want %s", tc.e, got, tc.want)
			}
		})
	}
}
