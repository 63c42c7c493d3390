package nodes

import "github.com/pgfed/pgfed/types"

// Equal reports whether a and b are the same expression: the same kind,
// the same result type at every level, the same operands and the same
// constants, as PostgreSQL's equal() compares expression trees. It is how
// the planner matches an expression to a group key, a select-list entry or
// an aggregate argument; matching by printed text is wrong, because an
// implicit coercion prints as its argument (c2 and c2::bigint both print
// "c2") and a constant's text does not show its type.
//
// Expression kinds private to another package take part by implementing
// Equaler.
func Equal(a, b Expr) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if a.Type() != b.Type() {
		return false
	}
	switch x := a.(type) {
	case *Const:
		y, ok := b.(*Const)
		return ok && constEqual(x, y)
	case *ColumnRef:
		y, ok := b.(*ColumnRef)
		return ok && x.Index == y.Index
	case *Param:
		y, ok := b.(*Param)
		return ok && x.ID == y.ID
	case *SubPlan:
		return a == b // each SubPlan is its own subquery
	case *OpExpr:
		y, ok := b.(*OpExpr)
		return ok && x.Op == y.Op && Equal(x.Left, y.Left) && Equal(x.Right, y.Right)
	case *FuncExpr:
		y, ok := b.(*FuncExpr)
		return ok && x.Name == y.Name && EqualLists(x.Args, y.Args)
	case *BoolExpr:
		y, ok := b.(*BoolExpr)
		return ok && x.Op == y.Op && EqualLists(x.Args, y.Args)
	case *NullTest:
		y, ok := b.(*NullTest)
		return ok && x.IsNot == y.IsNot && Equal(x.Arg, y.Arg)
	case *DistinctExpr:
		y, ok := b.(*DistinctExpr)
		return ok && x.Not == y.Not && Equal(x.Left, y.Left) && Equal(x.Right, y.Right)
	case *InList:
		y, ok := b.(*InList)
		return ok && x.Not == y.Not && Equal(x.Arg, y.Arg) && EqualLists(x.List, y.List)
	case *CaseExpr:
		y, ok := b.(*CaseExpr)
		return ok && caseEqual(x, y)
	case *Cast:
		y, ok := b.(*Cast)
		return ok && x.Explicit == y.Explicit && Equal(x.Arg, y.Arg)
	case *CoalesceExpr:
		y, ok := b.(*CoalesceExpr)
		return ok && EqualLists(x.Args, y.Args)
	case *NullIfExpr:
		y, ok := b.(*NullIfExpr)
		return ok && Equal(x.Left, y.Left) && Equal(x.Right, y.Right)
	case *MinMaxExpr:
		y, ok := b.(*MinMaxExpr)
		return ok && x.Greatest == y.Greatest && EqualLists(x.Args, y.Args)
	case Equaler:
		return x.EqualExpr(b)
	}
	return false
}

// Equaler is implemented by expression kinds defined outside this package
// (the planner's placeholders for aggregate results) so that Equal can
// compare them. EqualExpr is called only with b of the same result type.
type Equaler interface {
	EqualExpr(b Expr) bool
}

// EqualLists reports whether two expression lists are pairwise Equal.
func EqualLists(a, b []Expr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// EqualAggCalls reports whether two aggregate calls compute the same thing.
func EqualAggCalls(a, b *AggCall) bool {
	if a.Name != b.Name || a.T != b.T || a.Distinct != b.Distinct || a.Star != b.Star || a.WithinGroup != b.WithinGroup || len(a.OrderBy) != len(b.OrderBy) {
		return false
	}
	for i := range a.OrderBy {
		if !sortKeyEqual(a.OrderBy[i], b.OrderBy[i]) {
			return false
		}
	}
	return EqualLists(a.Args, b.Args) && Equal(a.Filter, b.Filter)
}

func sortKeyEqual(a, b SortKey) bool {
	return a.Desc == b.Desc && a.NullsFirst == b.NullsFirst && Equal(a.Expr, b.Expr)
}

// constEqual compares two constants of one type by their exact text form,
// which keeps what Compare would call equal apart when PostgreSQL does
// (numeric 1.0 and 1.00 are different constants).
func constEqual(a, b *Const) bool {
	if a.Value == nil || b.Value == nil {
		return a.Value == nil && b.Value == nil
	}
	return types.Format(a.T, a.Value) == types.Format(b.T, b.Value)
}

func caseEqual(a, b *CaseExpr) bool {
	if len(a.Whens) != len(b.Whens) || !Equal(a.Else, b.Else) {
		return false
	}
	for i := range a.Whens {
		if !Equal(a.Whens[i].Cond, b.Whens[i].Cond) || !Equal(a.Whens[i].Result, b.Whens[i].Result) {
			return false
		}
	}
	return true
}
