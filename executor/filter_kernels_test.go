package executor

// The typed filter kernels (filter_kernels.go) against the row-at-a-time
// paths they bypass: char(n) padding, NULLs in arguments and IN lists,
// NOT IN, constants on either side, infinite and out-of-range dates,
// three-valued AND/OR; plus which evaluator each shape compiles to, and
// benchmarks of TPC-H's scan filters.

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

var (
	char10 = types.T{ID: types.Bpchar, Len: 10}
	char25 = types.T{ID: types.Bpchar, Len: 25}
)

// filterTestBatch holds n rows of: 0 char(10), 1 text, 2 integer, 3 date,
// 4 bigint, 5 smallint, 6 timestamp, 7 boolean, each NULL now and then.
func filterTestBatch(n int, seed int64) arrow.RecordBatch {
	rng := rand.New(rand.NewSource(seed))
	strs := []string{"AIR", "AIR       ", "AIR REG   ", "AIR  ", "", "MAIL      ", "air", "AIR\t", " AIR", "SHIP"}
	ts := []types.T{char10, types.TextT, types.Int4T, types.DateT, types.Int8T, types.Int2T, types.TimestampT, types.BoolT}
	cols := make([][]any, len(ts))
	for i := 0; i < n; i++ {
		null := func() bool { return rng.Intn(7) == 0 }
		row := []any{
			strs[rng.Intn(len(strs))], strs[rng.Intn(len(strs))], int64(rng.Intn(5) - 2),
			int32(rng.Intn(5) + 9000), int64(rng.Intn(5) - 2), int64(rng.Intn(5) - 2),
			int64(rng.Intn(5)+9000) * 86400e6, rng.Intn(2) == 0,
		}
		if rng.Intn(20) == 0 {
			row[3] = []int32{types.DatePosInfinity, types.DateNegInfinity}[rng.Intn(2)]
		}
		for c := range cols {
			if null() {
				row[c] = nil
			}
			cols[c] = append(cols[c], row[c])
		}
	}
	arrs := make([]arrow.Array, len(ts))
	fields := make([]arrow.Field, len(ts))
	for c, t := range ts {
		arrs[c] = arrayOfDatums(t, cols[c])
		fields[c] = arrow.Field{Name: fmt.Sprint("c", c), Type: t.ArrowType(), Nullable: true}
	}
	return makeBatch(arrow.NewSchema(fields, nil), arrs, n)
}

// evalBoth evaluates e over b with the typed kernels and without them.
func evalBoth(t *testing.T, e nodes.Expr, b arrow.RecordBatch) (typed, generic []any, typedErr, genericErr error) {
	t.Helper()
	run := func(on bool) ([]any, error) {
		defer func(v bool) { filterKernels = v }(filterKernels)
		filterKernels = on
		ec := &ExecContext{}
		defer ec.Release()
		ev, err := compileExpr(e, ec)
		if err != nil {
			t.Fatalf("compile %s: %v", e, err)
		}
		arr, err := ev.eval(b)
		if err != nil {
			return nil, err
		}
		defer arr.Release()
		out := make([]any, arr.Len())
		for i := range out {
			out[i] = types.DatumAt(arr, e.Type(), i)
		}
		return out, nil
	}
	typed, typedErr = run(true)
	generic, genericErr = run(false)
	return
}

