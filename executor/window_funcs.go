package executor

// The window functions (windowfuncs.c) and the window aggregates'
// running states. The functions that ignore the frame run in one loop
// per partition over its peer groups; aggregates keep a state that
// rows are added to (winAcc): typed states for count, sum and avg of
// integers and floats, min and max of integers, dates, timestamps and
// floats, bool_and and bool_or, computed exactly as agg_funcs.go's;
// every other aggregate runs agg_funcs.go's own state over slices of the
// partition's columns (winGenericAcc).

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// Window function kinds.
const (
	wfRowNumber = iota
	wfRank
	wfDenseRank
	wfPercentRank
	wfCumeDist
	wfNtile
	wfLag
	wfLead
	wfFirstValue
	wfLastValue
	wfNthValue
	wfAgg
)

var winKinds = map[string]struct{ kind, minArgs, maxArgs int }{
	"row_number":   {wfRowNumber, 0, 0},
	"rank":         {wfRank, 0, 0},
	"dense_rank":   {wfDenseRank, 0, 0},
	"percent_rank": {wfPercentRank, 0, 0},
	"cume_dist":    {wfCumeDist, 0, 0},
	"ntile":        {wfNtile, 1, 1},
	"lag":          {wfLag, 1, 3},
	"lead":         {wfLead, 1, 3},
	"first_value":  {wfFirstValue, 1, 1},
	"last_value":   {wfLastValue, 1, 1},
	"nth_value":    {wfNthValue, 2, 2},
}

// winFunc is one function of the node.
type winFunc struct {
	fn   *nodes.WindowFunc
	kind int
	args []int // positions in windowAgg.cols
	out  winOut
	acc  winAcc // aggregates
}

func (w *windowAgg) compileFunc(fn *nodes.WindowFunc) (*winFunc, error) {
	f := &winFunc{fn: fn, out: newWinOut(fn.T)}
	if fn.Agg != nil {
		f.kind = wfAgg
		acc, err := w.newAcc(fn.Agg)
		f.acc = acc
		return f, err
	}
	k, ok := winKinds[fn.Name]
	if !ok {
		return nil, pgerr.Internal("executor: unknown window function %s", fn.Name)
	}
	if len(fn.Args) < k.minArgs || len(fn.Args) > k.maxArgs {
		return nil, pgerr.Internal("executor: %s with %d arguments", fn.Name, len(fn.Args))
	}
	f.kind = k.kind
	for _, a := range fn.Args {
		c, err := w.column(a)
		if err != nil {
			return nil, err
		}
		f.args = append(f.args, c)
	}
	return f, nil
}

// computePlain computes a function that ignores the frame.
func (w *windowAgg) computePlain(f *winFunc, p *winPart, in *interrupter) error {
	b := f.out.builder()
	n := p.n
	in.add(n)
	switch f.kind {
	case wfRowNumber:
		bb := b.(*array.Int64Builder)
		bb.Reserve(n)
		for r := 0; r < n; r++ {
			bb.UnsafeAppend(int64(r + 1))
		}
	case wfRank, wfDenseRank:
		bb := b.(*array.Int64Builder)
		bb.Reserve(n)
		for g := 0; g < p.ngroups(); g++ {
			v := int64(p.peers[g] + 1)
			if f.kind == wfDenseRank {
				v = int64(g + 1)
			}
			for r := p.peers[g]; r < p.peers[g+1]; r++ {
				bb.UnsafeAppend(v)
			}
		}
	case wfPercentRank, wfCumeDist:
		bb := b.(*array.Float64Builder)
		bb.Reserve(n)
		for g := 0; g < p.ngroups(); g++ {
			var v float64
			if f.kind == wfCumeDist {
				v = float64(p.peers[g+1]) / float64(n)
			} else if n > 1 {
				v = float64(p.peers[g]) / float64(n-1)
			}
			for r := p.peers[g]; r < p.peers[g+1]; r++ {
				bb.UnsafeAppend(v)
			}
		}
	case wfNtile:
		return ntile(b.(*array.Int32Builder), p.cols[f.args[0]], n)
	case wfLag, wfLead:
		val := p.cols[f.args[0]]
		for r := 0; r < n; r++ {
			off := int64(1)
			if len(f.args) > 1 {
				o, ok := intAt(p.cols[f.args[1]], r)
				if !ok {
					b.AppendNull()
					continue
				}
				off = o
			}
			if f.kind == wfLag {
				off = -off
			}
			t := int64(r) + off
			switch {
			case t >= 0 && t < int64(n):
				appendValue(b, val, int(t))
			case len(f.args) > 2:
				appendValue(b, p.cols[f.args[2]], r)
			default:
				b.AppendNull()
			}
		}
	}
	return nil
}

