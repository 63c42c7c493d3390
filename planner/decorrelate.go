package planner

// Correlated scalar subqueries in WHERE and the select list, decorrelated
// into a join with a
// grouped subquery (DuckDB's and most engines' rewrite of
// `x < (SELECT 0.2 * avg(y) FROM t WHERE t.k = outer.k)`; PostgreSQL runs
// such a subquery per row as a SubPlan):
//
//	outer LEFT JOIN (SELECT t.k, 0.2 * avg(y) FROM t GROUP BY t.k) sub
//	                ON sub.k = outer.k
//
// and the expression reads sub's value column. Grouping on the
// correlation keys makes each outer row meet at most one row, so the
// outer rows stay as they are; an outer row without one reads NULL, what
// an aggregate over no rows gives, except count, which is wrapped in
// COALESCE(..., 0). The subquery must be one aggregate expression over
// its FROM items, correlated only through equalities of its own columns
// with the outer query's; anything else (no aggregate, LIMIT, GROUP BY,
// correlation in another form) is refused with 0A000.

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// decorrelate plans a correlated scalar subquery of c's WHERE or select
// list as a join
// and returns the expression that reads its value.
func (c *exprCtx) decorrelate(sl *pg.SubLink) (nodes.Expr, error) {
	refuse := errNeedsSubPlan
	sub := sl.Subselect.GetSelectStmt()
	sc := c.scope
	if sc == nil || sc.join == nil || sc.joinRoot == nil || c.clause != "WHERE" && c.clause != "" || c.inAgg || sub == nil ||
		len(sub.FromClause) == 0 || len(sub.ValuesLists) > 0 || sub.Op != pg.SetOperation_SETOP_NONE ||
		len(sub.GroupClause) > 0 || sub.HavingClause != nil || sub.LimitCount != nil || sub.LimitOffset != nil ||
		len(sub.DistinctClause) > 0 || sub.WithClause != nil || len(sub.WindowClause) > 0 || len(sub.TargetList) != 1 {
		return nil, refuse
	}
	ja := sc.join.ja
	js := ja.js
	outerRels := (*sc.joinRoot).rels
	// The subquery's FROM, analysed into the same range table.
	tree, items, err := ja.subqueryFrom(sub.FromClause, sc)
	if err != nil {
		return nil, err
	}
	if lifted, err := liftOuterRefs(ja, tree); err != nil || len(lifted) > 0 {
		return nil, refuse
	}
	inner := &scope{join: js, items: items, parent: sc}
	// Its WHERE: conditions on its own rows, and the correlations.
	var own, innerKeys, outerKeys []nodes.Expr
	if sub.WhereClause != nil {
		ec := &exprCtx{p: c.p, scope: inner, clause: "WHERE"}
		w, err := ec.transform(sub.WhereClause)
		if err != nil {
			return nil, err
		}
		if w, err = requireBool(w, "argument of WHERE"); err != nil {
			return nil, err
		}
		for _, q := range flattenAnd(w) {
			r := ja.refs(q)
			if r.subsetOf(tree.rels) {
				own = append(own, q)
				continue
			}
			ik, ok, correlated := ja.correlation(q, tree.rels, outerRels)
			if !correlated {
				return nil, refuse
			}
			innerKeys, outerKeys = append(innerKeys, ik), append(outerKeys, ok)
		}
	}
	if len(innerKeys) == 0 {
		return nil, refuse
	}
	var aggs []*nodes.AggCall
	tec := &exprCtx{p: c.p, scope: inner, aggs: &aggs, clause: "SELECT"}
	target, err := tec.transform(sub.TargetList[0].GetResTarget().Val)
	if err != nil {
		return nil, err
	}
	if len(aggs) == 0 || ja.refs(target)&^tree.rels != 0 {
		return nil, refuse
	}
	if a, ok := target.(*aggRef); hasCount(aggs) && !(ok && a.call.Name == "count") {
		return nil, refuse // count inside an expression: its value over no rows is not NULL
	}
	grouped, err := ja.groupedSubquery(tree, own, innerKeys, aggs, target)
	if err != nil {
		return nil, err
	}
	// The grouped subquery joins the tree as the nullable side of a left
	// join on the correlations.
	rel := len(js.rels)
	if rel >= maxJoinRels {
		return nil, pgerr.NotSupported("more than 64 relations in one FROM clause")
	}
	src, err := subquerySource(grouped, "subquery", nil, true)
	if err != nil {
		return nil, err
	}
	js.rels = append(js.rels, &baseRel{alias: "subquery", src: src})
	leaf := &jtNode{rel: rel, rels: relSet(1) << rel}
	var quals []nodes.Expr
	for i, ok := range outerKeys {
		eq, err := makeOp("=", js.ref(rel, i), ok)
		if err != nil {
			return nil, err
		}
		quals = append(quals, eq)
	}
	root := *sc.joinRoot
	*sc.joinRoot = &jtNode{rel: -1, typ: nodes.JoinLeft, left: root, right: leaf, rels: root.rels | leaf.rels, quals: quals}
	value := nodes.Expr(js.ref(rel, len(innerKeys)))
	if a, ok := target.(*aggRef); ok && a.call.Name == "count" {
		value = &nodes.CoalesceExpr{Args: []nodes.Expr{value, &nodes.Const{Value: int64(0), T: types.Int8T}}, T: types.Int8T}
	}
	return value, nil
}

