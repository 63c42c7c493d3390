package remote_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgtest"
	"github.com/pgfed/pgfed/remote"
	"github.com/pgfed/pgfed/types"
)

// Unit tests of the printed SQL.

// exprCols are the columns the expressions of the unit tests read.
var exprCols = []struct {
	name string
	t    types.T
}{
	{"a", types.Int4T},                        // 0
	{"b", types.TextT},                        // 1
	{"My Col", types.Int8T},                   // 2
	{"select", types.TextT},                   // 3
	{"c", types.VarcharT},                     // 4
	{"d", types.DateT},                        // 5
	{"ts", types.TimestampT},                  // 6
	{"tz", types.TimestampTZT},                // 7
	{"f4", types.Float4T},                     // 8
	{"n", types.NumericT},                     // 9
	{"s2", types.Int2T},                       // 10
	{"ch", types.T{ID: types.Bpchar, Len: 3}}, // 11
	{"flag", types.BoolT},                     // 12
	{`we"ird`, types.TextT},                   // 13
	{"f8", types.Float8T},                     // 14
}

func exprColNames() []string {
	names := make([]string, len(exprCols))
	for i, c := range exprCols {
		names[i] = c.name
	}
	return names
}

func ref(i int) *nodes.ColumnRef {
	return &nodes.ColumnRef{Index: i, Name: exprCols[i].name, T: exprCols[i].t}
}

// val parses PostgreSQL text input into a datum of t.
func val(tb testing.TB, t types.T, s string) any {
	tb.Helper()
	v, err := types.Parse(t, s)
	if err != nil {
		tb.Fatalf("types.Parse(%s, %q): %v", t, s, err)
	}
	return v
}

func konst(tb testing.TB, t types.T, s string) *nodes.Const {
	tb.Helper()
	return &nodes.Const{T: t, Value: val(tb, t, s)}
}

func text(s string) *nodes.Const { return &nodes.Const{T: types.TextT, Value: s} }
func int4(v int64) *nodes.Const  { return &nodes.Const{T: types.Int4T, Value: v} }

// op builds a binary operator (or, with l nil, a prefix one); comparisons
// and LIKE are boolean, anything else has the right operand's type.
func op(o string, l, r nodes.Expr) *nodes.OpExpr {
	t := r.Type()
	switch o {
	case "=", "<>", "<", "<=", ">", ">=", "~~", "!~~", "~~*", "!~~*":
		t = types.BoolT
	}
	return &nodes.OpExpr{Op: o, Left: l, Right: r, T: t}
}

func fn(name string, t types.T, args ...nodes.Expr) *nodes.FuncExpr {
	return &nodes.FuncExpr{Name: name, Args: args, T: t}
}

func and(args ...nodes.Expr) *nodes.BoolExpr { return &nodes.BoolExpr{Op: nodes.And, Args: args} }
func or(args ...nodes.Expr) *nodes.BoolExpr  { return &nodes.BoolExpr{Op: nodes.Or, Args: args} }
func not(arg nodes.Expr) *nodes.BoolExpr {
	return &nodes.BoolExpr{Op: nodes.Not, Args: []nodes.Expr{arg}}
}

func cast(e nodes.Expr, t types.T, explicit bool) *nodes.Cast {
	return &nodes.Cast{Arg: e, T: t, Explicit: explicit}
}