// ntile is window_ntile: the bucket count is read from the current row
// until it is not NULL (a NULL count gives NULL), then rows are dealt
// into that many buckets, the first total % count of them one row
// larger.
func ntile(bb *array.Int32Builder, arg winCol, n int) error {
	var tile int32
	var rows, boundary, remainder int64
	for r := 0; r < n; r++ {
		if tile == 0 {
			nb, ok := intAt(arg, r)
			if !ok {
				bb.AppendNull()
				continue
			}
			if nb <= 0 {
				return pgerr.New("22014", "argument of ntile must be greater than zero")
			}
			tile, rows = 1, 0
			boundary = int64(n) / nb
			if boundary <= 0 {
				boundary = 1
			} else if remainder = int64(n) % nb; remainder != 0 {
				boundary++
			}
		}
		rows++
		if boundary < rows {
			if remainder != 0 && int64(tile) == remainder {
				remainder = 0
				boundary--
			}
			tile++
			rows = 1
		}
		bb.Append(tile)
	}
	return nil
}

// computeFramed computes the aggregates and first_value, last_value and
// nth_value of a partition, row by row.
func (w *windowAgg) computeFramed(p *winPart, in *interrupter) error {
	fr := &w.frame
	for _, f := range w.aggs {
		f.acc.bind(p)
	}
	var prev, cur frameSet
	havePrev := false
	// The aggregates' states hold the rows [stLo, stHi) when simple.
	simple, stLo, stHi := false, 0, 0
	pending := 0 // rows that share the states' current value
	// Without ROWS and with no exclusion but of the whole peer group, a
	// row's frame is its peer group's: one step per group (peers compare
	// equal, so RANGE offsets frame them alike).
	perGroup := fr.mode != nodes.FrameRows && (fr.exclude == nodes.ExcludeNoOthers || fr.exclude == nodes.ExcludeGroup)
	// When every state can take rows out exactly (count, integer sum and
	// avg, bool_and, bool_or: PostgreSQL's inverse transition functions),
	// a frame whose head moves is updated, not recomputed.
	removable := true
	for _, f := range w.aggs {
		_, ok := f.acc.(winRemover)
		removable = removable && ok
	}
	for _, f := range w.values {
		perGroup = perGroup && f.kind != wfNthValue // n is read per row
	}
	g := 0
	for r := 0; r < p.n; r++ {
		for r >= p.peers[g+1] {
			g++
		}
		head, err := w.frameHead(p, r, g)
		if err != nil {
			return err
		}
		tail, err := w.frameTail(p, r, g)
		if err != nil {
			return err
		}
		gh, gt := p.peers[g], p.peers[g+1]
		rows := 1
		if perGroup {
			rows = gt - r
			r = gt - 1
		}
		for _, f := range w.values {
			for k := 0; k < rows; k++ {
				if err := frameValue(f, p, r, head, tail, fr.exclude, gh, gt); err != nil {
					return err
				}
			}
		}
		in.add(rows)
		if len(w.aggs) == 0 {
			continue
		}
		cur = makeFrameSet(head, max(head, tail), fr.exclude, r, gh, gt)
		if havePrev && cur.equal(&prev) {
			pending += rows
			continue
		}
		if pending > 0 {
			if err := w.emitAggs(pending); err != nil {
				return err
			}
		}
		if cur.n == 1 && simple && cur.lo[0] == stLo && cur.hi[0] >= stHi {
			// The frame grew at its end: add the new rows.
			if err := w.addAggs(stHi, cur.hi[0], in); err != nil {
				return err
			}
			stHi = cur.hi[0]
		} else if cur.n == 1 && simple && removable && cur.lo[0] >= stLo && cur.lo[0] <= stHi && cur.hi[0] >= stHi {
			// The frame slid: take out the rows it left, add the new ones.
			for _, f := range w.aggs {
				f.acc.(winRemover).remove(stLo, cur.lo[0])
			}
			in.add(cur.lo[0] - stLo)
			if err := w.addAggs(stHi, cur.hi[0], in); err != nil {
				return err
			}
			stLo, stHi = cur.lo[0], cur.hi[0]
		} else {
			for _, f := range w.aggs {
				f.acc.reset()
			}
			for i := 0; i < cur.n; i++ {
				if err := w.addAggs(cur.lo[i], cur.hi[i], in); err != nil {
					return err
				}
			}
			simple = cur.n <= 1
			stLo, stHi = head, head
			if cur.n == 1 {
				stLo, stHi = cur.lo[0], cur.hi[0]
			}
		}
		prev, havePrev, pending = cur, true, rows
	}
	if pending > 0 {
		return w.emitAggs(pending)
	}
	return nil
}

