package remote_test

// Unit tests of the remote SQL of what is pushed above a pushed-down join:
// aggregates over the join's column SQL, ORDER BY items, LIMIT/OFFSET and
// the assembled query.

import (
	"testing"

	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/remote"
	"github.com/pgfed/pgfed/types"
)

// joinCols are the SQL of a join scan's columns: r1.a (int4), r2."My Col"
// (int8), r2.b (text).
var joinCols = []string{"r1.a", `r2."My Col"`, "r2.b"}

func jref(i int) *nodes.ColumnRef {
	ts := []types.T{types.Int4T, types.Int8T, types.TextT}
	return &nodes.ColumnRef{Index: i, T: ts[i]}
}

func TestDeparseAggOver(t *testing.T) {
	k := func(v int64) *nodes.Const { return &nodes.Const{T: types.Int4T, Value: v} }
	cases := []struct {
		a    *nodes.AggCall
		want string // "" = not shippable
	}{
		{&nodes.AggCall{Name: "count", Star: true, T: types.Int8T}, "count(*)"},
		{&nodes.AggCall{Name: "sum", Args: []nodes.Expr{jref(0)}, T: types.Int8T}, "sum(r1.a)"},
		{&nodes.AggCall{Name: "count", Distinct: true, Args: []nodes.Expr{jref(1)}, T: types.Int8T}, `count(DISTINCT r2."My Col")`},
		{&nodes.AggCall{Name: "sum", Args: []nodes.Expr{&nodes.OpExpr{Op: "+", Left: jref(0), Right: jref(1), T: types.Int8T}}, T: types.NumericT,
			Filter: &nodes.OpExpr{Op: ">", Left: jref(0), Right: k(5), T: types.BoolT}},
			`sum((r1.a + r2."My Col")) FILTER (WHERE (r1.a > 5))`},
		{&nodes.AggCall{Name: "max", Args: []nodes.Expr{jref(1)}, T: types.Int8T,
			OrderBy: []nodes.SortKey{{Expr: jref(0), Desc: true, NullsFirst: true}}},
			`max(r2."My Col" ORDER BY r1.a DESC NULLS FIRST)`},
		{&nodes.AggCall{Name: "sum", Args: []nodes.Expr{&nodes.FuncExpr{Name: "random", T: types.Float8T}}, T: types.Float8T}, ""},
		{&nodes.AggCall{Name: "no_such_agg", Args: []nodes.Expr{jref(0)}, T: types.Int8T}, ""},
	}
	for _, tc := range cases {
		got, err := remote.AggOver(tc.a, joinCols)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%s: shipped as %q", tc.a, got)
		case tc.want != "" && (err != nil || got != tc.want):
			t.Errorf("%s: got %q, %v; want %q", tc.a, got, err, tc.want)
		}
	}
}

func TestDeparseSortKeyAndLimit(t *testing.T) {
	cases := []struct {
		k    nodes.SortKey
		want string
	}{
		{nodes.SortKey{Expr: jref(0)}, "r1.a ASC NULLS LAST"},
		{nodes.SortKey{Expr: jref(1), Desc: true}, `r2."My Col" DESC NULLS LAST`},
		{nodes.SortKey{Expr: jref(0), Desc: true, NullsFirst: true}, "r1.a DESC NULLS FIRST"},
		{nodes.SortKey{Expr: &nodes.Const{T: types.Int4T, Value: int64(1)}}, ""}, // a constant orders nothing
	}
	for _, tc := range cases {
		if got, err := remote.SortKeyOver(tc.k, joinCols); err != nil || got != tc.want {
			t.Errorf("SortKeyOver(%s): got %q, %v; want %q", tc.k.Expr, got, err, tc.want)
		}
	}
	n := func(v int64) nodes.Expr { return &nodes.Const{T: types.Int8T, Value: v} }
	for _, tc := range []struct {
		count, offset nodes.Expr
		want          string
	}{
		{n(10), nil, " LIMIT 10::bigint"},
		{n(10), n(5), " LIMIT 10::bigint OFFSET 5::bigint"},
		{nil, n(5), " OFFSET 5::bigint"},
		{nil, nil, ""},
	} {
		if got, err := remote.LimitSQL(tc.count, tc.offset); err != nil || got != tc.want {
			t.Errorf("LimitSQL: got %q, %v; want %q", got, err, tc.want)
		}
	}
	if _, err := remote.LimitSQL(jref(0), nil); err == nil {
		t.Error("LimitSQL shipped a column reference")
	}
}

func TestDeparseUpperSQL(t *testing.T) {
	from := "(public.orders r1 INNER JOIN public.custs r2 ON (((r2.id = r1.cust))))"
	cases := []struct {
		j    nodes.RemoteJoin
		want string
	}{
		{nodes.RemoteJoin{From: from, Cols: []string{"r1.id", "r2.name"}},
			"SELECT r1.id, r2.name FROM " + from},
		{nodes.RemoteJoin{From: from},
			"SELECT NULL FROM " + from},
		{nodes.RemoteJoin{From: from, Where: []string{"(r1.amount > 500)", "(r2.tier = 1)"}, Cols: []string{"r2.tier", "count(*)"}, GroupBy: 1,
			Having: []string{"(count(*) > 1::bigint)"}, OrderBy: []string{"count(*) DESC NULLS FIRST", "r2.tier ASC NULLS LAST"}, Limit: " LIMIT 3::bigint"},
			"SELECT r2.tier, count(*) FROM " + from + " WHERE ((r1.amount > 500)) AND ((r2.tier = 1)) GROUP BY 1 HAVING ((count(*) > 1::bigint)) ORDER BY count(*) DESC NULLS FIRST, r2.tier ASC NULLS LAST LIMIT 3::bigint"},
		{nodes.RemoteJoin{From: from, Cols: []string{"r1.a", "(r1.b % 4)", "sum(r2.c)"}, GroupBy: 2},
			"SELECT r1.a, (r1.b % 4), sum(r2.c) FROM " + from + " GROUP BY 1, 2"},
	}
	for _, tc := range cases {
		if got := remote.UpperSQL(&tc.j); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