func TestDeparseQuoteIdent(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a", "a"},
		{"abc_1", "abc_1"},
		{"_x", "_x"},
		{"A", `"A"`},
		{"myTable", `"myTable"`},
		{"My Table", `"My Table"`},
		{`we"ird`, `"we""ird"`},
		{`back\slash`, `"back\slash"`},
		{"ünï", `"ünï"`},
		{"1a", `"1a"`},
		{"a.b", `"a.b"`},
		{"a-b", `"a-b"`},
		{"", `""`},
		{"$x", `"$x"`},
		{"x$", `"x$"`},
		// Reserved, col_name and type_func_name keywords are quoted.
		{"select", `"select"`},
		{"user", `"user"`},
		{"order", `"order"`},
		{"between", `"between"`},
		{"timestamp", `"timestamp"`},
		{"extract", `"extract"`},
		{"substring", `"substring"`},
		{"left", `"left"`},
		{"like", `"like"`},
		{"verbose", `"verbose"`},
		// Unreserved keywords and non-keywords are not.
		{"abort", "abort"},
		{"name", "name"},
		{"day", "day"},
		{"text", "text"},
		{"count", "count"},
		{"strpos", "strpos"},
	}
	for _, tt := range tests {
		if got := remote.QuoteIdent(tt.in); got != tt.want {
			t.Errorf("QuoteIdent(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestDeparseQuoteLiteral(t *testing.T) {
	tests := []struct{ in, want string }{
		{"abc", "'abc'"},
		{"", "''"},
		{"it's", "'it''s'"},
		{"''", "''''''"},
		{`a\b`, `E'a\\b'`},
		{`it's \ x`, `E'it''s \\ x'`},
		{`\`, `E'\\'`},
		{"ünï\nx", "'ünï\nx'"},
		{`"q"`, `'"q"'`},
	}
	for _, tt := range tests {
		if got := remote.QuoteLiteral(tt.in); got != tt.want {
			t.Errorf("QuoteLiteral(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestDeparseLiteral(t *testing.T) {
	numeric102 := types.T{ID: types.Numeric, Len: -1, Precision: 10, Scale: 2}
	tests := []struct {
		t    types.T
		in   string // text input; "NULL" for NULL
		want string
	}{
		{types.BoolT, "t", "true"},
		{types.BoolT, "f", "false"},
		{types.Int2T, "5", "5::smallint"},
		{types.Int2T, "-32768", "(-32768)::smallint"},
		{types.Int4T, "1", "1::integer"},
		{types.Int4T, "-1", "(-1)::integer"},
		{types.Int4T, "-2147483648", "(-2147483648)::integer"},
		{types.Int8T, "-9223372036854775808", "(-9223372036854775808)::bigint"},
		{types.NumericT, "1.50", "1.50::numeric"},
		{types.NumericT, "-0.5", "(-0.5)::numeric"},
		{types.NumericT, "10", "10::numeric"},
		{types.NumericT, "NaN", "'NaN'::numeric"},
		{numeric102, "1.5", "1.50::numeric(10,2)"},
		{types.Float8T, "1.5", "1.5::double precision"},
		{types.Float8T, "-1e300", "(-1e+300)::double precision"},
		{types.Float8T, "NaN", "'NaN'::double precision"},
		{types.Float8T, "-Infinity", "'-Infinity'::double precision"},
		{types.Float8T, "-0", "'-0'::double precision"},
		{types.Float4T, "1.1", "1.1::real"},
		{types.TextT, "abc", "'abc'::text"},
		{types.TextT, `it's a\b`, `E'it''s a\\b'::text`},
		{types.VarcharT, "x", "'x'::character varying"},
		{types.T{ID: types.Varchar, Len: 5}, "x", "'x'::character varying(5)"},
		{types.T{ID: types.Bpchar, Len: 3}, "ab", "'ab '::character(3)"},
		{types.BpcharT, "ab", "'ab'::bpchar"},
		{types.DateT, "2024-01-01", "'2024-01-01'::date"},
		{types.DateT, "infinity", "'infinity'::date"},
		{types.TimestampT, "2024-01-01 12:34:56.789", "'2024-01-01 12:34:56.789'::timestamp without time zone"},
		{types.TimestampTZT, "2024-01-01 12:00+02", "'2024-01-01 10:00:00+00'::timestamp with time zone"},
		{types.UnknownT, "x", "'x'"},
		{types.Int4T, "NULL", "NULL::integer"},
		{types.T{ID: types.Varchar, Len: 5}, "NULL", "NULL::character varying(5)"},
		{types.UnknownT, "NULL", "NULL"},
	}
	for _, tt := range tests {
		var v any
		if tt.in != "NULL" {
			v = val(t, tt.t, tt.in)
		}
		if got := remote.Literal(tt.t, v); got != tt.want {
			t.Errorf("Literal(%s, %q) = %s, want %s", tt.t, tt.in, got, tt.want)
		}
	}
}

func TestDeparseExpr(t *testing.T) {
	d := &remote.Deparser{Cols: exprColNames()}
	k := func(ty types.T, s string) *nodes.Const { return konst(t, ty, s) }
	tests := []struct {
		name string
		e    nodes.Expr
		want string
	}{
		{"column", ref(0), "a"},
		{"keyword column", ref(3), `"select"`},
		{"column with quote", ref(13), `"we""ird"`},
		{"integer const", int4(10), "10"},
		{"negative const", op(">", ref(0), int4(-10)), "(a > (-10))"},
		{"bigint const", op("=", ref(2), &nodes.Const{T: types.Int8T, Value: int64(5)}), `("My Col" = 5::bigint)`},
		{"numeric const", op("<", ref(9), k(types.NumericT, "1.50")), "(n < 1.50)"},
		{"integral numeric const", op("<", ref(9), k(types.NumericT, "2")), "(n < 2::numeric)"},
		{"text const", op("=", ref(3), text("x")), `("select" = 'x'::text)`},
		{"bool const", op("=", ref(12), &nodes.Const{T: types.BoolT, Value: true}), "(flag = true)"},
		{"null const", op("=", ref(0), &nodes.Const{T: types.Int4T}), "(a = NULL::integer)"},
		{"nested arithmetic", op("=", op("+", ref(0), int4(1)), op("*", ref(0), int4(2))), "((a + 1) = (a * 2))"},
		{"prefix minus", op("-", nil, ref(0)), "(- a)"},
		{"prefix minus of negative", op("-", nil, int4(-1)), "(- (-1))"},
		{"bitwise and shift", op("|", op("&", ref(0), int4(3)), op("<<", ref(0), int4(2))), "((a & 3) | (a << 2))"},
		{"xor and shift right", op("#", ref(0), op(">>", ref(0), int4(1))), "(a # (a >> 1))"},
		{"prefix absolute value and not", op("@", nil, op("~", nil, ref(0))), "(@ (~ a))"},
		{"square and cube root", op("|/", nil, op("||/", nil, ref(0))), "(|/ (||/ a))"},
		{"concat", op("||", ref(1), text("it's")), "(b || 'it''s'::text)"},
		{"like", op("~~", ref(1), text(`a\%`)), `(b ~~ E'a\\%'::text)`},
		{"not like", op("!~~", ref(1), text("a%")), "(b !~~ 'a%'::text)"},
		{"ilike", op("~~*", ref(1), text("a_")), "(b ~~* 'a_'::text)"},
		{"not ilike", op("!~~*", ref(1), text("a_")), "(b !~~* 'a_'::text)"},
		{"and", and(op(">", ref(0), int4(1)), op("<", ref(0), int4(5))), "((a > 1) AND (a < 5))"},
		{"or", or(ref(12), &nodes.NullTest{Arg: ref(12)}), "(flag OR (flag IS NULL))"},
		{"not", not(ref(12)), "(NOT flag)"},
		{"is null", &nodes.NullTest{Arg: ref(1)}, "(b IS NULL)"},
		{"is not null", &nodes.NullTest{Arg: ref(1), IsNot: true}, "(b IS NOT NULL)"},
		{"is distinct from", &nodes.DistinctExpr{Left: ref(0), Right: int4(1)}, "(a IS DISTINCT FROM 1)"},
		{"is not distinct from", &nodes.DistinctExpr{Left: ref(0), Right: int4(1), Not: true}, "(NOT (a IS DISTINCT FROM 1))"},
		{"in", &nodes.InList{Arg: ref(0), List: []nodes.Expr{int4(1), int4(-2), &nodes.Const{T: types.Int4T}}},
			"(a = ANY ('{1,-2,NULL}'::integer[]))"},
		{"not in", &nodes.InList{Arg: ref(0), List: []nodes.Expr{int4(1), int4(2)}, Not: true},
			"(a <> ALL ('{1,2}'::integer[]))"},
		{"in strings", &nodes.InList{Arg: ref(1), List: []nodes.Expr{
			text("a"), text("a b"), text("it's"), text(`x"y`), text(`back\slash`), text("{}"),
			text("a,b"), text("NULL"), text("null"), text(""), text("tab\t"), text("ünï"),
		}}, `(b = ANY (E'{a,"a b",it''s,"x\\"y","back\\\\slash","{}","a,b","NULL","null","","tab	",ünï}'::text[]))`},
		{"in dates", &nodes.InList{Arg: ref(5), List: []nodes.Expr{k(types.DateT, "2024-01-01"), k(types.DateT, "2024-02-01")}},
			"(d = ANY ('{2024-01-01,2024-02-01}'::date[]))"},
		{"in timestamps", &nodes.InList{Arg: ref(6), List: []nodes.Expr{k(types.TimestampT, "2024-01-01 10:00")}},
			`(ts = ANY ('{"2024-01-01 10:00:00"}'::timestamp without time zone[]))`},
		{"in with columns", &nodes.InList{Arg: ref(0), List: []nodes.Expr{int4(1), cast(ref(10), types.Int4T, false)}},
			"(a = ANY (ARRAY[1, (s2)::integer]))"},
		{"in with casts of constants", &nodes.InList{Arg: ref(2), List: []nodes.Expr{cast(int4(1), types.Int8T, false), &nodes.Const{T: types.Int8T, Value: int64(2)}}},
			`("My Col" = ANY ('{1,2}'::bigint[]))`},
		{"in with widened column", &nodes.InList{Arg: cast(ref(10), types.Int4T, false), List: []nodes.Expr{int4(1), int4(2)}},
			"(s2 = ANY ('{1,2}'::integer[]))"},
		{"case", &nodes.CaseExpr{
			Whens: []nodes.CaseWhen{{Cond: op(">", ref(0), int4(0)), Result: text("pos")}, {Cond: op("<", ref(0), int4(0)), Result: text("neg")}},
			Else:  text("zero"), T: types.TextT,
		}, "(CASE WHEN (a > 0) THEN 'pos'::text WHEN (a < 0) THEN 'neg'::text ELSE 'zero'::text END)"},
		{"case without else", &nodes.CaseExpr{Whens: []nodes.CaseWhen{{Cond: ref(12), Result: int4(1)}}, T: types.Int4T},
			"(CASE WHEN flag THEN 1 END)"},
		{"coalesce", &nodes.CoalesceExpr{Args: []nodes.Expr{ref(1), ref(3), text("")}, T: types.TextT}, `COALESCE(b, "select", ''::text)`},
		{"nullif", &nodes.NullIfExpr{Left: ref(0), Right: int4(0), T: types.Int4T}, "NULLIF(a, 0)"},
		{"greatest", &nodes.MinMaxExpr{Greatest: true, Args: []nodes.Expr{ref(0), int4(3)}, T: types.Int4T}, "GREATEST(a, 3)"},
		{"least", &nodes.MinMaxExpr{Args: []nodes.Expr{ref(0), int4(3)}, T: types.Int4T}, "LEAST(a, 3)"},
		{"function", op(">", fn("strpos", types.Int4T, ref(1), text("x")), int4(0)), "(strpos(b, 'x'::text) > 0)"},
		{"keyword function", fn("substring", types.TextT, ref(1), int4(2), int4(3)), `"substring"(b, 2, 3)`},
		{"extract on date", fn("extract", types.NumericT, text("year"), ref(5)), `"extract"('year'::text, d)`},
		{"date_trunc on timestamp", fn("date_trunc", types.TimestampT, text("day"), ref(6)), "date_trunc('day'::text, ts)"},
		{"explicit cast", cast(ref(0), types.Int8T, true), "(a)::bigint"},
		{"explicit cast with modifier", cast(op("+", ref(9), ref(9)), types.T{ID: types.Numeric, Len: -1, Precision: 10, Scale: 2}, true),
			"((n + n))::numeric(10,2)"},
		{"explicit cast to varchar(n)", cast(ref(1), types.T{ID: types.Varchar, Len: 3}, true), "(b)::character varying(3)"},
		{"explicit cast to text", cast(ref(0), types.TextT, true), "(a)::text"},
		{"implicit widening left out", op("=", cast(ref(10), types.Int4T, false), int4(1)), "(s2 = 1)"},
		{"implicit real to double left out", op("<", cast(ref(8), types.Float8T, false), ref(14)), "(f4 < f8)"},
		{"implicit varchar to text left out", op("=", cast(ref(4), types.TextT, false), text("x")), "(c = 'x'::text)"},
		{"implicit date to timestamp left out", op("<", cast(ref(5), types.TimestampT, false), ref(6)), "(d < ts)"},
		{"implicit widening against constant left out", op("=", ref(2), cast(ref(0), types.Int8T, false)), `("My Col" = a)`},
		{"implicit widening in is distinct from left out", &nodes.DistinctExpr{Left: cast(ref(10), types.Int4T, false), Right: ref(0)}, "(s2 IS DISTINCT FROM a)"},
		{"both sides widened kept", op("+", cast(ref(8), types.Float8T, false), cast(ref(0), types.Float8T, false)),
			"((f4)::double precision + (a)::double precision)"},
		{"widening under prefix operator kept", op("-", nil, cast(ref(10), types.Int4T, false)), "(- (s2)::integer)"},
		{"widened function argument kept", fn("round", types.Float8T, cast(ref(0), types.Float8T, false)), "round((a)::double precision)"},
		{"widening against other type kept", op("=", cast(ref(10), types.Int8T, false), ref(0)), "((s2)::bigint = a)"},
		{"implicit char(n) to text kept", op("=", cast(ref(11), types.TextT, false), text("x")), "((ch)::text = 'x'::text)"},
		{"to text for || kept", op("||", cast(ref(0), types.TextT, false), text("x")), "((a)::text || 'x'::text)"},
		{"implicit cast to numeric(p,s) kept", cast(ref(0), types.T{ID: types.Numeric, Len: -1, Precision: 10, Scale: 2}, false),
			"(a)::numeric(10,2)"},
		{"cast of constant folded", op("=", ref(2), cast(int4(5), types.Int8T, false)), `("My Col" = 5::bigint)`},
		{"cast of negative constant folded", op("=", ref(9), cast(int4(-5), types.NumericT, true)), "(n = (-5)::numeric)"},
		{"cast of null folded", cast(&nodes.Const{T: types.Int4T}, types.TextT, true), "NULL::text"},
		{"cast of date constant to text folded", op("=", ref(1), cast(k(types.DateT, "2024-01-02"), types.TextT, true)),
			"(b = '2024-01-02'::text)"},
		{"cast of unknown folded", op("=", ref(5), cast(&nodes.Const{T: types.UnknownT, Value: "2024-03-04"}, types.DateT, false)),
			"(d = '2024-03-04'::date)"},
		{"float const", op("=", ref(8), k(types.Float4T, "1.1")), "(f4 = 1.1::real)"},
		{"timestamptz const", op(">=", ref(7), k(types.TimestampTZT, "2024-01-01 00:00:00+00")),
			"(tz >= '2024-01-01 00:00:00+00'::timestamp with time zone)"},
		{"date arithmetic", op("=", op("-", ref(5), int4(1)), k(types.DateT, "2024-01-01")), "((d - 1) = '2024-01-01'::date)"},
		{"minus minus", op("-", ref(0), int4(-1)), "(a - (-1))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !remote.Shippable(tt.e) {
				t.Errorf("Shippable(%s) = false", tt.e)
			}
			got, err := d.Expr(tt.e)
			if err != nil {
				t.Fatalf("Expr(%s): %v", tt.e, err)
			}
			if got != tt.want {
				t.Errorf("Expr(%s)\n got %s\nwant %s", tt.e, got, tt.want)
			}
		})
	}
}

func TestDeparseNotShippable(t *testing.T) {
	now := fn("now", types.TimestampTZT)
	tests := []struct {
		name string
		e    nodes.Expr
	}{
		{"now()", op(">", ref(7), now)},
		{"current_date", op("=", ref(5), cast(now, types.DateT, false))},
		{"statement_timestamp", fn("statement_timestamp", types.TimestampTZT)},
		{"transaction_timestamp", fn("transaction_timestamp", types.TimestampTZT)},
		{"random", op(">", fn("random", types.Float8T), &nodes.Const{T: types.Float8T, Value: 0.5})},
		{"clock_timestamp", fn("clock_timestamp", types.TimestampTZT)},
		{"concat is stable", fn("concat", types.TextT, ref(1), ref(3))},
		{"unknown function", fn("my_func", types.Int4T, ref(0))},
		{"date_trunc on timestamptz", fn("date_trunc", types.TimestampTZT, text("day"), ref(7))},
		{"extract on timestamptz", fn("extract", types.NumericT, text("hour"), ref(7))},
		{"date to text", op("=", cast(ref(5), types.TextT, true), text("2024-01-01"))},
		{"text to date", op("=", cast(ref(1), types.DateT, true), ref(5))},
		{"date to timestamptz", op("<", cast(ref(5), types.TimestampTZT, false), ref(7))},
		{"timestamptz to timestamp", op("<", cast(ref(7), types.TimestampT, true), ref(6))},
		{"timestamptz to date", cast(ref(7), types.DateT, true)},
		{"timestamptz to text", cast(ref(7), types.TextT, false)},
		{"relative date 'today'", op("=", ref(5), cast(&nodes.Const{T: types.UnknownT, Value: "today"}, types.DateT, false))},
		{"implicit coercion to varchar(n)", cast(ref(1), types.T{ID: types.Varchar, Len: 3}, false)},
		{"impossible cast", cast(ref(5), types.Int4T, true)},
		{"unknown operator", op("<->", ref(0), int4(2))},
		{"unknown prefix operator", op("!!", nil, ref(0))},
		{"NUL in string", op("=", ref(1), text("a\x00b"))},
		{"invalid UTF-8", op("=", ref(1), text("a\xffb"))},
		{"nested deep", and(ref(12), or(ref(12), not(op("=", ref(7), now))))},
		{"in list element", &nodes.InList{Arg: ref(7), List: []nodes.Expr{now}}},
		{"case result", &nodes.CaseExpr{Whens: []nodes.CaseWhen{{Cond: ref(12), Result: now}}, T: types.TimestampTZT}},
		{"coalesce argument", &nodes.CoalesceExpr{Args: []nodes.Expr{ref(7), now}, T: types.TimestampTZT}},
		{"empty AND", &nodes.BoolExpr{Op: nodes.And}},
		{"nil", nil},
	}
	d := &remote.Deparser{Cols: exprColNames()}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if remote.Shippable(tt.e) {
				t.Errorf("Shippable = true, want false")
			}
			if s, err := d.Expr(tt.e); err == nil {
				t.Errorf("Expr = %s, want an error", s)
			}
		})
	}

	if _, err := (&remote.Deparser{Cols: []string{"a"}}).Expr(ref(1)); err == nil {
		t.Error("Expr of a column outside Cols succeeded")
	}
	if remote.ShippableAgg(&nodes.AggCall{Name: "array_agg", Args: []nodes.Expr{ref(0)}}) {
		t.Error("ShippableAgg(array_agg) = true")
	}
	if remote.ShippableAgg(&nodes.AggCall{Name: "max", Args: []nodes.Expr{now}}) {
		t.Error("ShippableAgg(max(now())) = true")
	}
	if !remote.ShippableAgg(&nodes.AggCall{Name: "count", Star: true}) {
		t.Error("ShippableAgg(count(*)) = false")
	}
}