// emitAggs appends the aggregates' current values k times.
func (w *windowAgg) emitAggs(k int) error {
	for _, f := range w.aggs {
		if err := f.acc.emit(f.out.builder(), k); err != nil {
			return err
		}
	}
	return nil
}

// addAggs adds the partition rows [lo, hi) to the aggregates' states.
func (w *windowAgg) addAggs(lo, hi int, in *interrupter) error {
	for _, f := range w.aggs {
		if err := f.acc.add(lo, hi); err != nil {
			return err
		}
	}
	in.add(hi - lo)
	return nil
}

// frameValue appends first_value, last_value or nth_value of row r.
func frameValue(f *winFunc, p *winPart, r, head, tail int, ex nodes.FrameExclude, gh, gt int) error {
	b := f.out.builder()
	var pos int
	switch f.kind {
	case wfFirstValue:
		pos = seekHead(0, p.n, head, tail, ex, r, gh, gt)
	case wfLastValue:
		pos = seekTail(p.n, head, tail, ex, r, gh, gt)
	default:
		nth, ok := intAt(p.cols[f.args[1]], r)
		if !ok {
			b.AppendNull()
			return nil
		}
		if nth <= 0 {
			return pgerr.New("22016", "argument of nth_value must be greater than zero")
		}
		pos = seekHead(nth-1, p.n, head, tail, ex, r, gh, gt)
	}
	if pos < 0 {
		b.AppendNull()
	} else {
		appendValue(b, p.cols[f.args[0]], pos)
	}
	return nil
}

// nullBits reads a column's validity at partition rows.
type nullBits struct {
	bm  []byte
	off int
	all bool // every row is NULL (an array of type null)
}

func nullsOf(c winCol) nullBits {
	if c.arr == nil || c.arr.NullN() == 0 {
		return nullBits{}
	}
	d := c.arr.Data()
	if d.Buffers()[0] == nil {
		return nullBits{all: true}
	}
	return nullBits{bm: d.Buffers()[0].Bytes(), off: d.Offset() + c.off}
}

func (v nullBits) valid(i int) bool {
	if v.bm == nil {
		return !v.all
	}
	j := v.off + i
	return v.bm[j>>3]&(1<<(j&7)) != 0
}

// boolMask is a FILTER column: rows pass where it is true.
type boolMask struct {
	active bool
	vals   []byte
	off    int
	nulls  nullBits
}

func maskOf(p *winPart, col int) boolMask {
	if col < 0 {
		return boolMask{}
	}
	c := p.cols[col]
	d := c.arr.Data()
	return boolMask{active: true, vals: d.Buffers()[1].Bytes(), off: d.Offset() + c.off, nulls: nullsOf(c)}
}

func (m *boolMask) pass(i int) bool {
	if !m.active {
		return true
	}
	j := m.off + i
	return m.vals[j>>3]&(1<<(j&7)) != 0 && m.nulls.valid(i)
}

// intAt reads an integer argument at partition row i (false: NULL).
func intAt(c winCol, i int) (int64, bool) {
	j := c.off + i
	if c.arr.IsNull(j) {
		return 0, false
	}
	switch a := c.arr.(type) {
	case *array.Int32:
		return int64(a.Value(j)), true
	case *array.Int64:
		return a.Value(j), true
	case *array.Int16:
		return int64(a.Value(j)), true
	}
	panic(pgerr.Internal("executor: window function argument of type %s", c.arr.DataType()))
}

