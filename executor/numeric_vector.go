package executor

// Scaled numeric vectors: numeric values (stored in Arrow as decimal text)
// handed between numeric + - *, comparisons and sum/avg as int64s at a
// display scale, so that `a * (1 - b) * (1 + c)` parses each column once
// and writes text only for its final result (not at all when sum or avg
// consumes it). A column is parsed once per batch for all the readers of
// a statement (scaledColumns: sum(a), avg(a) and a * (1 - b) in one Agg),
// a constant once per statement.
//
// Protocol: a scaledEvaluator's evalScaled returns a scaledVec of one
// entry per row of the batch. A row is NULL (valid bit clear), exact
// (exact[i] != nil: it did not fit in int64, or it is NaN or an
// infinity; its decimal is the value) or scaled (vals[i] / 10^scale).
// The common case, every row at one scale, has scales nil; otherwise
// scales[i] is row i's scale. vals of NULL and exact rows are
// meaningless. A scaledVec is read-only to its consumer and valid until
// the producer's next evalScaled. Arithmetic keeps PostgreSQL's display
// scales (the larger for + and -, the sum for *) and hands any row that
// does not fit, or whose result would overflow, to numeric_add,
// numeric_sub or numeric_mul, so results are exactly theirs.

import (
	"math"
	"math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// scaledVectors switches the scaled-vector protocol on; tests and the
// benchmark turn it off to measure the text round trip it replaces.
var scaledVectors = true

// maxScaledScale bounds the scales kept in int64: a scale above it
// (18 digits after the point) goes the decimal way.
const maxScaledScale = 18

type scaledVec struct {
	n      int
	vals   []int64
	scale  int32   // every scaled row's scale when scales is nil
	scales []int32 // per-row scales, or nil
	valid  []byte  // validity bitmap (bit set: not NULL); nil: no NULLs
	exact  []*apd.Decimal
}

type scaledEvaluator interface {
	evaluator
	evalScaled(b arrow.RecordBatch) (*scaledVec, error)
}

func (v *scaledVec) scaleAt(i int) int32 {
	if v.scales != nil {
		return v.scales[i]
	}
	return v.scale
}

func (v *scaledVec) isExact(i int) bool { return v.exact != nil && v.exact[i] != nil }

// setExact makes row i an exact row holding d.
func (v *scaledVec) setExact(i int, d *apd.Decimal) {
	if v.exact == nil {
		v.exact = make([]*apd.Decimal, v.n)
	}
	v.exact[i] = d
}

// decimalAt is row i (not NULL) as a decimal at its display scale.
func (v *scaledVec) decimalAt(i int) (*apd.Decimal, error) {
	if v.isExact(i) {
		return v.exact[i], nil
	}
	return types.NumericFromScaled(v.vals[i], v.scaleAt(i))
}

// toArray writes the vector as numeric text.
func (v *scaledVec) toArray() arrow.Array {
	offsets := make([]int32, v.n+1)
	data := make([]byte, 0, v.n*12)
	nulls := 0
	for i := 0; i < v.n; i++ {
		switch {
		case !isValid(v.valid, i):
			nulls++
		case v.isExact(i):
			data = append(data, types.Format(types.NumericT, v.exact[i])...)
		default:
			data = appendScaled(data, v.vals[i], v.scaleAt(i))
		}
		offsets[i+1] = int32(len(data))
	}
	var vb *memory.Buffer
	if nulls > 0 {
		vb = memory.NewBufferBytes(v.valid)
	}
	bufs := []*memory.Buffer{vb, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets)), memory.NewBufferBytes(data)}
	d := array.NewData(arrow.BinaryTypes.String, v.n, bufs, nil, nulls, 0)
	defer d.Release()
	return array.NewStringData(d)
}

// asScaled gives ev's results as scaled vectors: numeric arithmetic
// natively, a constant parsed once, a column parsed once per batch for
// all the statement's readers, anything else (casts, functions) parsed
// from its text per batch.
func asScaled(ev evaluator, ec *ExecContext) scaledEvaluator {
	if c, ok := ev.(*checkedEval); ok {
		ev = c.ev
	}
	switch x := ev.(type) {
	case scaledEvaluator:
		return x
	case *columnEval:
		if ec.scaledCols == nil {
			ec.scaledCols = &scaledColumns{}
		}
		return &scaledColumn{col: x, cache: ec.scaledCols}
	case *constEval:
		if _, dec := x.v.(*apd.Decimal); x.t.ID == types.Numeric && (dec || x.v == nil) {
			return &scaledConst{c: x}
		}
	}
	return &scaledText{ev: ev}
}

