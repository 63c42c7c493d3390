package executor

// Window frames (nodeWindowAgg.c's update_frameheadpos,
// update_frametailpos and row_is_in_frame; the in_range support
// functions of int.c, float.c, numeric.c, date.c and timestamp.c).
//
// A frame is [head, tail) of the partition's rows minus the EXCLUDE
// clause's rows. ROWS bounds count rows from the current one; GROUPS
// bounds count peer groups; RANGE bounds with an offset compare the one
// ORDER BY column with the current row's value plus or minus the offset,
// through a head and a tail pointer that only move forward within a
// partition, as PostgreSQL's do: a row whose key is NULL frames with its
// NULL peers, and NULL rows are outside the frame of a non-NULL row.

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

type winFrame struct {
	mode       nodes.FrameMode
	start, end nodes.BoundKind
	exclude    nodes.FrameExclude
	startExpr  nodes.Expr
	endExpr    nodes.Expr
	// The offsets once evaluated: ROWS and GROUPS in startRows/endRows,
	// RANGE in the bounds.
	startRows, endRows int64
	startRange         rangeBound
	endRange           rangeBound
	// rangeCol is the position in cols of the ORDER BY column that RANGE
	// offsets compare (-1: none), in the order rangeDesc and
	// rangeNullsFirst say.
	rangeCol        int
	rangeDesc       bool
	rangeNullsFirst bool
}

// rangeBound is a RANGE offset bound: the offset and in_range's sub and
// less flags.
type rangeBound struct {
	sub, less bool
	neg       bool // the offset is negative (or NaN): in_range's 22013
	i         int64
	f         float64
	d         *apd.Decimal
	iv        types.Interval
}