// appendValue appends partition row i of c to b (of c's type).
func appendValue(b array.Builder, c winCol, i int) {
	j := c.off + i
	if c.arr.IsNull(j) {
		b.AppendNull()
		return
	}
	switch a := c.arr.(type) {
	case *array.Int64:
		b.(*array.Int64Builder).Append(a.Value(j))
	case *array.Int32:
		b.(*array.Int32Builder).Append(a.Value(j))
	case *array.Int16:
		b.(*array.Int16Builder).Append(a.Value(j))
	case *array.Float64:
		b.(*array.Float64Builder).Append(a.Value(j))
	case *array.Float32:
		b.(*array.Float32Builder).Append(a.Value(j))
	case *array.Boolean:
		b.(*array.BooleanBuilder).Append(a.Value(j))
	case *array.String:
		b.(*array.StringBuilder).Append(a.Value(j))
	case *array.Date32:
		b.(*array.Date32Builder).Append(a.Value(j))
	case *array.Timestamp:
		b.(*array.TimestampBuilder).Append(a.Value(j))
	case *array.MonthDayNanoInterval:
		b.(*array.MonthDayNanoIntervalBuilder).Append(a.Value(j))
	default:
		panic(pgerr.Internal("executor: window function value of type %s", c.arr.DataType()))
	}
}

// winAcc is an aggregate's running state over partition rows.
type winAcc interface {
	// bind points the state at a partition's columns.
	bind(p *winPart)
	// reset empties the state.
	reset()
	// add adds the partition rows [lo, hi).
	add(lo, hi int) error
	// emit appends the aggregate of the rows added k times to b.
	emit(b array.Builder, k int) error
}

// winRemover is a state that rows can be taken out of exactly (an
// inverse transition function).
type winRemover interface {
	// remove takes the partition rows [lo, hi), added before, out.
	remove(lo, hi int)
}

// winAggNames are the aggregates a window can compute.
var winAggNames = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true,
	"bool_and": true, "bool_or": true, "every": true, "string_agg": true,
	"stddev": true, "stddev_samp": true, "stddev_pop": true,
	"variance": true, "var_samp": true, "var_pop": true,
}

func (w *windowAgg) newAcc(call *nodes.AggCall) (winAcc, error) {
	switch {
	case call.WithinGroup || !winAggNames[call.Name]:
		return nil, pgerr.NotSupported("aggregate " + call.Name + " as a window function")
	case call.Distinct:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "DISTINCT is not implemented for window functions")
	case len(call.OrderBy) > 0:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "aggregate ORDER BY is not implemented for window functions")
	}
	var cols []int
	for _, a := range call.Args {
		c, err := w.column(a)
		if err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	filt := -1
	if call.Filter != nil {
		c, err := w.column(call.Filter)
		if err != nil {
			return nil, err
		}
		filt = c
	}
	var argT types.T
	col := -1
	if len(call.Args) > 0 {
		argT, col = call.Args[0].Type(), cols[0]
	}
	base := winAccBase{col: col, filt: filt}
	switch call.Name {
	case "count":
		return &winCountAcc{winAccBase: base, star: call.Star}, nil
	case "sum", "avg":
		avg := call.Name == "avg"
		switch argT.ID {
		case types.Int2:
			return &winIntSumAcc[int16]{winAccBase: base, avg: avg, out: call.T}, nil
		case types.Int4:
			return &winIntSumAcc[int32]{winAccBase: base, avg: avg, out: call.T}, nil
		case types.Int8:
			return &winIntSumAcc[int64]{winAccBase: base, avg: avg, out: call.T}, nil
		case types.Float4:
			return &winFloatSumAcc[float32]{winAccBase: base, avg: avg, out: call.T, sumT: types.Float4T}, nil
		case types.Float8:
			return &winFloatSumAcc[float64]{winAccBase: base, avg: avg, out: call.T, sumT: types.Float8T}, nil
		}
	case "min", "max":
		max := call.Name == "max"
		switch argT.ID {
		case types.Int2:
			return &winIntMinMaxAcc[int16]{winAccBase: base, max: max}, nil
		case types.Int4, types.Date:
			return &winIntMinMaxAcc[int32]{winAccBase: base, max: max}, nil
		case types.Int8, types.Timestamp, types.TimestampTZ:
			return &winIntMinMaxAcc[int64]{winAccBase: base, max: max}, nil
		case types.Float4:
			return &winFloatMinMaxAcc[float32]{winAccBase: base, max: max}, nil
		case types.Float8:
			return &winFloatMinMaxAcc[float64]{winAccBase: base, max: max}, nil
		}
	case "bool_and", "every", "bool_or":
		return &winBoolAcc{winAccBase: base, and: call.Name != "bool_or"}, nil
	}
	if filt >= 0 {
		cols = append(cols, filt) // filterState's mask, the last argument
	}
	return &winGenericAcc{call: call, cols: cols, views: make([]winCol, len(cols)), args: make([]arrow.Array, len(cols))}, nil
}

