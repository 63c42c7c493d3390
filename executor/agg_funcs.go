package executor

// The aggregate functions: per-group state kept in slices indexed by
// group number, updated in loops over whole argument arrays.

import (
	"math"
	"math/big"
	"math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

func newAggState(call *nodes.AggCall) aggState {
	var argT types.T
	if len(call.Args) > 0 {
		argT = call.Args[0].Type()
	}
	var st aggState
	switch call.Name {
	case "count":
		st = &countState{star: call.Star}
	case "sum", "avg":
		avg := call.Name == "avg"
		switch {
		case argT.ID == types.IntervalType:
			st = &intervalSumState{avg: avg}
		case argT.IsInteger():
			st = &intSumState{avg: avg, out: call.T}
		case argT.IsFloat():
			st = &floatSumState{avg: avg, out: call.T}
		default:
			st = &numericSumState{avg: avg}
		}
	case "min", "max":
		st = &minMaxState{t: argT, max: call.Name == "max"}
	case "bool_and", "bool_or", "every":
		st = &boolAggState{and: call.Name != "bool_or"}
	case "string_agg":
		st = &stringAggState{}
	case "avg_combine":
		st = &avgCombineState{out: call.T, sumT: argT}
	case "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop":
		st = newVarianceState(call.Name, argT)
	case "percentile_cont", "percentile_disc", "mode":
		st = newOrderedSetState(call)
	default:
		panic("executor: unknown aggregate " + call.Name)
	}
	argTypes := make([]types.T, len(call.Args))
	for i, a := range call.Args {
		argTypes[i] = a.Type()
	}
	if call.Distinct {
		st = &distinctState{inner: st, types: argTypes}
	}
	// string_agg's result depends on the order of its input; with DISTINCT
	// and no ORDER BY, PostgreSQL's input is the distinct step's sorted
	// order, so it is sorted here too.
	if !call.WithinGroup && (len(call.OrderBy) > 0 || (call.Distinct && call.Name == "string_agg")) {
		ts := slices.Clone(argTypes)
		for _, k := range call.OrderBy {
			ts = append(ts, k.Expr.Type())
		}
		st = &orderedState{inner: st, nargs: len(call.Args), keys: call.OrderBy, types: ts, byArgs: call.Distinct}
	}
	if call.Filter != nil {
		// Outermost: rows the filter rejects reach neither DISTINCT nor
		// the ORDER BY buffer.
		st = &filterState{inner: st}
	}
	return st
}

// avgCombineState finishes a partitionwise avg: its arguments are the
// partial sums and counts of each partition, and its result is the avg
// PostgreSQL computes over all rows (same scale rules).
type avgCombineState struct {
	out, sumT types.T
	sums      []*apd.Decimal
	fsums     []float64
	counts    []int64
}

func (s *avgCombineState) update(groups []int32, nrows, ngroups int, args []arrow.Array) error {
	s.sums, s.fsums, s.counts = grow(s.sums, ngroups), grow(s.fsums, ngroups), grow(s.counts, ngroups)
	for i := 0; i < nrows; i++ {
		sum := types.DatumAt(args[0], s.sumT, i)
		cnt := types.DatumAt(args[1], types.Int8T, i)
		if sum == nil || cnt == nil {
			continue
		}
		g := groupOf(groups, i)
		s.counts[g] += cnt.(int64)
		switch v := sum.(type) {
		case float64:
			// float8_combine adds the partial sums with float8pl.
			r, err := types.FloatAdd(types.Float8T, s.fsums[g], v)
			if err != nil {
				return err
			}
			s.fsums[g] = r
		case int64:
			d := types.NumericFromInt64(v)
			if s.sums[g] == nil {
				s.sums[g] = d
			} else if r, err := types.NumericAdd(s.sums[g], d); err != nil {
				return err
			} else {
				s.sums[g] = r
			}
		case *apd.Decimal:
			if s.sums[g] == nil {
				s.sums[g] = v
			} else if r, err := types.NumericAdd(s.sums[g], v); err != nil {
				return err
			} else {
				s.sums[g] = r
			}
		}
	}
	return nil
}

func (s *avgCombineState) result(ngroups int) (arrow.Array, error) {
	s.sums, s.fsums, s.counts = grow(s.sums, ngroups), grow(s.fsums, ngroups), grow(s.counts, ngroups)
	out := make([]any, ngroups)
	for g := 0; g < ngroups; g++ {
		if s.counts[g] == 0 {
			continue
		}
		if s.out.IsFloat() {
			out[g] = s.fsums[g] / float64(s.counts[g])
			continue
		}
		sum := s.sums[g]
		if sum == nil {
			sum = types.NumericFromInt64(0)
		}
		avg, err := types.NumericAvg(sum, s.counts[g])
		if err != nil {
			return nil, err
		}
		out[g] = avg
	}
	return arrayOfDatums(s.out, out), nil
}

// orderedState buffers each group's rows (arguments and ORDER BY keys),
// sorts them at the end and only then feeds the inner aggregate.
type orderedState struct {
	inner aggState
	nargs int
	keys  []nodes.SortKey
	types []types.T
	rows  []orderedRow
	// byArgs orders rows that tie on keys by the arguments, ascending: with
	// DISTINCT, PostgreSQL sorts by every argument after the ORDER BY keys
	// (aggdistinct).
	byArgs bool
}

type orderedRow struct {
	group int32
	vals  []any
}

func (s *orderedState) update(groups []int32, nrows, ngroups int, args []arrow.Array) error {
	for i := 0; i < nrows; i++ {
		vals := make([]any, len(args))
		for c, a := range args {
			vals[c] = types.DatumAt(a, s.types[c], i)
		}
		s.rows = append(s.rows, orderedRow{group: groupOf(groups, i), vals: vals})
	}
	return nil
}

func (s *orderedState) result(ngroups int) (arrow.Array, error) {
	sort.SliceStable(s.rows, func(i, j int) bool {
		a, b := s.rows[i], s.rows[j]
		if a.group != b.group {
			return a.group < b.group
		}
		for k, key := range s.keys {
			c := compareDatums(s.types[s.nargs+k], a.vals[s.nargs+k], b.vals[s.nargs+k], key.NullsFirst)
			if key.Desc {
				c = -c
				if (a.vals[s.nargs+k] == nil) != (b.vals[s.nargs+k] == nil) {
					c = -c // NULL placement does not flip with DESC
				}
			}
			if c != 0 {
				return c < 0
			}
		}
		for k := 0; s.byArgs && k < s.nargs; k++ {
			if c := compareDatums(s.types[k], a.vals[k], b.vals[k], false); c != 0 {
				return c < 0
			}
		}
		return false
	})
	groups := make([]int32, len(s.rows))
	cols := make([][]any, s.nargs)
	for i, r := range s.rows {
		groups[i] = r.group
		for c := 0; c < s.nargs; c++ {
			cols[c] = append(cols[c], r.vals[c])
		}
	}
	arrs := make([]arrow.Array, s.nargs)
	for c := range arrs {
		arrs[c] = arrayOfDatums(s.types[c], cols[c])
	}
	defer releaseAll(arrs)
	if err := s.inner.update(groups, len(s.rows), ngroups, arrs); err != nil {
		return nil, err
	}
	return s.inner.result(ngroups)
}

// compareDatums orders datums with NULLs first or last.
func compareDatums(t types.T, a, b any, nullsFirst bool) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		if nullsFirst {
			return -1
		}
		return 1
	case b == nil:
		if nullsFirst {
			return 1
		}
		return -1
	}
	return types.Compare(t, a, b)
}