func TestDeparseSelect(t *testing.T) {
	all := []string{"a", "b", "c", "My Col"}
	a := &nodes.ColumnRef{Index: 0, T: types.Int4T}
	b := &nodes.ColumnRef{Index: 1, T: types.TextT}
	c := &nodes.ColumnRef{Index: 2, T: types.TextT}
	myCol := &nodes.ColumnRef{Index: 3, T: types.Int4T}
	ten := &nodes.Const{T: types.Int8T, Value: int64(10)}
	tests := []struct {
		name string
		s    remote.Select
		want string
	}{
		{"plain", remote.Select{Schema: "public", Table: "t", Columns: []string{"a", "b"}, AllCols: all},
			"SELECT a, b FROM public.t"},
		{"no columns", remote.Select{Schema: "public", Table: "t", AllCols: all},
			"SELECT NULL FROM public.t"},
		{"quoted names", remote.Select{Schema: "My Schema", Table: "select", Columns: []string{"My Col", `we"ird`}, AllCols: all},
			`SELECT "My Col", "we""ird" FROM "My Schema"."select"`},
		{"unqualified", remote.Select{Table: "t", Columns: []string{"a"}, AllCols: all},
			"SELECT a FROM t"},
		{"where order limit", remote.Select{
			Schema: "public", Table: "t", Columns: []string{"a", "b"}, AllCols: all,
			Where:   []nodes.Expr{op(">", a, int4(10)), op("=", b, text("x"))},
			OrderBy: []nodes.SortKey{{Expr: a}},
			Limit:   ten,
		}, "SELECT a, b FROM public.t WHERE ((a > 10)) AND ((b = 'x'::text)) ORDER BY a ASC NULLS LAST LIMIT 10::bigint"},
		{"order directions and offset", remote.Select{
			Schema: "public", Table: "t", Columns: []string{"a"}, AllCols: all,
			OrderBy: []nodes.SortKey{{Expr: myCol, Desc: true, NullsFirst: true}, {Expr: b, Desc: true},
				{Expr: int4(1)}, {Expr: op("+", a, int4(1)), NullsFirst: true}},
			Limit:  ten,
			Offset: &nodes.Const{T: types.Int8T, Value: int64(5)},
		}, `SELECT a FROM public.t ORDER BY "My Col" DESC NULLS FIRST, b DESC NULLS LAST, (a + 1) ASC NULLS FIRST LIMIT 10::bigint OFFSET 5::bigint`},
		{"constant order only", remote.Select{Schema: "public", Table: "t", Columns: []string{"a"}, AllCols: all,
			OrderBy: []nodes.SortKey{{Expr: int4(1)}}},
			"SELECT a FROM public.t"},
		{"where on bool column", remote.Select{Schema: "s", Table: "t", Columns: []string{"a"}, AllCols: []string{"a", "flag"},
			Where: []nodes.Expr{&nodes.ColumnRef{Index: 1, T: types.BoolT}, not(&nodes.ColumnRef{Index: 1, T: types.BoolT})}},
			"SELECT a FROM s.t WHERE (flag) AND ((NOT flag))"},
		{"aggregates", remote.Select{
			Schema: "public", Table: "t", AllCols: all, Columns: []string{"ignored"},
			GroupBy: []nodes.Expr{b},
			Aggs: []*nodes.AggCall{
				{Name: "count", Star: true, T: types.Int8T},
				{Name: "sum", Args: []nodes.Expr{a}, T: types.Int8T},
				{Name: "avg", Args: []nodes.Expr{a}, T: types.NumericT},
				{Name: "count", Args: []nodes.Expr{a}, Distinct: true, T: types.Int8T},
				{Name: "string_agg", Args: []nodes.Expr{c, text(",")}, OrderBy: []nodes.SortKey{{Expr: c}}, T: types.TextT},
				{Name: "max", Args: []nodes.Expr{myCol}, Filter: op(">", a, int4(0)), T: types.Int4T},
			},
		}, `SELECT b, count(*), sum(a), avg(a), count(DISTINCT a), string_agg(c, ','::text ORDER BY c ASC NULLS LAST), max("My Col") FILTER (WHERE (a > 0)) FROM public.t GROUP BY 1`},
		{"aggregates without grouping", remote.Select{
			Schema: "public", Table: "t", AllCols: all,
			Where: []nodes.Expr{op("<", a, int4(5))},
			Aggs:  []*nodes.AggCall{{Name: "count", Star: true, T: types.Int8T}, {Name: "bool_or", Args: []nodes.Expr{op("=", b, c)}, T: types.BoolT}},
		}, "SELECT count(*), bool_or((b = c)) FROM public.t WHERE ((a < 5))"},
		{"grouping by expressions", remote.Select{
			Schema: "public", Table: "t", AllCols: all,
			GroupBy: []nodes.Expr{op("%", a, int4(3)), myCol},
			Aggs:    []*nodes.AggCall{{Name: "min", Args: []nodes.Expr{b}, T: types.TextT}},
			OrderBy: []nodes.SortKey{{Expr: myCol, Desc: true}},
		}, `SELECT (a % 3), "My Col", min(b) FROM public.t GROUP BY 1, 2 ORDER BY "My Col" DESC NULLS LAST`},
		{"grouping without aggregates", remote.Select{Schema: "public", Table: "t", AllCols: all, GroupBy: []nodes.Expr{b}},
			"SELECT b FROM public.t GROUP BY 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.s.SQL()
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}

	bad := []remote.Select{
		{Schema: "public", Table: "t", AllCols: all, Where: []nodes.Expr{op(">", a, fn("random", types.Float8T))}},
		{Schema: "public", Table: "t", AllCols: all, OrderBy: []nodes.SortKey{{Expr: fn("random", types.Float8T)}}},
		{Schema: "public", Table: "t", AllCols: all, Aggs: []*nodes.AggCall{{Name: "array_agg", Args: []nodes.Expr{a}}}},
		{Schema: "public", Table: "t", AllCols: all, Aggs: []*nodes.AggCall{{Name: "sum", Star: true}}},
		{Schema: "public", Table: "t", AllCols: all, Where: []nodes.Expr{op(">", &nodes.ColumnRef{Index: 9, T: types.Int4T}, int4(1))}},
		{Schema: "public", AllCols: all},
	}
	for i, s := range bad {
		if got, err := s.SQL(); err == nil {
			t.Errorf("bad select %d: SQL() = %s, want an error", i, got)
		}
	}
}

// Round trips against a real PostgreSQL 15.

var deparseDBs atomic.Int64

// deparseConn connects to a fresh database of the shared test cluster.
func deparseConn(t *testing.T) *pgx.Conn {
	t.Helper()
	cluster := pgtest.Shared(t)
	ctx := context.Background()
	name := fmt.Sprintf("deparse_%d", deparseDBs.Add(1))
	if err := cluster.CreateDatabase(ctx, name); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, cluster.DSN(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// remoteSession sets what the remote connections set (conn.go's setup),
// so deparsed SQL runs as it will remotely.
func remoteSession(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), "SET search_path = pg_catalog; SET timezone = 'UTC'; SET datestyle = ISO; "+
		"SET intervalstyle = postgres; SET extra_float_digits = 3"); err != nil {
		t.Fatal(err)
	}
}

// queryText runs sql with the simple protocol and returns the rows as
// text ("<NULL>" for NULL).
func queryText(t *testing.T, conn *pgx.Conn, sql string) [][]string {
	t.Helper()
	results, err := conn.PgConn().Exec(context.Background(), sql).ReadAll()
	if err != nil {
		t.Fatalf("%s\n%v", sql, err)
	}
	var rows [][]string
	for _, res := range results {
		for _, r := range res.Rows {
			row := make([]string, len(r))
			for i, v := range r {
				if v == nil {
					row[i] = "<NULL>"
				} else {
					row[i] = string(v)
				}
			}
			rows = append(rows, row)
		}
	}
	return rows
}

func mustExec(t *testing.T, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s\n%v", sql, err)
	}
}

