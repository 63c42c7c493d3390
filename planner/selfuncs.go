package planner

// Selectivity from column statistics (storage.ColumnStats: null
// fraction, distinct count, most common values, histogram), after
// PostgreSQL's selfuncs.c and clausesel.c: var_eq_const and
// var_eq_non_const for =, scalarineqsel over the histogram for <, <=, >,
// >=, patternsel for LIKE, scalararraysel for IN lists, boolvarsel,
// nulltestsel, range pairs (a > x AND a < y), and eqjoinsel /
// eqjoinsel_semi for join keys. Without statistics each falls back to
// defaultSelectivity's constants.

import (
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

const (
	defaultEqSel         = 0.005   // DEFAULT_EQ_SEL
	defaultIneqSel       = 1.0 / 3 // DEFAULT_INEQ_SEL
	defaultRangeIneqSel  = 0.005   // DEFAULT_RANGE_INEQ_SEL
	defaultMatchSel      = 0.005   // DEFAULT_MATCH_SEL
	defaultNumDistinct   = 200     // DEFAULT_NUM_DISTINCT
	histogramMatchMinLen = 10      // patternsel's min_hist_size
)

func clampProbability(p float64) float64 { return math.Min(1, math.Max(0, p)) }

// statColumn returns the column an operand reads, seeing through casts
// that keep the value's order (between numeric types, between string
// types, date to timestamp), as PostgreSQL's examine_variable sees
// through binary-coercible ones and its cross-type date and timestamp
// operators compare the column itself.
func statColumn(e nodes.Expr) (*nodes.ColumnRef, bool) {
	for {
		switch x := e.(type) {
		case *nodes.ColumnRef:
			return x, true
		case *nodes.Cast:
			from, to := x.Arg.Type(), x.T
			dateToTS := from.ID == types.Date && (to.ID == types.Timestamp || to.ID == types.TimestampTZ)
			if !(from.IsNumeric() && to.IsNumeric()) && !(from.IsString() && to.IsString()) && !dateToTS {
				return nil, false
			}
			e = x.Arg
		default:
			return nil, false
		}
	}
}

// statConst returns a constant operand as the statistics keep values.
func statConst(e nodes.Expr) (storage.StatValue, bool) {
	if c, ok := e.(*nodes.Cast); ok && c.T.IsNumeric() && c.Arg.Type().IsNumeric() {
		e = c.Arg
	}
	c, ok := e.(*nodes.Const)
	if !ok || c.Value == nil {
		return storage.StatValue{}, false
	}
	switch v := c.Value.(type) {
	case int64:
		return storage.StatValue{Num: float64(v)}, true
	case float64:
		return storage.StatValue{Num: v}, true
	case int32:
		return storage.StatValue{Num: float64(v)}, true
	case bool:
		if v {
			return storage.StatValue{Num: 1}, true
		}
		return storage.StatValue{}, true
	case string:
		if c.T.IsString() {
			return storage.StatValue{Str: v}, true
		}
	case *apd.Decimal:
		f, err := v.Float64()
		return storage.StatValue{Num: f}, err == nil
	}
	return storage.StatValue{}, false
}

// columnAndConst splits a binary operator into its column and constant
// operands; flipped says the column is on the right.
func columnAndConst(x *nodes.OpExpr, cs colStats) (st *storage.ColumnStats, v storage.StatValue, flipped, ok bool) {
	if cs == nil || x.Left == nil || x.Right == nil {
		return nil, v, false, false
	}
	if c, isCol := statColumn(x.Left); isCol {
		if v, ok = statConst(x.Right); ok {
			st = cs(c.Index)
			return st, inColumnUnits(v, c.T, x.Right.Type()), false, st != nil
		}
	}
	if c, isCol := statColumn(x.Right); isCol {
		if v, ok = statConst(x.Left); ok {
			st = cs(c.Index)
			return st, inColumnUnits(v, c.T, x.Left.Type()), true, st != nil
		}
	}
	return nil, v, false, false
}

// usecsPerDay converts between the statistics of dates (days) and of
// timestamps (microseconds).
const usecsPerDay = 86400e6

// inColumnUnits is constant v of type constT in the units a column of
// type colT keeps its statistics in: a timestamp compared with a date
// column (date '1995-01-01' + interval '1 year') in days, a date compared
// with a timestamp column in microseconds, as convert_timevalue_to_scalar
// makes both comparable.
func inColumnUnits(v storage.StatValue, colT, constT types.T) storage.StatValue {
	isTS := func(t types.T) bool { return t.ID == types.Timestamp || t.ID == types.TimestampTZ }
	switch {
	case colT.ID == types.Date && isTS(constT):
		v.Num /= usecsPerDay
	case isTS(colT) && constT.ID == types.Date:
		v.Num *= usecsPerDay
	}
	return v
}

// columnOperand returns the statistics of an operator's column operand
// when the other is not a constant (a parameter, another table's column).
func columnOperand(x *nodes.OpExpr, cs colStats) *storage.ColumnStats {
	if cs == nil {
		return nil
	}
	for _, e := range []nodes.Expr{x.Left, x.Right} {
		if c, ok := statColumn(e); ok {
			return cs(c.Index)
		}
	}
	return nil
}

// eqSel is var_eq_const: a most common value's frequency, else an equal
// share of what the MCVs leave among the other distinct values (never
// more than the least common MCV).
func eqSel(st *storage.ColumnStats, v storage.StatValue) float64 {
	sumMCV := 0.0
	for i, m := range st.MCVs {
		if m == v {
			return st.MCVFreqs[i]
		}
		sumMCV += st.MCVFreqs[i]
	}
	sel := clampProbability(1 - sumMCV - st.NullFrac)
	if other := st.NDistinct - float64(len(st.MCVs)); other > 1 {
		sel /= other
	}
	if n := len(st.MCVFreqs); n > 0 && sel > st.MCVFreqs[n-1] {
		sel = st.MCVFreqs[n-1]
	}
	return sel
}

// eqSelNonConst is var_eq_non_const: one distinct value's share, at
// most the most common value's frequency.
func eqSelNonConst(st *storage.ColumnStats) float64 {
	sel := 1 - st.NullFrac
	if st.NDistinct > 1 {
		sel /= st.NDistinct
	}
	if len(st.MCVFreqs) > 0 && sel > st.MCVFreqs[0] {
		sel = st.MCVFreqs[0]
	}
	return sel
}

// opSelectivity estimates a comparison of a column with a constant (or,
// for = and <>, with anything) from the column's statistics; ok is false
// when they do not apply.
func opSelectivity(x *nodes.OpExpr, cs colStats) (float64, bool) {
	st, v, flipped, ok := columnAndConst(x, cs)
	switch x.Op {
	case "=", "<>":
		var sel float64
		if ok {
			sel = eqSel(st, v)
		} else if st = columnOperand(x, cs); st != nil {
			sel = eqSelNonConst(st)
		} else {
			return 0, false
		}
		if x.Op == "<>" {
			sel = clampProbability(1 - sel - st.NullFrac)
		}
		return sel, true
	case "<", "<=", ">", ">=":
		if !ok {
			return 0, false
		}
		isGT := x.Op == ">" || x.Op == ">="
		isEq := x.Op == "<=" || x.Op == ">="
		if flipped {
			isGT = !isGT
		}
		return ineqSel(st, v, isGT, isEq), true
	case "~~", "~~*", "!~~", "!~~*":
		c, isCol := statColumn(x.Left)
		pattern, isPattern := likePattern(x.Right)
		if !isCol || !isPattern || cs == nil {
			return 0, false
		}
		if st = cs(c.Index); st == nil {
			return 0, false
		}
		sel := patternSel(st, pattern, strings.Contains(x.Op, "*"))
		if strings.HasPrefix(x.Op, "!") {
			sel = clampProbability(1 - sel - st.NullFrac)
		}
		return sel, true
	}
	return 0, false
}

// mcvIneqSel sums the frequencies of the MCVs on the asked side of v
// (mcv_selectivity) and returns them with the MCVs' total frequency.
func mcvIneqSel(st *storage.ColumnStats, v storage.StatValue, isGT, isEq bool) (sel, sumMCV float64) {
	for i, m := range st.MCVs {
		f := st.MCVFreqs[i]
		sumMCV += f
		if m == v {
			if isEq {
				sel += f
			}
		} else if m.Less(v) != isGT {
			sel += f
		}
	}
	return sel, sumMCV
}

// ineqSel is scalarineqsel: the MCVs on the asked side count exactly,
// the rest in proportion to the histogram (half of it without one).
func ineqSel(st *storage.ColumnStats, v storage.StatValue, isGT, isEq bool) float64 {
	mcvSel, sumMCV := mcvIneqSel(st, v, isGT, isEq)
	sel := clampProbability(1 - st.NullFrac - sumMCV)
	if h, ok := histogramIneqSel(st.Histogram, v, isGT, isEq); ok {
		sel *= h
	} else {
		sel *= 0.5
	}
	return clampProbability(sel + mcvSel)
}

// histogramIneqSel is ineq_histogram_selectivity: the fraction of the
// histogram's population on the asked side of v, interpolating within
// v's bucket, and not trusted beyond a hundredth of a bucket at the ends.
func histogramIneqSel(hist []storage.StatValue, v storage.StatValue, isGT, isEq bool) (float64, bool) {
	n := len(hist)
	if n < 2 {
		return 0, false
	}
	// below counts the bounds less than v (or not greater, when v itself
	// is on the side that is asked for below, or not asked for above).
	countEqual := isEq != isGT
	lo, hi := 0, n
	for lo < hi {
		mid := (lo + hi) / 2
		if hist[mid].Less(v) || (countEqual && hist[mid] == v) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	var frac float64
	switch {
	case lo == 0:
		frac = 0
	case lo >= n:
		frac = 1
	default:
		frac = (float64(lo-1) + binFraction(hist[lo-1], hist[lo], v)) / float64(n-1)
	}
	if isGT {
		frac = 1 - frac
	}
	cutoff := 0.01 / float64(n-1)
	return math.Min(1-cutoff, math.Max(cutoff, frac)), true
}

// binFraction is v's position between bucket bounds lo and hi, in [0,1]:
// linear for numbers; for strings, after their common prefix, the next
// bytes read as a base-256 fraction (convert_string_to_scalar's idea).
func binFraction(lo, hi, v storage.StatValue) float64 {
	var l, h, x float64
	if lo.Str == "" && hi.Str == "" && v.Str == "" {
		l, h, x = lo.Num, hi.Num, v.Num
	} else {
		common := 0
		for common < len(lo.Str) && common < len(hi.Str) && lo.Str[common] == hi.Str[common] {
			common++
		}
		l, h, x = stringScalar(lo.Str, common), stringScalar(hi.Str, common), stringScalar(v.Str, common)
	}
	if h <= l {
		return 0.5
	}
	return clampProbability((x - l) / (h - l))
}

func stringScalar(s string, skip int) float64 {
	f, scale := 0.0, 1.0
	for i := skip; i < len(s) && i < skip+8; i++ {
		scale /= 256
		f += float64(s[i]) * scale
	}
	return f
}

// boolColumnSel is boolvarsel: a boolean column used as a condition
// keeps the rows holding true.
func boolColumnSel(e nodes.Expr, cs colStats) (float64, bool) {
	c, ok := e.(*nodes.ColumnRef)
	if !ok || cs == nil || c.T.ID != types.Bool {
		return 0, false
	}
	st := cs(c.Index)
	if st == nil {
		return 0, false
	}
	return eqSel(st, storage.StatValue{Num: 1}), true
}

// inListSel is scalararraysel for x IN (...) and x NOT IN (...): the
// elements' equalities as disjoint events (their sum, when it is a
// probability), the inequalities of NOT IN likewise.
func inListSel(x *nodes.InList, cs colStats) (float64, bool) {
	c, ok := statColumn(x.Arg)
	if !ok || cs == nil {
		return 0, false
	}
	st := cs(c.Index)
	if st == nil {
		return 0, false
	}
	indep, disjoint := 0.0, 0.0
	if x.Not {
		indep, disjoint = 1, 1
	}
	for _, e := range x.List {
		var s float64
		if v, isConst := statConst(e); isConst {
			s = eqSel(st, v)
		} else {
			s = eqSelNonConst(st)
		}
		if x.Not {
			s = clampProbability(1 - s - st.NullFrac)
			indep *= s
			disjoint += s - 1
		} else {
			indep = indep + s - indep*s
			disjoint += s
		}
	}
	if disjoint >= 0 && disjoint <= 1 {
		return disjoint, true
	}
	return indep, true
}

// andSelectivity is clauselist_selectivity: the product of the clauses'
// selectivities, except that a column's lower and upper bounds against
// constants combine as one range (hi + lo - 1), which multiplying would
// overestimate badly (BETWEEN).
func andSelectivity(args []nodes.Expr, cs colStats) float64 {
	type rangeBounds struct {
		lo, hi       float64
		hasLo, hasHi bool
		st           *storage.ColumnStats
	}
	ranges := map[int]*rangeBounds{}
	var order []int
	sel := 1.0
	for _, a := range args {
		op, ok := a.(*nodes.OpExpr)
		if ok && (op.Op == "<" || op.Op == "<=" || op.Op == ">" || op.Op == ">=") {
			col, isCol := statColumn(op.Left)
			_, isConst := statConst(op.Right)
			flipped := false
			if !isCol || !isConst {
				col, isCol = statColumn(op.Right)
				_, isConst = statConst(op.Left)
				flipped = true
			}
			if isCol && isConst {
				s := selectivityWith(a, cs)
				r := ranges[col.Index]
				if r == nil {
					r = &rangeBounds{}
					ranges[col.Index] = r
					order = append(order, col.Index)
					if cs != nil {
						r.st = cs(col.Index)
					}
				}
				// "col > x" bounds from below.
				// "col > x" bounds from below; of two bounds on one side
				// the tighter counts.
				if isGT := (op.Op == ">" || op.Op == ">=") != flipped; isGT {
					if !r.hasLo || s < r.lo {
						r.lo, r.hasLo = s, true
					}
				} else if !r.hasHi || s < r.hi {
					r.hi, r.hasHi = s, true
				}
				continue
			}
		}
		sel *= selectivityWith(a, cs)
	}
	for _, idx := range order {
		r := ranges[idx]
		switch {
		case r.hasLo && r.hasHi:
			sel *= rangeSel(r.lo, r.hi, r.st)
		case r.hasLo:
			sel *= r.lo
		default:
			sel *= r.hi
		}
	}
	return sel
}

// rangeSel combines a column's lower- and upper-bound selectivities.
func rangeSel(lo, hi float64, st *storage.ColumnStats) float64 {
	if st == nil {
		return defaultRangeIneqSel
	}
	s := hi + lo - 1 + st.NullFrac // the NULLs were excluded twice
	if s <= 0 {
		if s < -0.01 {
			return 1e-10
		}
		return defaultRangeIneqSel
	}
	return s
}

// patternSel is patternsel for LIKE (ILIKE when caseInsensitive): an
// exact pattern is an equality; otherwise the MCVs that match count
// exactly, and the rest of the values in proportion to the histogram
// entries that match (when there are enough of them) blended with the
// heuristic: the fixed prefix's range times like_selectivity of the rest.
func patternSel(st *storage.ColumnStats, pattern string, caseInsensitive bool) float64 {
	prefix, rest, exact := likePrefix(pattern, caseInsensitive)
	if exact {
		return eqSel(st, storage.StatValue{Str: prefix})
	}
	prefixSel := 1.0
	if prefix != "" {
		prefixSel = prefixSelectivity(st, prefix)
	}
	heuristic := prefixSel * likeSelectivity(rest)
	sel := heuristic
	if n := len(st.Histogram); n >= histogramMatchMinLen {
		matches := 0
		for _, h := range st.Histogram[1 : n-1] {
			if likeMatch(h.Str, pattern, caseInsensitive) {
				matches++
			}
		}
		histSel := float64(matches) / float64(n-2)
		if n >= 100 {
			sel = histSel
		} else {
			w := float64(n) / 100
			sel = histSel*w + heuristic*(1-w)
		}
	}
	sel = math.Min(0.9999, math.Max(0.0001, sel))
	mcvSel, sumMCV := 0.0, 0.0
	for i, m := range st.MCVs {
		sumMCV += st.MCVFreqs[i]
		if likeMatch(m.Str, pattern, caseInsensitive) {
			mcvSel += st.MCVFreqs[i]
		}
	}
	return clampProbability(sel*(1-st.NullFrac-sumMCV) + mcvSel)
}

// likePattern returns a LIKE operator's constant pattern in backslash
// form, also when written with ESCAPE (like_escape(pattern, escape)).
func likePattern(e nodes.Expr) (string, bool) {
	if f, ok := e.(*nodes.FuncExpr); ok && f.Name == "like_escape" && len(f.Args) == 2 {
		p, ok1 := f.Args[0].(*nodes.Const)
		esc, ok2 := f.Args[1].(*nodes.Const)
		if !ok1 || !ok2 {
			return "", false
		}
		ps, ok1 := p.Value.(string)
		es, ok2 := esc.Value.(string)
		if !ok1 || !ok2 {
			return "", false
		}
		return backslashPattern(ps, es), true
	}
	c, ok := e.(*nodes.Const)
	if !ok || !c.T.IsString() {
		return "", false
	}
	p, ok := c.Value.(string)
	return p, ok
}

// backslashPattern rewrites a pattern whose escape character is esc
// ("" for none) to use backslash, as like_escape does.
func backslashPattern(pattern, esc string) string {
	if esc == "\\" {
		return pattern
	}
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		switch {
		case esc != "" && strings.HasPrefix(pattern[i:], esc) && i+len(esc) < len(pattern):
			i += len(esc)
			b.WriteByte('\\')
			b.WriteByte(pattern[i])
		case pattern[i] == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteByte(pattern[i])
		}
	}
	return b.String()
}

// distinctSel estimates a IS [NOT] DISTINCT FROM b by the equality a = b
// (NULLs aside).
func distinctSel(x *nodes.DistinctExpr, cs colStats) float64 {
	eq := selectivityWith(&nodes.OpExpr{Op: "=", Left: x.Left, Right: x.Right}, cs)
	if x.Not {
		return eq
	}
	return 1 - eq
}

// likePrefix splits a LIKE pattern into its fixed prefix (unescaped) and
// the rest from the first wildcard; exact says there is no wildcard. For
// ILIKE the prefix stops before the first letter, whose case varies.
func likePrefix(pattern string, caseInsensitive bool) (prefix, rest string, exact bool) {
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		ch := pattern[i]
		if ch == '%' || ch == '_' {
			return b.String(), pattern[i:], false
		}
		if ch == '\\' {
			if i+1 >= len(pattern) {
				break
			}
			i++
			ch = pattern[i]
		}
		if caseInsensitive && (ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= 0x80) {
			return b.String(), pattern[i:], false
		}
		b.WriteByte(ch)
	}
	return b.String(), "", true
}