func grow[T any](s []T, n int) []T {
	for len(s) < n {
		var zero T
		s = append(s, zero)
	}
	return s
}

func groupOf(groups []int32, i int) int32 {
	if groups == nil {
		return 0
	}
	return groups[i]
}

// countState is count(*) and count(x).
type countState struct {
	star   bool
	counts []int64
}

func (s *countState) update(groups []int32, nrows, ngroups int, args []arrow.Array) error {
	s.counts = grow(s.counts, ngroups)
	if s.star || args[0].NullN() == 0 {
		if groups == nil {
			s.counts[0] += int64(nrows)
			return nil
		}
		for _, g := range groups {
			s.counts[g]++
		}
		return nil
	}
	valid := validity(args[0])
	for i := 0; i < nrows; i++ {
		if isValid(valid, i) {
			s.counts[groupOf(groups, i)]++
		}
	}
	return nil
}

func (s *countState) memBytes() int64   { return int64(cap(s.counts)) * 8 }
func (s *countState) groupBytes() int64 { return 8 }

func (s *countState) result(ngroups int) (arrow.Array, error) {
	s.counts = grow(s.counts, ngroups)
	return newFixedArray(arrow.PrimitiveTypes.Int64, s.counts[:ngroups], nil, 0), nil
}

// intSumState is sum and avg over integers, accumulated exactly in 128
// bits: sum(int2/int4) gives bigint, sum(int8) and avg give numeric.
type intSumState struct {
	avg    bool
	out    types.T
	hi     []int64
	lo     []uint64
	counts []int64
}

