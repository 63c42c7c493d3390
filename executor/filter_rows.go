package executor

// Conditions evaluated on some of a batch's rows in place. AND (and OR)
// evaluate each argument after the first on the rows still undecided
// (boolEval.evalAndOr). Taking those rows into a batch of their own
// copies every column the argument reads, strings byte by byte, and
// parses numeric text again, although the argument is often a column
// compared with a constant that could look at the rows where they are:
// in TPC-H's Q6 the copies were most of the scan's time. A
// rowsEvaluator does that.
//
// Protocol: evalRows(b, rows), rows ascending row indexes of b, returns
// a boolean array of len(rows) entries, entry k being what eval of the
// batch of those rows would give for row rows[k]; ok false (and no
// array) when it cannot for this batch (an input in a form its loop does
// not cover, or one it would have to compute for every row of b, which
// can cost more than the copy), and the caller takes the rows instead.
// Only kernels that read plain columns implement it: they cannot fail on
// rows the caller has settled, because they do not see them.

import (
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

type rowsEvaluator interface {
	evalRows(b arrow.RecordBatch, rows []int32) (arr *array.Boolean, ok bool, err error)
	// evalAll is eval of all of b when no row's value can make it fail
	// (ok false otherwise): for most of a batch's rows, a loop over all
	// of them costs less than listing those rows, and the rows the
	// caller has settled are ignored.
	evalAll(b arrow.RecordBatch) (arr *array.Boolean, ok bool, err error)
}

var (
	_ rowsEvaluator = (*checkedEval)(nil)
	_ rowsEvaluator = (*intConstCompare)(nil)
	_ rowsEvaluator = (*dateConstCompare)(nil)
	_ rowsEvaluator = (*stringConstCompare)(nil)
	_ rowsEvaluator = (*constInList)(nil)
	_ rowsEvaluator = (*numericCompareEval)(nil)
	_ rowsEvaluator = (*intColumnsCompare)(nil)
)

// filterInPlace switches evalRows on; tests turn it off to compare it
// with taking the rows.
var filterInPlace = true

// rowsTaken counts the rows AND and OR copied into batches of their own,
// for tests that check which way a filter went.
var rowsTaken atomic.Int64

// evalOnRows is ev on the rows rows of b, in place when ev can, else on
// a batch of those rows (with only the columns reads).
func evalOnRows(ev evaluator, b arrow.RecordBatch, rows []int32, reads []int) (arrow.Array, error) {
	if re, ok := ev.(rowsEvaluator); ok && filterInPlace {
		arr, ok, err := re.evalRows(b, rows)
		if err != nil || ok {
			return arr, err
		}
	}
	rowsTaken.Add(int64(len(rows)))
	sub := takeReadColumns(b, rows, reads)
	defer sub.Release()
	return ev.eval(sub)
}

// evalOnAll is ev on all of b when ev is a rowsEvaluator that cannot
// fail on it.
func evalOnAll(ev evaluator, b arrow.RecordBatch) (*array.Boolean, bool, error) {
	re, ok := ev.(rowsEvaluator)
	if !ok || !filterInPlace {
		return nil, false, nil
	}
	return re.evalAll(b)
}

// asBool is arr from an eval of a boolean kernel.
func asBool(arr arrow.Array, err error) (*array.Boolean, bool, error) {
	if err != nil {
		return nil, false, err
	}
	return arr.(*array.Boolean), true, nil
}

func (c *checkedEval) evalRows(b arrow.RecordBatch, rows []int32) (*array.Boolean, bool, error) {
	re, ok := c.ev.(rowsEvaluator)
	if !ok {
		return nil, false, nil
	}
	arr, ok, err := re.evalRows(b, rows)
	if err != nil || !ok {
		return nil, ok, err
	}
	if !arrow.TypeEqual(arr.DataType(), c.want) || arr.Len() != len(rows) {
		defer arr.Release()
		return nil, false, pgerr.Internal("executor: %s evaluated to %d rows of %s on %d rows, the plan says %s",
			c.expr, arr.Len(), arr.DataType(), len(rows), c.want)
	}
	return arr, true, nil
}

func (c *checkedEval) evalAll(b arrow.RecordBatch) (*array.Boolean, bool, error) {
	re, ok := c.ev.(rowsEvaluator)
	if !ok {
		return nil, false, nil
	}
	arr, ok, err := re.evalAll(b)
	if err != nil || !ok {
		return nil, ok, err
	}
	if !arrow.TypeEqual(arr.DataType(), c.want) || arr.Len() != int(b.NumRows()) {
		defer arr.Release()
		return nil, false, pgerr.Internal("executor: %s evaluated to %d rows of %s, the plan says %d rows of %s",
			c.expr, arr.Len(), arr.DataType(), b.NumRows(), c.want)
	}
	return arr, true, nil
}

// isPlainColumn is whether ev is a column read.
func isPlainColumn(ev evaluator) bool {
	if c, ok := ev.(*checkedEval); ok {
		ev = c.ev
	}
	_, ok := ev.(*columnEval)
	return ok
}

// plainColumn is the column ev reads, when ev is a column read.
func plainColumn(ev evaluator, b arrow.RecordBatch) (arrow.Array, bool, error) {
	if c, ok := ev.(*checkedEval); ok {
		ev = c.ev
	}
	col, ok := ev.(*columnEval)
	if !ok {
		return nil, false, nil
	}
	arr, err := col.eval(b)
	return arr, err == nil, err
}

// pickValidity is the validity of arr at rows, nil when they are all
// valid.
func pickValidity(arr arrow.Array, rows []int32) ([]byte, int) {
	v := validity(arr)
	if v == nil {
		return nil, 0
	}
	out := make([]byte, bitutil.BytesForBits(int64(len(rows))))
	nulls := 0
	for k, i := range rows {
		if isValid(v, int(i)) {
			out[k>>3] |= 1 << (k & 7)
		} else {
			nulls++
		}
	}
	if nulls == 0 {
		return nil, 0
	}
	return out, nulls
}

// rowsBits is a bitmap of one bit per row of rows.
func rowsBits(rows []int32) []byte { return make([]byte, bitutil.BytesForBits(int64(len(rows)))) }

// compareRowsWithConst is compareWithConst over vals at rows.
func compareRowsWithConst[T int16 | int32 | int64](vals []T, rows []int32, c int64, want uint8, out []byte) {
	lt, eq, gt := want&1 != 0, want&2 != 0, want&4 != 0
	for k, i := range rows {
		v := int64(vals[i])
		if (v < c && lt) || (v == c && eq) || (v > c && gt) {
			out[k>>3] |= 1 << (k & 7)
		}
	}
}

func (e *intConstCompare) evalRows(b arrow.RecordBatch, rows []int32) (*array.Boolean, bool, error) {
	arr, ok, err := plainColumn(e.arg, b)
	if !ok {
		return nil, false, err
	}
	defer arr.Release()
	bits := rowsBits(rows)
	switch a := arr.(type) {
	case *array.Int16:
		compareRowsWithConst(valuesOf[int16](a), rows, e.c, e.want, bits)
	case *array.Int32, *array.Date32:
		compareRowsWithConst(valuesOf[int32](a), rows, e.c, e.want, bits)
	case *array.Int64, *array.Timestamp:
		compareRowsWithConst(valuesOf[int64](a), rows, e.c, e.want, bits)
	default:
		return nil, false, nil
	}
	valid, nulls := pickValidity(arr, rows)
	return newBoolArray(bits, len(rows), valid, nulls), true, nil
}

func (e *intConstCompare) evalAll(b arrow.RecordBatch) (*array.Boolean, bool, error) {
	if !isPlainColumn(e.arg) {
		return nil, false, nil
	}
	return asBool(e.eval(b))
}

func (e *dateConstCompare) evalAll(b arrow.RecordBatch) (*array.Boolean, bool, error) {
	arr, ok, err := plainColumn(e.days, b)
	if !ok {
		return nil, false, err
	}
	defer arr.Release()
	if _, isDate := arr.(*array.Date32); !isDate {
		return nil, false, nil
	}
	for _, d := range valuesOf[int32](arr) {
		if d <= -safeCastDays || d >= safeCastDays {
			return nil, false, nil // the cast's way, which can fail
		}
	}
	return asBool(e.eval(b))
}

func (e *dateConstCompare) evalRows(b arrow.RecordBatch, rows []int32) (*array.Boolean, bool, error) {
	arr, ok, err := plainColumn(e.days, b)
	if !ok {
		return nil, false, err
	}
	defer arr.Release()
	if _, isDate := arr.(*array.Date32); !isDate {
		return nil, false, nil
	}
	days := valuesOf[int32](arr)
	for _, i := range rows {
		if d := days[i]; d <= -safeCastDays || d >= safeCastDays {
			return nil, false, nil // the cast's way, on a copy
		}
	}
	bits := rowsBits(rows)
	compareRowsWithConst(days, rows, e.day, e.want, bits)
	valid, nulls := pickValidity(arr, rows)
	return newBoolArray(bits, len(rows), valid, nulls), true, nil
}

// matches is whether s compared with the constant has a wanted outcome.
func (e *stringConstCompare) matches(s string) bool {
	if e.want == 0b010 || e.want == 0b101 {
		eq := s == e.c
		if e.bpchar {
			eq = bpcharEquals(s, e.c)
		}
		return eq == (e.want == 0b010)
	}
	if e.bpchar {
		s = trimBlanks(s)
	}
	return e.want&(1<<(strings.Compare(s, e.c)+1)) != 0
}

func (e *stringConstCompare) evalRows(b arrow.RecordBatch, rows []int32) (*array.Boolean, bool, error) {
	arr, ok, err := plainColumn(e.arg, b)
	if !ok {
		return nil, false, err
	}
	defer arr.Release()
	strs, isString := arr.(*array.String)
	if !isString {
		return nil, false, nil
	}
	bits := rowsBits(rows)
	for k, i := range rows {
		if e.matches(strs.Value(int(i))) {
			bits[k>>3] |= 1 << (k & 7)
		}
	}
	valid, nulls := pickValidity(arr, rows)
	return newBoolArray(bits, len(rows), valid, nulls), true, nil
}

func (e *stringConstCompare) evalAll(b arrow.RecordBatch) (*array.Boolean, bool, error) {
	if !isPlainColumn(e.arg) {
		return nil, false, nil
	}
	return asBool(e.eval(b))
}

// hasString is whether v (blank-trimmed for char(n)) is in the list.
func (e *constInList) hasString(v string) bool {
	if e.bpchar {
		v = trimBlanks(v)
	}
	if e.strSet != nil {
		_, ok := e.strSet[v]
		return ok
	}
	return slices.Contains(e.strs, v)
}

// hasInt is whether v is in the list.
func (e *constInList) hasInt(v int64) bool {
	if e.intSet != nil {
		_, ok := e.intSet[v]
		return ok
	}
	return slices.Contains(e.ints, v)
}

func (e *constInList) evalRows(b arrow.RecordBatch, rows []int32) (*array.Boolean, bool, error) {
	arr, ok, err := plainColumn(e.arg, b)
	if !ok {
		return nil, false, err
	}
	defer arr.Release()
	found := rowsBits(rows)
	mark := func(k int) { found[k>>3] |= 1 << (k & 7) }
	switch a := arr.(type) {
	case *array.String:
		for k, i := range rows {
			if e.hasString(a.Value(int(i))) {
				mark(k)
			}
		}
	case *array.Int64, *array.Timestamp:
		findIntsAt(e, valuesOf[int64](a), rows, mark)
	case *array.Int32, *array.Date32:
		findIntsAt(e, valuesOf[int32](a), rows, mark)
	case *array.Int16:
		findIntsAt(e, valuesOf[int16](a), rows, mark)
	default:
		return nil, false, nil
	}
	valid, nulls := pickValidity(arr, rows)
	return e.resultOf(found, len(rows), valid, nulls), true, nil
}

func (e *constInList) evalAll(b arrow.RecordBatch) (*array.Boolean, bool, error) {
	if !isPlainColumn(e.arg) {
		return nil, false, nil
	}
	return asBool(e.eval(b))
}

// findIntsAt marks the k of each rows[k] whose value is in the list.
func findIntsAt[T int16 | int32 | int64](e *constInList, vals []T, rows []int32, mark func(int)) {
	for k, i := range rows {
		if e.hasInt(int64(vals[i])) {
			mark(k)
		}
	}
}

// evalRows compares the two sides' vectors of the whole batch at rows,
// when those vectors cost nothing more to get than the rows' would: a
// constant, a stored column whose vector is kept (numeric_cache.go; or
// will be), a column already parsed for this batch, or most of the
// batch's rows.
func (e *numericCompareEval) evalRows(b arrow.RecordBatch, rows []int32) (*array.Boolean, bool, error) {
	most := 4*len(rows) >= int(b.NumRows())
	if !most && (!parsedFor(e.lvec, b) || !parsedFor(e.rvec, b)) {
		return nil, false, nil
	}
	l, err := e.lvec.evalScaled(b)
	if err != nil {
		return nil, false, err
	}
	r, err := e.rvec.evalScaled(b)
	if err != nil {
		return nil, false, err
	}
	bits := rowsBits(rows)
	if vals, c, want, ok := e.againstConst(l, r); ok {
		compareRowsWithConst(vals, rows, c, want, bits)
		return newBoolArray(bits, len(rows), nil, 0), true, nil
	}
	valid := rowsBits(rows)
	nulls := 0
	uniform := l.scales == nil && r.scales == nil && l.exact == nil && r.exact == nil && l.scale == r.scale
	lt, eq, gt := e.want&1 != 0, e.want&2 != 0, e.want&4 != 0
	for k, i := range rows {
		if !isValid(l.valid, int(i)) || !isValid(r.valid, int(i)) {
			nulls++
			continue
		}
		valid[k>>3] |= 1 << (k & 7)
		var c int
		if uniform {
			x, y := l.vals[i], r.vals[i]
			c = compareVals1(x, y)
		} else if c, err = compareRow(l, r, int(i)); err != nil {
			return nil, false, err
		}
		if (c < 0 && lt) || (c == 0 && eq) || (c > 0 && gt) {
			bits[k>>3] |= 1 << (k & 7)
		}
	}
	if nulls == 0 {
		valid = nil
	}
	return newBoolArray(bits, len(rows), valid, nulls), true, nil
}

// againstFinerConst is againstConst for a constant of more digits than
// the column's scale s (`c_acctbal > (SELECT avg(c_acctbal) ...)`): the
// column's integers X compare with y = k × 10^s as with floor(y), when y
// is not an integer X <= floor(y) meaning X < y and X = y never holding.
// ok false when floor(y) does not fit int64 (or k is NaN or infinite).
func againstFinerConst(l *scaledVec, k *scaledConst, want uint8) (vals []int64, c int64, _ uint8, ok bool) {
	d := k.exact
	if d == nil {
		var err error
		if d, err = types.NumericFromScaled(k.v, k.scale); err != nil {
			return nil, 0, 0, false
		}
	}
	if d.Form != apd.Finite {
		return nil, 0, 0, false
	}
	var y, ip, frac apd.Decimal
	y.Set(d)
	y.Exponent += l.scale
	y.Modf(&ip, &frac)
	c, err := ip.Int64()
	if err != nil {
		return nil, 0, 0, false
	}
	if frac.Sign() < 0 {
		if c == math.MinInt64 {
			return nil, 0, 0, false
		}
		c-- // floor, below a negative y
	}
	if frac.Sign() != 0 {
		want = want&1 | want&1<<1 | want&4 // = floor(y) is < y
	}
	return l.vals, c, want, true
}

// againstConst is the comparison as vals (one side, of one scale and
// without NULLs) against the constant c at their scale (the other side),
// with the outcome bits to keep: l_quantity < 24 compares each value
// with 2400. ok is false when the sides are not so, or c does not
// rescale exactly (a constant of more digits than the column).
func (e *numericCompareEval) againstConst(l, r *scaledVec) (vals []int64, c int64, want uint8, ok bool) {
	want = e.want
	k, isConst := e.rvec.(*scaledConst)
	if !isConst {
		if k, isConst = e.lvec.(*scaledConst); !isConst {
			return nil, 0, 0, false
		}
		l, r, want = r, l, flipWant(want)
	}
	if k.null || l.valid != nil || l.scales != nil || l.exact != nil {
		return nil, 0, 0, false
	}
	if k.exact != nil || k.scale > l.scale {
		return againstFinerConst(l, k, want)
	}
	c = k.v
	if d := l.scale - k.scale; d > 0 {
		if d > 18 || c > math.MaxInt64/pow10[d] || c < math.MinInt64/pow10[d] {
			return nil, 0, 0, false
		}
		c *= pow10[d]
	}
	return l.vals, c, want, true
}

// evalAll compares whole vectors when both are at hand (parsedFor).
func (e *numericCompareEval) evalAll(b arrow.RecordBatch) (*array.Boolean, bool, error) {
	if !parsedFor(e.lvec, b) || !parsedFor(e.rvec, b) {
		return nil, false, nil
	}
	return asBool(e.eval(b))
}

// compareVals1 is -1, 0 or 1 as x is below, equal to or above y.
func compareVals1(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// parsedFor is whether v's vector of b is at hand without parsing: a
// constant's, or a column's already parsed for b by another reader, or
// kept for its stored array (or to be, once parsed this time).
func parsedFor(v scaledEvaluator, b arrow.RecordBatch) bool {
	switch x := v.(type) {
	case *scaledConst:
		return true
	case *scaledColumn:
		if x.cache.has(b, x.col.idx) {
			return true
		}
		arr, err := x.col.eval(b)
		if err != nil {
			return false
		}
		defer arr.Release()
		strs, ok := arr.(*array.String)
		if !ok {
			return false
		}
		return keptOrKeepable(strs)
	}
	return false
}

func (e *intColumnsCompare) evalAll(b arrow.RecordBatch) (*array.Boolean, bool, error) {
	return asBool(e.eval(b))
}

func (e *intColumnsCompare) evalRows(b arrow.RecordBatch, rows []int32) (*array.Boolean, bool, error) {
	l, r, err := e.columns(b)
	if err != nil {
		return nil, false, err
	}
	defer l.Release()
	defer r.Release()
	bits := rowsBits(rows)
	switch e.t.ID {
	case types.Int2:
		compareColumnsAt(valuesOf[int16](l), valuesOf[int16](r), rows, e.want, bits)
	case types.Int4, types.Date:
		compareColumnsAt(valuesOf[int32](l), valuesOf[int32](r), rows, e.want, bits)
	default:
		compareColumnsAt(valuesOf[int64](l), valuesOf[int64](r), rows, e.want, bits)
	}
	lv, _ := pickValidity(l, rows)
	rv, _ := pickValidity(r, rows)
	valid, nulls := andValid(lv, rv, len(rows)), 0 // fresh bitmaps, all three
	if valid != nil {
		nulls = len(rows) - bitutil.CountSetBits(valid, 0, len(rows))
	}
	return newBoolArray(bits, len(rows), valid, nulls), true, nil
}

// compareColumnsAt is compareColumns at rows.
func compareColumnsAt[T int16 | int32 | int64](l, r []T, rows []int32, want uint8, out []byte) {
	lt, eq, gt := want&1 != 0, want&2 != 0, want&4 != 0
	for k, i := range rows {
		a, c := l[i], r[i]
		if (a < c && lt) || (a == c && eq) || (a > c && gt) {
			out[k>>3] |= 1 << (k & 7)
		}
	}
}