func (w *windowAgg) compileFrame() error {
	f := w.plan.Frame
	w.frame = winFrame{mode: f.Mode, start: f.Start.Kind, end: f.End.Kind, exclude: f.Exclude,
		startExpr: f.Start.Offset, endExpr: f.End.Offset, rangeCol: -1}
	offsets := func(k nodes.BoundKind) bool { return k == nodes.BoundPreceding || k == nodes.BoundFollowing }
	for _, b := range []nodes.FrameBound{f.Start, f.End} {
		if offsets(b.Kind) && b.Offset == nil {
			return pgerr.Internal("executor: window frame offset missing")
		}
	}
	if f.Mode == nodes.FrameRange && (offsets(f.Start.Kind) || offsets(f.End.Kind)) {
		if len(w.plan.OrderBy) != 1 {
			return pgerr.New(pgerr.WindowingError, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
		}
		w.frame.rangeDesc, w.frame.rangeNullsFirst = w.plan.OrderBy[0].Desc, w.plan.OrderBy[0].NullsFirst
		c, err := w.column(w.plan.OrderBy[0].Expr)
		if err != nil {
			return err
		}
		switch kt := w.colTypes[c]; kt.ID {
		case types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric,
			types.IntervalType, types.Date, types.Timestamp, types.TimestampTZ:
		default:
			return pgerr.New(pgerr.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", kt)
		}
		w.frame.rangeCol = c
	}
	return nil
}

// evalOffsets evaluates the frame's offsets (calculate_frame_offsets).
func (f *winFrame) evalOffsets(ec *ExecContext) error {
	eval := func(e nodes.Expr, which string) (any, error) {
		v, err := EvalConst(e, ec)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, pgerr.New(pgerr.NullValueNotAllowed, "frame %s offset must not be null", which)
		}
		return v, nil
	}
	for i, b := range []struct {
		kind nodes.BoundKind
		expr nodes.Expr
		rows *int64
		rb   *rangeBound
		name string
	}{
		{f.start, f.startExpr, &f.startRows, &f.startRange, "starting"},
		{f.end, f.endExpr, &f.endRows, &f.endRange, "ending"},
	} {
		if b.kind != nodes.BoundPreceding && b.kind != nodes.BoundFollowing {
			continue
		}
		v, err := eval(b.expr, b.name)
		if err != nil {
			return err
		}
		if f.mode != nodes.FrameRange {
			n, ok := v.(int64)
			if !ok {
				return pgerr.Internal("executor: %s frame offset of type %T", b.name, v)
			}
			if n < 0 {
				return pgerr.New(errInvalidPrecedingOrFollowing, "frame %s offset must not be negative", b.name)
			}
			*b.rows = n
			continue
		}
		// in_range(val, base, offset, sub, less): the head wants
		// val >= base -/+ offset, the tail val <= base -/+ offset;
		// a descending order flips both.
		rb := b.rb
		rb.sub = b.kind == nodes.BoundPreceding
		rb.less = i == 1
		if f.rangeDesc {
			rb.sub, rb.less = !rb.sub, !rb.less
		}
		switch x := v.(type) {
		case int64:
			rb.i, rb.neg = x, x < 0
		case float64:
			rb.f, rb.neg = x, math.IsNaN(x) || x < 0
		case *apd.Decimal:
			rb.d = x
			rb.neg = x.Form == apd.NaN || x.Negative && (x.Form == apd.Infinite || !x.IsZero())
		case types.Interval:
			rb.iv, rb.neg = x, types.CompareInterval(x, types.Interval{}) < 0
		default:
			return pgerr.Internal("executor: RANGE offset of type %T", v)
		}
	}
	return nil
}

// SQLSTATE 22013 (invalid_preceding_or_following_size).
const errInvalidPrecedingOrFollowing = "22013"

func errInRangeSize() error {
	return pgerr.New(errInvalidPrecedingOrFollowing, "invalid preceding or following size in window function")
}

// frameHead is the first row of row r's frame (before exclusion); g is
// r's peer group.
func (w *windowAgg) frameHead(p *winPart, r, g int) (int, error) {
	f := &w.frame
	switch f.start {
	case nodes.BoundUnboundedPreceding:
		return 0, nil
	case nodes.BoundUnboundedFollowing:
		return p.n, nil
	case nodes.BoundCurrentRow:
		if f.mode == nodes.FrameRows {
			return r, nil
		}
		return p.peers[g], nil
	}
	prec := f.start == nodes.BoundPreceding
	switch f.mode {
	case nodes.FrameRows:
		return clampRow(offsetBy(int64(r), f.startRows, prec), p.n), nil
	case nodes.FrameGroups:
		gg := offsetBy(int64(g), f.startRows, prec)
		return p.peers[clampRow(gg, p.ngroups())], nil
	}
	for p.head < p.n {
		stop, err := w.rangeHeadStops(p, p.head, r)
		if err != nil || stop {
			return p.head, err
		}
		p.head++
	}
	return p.head, nil
}

// frameTail is one past the last row of row r's frame (before
// exclusion).
func (w *windowAgg) frameTail(p *winPart, r, g int) (int, error) {
	f := &w.frame
	switch f.end {
	case nodes.BoundUnboundedFollowing:
		return p.n, nil
	case nodes.BoundUnboundedPreceding:
		return 0, nil
	case nodes.BoundCurrentRow:
		if f.mode == nodes.FrameRows {
			return r + 1, nil
		}
		return p.peers[g+1], nil
	}
	prec := f.end == nodes.BoundPreceding
	switch f.mode {
	case nodes.FrameRows:
		return clampRow(satAdd(offsetBy(int64(r), f.endRows, prec), 1), p.n), nil
	case nodes.FrameGroups:
		gg := satAdd(offsetBy(int64(g), f.endRows, prec), 1)
		return p.peers[clampRow(gg, p.ngroups())], nil
	}
	for p.tail < p.n {
		stop, err := w.rangeTailStops(p, p.tail, r)
		if err != nil || stop {
			return p.tail, err
		}
		p.tail++
	}
	return p.tail, nil
}

// offsetBy is v - off (prec) or v + off, saturating.
func offsetBy(v, off int64, prec bool) int64 {
	if prec {
		if v < math.MinInt64+off {
			return math.MinInt64
		}
		return v - off
	}
	return satAdd(v, off)
}

func satAdd(v, d int64) int64 {
	if d > 0 && v > math.MaxInt64-d {
		return math.MaxInt64
	}
	return v + d
}

func clampRow(v int64, n int) int {
	if v < 0 {
		return 0
	}
	if v > int64(n) {
		return n
	}
	return int(v)
}

// rangeHeadStops reports whether row h is row r's frame head (the RANGE
// START_OFFSET loop of update_frameheadpos).
func (w *windowAgg) rangeHeadStops(p *winPart, h, r int) (bool, error) {
	k := &p.key
	hn, cn := k.null(h), k.null(r)
	if hn || cn {
		if w.frame.rangeNullsFirst {
			return !hn || cn, nil // advance while the head is NULL and the current row is not
		}
		return hn || !cn, nil // advance while the head is not NULL and the current row is
	}
	return w.inRange(k, h, r, &w.frame.startRange)
}

// rangeTailStops reports whether row t is past row r's frame (the RANGE
// END_OFFSET loop of update_frametailpos).
func (w *windowAgg) rangeTailStops(p *winPart, t, r int) (bool, error) {
	k := &p.key
	tn, cn := k.null(t), k.null(r)
	if tn || cn {
		if w.frame.rangeNullsFirst {
			return !tn, nil // advance while the tail is NULL
		}
		return !cn, nil // advance while the current row is NULL
	}
	ok, err := w.inRange(k, t, r, &w.frame.endRange)
	return !ok, err
}

// rangeKey is a partition's RANGE key column, typed.
type rangeKey struct {
	t     types.T
	nulls nullBits
	ints  []int64 // integers, dates (days), timestamps
	flts  []float64
	decs  []*apd.Decimal // numeric, decoded when first read
	dset  []bool
	ivs   []types.Interval
	col   winCol
}

func (k *rangeKey) reset() {
	k.col = winCol{}
	k.decs, k.dset = k.decs[:0], k.dset[:0]
}

func (k *rangeKey) bind(c winCol, t types.T) {
	k.t, k.col = t, c
	k.nulls = nullsOf(c)
	n := c.arr.Len() - c.off
	switch t.ID {
	case types.Int2:
		k.ints = widen(k.ints, valuesOf[int16](c.arr)[c.off:])
	case types.Int4, types.Date:
		k.ints = widen(k.ints, valuesOf[int32](c.arr)[c.off:])
	case types.Int8, types.Timestamp, types.TimestampTZ:
		k.ints = valuesOf[int64](c.arr)[c.off:]
	case types.Float4:
		k.flts = k.flts[:0]
		for _, v := range valuesOf[float32](c.arr)[c.off:] {
			k.flts = append(k.flts, float64(v))
		}
	case types.Float8:
		k.flts = valuesOf[float64](c.arr)[c.off:]
	case types.Numeric:
		k.decs, k.dset = grow(k.decs[:0], n), grow(k.dset[:0], n)
	case types.IntervalType:
		k.ivs = k.ivs[:0]
		ia := c.arr.(*array.MonthDayNanoInterval)
		for i := 0; i < n; i++ {
			v := ia.Value(c.off + i)
			k.ivs = append(k.ivs, types.Interval{Months: v.Months, Days: v.Days, Micros: v.Nanoseconds / 1000})
		}
	}
}

func widen[T int16 | int32](dst []int64, src []T) []int64 {
	dst = dst[:0]
	for _, v := range src {
		dst = append(dst, int64(v))
	}
	return dst
}

func (k *rangeKey) null(i int) bool { return !k.nulls.valid(i) }

func (k *rangeKey) dec(i int) *apd.Decimal {
	if !k.dset[i] {
		k.decs[i] = types.DatumAt(k.col.arr, types.NumericT, k.col.off+i).(*apd.Decimal)
		k.dset[i] = true
	}
	return k.decs[i]
}

// inRange is in_range(val = row v, base = row b, offset, sub, less) for
// the key's type: val <= base -/+ offset when less, val >= ... otherwise.
func (w *windowAgg) inRange(k *rangeKey, v, b int, rb *rangeBound) (bool, error) {
	if rb.neg {
		return false, errInRangeSize()
	}
	switch k.t.ID {
	case types.Int2, types.Int4, types.Int8:
		val, base := k.ints[v], k.ints[b]
		var sum int64
		if rb.sub {
			if base < math.MinInt64+rb.i {
				return !rb.less, nil // the true difference is below every value
			}
			sum = base - rb.i
		} else {
			if base > math.MaxInt64-rb.i {
				return rb.less, nil
			}
			sum = base + rb.i
		}
		return cmpLess(val, sum, rb.less), nil
	case types.Float4, types.Float8:
		val, base, off := k.flts[v], k.flts[b], rb.f
		switch {
		case math.IsNaN(val):
			return math.IsNaN(base) || !rb.less, nil
		case math.IsNaN(base):
			return rb.less, nil
		case math.IsInf(off, 0) && math.IsInf(base, 0) && (rb.sub && base > 0 || !rb.sub && base < 0):
			return true, nil
		}
		sum := base + off
		if rb.sub {
			sum = base - off
		}
		if rb.less {
			return val <= sum, nil
		}
		return val >= sum, nil
	case types.Numeric:
		val, base, off := k.dec(v), k.dec(b), rb.d
		switch {
		case val.Form == apd.NaN:
			return base.Form == apd.NaN || !rb.less, nil
		case base.Form == apd.NaN:
			return rb.less, nil
		case off.Form == apd.Infinite:
			pinf := func(d *apd.Decimal) bool { return d.Form == apd.Infinite && !d.Negative }
			ninf := func(d *apd.Decimal) bool { return d.Form == apd.Infinite && d.Negative }
			switch {
			case rb.sub && pinf(base) || !rb.sub && ninf(base):
				return true, nil
			case rb.sub:
				return !rb.less || ninf(val), nil
			default:
				return rb.less || pinf(val), nil
			}
		}
		var sum *apd.Decimal
		var err error
		if rb.sub {
			sum, err = types.NumericSub(base, off)
		} else {
			sum, err = types.NumericAdd(base, off)
		}
		if err != nil {
			return false, err
		}
		c := types.Compare(types.NumericT, val, sum)
		return rb.less && c <= 0 || !rb.less && c >= 0, nil
	case types.IntervalType:
		var sum types.Interval
		var err error
		if rb.sub {
			sum, err = types.IntervalSub(k.ivs[b], rb.iv)
		} else {
			sum, err = types.IntervalAdd(k.ivs[b], rb.iv)
		}
		if err != nil {
			return false, err
		}
		c := types.CompareInterval(k.ivs[v], sum)
		return rb.less && c <= 0 || !rb.less && c >= 0, nil
	}
	// Dates and timestamps: the timestamps base +/- offset and val.
	val, base := k.ints[v], k.ints[b]
	if k.t.ID == types.Date {
		var err error
		if val, err = types.DatePlusInterval(int32(val), types.Interval{}); err != nil {
			return false, err
		}
		if base, err = types.DatePlusInterval(int32(base), types.Interval{}); err != nil {
			return false, err
		}
	}
	var sum int64
	var err error
	if rb.sub {
		sum, err = types.TimestampMinusInterval(base, rb.iv)
	} else {
		sum, err = types.TimestampPlusInterval(base, rb.iv)
	}
	if err != nil {
		return false, err
	}
	return cmpLess(val, sum, rb.less), nil
}

func cmpLess(val, sum int64, less bool) bool {
	if less {
		return val <= sum
	}
	return val >= sum
}

// frameSet is a frame after exclusion: up to three disjoint ranges of
// rows in ascending order (n of them; none for an empty frame).
type frameSet struct {
	lo, hi [3]int
	n      int
}

func (s *frameSet) add(a, b int) {
	if a >= b {
		return
	}
	if s.n > 0 && s.hi[s.n-1] == a {
		s.hi[s.n-1] = b // adjacent: one range
		return
	}
	s.lo[s.n], s.hi[s.n] = a, b
	s.n++
}

// makeFrameSet is the frame [head, tail) of row r, whose peer group is
// [gh, gt), minus the rows ex excludes (row_is_in_frame).
func makeFrameSet(head, tail int, ex nodes.FrameExclude, r, gh, gt int) frameSet {
	var s frameSet
	switch ex {
	case nodes.ExcludeCurrentRow:
		s.add(head, min(tail, r))
		s.add(max(head, r+1), tail)
	case nodes.ExcludeGroup:
		s.add(head, min(tail, gh))
		s.add(max(head, gt), tail)
	case nodes.ExcludeTies:
		s.add(head, min(tail, gh))
		if r >= head && r < tail {
			s.add(r, r+1)
		}
		s.add(max(head, gt), tail)
	default:
		s.add(head, tail)
	}
	return s
}

func (s *frameSet) equal(t *frameSet) bool {
	if s.n != t.n {
		return false
	}
	for i := 0; i < s.n; i++ {
		if s.lo[i] != t.lo[i] || s.hi[i] != t.hi[i] {
			return false
		}
	}
	return true
}

// inFrame is row_is_in_frame for row pos of row r's frame.
func inFrame(pos, head, tail int, ex nodes.FrameExclude, r, gh, gt int) bool {
	if pos < head || pos >= tail {
		return false
	}
	switch ex {
	case nodes.ExcludeCurrentRow:
		return pos != r
	case nodes.ExcludeGroup:
		return pos < gh || pos >= gt
	case nodes.ExcludeTies:
		return pos == r || pos < gh || pos >= gt
	}
	return true
}

// seekHead is the row WinGetFuncArgInFrame reads for WINDOW_SEEK_HEAD
// and relpos (first_value: 0, nth_value: n-1), or -1 when it is out of
// the frame; it adjusts for exclusion as PostgreSQL does, then checks
// the row is in the frame.
func seekHead(relpos int64, n, head, tail int, ex nodes.FrameExclude, r, gh, gt int) int {
	abs := int64(head) + relpos
	switch ex {
	case nodes.ExcludeCurrentRow:
		if abs >= int64(r) && r >= head {
			abs++
		}
	case nodes.ExcludeGroup:
		if abs >= int64(gh) && gt > head {
			abs += int64(gt - max(gh, head))
		}
	case nodes.ExcludeTies:
		if abs >= int64(gh) && gt > head {
			overlap := max(gh, head)
			if abs == int64(overlap) {
				abs = int64(r)
			} else {
				abs += int64(gt - overlap - 1)
			}
		}
	}
	if abs < 0 || abs >= int64(n) || !inFrame(int(abs), head, tail, ex, r, gh, gt) {
		return -1
	}
	return int(abs)
}

// seekTail is WINDOW_SEEK_TAIL with relpos 0 (last_value).
func seekTail(n, head, tail int, ex nodes.FrameExclude, r, gh, gt int) int {
	abs := tail - 1
	switch ex {
	case nodes.ExcludeCurrentRow:
		if abs <= r && r < tail {
			abs--
		}
	case nodes.ExcludeGroup:
		if abs < gt && gh < tail {
			abs -= min(gt, tail) - gh
		}
	case nodes.ExcludeTies:
		if abs < gt && gh < tail {
			overlapEnd := min(gt, tail)
			if abs == overlapEnd-1 {
				abs = r
			} else {
				abs -= overlapEnd - 1 - gh
			}
		}
	}
	if ex != nodes.ExcludeNoOthers && abs < head {
		return -1
	}
	if abs < 0 || abs >= n || !inFrame(abs, head, tail, ex, r, gh, gt) {
		return -1
	}
	return abs
}