// prefixSelectivity is prefix_selectivity: the histogram's share of
// prefix <= x < the next string after prefix, at least one value's
// share; DEFAULT_MATCH_SEL without a histogram.
func prefixSelectivity(st *storage.ColumnStats, prefix string) float64 {
	lo := storage.StatValue{Str: prefix}
	ge, ok := histogramIneqSel(st.Histogram, lo, true, true)
	if !ok {
		return defaultMatchSel
	}
	sel := ge
	if greater, ok := greaterString(prefix); ok {
		lt, _ := histogramIneqSel(st.Histogram, storage.StatValue{Str: greater}, false, false)
		sel = ge + lt - 1
	}
	return math.Max(sel, eqSel(st, lo))
}

// greaterString is the smallest string greater than every string with
// the prefix, in byte order: the prefix with its last byte below 0xff
// incremented.
func greaterString(prefix string) (string, bool) {
	b := []byte(prefix)
	for len(b) > 0 {
		if last := len(b) - 1; b[last] < 0xff {
			b[last]++
			return string(b), true
		}
		b = b[:len(b)-1]
	}
	return "", false
}

// likeMatch reports whether s matches a LIKE pattern (backslash escapes;
// ILIKE folds ASCII case), for testing MCVs and histogram entries.
func likeMatch(s, pattern string, caseInsensitive bool) bool {
	if caseInsensitive {
		s, pattern = strings.ToLower(s), strings.ToLower(pattern)
	}
	return likeMatchFrom(s, pattern)
}