// trickyStrings are stored in the round-trip table and used as needles.
var trickyStrings = []string{
	"plain", "it's", "''", `back\slash`, `\\double`, `ends with\`, `\'`, "ünïcödé", "日本語", "emoji 😀",
	"line1\nline2", "cr\r\nlf", "tab\there", "\tlead", "trail\n", "100%", "under_score", "%", "_", "%_\\", "",
	" leading space", "trailing space ", `quote"double`, "{brace}", "a,b", "NULL", "null",
	"E'x'", "$$dollar$$", "--comment", "/*c*/", "semi;colon", "?$1", "Mixed CASE",
}

// likeEscape escapes a string for LIKE with the default escape character.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func TestDeparseRoundTripStrings(t *testing.T) {
	conn := deparseConn(t)
	schema, table := `we"ird schema`, "select"
	cols := []string{"id", "select", "My Table", `we"ird`, `back\slash`, "ünï", "Group"}
	textCols := []int{1, 2, 3, 4, 5}
	qualified := pgx.Identifier{schema, table}.Sanitize()
	mustExec(t, conn, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize())
	var defs []string
	for i, c := range cols {
		typ := "text"
		if i == 0 || i == len(cols)-1 {
			typ = "integer"
		}
		defs = append(defs, pgx.Identifier{c}.Sanitize()+" "+typ)
	}
	mustExec(t, conn, "CREATE TABLE "+qualified+" ("+strings.Join(defs, ", ")+")")

	// Row i holds trickyStrings[i], shifted by column, so that each column
	// has every string once; the last row is all NULL strings.
	n := len(trickyStrings)
	type row struct {
		id    int
		text  map[int]*string
		group int
	}
	var rows []row
	for i := 0; i <= n; i++ {
		r := row{id: i + 1, text: map[int]*string{}, group: i % 3}
		args := []any{r.id}
		for _, c := range textCols {
			var v *string
			if i < n {
				s := trickyStrings[(i+c)%n]
				v = &s
			}
			r.text[c] = v
			args = append(args, v)
		}
		args = append(args, r.group)
		rows = append(rows, r)
		mustExec(t, conn, "INSERT INTO "+qualified+" VALUES ($1, $2, $3, $4, $5, $6, $7)", args...)
	}
	remoteSession(t, conn)

	idRef := &nodes.ColumnRef{Index: 0, T: types.Int4T}
	// check runs the scan with where and compares the ids it returns with
	// the rows for which keep is true.
	check := func(t *testing.T, where nodes.Expr, keep func(row) bool) {
		t.Helper()
		s := remote.Select{Schema: schema, Table: table, Columns: []string{"id"}, AllCols: cols,
			Where: []nodes.Expr{where}, OrderBy: []nodes.SortKey{{Expr: idRef}}}
		sql, err := s.SQL()
		if err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for _, r := range rows {
			if keep(r) {
				want = append(want, strconv.Itoa(r.id))
			}
		}
		for _, r := range queryText(t, conn, sql) {
			got = append(got, r[0])
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s\n got ids %v\nwant ids %v", sql, got, want)
		}
	}

	for _, c := range textCols {
		col := &nodes.ColumnRef{Index: c, T: types.TextT}
		value := func(r row) (string, bool) {
			if p := r.text[c]; p != nil {
				return *p, true
			}
			return "", false
		}
		t.Run(cols[c], func(t *testing.T) {
			for _, s := range trickyStrings {
				check(t, op("=", col, text(s)), func(r row) bool { v, ok := value(r); return ok && v == s })
				check(t, op("~~", col, text(likeEscape(s)+"%")), func(r row) bool {
					v, ok := value(r)
					return ok && strings.HasPrefix(v, s)
				})
				check(t, op("!~~", col, text("%"+likeEscape(s)+"%")), func(r row) bool {
					v, ok := value(r)
					return ok && !strings.Contains(v, s)
				})
				if isASCII(s) {
					check(t, op("~~*", col, text(strings.ToUpper(likeEscape(s))+"%")), func(r row) bool {
						v, ok := value(r)
						return ok && strings.HasPrefix(asciiLower(v), asciiLower(s))
					})
				}
				check(t, op(">", fn("strpos", types.Int4T, col, text(s)), int4(0)), func(r row) bool {
					v, ok := value(r)
					return ok && strings.Contains(v, s)
				})
				check(t, op("=", fn("length", types.Int4T, col), int4(int64(utf8.RuneCountInString(s)))), func(r row) bool {
					v, ok := value(r)
					return ok && utf8.RuneCountInString(v) == utf8.RuneCountInString(s)
				})
				check(t, &nodes.DistinctExpr{Left: col, Right: text(s)}, func(r row) bool { v, ok := value(r); return !ok || v != s })
				check(t, &nodes.NullTest{Arg: &nodes.NullIfExpr{Left: col, Right: text(s), T: types.TextT}}, func(r row) bool {
					v, ok := value(r)
					return !ok || v == s
				})
				check(t, op("=", &nodes.MinMaxExpr{Greatest: true, Args: []nodes.Expr{col, text(s)}, T: types.TextT}, col), func(r row) bool {
					v, ok := value(r)
					return ok && v >= s
				})
				check(t, op("=", &nodes.CoalesceExpr{Args: []nodes.Expr{col, text(s)}, T: types.TextT}, text(s)), func(r row) bool {
					v, ok := value(r)
					return !ok || v == s
				})
				check(t, op("=", op("||", col, text(s)), op("||", text(s), col)), func(r row) bool {
					v, ok := value(r)
					return ok && v+s == s+v
				})
				check(t, &nodes.CaseExpr{Whens: []nodes.CaseWhen{{Cond: op("=", col, text(s)), Result: &nodes.Const{T: types.BoolT, Value: true}}},
					Else: &nodes.Const{T: types.BoolT, Value: false}, T: types.BoolT}, func(r row) bool { v, ok := value(r); return ok && v == s })
			}

			// IN over every string, then NOT IN over every other one.
			var list, odd []nodes.Expr
			for i, s := range trickyStrings {
				list = append(list, text(s))
				if i%2 == 1 {
					odd = append(odd, text(s))
				}
			}
			check(t, &nodes.InList{Arg: col, List: list}, func(r row) bool { _, ok := value(r); return ok })
			check(t, &nodes.InList{Arg: col, List: odd, Not: true}, func(r row) bool {
				v, ok := value(r)
				return ok && slices.Index(trickyStrings, v)%2 == 0
			})
			// An ARRAY[...] list (not all constants).
			check(t, &nodes.InList{Arg: text(trickyStrings[1]), List: []nodes.Expr{col, text("no such")}}, func(r row) bool {
				v, ok := value(r)
				return ok && v == trickyStrings[1]
			})
		})
	}

	t.Run("aggregates", func(t *testing.T) {
		group := &nodes.ColumnRef{Index: len(cols) - 1, T: types.Int4T}
		weird := &nodes.ColumnRef{Index: 3, T: types.TextT}
		s := remote.Select{Schema: schema, Table: table, AllCols: cols,
			GroupBy: []nodes.Expr{group},
			Aggs: []*nodes.AggCall{
				{Name: "count", Star: true, T: types.Int8T},
				{Name: "count", Args: []nodes.Expr{weird}, Distinct: true, T: types.Int8T},
				{Name: "sum", Args: []nodes.Expr{idRef}, T: types.Int8T},
				{Name: "string_agg", Args: []nodes.Expr{weird, text(`,\'`)}, OrderBy: []nodes.SortKey{{Expr: weird, Desc: true}}, T: types.TextT},
				{Name: "max", Args: []nodes.Expr{weird}, Filter: op("<>", weird, text("日本語")), T: types.TextT},
			},
			OrderBy: []nodes.SortKey{{Expr: group, Desc: true}},
		}
		sql, err := s.SQL()
		if err != nil {
			t.Fatal(err)
		}
		var want [][]string
		for g := 2; g >= 0; g-- {
			count, sum := 0, 0
			var vals []string
			for _, r := range rows {
				if r.group != g {
					continue
				}
				count++
				sum += r.id
				if p := r.text[3]; p != nil {
					vals = append(vals, *p)
				}
			}
			slices.Sort(vals)
			slices.Reverse(vals)
			maxVal := "<NULL>"
			for _, v := range vals {
				if v != "日本語" && (maxVal == "<NULL>" || v > maxVal) {
					maxVal = v
				}
			}
			want = append(want, []string{strconv.Itoa(g), strconv.Itoa(count), strconv.Itoa(len(slices.Compact(slices.Clone(vals)))),
				strconv.Itoa(sum), strings.Join(vals, `,\'`), maxVal})
		}
		if got := queryText(t, conn, sql); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s\n got %q\nwant %q", sql, got, want)
		}
	})
}

