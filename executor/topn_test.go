package executor

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
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

// TestTopNOverSmallBatches: a top-N sort fed batches much smaller than
// its bound (a foreign scan's fetches) takes them in chunks of at least
// the bound, one heap step each, and keeps the best rows.
func TestTopNOverSmallBatches(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	const batches, perBatch, bound = 3000, 10, 500
	var all []any
	fake := exectest.New(nil, "c")
	for range batches {
		vals := make([]any, perBatch)
		for i := range vals {
			vals[i] = r.Int64N(100000)
			all = append(all, vals[i])
		}
		fake.Steps = append(fake.Steps, exectest.Step{Batch: exectest.NewBatch(memory.NewGoAllocator(), exectest.Int64s("a", vals...))})
	}
	s := stub(field("a", types.Int8T))
	ec := &ExecContext{BatchSize: 1000}
	op := buildWithFakes(t, &nodes.Sort{Child: s, Keys: []nodes.SortKey{{Expr: col(0, types.Int8T)}}, Bound: bound}, ec, map[*nodes.Result]Operator{s: fake})
	var got []int64
	if err := Drain(context.Background(), op, func(b arrow.RecordBatch) error {
		got = append(got, valuesOf[int64](b.Column(0))...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := make([]int64, len(all))
	for i, v := range all {
		want[i] = v.(int64)
	}
	slices.Sort(want)
	if !slices.Equal(got[:bound], want[:bound]) {
		t.Fatalf("top %d differ: got %v..., want %v...", bound, got[:5], want[:5])
	}
	steps := op.(*sortOp).topSteps
	if wantSteps := batches * perBatch / 1000; steps > wantSteps {
		t.Fatalf("%d heap steps for %d rows in chunks of 1000, want at most %d", steps, batches*perBatch, wantSteps)
	}
}
