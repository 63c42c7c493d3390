package storage

// Column statistics for the planner's estimates, kept by the table and
// recomputed lazily after a write: the fraction of NULLs and the number
// of distinct values per column, from a sample of up to statsSampleRows
// rows (PostgreSQL's ANALYZE samples 300 x default_statistics_target =
// 30,000 rows the same way).

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

const statsSampleRows = 30000

// ColumnStats describes one column's values.
type ColumnStats struct {
	NullFrac  float64 // fraction of rows that are NULL
	NDistinct float64 // estimated number of distinct non-NULL values
}

// Stats returns the column statistics of t's own rows (nil for a table
// without rows), computing them if a write invalidated them.
func (t *Table) Stats() []ColumnStats {
	t.mu.RLock()
	st := t.stats
	t.mu.RUnlock()
	if st != nil {
		return st
	}
	batches := t.Snapshot()
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	var total int64
	for _, b := range batches {
		total += b.NumRows()
	}
	if total == 0 {
		return nil
	}
	st = make([]ColumnStats, len(t.Columns))
	sample := sampleRows(total)
	for c := range t.Columns {
		seen := map[string]int{}
		var sampled, nulls int
		var buf []byte
		var base int64
		k := 0
		for _, b := range batches {
			arr := b.Column(c)
			n := b.NumRows()
			for k < len(sample) && sample[k] < base+n {
				i := int(sample[k] - base)
				k++
				sampled++
				if arr.IsNull(i) {
					nulls++
					continue
				}
				buf = appendValueKey(buf[:0], arr, i)
				seen[string(buf)]++
			}
			base += n
		}
		nonNull := sampled - nulls
		if sampled > 0 {
			st[c].NullFrac = float64(nulls) / float64(sampled)
		}
		d := float64(len(seen))
		if int64(sampled) < total && nonNull > 0 {
			d = estimateDistinct(seen, nonNull, float64(total)*(1-st[c].NullFrac))
		}
		st[c].NDistinct = math.Max(d, 1)
	}
	t.mu.Lock()
	t.stats = st
	t.mu.Unlock()
	return st
}

// estimateDistinct is PostgreSQL's estimate of a column's distinct
// values from a sample of n non-NULL values out of rows (analyze.c's
// compute_distinct_stats, the Haas and Stokes "Duj1" estimator):
// n*d / (n - f1 + f1*n/rows), where d values were seen and f1 of them
// once. Values seen several times say the column repeats (l_suppkey's
// 10,000 suppliers in 6M rows stay about 10,000); values all seen once
// say it is unique (the estimate is rows).
func estimateDistinct(counts map[string]int, n int, rows float64) float64 {
	d := float64(len(counts))
	f1 := 0
	for _, k := range counts {
		if k == 1 {
			f1++
		}
	}
	num := float64(n) * d
	den := float64(n-f1) + float64(f1)*float64(n)/rows
	est := num / den
	return math.Max(d, math.Min(est, rows))
}

// sampleRows picks up to statsSampleRows row numbers of total, sorted:
// all rows of a small table, else a pseudo-random sample (a fixed seed
// keeps plans reproducible; random rather than evenly spaced rows so that
// periodic data is not aliased).
func sampleRows(total int64) []int64 {
	if total <= statsSampleRows {
		out := make([]int64, total)
		for i := range out {
			out[i] = int64(i)
		}
		return out
	}
	r := rand.New(rand.NewPCG(1, 2))
	picked := make(map[int64]struct{}, statsSampleRows)
	for len(picked) < statsSampleRows {
		picked[r.Int64N(total)] = struct{}{}
	}
	out := make([]int64, 0, statsSampleRows)
	for i := range picked {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

// appendValueKey appends bytes identifying the value at row i (for
// counting distinct values; not an order-preserving encoding).
func appendValueKey(buf []byte, arr arrow.Array, i int) []byte {
	switch a := arr.(type) {
	case *array.Int64:
		return binary.LittleEndian.AppendUint64(buf, uint64(a.Value(i)))
	case *array.Int32:
		return binary.LittleEndian.AppendUint32(buf, uint32(a.Value(i)))
	case *array.Int16:
		return binary.LittleEndian.AppendUint16(buf, uint16(a.Value(i)))
	case *array.Float64:
		return binary.LittleEndian.AppendUint64(buf, math.Float64bits(a.Value(i)))
	case *array.Float32:
		return binary.LittleEndian.AppendUint32(buf, math.Float32bits(a.Value(i)))
	case *array.Date32:
		return binary.LittleEndian.AppendUint32(buf, uint32(a.Value(i)))
	case *array.Timestamp:
		return binary.LittleEndian.AppendUint64(buf, uint64(a.Value(i)))
	case *array.Boolean:
		if a.Value(i) {
			return append(buf, 1)
		}
		return append(buf, 0)
	case *array.String:
		return append(buf, a.Value(i)...)
	}
	return buf
}
