package executor

// Expression kernels: integer arithmetic with PostgreSQL's overflow and
// division errors, NULL propagation, three-valued logic, lazy evaluation,
// comparisons across types, LIKE/ILIKE and integer casts.

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// evalOver evaluates e over a batch of cols and returns the result as Go
// values (see exectest.Value). The batch is sliced to rows [from, len) when
// from > 0, so that kernels also see arrays with an offset.
func evalOver(t *testing.T, e nodes.Expr, from int, cols ...exectest.Col) ([]any, error) {
	t.Helper()
	ev, err := compileExpr(e, &ExecContext{})
	if err != nil {
		t.Fatalf("compile %s: %v", e, err)
	}
	b := exectest.NewBatch(memory.DefaultAllocator, cols...)
	defer b.Release()
	if from > 0 {
		s := b.NewSlice(int64(from), b.NumRows())
		defer s.Release()
		b = s
	}
	arr, err := ev.eval(b)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	if arr.Len() != int(b.NumRows()) {
		t.Fatalf("%s: result has %d rows, batch has %d", e, arr.Len(), b.NumRows())
	}
	out := make([]any, arr.Len())
	for i := range out {
		out[i] = exectest.Value(arr, i)
	}
	return out, nil
}

// checkResult compares an evaluation with the expected values or error.
func checkResult(t *testing.T, what string, got []any, err error, want []any, code, msg string) {
	t.Helper()
	if code != "" {
		if err == nil {
			t.Errorf("%s = %v, want error %s %q", what, got, code, msg)
			return
		}
		pe, ok := pgerr.As(err)
		if !ok || pe.Code != code || pe.Message != msg {
			t.Errorf("%s: error %v (%s), want %s %q", what, err, pgerr.Code(err), code, msg)
		}
		return
	}
	if err != nil {
		t.Errorf("%s: unexpected error %v", what, err)
		return
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateNaNs()); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

// intCol makes a column of integer type t.
func intCol(t types.T, name string, vals ...any) exectest.Col {
	switch t.ID {
	case types.Int2:
		return exectest.Int16s(name, vals...)
	case types.Int4:
		return exectest.Int32s(name, vals...)
	}
	return exectest.Int64s(name, vals...)
}

var outOfRangeMsg = map[types.ID]string{
	types.Int2: "smallint out of range",
	types.Int4: "integer out of range",
	types.Int8: "bigint out of range",
}

const (
	codeRange  = pgerr.NumericValueOutOfRange
	codeDivide = pgerr.DivisionByZero
)

// TestIntegerArithmetic runs each case three ways: over columns, over
// constants (EvalConst) and over columns sliced out of a larger batch.
func TestIntegerArithmetic(t *testing.T) {
	const (
		min2, max2 = math.MinInt16, math.MaxInt16
		min4, max4 = math.MinInt32, math.MaxInt32
		min8, max8 = math.MinInt64, math.MaxInt64
	)
	i2, i4, i8 := types.Int2T, types.Int4T, types.Int8T
	tests := []struct {
		t    types.T
		op   string
		a, b any // nil = NULL
		want any
		code string
	}{
		// smallint
		{i2, "+", max2 - 1, 1, int64(max2), ""},
		{i2, "+", max2, 1, nil, codeRange},
		{i2, "+", min2, -1, nil, codeRange},
		{i2, "-", min2, 1, nil, codeRange},
		{i2, "-", 0, min2, nil, codeRange},
		{i2, "-", -1, max2, int64(min2), ""},
		{i2, "*", 181, 181, int64(32761), ""},
		{i2, "*", 182, 182, nil, codeRange},
		{i2, "*", min2, -1, nil, codeRange},
		{i2, "/", min2, -1, nil, codeRange},
		{i2, "/", -7, 2, int64(-3), ""},
		{i2, "/", 7, 0, nil, codeDivide},
		{i2, "%", min2, -1, int64(0), ""},
		{i2, "%", -7, 2, int64(-1), ""},
		{i2, "%", 7, -2, int64(1), ""},
		{i2, "%", 7, 0, nil, codeDivide},
		// integer
		{i4, "+", max4, 1, nil, codeRange},
		{i4, "+", min4, min4, nil, codeRange},
		{i4, "+", max4, min4, int64(-1), ""},
		{i4, "-", min4, 1, nil, codeRange},
		{i4, "-", max4, -1, nil, codeRange},
		{i4, "*", 65536, 32768, nil, codeRange},
		{i4, "*", -65536, 32768, int64(min4), ""},
		{i4, "*", min4, -1, nil, codeRange},
		{i4, "/", min4, -1, nil, codeRange},
		{i4, "/", min4, 1, int64(min4), ""},
		{i4, "/", 1, 0, nil, codeDivide},
		{i4, "%", min4, -1, int64(0), ""},
		{i4, "%", 0, 0, nil, codeDivide},
		// bigint
		{i8, "+", int64(max8), 1, nil, codeRange},
		{i8, "+", int64(min8), -1, nil, codeRange},
		{i8, "+", int64(max8), int64(min8), int64(-1), ""},
		{i8, "-", int64(min8), 1, nil, codeRange},
		{i8, "-", 0, int64(min8), nil, codeRange},
		{i8, "-", -1, int64(max8), int64(min8), ""},
		{i8, "*", int64(3037000499), int64(3037000499), int64(9223372030926249001), ""},
		{i8, "*", int64(3037000500), int64(3037000500), nil, codeRange},
		{i8, "*", int64(1) << 62, 2, nil, codeRange},
		{i8, "*", int64(1) << 62, -2, int64(min8), ""},
		{i8, "*", int64(min8), -1, nil, codeRange},
		{i8, "*", -1, int64(min8), nil, codeRange},
		{i8, "*", 0, int64(min8), int64(0), ""},
		{i8, "/", int64(min8), -1, nil, codeRange},
		{i8, "/", int64(max8), -1, int64(-max8), ""},
		{i8, "/", 5, 0, nil, codeDivide},
		{i8, "%", int64(min8), -1, int64(0), ""},
		{i8, "%", 5, 0, nil, codeDivide},
		// NULL in, NULL out; a NULL operand never raises.
		{i2, "+", nil, 1, nil, ""},
		{i4, "-", 1, nil, nil, ""},
		{i8, "*", nil, nil, nil, ""},
		{i2, "/", nil, 0, nil, ""},
		{i4, "/", max4, nil, nil, ""},
		{i8, "%", nil, 0, nil, ""},
		{i8, "+", int64(max8), nil, nil, ""},
	}
	for _, tt := range tests {
		e := op(tt.op, col(0, tt.t), col(1, tt.t), tt.t)
		name := tt.t.String() + " " + formatArg(tt.a) + " " + tt.op + " " + formatArg(tt.b)
		t.Run(name, func(t *testing.T) {
			msg := outOfRangeMsg[tt.t.ID]
			if tt.code == codeDivide {
				msg = "division by zero"
			}
			got, err := evalOver(t, e, 0, intCol(tt.t, "a", tt.a), intCol(tt.t, "b", tt.b))
			checkResult(t, "columns", got, err, []any{tt.want}, tt.code, msg)

			d, err := EvalConst(op(tt.op, lit(constInt(tt.a), tt.t), lit(constInt(tt.b), tt.t), tt.t), &ExecContext{})
			checkResult(t, "constants", []any{d}, err, []any{tt.want}, tt.code, msg)

			// The same row after two harmless rows, read through a slice.
			got, err = evalOver(t, e, 2, intCol(tt.t, "a", 1, nil, tt.a), intCol(tt.t, "b", 1, nil, tt.b))
			checkResult(t, "sliced columns", got, err, []any{tt.want}, tt.code, msg)
		})
	}
}

// constInt converts a test value to a Const's datum (int64 or nil).
func constInt(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case int:
		return int64(x)
	}
	return v
}