func likeMatchFrom(s, p string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '%':
			for len(p) > 0 && p[0] == '%' {
				p = p[1:]
			}
			if p == "" {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if likeMatchFrom(s[i:], p) {
					return true
				}
			}
			return false
		case '_':
			if s == "" {
				return false
			}
			s, p = s[1:], p[1:]
		default:
			ch := p[0]
			if ch == '\\' && len(p) > 1 {
				p = p[1:]
				ch = p[0]
			}
			if s == "" || s[0] != ch {
				return false
			}
			s, p = s[1:], p[1:]
		}
	}
	return s == ""
}

// joinKeyStats describes one side of an equality join key: its column's
// statistics (nil when unknown), distinct count and null fraction, and
// the rows of the side's input.
type joinKeyStats struct {
	st        *storage.ColumnStats
	nd, null  float64
	rows      float64
	isDefault bool
}

func joinKey(p nodes.Plan, k nodes.Expr) joinKeyStats {
	rows := math.Max(p.Base().Rows, 1)
	if c, ok := statColumn(k); ok {
		if st := columnStats(p, c.Index); st != nil {
			return joinKeyStats{st: st, nd: st.NDistinct, null: st.NullFrac, rows: rows}
		}
	}
	// get_variable_numdistinct without statistics: a small input has as
	// many values as rows; otherwise the default, marked as a guess.
	if rows < defaultNumDistinct {
		return joinKeyStats{nd: rows, rows: rows}
	}
	return joinKeyStats{nd: defaultNumDistinct, rows: rows, isDefault: true}
}

