package planner

// Sort orders of plans: PostgreSQL's pathkeys, kept only as far as the
// merge join and ORDER BY need them.
//
// outputOrder says in which order a plan's rows are known to come, over
// its output columns. Only nodes that really return sorted rows count:
//
//	Sort, Gather Merge          their keys
//	Foreign Scan                its pushed-down ORDER BY (a plain scan,
//	                            of types ordered alike: mergeableRemotely)
//	Subquery Scan, Limit,       their child's order (a subquery with
//	Unique, Materialize         ORDER BY is read in that order)
//	Merge Join                  its outer side's order, for the join types
//	                            whose executor returns rows in outer order
//	                            (inner, semi, anti); an inner join's inner
//	                            keys are equal to the outer ones, so they
//	                            order its rows too (an equivalence class)
//
// Every other node is unordered: a Hash Join spills by partition and a
// parallel one interleaves workers (PostgreSQL too gives hash joins no
// pathkeys), a Nested Loop pairs an outer batch with each inner batch in
// turn, and a CTE Scan has none in PostgreSQL 15. A Filter keeps the
// order; a projection keeps the keys it passes through as plain columns
// and drops the order from the first key it does not.

import "github.com/pgfed/pgfed/nodes"

// orderKey is one key of an order: the rows are sorted on each of exprs
// (columns equal in every row, so any of them names the key).
type orderKey struct {
	exprs      []nodes.Expr
	desc       bool
	nullsFirst bool
}

// ordering is the keys rows are sorted on, most significant first.
type ordering []orderKey

// outputOrder is the order of p's output rows (nil when unknown).
func outputOrder(p nodes.Plan) ordering {
	return projectOrder(ownOrder(p), p.Base().Targets)
}

// ownOrder is the order of p's own rows, before its projection.
func ownOrder(p nodes.Plan) ordering {
	switch n := p.(type) {
	case *nodes.Sort:
		return keysOrder(n.Keys)
	case *nodes.GatherMerge:
		return keysOrder(n.Keys)
	case *nodes.ForeignScan:
		if n.Join != nil || n.Grouped || n.Relations != "" {
			return nil
		}
		for _, k := range n.OrderBy {
			if !mergeableRemotely(k.Expr.Type()) {
				return nil
			}
		}
		return keysOrder(n.OrderBy)
	case *nodes.SubqueryScan:
		return outputOrder(n.Child)
	case *nodes.Limit:
		return outputOrder(n.Child)
	case *nodes.Unique:
		return outputOrder(n.Child)
	case *nodes.Material:
		return outputOrder(n.Child)
	case *nodes.MergeJoin:
		return mergeJoinOrder(n)
	}
	return nil
}

// keysOrder is the order a sort on keys produces.
func keysOrder(keys []nodes.SortKey) ordering {
	out := make(ordering, len(keys))
	for i, k := range keys {
		out[i] = orderKey{exprs: []nodes.Expr{k.Expr}, desc: k.Desc, nullsFirst: k.NullsFirst}
	}
	return out
}

// mergeJoinOrder is the order of a merge join's own rows (outer row, then
// inner row for the joins that return both). The executor returns an
// inner join's pairs and a semi or anti join's outer rows in outer
// order; a left or full join returns its unmatched outer rows at the end
// of their batch, out of order, so those have none.
func mergeJoinOrder(n *nodes.MergeJoin) ordering {
	switch n.Type {
	case nodes.JoinSemi, nodes.JoinAnti:
		return outputOrder(n.Outer)
	case nodes.JoinInner:
	default:
		return nil
	}
	outer := outputOrder(n.Outer)
	width := len(n.Outer.Base().Out)
	out := make(ordering, len(outer))
	for i, k := range outer {
		out[i] = orderKey{exprs: append([]nodes.Expr(nil), k.exprs...), desc: k.desc, nullsFirst: k.nullsFirst}
		for _, mk := range n.MergeKeys {
			ref, ok := mk.Inner.(*nodes.ColumnRef)
			if ok && k.has(mk.Outer) {
				shifted := *ref
				shifted.Index += width
				out[i].exprs = append(out[i].exprs, &shifted)
			}
		}
	}
	return out
}

// projectOrder maps an order over a node's own rows through its
// projection targets (nil: rows pass unchanged).
func projectOrder(own ordering, targets []nodes.Expr) ordering {
	if targets == nil || own == nil {
		return own
	}
	var out ordering
	for _, k := range own {
		var exprs []nodes.Expr
		for j, t := range targets {
			if ref, ok := t.(*nodes.ColumnRef); ok && k.has(ref) {
				moved := *ref
				moved.Index = j
				exprs = append(exprs, &moved)
			}
		}
		if len(exprs) == 0 {
			break
		}
		out = append(out, orderKey{exprs: exprs, desc: k.desc, nullsFirst: k.nullsFirst})
	}
	return out
}

// has reports whether e is one of the key's columns.
func (k orderKey) has(e nodes.Expr) bool {
	for _, x := range k.exprs {
		if sameColumn(x, e) {
			return true
		}
	}
	return false
}

// sameColumn reports whether a and b are the same input column. Only
// plain columns are compared: an expression key is never known sorted.
func sameColumn(a, b nodes.Expr) bool {
	ca, ok1 := a.(*nodes.ColumnRef)
	cb, ok2 := b.(*nodes.ColumnRef)
	return ok1 && ok2 && ca.Index == cb.Index && ca.T.ID == cb.T.ID
}

// satisfies reports whether rows in order o are sorted on keys (over the
// same columns): each key, in turn, is the next key of o with the same
// direction.
func (o ordering) satisfies(keys []nodes.SortKey) bool {
	if len(keys) > len(o) {
		return false
	}
	for i, k := range keys {
		if !o[i].has(k.Expr) || o[i].desc != k.Desc || o[i].nullsFirst != k.NullsFirst {
			return false
		}
	}
	return true
}

// queryOrder is ORDER BY's keys (over the select list exprs) over the
// expressions they name, for the join planner.
func queryOrder(keys []nodes.SortKey, exprs []nodes.Expr) []nodes.SortKey {
	var out []nodes.SortKey
	for _, k := range keys {
		ref, ok := k.Expr.(*nodes.ColumnRef)
		if !ok || ref.Index >= len(exprs) {
			return out
		}
		out = append(out, nodes.SortKey{Expr: exprs[ref.Index], Desc: k.Desc, NullsFirst: k.NullsFirst})
	}
	return out
}
