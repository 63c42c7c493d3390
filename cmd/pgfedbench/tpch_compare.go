package main

// The TPC-H suite's answer check: every pgfed and DuckDB result is
// compared with PostgreSQL's (0 workers), value by value, as text.
//
//   - numeric: both values rounded (half away from zero, as PostgreSQL
//     rounds) to the smaller of their two scales, then equal as
//     decimals. A result column that the other engine gives as a float
//     (DuckDB's avg and decimal division are DOUBLE) is compared as a
//     float instead.
//   - float4/float8: within 1e-6 of each other, relative to the larger.
//   - integers: equal as integers.
//   - everything else (text, char(n), dates): equal as text; for DuckDB,
//     whose char(n) is varchar, after trailing spaces are trimmed.
//
// Rows are compared in order where the query's ORDER BY orders the whole
// result, else as sorted multisets.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// valueKind says how a result column's values compare.
type valueKind int

const (
	kindExact valueKind = iota // text, dates, booleans: as text
	kindInt
	kindNumeric
	kindFloat
)

func (k valueKind) String() string {
	return [...]string{"exact", "integer", "numeric", "float"}[k]
}

// kindOfOID is the kind of a PostgreSQL type OID (pgfed reports the same
// OIDs).
func kindOfOID(oid uint32) valueKind {
	switch oid {
	case 20, 21, 23: // int8, int2, int4
		return kindInt
	case 1700:
		return kindNumeric
	case 700, 701:
		return kindFloat
	}
	return kindExact
}

// kindOfDuckDB is the kind of a DuckDB type name.
func kindOfDuckDB(name string) valueKind {
	switch {
	case name == "DOUBLE" || name == "FLOAT" || name == "REAL":
		return kindFloat
	case strings.HasPrefix(name, "DECIMAL"):
		return kindNumeric
	case slices.Contains([]string{"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
		"UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"}, name):
		return kindInt
	}
	return kindExact
}

// tpchResult is a query's whole answer, as text.
type tpchResult struct {
	Columns []string
	Kinds   []valueKind
	Rows    [][]*string // nil: NULL
}

// compareOptions says what a comparison forgives.
type compareOptions struct {
	// trimText compares text without trailing spaces (DuckDB's char(n)
	// is varchar, so it does not pad).
	trimText bool
}

// floatTolerance is the relative difference two floats may have.
const floatTolerance = 1e-6

// compareResults returns "" when got is want's answer, else what
// differs (the first few differences).
func compareResults(want, got *tpchResult, ordered bool, opt compareOptions) string {
	if len(got.Columns) != len(want.Columns) {
		return fmt.Sprintf("%d columns (%s), want %d (%s)", len(got.Columns), strings.Join(got.Columns, ", "),
			len(want.Columns), strings.Join(want.Columns, ", "))
	}
	if len(got.Rows) != len(want.Rows) {
		return fmt.Sprintf("%d rows, want %d", len(got.Rows), len(want.Rows))
	}
	kinds := make([]valueKind, len(want.Columns))
	for i := range kinds {
		kinds[i] = want.Kinds[i]
		// A numeric that the other engine computed in floating point is
		// only as exact as a float.
		if kinds[i] == kindNumeric && i < len(got.Kinds) && got.Kinds[i] == kindFloat {
			kinds[i] = kindFloat
		}
	}
	diffs := diffRows(want.Rows, got.Rows, kinds, opt)
	if len(diffs) == 0 {
		return ""
	}
	if !ordered {
		w, g := sortedRows(want.Rows, kinds), sortedRows(got.Rows, kinds)
		if diffs = diffRows(w, g, kinds, opt); len(diffs) == 0 {
			return ""
		}
	} else if len(diffRows(sortedRows(want.Rows, kinds), sortedRows(got.Rows, kinds), kinds, opt)) == 0 {
		return "the same rows in another order: " + strings.Join(diffs, "; ")
	}
	return strings.Join(diffs, "; ")
}