// scaledColumns keeps the numeric columns of the last batch read as
// scaled vectors, so that sum(a), avg(a) and a * (1 - b) parse a once.
// The batch is known by identity (batches are immutable, and the one
// held here cannot be freed and its address reused). The vectors handed
// out are never written again: a subplan evaluated in the middle of an
// expression shares the cache and may replace them while the expression
// still holds one. The mutex covers readers in other goroutines.
type scaledColumns struct {
	mu    sync.Mutex
	batch arrow.RecordBatch
	vecs  map[int]*scaledVec
}

// has is whether column idx of b has been parsed.
func (c *scaledColumns) has(b arrow.RecordBatch, idx int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.vecs[idx]
	return ok && c.batch == b
}

// get is column idx of b, parsed by parse on the first request.
func (c *scaledColumns) get(b arrow.RecordBatch, idx int, parse func() (*scaledVec, error)) (*scaledVec, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.batch != b {
		c.batch, c.vecs = b, map[int]*scaledVec{}
	}
	if v, ok := c.vecs[idx]; ok {
		return v, nil
	}
	v, err := parse()
	if err == nil {
		c.vecs[idx] = v
	}
	return v, err
}

// scaledColumn reads a numeric column through the statement's cache.
type scaledColumn struct {
	col   *columnEval
	cache *scaledColumns
}

func (s *scaledColumn) eval(b arrow.RecordBatch) (arrow.Array, error) { return s.col.eval(b) }

func (s *scaledColumn) evalScaled(b arrow.RecordBatch) (*scaledVec, error) {
	return s.cache.get(b, s.col.idx, func() (*scaledVec, error) {
		arr, err := s.col.eval(b)
		if err != nil {
			return nil, err
		}
		defer arr.Release()
		strs, isText := arr.(*array.String)
		if isText {
			if v, ok, err := storedVector(strs); ok || err != nil {
				return v, err
			}
		}
		v, err := parseScaledArray(arr)
		if err == nil && isText {
			keepScaled(strs, v)
		}
		return v, err
	})
}

// scaledText parses the numeric text another evaluator produces.
type scaledText struct {
	ev  evaluator
	buf []int64 // the values of the last batch, reused
}

func (s *scaledText) eval(b arrow.RecordBatch) (arrow.Array, error) { return s.ev.eval(b) }

func (s *scaledText) evalScaled(b arrow.RecordBatch) (*scaledVec, error) {
	arr, err := s.ev.eval(b)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	v, err := parseScaledInto(arr, s.buf)
	if v != nil {
		s.buf = v.vals
	}
	return v, err
}

// parseScaledArray reads a numeric array into a scaled vector.
func parseScaledArray(arr arrow.Array) (*scaledVec, error) {
	return parseScaledInto(arr, nil)
}

// parseScaledInto is parseScaledArray reusing buf for the values.
func parseScaledInto(arr arrow.Array, buf []int64) (*scaledVec, error) {
	n := arr.Len()
	if cap(buf) < n {
		buf = make([]int64, n)
	}
	v := &scaledVec{n: n, vals: buf[:n]}
	if bm := validity(arr); bm != nil {
		v.valid = make([]byte, bitutil.BytesForBits(int64(n)))
		copy(v.valid, bm)
	}
	strs, ok := arr.(*array.String)
	if !ok {
		return v, v.parseExactRows(arr, 0)
	}
	offs, data := strs.ValueOffsets(), strs.ValueBytes()
	base := offs[0]
	if v.valid == nil && n > 0 {
		return v, v.parseDense(strs, offs, data)
	}
	first := -1
	for i := 0; i < n; i++ {
		if !isValid(v.valid, i) {
			continue
		}
		x, sc, fits := parseScaledBytes(data[offs[i]-base : offs[i+1]-base])
		if !fits || (first >= 0 && sc != v.scale) {
			// Another scale, or a value that does not fit: the
			// per-row loop takes over from row i.
			return v, v.parseMixed(strs, i)
		}
		if first < 0 {
			first, v.scale = i, sc
		}
		v.vals[i] = x
	}
	return v, nil
}

