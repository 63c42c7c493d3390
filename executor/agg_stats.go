package executor

// Aggregates of analytic queries: FILTER (WHERE ...) as a wrapper of any
// aggregate state, the variance family (stddev, stddev_samp, stddev_pop,
// variance, var_samp, var_pop) and the ordered-set aggregates
// percentile_cont, percentile_disc and mode.
//
// The variance family follows PostgreSQL 15: over integers and numeric
// it keeps N, sum(x) and sum(x*x) exactly (numeric_accum, int*_accum) and
// finishes as numeric_stddev_internal does, (N*sum(x*x) - sum(x)^2) /
// (N*(N-1)) at select_div_scale's scale and, for stddev, the square root
// at that same scale; over real and double precision it keeps
// float8_accum's Youngs-Cramer N, Sx and Sxx. These aggregates are not
// split into partial states (planner/partitionwise.go keeps them above a
// Gather or an Append), so they always see every row in one state.

import (
	"fmt"
	"math"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// filterState is an aggregate with FILTER (WHERE ...): its last argument
// is the filter's value per row (agg.go appends it), and only the rows
// where it is true reach the inner aggregate, as ExecAgg skips rows whose
// aggfilter is false or NULL.
type filterState struct {
	inner aggState
}

func (s *filterState) update(groups []int32, nrows, ngroups int, args []arrow.Array) error {
	mask := args[len(args)-1].(*array.Boolean)
	args = args[:len(args)-1]
	var sel []int32
	all := true
	for i := 0; i < nrows; i++ {
		if mask.IsValid(i) && mask.Value(i) {
			sel = append(sel, int32(i))
		} else {
			all = false
		}
	}
	if all {
		return s.inner.update(groups, nrows, ngroups, args)
	}
	sub := make([]arrow.Array, len(args))
	for i, a := range args {
		sub[i] = takeArray(a, sel)
	}
	defer releaseAll(sub)
	var subGroups []int32
	if groups != nil {
		subGroups = make([]int32, len(sel))
		for i, r := range sel {
			subGroups[i] = groups[r]
		}
	}
	return s.inner.update(subGroups, len(sel), ngroups, sub)
}

func (s *filterState) result(ngroups int) (arrow.Array, error) { return s.inner.result(ngroups) }

// varianceKind says which of the six aggregates a state finishes as.
type varianceKind struct {
	sample bool // samp (and the unqualified stddev and variance): N-1
	sqrt   bool // stddev*
}

func varianceKindOf(name string) varianceKind {
	switch name {
	case "stddev", "stddev_samp":
		return varianceKind{sample: true, sqrt: true}
	case "stddev_pop":
		return varianceKind{sqrt: true}
	case "variance", "var_samp":
		return varianceKind{sample: true}
	}
	return varianceKind{} // var_pop
}

func newVarianceState(name string, argT types.T) aggState {
	k := varianceKindOf(name)
	if argT.IsFloat() {
		return &floatVarState{kind: k}
	}
	return &numericVarState{kind: k, integer: argT.IsInteger(), t: argT}
}

// floatVarState is float8_accum / float4_accum with float8_var_samp and
// its siblings as final functions.
type floatVarState struct {
	kind        varianceKind
	n           []int64
	sx, sxx     []float64
	initialized bool
}

func (s *floatVarState) update(groups []int32, nrows, ngroups int, args []arrow.Array) error {
	s.n, s.sx, s.sxx = grow(s.n, ngroups), grow(s.sx, ngroups), grow(s.sxx, ngroups)
	var vals []float64
	if f32, ok := args[0].(*array.Float32); ok {
		vals = convertFloat32(f32.Float32Values())
	} else {
		vals = valuesOf[float64](args[0])
	}
	valid := validity(args[0])
	for i, v := range vals {
		if !isValid(valid, i) {
			continue
		}
		g := groupOf(groups, i)
		if err := floatAccum(&s.sx[g], &s.sxx[g], s.n[g], v); err != nil {
			return err
		}
		s.n[g]++
	}
	return nil
}

func (s *floatVarState) result(ngroups int) (arrow.Array, error) {
	s.n, s.sx, s.sxx = grow(s.n, ngroups), grow(s.sx, ngroups), grow(s.sxx, ngroups)
	out := make([]any, ngroups)
	for g := 0; g < ngroups; g++ {
		n := float64(s.n[g])
		den := n
		if s.kind.sample {
			den = n - 1
		}
		if den <= 0 {
			continue // NULL: N <= 1 (sample) or N = 0 (population)
		}
		v := s.sxx[g] / den
		if s.kind.sqrt {
			v = math.Sqrt(v)
		}
		out[g] = v
	}
	return arrayOfDatums(types.Float8T, out), nil
}

// numericVarState is numeric_accum (and int2/int4/int8_accum, which are
// exact too) with numeric_stddev_internal as the final function.
type numericVarState struct {
	kind    varianceKind
	integer bool
	t       types.T
	n       []int64
	special []int64 // NaN and infinite inputs (NaNcount, pInfcount, nInfcount)
	sumX    []*apd.Decimal
	sumX2   []*apd.Decimal
}

func (s *numericVarState) update(groups []int32, nrows, ngroups int, args []arrow.Array) error {
	s.n, s.special = grow(s.n, ngroups), grow(s.special, ngroups)
	s.sumX, s.sumX2 = grow(s.sumX, ngroups), grow(s.sumX2, ngroups)
	for i := 0; i < nrows; i++ {
		d := types.DatumAt(args[0], s.t, i)
		if d == nil {
			continue
		}
		g := groupOf(groups, i)
		var x *apd.Decimal
		switch v := d.(type) {
		case int16:
			x = types.NumericFromInt64(int64(v))
		case int32:
			x = types.NumericFromInt64(int64(v))
		case int64:
			x = types.NumericFromInt64(v)
		case *apd.Decimal:
			x = v
		default:
			return pgerr.Internal("executor: variance of %T", d)
		}
		if x.Form != apd.Finite {
			s.special[g]++
			continue
		}
		x2, err := types.NumericMul(x, x)
		if err != nil {
			return err
		}
		if s.sumX[g] == nil {
			s.sumX[g], s.sumX2[g] = x, x2
		} else {
			if s.sumX[g], err = types.NumericAdd(s.sumX[g], x); err != nil {
				return err
			}
			if s.sumX2[g], err = types.NumericAdd(s.sumX2[g], x2); err != nil {
				return err
			}
		}
		s.n[g]++
	}
	return nil
}

func (s *numericVarState) result(ngroups int) (arrow.Array, error) {
	s.n, s.special = grow(s.n, ngroups), grow(s.special, ngroups)
	s.sumX, s.sumX2 = grow(s.sumX, ngroups), grow(s.sumX2, ngroups)
	out := make([]any, ngroups)
	for g := 0; g < ngroups; g++ {
		v, err := s.final(g)
		if err != nil {
			return nil, err
		}
		if v != nil {
			out[g] = v
		}
	}
	return arrayOfDatums(types.NumericT, out), nil
}

// final is numeric_stddev_internal for group g (nil: SQL NULL).
func (s *numericVarState) final(g int) (*apd.Decimal, error) {
	// NULL for no input, and for one input row with the sample forms
	// (NaN and infinite inputs count as rows); otherwise any NaN or
	// infinite input makes the result NaN.
	n := s.n[g]
	total := n + s.special[g]
	if total == 0 || (s.kind.sample && total <= 1) {
		return nil, nil
	}
	if s.special[g] > 0 {
		return &apd.Decimal{Form: apd.NaN}, nil
	}
	vN := types.NumericFromInt64(n)
	sq, err := types.NumericMul(s.sumX[g], s.sumX[g])
	if err != nil {
		return nil, err
	}
	nx2, err := types.NumericMul(vN, s.sumX2[g])
	if err != nil {
		return nil, err
	}
	num, err := types.NumericSub(nx2, sq)
	if err != nil {
		return nil, err
	}
	if num.Sign() <= 0 {
		// roundoff cannot happen in exact arithmetic, but PostgreSQL
		// returns a plain zero for a zero numerator
		return types.NumericFromInt64(0), nil
	}
	var den *apd.Decimal
	if s.kind.sample {
		den, err = types.NumericMul(vN, types.NumericFromInt64(n-1))
	} else {
		den, err = types.NumericMul(vN, vN)
	}
	if err != nil {
		return nil, err
	}
	q, err := types.NumericDiv(num, den)
	if err != nil {
		return nil, err
	}
	if !s.kind.sqrt {
		return q, nil
	}
	return sqrtAtScale(q), nil
}

// sqrtAtScale is sqrt_var(x, x, rscale) with rscale x's own scale: the
// square root correctly rounded (half away from zero) to that scale.
func sqrtAtScale(x *apd.Decimal) *apd.Decimal {
	scale := int64(0)
	coeff := new(apd.BigInt).Set(&x.Coeff)
	if x.Exponent < 0 {
		scale = int64(-x.Exponent)
	} else if x.Exponent > 0 {
		coeff.Mul(coeff, new(apd.BigInt).Exp(apd.NewBigInt(10), apd.NewBigInt(int64(x.Exponent)), nil))
	}
	// The root of coeff*10^(scale+2) read at scale+1 is sqrt(x) to one more
	// digit (truncated); rounding that digit gives the correctly rounded
	// root, as the truncated rest only ever lowers it.
	rad := new(apd.BigInt).Mul(coeff, new(apd.BigInt).Exp(apd.NewBigInt(10), apd.NewBigInt(scale+2), nil))
	root := new(apd.BigInt).Sqrt(rad)
	ten := apd.NewBigInt(10)
	q, r := new(apd.BigInt), new(apd.BigInt)
	q.QuoRem(root, ten, r)
	if r.Cmp(apd.NewBigInt(5)) >= 0 {
		q.Add(q, apd.NewBigInt(1))
	}
	out := &apd.Decimal{Exponent: int32(-scale)}
	out.Coeff.Set(q)
	return out
}

// orderedSetState is percentile_cont, percentile_disc and mode: it keeps
// each group's non-NULL aggregated values (NULLs are ignored, as
// ordered_set_transition does), sorts them by the WITHIN GROUP key at the
// end and picks the result. Its arguments are the direct argument (a
// constant, evaluated once; PostgreSQL evaluates it per group) if the
// aggregate has one, then the aggregated value.
type orderedSetState struct {
	name    string
	direct  nodes.Expr // the fraction; nil for mode
	key     nodes.SortKey
	t, out  types.T
	vals    [][]any
	frac    any
	fracSet bool
}

func newOrderedSetState(call *nodes.AggCall) *orderedSetState {
	s := &orderedSetState{name: call.Name, key: call.OrderBy[0], t: call.OrderBy[0].Expr.Type(), out: call.T}
	if len(call.Args) > 0 {
		s.direct = call.Args[0]
	}
	return s
}

func (s *orderedSetState) update(groups []int32, nrows, ngroups int, args []arrow.Array) error {
	s.vals = grow(s.vals, ngroups)
	col := args[len(args)-1]
	for i := 0; i < nrows; i++ {
		d := types.DatumAt(col, s.t, i)
		if d == nil {
			continue
		}
		g := groupOf(groups, i)
		s.vals[g] = append(s.vals[g], d)
	}
	return nil
}

// fraction evaluates the direct argument and checks it as
// percentile_*_final does: NULL gives a NULL result, a value outside
// [0, 1] is 22003.
func (s *orderedSetState) fraction() (float64, bool, error) {
	if !s.fracSet {
		v, err := EvalConst(s.direct, &ExecContext{BatchSize: 1})
		if err != nil {
			return 0, false, err
		}
		s.frac, s.fracSet = v, true
	}
	if s.frac == nil {
		return 0, false, nil
	}
	p := s.frac.(float64)
	if p < 0 || p > 1 || math.IsNaN(p) {
		return 0, false, pgerr.New(pgerr.NumericValueOutOfRange, "percentile value %s is not between 0 and 1", formatG(p))
	}
	return p, true, nil
}

// formatG prints v as PostgreSQL's snprintf %g does (NaN and Infinity
// spelled out).
func formatG(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	return fmt.Sprintf("%g", v)
}

func (s *orderedSetState) result(ngroups int) (arrow.Array, error) {
	s.vals = grow(s.vals, ngroups)
	out := make([]any, ngroups)
	for g := 0; g < ngroups; g++ {
		var p float64
		if s.direct != nil {
			var ok bool
			var err error
			if p, ok, err = s.fraction(); err != nil {
				return nil, err
			} else if !ok {
				continue
			}
		}
		vals := s.vals[g]
		if len(vals) == 0 {
			continue
		}
		sort.SliceStable(vals, func(i, j int) bool {
			c := types.Compare(s.t, vals[i], vals[j])
			if s.key.Desc {
				c = -c
			}
			return c < 0
		})
		v, err := s.pick(vals, p)
		if err != nil {
			return nil, err
		}
		out[g] = v
	}
	return arrayOfDatums(s.out, out), nil
}

func (s *orderedSetState) pick(vals []any, p float64) (any, error) {
	n := int64(len(vals))
	switch s.name {
	case "percentile_disc":
		row := int64(math.Ceil(p * float64(n)))
		return vals[max(row, 1)-1], nil
	case "percentile_cont":
		pos := p * float64(n-1)
		first, second := int64(math.Floor(pos)), int64(math.Ceil(pos))
		if first == second {
			return vals[first], nil
		}
		pct := pos - float64(first)
		if lo, ok := vals[first].(float64); ok {
			hi := vals[second].(float64)
			return lo + pct*(hi-lo), nil // float8_lerp
		}
		// interval_lerp: lo + (hi - lo) * pct
		lo, hi := vals[first].(types.Interval), vals[second].(types.Interval)
		diff, err := types.IntervalSub(hi, lo)
		if err != nil {
			return nil, err
		}
		if diff, err = types.IntervalMul(diff, pct); err != nil {
			return nil, err
		}
		return types.IntervalAdd(diff, lo)
	}
	// mode: the first value (in sort order) of the longest run of equal
	// values, as mode_final counts them.
	var mode any
	modeFreq, runFreq := 0, 0
	var last any
	for _, v := range vals {
		if last != nil && types.Compare(s.t, v, last) == 0 {
			runFreq++
		} else {
			last, runFreq = v, 1
		}
		if runFreq > modeFreq {
			mode, modeFreq = last, runFreq
		}
	}
	return mode, nil
}