// eqJoinSel is eqjoinsel_inner: with MCV lists on both sides, matching
// MCVs count exactly and the rest spread over the other distinct values;
// otherwise the share of pairs with equal keys, 1/max(nd1, nd2).
func eqJoinSel(k1, k2 joinKeyStats) float64 {
	if k1.st == nil || k2.st == nil || len(k1.st.MCVs) == 0 || len(k2.st.MCVs) == 0 {
		return (1 - k1.null) * (1 - k2.null) / math.Max(math.Max(k1.nd, k2.nd), 1)
	}
	m1, m2 := k1.st, k2.st
	matched2 := make([]bool, len(m2.MCVs))
	index2 := make(map[storage.StatValue]int, len(m2.MCVs))
	for j, v := range m2.MCVs {
		index2[v] = j
	}
	var matchProd, matchFreq1, matchFreq2, sum1, sum2 float64
	nmatches := 0
	for i, v := range m1.MCVs {
		sum1 += m1.MCVFreqs[i]
		if j, ok := index2[v]; ok && !matched2[j] {
			matched2[j] = true
			matchProd += m1.MCVFreqs[i] * m2.MCVFreqs[j]
			matchFreq1 += m1.MCVFreqs[i]
			matchFreq2 += m2.MCVFreqs[j]
			nmatches++
		}
	}
	for _, f := range m2.MCVFreqs {
		sum2 += f
	}
	matchProd = clampProbability(matchProd)
	unmatch1, unmatch2 := sum1-matchFreq1, sum2-matchFreq2
	other1 := clampProbability(1 - k1.null - sum1)
	other2 := clampProbability(1 - k2.null - sum2)
	n1, n2, nm := float64(len(m1.MCVs)), float64(len(m2.MCVs)), float64(nmatches)
	total1, total2 := matchProd, matchProd
	if k2.nd > n2 {
		total1 += unmatch1 * other2 / (k2.nd - n2)
	}
	if k2.nd > nm {
		total1 += other1 * (other2 + unmatch2) / (k2.nd - nm)
	}
	if k1.nd > n1 {
		total2 += unmatch2 * other1 / (k1.nd - n1)
	}
	if k1.nd > nm {
		total2 += other2 * (other1 + unmatch1) / (k1.nd - nm)
	}
	return math.Min(total1, total2)
}

