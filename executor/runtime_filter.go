package executor

// Runtime filters (nodes/runtime_filter.go, planner/runtime_filter.go).
//
// Protocol: a Hash Join with a RuntimeFilter and the Seq Scans with the
// matching RuntimeFilter ID meet in a filterSlot of their participant's
// ExecContext (each participant of a parallel plan has its own, as it has
// its own join and scans). When the join opens, and when it starts (before
// it reads an outer batch ahead of the build), it empties the slot, so
// that no scan sees the filter of an earlier run (a SubPlan reruns its
// plan with the same slots); it hashes the filter's keys of every build row it reads, spilled
// or not, into a Bloom filter (the join's own normalization and hash,
// hash_table.go), and publishes the filter in the slot once the build is
// complete, before it reads its probe side. A scan looks at the slot for
// each batch it reads: with no filter there it returns every row, else
// only the rows whose keys are all non-NULL and may be in the filter.
// So the filter never drops a row that matches, and a scan that runs
// before the build (or for a join that did not build) drops nothing.
//
// A scan stops consulting a filter that passed more than
// filterKeepRatio of the first filterSampleRows rows it checked, where it
// would only cost time. EXPLAIN ANALYZE counts the rows a scan's filters
// removed ("Rows Removed by Runtime Filter").

import (
	"cmp"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
)

const (
	// bloomBitsPerKey sizes a filter: three bits of one 64-bit word per
	// key, about 1% false positives when full.
	bloomBitsPerKey = 16
	// minBloomWords keeps small filters at 4 kB, where they stay in the
	// cache and pass almost no false positives.
	minBloomWords = 512
	// maxBloomWords bounds a filter's size (8 MB).
	maxBloomWords = 1 << 20
	// collectLimit is the build rows whose hashes the join keeps to size
	// the filter when the build ends; beyond it the filter is sized by
	// the planner's estimate (or four times the rows so far) at once.
	collectLimit = 1 << 20
	// overloadFactor: a build with more than this many times the rows
	// the filter was sized for publishes none (most rows would pass).
	overloadFactor = 8

	filterSampleRows = 1 << 17
	filterKeepRatio  = 0.85
)

// bloomFilter is a blocked Bloom filter over join key hashes: a key sets
// three bits of the one word its hash's top bits choose.
type bloomFilter struct {
	words []uint64
	shift uint // 64 - log2(len(words))
	// keys, when not nil, is exact: bit k set for the one word key lo+k,
	// for a build of integer keys in a range small enough (rangeBits):
	// one bit test per row, no hash, and no row passes that cannot
	// match (the Bloom filter still serves scans that hash their keys).
	keys  []uint64
	lo    int64
	nbits uint64
}

// maxRangeBits bounds an exact filter (1 MB); minRangeBits is a range
// always small enough (32 kB), else it must be at most rangeBitsPerKey
// bits a key, the Bloom filter's own size: sparse keys keep only that.
const (
	maxRangeBits    = 1 << 23
	minRangeBits    = 1 << 18
	rangeBitsPerKey = bloomBitsPerKey
)

// setRange makes f exact over the word keys ks, lo..hi, if their range
// is small enough.
func (f *bloomFilter) setRange(ks []int64, lo, hi int64) {
	span := uint64(hi) - uint64(lo) + 1 // hi >= lo; 0 when the range is all of int64
	if span == 0 || span > maxRangeBits || span > max(minRangeBits, uint64(len(ks))*rangeBitsPerKey) {
		return
	}
	f.keys, f.lo, f.nbits = make([]uint64, (span+63)/64), lo, span
	for _, k := range ks {
		u := uint64(k) - uint64(lo)
		f.keys[u>>6] |= 1 << (u & 63)
	}
}

// hasKey is the exact filter's test of word key v.
func (f *bloomFilter) hasKey(v int64) bool {
	u := uint64(v) - uint64(f.lo) // exact mod 2^64: < nbits only within the range
	return u < f.nbits && f.keys[u>>6]&(1<<(u&63)) != 0
}