func (s *intSumState) update(groups []int32, nrows, ngroups int, args []arrow.Array) error {
	s.hi, s.lo, s.counts = grow(s.hi, ngroups), grow(s.lo, ngroups), grow(s.counts, ngroups)
	switch a := args[0].(type) {
	case *array.Int32:
		sumNarrow(s, groups, valuesOf[int32](a), validity(a))
	case *array.Int16:
		sumNarrow(s, groups, valuesOf[int16](a), validity(a))
	default:
		sumWide(s, groups, valuesOf[int64](a), validity(a))
	}
	return nil
}

// sumNarrow adds smallint/integer values: a per-batch int64 partial sum
// cannot overflow (a batch has far fewer than 2^32 rows), so the 128-bit
// accumulator is touched once per batch for a plain aggregate.
func sumNarrow[T int16 | int32](s *intSumState, groups []int32, vals []T, valid []byte) {
	if groups == nil {
		var sum, n int64
		if valid == nil {
			sum = sumValues(vals)
			n = int64(len(vals))
		} else {
			for i, v := range vals {
				if isValid(valid, i) {
					sum += int64(v)
					n++
				}
			}
		}
		s.add128(0, sum)
		s.counts[0] += n
		return
	}
	for i, v := range vals {
		if valid != nil && !isValid(valid, i) {
			continue
		}
		g := groups[i]
		s.add128(g, int64(v))
		s.counts[g]++
	}
}

// sumValues adds narrow integers with four independent accumulators, so
// that the additions of one iteration do not wait on each other (an int64
// cannot overflow: 2^31 values of at most 2^31 each).
func sumValues[T int16 | int32](vals []T) int64 {
	var s0, s1, s2, s3 int64
	i := 0
	for ; i+4 <= len(vals); i += 4 {
		v := vals[i : i+4 : i+4]
		s0 += int64(v[0])
		s1 += int64(v[1])
		s2 += int64(v[2])
		s3 += int64(v[3])
	}
	for ; i < len(vals); i++ {
		s0 += int64(vals[i])
	}
	return s0 + s1 + s2 + s3
}

// sumWide adds bigint values exactly in 128 bits.
func sumWide(s *intSumState, groups []int32, vals []int64, valid []byte) {
	if groups == nil && valid == nil {
		hi, lo := s.hi[0], s.lo[0]
		for _, v := range vals {
			var c uint64
			lo, c = bits.Add64(lo, uint64(v), 0)
			hi += (v >> 63) + int64(c)
		}
		s.hi[0], s.lo[0] = hi, lo
		s.counts[0] += int64(len(vals))
		return
	}
	for i, v := range vals {
		if valid != nil && !isValid(valid, i) {
			continue
		}
		g := groupOf(groups, i)
		s.add128(g, v)
		s.counts[g]++
	}
}