// eqJoinSelSemi is eqjoinsel_semi: the fraction of outer rows (k1) with
// a partner among the inner rows (k2), whose distinct values are at most
// its rows: matched MCVs surely, the other rows in the ratio of the
// remaining distinct counts.
func eqJoinSelSemi(k1, k2 joinKeyStats) float64 {
	nd1, nd2 := k1.nd, math.Min(k2.nd, k2.rows)
	if k1.isDefault || k2.isDefault {
		return 0.5 * (1 - k1.null)
	}
	matchFreq1, nmatches := 0.0, 0.0
	if k1.st != nil && k2.st != nil && len(k1.st.MCVs) > 0 && len(k2.st.MCVs) > 0 {
		inner := k2.st.MCVs[:min(len(k2.st.MCVs), int(nd2))]
		index2 := make(map[storage.StatValue]bool, len(inner))
		for _, v := range inner {
			index2[v] = true
		}
		for i, v := range k1.st.MCVs {
			if index2[v] {
				matchFreq1 += k1.st.MCVFreqs[i]
				nmatches++
			}
		}
	}
	nd1, nd2 = nd1-nmatches, nd2-nmatches
	uncertainFrac := 1.0
	if nd1 > nd2 && nd2 >= 0 {
		uncertainFrac = nd2 / nd1
	}
	uncertain := clampProbability(1 - matchFreq1 - k1.null)
	return clampProbability(matchFreq1 + uncertainFrac*uncertain)
}