// winAccBase is the argument column (col, -1 for count(*)) and FILTER
// mask (filt, -1 without) of a typed state.
type winAccBase struct {
	col, filt int
	nulls     nullBits
	mask      boolMask
}

func (a *winAccBase) bindBase(p *winPart) {
	a.nulls = nullBits{}
	if a.col >= 0 {
		a.nulls = nullsOf(p.cols[a.col])
	}
	a.mask = maskOf(p, a.filt)
}

// takes reports whether row i is aggregated: its argument is not NULL
// and it passes the FILTER.
func (a *winAccBase) takes(i int) bool { return a.nulls.valid(i) && a.mask.pass(i) }

// dense reports whether every row is aggregated.
func (a *winAccBase) dense() bool { return a.nulls.bm == nil && !a.nulls.all && !a.mask.active }

// winCountAcc is count(*) and count(x).
type winCountAcc struct {
	winAccBase
	star bool
	n    int64
}

func (a *winCountAcc) bind(p *winPart) { a.bindBase(p) }
func (a *winCountAcc) reset()          { a.n = 0 }

func (a *winCountAcc) add(lo, hi int) error {
	if a.dense() {
		a.n += int64(hi - lo)
		return nil
	}
	for i := lo; i < hi; i++ {
		if a.takes(i) {
			a.n++
		}
	}
	return nil
}

func (a *winCountAcc) remove(lo, hi int) {
	n := a.n
	a.add(lo, hi)
	a.n = n - (a.n - n)
}

func (a *winCountAcc) emit(b array.Builder, k int) error {
	appendInt64s(b.(*array.Int64Builder), a.n, k)
	return nil
}

func appendInt64s(bb *array.Int64Builder, v int64, k int) {
	bb.Reserve(k)
	for ; k > 0; k-- {
		bb.UnsafeAppend(v)
	}
}

// winIntSumAcc is sum and avg of integers, exact in 128 bits (as
// intSumState).
type winIntSumAcc[T int16 | int32 | int64] struct {
	winAccBase
	avg  bool
	out  types.T
	vals []T
	hi   int64
	lo   uint64
	n    int64
}

func (a *winIntSumAcc[T]) bind(p *winPart) {
	a.bindBase(p)
	c := p.cols[a.col]
	a.vals = valuesOf[T](c.arr)[c.off:]
}

func (a *winIntSumAcc[T]) reset() { a.hi, a.lo, a.n = 0, 0, 0 }

func (a *winIntSumAcc[T]) add(lo, hi int) error {
	h, l, n := a.hi, a.lo, a.n
	dense := a.dense()
	for i := lo; i < hi; i++ {
		if !dense && !a.takes(i) {
			continue
		}
		v := int64(a.vals[i])
		var c uint64
		l, c = bits.Add64(l, uint64(v), 0)
		h += (v >> 63) + int64(c)
		n++
	}
	a.hi, a.lo, a.n = h, l, n
	return nil
}

func (a *winIntSumAcc[T]) remove(lo, hi int) {
	h, l, n := a.hi, a.lo, a.n
	dense := a.dense()
	for i := lo; i < hi; i++ {
		if !dense && !a.takes(i) {
			continue
		}
		v := int64(a.vals[i])
		var b uint64
		l, b = bits.Sub64(l, uint64(v), 0)
		h -= (v >> 63) + int64(b)
		n--
	}
	a.hi, a.lo, a.n = h, l, n
}