func TestFilterKernelsMatchRowwise(t *testing.T) {
	c10 := func(s string) nodes.Expr { return lit(s, char10) }
	text := func(s string) nodes.Expr { return lit(s, types.TextT) }
	i4 := func(v int64) nodes.Expr { return lit(v, types.Int4T) }
	date := func(v int32) nodes.Expr { return lit(v, types.DateT) }
	tsLit := func(days int64) nodes.Expr { return lit(days*86400e6, types.TimestampT) }
	asTS := func(e nodes.Expr) nodes.Expr { return &nodes.Cast{Arg: e, T: types.TimestampT} }
	many := []nodes.Expr{}
	for _, s := range []string{"A", "B", "C", "D", "E", "F", "G", "H", "AIR", "SHIP  "} {
		many = append(many, c10(s))
	}
	manyInts := []nodes.Expr{}
	for v := int64(-1); v < 12; v++ {
		manyInts = append(manyInts, i4(v))
	}
	var exprs []nodes.Expr
	for _, o := range []string{"=", "<>", "<", "<=", ">", ">="} {
		exprs = append(exprs,
			cmpOp(o, col(0, char10), c10("AIR")),
			cmpOp(o, c10("AIR  "), col(0, char10)),
			cmpOp(o, col(0, char10), c10("")),
			cmpOp(o, col(0, char10), lit(nil, char10)),
			cmpOp(o, col(0, char10), &nodes.Cast{Arg: col(1, types.TextT), T: char10}),
			cmpOp(o, col(1, types.TextT), text("AIR")),
			cmpOp(o, text("AIR "), col(1, types.TextT)),
			cmpOp(o, col(2, types.Int4T), i4(0)),
			cmpOp(o, i4(1), col(2, types.Int4T)),
			cmpOp(o, col(4, types.Int8T), lit(int64(-1), types.Int8T)),
			cmpOp(o, col(5, types.Int2T), lit(int64(1), types.Int2T)),
			cmpOp(o, col(3, types.DateT), date(9002)),
			cmpOp(o, date(9002), col(3, types.DateT)),
			cmpOp(o, asTS(col(3, types.DateT)), tsLit(9002)),
			// not midnight: the date compares with the day it falls in
			cmpOp(o, asTS(col(3, types.DateT)), lit(int64(9001)*86400e6+3600e6, types.TimestampT)),
			cmpOp(o, lit(int64(9003)*86400e6-1, types.TimestampT), asTS(col(3, types.DateT))),
			cmpOp(o, asTS(col(3, types.DateT)), lit(int64(-5)*86400e6-7, types.TimestampT)),
			cmpOp(o, col(6, types.TimestampT), asTS(col(3, types.DateT))),
		)
	}
	exprs = append(exprs,
		inList(col(0, char10), false, c10("AIR"), c10("AIR REG")),
		inList(col(0, char10), true, c10("AIR"), c10("AIR REG")),
		inList(col(0, char10), false, c10("AIR"), lit(nil, char10)),
		inList(col(0, char10), true, c10("AIR"), lit(nil, char10)),
		inList(col(0, char10), false, many...),
		inList(col(0, char10), true, append(many, lit(nil, char10))...),
		inList(col(1, types.TextT), false, text("AIR"), text("")),
		inList(col(1, types.TextT), true, text("AIR "), text("SHIP")),
		inList(col(2, types.Int4T), false, i4(0), i4(2)),
		inList(col(2, types.Int4T), true, i4(0), lit(nil, types.Int4T)),
		inList(col(2, types.Int4T), false, manyInts...),
		inList(col(3, types.DateT), false, date(9000), date(types.DatePosInfinity)),
		inList(col(5, types.Int2T), true, lit(int64(1), types.Int2T)),
		and(col(7, types.BoolT), cmpOp("=", col(0, char10), c10("AIR")), cmpOp(">", col(2, types.Int4T), i4(0))),
		or(col(7, types.BoolT), cmpOp("=", col(0, char10), c10("AIR")), cmpOp(">", col(2, types.Int4T), i4(0))),
		and(inList(col(0, char10), false, c10("AIR"), c10("MAIL")),
			or(and(cmpOp(">=", col(2, types.Int4T), i4(-1)), cmpOp("<=", col(2, types.Int4T), i4(0))),
				and(cmpOp(">=", col(2, types.Int4T), i4(1)), col(7, types.BoolT)),
				cmpOp("=", col(4, types.Int8T), lit(nil, types.Int8T)))),
		or(and(col(7, types.BoolT), lit(nil, types.BoolT)), lit(false, types.BoolT), col(7, types.BoolT)),
	)
	for _, n := range []int{1, 7, 64, 1000} {
		b := filterTestBatch(n, int64(n))
		for _, e := range exprs {
			typed, generic, te, ge := evalBoth(t, e, b)
			if te != nil || ge != nil {
				t.Fatalf("%s over %d rows: errors %v / %v", e, n, te, ge)
			}
			if diff := cmp.Diff(generic, typed); diff != "" {
				t.Errorf("%s over %d rows: typed kernels differ from row by row (-generic +typed):\n%s", e, n, diff)
			}
		}
		// An offset batch: kernels must honour the arrays' offsets.
		if n > 3 {
			s := b.NewSlice(3, int64(n))
			for _, e := range exprs {
				typed, generic, _, _ := evalBoth(t, e, s)
				if diff := cmp.Diff(generic, typed); diff != "" {
					t.Errorf("%s over rows 3..%d: (-generic +typed):\n%s", e, n, diff)
				}
			}
			s.Release()
		}
		b.Release()
	}
}