// TestDeparseRoundTripLiterals checks that every type's constants read
// back remotely as the same value and type, both as Literal and in an
// expression (where some are written without a type label).
func TestDeparseRoundTripLiterals(t *testing.T) {
	conn := deparseConn(t)
	remoteSession(t, conn)
	values := []struct {
		t  types.T
		in []string
	}{
		{types.BoolT, []string{"t", "f"}},
		{types.Int2T, []string{"0", "-1", "32767", "-32768"}},
		{types.Int4T, []string{"0", "42", "-1", "2147483647", "-2147483648"}},
		{types.Int8T, []string{"0", "-1", "9223372036854775807", "-9223372036854775808"}},
		{types.Float4T, []string{"0", "-0", "1.1", "-2.5", "3.4028235e+38", "1e-45", "1.17549435e-38", "123456.7", "NaN", "Infinity", "-Infinity"}},
		{types.Float8T, []string{"0", "-0", "0.1", "-1.5", "1e+300", "-1e-300", "5e-324", "1.7976931348623157e+308", "123456789012345.6", "NaN", "Infinity", "-Infinity"}},
		{types.NumericT, []string{"0", "1.50", "-0.001", "10", "-10", "123456789012345678901234567890.123456789", "0.00000000000000000001", "1e20", "NaN"}},
		{types.T{ID: types.Numeric, Len: -1, Precision: 10, Scale: 2}, []string{"1.5", "-12345678.9"}},
		{types.TextT, append([]string{}, trickyStrings...)},
		{types.VarcharT, []string{"x", "it's", `a\b`}},
		{types.T{ID: types.Varchar, Len: 5}, []string{"abc", "ünïcö"}},
		{types.BpcharT, []string{"ab", "ab  "}},
		{types.T{ID: types.Bpchar, Len: 3}, []string{"a", "abc"}},
		{types.DateT, []string{"2024-01-01", "0001-01-01", "0044-03-15 BC", "4713-11-24 BC", "5874897-12-31", "infinity", "-infinity"}},
		{types.TimestampT, []string{"2024-01-01 00:00:00", "2024-02-29 23:59:59.999999", "0044-03-15 12:00:00 BC", "infinity", "-infinity"}},
		{types.TimestampTZT, []string{"2024-01-01 00:00:00+00", "2024-06-30 12:34:56.5-07", "1900-01-01 00:00:00+00", "infinity", "-infinity"}},
	}
	infinities := []string{"Infinity", "-Infinity"}
	if _, err := types.Parse(types.NumericT, "Infinity"); err == nil {
		values = append(values, struct {
			t  types.T
			in []string
		}{types.NumericT, infinities})
	}
	d := &remote.Deparser{}
	for _, tv := range values {
		for _, in := range append(tv.in, "NULL") {
			var v any
			want := "<NULL>"
			if in != "NULL" {
				v = val(t, tv.t, in)
				want = types.Format(tv.t, v)
			}
			lit := remote.Literal(tv.t, v)
			inExpr, err := d.Expr(&nodes.Const{T: tv.t, Value: v})
			if err != nil {
				t.Fatal(err)
			}
			for _, sql := range []string{lit, inExpr} {
				got := queryText(t, conn, "SELECT "+sql+", pg_typeof("+sql+")::oid")
				if got[0][0] != want || got[0][1] != strconv.FormatUint(uint64(tv.t.OID()), 10) {
					t.Errorf("SELECT %s = %q (type oid %s), want %q (type oid %d)", sql, got[0][0], got[0][1], want, tv.t.OID())
				}
			}
		}
	}
}