// correlation splits an equality of an expression over the subquery's
// relations with one over the outer query's.
func (ja *joinAnalysis) correlation(q nodes.Expr, inner, outer relSet) (nodes.Expr, nodes.Expr, bool) {
	return ja.equalitySides(q, inner, outer, nil)
}

// groupedSubquery plans SELECT keys..., target FROM tree WHERE own GROUP
// BY keys.
func (ja *joinAnalysis) groupedSubquery(tree *jtNode, own, keys []nodes.Expr, aggs []*nodes.AggCall, target nodes.Expr) (nodes.Plan, error) {
	reads := append(append([]nodes.Expr(nil), keys...), target)
	for _, a := range aggs {
		reads = append(reads, a.Args...)
		if a.Filter != nil {
			reads = append(reads, a.Filter)
		}
		for _, k := range a.OrderBy {
			reads = append(reads, k.Expr)
		}
	}
	want, out := ja.columnsIn(tree.rels, reads...)
	p, err := ja.plan(tree, own, want, out)
	if err != nil {
		return nil, err
	}
	fix := func(e nodes.Expr) (nodes.Expr, error) { return ja.fix1(e, p.layout) }
	agg := &nodes.Agg{Child: p.plan, Strategy: nodes.AggHashed}
	for _, k := range keys {
		fk, err := fix(k)
		if err != nil {
			return nil, err
		}
		agg.GroupKeys = append(agg.GroupKeys, fk)
	}
	for _, a := range aggs {
		ac := *a
		ac.Args = nil
		for _, x := range a.Args {
			fx, err := fix(x)
			if err != nil {
				return nil, err
			}
			ac.Args = append(ac.Args, fx)
		}
		if a.Filter != nil {
			if ac.Filter, err = fix(a.Filter); err != nil {
				return nil, err
			}
		}
		ac.OrderBy = nil
		for _, k := range a.OrderBy {
			fx, err := fix(k.Expr)
			if err != nil {
				return nil, err
			}
			ac.OrderBy = append(ac.OrderBy, nodes.SortKey{Expr: fx, Desc: k.Desc, NullsFirst: k.NullsFirst})
		}
		agg.Aggs = append(agg.Aggs, &ac)
	}
	// The select list over the groups: the keys, then the value.
	l := &lifter{keys: agg.GroupKeys, nkeys: len(agg.GroupKeys)}
	for i, k := range agg.GroupKeys {
		agg.Targets = append(agg.Targets, &nodes.ColumnRef{Index: i, Name: k.String(), T: k.Type(), Raw: true})
		agg.Out = append(agg.Out, nodes.Field{Name: "key" + itoa(i+1), T: k.Type()})
	}
	ft, err := fix(target)
	if err != nil {
		return nil, err
	}
	v, err := l.lift(ft)
	if err != nil {
		return nil, err
	}
	agg.Targets = append(agg.Targets, v)
	agg.Out = append(agg.Out, nodes.Field{Name: "value", T: v.Type()})
	return agg, nil
}

func hasCount(aggs []*nodes.AggCall) bool {
	for _, a := range aggs {
		if a.Name == "count" {
			return true
		}
	}
	return false
}
