package nodes

import (
	"testing"

	"github.com/pgfed/pgfed/types"
)

func TestEqual(t *testing.T) {
	c2 := &ColumnRef{Index: 0, Name: "c2", T: types.Int4T}
	c2Again := &ColumnRef{Index: 0, Name: "t1.c2", T: types.Int4T}
	c2Wide := &Cast{Arg: c2, T: types.Int8T}
	one4 := &Const{Value: int64(1), T: types.Int4T}
	one8 := &Const{Value: int64(1), T: types.Int8T}
	num := func(s string) *Const {
		d, err := types.NumericFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		return &Const{Value: d, T: types.NumericT}
	}
	plus := func(l, r Expr, rt types.T) *OpExpr { return &OpExpr{Op: "+", Left: l, Right: r, T: rt} }

	tests := []struct {
		name string
		a, b Expr
		want bool
	}{
		{"same column, other spelling", c2, c2Again, true},
		{"other column", c2, &ColumnRef{Index: 1, Name: "c2", T: types.Int4T}, false},
		// The root of issue 14: both print "c2".
		{"implicit coercion is not its argument", c2, c2Wide, false},
		{"implicit and explicit casts", c2Wide, &Cast{Arg: c2, T: types.Int8T, Explicit: true}, false},
		{"same coercion", c2Wide, &Cast{Arg: c2Again, T: types.Int8T}, true},
		// Both print "(c2 + 1)".
		{"int4 and int8 addition", plus(c2, one4, types.Int4T), plus(c2Wide, one8, types.Int8T), false},
		{"same addition", plus(c2, one4, types.Int4T), plus(c2Again, &Const{Value: int64(1), T: types.Int4T}, types.Int4T), true},
		{"constants of two types", one4, one8, false},
		{"numeric scale", num("1.0"), num("1.00"), false},
		{"numeric value", num("1.50"), num("1.50"), true},
		{"NULL constants", &Const{T: types.TextT}, &Const{T: types.TextT}, true},
		{"NULL and a value", &Const{T: types.Int4T}, one4, false},
		{"operator", plus(c2, one4, types.Int4T), &OpExpr{Op: "-", Left: c2, Right: one4, T: types.Int4T}, false},
		{"function args", &FuncExpr{Name: "abs", Args: []Expr{c2}, T: types.Int4T}, &FuncExpr{Name: "abs", Args: []Expr{c2Again}, T: types.Int4T}, true},
		{"function name", &FuncExpr{Name: "abs", Args: []Expr{c2}, T: types.Int4T}, &FuncExpr{Name: "sign", Args: []Expr{c2}, T: types.Int4T}, false},
		{"IS NULL and IS NOT NULL", &NullTest{Arg: c2}, &NullTest{Arg: c2, IsNot: true}, false},
		{"CASE", &CaseExpr{Whens: []CaseWhen{{Cond: &NullTest{Arg: c2}, Result: one4}}, T: types.Int4T},
			&CaseExpr{Whens: []CaseWhen{{Cond: &NullTest{Arg: c2Again}, Result: one4}}, T: types.Int4T}, true},
		{"CASE with ELSE", &CaseExpr{Whens: []CaseWhen{{Cond: &NullTest{Arg: c2}, Result: one4}}, T: types.Int4T},
			&CaseExpr{Whens: []CaseWhen{{Cond: &NullTest{Arg: c2}, Result: one4}}, Else: one4, T: types.Int4T}, false},
		{"IN lists", &InList{Arg: c2, List: []Expr{one4}}, &InList{Arg: c2, List: []Expr{one4, one4}}, false},
		{"nil", nil, nil, true},
		{"nil and a column", nil, c2, false},
	}
	for _, tc := range tests {
		if got := Equal(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: Equal(%v, %v) = %v, want %v", tc.name, tc.a, tc.b, got, tc.want)
		}
		if got := Equal(tc.b, tc.a); got != tc.want {
			t.Errorf("%s: Equal is not symmetric", tc.name)
		}
	}
}

func TestEqualAggCalls(t *testing.T) {
	c := &ColumnRef{Index: 0, Name: "a", T: types.Int4T}
	count := &AggCall{Name: "count", Args: []Expr{c}, T: types.Int8T}
	if !EqualAggCalls(count, &AggCall{Name: "count", Args: []Expr{c}, T: types.Int8T}) {
		t.Error("identical calls differ")
	}
	for _, other := range []*AggCall{
		{Name: "count", Args: []Expr{c}, Distinct: true, T: types.Int8T},
		{Name: "count", Star: true, T: types.Int8T},
		{Name: "count", Args: []Expr{c}, Filter: &NullTest{Arg: c}, T: types.Int8T},
		{Name: "count", Args: []Expr{c}, OrderBy: []SortKey{{Expr: c}}, T: types.Int8T},
		{Name: "sum", Args: []Expr{c}, T: types.Int8T},
	} {
		if EqualAggCalls(count, other) {
			t.Errorf("%v and %v compare equal", count, other)
		}
	}
}
