package nodes

import (
	"reflect"
	"strconv"

	"github.com/pgfed/pgfed/types"
)

// SubLinkKind is what a SubPlan computes from its subquery's rows.
type SubLinkKind int

const (
	SubLinkExpr   SubLinkKind = iota // the first column of its only row; NULL without rows
	SubLinkExists                    // whether it returns a row
	SubLinkAny                       // Test holds for some row (IN, = ANY, op SOME)
	SubLinkAll                       // Test holds for every row (op ALL, NOT IN is NOT ANY)
)

// SubPlan is a subquery in an expression that runs for each row that
// reaches it, as PostgreSQL's SubPlan: before each run, Params[i] is set
// to Args[i] evaluated over the outer row (the outer query's columns the
// subquery names, and for ANY / ALL the left-hand values). A SubPlan that
// names no outer column runs once and keeps its rows (or, Hashed, a hash
// set of them).
//
// Test, for ANY and ALL, is evaluated over the subquery's rows (its
// ColumnRefs index the subquery's output) with the left-hand values as
// Params; ANY is true when Test is true for a row, NULL when it is for
// none but NULL for some, else false, and ALL the dual. Hashed (an
// uncorrelated IN over hashable types) instead hashes HashRight over the
// subquery's rows once and probes it with HashLeft, an outer expression.
type SubPlan struct {
	Number int // "SubPlan N" in EXPLAIN, numbered with the InitPlans
	Kind   SubLinkKind
	Plan   Plan
	Params []int
	Args   []Expr
	Test   Expr
	// Hashed replaces Params/Test for uncorrelated IN: HashLeft (outer)
	// = HashRight (over the subquery's rows).
	Hashed              bool
	HashLeft, HashRight Expr
	// Volatile: the subquery calls a volatile function, so its results
	// must not be reused for equal Params.
	Volatile bool
	T        types.T
}

func (s *SubPlan) Type() types.T { return s.T }

// Name is the SubPlan's name in EXPLAIN: "SubPlan 2".
func (s *SubPlan) Name() string { return "SubPlan " + strconv.Itoa(s.Number) }

// String is how PostgreSQL 15 prints a SubPlan in an expression.
func (s *SubPlan) String() string {
	if s.Hashed {
		return "(hashed " + s.Name() + ")"
	}
	return "(" + s.Name() + ")"
}

// Correlated reports whether the subquery reads values of the outer row
// (not only the left-hand values of ANY / ALL, which Test reads).
func (s *SubPlan) Correlated() bool {
	if s.Hashed {
		return false
	}
	for _, id := range s.Params {
		found := false
		WalkExpr(s.Test, func(e Expr) {
			if p, ok := e.(*Param); ok && p.ID == id {
				found = true
			}
		})
		if !found {
			return true
		}
	}
	return false
}

var _ Expr = (*SubPlan)(nil)

var nodesPkg = reflect.TypeOf(SubPlan{}).PkgPath()

// SubPlansOf returns the SubPlans in the expressions of plan node p (not
// of its children, InitPlans or SubPlans), in field order.
func SubPlansOf(p Plan) []*SubPlan {
	var out []*SubPlan
	for _, e := range ExprsOf(p) {
		WalkExpr(e, func(x Expr) {
			if sp, ok := x.(*SubPlan); ok {
				out = append(out, sp)
			}
		})
	}
	return out
}

// ExprsOf returns the expressions of plan node p: every field of the node
// holding an Expr, directly or in slices and structs of this package
// (aggregate calls, sort keys, VALUES rows), so that a new node kind
// needs no registration here. Its children's, InitPlans' and SubPlans'
// expressions are not included.
func ExprsOf(p Plan) []Expr {
	var out []Expr
	var visit func(v reflect.Value, depth int)
	visit = func(v reflect.Value, depth int) {
		if depth > 5 || !v.IsValid() {
			return
		}
		if v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return
			}
			if v.CanInterface() {
				switch x := v.Interface().(type) {
				case Expr:
					out = append(out, x)
					return
				case Plan, *InitPlan:
					return
				}
			}
			visit(v.Elem(), depth+1)
			return
		}
		switch v.Kind() {
		case reflect.Struct:
			if v.Type().PkgPath() != nodesPkg {
				return
			}
			for i := 0; i < v.NumField(); i++ {
				if f := v.Type().Field(i); f.IsExported() && f.Name != "SubPlans" {
					visit(v.Field(i), depth+1)
				}
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < v.Len(); i++ {
				visit(v.Index(i), depth+1)
			}
		}
	}
	visit(reflect.ValueOf(p).Elem(), 0)
	return out
}
