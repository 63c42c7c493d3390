package planner

import (
	"math"
	"testing"

	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

func num(f float64) storage.StatValue { return storage.StatValue{Num: f} }
func str(s string) storage.StatValue  { return storage.StatValue{Str: s} }

// uniformStats is a column of the values 0..999 once each, with 10%
// NULLs: a histogram of 101 bounds 0, 10, ..., 1000.
func uniformStats() *storage.ColumnStats {
	st := &storage.ColumnStats{NullFrac: 0.1, NDistinct: 1000}
	for i := 0; i <= 100; i++ {
		st.Histogram = append(st.Histogram, num(float64(i*10)))
	}
	return st
}

// skewedStats has value 7 in half the rows, the rest spread over 99
// other values between 100 and 1000.
func skewedStats() *storage.ColumnStats {
	st := &storage.ColumnStats{NDistinct: 100, MCVs: []storage.StatValue{num(7)}, MCVFreqs: []float64{0.5}}
	for i := 0; i <= 10; i++ {
		st.Histogram = append(st.Histogram, num(float64(100+i*90)))
	}
	return st
}

func TestColumnSelectivity(t *testing.T) {
	col := &nodes.ColumnRef{Index: 0, T: types.Int4T}
	intConst := func(v int64) nodes.Expr { return &nodes.Const{Value: v, T: types.Int4T} }
	op := func(o string, l, r nodes.Expr) nodes.Expr {
		return &nodes.OpExpr{Op: o, Left: l, Right: r, T: types.BoolT}
	}
	and := func(args ...nodes.Expr) nodes.Expr { return &nodes.BoolExpr{Op: nodes.And, Args: args} }
	for _, tc := range []struct {
		name string
		st   *storage.ColumnStats
		e    nodes.Expr
		want float64
	}{
		{"eq non-MCV", uniformStats(), op("=", col, intConst(5)), 0.9 / 1000},
		{"eq MCV", skewedStats(), op("=", col, intConst(7)), 0.5},
		{"eq other", skewedStats(), op("=", col, intConst(8)), 0.5 / 99},
		{"neq MCV", skewedStats(), op("<>", col, intConst(7)), 0.5},
		{"lt histogram", uniformStats(), op("<", col, intConst(250)), 0.9 * 0.25},
		{"gt histogram flipped", uniformStats(), op("<", intConst(250), col), 0.9 * 0.75},
		{"lt below histogram", uniformStats(), op("<", col, intConst(-5)), 0.9 * 0.0001},
		{"lt with MCV", skewedStats(), op("<", col, intConst(550)), 0.5 + 0.5*0.5},
		{"range", uniformStats(), and(op(">=", col, intConst(100)), op("<", col, intConst(300))), 0.9*0.9 + 0.9*0.3 - 1 + 0.1},
		{"in list", uniformStats(), &nodes.InList{Arg: col, List: []nodes.Expr{intConst(1), intConst(2)}}, 2 * 0.9 / 1000},
		{"is null", uniformStats(), &nodes.NullTest{Arg: col}, 0.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := func(int) *storage.ColumnStats { return tc.st }
			if got := selectivityWith(tc.e, cs); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("selectivity %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPatternSelectivity(t *testing.T) {
	words := &storage.ColumnStats{NDistinct: 4, MCVs: []storage.StatValue{str("apple"), str("banana")}, MCVFreqs: []float64{0.4, 0.3}}
	for _, tc := range []struct {
		pattern string
		ci      bool
		want    float64
	}{
		{"apple", false, 0.4},                      // exact: an equality
		{"ban%", false, 0.3 + 0.3*defaultMatchSel}, // MCV match + prefix without histogram
		{"%an%", false, 0.3 + 0.3*0.2*0.2*5},       // leading % skipped
		{"APP%", true, 0.4 + 0.3*0.2*0.2*0.2*5},    // ILIKE: no prefix before a letter
	} {
		if got := patternSel(words, tc.pattern, tc.ci); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%q: selectivity %v, want %v", tc.pattern, got, tc.want)
		}
	}
	for _, tc := range []struct {
		s, p string
		want bool
	}{
		{"abc", "a%", true}, {"abc", "a_c", true}, {"abc", "a_", false}, {"a%c", `a\%c`, true}, {"abc", `a\%c`, false}, {"", "%", true},
	} {
		if got := likeMatch(tc.s, tc.p, false); got != tc.want {
			t.Errorf("likeMatch(%q, %q) = %v", tc.s, tc.p, got)
		}
	}
	if got := backslashPattern("a#_b\\", "#"); got != `a\_b\\` {
		t.Errorf("backslashPattern = %q", got)
	}
}

func TestJoinSelectivity(t *testing.T) {
	// Keys 0..59 (each an MCV of 1/60) against keys 0..999 (MCVs 0..99,
	// 1/1000 each): only 60 values meet.
	small := &storage.ColumnStats{NDistinct: 60}
	for i := 0; i < 60; i++ {
		small.MCVs, small.MCVFreqs = append(small.MCVs, num(float64(i))), append(small.MCVFreqs, 1.0/60)
	}
	big := &storage.ColumnStats{NDistinct: 1000}
	for i := 0; i < 100; i++ {
		big.MCVs, big.MCVFreqs = append(big.MCVs, num(float64(i))), append(big.MCVFreqs, 1.0/1000)
	}
	ks := joinKeyStats{st: small, nd: 60, rows: 2000}
	kb := joinKeyStats{st: big, nd: 1000, rows: 150000}
	if got, want := eqJoinSel(kb, ks), 60*(1.0/60)*(1.0/1000); math.Abs(got-want) > 1e-9 {
		t.Errorf("eqjoinsel %v, want %v", got, want)
	}
	if got, want := eqJoinSelSemi(kb, ks), 0.06; math.Abs(got-want) > 1e-9 {
		t.Errorf("eqjoinsel_semi big in small %v, want %v", got, want)
	}
	if got, want := eqJoinSelSemi(ks, kb), 1.0; math.Abs(got-want) > 1e-9 {
		t.Errorf("eqjoinsel_semi small in big %v, want %v", got, want)
	}
}

// TestDateTimestampSelectivity checks that a timestamp constant against
// a date column's statistics (days), and a date against a timestamp
// column's (microseconds), are compared in the column's units: TPC-H's
// o_orderdate < date '1993-07-01' + interval '3 month'.
func TestDateTimestampSelectivity(t *testing.T) {
	days := uniformStats() // dates 0..999 days after 1970-01-01
	dateCol := &nodes.ColumnRef{Index: 0, T: types.DateT}
	ts := &nodes.Const{Value: int64(250 * usecsPerDay), T: types.TimestampT}
	lt := &nodes.OpExpr{Op: "<", Left: dateCol, Right: ts, T: types.BoolT}
	if got := selectivityWith(lt, func(int) *storage.ColumnStats { return days }); math.Abs(got-0.9*0.25) > 1e-9 {
		t.Errorf("date < timestamp: selectivity %v, want %v", got, 0.9*0.25)
	}
	usecs := &storage.ColumnStats{NDistinct: 1000}
	for i := 0; i <= 100; i++ {
		usecs.Histogram = append(usecs.Histogram, num(float64(i*10)*usecsPerDay))
	}
	tsCol := &nodes.ColumnRef{Index: 0, T: types.TimestampT}
	date := &nodes.Const{Value: int32(750), T: types.DateT}
	ge := &nodes.OpExpr{Op: ">=", Left: tsCol, Right: date, T: types.BoolT}
	if got := selectivityWith(ge, func(int) *storage.ColumnStats { return usecs }); math.Abs(got-0.25) > 1e-9 {
		t.Errorf("timestamp >= date: selectivity %v, want 0.25", got)
	}
}

// TestDateCastToTimestampSelectivity: the planner compares a date column
// with a timestamp by casting the column, which the statistics see
// through.
func TestDateCastToTimestampSelectivity(t *testing.T) {
	days := uniformStats()
	cast := &nodes.Cast{Arg: &nodes.ColumnRef{Index: 0, T: types.DateT}, T: types.TimestampT}
	ts := &nodes.Const{Value: int64(250 * usecsPerDay), T: types.TimestampT}
	lt := &nodes.OpExpr{Op: "<", Left: cast, Right: ts, T: types.BoolT}
	if got := selectivityWith(lt, func(int) *storage.ColumnStats { return days }); math.Abs(got-0.9*0.25) > 1e-9 {
		t.Errorf("date::timestamp < timestamp: selectivity %v, want %v", got, 0.9*0.25)
	}
}