// parseDense is the loop of parseScaledInto for a column without NULLs.
func (v *scaledVec) parseDense(strs *array.String, offs []int32, data []byte) error {
	base := offs[0]
	vals := v.vals[:len(offs)-1]
	start := offs[0]
	for i := range vals {
		end := offs[i+1]
		x, sc, fits := parseScaledBytes(data[start-base : end-base])
		start = end
		if !fits || (i > 0 && sc != v.scale) {
			return v.parseMixed(strs, i)
		}
		v.scale = sc
		vals[i] = x
	}
	return nil
}

// parseMixed parses rows from i on, keeping per-row scales and exact
// rows (rows before i were read at v.scale).
func (v *scaledVec) parseMixed(strs *array.String, from int) error {
	v.scales = make([]int32, v.n)
	for k := 0; k < from; k++ {
		v.scales[k] = v.scale
	}
	for i := from; i < v.n; i++ {
		if !isValid(v.valid, i) {
			continue
		}
		if x, sc, fits := types.ParseScaledNumeric(strs.Value(i)); fits {
			v.vals[i], v.scales[i] = x, sc
			continue
		}
		if err := v.parseExactRow(strs, i); err != nil {
			return err
		}
	}
	return nil
}

func (v *scaledVec) parseExactRows(arr arrow.Array, from int) error {
	for i := from; i < v.n; i++ {
		if isValid(v.valid, i) {
			if err := v.parseExactRow(arr, i); err != nil {
				return err
			}
		}
	}
	return nil
}

func (v *scaledVec) parseExactRow(arr arrow.Array, i int) error {
	d, _ := types.DatumAt(arr, types.NumericT, i).(*apd.Decimal)
	if d == nil {
		return errNotNumeric(arr)
	}
	v.setExact(i, d)
	return nil
}

// parseScaledBytes is types.ParseScaledNumeric on bytes, for the loop
// over a whole column: [-]digits[.digits] of 1 to 18 digits.
func parseScaledBytes(s []byte) (v int64, scale int32, ok bool) {
	i, neg := 0, false
	if len(s) > 0 && s[0] == '-' {
		neg, i = true, 1
	}
	if len(s)-i > 19 || len(s) == i {
		return 0, 0, false
	}
	dot := -1
	for k := i; k < len(s); k++ {
		if c := s[k] - '0'; c <= 9 {
			v = v*10 + int64(c)
			continue
		}
		if s[k] != '.' || dot >= 0 {
			return 0, 0, false
		}
		dot = k
	}
	digits := len(s) - i
	if dot >= 0 {
		digits--
		scale = int32(len(s) - dot - 1)
	}
	if digits == 0 || digits > 18 {
		return 0, 0, false
	}
	if neg {
		v = -v
	}
	return v, scale, true
}

// scaledConst is a numeric constant, parsed once and spread over as many
// rows as each batch has.
type scaledConst struct {
	c      *constEval
	parsed bool
	null   bool
	exact  *apd.Decimal
	v      int64
	scale  int32
	vec    *scaledVec
}

func (s *scaledConst) eval(b arrow.RecordBatch) (arrow.Array, error) { return s.c.eval(b) }

func (s *scaledConst) evalScaled(b arrow.RecordBatch) (*scaledVec, error) {
	n := int(b.NumRows())
	if !s.parsed {
		s.parsed = true
		d, _ := s.c.v.(*apd.Decimal)
		s.null = d == nil
		if d != nil {
			var ok bool
			if s.v, s.scale, ok = types.ParseScaledNumeric(types.Format(types.NumericT, d)); !ok {
				s.exact = d
			}
		}
	}
	if s.vec != nil && s.vec.n == n {
		return s.vec, nil
	}
	v := &scaledVec{n: n, vals: make([]int64, n), scale: s.scale}
	switch {
	case s.null:
		v.valid = make([]byte, bitutil.BytesForBits(int64(n)))
	case s.exact != nil:
		v.exact = make([]*apd.Decimal, n)
		for i := range v.exact {
			v.exact[i] = s.exact
		}
	default:
		for i := range v.vals {
			v.vals[i] = s.v
		}
	}
	s.vec = v
	return v, nil
}

// andValid is the validity of rows valid in both bitmaps (nil: all).
func andValid(a, b []byte, n int) []byte {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil:
		return b
	case b == nil:
		return a
	}
	out := make([]byte, bitutil.BytesForBits(int64(n)))
	for i := range out {
		out[i] = a[i] & b[i]
	}
	return out
}