func (s *intSumState) memBytes() int64 {
	return int64(cap(s.hi)+cap(s.lo)+cap(s.counts)) * 8
}
func (s *intSumState) groupBytes() int64 { return 24 }

func (s *intSumState) add128(g int32, v int64) {
	var c uint64
	s.lo[g], c = bits.Add64(s.lo[g], uint64(v), 0)
	s.hi[g] += (v >> 63) + int64(c)
}

func int128Decimal(hi int64, lo uint64) *apd.Decimal {
	b := new(big.Int).SetInt64(hi)
	b.Lsh(b, 64)
	b.Add(b, new(big.Int).SetUint64(lo))
	var d apd.Decimal
	d.Coeff.SetMathBigInt(b)
	if d.Coeff.Sign() < 0 {
		d.Coeff.Neg(&d.Coeff)
		d.Negative = true
	}
	return &d
}

func (s *intSumState) result(ngroups int) (arrow.Array, error) {
	s.hi, s.lo, s.counts = grow(s.hi, ngroups), grow(s.lo, ngroups), grow(s.counts, ngroups)
	out := make([]any, ngroups)
	for g := 0; g < ngroups; g++ {
		if s.counts[g] == 0 {
			continue
		}
		fits := (s.hi[g] == 0 && s.lo[g] <= math.MaxInt64) || (s.hi[g] == -1 && s.lo[g] > math.MaxInt64)
		switch {
		case s.avg:
			avg, err := types.NumericAvg(int128Decimal(s.hi[g], s.lo[g]), s.counts[g])
			if err != nil {
				return nil, err
			}
			out[g] = avg
		case s.out.ID == types.Int8:
			if !fits {
				return nil, pgerr.New(pgerr.NumericValueOutOfRange, "bigint out of range")
			}
			out[g] = int64(s.lo[g])
		default:
			out[g] = int128Decimal(s.hi[g], s.lo[g])
		}
	}
	return arrayOfDatums(s.out, out), nil
}

// floatSumState is sum and avg over real / double precision. sum adds
// with the type's own + (float4pl / float8pl: a real sum is kept in single
// precision, and finite inputs that overflow are 22003 "value out of
// range: overflow"); avg follows float8_accum / float4_accum, which keep
// N, Sx and Sxx in double precision and raise the same error when finite
// inputs make Sx or Sxx infinite.
type floatSumState struct {
	avg    bool
	out    types.T
	sums   []float64
	sxx    []float64 // avg only: Youngs-Cramer sum of squared deviations
	counts []int64
}

func (s *floatSumState) update(groups []int32, nrows, ngroups int, args []arrow.Array) error {
	s.sums, s.counts = grow(s.sums, ngroups), grow(s.counts, ngroups)
	if s.avg {
		s.sxx = grow(s.sxx, ngroups)
	}
	var vals []float64
	sumT := types.Float8T
	if f32, ok := args[0].(*array.Float32); ok {
		vals = convertFloat32(f32.Float32Values())
		sumT = types.Float4T
	} else {
		vals = valuesOf[float64](args[0])
	}
	valid := validity(args[0])
	for i, v := range vals {
		if !isValid(valid, i) {
			continue
		}
		g := groupOf(groups, i)
		if s.avg {
			if err := floatAccum(&s.sums[g], &s.sxx[g], s.counts[g], v); err != nil {
				return err
			}
		} else {
			sum, err := types.FloatAdd(sumT, s.sums[g], v)
			if err != nil {
				return err
			}
			s.sums[g] = sum
		}
		s.counts[g]++
	}
	return nil
}

func (s *floatSumState) memBytes() int64 {
	return int64(cap(s.sums)+cap(s.sxx)+cap(s.counts)) * 8
}

func (s *floatSumState) groupBytes() int64 {
	if s.avg {
		return 24
	}
	return 16
}