// TestDeparseRoundTripTypedColumns compares a column of every type with
// constants of its type, as pushed-down quals do.
func TestDeparseRoundTripTypedColumns(t *testing.T) {
	conn := deparseConn(t)
	columns := []struct {
		name string
		t    types.T
		in   string
	}{
		{"Bool", types.BoolT, "t"},
		{"small", types.Int2T, "-32768"},
		{"int", types.Int4T, "-2147483648"},
		{"big", types.Int8T, "-9223372036854775808"},
		{"real", types.Float4T, "1.1"},
		{"double", types.Float8T, "-0.1"},
		{"nan", types.Float8T, "NaN"},
		{"num", types.NumericT, "-1.50"},
		{"num102", types.T{ID: types.Numeric, Len: -1, Precision: 10, Scale: 2}, "12.34"},
		{"txt", types.TextT, "it's a\\b\n%_"},
		{"vc", types.T{ID: types.Varchar, Len: 5}, "ünï'\\"},
		{"ch", types.T{ID: types.Bpchar, Len: 4}, "ab"},
		{"date", types.DateT, "2024-02-29"},
		{"ts", types.TimestampT, "2024-02-29 01:02:03.456789"},
		{"tstz", types.TimestampTZT, "2024-02-29 01:02:03.456789+00"},
	}
	var defs, names, inputs []string
	var args []any
	for i, c := range columns {
		defs = append(defs, pgx.Identifier{c.name}.Sanitize()+" "+c.t.String())
		names = append(names, c.name)
		inputs = append(inputs, fmt.Sprintf("$%d::text::%s", i+1, c.t))
		args = append(args, c.in)
	}
	mustExec(t, conn, "CREATE TABLE public.typed ("+strings.Join(defs, ", ")+")")
	mustExec(t, conn, "INSERT INTO public.typed SELECT "+strings.Join(inputs, ", "), args...)
	mustExec(t, conn, "INSERT INTO public.typed DEFAULT VALUES")
	remoteSession(t, conn)

	for i, c := range columns {
		col := &nodes.ColumnRef{Index: i, T: c.t}
		k := konst(t, c.t, c.in)
		for _, where := range []nodes.Expr{
			op("=", col, k),
			&nodes.InList{Arg: col, List: []nodes.Expr{k, k}},
			not(&nodes.DistinctExpr{Left: col, Right: k}),
		} {
			s := remote.Select{Schema: "public", Table: "typed", Columns: []string{c.name}, AllCols: names, Where: []nodes.Expr{where}}
			sql, err := s.SQL()
			if err != nil {
				t.Fatal(err)
			}
			got := queryText(t, conn, sql)
			if want := types.Format(c.t, k.Value); len(got) != 1 || got[0][0] != want {
				t.Errorf("%s\n got %q, want one row %q", sql, got, want)
			}
		}
	}

	// Expressions over the columns, evaluated remotely as grouping keys.
	column := func(name string) *nodes.ColumnRef {
		i := slices.Index(names, name)
		return &nodes.ColumnRef{Index: i, T: columns[i].t}
	}
	exprs := []struct {
		e    nodes.Expr
		want string
	}{
		{fn("extract", types.NumericT, text("year"), column("date")), "2024"},
		{fn("extract", types.NumericT, text("microseconds"), column("ts")), "3456789"},
		{fn("date_part", types.Float8T, text("day"), column("ts")), "29"},
		{fn("date_trunc", types.TimestampT, text("month"), column("ts")), "2024-02-01 00:00:00"},
		{fn("substring", types.TextT, column("txt"), int4(1), int4(4)), "it's"},
		{fn("substr", types.TextT, column("vc"), int4(4)), `'\`},
		{fn("strpos", types.Int4T, column("txt"), text(`\`)), "7"},
		{fn("like_escape", types.TextT, text("a#%"), text("#")), `a\%`},
		{fn("round", types.NumericT, column("num"), int4(1)), "-1.5"},
		{fn("abs", types.Int8T, op("+", column("big"), &nodes.Const{T: types.Int8T, Value: int64(1)})), "9223372036854775807"},
		{fn("length", types.Int4T, column("ch")), "2"},
		{op("-", nil, cast(column("small"), types.Int4T, false)), "32768"},
		{op("*", cast(column("real"), types.Float8T, false), &nodes.Const{T: types.Float8T, Value: 1.0}), "1.100000023841858"},
		{cast(column("ts"), types.DateT, true), "2024-02-29"},
		{cast(column("date"), types.TimestampT, false), "2024-02-29 00:00:00"},
		{op("-", column("date"), int4(-1)), "2024-03-01"},
		{op("-", column("date"), konst(t, types.DateT, "2024-01-01")), "59"},
		{cast(column("num"), types.T{ID: types.Numeric, Len: -1, Precision: 5, Scale: 0}, true), "-2"},
		{cast(column("txt"), types.T{ID: types.Varchar, Len: 2}, true), "it"},
		{op("||", cast(column("ch"), types.TextT, false), text("|")), "ab|"},
		{op("||", column("ch"), cast(column("int"), types.TextT, false)), "ab-2147483648"},
		{cast(column("Bool"), types.TextT, true), "true"},
		{&nodes.MinMaxExpr{Args: []nodes.Expr{column("double"), &nodes.Const{T: types.Float8T, Value: math.Inf(-1)}}, T: types.Float8T}, "-Infinity"},
		{&nodes.CaseExpr{Whens: []nodes.CaseWhen{{Cond: column("Bool"), Result: column("vc")}}, T: types.VarcharT}, `ünï'\`},
	}
	for _, x := range exprs {
		s := remote.Select{Schema: "public", Table: "typed", AllCols: names, GroupBy: []nodes.Expr{x.e},
			Where: []nodes.Expr{&nodes.NullTest{Arg: column("int"), IsNot: true}}}
		sql, err := s.SQL()
		if err != nil {
			t.Fatal(err)
		}
		if got := queryText(t, conn, sql); len(got) != 1 || got[0][0] != x.want {
			t.Errorf("%s\n got %q, want %q", sql, got, x.want)
		}
	}
}

// TestDeparseKeywords checks QuoteIdent against the server's keyword list
// and uses every keyword as a column name.
func TestDeparseKeywords(t *testing.T) {
	conn := deparseConn(t)
	kw := queryText(t, conn, "SELECT word, catcode FROM pg_get_keywords() ORDER BY word")
	if len(kw) < 400 {
		t.Fatalf("pg_get_keywords() returned %d rows", len(kw))
	}
	var words, defs []string
	for _, r := range kw {
		word, cat := r[0], r[1]
		quoted := remote.QuoteIdent(word) != word
		if quoted != (cat != "U") {
			t.Errorf("QuoteIdent(%q) = %s for a keyword of category %s", word, remote.QuoteIdent(word), cat)
		}
		words = append(words, word)
		defs = append(defs, pgx.Identifier{word}.Sanitize()+" integer")
	}
	mustExec(t, conn, `CREATE TABLE public."Keyword Table" (`+strings.Join(defs, ", ")+")")
	mustExec(t, conn, `INSERT INTO public."Keyword Table" DEFAULT VALUES`)
	remoteSession(t, conn)

	var where []nodes.Expr
	var order []nodes.SortKey
	for i := range words {
		col := &nodes.ColumnRef{Index: i, T: types.Int4T}
		where = append(where, &nodes.NullTest{Arg: op("+", col, int4(1))})
		order = append(order, nodes.SortKey{Expr: col, Desc: i%2 == 0})
	}
	s := remote.Select{Schema: "public", Table: "Keyword Table", Columns: words, AllCols: words, Where: where, OrderBy: order,
		Limit: &nodes.Const{T: types.Int8T, Value: int64(math.MaxInt64)}}
	sql, err := s.SQL()
	if err != nil {
		t.Fatal(err)
	}
	if got := queryText(t, conn, sql); len(got) != 1 || len(got[0]) != len(words) {
		t.Errorf("%s\nreturned %d rows", sql, len(got))
	}
	agg := remote.Select{Schema: "public", Table: "Keyword Table", AllCols: words,
		GroupBy: []nodes.Expr{&nodes.ColumnRef{Index: slices.Index(words, "select"), T: types.Int4T}},
		Aggs:    []*nodes.AggCall{{Name: "count", Args: []nodes.Expr{&nodes.ColumnRef{Index: slices.Index(words, "from"), T: types.Int4T}}, T: types.Int8T}}}
	sql, err = agg.SQL()
	if err != nil {
		t.Fatal(err)
	}
	if got := queryText(t, conn, sql); !slices.EqualFunc(got, [][]string{{"<NULL>", "0"}}, slices.Equal) {
		t.Errorf("%s\n got %q", sql, got)
	}
}

// TestDeparseVolatilityMatchesCatalog checks Shippable's view of casts,
// functions and operators against the volatility PostgreSQL's catalog
// gives them: immutable ones are shippable, stable and volatile ones not.
func TestDeparseVolatilityMatchesCatalog(t *testing.T) {
	conn := deparseConn(t)
	ctx := context.Background()
	volatility := func(sql string, args ...any) string {
		t.Helper()
		var v *string
		if err := conn.QueryRow(ctx, sql, args...).Scan(&v); err != nil {
			t.Fatalf("%s %v: %v", sql, args, err)
		}
		if v == nil {
			return ""
		}
		return *v
	}

	all := []types.T{types.BoolT, types.Int2T, types.Int4T, types.Int8T, types.Float4T, types.Float8T, types.NumericT,
		types.TextT, types.VarcharT, types.BpcharT, types.DateT, types.TimestampT, types.TimestampTZT}
	for _, from := range all {
		for _, to := range all {
			if from.ID == to.ID || !types.CanCast(from, to, types.CastExplicit) {
				continue
			}
			// A pg_cast function or binary coercion, else an I/O
			// conversion through the source's output and the target's
			// input function, which is as volatile as the worse of them.
			v := volatility(`SELECT (SELECT CASE c.castmethod WHEN 'b' THEN 'i' ELSE p.provolatile::text END
				FROM pg_cast c LEFT JOIN pg_proc p ON p.oid = c.castfunc WHERE c.castsource = $1 AND c.casttarget = $2)`,
				from.OID(), to.OID())
			if v == "" {
				v = volatility(`SELECT max(p.provolatile::text) FROM pg_proc p
					WHERE p.oid IN ((SELECT typoutput FROM pg_type WHERE oid = $1), (SELECT typinput FROM pg_type WHERE oid = $2))`,
					from.OID(), to.OID())
			}
			e := &nodes.Cast{Arg: &nodes.ColumnRef{T: from}, T: to, Explicit: true}
			if got, want := remote.Shippable(e), v == "i"; got != want {
				t.Errorf("Shippable(cast %s to %s) = %v, catalog volatility %q", from, to, got, v)
			}
		}
	}

	// The functions pgfed's planner resolves, with their signatures.
	funcs := []struct {
		name string
		args []types.T
	}{
		{"abs", []types.T{types.Int4T}}, {"abs", []types.T{types.Float8T}}, {"abs", []types.T{types.NumericT}},
		{"round", []types.T{types.Float8T}}, {"round", []types.T{types.NumericT, types.Int4T}},
		{"trunc", []types.T{types.NumericT, types.Int4T}}, {"floor", []types.T{types.NumericT}},
		{"ceil", []types.T{types.Float8T}}, {"mod", []types.T{types.Int8T, types.Int8T}},
		{"power", []types.T{types.NumericT, types.NumericT}}, {"sqrt", []types.T{types.Float8T}},
		{"lower", []types.T{types.TextT}}, {"upper", []types.T{types.TextT}}, {"length", []types.T{types.BpcharT}},
		{"char_length", []types.T{types.TextT}}, {"character_length", []types.T{types.TextT}},
		{"octet_length", []types.T{types.TextT}}, {"substr", []types.T{types.TextT, types.Int4T, types.Int4T}},
		{"substring", []types.T{types.TextT, types.Int4T}}, {"strpos", []types.T{types.TextT, types.TextT}},
		{"btrim", []types.T{types.TextT, types.TextT}}, {"ltrim", []types.T{types.TextT}}, {"rtrim", []types.T{types.TextT}},
		{"replace", []types.T{types.TextT, types.TextT, types.TextT}}, {"like_escape", []types.T{types.TextT, types.TextT}},
		{"concat", []types.T{types.TextT, types.TextT}},
		{"now", nil}, {"statement_timestamp", nil}, {"transaction_timestamp", nil}, {"random", nil}, {"clock_timestamp", nil},
		{"date_trunc", []types.T{types.TextT, types.TimestampT}}, {"date_trunc", []types.T{types.TextT, types.TimestampTZT}},
		{"extract", []types.T{types.TextT, types.DateT}}, {"extract", []types.T{types.TextT, types.TimestampT}},
		{"extract", []types.T{types.TextT, types.TimestampTZT}},
		{"date_part", []types.T{types.TextT, types.DateT}}, {"date_part", []types.T{types.TextT, types.TimestampT}},
		{"date_part", []types.T{types.TextT, types.TimestampTZT}},
	}
	for _, f := range funcs {
		var args []nodes.Expr
		var sig []string
		for _, a := range f.args {
			args = append(args, &nodes.ColumnRef{T: a})
			sig = append(sig, a.String())
		}
		proc := fmt.Sprintf("pg_catalog.%s(%s)", f.name, strings.Join(sig, ", "))
		if f.name == "concat" {
			proc = "pg_catalog.concat(\"any\")"
		}
		v := volatility("SELECT (SELECT provolatile::text FROM pg_proc WHERE oid = to_regprocedure($1))", proc)
		if v == "" {
			t.Errorf("no function %s", proc)
			continue
		}
		if got, want := remote.Shippable(fn(f.name, types.TextT, args...)), v == "i"; got != want {
			t.Errorf("Shippable(%s) = %v, catalog volatility %q", proc, got, v)
		}
	}

	// Every operator Shippable accepts is immutable on the operand types
	// the planner gives it (both sides of one type, date arithmetic).
	operands := [][2]types.T{{types.DateT, types.Int4T}, {types.Int4T, types.DateT}}
	for _, t := range all {
		operands = append(operands, [2]types.T{t, t})
	}
	for _, o := range []string{"+", "-", "*", "/", "%", "=", "<>", "<", "<=", ">", ">=", "||", "~~", "!~~", "~~*", "!~~*"} {
		for _, pair := range operands {
			v := volatility(`SELECT (SELECT p.provolatile::text FROM pg_operator o JOIN pg_proc p ON p.oid = o.oprcode
				WHERE o.oprname = $1 AND o.oprleft = $2 AND o.oprright = $3)`, o, pair[0].OID(), pair[1].OID())
			if v != "" && v != "i" {
				t.Errorf("operator %s %s %s has volatility %q", pair[0], o, pair[1], v)
			}
		}
	}
	for _, numeric := range []types.T{types.Int2T, types.Int4T, types.Int8T, types.Float4T, types.Float8T, types.NumericT} {
		for _, o := range []string{"-", "+"} {
			v := volatility(`SELECT (SELECT p.provolatile::text FROM pg_operator o JOIN pg_proc p ON p.oid = o.oprcode
				WHERE o.oprname = $1 AND o.oprleft = 0 AND o.oprright = $2)`, o, numeric.OID())
			if v != "i" {
				t.Errorf("prefix operator %s %s has volatility %q", o, numeric, v)
			}
		}
	}
}

// TestBindParams: Params print as marks that BindParams numbers $1, $2
// ... by first appearance, one number per Param however often it is
// used; Shippable refuses Params (only a scan's WHERE binds them), and
// ShippableWithParams takes them.
func TestBindParams(t *testing.T) {
	p5 := &nodes.Param{ID: 5, T: types.Int4T}
	p2 := &nodes.Param{ID: 2, T: types.TextT}
	col := &nodes.ColumnRef{Index: 0, T: types.Int4T}
	txt := &nodes.ColumnRef{Index: 1, T: types.TextT}
	where := []nodes.Expr{
		&nodes.OpExpr{Op: "=", Left: col, Right: p5, T: types.BoolT},
		&nodes.OpExpr{Op: "=", Left: txt, Right: p2, T: types.BoolT},
		&nodes.OpExpr{Op: "<", Left: col, Right: p5, T: types.BoolT},
	}
	for _, e := range where {
		if remote.Shippable(e) || !remote.ShippableWithParams(e) {
			t.Fatalf("%s: Shippable %v, ShippableWithParams %v", e, remote.Shippable(e), remote.ShippableWithParams(e))
		}
	}
	sel := &remote.Select{Table: "t", AllCols: []string{"a", "b"}, Columns: []string{"a"}, Where: where}
	sql, err := sel.SQL()
	if err != nil {
		t.Fatal(err)
	}
	got, ids := remote.BindParams(sql)
	want := "SELECT a FROM t WHERE ((a = $1::integer)) AND ((b = $2::text)) AND ((a < $1::integer))"
	if got != want || !slices.Equal(ids, []int{5, 2}) {
		t.Fatalf("BindParams:\n got %s %v\nwant %s [5 2]", got, ids, want)
	}
	if plain, ids := remote.BindParams("SELECT a FROM t"); plain != "SELECT a FROM t" || ids != nil {
		t.Fatalf("no params: %q %v", plain, ids)
	}
}