func newBloomFilter(keys float64) *bloomFilter {
	n := minBloomWords
	for float64(n)*64 < keys*bloomBitsPerKey && n < maxBloomWords {
		n <<= 1
	}
	return &bloomFilter{words: make([]uint64, n), shift: uint(64 - bits.TrailingZeros(uint(n)))}
}

func bloomMask(h uint64) uint64 {
	return 1<<(h&63) | 1<<((h>>6)&63) | 1<<((h>>12)&63)
}

func (f *bloomFilter) add(h uint64) { f.words[h>>f.shift] |= bloomMask(h) }

func (f *bloomFilter) mayHave(h uint64) bool {
	m := bloomMask(h)
	return f.words[h>>f.shift]&m == m
}

// capacity is the keys the filter was sized for.
func (f *bloomFilter) capacity() int64 { return int64(len(f.words)) * 64 / bloomBitsPerKey }

// filterSlot is where a join publishes its filter for the scans.
type filterSlot struct{ f atomic.Pointer[bloomFilter] }

// runtimeFilters are a participant's slots, by filter ID.
type runtimeFilters struct{ slots map[int]*filterSlot }

// filterSlot returns the slot of filter id (made on first use; Build
// runs in one goroutine per participant).
func (ec *ExecContext) filterSlot(id int) *filterSlot {
	if ec.filters.slots == nil {
		ec.filters.slots = map[int]*filterSlot{}
	}
	s := ec.filters.slots[id]
	if s == nil {
		s = &filterSlot{}
		ec.filters.slots[id] = s
	}
	return s
}

// joinFilter is a hash join's side of a runtime filter.
type joinFilter struct {
	slot     *filterSlot
	keys     []evaluator // the inner keys the filter covers
	forms    []keyForm
	estimate float64  // the planner's build rows
	hashes   []uint64 // the build keys' hashes, until collectLimit
	// ints: the filter has one key, of integer values (words), which are
	// collected with their range, until collectLimit, for an exact filter.
	ints       bool
	intKeys    []int64
	collecting bool
	lo, hi     int64
	bloom      *bloomFilter
	added      int64
	scratch    keyScratch

	// early filters the outer batch the join read before building (when
	// its outer side is the filtered scan) by the join's outer keys;
	// scanStats are the scan's counters (nil without ANALYZE).
	early     scanFilter
	scanStats *instrument.NodeStats
	sel       []int32
}

func newJoinFilter(j *hashJoin) *joinFilter {
	src := j.plan.RuntimeFilter
	jf := &joinFilter{slot: j.ec.filterSlot(src.ID), estimate: j.plan.Inner.Rows}
	jf.early.slot = jf.slot
	for _, k := range src.Keys {
		jf.keys = append(jf.keys, j.innerKeys[k])
		jf.forms = append(jf.forms, j.forms[k])
		jf.early.keys = append(jf.early.keys, j.outerKeys[k])
	}
	jf.early.forms = jf.forms
	jf.ints = len(jf.forms) == 1 && jf.forms[0].kind == keyWords && jf.forms[0].t.IsInteger()
	if j.ec.Stats != nil {
		jf.scanStats = j.ec.Stats.Node(j.plan.Outer.Base().ID)
	}
	return jf
}

// filterEarly applies the published filter to b, an outer batch read
// before it was; nil when no row is left. The rows it removes count as
// the scan's, as if the scan had removed them.
func (jf *joinFilter) filterEarly(b arrow.RecordBatch) (arrow.RecordBatch, error) {
	jf.early.reset()
	var removed int64
	out, err := applyRuntimeFilters([]*scanFilter{&jf.early}, b, &jf.sel, &removed)
	if jf.scanStats != nil {
		jf.scanStats.RowsRemovedByRuntimeFilter += removed
		jf.scanStats.Rows -= removed
	}
	return out, err
}

// begin empties the slot for a new build.
func (jf *joinFilter) begin() {
	jf.slot.f.Store(nil)
	jf.hashes, jf.bloom, jf.added = jf.hashes[:0], nil, 0
	jf.intKeys, jf.collecting = jf.intKeys[:0], jf.ints
}

