package executor

// Typed kernels for the filters that scans spend their time in (TPC-H's
// `l_shipmode IN ('MAIL', 'SHIP')`, `l_shipinstruct = 'DELIVER IN
// PERSON'`, `l_shipdate < date '1995-01-01' + interval '1 year'`): string
// comparisons and IN lists over the Arrow buffers with no datum boxed per
// row, and the date to timestamp cast as a loop over int32 days. The
// row-at-a-time paths they replace stay for every other shape.
//
// char(n) follows bpchareq/bpcharcmp: values are stored blank-padded and
// compared without their trailing blanks (only ' ', as bcTruelen), byte
// by byte as under the C collation.

import (
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// filterKernels switches the kernels of this file on; tests and
// benchmarks turn it off to compare them with the row-at-a-time paths.
var filterKernels = true

// trimBlanks drops the trailing blanks of a char(n) value.
func trimBlanks(s string) string {
	n := len(s)
	for n > 0 && s[n-1] == ' ' {
		n--
	}
	return s[:n]
}

// bpcharEquals is trimBlanks(s) == c for a c without trailing blanks,
// without scanning the padding of values that differ before it.
func bpcharEquals(s, c string) bool {
	if len(s) < len(c) || s[:len(c)] != c {
		return false
	}
	for i := len(c); i < len(s); i++ {
		if s[i] != ' ' {
			return false
		}
	}
	return true
}

// constValue is the value of ev when it is a compiled constant (folded or
// written), seen through the test-time type check.
func constValue(ev evaluator) (any, bool) {
	if c, ok := ev.(*checkedEval); ok {
		ev = c.ev
	}
	if c, ok := ev.(*constEval); ok {
		return c.v, true
	}
	return nil, false
}

// flipWant is the outcome set of an operator with its operands swapped
// (c < x is x > c).
func flipWant(want uint8) uint8 { return want&0b010 | want&1<<2 | want&4>>2 }

// bpcharCompareKernel compares two char(n) arrays, ignoring trailing
// blanks.
func bpcharCompareKernel(want uint8) func(l, r arrow.Array) (arrow.Array, error) {
	return func(l, r arrow.Array) (arrow.Array, error) {
		ls, rs := l.(*array.String), r.(*array.String)
		return compareLoop(l, r, func(i int) int {
			return strings.Compare(trimBlanks(ls.Value(i)), trimBlanks(rs.Value(i)))
		}, want), nil
	}
}

// stringConstCompare is a text-like column (or expression) compared with
// a non-NULL constant: one loop over the strings, no constant array.
type stringConstCompare struct {
	arg    evaluator
	c      string
	want   uint8
	bpchar bool
}

// compileStringConstCompare is x when one side is a non-NULL constant of
// a text-like type; ok is false otherwise (and for a NULL constant, which
// the generic kernel turns into NULLs).
func compileStringConstCompare(x *nodes.OpExpr, l, r evaluator) (evaluator, bool) {
	t := x.Left.Type()
	if !filterKernels || !t.IsString() || x.Right.Type().ID != t.ID {
		return nil, false
	}
	want := cmpWant(x.Op)
	arg, cv := l, any(nil)
	if v, ok := constValue(r); ok {
		cv = v
	} else if v, ok := constValue(l); ok {
		arg, cv, want = r, v, flipWant(want)
	}
	s, ok := cv.(string)
	if !ok {
		return nil, false
	}
	e := &stringConstCompare{arg: arg, c: s, want: want, bpchar: t.ID == types.Bpchar}
	if e.bpchar {
		e.c = trimBlanks(s)
	}
	return e, true
}

func (e *stringConstCompare) eval(b arrow.RecordBatch) (arrow.Array, error) {
	arr, err := e.arg.eval(b)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	strs := arr.(*array.String)
	n := strs.Len()
	valid, nulls := andValidity(arr)
	bits := make([]byte, bitutil.BytesForBits(int64(n)))
	c, want := e.c, e.want
	if want == 0b010 || want == 0b101 { // = and <>: equality of bytes only
		neg := want == 0b101
		for i := 0; i < n; i++ {
			s := strs.Value(i)
			eq := s == c
			if e.bpchar {
				eq = bpcharEquals(s, c)
			}
			if eq != neg {
				bits[i>>3] |= 1 << (i & 7)
			}
		}
	} else {
		for i := 0; i < n; i++ {
			s := strs.Value(i)
			if e.bpchar {
				s = trimBlanks(s)
			}
			if want&(1<<(strings.Compare(s, c)+1)) != 0 {
				bits[i>>3] |= 1 << (i & 7)
			}
		}
	}
	return newBoolArray(bits, n, valid, nulls), nil
}

// constInList is `x IN (constants)` (and NOT IN, and = ANY / <> ALL of a
// constant array) over a text-like or integer-like argument, with SQL's
// rules: a NULL argument gives NULL, a value not in the list gives NULL
// when the list holds a NULL, else false (true for NOT IN).
type constInList struct {
	arg     evaluator
	not     bool
	hasNull bool
	// Exactly one of the two key sets is used, by the argument's type.
	strs   []string
	strSet map[string]struct{}
	ints   []int64
	intSet map[int64]struct{}
	bpchar bool
}

// compileConstInList is x as a constInList; ok is false when an element
// is not a constant or the argument's type has no typed loop here.
func compileConstInList(x *nodes.InList, ec *ExecContext) (evaluator, bool, error) {
	t := x.Arg.Type()
	if !filterKernels || !t.IsString() && !intLike(t) {
		return nil, false, nil
	}
	e := &constInList{not: x.Not, bpchar: t.ID == types.Bpchar}
	for _, el := range x.List {
		c, ok := el.(*nodes.Const)
		if !ok || c.T.ID != t.ID {
			return nil, false, nil
		}
		switch v := c.Value.(type) {
		case nil:
			e.hasNull = true
		case string:
			if e.bpchar {
				v = trimBlanks(v)
			}
			e.strs = append(e.strs, v)
		case int64:
			e.ints = append(e.ints, v)
		case int32:
			e.ints = append(e.ints, int64(v))
		default:
			return nil, false, nil
		}
	}
	if len(e.strs) >= hashedInList {
		e.strSet = setOf(e.strs)
	}
	if len(e.ints) >= hashedInList {
		e.intSet = setOf(e.ints)
	}
	arg, err := compileExpr(x.Arg, ec)
	if err != nil {
		return nil, false, err
	}
	e.arg = arg
	return e, true, nil
}

// intLike is a type whose values are int16, int32 or int64 in Arrow.
func intLike(t types.T) bool {
	switch t.ID {
	case types.Int2, types.Int4, types.Int8, types.Date, types.Timestamp, types.TimestampTZ:
		return true
	}
	return false
}

func (e *constInList) eval(b arrow.RecordBatch) (arrow.Array, error) {
	arr, err := e.arg.eval(b)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	n := arr.Len()
	found := make([]byte, bitutil.BytesForBits(int64(n)))
	switch a := arr.(type) {
	case *array.String:
		e.findStrings(a, found)
	case *array.Int64, *array.Timestamp:
		findInts(e, valuesOf[int64](a), found)
	case *array.Int32, *array.Date32:
		findInts(e, valuesOf[int32](a), found)
	case *array.Int16:
		findInts(e, valuesOf[int16](a), found)
	}
	return e.result(found, arr), nil
}

// findStrings sets found for the rows of a in the list. The way to look
// is chosen once per batch, each with a loop of its own.
func (e *constInList) findStrings(a *array.String, found []byte) {
	mark := func(i int) { found[i>>3] |= 1 << (i & 7) }
	n := a.Len()
	switch {
	case e.strSet != nil:
		for i := 0; i < n; i++ {
			v := a.Value(i)
			if e.bpchar {
				v = trimBlanks(v)
			}
			if _, ok := e.strSet[v]; ok {
				mark(i)
			}
		}
	case e.bpchar:
		for i := 0; i < n; i++ {
			v := a.Value(i)
			if slices.ContainsFunc(e.strs, func(k string) bool { return bpcharEquals(v, k) }) {
				mark(i)
			}
		}
	default:
		for i := 0; i < n; i++ {
			if slices.Contains(e.strs, a.Value(i)) {
				mark(i)
			}
		}
	}
}

// findInts sets found for the rows of vals in the list.
func findInts[T int16 | int32 | int64](e *constInList, vals []T, found []byte) {
	if e.intSet != nil {
		for i, v := range vals {
			if _, ok := e.intSet[int64(v)]; ok {
				found[i>>3] |= 1 << (i & 7)
			}
		}
		return
	}
	for i, v := range vals {
		if slices.Contains(e.ints, int64(v)) {
			found[i>>3] |= 1 << (i & 7)
		}
	}
}

// setOf is the set of vs.
func setOf[K comparable](vs []K) map[K]struct{} {
	set := make(map[K]struct{}, len(vs))
	for _, v := range vs {
		set[v] = struct{}{}
	}
	return set
}

// result turns the rows found in the list into IN's (or NOT IN's) value.
func (e *constInList) result(found []byte, arg arrow.Array) arrow.Array {
	valid, nulls := andValidity(arg)
	return e.resultOf(found, arg.Len(), valid, nulls)
}

// resultOf is result for n rows of the argument's validity valid (nil:
// no NULLs) with nulls NULLs.
func (e *constInList) resultOf(found []byte, n int, valid []byte, nulls int) *array.Boolean {
	if e.not {
		for i := range found {
			found[i] = ^found[i]
		}
	}
	if !e.hasNull {
		return newBoolArray(found, n, valid, nulls)
	}
	// Rows not found are NULL: only the found ones (true for IN; false
	// for NOT IN) keep a value.
	known := make([]byte, len(found))
	for i := range known {
		k := found[i]
		if e.not {
			k = ^k
		}
		if valid != nil {
			k &= valid[i]
		}
		known[i] = k
	}
	return newBoolArray(found, n, known, n-bitutil.CountSetBits(known, 0, n))
}

// dateToTimestampEval is the date to timestamp (or timestamptz, the
// session zone being UTC) cast as a loop: days times microseconds per
// day, with infinities and the dates past timestamp's range left to
// types.Cast (which keeps their values and errors).
type dateToTimestampEval struct {
	arg evaluator
	to  types.T
}

// safeCastDays bounds the dates whose timestamp is a plain product
// (about 45,000 years either side of 1970, well inside both ranges).
const safeCastDays = 1 << 24

const usecsPerDay = 86400 * 1000000

func (c *dateToTimestampEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	a, err := c.arg.eval(b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	days := valuesOf[int32](a)
	valid, nulls := andValidity(a)
	out := make([]int64, len(days))
	for i, d := range days {
		if d > -safeCastDays && d < safeCastDays {
			out[i] = int64(d) * usecsPerDay
			continue
		}
		if !isValid(valid, i) {
			continue
		}
		v, err := types.Cast(d, types.DateT, c.to, false)
		if err != nil {
			return nil, err
		}
		out[i] = v.(int64)
	}
	return newFixedArray(c.to.ArrowType(), out, valid, nulls), nil
}

// takeStrings gathers the rows sel of a string array into one offsets
// and one data buffer, sized in a first pass: no builder call per row.
func takeStrings(a *array.String, sel []int32) arrow.Array {
	offs := a.ValueOffsets()
	size := 0
	for j := 0; j < len(sel); {
		k := runEnd(sel, j)
		size += int(offs[sel[k-1]+1] - offs[sel[j]])
		j = k
	}
	outOffs := make([]int32, len(sel)+1)
	data := make([]byte, size)
	src := a.ValueBytes()
	base := offs[0]
	// A run of consecutive rows is one copy: a filter that keeps most
	// rows copies a few long runs, not a value at a time.
	for j := 0; j < len(sel); {
		k := runEnd(sel, j)
		first, at := offs[sel[j]], outOffs[j]
		for r := j; r < k; r++ {
			outOffs[r+1] = at + offs[sel[r]+1] - first
		}
		copy(data[at:], src[first-base:offs[sel[k-1]+1]-base])
		j = k
	}
	var vb *memory.Buffer
	nulls := 0
	if srcValid := validity(a); srcValid != nil {
		valid := make([]byte, bitutil.BytesForBits(int64(len(sel))))
		for j, i := range sel {
			if isValid(srcValid, int(i)) {
				valid[j>>3] |= 1 << (j & 7)
			} else {
				nulls++
			}
		}
		vb = memory.NewBufferBytes(valid)
	}
	d := array.NewData(a.DataType(), len(sel), []*memory.Buffer{vb,
		memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(outOffs)), memory.NewBufferBytes(data)}, nil, nulls, 0)
	defer d.Release()
	return array.NewStringData(d)
}

// runEnd is the end (exclusive) of the run of consecutive rows of sel
// that starts at j.
func runEnd(sel []int32, j int) int {
	k := j + 1
	for k < len(sel) && sel[k] == sel[k-1]+1 {
		k++
	}
	return k
}

// intConstCompare is an integer, date or timestamp compared with a
// non-NULL constant of its type: one loop over the values, no constant
// array (which AND's subsets of rows would rebuild at every length).
type intConstCompare struct {
	arg  evaluator
	c    int64
	want uint8
	t    types.T
}

// compileIntConstCompare is x when one side is a non-NULL constant of an
// integer-like type; ok is false otherwise.
func compileIntConstCompare(x *nodes.OpExpr, l, r evaluator) (evaluator, bool) {
	t := x.Left.Type()
	if !filterKernels || !intLike(t) || x.Right.Type().ID != t.ID {
		return nil, false
	}
	want := cmpWant(x.Op)
	arg, cv := l, any(nil)
	if v, ok := constValue(r); ok {
		cv = v
	} else if v, ok := constValue(l); ok {
		arg, cv, want = r, v, flipWant(want)
	}
	var c int64
	switch v := cv.(type) {
	case int64:
		c = v
	case int32:
		c = int64(v)
	default:
		return nil, false
	}
	cmp := &intConstCompare{arg: arg, c: c, want: want, t: t}
	if dc, ok := asDateCompare(cmp); ok {
		return dc, true
	}
	return cmp, true
}

// dateConstCompare is a date cast to timestamp compared with a timestamp
// constant (l_shipdate <= date '1998-12-01' - interval '90' day), done as
// the date against the day the constant falls in: no cast per row. A
// batch with a date the plain product does not cover (infinities, dates
// past timestamp's range, whose casts fail) goes the cast's way.
type dateConstCompare struct {
	days     evaluator // the date
	day      int64
	want     uint8
	fallback *intConstCompare
}

// asDateCompare is cmp as a dateConstCompare, when its argument is a
// date cast to timestamp and the constant is finite.
func asDateCompare(cmp *intConstCompare) (evaluator, bool) {
	arg := cmp.arg
	if c, ok := arg.(*checkedEval); ok {
		arg = c.ev
	}
	cast, ok := arg.(*dateToTimestampEval)
	if !ok || cmp.t.ID != types.Timestamp || cast.to.ID != types.Timestamp {
		return nil, false
	}
	c := cmp.c
	if c <= -safeCastDays*usecsPerDay || c >= safeCastDays*usecsPerDay {
		return nil, false
	}
	day := c / usecsPerDay
	if c%usecsPerDay < 0 {
		day-- // floor
	}
	exact := day*usecsPerDay == c
	want := cmp.want
	switch {
	case exact:
	case want == 0b001: // d*U < c, c inside day: d <= day
		want = 0b011
	case want == 0b110: // d*U >= c, c inside day: d > day
		want = 0b100
	case want == 0b011, want == 0b100:
	default:
		return nil, false // = and <> with a constant that is not midnight
	}
	return &dateConstCompare{days: cast.arg, day: day, want: want, fallback: cmp}, true
}

func (e *dateConstCompare) eval(b arrow.RecordBatch) (arrow.Array, error) {
	arr, err := e.days.eval(b)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	days := valuesOf[int32](arr)
	for _, d := range days {
		if d <= -safeCastDays || d >= safeCastDays {
			return e.fallback.eval(b)
		}
	}
	n := arr.Len()
	bits := make([]byte, bitutil.BytesForBits(int64(n)))
	compareWithConst(days, e.day, e.want, bits)
	valid, nulls := andValidity(arr)
	return newBoolArray(bits, n, valid, nulls), nil
}

func (e *intConstCompare) eval(b arrow.RecordBatch) (arrow.Array, error) {
	arr, err := e.arg.eval(b)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	n := arr.Len()
	bits := make([]byte, bitutil.BytesForBits(int64(n)))
	switch e.t.ID {
	case types.Int2:
		compareWithConst(valuesOf[int16](arr), e.c, e.want, bits)
	case types.Int4, types.Date:
		compareWithConst(valuesOf[int32](arr), e.c, e.want, bits)
	default:
		compareWithConst(valuesOf[int64](arr), e.c, e.want, bits)
	}
	valid, nulls := andValidity(arr)
	return newBoolArray(bits, n, valid, nulls), nil
}

// compareWithConst sets bit i of out where vals[i] compared with c has an
// outcome in want; each operator has its own loop, writing a byte of
// eight outcomes at a time without branches.
func compareWithConst[T int16 | int32 | int64](vals []T, c int64, want uint8, out []byte) {
	switch want {
	case 0b001:
		packBits(vals, out, func(v T) bool { return int64(v) < c })
	case 0b011:
		packBits(vals, out, func(v T) bool { return int64(v) <= c })
	case 0b100:
		packBits(vals, out, func(v T) bool { return int64(v) > c })
	case 0b110:
		packBits(vals, out, func(v T) bool { return int64(v) >= c })
	case 0b010:
		packBits(vals, out, func(v T) bool { return int64(v) == c })
	default:
		packBits(vals, out, func(v T) bool { return int64(v) != c })
	}
}

// packBits sets bit i of out to test(vals[i]), eight bits to a byte
// (test is inlined into each instantiation's loop).
func packBits[T any](vals []T, out []byte, test func(T) bool) {
	for j := 0; j < len(vals); j += 8 {
		chunk := vals[j:min(j+8, len(vals))]
		var m byte
		for t, v := range chunk {
			m |= bit(test(v)) << t
		}
		out[j>>3] = m
	}
}

// bit is 1 for true, 0 for false.
func bit(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// intColumnsCompare compares two integer, date or timestamp columns of
// one type (TPC-H's l_commitdate < l_receiptdate); a rowsEvaluator.
type intColumnsCompare struct {
	l, r evaluator
	want uint8
	t    types.T
}

// compileIntColumnsCompare is x when both sides are columns of one
// integer-like type.
func compileIntColumnsCompare(x *nodes.OpExpr, l, r evaluator) (evaluator, bool) {
	t := x.Left.Type()
	if !filterKernels || !intLike(t) || x.Right.Type().ID != t.ID || !isPlainColumn(l) || !isPlainColumn(r) {
		return nil, false
	}
	return &intColumnsCompare{l: l, r: r, want: cmpWant(x.Op), t: t}, true
}

// columns is the two columns of b compared.
func (e *intColumnsCompare) columns(b arrow.RecordBatch) (l, r arrow.Array, err error) {
	if l, err = e.l.eval(b); err != nil {
		return nil, nil, err
	}
	if r, err = e.r.eval(b); err != nil {
		l.Release()
		return nil, nil, err
	}
	return l, r, nil
}

func (e *intColumnsCompare) eval(b arrow.RecordBatch) (arrow.Array, error) {
	l, r, err := e.columns(b)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	defer r.Release()
	n := l.Len()
	bits := make([]byte, bitutil.BytesForBits(int64(n)))
	switch e.t.ID {
	case types.Int2:
		compareColumns(valuesOf[int16](l), valuesOf[int16](r), e.want, bits)
	case types.Int4, types.Date:
		compareColumns(valuesOf[int32](l), valuesOf[int32](r), e.want, bits)
	default:
		compareColumns(valuesOf[int64](l), valuesOf[int64](r), e.want, bits)
	}
	valid, nulls := andValidity(l, r)
	return newBoolArray(bits, n, valid, nulls), nil
}

// compareColumns sets bit i of out where l[i] compared with r[i] has an
// outcome in want.
func compareColumns[T int16 | int32 | int64](l, r []T, want uint8, out []byte) {
	r = r[:len(l)]
	lt, eq, gt := want&1 != 0, want&2 != 0, want&4 != 0
	for j := 0; j < len(l); j += 8 {
		end := min(j+8, len(l))
		var m byte
		for i := j; i < end; i++ {
			a, c := l[i], r[i]
			m |= bit((a < c && lt) || (a == c && eq) || (a > c && gt)) << (i - j)
		}
		out[j>>3] = m
	}
}
