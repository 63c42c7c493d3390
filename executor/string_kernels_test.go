package executor

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/funcs"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// TestSubstringKernelMatchesRowwise compares the substring kernel with
// funcs' substr over ASCII, multi-byte and empty values, NULLs, and
// starts and counts before, inside and past the values.
func TestSubstringKernelMatchesRowwise(t *testing.T) {
	values := []any{"hello world", "", nil, "héllo wörld", "日本語のテキスト", "ab", "a\u00e9\U0001F600z"}
	b := array.NewStringBuilder(memory.NewGoAllocator())
	for _, v := range values {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append(v.(string))
		}
	}
	arr := b.NewStringArray()
	defer arr.Release()
	batch := array.NewRecordBatch(schemaOf([]nodes.Field{field("s", types.TextT)}), []arrow.Array{arr}, int64(arr.Len()))
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