// floatAccum is float8_accum's Youngs-Cramer step: it adds newval to the
// sum sx and the squared deviations sxx of n earlier values.
func floatAccum(sx, sxx *float64, n int64, newval float64) error {
	oldSx := *sx
	*sx += newval
	if n > 0 {
		nn := float64(n) + 1
		tmp := newval*nn - *sx
		*sxx += tmp * tmp / (nn * float64(n))
		if math.IsInf(*sx, 0) || math.IsInf(*sxx, 0) {
			if !math.IsInf(oldSx, 0) && !math.IsInf(newval, 0) {
				return types.ErrFloatOverflow()
			}
			*sxx = math.NaN()
		}
	} else if math.IsNaN(newval) || math.IsInf(newval, 0) {
		*sxx = math.NaN()
	}
	return nil
}

func convertFloat32(in []float32) []float64 {
	out := make([]float64, len(in))
	for i, v := range in {
		out[i] = float64(v)
	}
	return out
}

func (s *floatSumState) result(ngroups int) (arrow.Array, error) {
	s.sums, s.counts = grow(s.sums, ngroups), grow(s.counts, ngroups)
	out := make([]any, ngroups)
	for g := 0; g < ngroups; g++ {
		if s.counts[g] == 0 {
			continue
		}
		v := s.sums[g]
		if s.avg {
			v /= float64(s.counts[g])
		}
		if s.out.ID == types.Float4 {
			v = float64(float32(v))
		}
		out[g] = v
	}
	return arrayOfDatums(s.out, out), nil
}

// numericSumState is sum and avg over numeric. Values of at most 18
// digits (most stored numerics: prices, quantities) are added as scaled
// int64s, a group's scale being the largest of its values' (the display
// scale PostgreSQL's sum gives); what does not fit, and a group's fixed
// sum once it would overflow, goes to the decimal sum. The result adds
// the two. sums is as long as the last group with a decimal sum needs
// (usually empty): a group's state is then 20 bytes in three flat
// vectors, with no pointer for the collector to follow.
type numericSumState struct {
	avg      bool
	sums     []*apd.Decimal
	decimals int // non-nil sums
	fixed    []int64
	scales   []int32
	counts   []int64
}

// decimalBytes is a decimal sum's allocation (its digits aside).
const decimalBytes = 64

func (s *numericSumState) memBytes() int64 {
	return int64(cap(s.fixed)+cap(s.counts))*8 + int64(cap(s.scales))*4 +
		int64(cap(s.sums))*8 + int64(s.decimals)*decimalBytes
}

func (s *numericSumState) groupBytes() int64 { return 20 }

// sumOf is group g's decimal sum, nil when it has none.
func (s *numericSumState) sumOf(g int32) *apd.Decimal {
	if int(g) >= len(s.sums) {
		return nil
	}
	return s.sums[g]
}

func (s *numericSumState) update(groups []int32, nrows, ngroups int, args []arrow.Array) error {
	if scaledVectors {
		v, err := parseScaledArray(args[0])
		if err != nil {
			return err
		}
		return s.updateScaled(groups, ngroups, v)
	}
	return s.updateRows(groups, nrows, ngroups, args)
}

// updateRows parses and adds row by row (scaledVectors off).
func (s *numericSumState) updateRows(groups []int32, nrows, ngroups int, args []arrow.Array) error {
	s.counts = grow(s.counts, ngroups)
	s.fixed, s.scales = grow(s.fixed, ngroups), grow(s.scales, ngroups)
	strs, isStr := args[0].(*array.String)
	for i := 0; i < nrows; i++ {
		if args[0].IsNull(i) {
			continue
		}
		g := groupOf(groups, i)
		s.counts[g]++
		if isStr {
			if v, scale, ok := types.ParseScaledNumeric(strs.Value(i)); ok && s.addFixed(g, v, scale) {
				continue
			}
		}
		if err := s.addDecimal(g, types.DatumAt(args[0], types.NumericT, i).(*apd.Decimal)); err != nil {
			return err
		}
	}
	return nil
}

