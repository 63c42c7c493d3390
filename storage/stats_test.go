package storage

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pgfed/pgfed/types"
)

// TestColumnStats checks the distinct and NULL estimates on small (fully
// read) and large (sampled) tables, including periodic data that evenly
// spaced sampling would alias.
func TestColumnStats(t *testing.T) {
	for _, tc := range []struct {
		name         string
		rows         int
		value        func(i int) (int32, bool) // value, valid
		wantDistinct float64
		wantNullFrac float64
		tolerance    float64 // relative
	}{
		{"small exact", 1000, func(i int) (int32, bool) { return int32(i % 7), true }, 7, 0, 0},
		{"periodic sampled", 1_000_000, func(i int) (int32, bool) { return int32(i % 100), true }, 100, 0, 0},
		{"unique sampled", 1_000_000, func(i int) (int32, bool) { return int32(i), true }, 1_000_000, 0, 0.01},
		// Each value a few times in the sample: Haas-Stokes keeps it near
		// 10,000 where scaling the sample's 9,500 with the table gave
		// 317,000 (TPC-H's l_suppkey).
		{"repeating sampled", 1_000_000, func(i int) (int32, bool) { return int32(i % 10000), true }, 10000, 0, 0.1},
		{"quarter nulls", 200_000, func(i int) (int32, bool) { return int32(i % 10), i%4 != 0 }, 10, 0.25, 0.05},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tbl := NewTable("public", "t", []Column{{Name: "a", Type: types.Int4T}})
			b := array.NewInt32Builder(memory.DefaultAllocator)
			for i := 0; i < tc.rows; i++ {
				v, ok := tc.value(i)
				if ok {
					b.Append(v)
				} else {
					b.AppendNull()
				}
			}
			arr := b.NewArray()
			b.Release()
			tbl.Append(array.NewRecordBatch(tbl.ArrowSchema(), []arrow.Array{arr}, int64(tc.rows)))
			arr.Release()
			st := tbl.Stats()
			if got := st[0].NDistinct; math.Abs(got-tc.wantDistinct) > tc.tolerance*tc.wantDistinct {
				t.Errorf("NDistinct = %v, want %v", got, tc.wantDistinct)
			}
			if got := st[0].NullFrac; math.Abs(got-tc.wantNullFrac) > 0.02 {
				t.Errorf("NullFrac = %v, want %v", got, tc.wantNullFrac)
			}
			tbl.Replace(nil)
			if tbl.Stats() != nil {
				t.Errorf("stats of an emptied table should be nil")
			}
		})
	}
}

// TestMCVsAndHistogram checks the most common values (repeated values of
// a fully read table; of a sampled one only those well above average)
// and the equi-depth histogram of the others.
func TestMCVsAndHistogram(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rows      int
		value     func(i int) int32
		wantMCVs  int     // number of MCVs
		wantFreq0 float64 // frequency of the most common
		histLen   int     // bounds (0: none)
	}{
		{"unique", 1000, func(i int) int32 { return int32(i) }, 0, 0, 101},
		{"ten values", 1000, func(i int) int32 { return int32(i % 10) }, 10, 0.1, 0},
		{"one hot value", 1000, func(i int) int32 {
			if i%2 == 0 {
				return -1
			}
			return int32(i)
		}, 1, 0.5, 101},
		{"sampled skew", 1_000_000, func(i int) int32 {
			if i%4 == 0 {
				return 7
			}
			return int32(i)
		}, 1, 0.25, 101},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tbl := NewTable("public", "t", []Column{{Name: "a", Type: types.Int4T}})
			b := array.NewInt32Builder(memory.DefaultAllocator)
			for i := 0; i < tc.rows; i++ {
				b.Append(tc.value(i))
			}
			arr := b.NewArray()
			b.Release()
			tbl.Append(array.NewRecordBatch(tbl.ArrowSchema(), []arrow.Array{arr}, int64(tc.rows)))
			arr.Release()
			st := tbl.Stats()[0]
			if len(st.MCVs) != tc.wantMCVs {
				t.Fatalf("%d MCVs, want %d: %v", len(st.MCVs), tc.wantMCVs, st.MCVs)
			}
			if tc.wantMCVs > 0 && math.Abs(st.MCVFreqs[0]-tc.wantFreq0) > 0.01 {
				t.Errorf("MCV frequency %v, want %v", st.MCVFreqs[0], tc.wantFreq0)
			}
			if len(st.Histogram) != tc.histLen {
				t.Fatalf("histogram of %d bounds, want %d", len(st.Histogram), tc.histLen)
			}
			for i := 1; i < len(st.Histogram); i++ {
				if st.Histogram[i].Less(st.Histogram[i-1]) {
					t.Fatalf("histogram not ascending at %d: %v", i, st.Histogram)
				}
			}
		})
	}
}