func errNotNumeric(arr arrow.Array) error {
	return pgerr.Internal("executor: numeric operand holds %s", arr.DataType())
}

// evalScaled computes the operator over whole scaled vectors: a tight
// loop when both sides have one scale per batch, a per-row one when the
// scales differ, and the decimal operator for the rows left over.
func (e *numericArithEval) evalScaled(b arrow.RecordBatch) (*scaledVec, error) {
	l, err := e.lvec.evalScaled(b)
	if err != nil {
		return nil, err
	}
	r, err := e.rvec.evalScaled(b)
	if err != nil {
		return nil, err
	}
	n := l.n
	if cap(e.buf) < n {
		e.buf = make([]int64, n)
	}
	out := &scaledVec{n: n, vals: e.buf[:n], valid: andValid(l.valid, r.valid, n)}
	var redo []int
	if l.scales == nil && r.scales == nil {
		redo = e.uniform(l, r, out)
	} else {
		redo = e.perRow(l, r, out)
	}
	for i := 0; (l.exact != nil || r.exact != nil) && i < n; i++ {
		if (l.isExact(i) || r.isExact(i)) && isValid(out.valid, i) {
			redo = append(redo, i)
		}
	}
	for _, i := range redo {
		if err := e.exactRow(l, r, out, i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// exactRow computes row i with the decimal operator.
func (e *numericArithEval) exactRow(l, r, out *scaledVec, i int) error {
	if !isValid(out.valid, i) || out.isExact(i) {
		return nil
	}
	a, err := l.decimalAt(i)
	if err != nil {
		return err
	}
	c, err := r.decimalAt(i)
	if err != nil {
		return err
	}
	d, err := e.slow([]any{a, c})
	if err != nil {
		return err
	}
	out.setExact(i, d.(*apd.Decimal))
	return nil
}

// uniform handles one scale per side; it returns the rows that overflow.
// Exact and NULL rows compute garbage here and are redone or ignored.
func (e *numericArithEval) uniform(l, r, out *scaledVec) []int {
	ls, rs := l.scale, r.scale
	if e.op == "*" {
		out.scale = ls + rs
		if out.scale > maxScaledScale {
			return allRows(out.n)
		}
		return mulVals(l.vals, r.vals, out.vals)
	}
	if redo, ok := e.constUniform(l, r, out); ok {
		return redo
	}
	out.scale = max(ls, rs)
	lv, rv := l.vals, r.vals
	var redo []int
	if ls != rs {
		// Rescale the side of the smaller scale into the result first.
		src, k := lv, out.scale-ls
		if ls > rs {
			src, k = rv, out.scale-rs
		}
		redo = rescaleVals(src, pow10[k], out.vals)
		if ls < rs {
			lv = out.vals
		} else {
			rv = out.vals
		}
	}
	if e.op == "-" {
		return append(redo, subVals(lv, rv, out.vals)...)
	}
	return append(redo, addVals(lv, rv, out.vals)...)
}

// perRow handles per-row scales with the row-wise int64 operator.
func (e *numericArithEval) perRow(l, r, out *scaledVec) []int {
	out.scales = make([]int32, out.n)
	var redo []int
	for i := 0; i < out.n; i++ {
		if !isValid(out.valid, i) || l.isExact(i) || r.isExact(i) {
			continue
		}
		v, sc, ok := e.fast(scaledOperand{l.vals[i], l.scaleAt(i), true}, scaledOperand{r.vals[i], r.scaleAt(i), true})
		if !ok {
			redo = append(redo, i)
			continue
		}
		out.vals[i], out.scales[i] = v, sc
	}
	return redo
}

func allRows(n int) []int {
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return rows
}

var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// mulVals sets out[i] = a[i] * c[i]; rows whose product overflows int64
// are returned. MinInt64 never occurs (additions refuse it), so the
// magnitudes are exact.
// constUniform is uniform's + and - of a column and a constant of no
// larger scale (1 - l_discount): the constant rescaled once, not per row;
// ok false leaves the operation to uniform.
func (e *numericArithEval) constUniform(l, r, out *scaledVec) (redo []int, ok bool) {
	if e.op != "+" && e.op != "-" {
		return nil, false
	}
	col, c := l, r
	if e.lconst {
		col, c = r, l
	} else if !e.rconst {
		return nil, false
	}
	if c.exact != nil || c.n == 0 || c.scale > col.scale {
		return nil, false
	}
	cv := c.vals[0]
	if k := col.scale - c.scale; k > 0 {
		if cv > math.MaxInt64/pow10[k] || cv < -math.MaxInt64/pow10[k] {
			return nil, false
		}
		cv *= pow10[k]
	}
	out.scale = col.scale
	switch {
	case e.op == "+":
		return addConstVals(col.vals, cv, out.vals), true
	case e.lconst:
		return subFromConstVals(cv, col.vals, out.vals), true
	}
	if cv == math.MinInt64 {
		return nil, false
	}
	return addConstVals(col.vals, -cv, out.vals), true
}

// addConstVals sets out[i] = a[i] + c; rows that overflow are returned.
func addConstVals(a []int64, c int64, out []int64) []int {
	var redo []int
	out = out[:len(a)]
	for i, x := range a {
		s := x + c
		if ((x^s)&(c^s)) < 0 || s == math.MinInt64 {
			redo = append(redo, i)
			continue
		}
		out[i] = s
	}
	return redo
}

// subFromConstVals sets out[i] = c - a[i]; rows that overflow are returned.
func subFromConstVals(c int64, a []int64, out []int64) []int {
	var redo []int
	out = out[:len(a)]
	for i, x := range a {
		s := c - x
		if ((c^x)&(c^s)) < 0 || s == math.MinInt64 {
			redo = append(redo, i)
			continue
		}
		out[i] = s
	}
	return redo
}

func mulVals(a, c, out []int64) []int {
	var redo []int
	c = c[:len(a)]
	out = out[:len(a)]
	for i, x := range a {
		y := c[i]
		hi, lo := bits.Mul64(uint64(abs64(x)), uint64(abs64(y)))
		if hi != 0 || lo > math.MaxInt64 {
			redo = append(redo, i)
			continue
		}
		p := int64(lo)
		if (x ^ y) < 0 {
			p = -p
		}
		out[i] = p
	}
	return redo
}

// rescaleVals sets out[i] = a[i] * f, returning the rows that overflow.
func rescaleVals(a []int64, f int64, out []int64) []int {
	var redo []int
	limit := math.MaxInt64 / f
	out = out[:len(a)]
	for i, x := range a {
		if x > limit || x < -limit {
			redo = append(redo, i)
			continue
		}
		out[i] = x * f
	}
	return redo
}

// addVals sets out[i] = a[i] + c[i] (out may be a or c); rows that
// overflow, or reach MinInt64, are returned.
func addVals(a, c, out []int64) []int {
	var redo []int
	c = c[:len(a)]
	out = out[:len(a)]
	for i, x := range a {
		s := x + c[i]
		if ((x^s)&(c[i]^s)) < 0 || s == math.MinInt64 {
			redo = append(redo, i)
			continue
		}
		out[i] = s
	}
	return redo
}

// subVals sets out[i] = a[i] - c[i], like addVals.
func subVals(a, c, out []int64) []int {
	var redo []int
	c = c[:len(a)]
	out = out[:len(a)]
	for i, x := range a {
		s := x - c[i]
		if ((x^c[i])&(x^s)) < 0 || s == math.MinInt64 {
			redo = append(redo, i)
			continue
		}
		out[i] = s
	}
	return redo
}

// updateAggScaled feeds sum or avg of numeric arithmetic from the
// arithmetic's scaled vector, without writing it as text; false when the
// aggregate or its argument is of another kind (the caller then
// evaluates the arguments as arrays and calls update).
func updateAggScaled(st aggState, args []evaluator, b arrow.RecordBatch, groups []int32, ngroups int, ec *ExecContext) (bool, error) {
	v, ok, err := evalScaledArg(st, args, b, ec)
	if !ok || err != nil {
		return ok, err
	}
	return true, st.(*numericSumState).updateScaled(groups, ngroups, v)
}

// evalScaledArg is the scaled vector of a numeric sum's or avg's
// argument over b; ok is false when st or its argument is of another
// kind.
func evalScaledArg(st aggState, args []evaluator, b arrow.RecordBatch, ec *ExecContext) (*scaledVec, bool, error) {
	if _, ok := st.(*numericSumState); !ok || !scaledVectors || len(args) != 1 {
		return nil, false, nil
	}
	ev := args[0]
	if c, ok := ev.(*checkedEval); ok {
		ev = c.ev
	}
	var se scaledEvaluator
	switch x := ev.(type) {
	case *numericArithEval:
		se = x
	case *columnEval:
		if x.ref.T.ID != types.Numeric {
			return nil, false, nil
		}
		se = asScaled(x, ec)
	default:
		return nil, false, nil
	}
	v, err := se.evalScaled(b)
	return v, true, err
}

// slice is v's rows from .. from+n, sharing v's memory (both read-only).
func (v *scaledVec) slice(from, n int) *scaledVec {
	if from == 0 && n == v.n {
		return v
	}
	out := &scaledVec{n: n, scale: v.scale, vals: v.vals[from : from+n]}
	if v.scales != nil {
		out.scales = v.scales[from : from+n]
	}
	if v.exact != nil {
		out.exact = v.exact[from : from+n]
	}
	if v.valid != nil {
		if from%8 == 0 {
			out.valid = v.valid[from/8:]
		} else {
			out.valid = make([]byte, (n+7)/8)
			for k := range n {
				if isValid(v.valid, from+k) {
					out.valid[k>>3] |= 1 << (k & 7)
				}
			}
		}
	}
	return out
}

// take is a new vector of v's rows sel.
func (v *scaledVec) take(sel []int32) *scaledVec {
	out := &scaledVec{n: len(sel), scale: v.scale, vals: make([]int64, len(sel))}
	for k, i := range sel {
		out.vals[k] = v.vals[i]
	}
	if v.scales != nil {
		out.scales = make([]int32, len(sel))
		for k, i := range sel {
			out.scales[k] = v.scales[i]
		}
	}
	if v.valid != nil {
		out.valid = make([]byte, (len(sel)+7)/8)
		for k, i := range sel {
			if isValid(v.valid, int(i)) {
				out.valid[k>>3] |= 1 << (k & 7)
			}
		}
	}
	if v.exact != nil {
		out.exact = make([]*apd.Decimal, len(sel))
		for k, i := range sel {
			out.exact[k] = v.exact[i]
		}
	}
	return out
}

// laneGroups: the sums of at most this many groups are added in lanes.
const laneGroups = 16

// addLanes adds vals (those of rows sel, sel nil: all) at one scale to
// the sums of their groups (fewer than laneGroups) through lanes: row k
// goes to partial sum k%4 of its group, so that consecutive rows of one
// group (Q1's four groups, most rows in two) do not each wait for the
// addition before, and the partial sums are added to the groups' at the
// end. The sum is the same exact sum; a partial sum about to overflow is
// added to the group's (which turns decimal past int64) and restarted.
func (s *numericSumState) addLanes(groups []int32, vals []int64, sel []int32, scale int32) error {
	var acc, cnt [4 * laneGroups]int64
	n := len(vals)
	if sel != nil {
		n = len(sel)
	}
	groups = groups[:n]
	for k, g := range groups {
		x := vals[k]
		if sel != nil {
			x = vals[sel[k]]
		}
		l := (k&3)*laneGroups + int(g)&(laneGroups-1)
		sum := acc[l]
		t := sum + x
		if ((sum ^ t) & (x ^ t)) < 0 {
			if err := s.addScaled(g, sum, scale); err != nil {
				return err
			}
			t = x
		}
		acc[l] = t
		cnt[l]++
	}
	for l, c := range cnt {
		if c == 0 {
			continue
		}
		g := int32(l % laneGroups)
		s.counts[g] += c
		if err := s.addScaled(g, acc[l], scale); err != nil {
			return err
		}
	}
	return nil
}

// updateScaled adds a scaled vector's rows to their groups' sums.
func (s *numericSumState) updateScaled(groups []int32, ngroups int, v *scaledVec) error {
	s.counts = grow(s.counts, ngroups)
	s.fixed, s.scales = grow(s.fixed, ngroups), grow(s.scales, ngroups)
	dense := v.scales == nil && v.exact == nil && v.valid == nil
	switch {
	case v.n == 0:
		return nil
	case dense && groups == nil:
		s.counts[0] += int64(v.n)
		return s.addRun(v.vals, v.scale)
	case dense:
		return s.addGrouped(groups, v.vals, v.scale)
	}
	for i := 0; i < v.n; i++ {
		if !isValid(v.valid, i) {
			continue
		}
		g := groupOf(groups, i)
		s.counts[g]++
		var err error
		if v.isExact(i) {
			err = s.addDecimal(g, v.exact[i])
		} else {
			err = s.addScaled(g, v.vals[i], v.scaleAt(i))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// updateScaledSel is updateScaled of the rows sel of v (groups[k] is
// the group of row sel[k]), reading them in place when v is dense. Its
// loops are addRun's and addGrouped's over sel: gathering the values
// into a buffer for those instead measured 10% slower on TPC-H Q1.
func (s *numericSumState) updateScaledSel(groups []int32, ngroups int, v *scaledVec, sel []int32) error {
	if v.scales != nil || v.exact != nil || v.valid != nil {
		return s.updateScaled(groups, ngroups, v.take(sel))
	}
	s.counts = grow(s.counts, ngroups)
	s.fixed, s.scales = grow(s.fixed, ngroups), grow(s.scales, ngroups)
	if groups == nil {
		s.counts[0] += int64(len(sel))
		var sum int64
		for _, i := range sel {
			x := v.vals[i]
			t := sum + x
			if ((sum ^ t) & (x ^ t)) < 0 {
				if err := s.addScaled(0, sum, v.scale); err != nil {
					return err
				}
				t = x
			}
			sum = t
		}
		return s.addScaled(0, sum, v.scale)
	}
	if ngroups <= laneGroups {
		return s.addLanes(groups, v.vals, sel, v.scale)
	}
	scale := v.scale
	for k, i := range sel {
		g, x := groups[k], v.vals[i]
		s.counts[g]++
		if s.scales[g] == scale {
			sum := s.fixed[g]
			if t := sum + x; ((sum ^ t) & (x ^ t)) >= 0 {
				s.fixed[g] = t
				continue
			}
		}
		if err := s.addScaled(g, x, scale); err != nil {
			return err
		}
	}
	return nil
}

// addRun adds values of one scale to group 0 through a local int64 sum,
// handed over whenever the next addition would overflow it.
func (s *numericSumState) addRun(vals []int64, scale int32) error {
	var sum int64
	for _, x := range vals {
		t := sum + x
		if ((sum ^ t) & (x ^ t)) < 0 {
			if err := s.addScaled(0, sum, scale); err != nil {
				return err
			}
			t = x
		}
		sum = t
	}
	return s.addScaled(0, sum, scale)
}

// addGrouped adds values of one scale to their groups.
func (s *numericSumState) addGrouped(groups []int32, vals []int64, scale int32) error {
	if len(s.fixed) <= laneGroups {
		return s.addLanes(groups, vals, nil, scale)
	}
	groups = groups[:len(vals)]
	for i, x := range vals {
		g := groups[i]
		s.counts[g]++
		if s.scales[g] == scale {
			sum := s.fixed[g]
			if t := sum + x; ((sum ^ t) & (x ^ t)) >= 0 {
				s.fixed[g] = t
				continue
			}
		}
		if err := s.addScaled(g, x, scale); err != nil {
			return err
		}
	}
	return nil
}

// addScaled adds v at scale to group g: to its int64 sum if it fits,
// else after moving that sum into the decimal one, else as a decimal.
func (s *numericSumState) addScaled(g int32, v int64, scale int32) error {
	if s.addFixed(g, v, scale) {
		return nil
	}
	if s.fixed[g] != 0 {
		d, err := types.NumericFromScaled(s.fixed[g], s.scales[g])
		if err != nil {
			return err
		}
		if err := s.addDecimal(g, d); err != nil {
			return err
		}
		s.fixed[g] = 0
		if s.addFixed(g, v, scale) {
			return nil
		}
	}
	d, err := types.NumericFromScaled(v, scale)
	if err != nil {
		return err
	}
	return s.addDecimal(g, d)
}

// numericCompareEval compares numerics through scaled vectors: each
// column parsed once per batch, a constant once per statement, and
// integers compared where both sides fit (numeric_cmp otherwise).
type numericCompareEval struct {
	want       uint8 // cmpWant's outcome bits
	lvec, rvec scaledEvaluator
}

func compileNumericCompare(x *nodes.OpExpr, ec *ExecContext) (evaluator, error) {
	l, err := compileExpr(x.Left, ec)
	if err != nil {
		return nil, err
	}
	r, err := compileExpr(x.Right, ec)
	if err != nil {
		return nil, err
	}
	return &numericCompareEval{want: cmpWant(x.Op), lvec: asScaled(l, ec), rvec: asScaled(r, ec)}, nil
}

func (e *numericCompareEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	l, err := e.lvec.evalScaled(b)
	if err != nil {
		return nil, err
	}
	r, err := e.rvec.evalScaled(b)
	if err != nil {
		return nil, err
	}
	n := l.n
	out := make([]byte, bitutil.BytesForBits(int64(n)))
	if vals, c, want, ok := e.againstConst(l, r); ok {
		// A column without NULLs against a constant (filter_rows.go);
		// against one of more digits, = may hold nowhere, <> everywhere.
		switch want {
		case 0:
		case 0b111:
			bitutil.SetBitsTo(out, 0, int64(n), true)
		default:
			compareWithConst(vals[:n], c, want, out)
		}
		return newBoolArray(out, n, nil, 0), nil
	}
	valid := andValid(l.valid, r.valid, n)
	if l.scales == nil && r.scales == nil && l.exact == nil && r.exact == nil {
		if err := e.compareUniform(l, r, valid, out); err != nil {
			return nil, err
		}
	} else {
		for i := 0; i < n; i++ {
			if !isValid(valid, i) {
				continue
			}
			c, err := compareRow(l, r, i)
			if err != nil {
				return nil, err
			}
			if e.want&(1<<(c+1)) != 0 {
				bitutil.SetBit(out, i)
			}
		}
	}
	nulls := 0
	if valid != nil {
		nulls = n - bitutil.CountSetBits(valid, 0, n)
		valid = append([]byte(nil), valid...) // the array owns its bitmap
	}
	return newBoolArray(out, n, valid, nulls), nil
}

// compareUniform compares sides of one scale each, the side of the
// smaller scale rescaled first; rows whose rescaling overflows are
// compared one by one.
func (e *numericCompareEval) compareUniform(l, r *scaledVec, valid, out []byte) error {
	lv, rv := l.vals, r.vals
	var redo []int
	if l.scale != r.scale {
		tmp := make([]int64, l.n)
		if l.scale < r.scale {
			redo = rescaleVals(lv, pow10[r.scale-l.scale], tmp)
			lv = tmp
		} else {
			redo = rescaleVals(rv, pow10[l.scale-r.scale], tmp)
			rv = tmp
		}
	}
	compareVals(lv, rv, e.want, out)
	for _, i := range redo {
		out[i>>3] &^= 1 << (i & 7)
		if !isValid(valid, i) {
			continue
		}
		c, err := compareRow(l, r, i)
		if err != nil {
			return err
		}
		if e.want&(1<<(c+1)) != 0 {
			bitutil.SetBit(out, i)
		}
	}
	return nil
}

// compareVals sets the bits of the rows where a[i] vs c[i] is wanted
// (NULL rows get garbage, masked by the validity).
func compareVals(a, c []int64, want uint8, out []byte) {
	lt, eq, gt := want&1 != 0, want&2 != 0, want&4 != 0
	c = c[:len(a)]
	for i, x := range a {
		y := c[i]
		if (x < y && lt) || (x == y && eq) || (x > y && gt) {
			out[i>>3] |= 1 << (i & 7)
		}
	}
}

// compareRow is numeric_cmp of row i: in int64 at the larger scale when
// both fit, else on the decimals.
func compareRow(l, r *scaledVec, i int) (int, error) {
	if !l.isExact(i) && !r.isExact(i) {
		a, as, c, cs := l.vals[i], l.scaleAt(i), r.vals[i], r.scaleAt(i)
		if as < cs {
			a, c, as, cs = c, a, cs, as
			if x, ok := compareRescaled(a, c, as-cs); ok {
				return -x, nil
			}
		} else if x, ok := compareRescaled(a, c, as-cs); ok {
			return x, nil
		}
	}
	a, err := l.decimalAt(i)
	if err != nil {
		return 0, err
	}
	c, err := r.decimalAt(i)
	if err != nil {
		return 0, err
	}
	return types.Compare(types.NumericT, a, c), nil
}

// compareRescaled compares a with c * 10^k; false when that overflows.
func compareRescaled(a, c int64, k int32) (int, bool) {
	if k > 18 {
		return 0, false
	}
	if k > 0 {
		f := pow10[k]
		if c > math.MaxInt64/f || c < -(math.MaxInt64/f) {
			return 0, false
		}
		c *= f
	}
	switch {
	case a < c:
		return -1, true
	case a > c:
		return 1, true
	}
	return 0, true
}