// addFixed adds v at scale to group g's int64 sum, rescaling it to the
// larger scale; false when that would overflow.
func (s *numericSumState) addFixed(g int32, v int64, scale int32) bool {
	sum, have := s.fixed[g], s.scales[g]
	for ; have < scale; have++ {
		if sum > math.MaxInt64/10 || sum < math.MinInt64/10 {
			return false
		}
		sum *= 10
	}
	for ; scale < have; scale++ {
		if v > math.MaxInt64/10 || v < math.MinInt64/10 {
			return false
		}
		v *= 10
	}
	total := sum + v
	if (v > 0 && total < sum) || (v < 0 && total > sum) {
		return false
	}
	s.fixed[g], s.scales[g] = total, have
	return true
}

func (s *numericSumState) addDecimal(g int32, d *apd.Decimal) error {
	if s.sumOf(g) == nil {
		s.sums = grow(s.sums, int(g)+1)
		s.sums[g] = d
		s.decimals++
		return nil
	}
	sum, err := types.NumericAdd(s.sums[g], d)
	s.sums[g] = sum
	return err
}

// total is group g's sum.
func (s *numericSumState) total(g int) (*apd.Decimal, error) {
	fixed, err := types.NumericFromScaled(s.fixed[g], s.scales[g])
	sum := s.sumOf(int32(g))
	if err != nil || sum == nil {
		return fixed, err
	}
	if s.fixed[g] == 0 && s.scales[g] == 0 {
		return sum, nil
	}
	return types.NumericAdd(sum, fixed)
}

func (s *numericSumState) result(ngroups int) (arrow.Array, error) {
	s.counts = grow(s.counts, ngroups)
	s.fixed, s.scales = grow(s.fixed, ngroups), grow(s.scales, ngroups)
	if !s.avg {
		return s.sumArray(ngroups)
	}
	out := make([]any, ngroups)
	for g := 0; g < ngroups; g++ {
		if s.counts[g] == 0 {
			continue
		}
		sum, err := s.total(g)
		if err != nil {
			return nil, err
		}
		if s.avg {
			avg, err := types.NumericAvg(sum, s.counts[g])
			if err != nil {
				return nil, err
			}
			out[g] = avg
		} else {
			out[g] = sum
		}
	}
	return arrayOfDatums(types.NumericT, out), nil
}

// sumArray is the groups' sums as numeric text: a sum held in int64 is
// printed straight from its digits, with no decimal built per group.
func (s *numericSumState) sumArray(ngroups int) (arrow.Array, error) {
	offs := make([]int32, ngroups+1)
	data := make([]byte, 0, 8*ngroups)
	var valid []byte
	nulls := 0
	// vec is the sums as the scaled vector their text would parse to, for
	// the readers of the result (a HAVING on it) to use instead.
	// (Copies: a window aggregate goes on adding to the state.)
	var vec *scaledVec
	if ngroups >= numericCacheMinRows {
		vec = &scaledVec{n: ngroups, vals: slices.Clone(s.fixed[:ngroups]), scales: slices.Clone(s.scales[:ngroups])}
	}
	for g := 0; g < ngroups; g++ {
		switch {
		case s.counts[g] == 0:
			if valid == nil {
				valid = make([]byte, bitutil.BytesForBits(int64(ngroups)))
				bitutil.SetBitsTo(valid, 0, int64(ngroups), true)
			}
			bitutil.ClearBit(valid, g)
			nulls++
		case s.sumOf(int32(g)) == nil && s.fixed[g] != math.MinInt64:
			data = appendScaled(data, s.fixed[g], s.scales[g]) // numeric_fast.go
		default:
			sum, err := s.total(g)
			if err != nil {
				return nil, err
			}
			data = types.AppendFormat(data, types.NumericT, sum)
			if vec != nil {
				vec.setExact(g, sum)
			}
		}
		if len(data) > math.MaxInt32 {
			return nil, pgerr.New(pgerr.ProgramLimitExceeded, "sums exceed 2GB")
		}
		offs[g+1] = int32(len(data))
	}
	arr := newStringArray(offs, data, valid, nulls)
	if vec != nil {
		vec.valid = valid
		noteProduced(arr.(*array.String), vec)
	}
	return arr, nil
}