func (a *winIntSumAcc[T]) emit(b array.Builder, k int) error {
	if a.n == 0 {
		b.AppendNulls(k)
		return nil
	}
	fits := a.hi == 0 && a.lo <= math.MaxInt64 || a.hi == -1 && a.lo > math.MaxInt64
	if a.out.ID == types.Int8 && !a.avg {
		if !fits {
			return pgerr.New(pgerr.NumericValueOutOfRange, "bigint out of range")
		}
		appendInt64s(b.(*array.Int64Builder), int64(a.lo), k)
		return nil
	}
	var s string
	switch {
	case a.avg:
		d, err := types.NumericAvg(int128Decimal(a.hi, a.lo), a.n)
		if err != nil {
			return err
		}
		s = types.Format(types.NumericT, d)
	case fits:
		s = strconv.FormatInt(int64(a.lo), 10) // a numeric of scale 0
	default:
		s = types.Format(types.NumericT, int128Decimal(a.hi, a.lo))
	}
	bb := b.(*array.StringBuilder)
	for ; k > 0; k-- {
		bb.Append(s)
	}
	return nil
}

// winFloatSumAcc is sum and avg of real and double precision (as
// floatSumState: sum adds with the type's +, avg is float8_accum's).
type winFloatSumAcc[T float32 | float64] struct {
	winAccBase
	avg     bool
	out     types.T
	sumT    types.T
	vals    []T
	sum, sx float64
	n       int64
}

func (a *winFloatSumAcc[T]) bind(p *winPart) {
	a.bindBase(p)
	c := p.cols[a.col]
	a.vals = valuesOf[T](c.arr)[c.off:]
}

func (a *winFloatSumAcc[T]) reset() { a.sum, a.sx, a.n = 0, 0, 0 }

func (a *winFloatSumAcc[T]) add(lo, hi int) error {
	for i := lo; i < hi; i++ {
		if !a.takes(i) {
			continue
		}
		v := float64(a.vals[i])
		if a.avg {
			if err := floatAccum(&a.sum, &a.sx, a.n, v); err != nil {
				return err
			}
		} else {
			s, err := types.FloatAdd(a.sumT, a.sum, v)
			if err != nil {
				return err
			}
			a.sum = s
		}
		a.n++
	}
	return nil
}

func (a *winFloatSumAcc[T]) emit(b array.Builder, k int) error {
	if a.n == 0 {
		b.AppendNulls(k)
		return nil
	}
	v := a.sum
	if a.avg {
		v /= float64(a.n)
	}
	if a.out.ID == types.Float4 {
		bb := b.(*array.Float32Builder)
		bb.Reserve(k)
		for ; k > 0; k-- {
			bb.UnsafeAppend(float32(v))
		}
		return nil
	}
	bb := b.(*array.Float64Builder)
	bb.Reserve(k)
	for ; k > 0; k-- {
		bb.UnsafeAppend(v)
	}
	return nil
}

// winIntMinMaxAcc is min and max of integers, dates and timestamps.
type winIntMinMaxAcc[T int16 | int32 | int64] struct {
	winAccBase
	max  bool
	vals []T
	have bool
	best T
}

func (a *winIntMinMaxAcc[T]) bind(p *winPart) {
	a.bindBase(p)
	c := p.cols[a.col]
	a.vals = valuesOf[T](c.arr)[c.off:]
}

func (a *winIntMinMaxAcc[T]) reset() { a.have = false }

func (a *winIntMinMaxAcc[T]) add(lo, hi int) error {
	have, best := a.have, a.best
	for i := lo; i < hi; i++ {
		if !a.takes(i) {
			continue
		}
		v := a.vals[i]
		if !have || (a.max && v > best) || (!a.max && v < best) {
			best, have = v, true
		}
	}
	a.have, a.best = have, best
	return nil
}

func (a *winIntMinMaxAcc[T]) emit(b array.Builder, k int) error {
	if !a.have {
		b.AppendNulls(k)
		return nil
	}
	b.Reserve(k)
	switch bb := b.(type) {
	case *array.Int64Builder:
		repeatAppend(bb.UnsafeAppend, int64(a.best), k)
	case *array.Int32Builder:
		repeatAppend(bb.UnsafeAppend, int32(a.best), k)
	case *array.Int16Builder:
		repeatAppend(bb.UnsafeAppend, int16(a.best), k)
	case *array.Date32Builder:
		repeatAppend(bb.UnsafeAppend, arrow.Date32(a.best), k)
	case *array.TimestampBuilder:
		repeatAppend(bb.UnsafeAppend, arrow.Timestamp(a.best), k)
	default:
		return pgerr.Internal("executor: min/max into %T", b)
	}
	return nil
}

// repeatAppend appends v k times (room reserved): the builder's type is
// found once per frame, not per row.
func repeatAppend[V any](appendOne func(V), v V, k int) {
	for ; k > 0; k-- {
		appendOne(v)
	}
}

