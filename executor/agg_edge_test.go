package executor

import (
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// aggOutcome feeds each batch of datums (one group) to st and renders its
// result or error the way PostgreSQL 15.18 reported it.
func aggOutcome(t *testing.T, st aggState, argT types.T, outT types.T, batches ...[]any) string {
	t.Helper()
	for _, b := range batches {
		arr := arrayOfDatums(argT, b)
		err := st.update(nil, len(b), 1, []arrow.Array{arr})
		arr.Release()
		if err != nil {
			pe, _ := pgerr.As(err)
			return "ERROR " + pe.Code + " " + pe.Message
		}
	}
	res, err := st.result(1)
	if err != nil {
		pe, _ := pgerr.As(err)
		return "ERROR " + pe.Code + " " + pe.Message
	}
	defer res.Release()
	d := types.DatumAt(res, outT, 0)
	if d == nil {
		return "NULL"
	}
	return types.Format(outT, d)
}

func TestFloatSumAvgOverflow(t *testing.T) {
	inf := math.Inf(1)
	const overflow = "ERROR 22003 value out of range: overflow"
	cases := []struct {
		name    string
		avg     bool
		in, out types.T
		batches [][]any
		want    string
	}{
		{"sum float8 overflows", false, types.Float8T, types.Float8T, [][]any{{1e308, 1e308}}, overflow},
		{"sum float8 overflows across batches", false, types.Float8T, types.Float8T, [][]any{{1e308}, {nil, 1e308}}, overflow},
		{"avg float8 overflows", true, types.Float8T, types.Float8T, [][]any{{1e308, 1e308}}, overflow},
		// float8_accum also checks the squared deviations.
		{"avg float8 Sxx overflows", true, types.Float8T, types.Float8T, [][]any{{1e300, -1e300}}, overflow},
		{"sum float8 cancels", false, types.Float8T, types.Float8T, [][]any{{1e300, -1e300}}, "0"},
		{"sum with infinity", false, types.Float8T, types.Float8T, [][]any{{inf, 1e308, 1e308}}, "Infinity"},
		{"avg with infinity", true, types.Float8T, types.Float8T, [][]any{{1e308, inf, 1e308}}, "Infinity"},
		{"avg opposite infinities", true, types.Float8T, types.Float8T, [][]any{{inf, math.Inf(-1)}}, "NaN"},
		{"sum NaN first", false, types.Float8T, types.Float8T, [][]any{{math.NaN(), 1e308, 1e308}}, "NaN"},
		{"sum float4 overflows in single precision", false, types.Float4T, types.Float4T, [][]any{{3e38, 3e38}}, overflow},
		{"sum float4 rounds in single precision", false, types.Float4T, types.Float4T, [][]any{{16777216.0, 1.0, 1.0}}, "1.6777216e+07"},
		{"avg float4 in double precision", true, types.Float4T, types.Float8T, [][]any{{3e38, 3e38}}, "3.0000000054977558e+38"},
		{"no rows", false, types.Float8T, types.Float8T, [][]any{{nil}}, "NULL"},
	}
	for _, c := range cases {
		st := &floatSumState{avg: c.avg, out: c.out}
		if got := aggOutcome(t, st, c.in, c.out, c.batches...); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}

func TestAvgCombineFloatOverflow(t *testing.T) {
	st := &avgCombineState{out: types.Float8T, sumT: types.Float8T}
	sums, counts := arrayOfDatums(types.Float8T, []any{1e308, 1e308}), arrayOfDatums(types.Int8T, []any{int64(1), int64(1)})
	defer sums.Release()
	defer counts.Release()
	err := st.update(nil, 2, 1, []arrow.Array{sums, counts})
	if pgerr.Code(err) != pgerr.NumericValueOutOfRange {
		t.Errorf("combining overflowing partial sums: %v, want 22003", err)
	}
}

// TestStringAggSizeLimit checks that string_agg stops with PostgreSQL's
// 54000 before its buffer passes 1 GB. It builds about 1 GB.
func TestStringAggSizeLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1 GB string")
	}
	half := strings.Repeat("x", types.MaxValueBytes/2) // 536870911 bytes
	vals := arrayOfDatums(types.TextT, []any{half})
	half = ""
	delims := arrayOfDatums(types.TextT, []any{","})
	defer vals.Release()
	defer delims.Release()
	st := &stringAggState{}
	if err := st.update(nil, 1, 1, []arrow.Array{vals, delims}); err != nil {
		t.Fatalf("first value: %v", err)
	}
	err := st.update(nil, 1, 1, []arrow.Array{vals, delims})
	pe, ok := pgerr.As(err)
	if !ok || pe.Code != pgerr.ProgramLimitExceeded || pe.Message != "out of memory" ||
		pe.Detail != "Cannot enlarge string buffer containing 536870912 bytes by 536870911 more bytes." {
		t.Fatalf("second value: %#v", err)
	}
	if n := st.bufs[0].Len(); n != 536870912 {
		t.Errorf("buffer holds %d bytes after the refused value, want 536870912", n)
	}
}