func TestFilterKernelsPadding(t *testing.T) {
	vals := []any{"AIR", "AIR       ", "AIR\t", "AIR x", "", "          ", nil}
	arr := arrayOfDatums(char10, vals)
	rb := makeBatch(arrow.NewSchema([]arrow.Field{{Name: "c0", Type: char10.ArrowType(), Nullable: true}}, nil), []arrow.Array{arr}, len(vals))
	defer rb.Release()
	for _, tc := range []struct {
		e    nodes.Expr
		want []any
	}{
		{cmpOp("=", col(0, char10), lit("AIR  ", char10)), []any{true, true, false, false, false, false, nil}},
		{cmpOp("=", col(0, char10), lit("", char10)), []any{false, false, false, false, true, true, nil}},
		{cmpOp("<", col(0, char10), lit("AIR", char10)), []any{false, false, false, false, true, true, nil}},
		{cmpOp(">", col(0, char10), lit("AIR", char10)), []any{false, false, true, true, false, false, nil}},
		{inList(col(0, char10), false, lit("AIR", char10), lit("", char10)), []any{true, true, false, false, true, true, nil}},
		{inList(col(0, char10), true, lit("AIR", char10), lit(nil, char10)), []any{false, false, nil, nil, nil, nil, nil}},
	} {
		got, _, err, _ := evalBoth(t, tc.e, rb)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.e, diff)
		}
	}
}

// A date beyond timestamp's range fails its cast when a row reaches it,
// and only then: AND's earlier conjunct keeps the row away.
func TestDateToTimestampRangeError(t *testing.T) {
	days := arrayOfDatums(types.DateT, []any{int32(9000), int32(200_000_000), nil, types.DatePosInfinity})
	keep := arrayOfDatums(types.Int4T, []any{int64(1), int64(0), int64(1), int64(1)})
	rb := makeBatch(arrow.NewSchema([]arrow.Field{
		{Name: "d", Type: types.DateT.ArrowType(), Nullable: true},
		{Name: "k", Type: types.Int4T.ArrowType(), Nullable: true},
	}, nil), []arrow.Array{days, keep}, 4)
	defer rb.Release()
	cast := cmpOp("<", &nodes.Cast{Arg: col(0, types.DateT), T: types.TimestampT}, lit(int64(9001)*86400e6, types.TimestampT))
	for _, on := range []bool{true, false} {
		filterKernels = on
		_, _, err, _ := evalBoth(t, cast, rb)
		if pe, ok := pgerr.As(err); !ok || pe.Code != pgerr.DatetimeFieldOverflow {
			t.Errorf("kernels=%v: date 200000000 as timestamp: error %v, want 22008", on, err)
		}
		got, _, err, _ := evalBoth(t, and(cmpOp("=", col(1, types.Int4T), lit(int64(1), types.Int4T)), cast), rb)
		if err != nil {
			t.Errorf("kernels=%v: the row AND skips raised %v", on, err)
		}
		if diff := cmp.Diff([]any{true, false, nil, false}, got); diff != "" {
			t.Errorf("kernels=%v: (-want +got):\n%s", on, diff)
		}
	}
	filterKernels = true
}

