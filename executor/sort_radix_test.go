package executor

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// TestRadixMatchesComparisonSort: the radix path gives exactly the order
// of the stable comparison sort, for each integer width, direction and
// NULL placement, with ties broken by a second key.
func TestRadixMatchesComparisonSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	mem := memory.NewGoAllocator()
	for _, c := range []struct {
		t    types.T
		make func(string, ...any) exectest.Col
		val  func() any
	}{
		{types.Int2T, exectest.Int16s, func() any { return int64(rng.IntN(40) - 20) }},
		{types.Int4T, exectest.Int32s, func() any { return int64(rng.Int32() >> rng.IntN(31)) }},
		{types.Int8T, exectest.Int64s, func() any {
			return []int64{math.MinInt64, math.MaxInt64, -1, 0, 1, rng.Int64(), -rng.Int64()}[rng.IntN(7)]
		}},
	} {
		var first, second []any
		for i := 0; i < 3000; i++ {
			var v any
			if rng.IntN(10) > 0 {
				v = c.val()
			}
			first = append(first, v)
			second = append(second, int64(rng.IntN(5)))
		}
		b := exectest.NewBatch(mem, c.make("k", first...), exectest.Int64s("s", second...))
		for _, desc := range []bool{false, true} {
			for _, nullsFirst := range []bool{false, true} {
				k := nodes.SortKey{Expr: col(0, c.t), Desc: desc, NullsFirst: nullsFirst}
				k2 := nodes.SortKey{Expr: col(1, types.Int8T), Desc: true}
				for _, multi := range []bool{false, true} {
					cmp1 := keyComparator(b.Column(0), k)
					var rest func(a, b int32) int
					full := cmp1
					if multi {
						rest = keyComparator(b.Column(1), k2)
						full = func(a, b int32) int {
							if r := cmp1(a, b); r != 0 {
								return r
							}
							return rest(a, b)
						}
					}
					want := make([]int32, b.NumRows())
					for i := range want {
						want[i] = int32(i)
					}
					slices.SortStableFunc(want, full)
					got := radixSortedOrder(b.Column(0), k, rest, newInterrupter(context.Background()))
					if !slices.Equal(got, want) {
						t.Errorf("%s desc=%v nullsFirst=%v multi=%v: radix order differs", c.t, desc, nullsFirst, multi)
					}
				}
			}
		}
		b.Release()
	}
}