// maxDiffs is how many differing values a message names.
const maxDiffs = 3

func diffRows(want, got [][]*string, kinds []valueKind, opt compareOptions) []string {
	var diffs []string
	count := 0
	for r := range want {
		for c := range kinds {
			if !valuesEqual(want[r][c], got[r][c], kinds[c], opt) {
				count++
				if len(diffs) < maxDiffs {
					diffs = append(diffs, fmt.Sprintf("row %d column %d: %s, want %s", r+1, c+1, show(got[r][c]), show(want[r][c])))
				}
			}
		}
	}
	if count > maxDiffs {
		diffs = append(diffs, fmt.Sprintf("%d differing values in all", count))
	}
	return diffs
}

func show(v *string) string {
	if v == nil {
		return "NULL"
	}
	return strconv.Quote(*v)
}

func valuesEqual(want, got *string, kind valueKind, opt compareOptions) bool {
	if want == nil || got == nil {
		return want == nil && got == nil
	}
	w, g := *want, *got
	switch kind {
	case kindInt:
		a, err1 := strconv.ParseInt(w, 10, 64)
		b, err2 := strconv.ParseInt(g, 10, 64)
		if err1 == nil && err2 == nil {
			return a == b
		}
	case kindNumeric:
		if eq, ok := decimalsEqual(w, g); ok {
			return eq
		}
	case kindFloat:
		a, err1 := strconv.ParseFloat(w, 64)
		b, err2 := strconv.ParseFloat(g, 64)
		if err1 == nil && err2 == nil {
			return floatsClose(a, b)
		}
	}
	if opt.trimText {
		return strings.TrimRight(w, " ") == strings.TrimRight(g, " ")
	}
	return w == g
}

func floatsClose(a, b float64) bool {
	if a == b {
		return true
	}
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return false
	}
	return math.Abs(a-b) <= floatTolerance*math.Max(math.Abs(a), math.Abs(b))
}

// decimalsEqual compares two decimal texts rounded to the smaller of
// their scales; ok is false when either is not a decimal.
func decimalsEqual(a, b string) (eq, ok bool) {
	var x, y apd.Decimal
	if _, _, err := x.SetString(a); err != nil {
		return false, false
	}
	if _, _, err := y.SetString(b); err != nil {
		return false, false
	}
	if x.Form != apd.Finite || y.Form != apd.Finite {
		return x.Cmp(&y) == 0, true
	}
	exp := max(x.Exponent, y.Exponent) // the smaller scale
	ctx := apd.BaseContext.WithPrecision(1000)
	ctx.Rounding = apd.RoundHalfUp // half away from zero, as numeric_round
	var rx, ry apd.Decimal
	if _, err := ctx.Quantize(&rx, &x, exp); err != nil {
		return false, false
	}
	if _, err := ctx.Quantize(&ry, &y, exp); err != nil {
		return false, false
	}
	return rx.Cmp(&ry) == 0, true
}

// sortedRows returns the rows sorted by their exact and integer columns'
// text, then their numbers: an order both engines' rows agree on when
// the values are equal within the tolerances.
func sortedRows(rows [][]*string, kinds []valueKind) [][]*string {
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b []*string) int {
		for pass := range 2 {
			for c, k := range kinds {
				numeric := k == kindNumeric || k == kindFloat
				if (pass == 0) == numeric {
					continue
				}
				if d := compareCell(a[c], b[c], numeric); d != 0 {
					return d
				}
			}
		}
		return 0
	})
	return out
}

func compareCell(a, b *string, numeric bool) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	if numeric {
		x, err1 := strconv.ParseFloat(*a, 64)
		y, err2 := strconv.ParseFloat(*b, 64)
		if err1 == nil && err2 == nil {
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
	}
	return strings.Compare(strings.TrimRight(*a, " "), strings.TrimRight(*b, " "))
}