func formatArg(v any) string {
	if v == nil {
		return "NULL"
	}
	return types.Format(types.Int8T, constInt(v))
}

// TestUnaryMinus negates the most negative value of each integer type.
func TestUnaryMinus(t *testing.T) {
	tests := []struct {
		t    types.T
		v    any
		want any
		code string
	}{
		{types.Int2T, math.MinInt16, nil, codeRange},
		{types.Int2T, math.MaxInt16, int64(-math.MaxInt16), ""},
		{types.Int4T, math.MinInt32, nil, codeRange},
		{types.Int4T, math.MaxInt32, int64(-math.MaxInt32), ""},
		{types.Int8T, int64(math.MinInt64), nil, codeRange},
		{types.Int8T, int64(math.MaxInt64), int64(-math.MaxInt64), ""},
		{types.Int8T, nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.t.String()+" "+formatArg(tt.v), func(t *testing.T) {
			e := &nodes.OpExpr{Op: "-", Right: col(0, tt.t), T: tt.t}
			got, err := evalOver(t, e, 0, intCol(tt.t, "a", tt.v))
			checkResult(t, "-a", got, err, []any{tt.want}, tt.code, outOfRangeMsg[tt.t.ID])
		})
	}
}

// TestNullRowsNeverRaise: the values under NULL slots are undefined (0
// here), so a kernel must skip them rather than divide by them.
func TestNullRowsNeverRaise(t *testing.T) {
	for _, name := range []string{"/", "%"} {
		for _, typ := range []types.T{types.Int2T, types.Int4T, types.Int8T} {
			t.Run(typ.String()+" "+name, func(t *testing.T) {
				e := op(name, col(0, typ), col(1, typ), typ)
				got, err := evalOver(t, e, 0, intCol(typ, "a", 6, 7, nil, 9), intCol(typ, "b", 3, nil, 0, 3))
				want := []any{int64(2), nil, nil, int64(3)}
				if name == "%" {
					want = []any{int64(0), nil, nil, int64(0)}
				}
				checkResult(t, "a "+name+" b", got, err, want, "", "")
			})
		}
	}
}

