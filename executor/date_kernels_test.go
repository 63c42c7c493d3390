package executor

import (
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/go-cmp/cmp"

	"github.com/pgfed/pgfed/funcs"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// TestDateFieldKernel: extract and date_part of a date column with a
// constant field give, for every field, what the row-by-row evaluation
// gives (dates BC and AD, NULLs; a batch with infinity too, which the
// kernel hands over), and compiling takes the kernel where it applies.
func TestDateFieldKernel(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	var finite []any
	for i := 0; i < 3000; i++ {
		if r.Intn(10) == 0 {
			finite = append(finite, nil)
			continue
		}
		finite = append(finite, int32(r.Intn(1_600_000)-800_000)) // about 220 BC to 4160 AD
	}
	withInfinity := append(append([]any(nil), finite[:100]...), types.DatePosInfinity, types.DateNegInfinity)
	fields := []string{"day", "month", "quarter", "week", "year", "decade", "century", "millennium",
		"julian", "isoyear", "dow", "isodow", "doy", "YEAR", "years", "epoch", "hour"}
	for _, rows := range [][]any{finite, withInfinity} {
		arr := arrayOfDatums(types.DateT, rows)
		b := makeBatch(arrow.NewSchema([]arrow.Field{{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true}}, nil),
			[]arrow.Array{arr}, len(rows))
		for _, name := range []string{"extract", "date_part"} {
			for _, field := range fields {
				res := types.NumericT
				if name == "date_part" {
					res = types.Float8T
				}
				e := &nodes.FuncExpr{Name: name, Args: []nodes.Expr{lit(field, types.TextT), col(0, types.DateT)}, T: res}
				ec := &ExecContext{noFold: true}
				ev, err := compileExpr(e, ec)
				if err != nil {
					t.Fatal(err)
				}
				_, kernel := unwrapChecked(ev).(*dateFieldEval)
				if _, computes := types.DateField(field); kernel != computes {
					t.Errorf("%s(%s): kernel %v, want %v", name, field, kernel, computes)
				}
				got, gotErr := ev.eval(b)
				want, wantErr := rowwiseOf(t, e).eval(b)
				if (gotErr == nil) != (wantErr == nil) {
					t.Fatalf("%s(%s): error %v, row by row %v", name, field, gotErr, wantErr)
				}
				if gotErr == nil {
					if diff := cmp.Diff(want.String(), got.String()); diff != "" {
						t.Errorf("%s(%s) over %d rows: kernel differs from row by row (-want +got):\n%s", name, field, len(rows), diff)
					}
					got.Release()
					want.Release()
				}
				ec.Release()
			}
		}
		b.Release()
		arr.Release()
	}
}

// rowwiseOf compiles a function call row by row, as compileFunc does
// without kernels.
func rowwiseOf(t *testing.T, x *nodes.FuncExpr) evaluator {
	t.Helper()
	ev, err := compileFuncRowwise(funcs.Lookup(x.Name), x, &ExecContext{noFold: true})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}