// add hashes the keys of build batch b into the filter.
func (jf *joinFilter) add(b arrow.RecordBatch) error {
	s := &jf.scratch
	if err := s.load(jf.keys, jf.forms, b); err != nil {
		return err
	}
	defer s.release()
	if jf.collecting {
		jf.collectInts(s)
	}
	for i, h := range s.hashes {
		if s.nulls != nil && s.nulls[i] {
			continue
		}
		jf.added++
		if jf.bloom != nil {
			jf.bloom.add(h)
			continue
		}
		jf.hashes = append(jf.hashes, h)
		if len(jf.hashes) >= collectLimit {
			jf.toBloom(max(jf.estimate, 4*collectLimit))
		}
	}
	return nil
}

// collectInts keeps the batch's integer keys (NULLs aside) and their
// range, up to collectLimit keys.
func (jf *joinFilter) collectInts(s *keyScratch) {
	for i, w := range s.keys[0].words[:len(s.hashes)] {
		if s.nulls != nil && s.nulls[i] {
			continue
		}
		if len(jf.intKeys) == 0 {
			jf.lo, jf.hi = w, w
		}
		jf.lo, jf.hi = min(jf.lo, w), max(jf.hi, w)
		jf.intKeys = append(jf.intKeys, w)
	}
	if len(jf.intKeys) > collectLimit {
		jf.intKeys, jf.collecting = nil, false
	}
}

// toBloom moves the collected hashes into a filter sized for keys.
func (jf *joinFilter) toBloom(keys float64) {
	jf.bloom = newBloomFilter(keys)
	for _, h := range jf.hashes {
		jf.bloom.add(h)
	}
	jf.hashes = jf.hashes[:0]
}

// publish hands the filter to the scans, unless it is overloaded.
func (jf *joinFilter) publish() {
	if f := jf.finish(); f != nil {
		jf.slot.f.Store(f)
	}
}

// finish returns the filter of the build's keys, nil when overloaded.
func (jf *joinFilter) finish() *bloomFilter {
	if jf.bloom == nil {
		jf.toBloom(float64(len(jf.hashes)))
	}
	f := jf.bloom
	jf.bloom = nil
	if cap(jf.hashes) > collectLimit/16 {
		jf.hashes = nil // do not keep a large buffer between builds
	}
	if jf.collecting && len(jf.intKeys) > 0 {
		f.setRange(jf.intKeys, jf.lo, jf.hi)
	}
	if cap(jf.intKeys) > collectLimit/16 {
		jf.intKeys = nil
	}
	if f.keys == nil && jf.added > f.capacity()*overloadFactor {
		return nil
	}
	return f
}

// scanFilter is a scan's side of a runtime filter.
type scanFilter struct {
	slot    *filterSlot
	keys    []evaluator
	forms   []keyForm
	checked int64
	passed  int64
	off     bool // stopped consulting the filter
	scratch keyScratch
}

func newScanFilters(rfs []*nodes.RuntimeFilter, ec *ExecContext) ([]*scanFilter, error) {
	var out []*scanFilter
	for _, rf := range rfs {
		sf := &scanFilter{slot: ec.filterSlot(rf.ID)}
		var err error
		if sf.keys, err = compileExprs(rf.Keys, ec); err != nil {
			return nil, err
		}
		for _, k := range rf.Keys {
			sf.forms = append(sf.forms, keyFormOf(k.Type()))
		}
		out = append(out, sf)
	}
	return out, nil
}

// reset starts a new scan: the filter is consulted again.
func (sf *scanFilter) reset() { sf.checked, sf.passed, sf.off = 0, 0, false }