// winFloatMinMaxAcc is min and max of floats: NaN above every number.
type winFloatMinMaxAcc[T float32 | float64] struct {
	winAccBase
	max  bool
	vals []T
	have bool
	best T
}

func (a *winFloatMinMaxAcc[T]) bind(p *winPart) {
	a.bindBase(p)
	c := p.cols[a.col]
	a.vals = valuesOf[T](c.arr)[c.off:]
}

func (a *winFloatMinMaxAcc[T]) reset() { a.have = false }

func (a *winFloatMinMaxAcc[T]) add(lo, hi int) error {
	for i := lo; i < hi; i++ {
		if !a.takes(i) {
			continue
		}
		v := a.vals[i]
		if !a.have {
			a.best, a.have = v, true
			continue
		}
		// float8_larger and float8_smaller keep the later of equal
		// values (-0 and 0).
		if c := cmpFloat(v, a.best); (a.max && c >= 0) || (!a.max && c <= 0) {
			a.best = v
		}
	}
	return nil
}

func (a *winFloatMinMaxAcc[T]) emit(b array.Builder, k int) error {
	if !a.have {
		b.AppendNulls(k)
		return nil
	}
	for ; k > 0; k-- {
		switch bb := b.(type) {
		case *array.Float64Builder:
			bb.Append(float64(a.best))
		case *array.Float32Builder:
			bb.Append(float32(a.best))
		default:
			return pgerr.Internal("executor: min/max into %T", b)
		}
	}
	return nil
}

// winBoolAcc is bool_and (every) and bool_or, kept as counts of true
// and false values so that rows can be taken out.
type winBoolAcc struct {
	winAccBase
	and           bool
	vals          []byte
	off           int
	trues, falses int64
}

func (a *winBoolAcc) bind(p *winPart) {
	a.bindBase(p)
	c := p.cols[a.col]
	d := c.arr.Data()
	a.vals, a.off = d.Buffers()[1].Bytes(), d.Offset()+c.off
}

func (a *winBoolAcc) reset() { a.trues, a.falses = 0, 0 }

func (a *winBoolAcc) count(lo, hi int, sign int64) {
	for i := lo; i < hi; i++ {
		if !a.takes(i) {
			continue
		}
		if j := a.off + i; a.vals[j>>3]&(1<<(j&7)) != 0 {
			a.trues += sign
		} else {
			a.falses += sign
		}
	}
}

func (a *winBoolAcc) add(lo, hi int) error { a.count(lo, hi, 1); return nil }
func (a *winBoolAcc) remove(lo, hi int)    { a.count(lo, hi, -1) }

func (a *winBoolAcc) emit(b array.Builder, k int) error {
	if a.trues+a.falses == 0 {
		b.AppendNulls(k)
		return nil
	}
	v := a.trues > 0
	if a.and {
		v = a.falses == 0
	}
	bb := b.(*array.BooleanBuilder)
	for ; k > 0; k-- {
		bb.Append(v)
	}
	return nil
}

// winGenericAcc runs an aggregate's agg_funcs.go state (as one group)
// over slices of the partition's columns: string_agg, the variance
// family, and sum, avg, min and max of numeric, interval and strings.
type winGenericAcc struct {
	call  *nodes.AggCall
	cols  []int // the arguments, then the FILTER mask
	views []winCol
	args  []arrow.Array
	st    aggState
}

func (a *winGenericAcc) bind(p *winPart) {
	for i, c := range a.cols {
		a.views[i] = p.cols[c]
	}
}

func (a *winGenericAcc) reset() { a.st = newAggState(a.call) }

func (a *winGenericAcc) add(lo, hi int) error {
	if a.st == nil {
		a.reset()
	}
	for i, v := range a.views {
		a.args[i] = array.NewSlice(v.arr, int64(v.off+lo), int64(v.off+hi))
	}
	err := a.st.update(nil, hi-lo, 1, a.args)
	releaseAll(a.args)
	return err
}

func (a *winGenericAcc) emit(b array.Builder, k int) error {
	if a.st == nil {
		a.reset()
	}
	arr, err := a.st.result(1)
	if err != nil {
		return err
	}
	d := types.DatumAt(arr, a.call.T, 0)
	arr.Release()
	for ; k > 0; k-- {
		appendDatum(b, a.call.T, d)
	}
	return nil
}
