package storage

// Column statistics for the planner's estimates, kept by the table,
// computed by ANALYZE or when the planner asks after enough rows changed
// (autoanalyze, below): the fraction of NULLs, the number of
// distinct values, the most common values and a histogram per column,
// from a sample of up to statsSampleRows rows (PostgreSQL's ANALYZE samples 300 x default_statistics_target =
// 30,000 rows the same way).

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pgfed/pgfed/types"
)

const (
	statsSampleRows = 30000
	// statsTarget is default_statistics_target: at most this many most
	// common values, and histograms of this many buckets.
	statsTarget = 100
)

// ColumnStats describes one column's values, as pg_statistic does.
type ColumnStats struct {
	NullFrac  float64 // fraction of rows that are NULL
	NDistinct float64 // estimated number of distinct non-NULL values
	// MCVs are the most common values, most common first, and MCVFreqs
	// the fraction of all rows holding each.
	MCVs     []StatValue
	MCVFreqs []float64
	// Histogram holds ascending bounds dividing the values that are not
	// MCVs into buckets of equal population (empty when fewer than two
	// distinct values remain).
	Histogram []StatValue
}

// StatValue is a column value as the statistics keep it: numbers,
// dates, timestamps and booleans (false 0, true 1) as Num, strings as Str.
// Within one column only one of the two is used, so values compare by
// both fields in turn.
type StatValue struct {
	Num float64
	Str string
}

// Less orders values of one column.
func (v StatValue) Less(w StatValue) bool {
	if v.Num != w.Num {
		return v.Num < w.Num
	}
	return v.Str < w.Str
}

// sampledValue counts one distinct value of a column's sample.
type sampledValue struct {
	value StatValue
	count int
}

// Autoanalyze: statistics are recomputed when more rows changed since
// they were computed than PostgreSQL's autovacuum waits for before it
// analyzes a table (autovacuum_analyze_threshold +
// autovacuum_analyze_scale_factor x rows), not after every write: a
// single-row write to a large table must not cost a pass over its rows.
const (
	analyzeThreshold   = 50
	analyzeScaleFactor = 0.1
)

// Stats returns the column statistics of t's own rows (nil for a table
// without rows), computing them if none were, or if too many rows changed
// since. Distinct counts that were a large share of the rows (more than a
// tenth, as ANALYZE stores them as a fraction) grow and shrink with the
// table until then.
func (t *Table) Stats() []ColumnStats {
	t.mu.RLock()
	st, statsRows, changes, rows := t.stats, t.statsRows, t.changes, t.latestLocked().rows
	t.mu.RUnlock()
	if st != nil && float64(changes) <= analyzeThreshold+analyzeScaleFactor*float64(statsRows) {
		return scaleDistinct(st, statsRows, rows)
	}
	return t.Analyze()
}

// Analyze computes t's column statistics now (ANALYZE) and returns them.
func (t *Table) Analyze() []ColumnStats {
	t.mu.RLock()
	v, changes := t.latestLocked(), t.changes
	batches := retained(v.batches)
	t.mu.RUnlock()
	defer releaseBatches(batches)
	if v.rows == 0 {
		t.mu.Lock()
		t.stats, t.statsRows, t.changes = nil, 0, t.changes-changes
		t.mu.Unlock()
		return nil
	}
	st := make([]ColumnStats, len(t.Columns))
	sample := sampleRows(v.rows)
	for c, col := range t.Columns {
		st[c] = columnStats(batches, c, col.Type.ID == types.Numeric, sample, v.rows)
	}
	t.mu.Lock()
	t.stats, t.statsRows, t.changes = st, v.rows, t.changes-changes
	t.mu.Unlock()
	return st
}

// scaleDistinct returns st for a table of rows rows, computed when it
// had statsRows: distinct counts above a tenth of the rows scale with
// them (PostgreSQL's negative stadistinct).
func scaleDistinct(st []ColumnStats, statsRows, rows int64) []ColumnStats {
	if rows == statsRows || rows == 0 {
		return st
	}
	var out []ColumnStats
	for i, c := range st {
		if c.NDistinct <= 0.1*float64(statsRows) {
			continue
		}
		if out == nil {
			out = slices.Clone(st)
		}
		out[i].NDistinct = math.Max(1, c.NDistinct*float64(rows)/float64(statsRows))
	}
	if out == nil {
		return st
	}
	return out
}

