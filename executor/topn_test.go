package executor

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSelectBest checks quickselect against sorting, with duplicates,
// sorted and reverse-sorted input, both directions.
func TestSelectBest(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	inputs := map[string]func(n int) []int64{
		"random": func(n int) []int64 {
			v := make([]int64, n)
			for i := range v {
				v[i] = r.Int64N(1000)
			}
			return v
		},
		"ascending": func(n int) []int64 {
			v := make([]int64, n)
			for i := range v {
				v[i] = int64(i)
			}
			return v
		},
		"descending": func(n int) []int64 {
			v := make([]int64, n)
			for i := range v {
				v[i] = int64(n - i)
			}
			return v
		},
		"constant": func(n int) []int64 { return make([]int64, n) },
	}
	for name, gen := range inputs {
		for _, n := range []int{5, 100, 4097} {
			for _, k := range []int{1, 3, 5} {
				for _, desc := range []bool{false, true} {
					vals := gen(n)
					got := selectBest(vals, k, desc)
					gotVals := make([]int64, len(got))
					for i, idx := range got {
						gotVals[i] = vals[idx]
					}
					want := slices.Clone(vals)
					slices.Sort(want)
					if desc {
						slices.Reverse(want)
					}
					want = want[:k]
					slices.Sort(gotVals)
					slices.Sort(want)
					if !slices.Equal(gotVals, want) {
						t.Errorf("%s n=%d k=%d desc=%v: got %v, want %v", name, n, k, desc, gotVals, want)
					}
				}
			}
		}
	}
}
