package executor

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/funcs"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// TestSubstringKernelMatchesRowwise compares the substring kernel with
// funcs' substr over ASCII, multi-byte and empty values, NULLs, and
// starts and counts before, inside and past the values.
func TestSubstringKernelMatchesRowwise(t *testing.T) {
	values := []any{"hello world", "", nil, "héllo wörld", "日本語のテキスト", "ab", "a\u00e9\U0001F600z"}
	batch := exectest.NewBatch(memory.NewGoAllocator(), exectest.Strings("s", values...))
	defer batch.Release()
	impl := funcs.Lookup("substr")
	for _, start := range []int64{-3, 0, 1, 2, 5, 11, 12, 40} {
		for _, count := range []int64{-1, 0, 1, 2, 3, 10, 1 << 62} {
			args := []nodes.Expr{col(0, types.TextT), lit(start, types.Int4T)}
			if count >= 0 {
				args = append(args, lit(count, types.Int4T))
			}
			x := &nodes.FuncExpr{Name: "substring", Args: args, T: types.TextT}
			ev, ok, err := compileStringKernel(x, &ExecContext{})
			if err != nil || !ok {
				t.Fatalf("start %d count %d: no kernel (%v)", start, count, err)
			}
			got, err := ev.eval(batch)
			if err != nil {
				t.Fatal(err)
			}
			ts := []types.T{types.TextT, types.Int4T, types.Int4T}[:len(args)]
			fn := impl.Bind(ts)
			for i, v := range values {
				if v == nil {
					if !got.IsNull(i) {
						t.Errorf("start %d count %d row %d: not NULL", start, count, i)
					}
					continue
				}
				in := []any{v, start}
				if count >= 0 {
					in = append(in, count)
				}
				want, err := fn(in)
				if err != nil {
					t.Fatal(err)
				}
				if s := got.(*array.String).Value(i); got.IsNull(i) || s != want {
					t.Errorf("substring(%q, %d, %d) = %q, want %q", v, start, count, s, want)
				}
			}
			got.Release()
		}
	}
}

// TestLikeKernelMatchesLikeMatch compares the LIKE kernel with likeMatch
// on random strings over a small alphabet (with a multi-byte letter) and
// every pattern of literals and % the alphabet makes up to four tokens,
// LIKE and NOT LIKE, and checks which patterns take the kernel.
func TestLikeKernelMatchesLikeMatch(t *testing.T) {
	alphabet := []string{"a", "b", "é", "%"}
	var patterns []string
	var grow func(p string, n int)
	grow = func(p string, n int) {
		patterns = append(patterns, p)
		if n == 4 {
			return
		}
		for _, c := range alphabet {
			grow(p+c, n+1)
		}
	}
	grow("", 0)
	r := rand.New(rand.NewSource(9))
	values := []any{nil, ""}
	for range 300 {
		var s strings.Builder
		for range r.Intn(7) {
			s.WriteString(alphabet[r.Intn(3)])
		}
		values = append(values, s.String())
	}
	batch := exectest.NewBatch(memory.NewGoAllocator(), exectest.Strings("s", values...))
	defer batch.Release()
	for _, p := range patterns {
		toks, _ := compileLikePattern(p)
		for _, op := range []string{"~~", "!~~"} {
			x := &nodes.OpExpr{Op: op, Left: col(0, types.TextT), Right: lit(p, types.TextT), T: types.BoolT}
			ev, ok, err := compileLikeKernel(x, &ExecContext{})
			if err != nil || !ok {
				t.Fatalf("%q: no kernel (%v)", p, err)
			}
			got, err := ev.eval(batch)
			if err != nil {
				t.Fatal(err)
			}
			res := got.(*array.Boolean)
			for i, v := range values {
				if v == nil {
					if !res.IsNull(i) {
						t.Errorf("%q %s NULL: not NULL", p, op)
					}
					continue
				}
				want, _ := likeMatch(v.(string), toks)
				if op == "!~~" {
					want = !want
				}
				if res.IsNull(i) || res.Value(i) != want {
					t.Errorf("%q %s %q = %v, want %v", v, op, p, res.Value(i), want)
				}
			}
			got.Release()
		}
	}
	for _, p := range []string{"a_b", "ab\\"} {
		x := &nodes.OpExpr{Op: "~~", Left: col(0, types.TextT), Right: lit(p, types.TextT), T: types.BoolT}
		if _, ok, _ := compileLikeKernel(x, &ExecContext{}); ok {
			t.Errorf("%q took the kernel", p)
		}
	}
	ilike := &nodes.OpExpr{Op: "~~*", Left: col(0, types.TextT), Right: lit("a%", types.TextT), T: types.BoolT}
	if _, ok, _ := compileLikeKernel(ilike, &ExecContext{}); ok {
		t.Error("ILIKE took the kernel")
	}
}

// TestTextCastsPassThrough checks that casts which keep every string as
// it is compile to their argument, and the others do not.
func TestTextCastsPassThrough(t *testing.T) {
	varchar10 := types.T{ID: types.Varchar, Len: 10}
	for _, tc := range []struct {
		from, to types.T
		same     bool
	}{
		{varchar10, types.TextT, true},
		{types.TextT, types.VarcharT, true},
		{types.VarcharT, types.TextT, true},
		{types.TextT, varchar10, false},
		{types.BpcharT, types.TextT, false},
	} {
		arg := col(0, tc.from)
		ev, err := compileCast(&nodes.Cast{Arg: arg, T: tc.to}, &ExecContext{})
		if err != nil {
			t.Fatal(err)
		}
		if c, ok := ev.(*checkedEval); ok {
			ev = c.ev
		}
		_, same := ev.(*columnEval)
		if same != tc.same {
			t.Errorf("%s to %s: passes through %v, want %v", tc.from, tc.to, same, tc.same)
		}
	}
}

// TestStringKernelsChosen checks that compiling LIKE and substring takes
// the kernels (a kernel left unused would still give the right rows) and
// that the patterns and bounds they do not cover keep the row-at-a-time
// path.
func TestStringKernelsChosen(t *testing.T) {
	like := func(p string) nodes.Expr {
		return &nodes.OpExpr{Op: "~~", Left: col(0, types.TextT), Right: lit(p, types.TextT), T: types.BoolT}
	}
	substr := func(args ...nodes.Expr) nodes.Expr {
		return &nodes.FuncExpr{Name: "substring", Args: append([]nodes.Expr{col(0, types.TextT)}, args...), T: types.TextT}
	}
	for _, tc := range []struct {
		e      nodes.Expr
		kernel bool
	}{
		{like("%special%requests%"), true},
		{like("a_c"), false},
		{substr(lit(int64(1), types.Int4T), lit(int64(2), types.Int4T)), true},
		{substr(lit(int64(1), types.Int4T), lit(int64(-1), types.Int4T)), false},
		{substr(col(1, types.Int4T)), false},
	} {
		ev, err := compileExpr(tc.e, &ExecContext{noFold: true})
		if err != nil {
			t.Fatal(err)
		}
		if c, ok := ev.(*checkedEval); ok {
			ev = c.ev
		}
		_, isLike := ev.(*likeSegments)
		_, isSubstr := ev.(*substrEval)
		if got := isLike || isSubstr; got != tc.kernel {
			t.Errorf("%s: kernel %v (%T), want %v", tc.e, got, ev, tc.kernel)
		}
	}
}