// intervalSumState is sum and avg of interval: interval_pl's sum (22008
// on overflow), and for avg that sum divided by the count as
// interval_div does.
type intervalSumState struct {
	avg    bool
	sums   []types.Interval
	counts []int64
}

func (s *intervalSumState) update(groups []int32, nrows, ngroups int, args []arrow.Array) error {
	s.sums, s.counts = grow(s.sums, ngroups), grow(s.counts, ngroups)
	for i := 0; i < nrows; i++ {
		d := types.DatumAt(args[0], types.IntervalT, i)
		if d == nil {
			continue
		}
		g := groupOf(groups, i)
		r, err := types.IntervalAdd(s.sums[g], d.(types.Interval))
		if err != nil {
			return err
		}
		s.sums[g] = r
		s.counts[g]++
	}
	return nil
}

func (s *intervalSumState) result(ngroups int) (arrow.Array, error) {
	s.sums, s.counts = grow(s.sums, ngroups), grow(s.counts, ngroups)
	out := make([]any, ngroups)
	for g := 0; g < ngroups; g++ {
		if s.counts[g] == 0 {
			continue
		}
		if !s.avg {
			out[g] = s.sums[g]
			continue
		}
		avg, err := types.IntervalDiv(s.sums[g], float64(s.counts[g]))
		if err != nil {
			return nil, err
		}
		out[g] = avg
	}
	return arrayOfDatums(types.IntervalT, out), nil
}

// minMaxState is min and max over any ordered type.
type minMaxState struct {
	t    types.T
	max  bool
	best []any
}

func (s *minMaxState) update(groups []int32, nrows, ngroups int, args []arrow.Array) error {
	s.best = grow(s.best, ngroups)
	if vals, ok := intKeyValues(args[0]); ok && groups == nil {
		valid := validity(args[0])
		have := s.best[0] != nil
		var cur int64
		if have {
			cur = toInt64Key(s.best[0])
		}
		for i, v := range vals {
			if !isValid(valid, i) {
				continue
			}
			if !have || (s.max && v > cur) || (!s.max && v < cur) {
				cur, have = v, true
			}
		}
		if have {
			s.best[0] = fromInt64Key(s.t, cur)
		}
		return nil
	}
	for i := 0; i < nrows; i++ {
		d := types.DatumAt(args[0], s.t, i)
		if d == nil {
			continue
		}
		g := groupOf(groups, i)
		if s.best[g] == nil {
			s.best[g] = d
			continue
		}
		c := types.Compare(s.t, d, s.best[g])
		// On a tie the later value wins, as numeric_larger,
		// interval_larger and float8_larger return their second argument
		// unless the first is strictly greater (1.0 and 1.00 give 1.00);
		// bpchar_larger keeps the first.
		if (s.max && c > 0) || (!s.max && c < 0) || (c == 0 && s.t.ID != types.Bpchar) {
			s.best[g] = d
		}
	}
	return nil
}

func toInt64Key(d any) int64 {
	if v, ok := d.(int32); ok {
		return int64(v)
	}
	return d.(int64)
}

func fromInt64Key(t types.T, v int64) any {
	if t.ID == types.Date {
		return int32(v)
	}
	return v
}

func (s *minMaxState) result(ngroups int) (arrow.Array, error) {
	s.best = grow(s.best, ngroups)
	return arrayOfDatums(s.t, s.best[:ngroups]), nil
}

// boolAggState is bool_and / bool_or.
type boolAggState struct {
	and  bool
	vals []any
}