// TestThreeValuedLogic checks AND, OR and NOT over every combination of
// true, false and NULL.
func TestThreeValuedLogic(t *testing.T) {
	T, F := true, false
	a := exectest.Bools("a", T, T, T, F, F, F, nil, nil, nil)
	b := exectest.Bools("b", T, F, nil, T, F, nil, T, F, nil)
	boolCol := func(i int) nodes.Expr { return col(i, types.BoolT) }
	tests := []struct {
		name string
		e    nodes.Expr
		want []any
	}{
		{"a AND b", &nodes.BoolExpr{Op: nodes.And, Args: []nodes.Expr{boolCol(0), boolCol(1)}},
			[]any{T, F, nil, F, F, F, nil, F, nil}},
		{"a OR b", &nodes.BoolExpr{Op: nodes.Or, Args: []nodes.Expr{boolCol(0), boolCol(1)}},
			[]any{T, T, T, T, F, nil, T, nil, nil}},
		{"NOT a", &nodes.BoolExpr{Op: nodes.Not, Args: []nodes.Expr{boolCol(0)}},
			[]any{F, F, F, T, T, T, nil, nil, nil}},
		{"NOT (a AND b)", &nodes.BoolExpr{Op: nodes.Not, Args: []nodes.Expr{
			&nodes.BoolExpr{Op: nodes.And, Args: []nodes.Expr{boolCol(0), boolCol(1)}}}},
			[]any{F, T, nil, T, T, T, nil, T, nil}},
		{"a AND b AND a", &nodes.BoolExpr{Op: nodes.And, Args: []nodes.Expr{boolCol(0), boolCol(1), boolCol(0)}},
			[]any{T, F, nil, F, F, F, nil, F, nil}},
		{"a OR b OR NULL", &nodes.BoolExpr{Op: nodes.Or, Args: []nodes.Expr{boolCol(0), boolCol(1), lit(nil, types.BoolT)}},
			[]any{T, T, T, T, nil, nil, T, nil, nil}},
		{"a IS NULL", &nodes.NullTest{Arg: boolCol(0)},
			[]any{F, F, F, F, F, F, T, T, T}},
		{"b IS NOT NULL", &nodes.NullTest{Arg: boolCol(1), IsNot: true},
			[]any{T, T, F, T, T, F, T, T, F}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := evalOver(t, tt.e, 0, a, b)
			checkResult(t, tt.name, got, err, tt.want, "", "")
			// NOT reads the value bitmap directly: check it at an offset.
			got, err = evalOver(t, tt.e, 3, a, b)
			checkResult(t, tt.name+" (sliced)", got, err, tt.want[3:], "", "")
		})
	}
}