// keep appends to sel the rows of b the filter may keep and reports
// whether it looked at all (no filter published yet, or switched off).
func (sf *scanFilter) keep(b arrow.RecordBatch, sel []int32) ([]int32, bool, error) {
	f := sf.slot.f.Load()
	if f == nil || sf.off {
		return sel, false, nil
	}
	if len(sf.keys) == 1 && sf.forms[0].kind == keyWords {
		ev := sf.keys[0]
		if c, ok := ev.(*checkedEval); ok { // tests check result types
			ev = c.ev
		}
		if cr, ok := ev.(*columnEval); ok && cr.idx < int(b.NumCols()) {
			if out, done := keepInts(f, b.Column(cr.idx), sel); done {
				sf.count(int(b.NumRows()), len(out)-len(sel))
				return out, true, nil
			}
		}
	}
	s := &sf.scratch
	if err := s.load(sf.keys, sf.forms, b); err != nil {
		return sel, false, err
	}
	defer s.release()
	for i, h := range s.hashes {
		if (s.nulls == nil || !s.nulls[i]) && f.mayHave(h) {
			sel = append(sel, int32(i))
		}
	}
	sf.count(len(s.hashes), len(sel))
	return sel, true, nil
}

// keptShare is the share of the rows checked that the filter kept (1
// before it checked any, or once it is off).
func (sf *scanFilter) keptShare() float64 {
	if sf.off || sf.checked == 0 {
		return 1
	}
	return float64(sf.passed) / float64(sf.checked)
}

// count adds a batch's checked and passed rows, and switches the filter
// off when it keeps almost every row.
func (sf *scanFilter) count(checked, passed int) {
	sf.checked += int64(checked)
	sf.passed += int64(passed)
	if sf.checked >= filterSampleRows && float64(sf.passed) > filterKeepRatio*float64(sf.checked) {
		sf.off = true
	}
}

// keepInts is keep's loop for one integer or date column without NULLs,
// hashed as hashKeys hashes one word key; done is false for other
// arrays.
func keepInts(f *bloomFilter, a arrow.Array, sel []int32) ([]int32, bool) {
	if a.NullN() > 0 {
		return sel, false
	}
	if f.keys != nil {
		return keepIntsExact(f, a, sel)
	}
	switch a.(type) {
	case *array.Int32, *array.Date32:
		for i, v := range valuesOf[int32](a) {
			if f.mayHave(mix64(uint64(int64(v)))) {
				sel = append(sel, int32(i))
			}
		}
	case *array.Int64, *array.Timestamp:
		for i, v := range valuesOf[int64](a) {
			if f.mayHave(mix64(uint64(v))) {
				sel = append(sel, int32(i))
			}
		}
	default:
		return sel, false
	}
	return sel, true
}

// keepIntsExact is keepInts by the exact filter: integer columns only
// (the filter's keys are integers; a date column is not keyed so).
func keepIntsExact(f *bloomFilter, a arrow.Array, sel []int32) ([]int32, bool) {
	switch a := a.(type) {
	case *array.Int16:
		for i, v := range a.Int16Values() {
			if f.hasKey(int64(v)) {
				sel = append(sel, int32(i))
			}
		}
	case *array.Int32:
		for i, v := range a.Int32Values() {
			if f.hasKey(int64(v)) {
				sel = append(sel, int32(i))
			}
		}
	case *array.Int64:
		for i, v := range a.Int64Values() {
			if f.hasKey(v) {
				sel = append(sel, int32(i))
			}
		}
	default:
		return sel, false
	}
	return sel, true
}

// applyRuntimeFilters returns the rows of b that the filters may keep
// (nil when none), taking b over; removed counts the others. The filter
// that has kept the smallest share of its rows so far goes first, so
// that the others check only what it keeps.
func applyRuntimeFilters(fs []*scanFilter, b arrow.RecordBatch, sel *[]int32, removed *int64) (arrow.RecordBatch, error) {
	if len(fs) > 1 {
		slices.SortStableFunc(fs, func(x, y *scanFilter) int { return cmp.Compare(x.keptShare(), y.keptShare()) })
	}
	for _, sf := range fs {
		s, looked, err := sf.keep(b, (*sel)[:0])
		*sel = s
		if err != nil {
			b.Release()
			return nil, err
		}
		n := int(b.NumRows())
		if !looked || len(s) == n {
			continue
		}
		if removed != nil {
			*removed += int64(n - len(s))
		}
		if len(s) == 0 {
			b.Release()
			return nil, nil
		}
		out := takeBatch(b, s)
		b.Release()
		b = out
	}
	return b, nil
}
