package executor

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// TestParamsBoundAtFirstEval: an expression reading Params is compiled
// at its first evaluation with their values as constants, so it takes
// the kernels a constant gets (numeric compare against a parsed
// constant, string compare, folding), and gives what reading the Params
// row by row gives; a Param without a value, or one that varies between
// evaluations (a SubPlan's test), is read as written.
func TestParamsBoundAtFirstEval(t *testing.T) {
	b := inPlaceTestBatch(2000, 5)
	defer b.Release()
	num, text := col(8, types.NumericT), col(1, types.TextT)
	p1 := &nodes.Param{ID: 1, T: types.NumericT}
	p2 := &nodes.Param{ID: 2, T: types.TextT}
	unset := &nodes.Param{ID: 9, T: types.NumericT}
	isScaledConstCompare := func(ev evaluator) bool {
		c, ok := ev.(*numericCompareEval)
		if !ok {
			return false
		}
		_, l := c.lvec.(*scaledConst)
		_, r := c.rvec.(*scaledConst)
		return l || r
	}
	isStringConstCompare := func(ev evaluator) bool { _, ok := ev.(*stringConstCompare); return ok }
	for _, tc := range []struct {
		name    string
		e       nodes.Expr
		vary    bool
		wantErr bool
		kernel  func(evaluator) bool // nil: the Params are read as written
	}{
		{"numeric column > $1", cmpOp(">", num, p1), false, false, isScaledConstCompare},
		{"$1 <= numeric column", cmpOp("<=", p1, num), false, false, isScaledConstCompare},
		{"folded: numeric column < $1 * 2", cmpOp("<", num, op("*", p1, numLit("2"), types.NumericT)), false, false, isScaledConstCompare},
		{"text column = $2", cmpOp("=", text, p2), false, false, isStringConstCompare},
		{"varying Params", cmpOp(">", num, p1), true, false, nil},
		{"a Param without a value", cmpOp(">", num, unset), false, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ec := &ExecContext{params: &paramValues{}}
			defer ec.Release()
			ec.params.set(1, numLit("0.06").Value)
			ec.params.set(2, "SHIP")
			ec.paramsVary = tc.vary
			ev, err := compileExpr(tc.e, ec)
			if err != nil {
				t.Fatal(err)
			}
			got, gotErr := ev.eval(b)
			bound, isBound := ev.(*paramBoundEval)
			if tc.kernel == nil {
				if isBound && bound.ev != nil && !tc.wantErr {
					t.Fatalf("compiled %T with its Params bound, want them read as written", unwrapChecked(bound.ev))
				}
			} else if !isBound || !tc.kernel(unwrapChecked(bound.ev)) {
				t.Fatalf("compiled %T, want the kernel of a constant", ev)
			}
			ec.paramsVary = true
			written, _ := compileExpr(tc.e, ec)
			want, wantErr := written.eval(b)
			if (gotErr != nil) != tc.wantErr || (wantErr != nil) != tc.wantErr {
				t.Fatalf("errors %v and %v (as written), want an error: %v", gotErr, wantErr, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			defer got.Release()
			defer want.Release()
			if diff := cmp.Diff(want.String(), got.String()); diff != "" {
				t.Errorf("bound differs from read as written (-want +got):\n%s", diff)
			}
		})
	}
}

func unwrapChecked(ev evaluator) evaluator {
	if c, ok := ev.(*checkedEval); ok {
		return c.ev
	}
	return ev
}