// TestLazyEvaluation: CASE, AND, OR and COALESCE evaluate an argument
// only on the rows that need it, so guarded divisions do not raise.
func TestLazyEvaluation(t *testing.T) {
	i8 := types.Int8T
	a, b, c := col(0, i8), col(1, i8), col(2, i8)
	div := op("/", a, b, i8)
	zero := int8Lit(0)
	cols := []exectest.Col{
		exectest.Int64s("a", 1, 4, 9, nil),
		exectest.Int64s("b", 0, 2, 0, 0),
		exectest.Int64s("c", 5, nil, 7, nil),
	}
	tests := []struct {
		name string
		e    nodes.Expr
		want []any
		code string
	}{
		{
			name: "CASE WHEN b = 0 THEN 0 ELSE a / b END",
			e:    &nodes.CaseExpr{Whens: []nodes.CaseWhen{{Cond: cmpOp("=", b, zero), Result: zero}}, Else: div, T: i8},
			want: []any{int64(0), int64(2), int64(0), int64(0)},
		},
		{
			name: "CASE WHEN b = 0 THEN 0 WHEN a / b > 1 THEN 1 ELSE 2 END",
			e: &nodes.CaseExpr{Whens: []nodes.CaseWhen{
				{Cond: cmpOp("=", b, zero), Result: zero},
				{Cond: cmpOp(">", div, int8Lit(1)), Result: int8Lit(1)},
			}, Else: int8Lit(2), T: i8},
			want: []any{int64(0), int64(1), int64(0), int64(0)},
		},
		{
			name: "CASE WHEN b <> 0 THEN a / b END",
			e:    &nodes.CaseExpr{Whens: []nodes.CaseWhen{{Cond: cmpOp("<>", b, zero), Result: div}}, T: i8},
			want: []any{nil, int64(2), nil, nil},
		},
		{
			name: "b <> 0 AND a / b > 1",
			e:    &nodes.BoolExpr{Op: nodes.And, Args: []nodes.Expr{cmpOp("<>", b, zero), cmpOp(">", div, int8Lit(1))}},
			want: []any{false, true, false, false},
		},
		{
			name: "b = 0 OR a / b > 5",
			e:    &nodes.BoolExpr{Op: nodes.Or, Args: []nodes.Expr{cmpOp("=", b, zero), cmpOp(">", div, int8Lit(5))}},
			want: []any{true, false, true, true},
		},
		{
			name: "COALESCE(c, a / b)",
			e:    &nodes.CoalesceExpr{Args: []nodes.Expr{c, div}, T: i8},
			want: []any{int64(5), int64(2), int64(7), nil},
		},
		{
			// The control: unguarded, the same division raises (row 1).
			name: "a / b",
			e:    div,
			code: codeDivide,
		},
		{
			// A guard that does not exclude the rows where b = 0 (rows 0
			// and 2) still raises.
			name: "a IS NOT NULL AND a / b > 0",
			e:    &nodes.BoolExpr{Op: nodes.And, Args: []nodes.Expr{&nodes.NullTest{Arg: a, IsNot: true}, cmpOp(">", div, zero)}},
			code: codeDivide,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := evalOver(t, tt.e, 0, cols...)
			checkResult(t, tt.name, got, err, tt.want, tt.code, "division by zero")
		})
	}
}

