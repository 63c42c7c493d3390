package storage

import (
	"context"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pgfed/pgfed/types"
	"github.com/pgfed/pgfed/xact"
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

// TestStatsRecomputedAfterEnoughChanges checks autoanalyze's rule: the
// statistics of a table stay as computed until more than 50 + 10% of its
// rows were inserted or deleted by commits since (a rolled-back
// transaction changes nothing), while ANALYZE recomputes them at once;
// distinct counts that grow with the table are scaled meanwhile.
func TestStatsRecomputedAfterEnoughChanges(t *testing.T) {
	mem := memory.DefaultAllocator
	tbl := intTable("t")
	tbl.Append(intBatch(mem, tbl, seq(1, 1000)...))
	first := tbl.Stats()
	if first == nil || first[0].NDistinct != 1000 {
		t.Fatalf("stats of 1000 distinct rows: %+v", first)
	}
	// Scaling copies the column entries but shares their histograms: a
	// histogram that is not the one before was computed anew.
	histogram := func(st []ColumnStats) *StatValue {
		if len(st) == 0 || len(st[0].Histogram) == 0 {
			return nil
		}
		return &st[0].Histogram[0]
	}
	for _, step := range []struct {
		name      string
		write     func(w *WriteSet)
		rollback  bool
		analyze   bool
		recompute bool
		distinct  float64
	}{
		{"100 inserted rows", func(w *WriteSet) { w.Append(tbl, intBatch(mem, tbl, seq(1001, 1100)...)) }, false, false, false, 1100},
		{"rolled back", func(w *WriteSet) { w.Append(tbl, intBatch(mem, tbl, seq(2001, 2100)...)) }, true, false, false, 1100},
		{"50 more: 150 of 1000 changed", func(w *WriteSet) { w.Append(tbl, intBatch(mem, tbl, seq(1101, 1150)...)) }, false, false, false, 1150},
		{"one more", func(w *WriteSet) { w.Append(tbl, intBatch(mem, tbl, 1151)) }, false, false, true, 1151},
		{"ANALYZE without changes", nil, false, true, true, 1151},
		{"truncated", func(w *WriteSet) { w.Truncate(tbl); w.Append(tbl, intBatch(mem, tbl, seq(1, 300)...)) }, false, false, true, 300},
	} {
		before := tbl.Stats()
		if step.write != nil {
			w := NewWriteSet()
			if err := w.Lock(context.Background(), []*Table{tbl}, 0); err != nil {
				t.Fatal(err)
			}
			step.write(w)
			if step.rollback {
				if err := w.OnXact(context.Background(), xact.Abort); err != nil {
					t.Fatal(err)
				}
			} else {
				commit(t, w)
			}
		}
		if step.analyze {
			tbl.Analyze()
		}
		after := tbl.Stats()
		if recomputed := histogram(before) != histogram(after); recomputed != step.recompute {
			t.Errorf("%s: statistics recomputed %v, want %v", step.name, recomputed, step.recompute)
		}
		if got := after[0].NDistinct; math.Abs(got-step.distinct) > 0.5 {
			t.Errorf("%s: NDistinct %v, want %v", step.name, got, step.distinct)
		}
	}
}