func (s *boolAggState) update(groups []int32, nrows, ngroups int, args []arrow.Array) error {
	s.vals = grow(s.vals, ngroups)
	arr := args[0].(*array.Boolean)
	for i := 0; i < nrows; i++ {
		if arr.IsNull(i) {
			continue
		}
		g := groupOf(groups, i)
		v := arr.Value(i)
		if s.vals[g] == nil {
			s.vals[g] = v
		} else if s.and {
			s.vals[g] = s.vals[g].(bool) && v
		} else {
			s.vals[g] = s.vals[g].(bool) || v
		}
	}
	return nil
}

func (s *boolAggState) result(ngroups int) (arrow.Array, error) {
	s.vals = grow(s.vals, ngroups)
	return arrayOfDatums(types.BoolT, s.vals[:ngroups]), nil
}

// stringAggState is string_agg(value, delimiter): each non-NULL value
// after the first is preceded by its own row's delimiter. As in
// PostgreSQL's string_agg_transfn, a result that would pass the value size
// limit is 54000 "out of memory" with the buffer's sizes in the DETAIL,
// checked before the text is appended.
type stringAggState struct {
	bufs []*strings.Builder
}

func (s *stringAggState) update(groups []int32, nrows, ngroups int, args []arrow.Array) error {
	s.bufs = grow(s.bufs, ngroups)
	vals, delims := args[0].(*array.String), args[1].(*array.String)
	for i := 0; i < nrows; i++ {
		if vals.IsNull(i) {
			continue
		}
		g := groupOf(groups, i)
		b := s.bufs[g]
		if b == nil {
			b = &strings.Builder{}
			s.bufs[g] = b
		} else if delims.IsValid(i) {
			delim := delims.Value(i)
			if err := types.CheckConcatSize(b.Len(), len(delim)); err != nil {
				return err
			}
			b.WriteString(delim)
		}
		value := vals.Value(i)
		if err := types.CheckConcatSize(b.Len(), len(value)); err != nil {
			return err
		}
		b.WriteString(value)
	}
	return nil
}

func (s *stringAggState) result(ngroups int) (arrow.Array, error) {
	s.bufs = grow(s.bufs, ngroups)
	out := make([]any, ngroups)
	for g, b := range s.bufs[:ngroups] {
		if b != nil {
			if err := types.CheckTextSize(b.Len()); err != nil {
				return nil, err
			}
			out[g] = b.String()
		}
	}
	return arrayOfDatums(types.TextT, out), nil
}

// distinctState feeds its inner aggregate only the first occurrence of
// each (group, arguments) combination. Rows whose first argument is NULL
// are dropped: every aggregate here ignores them.
type distinctState struct {
	inner aggState
	types []types.T
	seen  map[string]struct{}
	buf   []byte
}

func (s *distinctState) update(groups []int32, nrows, ngroups int, args []arrow.Array) error {
	if s.seen == nil {
		s.seen = map[string]struct{}{}
	}
	var sel, selGroups []int32
	for i := 0; i < nrows; i++ {
		if args[0].IsNull(i) {
			continue
		}
		g := groupOf(groups, i)
		buf := append(s.buf[:0], byte(g), byte(g>>8), byte(g>>16), byte(g>>24))
		for c, a := range args {
			buf = datumKey(buf, s.types[c], types.DatumAt(a, s.types[c], i))
		}
		s.buf = buf
		if _, dup := s.seen[string(buf)]; dup {
			continue
		}
		s.seen[string(buf)] = struct{}{}
		sel = append(sel, int32(i))
		selGroups = append(selGroups, g)
	}
	sub := make([]arrow.Array, len(args))
	for i, a := range args {
		sub[i] = takeArray(a, sel)
	}
	defer releaseAll(sub)
	if groups == nil {
		selGroups = nil
	}
	return s.inner.update(selGroups, len(sel), ngroups, sub)
}

func (s *distinctState) result(ngroups int) (arrow.Array, error) { return s.inner.result(ngroups) }