// TestComparisons runs = <> < <= > >= over each type with rows whose
// left operand is less than, equal to and greater than the right, then a
// NULL on either side.
func TestComparisons(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name string
		t    types.T
		mk   func(name string, vals ...any) exectest.Col
		l, r []any // less, equal, greater, NULL left, NULL right
	}{
		{"smallint", types.Int2T, exectest.Int16s, []any{-1, 2, 3, nil, 1}, []any{2, 2, -3, 1, nil}},
		{"integer", types.Int4T, exectest.Int32s, []any{math.MinInt32, 7, math.MaxInt32, nil, 0}, []any{math.MaxInt32, 7, math.MinInt32, 0, nil}},
		{"bigint", types.Int8T, exectest.Int64s, []any{int64(math.MinInt64), 0, int64(math.MaxInt64), nil, 1}, []any{int64(math.MaxInt64), 0, int64(math.MinInt64), 1, nil}},
		{"real", types.Float4T, exectest.Float32s, []any{1.5, 2.0, 3.25, nil, 1.0}, []any{2.0, 2.0, 3.0, 1.0, nil}},
		{"double precision", types.Float8T, exectest.Float64s, []any{-1.0, math.Copysign(0, -1), 2.5, nil, 1.0}, []any{1.0, 0.0, -2.5, 1.0, nil}},
		// NaN equals NaN and sorts above every number, infinity included.
		{"double precision NaN", types.Float8T, exectest.Float64s, []any{inf, nan, nan, nil, nan}, []any{nan, nan, inf, nan, nil}},
		{"numeric", types.NumericT, exectest.Strings, []any{"1.5", "1.0", "10", nil, "1"}, []any{"2", "1.00", "9.99", "1", nil}},
		// Byte order (the C collation): "B" < "a".
		{"text", types.TextT, exectest.Strings, []any{"B", "abc", "b", nil, ""}, []any{"a", "abc", "a", "", nil}},
		{"character varying", types.VarcharT, exectest.Strings, []any{"", "x", "xy", nil, "x"}, []any{"x", "x", "x", "x", nil}},
		// Trailing blanks of char(n) are insignificant.
		{"character", types.BpcharT, exectest.Strings, []any{"a", "ab  ", "b", nil, "x"}, []any{"ab", "ab", "a ", "x", nil}},
		{"boolean", types.BoolT, exectest.Bools, []any{false, true, true, nil, false}, []any{true, true, false, false, nil}},
		{"date", types.DateT, exectest.Dates, []any{-1, 0, 19000, nil, 0}, []any{0, 0, 18999, 0, nil}},
		{"timestamp", types.TimestampT, exectest.Timestamps, []any{int64(-1), 1, int64(1) << 50, nil, 0}, []any{0, 1, int64(1)<<50 - 1, 0, nil}},
	}
	// want[op] is the result on the rows less, equal, greater.
	want := map[string][3]bool{
		"=":  {false, true, false},
		"<>": {true, false, true},
		"<":  {true, false, false},
		"<=": {true, true, false},
		">":  {false, false, true},
		">=": {false, true, true},
	}
	for _, tt := range tests {
		for _, name := range []string{"=", "<>", "<", "<=", ">", ">="} {
			t.Run(tt.name+" "+name, func(t *testing.T) {
				w := want[name]
				rows := []any{w[0], w[1], w[2], nil, nil}
				e := cmpOp(name, col(0, tt.t), col(1, tt.t))
				got, err := evalOver(t, e, 0, tt.mk("l", tt.l...), tt.mk("r", tt.r...))
				checkResult(t, "l "+name+" r", got, err, rows, "", "")
				got, err = evalOver(t, e, 1, tt.mk("l", tt.l...), tt.mk("r", tt.r...))
				checkResult(t, "l "+name+" r (sliced)", got, err, rows[1:], "", "")
			})
		}
	}
}