// The shapes the kernels are for compile to them.
func TestFilterKernelsChosen(t *testing.T) {
	for _, tc := range []struct {
		e    nodes.Expr
		want string
	}{
		{cmpOp("=", col(0, char10), lit("AIR", char10)), "*executor.stringConstCompare"},
		{cmpOp("<", lit("AIR", types.TextT), col(1, types.TextT)), "*executor.stringConstCompare"},
		{cmpOp(">=", col(3, types.DateT), lit(int32(9000), types.DateT)), "*executor.intConstCompare"},
		{inList(col(0, char10), false, lit("AIR", char10), lit("MAIL", char10)), "*executor.constInList"},
		{&nodes.Cast{Arg: col(3, types.DateT), T: types.TimestampT}, "*executor.dateToTimestampEval"},
		{cmpOp("<=", &nodes.Cast{Arg: col(3, types.DateT), T: types.TimestampT}, lit(int64(9000)*86400e6, types.TimestampT)), "*executor.dateConstCompare"},
		{cmpOp("=", col(0, char10), col(0, char10)), "*executor.binaryEval"},
		{cmpOp("<", col(3, types.DateT), col(3, types.DateT)), "*executor.intColumnsCompare"},
		{cmpOp("<", col(3, types.DateT), &nodes.Cast{Arg: col(6, types.TimestampT), T: types.DateT}), "*executor.binaryEval"},
	} {
		ec := &ExecContext{}
		ev, err := compileNode(tc.e, ec)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%T", ev); got != tc.want {
			t.Errorf("%s compiles to %s, want %s", tc.e, got, tc.want)
		}
		ec.Release()
	}
}

func TestTakeStrings(t *testing.T) {
	arr := arrayOfDatums(types.TextT, []any{"a", nil, "", "ccc", "dd", nil})
	defer arr.Release()
	for _, tc := range []struct {
		from int
		sel  []int32
		want []any
	}{
		{0, []int32{3, 1, 0, 3}, []any{"ccc", nil, "a", "ccc"}},
		{0, nil, []any{}},
		{2, []int32{0, 2, 3, 1}, []any{"", "dd", nil, "ccc"}},
	} {
		src := arrowSlice(arr, tc.from)
		got := takeArray(src, tc.sel)
		vals := make([]any, got.Len())
		for i := range vals {
			vals[i] = types.DatumAt(got, types.TextT, i)
		}
		if diff := cmp.Diff(tc.want, vals); diff != "" {
			t.Errorf("take %v of rows %d..: (-want +got):\n%s", tc.sel, tc.from, diff)
		}
		got.Release()
		src.Release()
	}
}

func arrowSlice(a arrow.Array, from int) arrow.Array {
	return array.NewSlice(a, int64(from), int64(a.Len()))
}

// TestTakeStringsRuns checks takeStrings, which copies runs of
// consecutive rows at once, against the values one at a time: runs, gaps,
// NULLs, empty strings and an array sliced from a larger one.
func TestTakeStringsRuns(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	b := array.NewStringBuilder(memory.NewGoAllocator())
	for i := range 500 {
		switch {
		case i%17 == 0:
			b.AppendNull()
		case i%5 == 0:
			b.Append("")
		default:
			b.Append(strings.Repeat(string(rune('a'+i%26)), i%9+1))
		}
	}
	whole := b.NewStringArray()
	defer whole.Release()
	sliced := array.NewSlice(whole, 37, 450).(*array.String)
	defer sliced.Release()
	for _, keep := range []float64{0, 0.1, 0.5, 0.9, 1} {
		var sel []int32
		for i := 0; i < sliced.Len(); i++ {
			if r.Float64() < keep {
				sel = append(sel, int32(i))
			}
		}
		got := takeStrings(sliced, sel).(*array.String)
		if got.Len() != len(sel) {
			t.Fatalf("keep %v: %d rows, want %d", keep, got.Len(), len(sel))
		}
		for j, i := range sel {
			if got.IsNull(j) != sliced.IsNull(int(i)) || got.Value(j) != sliced.Value(int(i)) {
				t.Fatalf("keep %v: row %d is %q (null %v), want %q (null %v)", keep, j, got.Value(j), got.IsNull(j), sliced.Value(int(i)), sliced.IsNull(int(i)))
			}
		}
		got.Release()
	}
}