// columnStats computes column c's statistics from the sampled rows of
// a table of total rows.
func columnStats(batches []arrow.RecordBatch, c int, numericText bool, sample []int64, total int64) ColumnStats {
	var st ColumnStats
	seen := map[string]*sampledValue{}
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
			if sv, ok := seen[string(buf)]; ok {
				sv.count++
			} else {
				seen[string(buf)] = &sampledValue{value: statValue(arr, i, numericText), count: 1}
			}
		}
		base += n
	}
	nonNull := sampled - nulls
	if sampled > 0 {
		st.NullFrac = float64(nulls) / float64(sampled)
	}
	d := float64(len(seen))
	fullSample := int64(sampled) >= total
	if !fullSample && nonNull > 0 {
		d = estimateDistinct(seen, nonNull, float64(total)*(1-st.NullFrac))
	}
	st.NDistinct = math.Max(d, 1)
	if nonNull > 0 {
		values := make([]*sampledValue, 0, len(seen))
		for _, sv := range seen {
			values = append(values, sv)
		}
		st.MCVs, st.MCVFreqs, st.Histogram = mcvsAndHistogram(values, sampled, nonNull, st.NDistinct, fullSample)
	}
	return st
}

// mcvsAndHistogram picks the most common values as compute_scalar_stats
// does (values seen more than once; of a sampled table only those well
// above the average count, 1.25 times it) and builds the equi-depth
// histogram of the remaining values.
func mcvsAndHistogram(values []*sampledValue, sampled, nonNull int, ndistinct float64, fullSample bool) ([]StatValue, []float64, []StatValue) {
	slices.SortFunc(values, func(a, b *sampledValue) int {
		if a.count != b.count {
			return b.count - a.count
		}
		if a.value.Less(b.value) {
			return -1
		}
		return 1
	})
	minCount := 2.0
	if !fullSample {
		avg := float64(nonNull) / ndistinct
		minCount = math.Max(2, math.Min(1.25*avg, float64(sampled)/statsTarget))
	}
	nmcv := 0
	for nmcv < len(values) && nmcv < statsTarget && float64(values[nmcv].count) >= minCount {
		nmcv++
	}
	var mcvs []StatValue
	var freqs []float64
	for _, sv := range values[:nmcv] {
		mcvs = append(mcvs, sv.value)
		freqs = append(freqs, float64(sv.count)/float64(sampled))
	}
	rest := values[nmcv:]
	if len(rest) < 2 {
		return mcvs, freqs, nil
	}
	slices.SortFunc(rest, func(a, b *sampledValue) int {
		if a.value.Less(b.value) {
			return -1
		}
		return 1
	})
	// Bounds at equal steps through the rest's sorted sample rows.
	var restRows int
	for _, sv := range rest {
		restRows += sv.count
	}
	nbounds := min(len(rest), statsTarget+1)
	hist := make([]StatValue, 0, nbounds)
	idx, below := 0, 0 // rest[idx] covers sample rows [below, below+count)
	for j := range nbounds {
		pos := j * (restRows - 1) / (nbounds - 1)
		for below+rest[idx].count <= pos {
			below += rest[idx].count
			idx++
		}
		hist = append(hist, rest[idx].value)
	}
	return mcvs, freqs, hist
}

// statValue reads the value at row i as the statistics keep it.
func statValue(arr arrow.Array, i int, numericText bool) StatValue {
	switch a := arr.(type) {
	case *array.Int64:
		return StatValue{Num: float64(a.Value(i))}
	case *array.Int32:
		return StatValue{Num: float64(a.Value(i))}
	case *array.Int16:
		return StatValue{Num: float64(a.Value(i))}
	case *array.Float64:
		return StatValue{Num: a.Value(i)}
	case *array.Float32:
		return StatValue{Num: float64(a.Value(i))}
	case *array.Date32:
		return StatValue{Num: float64(a.Value(i))}
	case *array.Timestamp:
		return StatValue{Num: float64(a.Value(i))}
	case *array.Boolean:
		if a.Value(i) {
			return StatValue{Num: 1}
		}
		return StatValue{}
	case *array.String:
		if numericText {
			f, _ := strconv.ParseFloat(a.Value(i), 64)
			return StatValue{Num: f}
		}
		return StatValue{Str: a.Value(i)}
	}
	// Other types: distinguishable by their text, not ordered by it (no
	// constant of theirs is compared with the histogram).
	return StatValue{Str: arr.ValueStr(i)}
}

// estimateDistinct is PostgreSQL's estimate of a column's distinct
// values from a sample of n non-NULL values out of rows (analyze.c's
// compute_distinct_stats, the Haas and Stokes "Duj1" estimator):
// n*d / (n - f1 + f1*n/rows), where d values were seen and f1 of them
// once. Values seen several times say the column repeats (l_suppkey's
// 10,000 suppliers in 6M rows stay about 10,000); values all seen once
// say it is unique (the estimate is rows).
func estimateDistinct(counts map[string]*sampledValue, n int, rows float64) float64 {
	d := float64(len(counts))
	f1 := 0
	for _, sv := range counts {
		if sv.count == 1 {
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
	// Other types (intervals, ...) by their text form.
	return append(buf, arr.ValueStr(i)...)
}