// TestLike covers LIKE, NOT LIKE, ILIKE and NOT ILIKE: % and _, escapes,
// characters beyond ASCII, ESCAPE clauses (like_escape) and NULLs.
func TestLike(t *testing.T) {
	const null = "\x00" // marks a NULL operand
	tests := []struct {
		s, p      string
		esc       *string // ESCAPE clause, if any
		like      any     // s LIKE p (NOT LIKE is its negation)
		ilike     any     // s ILIKE p (NOT ILIKE is its negation)
		code, msg string  // the error of all four operators
	}{
		{s: "abc", p: "abc", like: true, ilike: true},
		{s: "abc", p: "ABC", like: false, ilike: true},
		{s: "ABC", p: "a%", like: false, ilike: true},
		{s: "abc", p: "a%", like: true, ilike: true},
		{s: "abc", p: "%c", like: true, ilike: true},
		{s: "abc", p: "%b%", like: true, ilike: true},
		{s: "abc", p: "%d%", like: false, ilike: false},
		{s: "abc", p: "a_c", like: true, ilike: true},
		{s: "abc", p: "a__", like: true, ilike: true},
		{s: "abc", p: "a_", like: false, ilike: false},
		{s: "abc", p: "____", like: false, ilike: false},
		{s: "abc", p: "%%%", like: true, ilike: true},
		{s: "abc", p: "%_%_%_%", like: true, ilike: true},
		{s: "ab", p: "%_%_%_%", like: false, ilike: false},
		{s: "", p: "%", like: true, ilike: true},
		{s: "", p: "_", like: false, ilike: false},
		{s: "", p: "", like: true, ilike: true},
		{s: "abc", p: "", like: false, ilike: false},
		{s: "aXbXc", p: "a%b%c", like: true, ilike: true},
		{s: "mississippi", p: "%iss%ppi", like: true, ilike: true},
		// One _ is one character, not one byte.
		{s: "añb", p: "a_b", like: true, ilike: true},
		{s: "añb", p: "a__b", like: false, ilike: false},
		// Backslash escapes % _ and itself; an escaped letter is itself.
		{s: "a%c", p: `a\%c`, like: true, ilike: true},
		{s: "abc", p: `a\%c`, like: false, ilike: false},
		{s: "a_c", p: `a\_c`, like: true, ilike: true},
		{s: "abc", p: `a\_c`, like: false, ilike: false},
		{s: `a\c`, p: `a\\c`, like: true, ilike: true},
		{s: "ab", p: `a\b`, like: true, ilike: true},
		{s: "100%", p: `%\%`, like: true, ilike: true},
		{s: "100", p: `%\%`, like: false, ilike: false},
		// A trailing escape is an error only once text is left to match.
		{s: "a", p: `a\`, like: false, ilike: false},
		{s: "ab", p: `a\`, code: pgerr.InvalidEscapeSequence, msg: "LIKE pattern must not end with escape character"},
		{s: "ab", p: `%\`, code: pgerr.InvalidEscapeSequence, msg: "LIKE pattern must not end with escape character"},
		// ESCAPE clauses.
		{s: "a%", p: "a#%", esc: ptr("#"), like: true, ilike: true},
		{s: "ab", p: "a#%", esc: ptr("#"), like: false, ilike: false},
		{s: `a\b`, p: `a\b`, esc: ptr("#"), like: true, ilike: true},
		{s: "a#", p: "a##", esc: ptr("#"), like: true, ilike: true},
		{s: `a\b`, p: `a\b`, esc: ptr(""), like: true, ilike: true},
		{s: "ab", p: `a\b`, esc: ptr(""), like: false, ilike: false},
		{s: "a%", p: "a%", esc: ptr(""), like: true, ilike: true},
		{s: "ab", p: "a%", esc: ptr(""), like: true, ilike: true},
		{s: "ab", p: "a%", esc: ptr("##"), code: pgerr.InvalidEscapeSequence, msg: "invalid escape string"},
		// NULLs.
		{s: null, p: "%", like: nil, ilike: nil},
		{s: "abc", p: null, like: nil, ilike: nil},
	}
	for _, tt := range tests {
		show := func(s string) string {
			if s == null {
				return "NULL"
			}
			return "'" + s + "'"
		}
		name := show(tt.s) + " LIKE " + show(tt.p)
		if tt.esc != nil {
			name += " ESCAPE " + show(*tt.esc)
		}
		t.Run(name, func(t *testing.T) {
			text := func(i int) nodes.Expr { return col(i, types.TextT) }
			var pat nodes.Expr = text(1)
			if tt.esc != nil {
				pat = &nodes.FuncExpr{Name: "like_escape", Args: []nodes.Expr{text(1), lit(*tt.esc, types.TextT)}, T: types.TextT}
			}
			arg := func(s string) any {
				if s == null {
					return nil
				}
				return s
			}
			cols := []exectest.Col{exectest.Strings("s", arg(tt.s)), exectest.Strings("p", arg(tt.p))}
			for _, o := range []struct {
				op   string
				want any
			}{
				{"~~", tt.like}, {"!~~", not(tt.like)}, {"~~*", tt.ilike}, {"!~~*", not(tt.ilike)},
			} {
				got, err := evalOver(t, cmpOp(o.op, text(0), pat), 0, cols...)
				checkResult(t, o.op, got, err, []any{o.want}, tt.code, tt.msg)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// not negates a three-valued result.
func not(v any) any {
	if b, ok := v.(bool); ok {
		return !b
	}
	return v
}

// TestLikeOverManyRows: the compiled pattern is cached across rows;
// a pattern that changes from row to row must not reuse a stale one.
func TestLikeOverManyRows(t *testing.T) {
	e := cmpOp("~~", col(0, types.TextT), col(1, types.TextT))
	got, err := evalOver(t, e, 0,
		exectest.Strings("s", "abc", "abc", "abc", "xyz", "xyz"),
		exectest.Strings("p", "a%", "a%", "x%", "x%", nil))
	checkResult(t, "s LIKE p", got, err, []any{true, true, false, true, nil}, "", "")
}

// TestIntegerCasts: widening and integer-to-float casts (the typed
// loops) and narrowing casts (row by row, with range errors).
func TestIntegerCasts(t *testing.T) {
	tests := []struct {
		from, to types.T
		vals     []any
		want     []any
		code     string
	}{
		{types.Int2T, types.Int4T, []any{math.MinInt16, 0, nil, math.MaxInt16}, []any{int64(math.MinInt16), int64(0), nil, int64(math.MaxInt16)}, ""},
		{types.Int2T, types.Int8T, []any{math.MinInt16, nil}, []any{int64(math.MinInt16), nil}, ""},
		{types.Int4T, types.Int8T, []any{math.MinInt32, nil, math.MaxInt32}, []any{int64(math.MinInt32), nil, int64(math.MaxInt32)}, ""},
		{types.Int2T, types.Float8T, []any{-3, nil}, []any{-3.0, nil}, ""},
		{types.Int4T, types.Float8T, []any{math.MaxInt32, nil}, []any{float64(math.MaxInt32), nil}, ""},
		// 2^53 + 1 rounds to even, as C's (double) conversion does.
		{types.Int8T, types.Float8T, []any{int64(1)<<53 + 1, int64(math.MinInt64), nil}, []any{float64(1 << 53), -9.223372036854775808e18, nil}, ""},
		{types.Int4T, types.Float4T, []any{1<<24 + 1, nil, -7}, []any{float64(1 << 24), nil, -7.0}, ""},
		{types.Int8T, types.Float4T, []any{int64(math.MaxInt64)}, []any{float64(float32(math.MaxInt64))}, ""},
		{types.Int8T, types.Int4T, []any{-5, nil, int64(math.MaxInt32)}, []any{int64(-5), nil, int64(math.MaxInt32)}, ""},
		{types.Int8T, types.Int4T, []any{int64(math.MaxInt32) + 1}, nil, codeRange},
		{types.Int4T, types.Int2T, []any{math.MaxInt16 + 1}, nil, codeRange},
		{types.Int8T, types.Int2T, []any{math.MinInt16 - 1}, nil, codeRange},
	}
	for _, tt := range tests {
		t.Run(tt.from.String()+" to "+tt.to.String(), func(t *testing.T) {
			e := &nodes.Cast{Arg: col(0, tt.from), T: tt.to}
			got, err := evalOver(t, e, 0, intCol(tt.from, "a", tt.vals...))
			checkResult(t, "cast", got, err, tt.want, tt.code, outOfRangeMsg[tt.to.ID])
			if tt.code == "" {
				// Also from an array with an offset.
				vals := append([]any{nil}, tt.vals...)
				got, err := evalOver(t, e, 1, intCol(tt.from, "a", vals...))
				checkResult(t, "cast (sliced)", got, err, tt.want, "", "")
			}
		})
	}
}

// TestBinaryKernelsOnMisalignedValidity: a binary kernel intersects the
// validity bitmaps of its operands. A bitmap read from a builder-made
// array (a NULL constant, a CASE result) is padded to the builder's
// capacity, while the bitmap of a sliced array is copied to exactly the
// rows it has; andValidity then indexes the shorter one with the longer
// one's length and panics.
//
// Reproduction in SQL (any table with a NULL after the first row):
//
//	CREATE TABLE t(a int8, b int8);
//	INSERT INTO t VALUES (1,1),(NULL,2),(3,3),(4,NULL);
//	SELECT NULL::int8 + a FROM (SELECT a FROM t OFFSET 1) s;
//
// fails with XX000 "runtime error: index out of range [1] with length 1"
// in executor.andValidity (arrays.go) instead of returning four NULLs.
func TestBinaryKernelsOnMisalignedValidity(t *testing.T) {
	a := col(0, types.Int8T)
	null := lit(nil, types.Int8T)
	caseNull := &nodes.CaseExpr{Whens: []nodes.CaseWhen{{Cond: &nodes.NullTest{Arg: a}, Result: int8Lit(1)}}, T: types.Int8T}
	tests := []struct {
		name string
		e    nodes.Expr
		want []any
	}{
		{"NULL + a", op("+", null, a, types.Int8T), []any{nil, nil, nil}},
		{"NULL = a", cmpOp("=", null, a), []any{nil, nil, nil}},
		{"NULL < a", cmpOp("<", null, a), []any{nil, nil, nil}},
		{"CASE ... END * a", op("*", caseNull, a, types.Int8T), []any{nil, nil, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []any
			var err error
			if p := catchPanic(func() { got, err = evalOver(t, tt.e, 1, exectest.Int64s("a", 1, nil, 3, 4)) }); p != nil {
				t.Fatalf("panic: %v", p)
			}
			checkResult(t, tt.name, got, err, tt.want, "", "")
		})
	}
}

// catchPanic runs fn and returns what it panicked with, if anything.
func catchPanic(fn func()) (recovered any) {
	defer func() { recovered = recover() }()
	fn()
	return nil
}
