package planner

// Subqueries in expressions that are not joins (sublink.go makes the
// WHERE clause's EXISTS and IN into joins): an uncorrelated scalar
// subquery or EXISTS becomes an InitPlan, run once, whose value the
// expression reads as a Param ($0, $1 ... as PostgreSQL 15 prints them).
// Correlated ones run per row as SubPlans (subplan.go), as do ANY / ALL
// in expressions.

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// sublinkExpr plans a subquery in an expression: an uncorrelated scalar
// subquery or EXISTS as an InitPlan, a correlated scalar aggregate as a
// join when it decorrelates, everything else as a SubPlan (subplan.go).
func (c *exprCtx) sublinkExpr(sl *pg.SubLink) (nodes.Expr, error) {
	if sl.Subselect.GetSelectStmt() == nil {
		return nil, pgerr.NotSupported("this kind of subquery")
	}
	switch sl.SubLinkType {
	case pg.SubLinkType_EXPR_SUBLINK, pg.SubLinkType_EXISTS_SUBLINK:
		kind := nodes.SubLinkExpr
		if sl.SubLinkType == pg.SubLinkType_EXISTS_SUBLINK {
			kind = nodes.SubLinkExists
		}
		e, err := c.attempt(func() (nodes.Expr, error) { return c.initPlan(sl, kind == nodes.SubLinkExists) })
		if !correlated(err) {
			return e, err
		}
		if kind == nodes.SubLinkExpr {
			// Any failure to decorrelate leaves it to a SubPlan, which
			// reports the query's own errors, if any, as well.
			if e, err := c.attempt(func() (nodes.Expr, error) { return c.decorrelate(sl) }); err == nil {
				return e, nil
			}
		}
		return c.subPlan(sl, kind)
	case pg.SubLinkType_ANY_SUBLINK:
		return c.subPlan(sl, nodes.SubLinkAny)
	case pg.SubLinkType_ALL_SUBLINK:
		return c.subPlan(sl, nodes.SubLinkAll)
	}
	return nil, pgerr.NotSupported("ARRAY() and row comparisons with a subquery")
}

// attempt runs a way of planning a subquery and, when it fails, undoes
// what it added to the statement (Params, plan numbers, InitPlans,
// relations and column ids of the query's range table), so that the
// next way starts afresh.
func (c *exprCtx) attempt(plan func() (nodes.Expr, error)) (nodes.Expr, error) {
	pc := c.p
	params, number, inits := pc.params, pc.planNumber, len(pc.initPlans)
	var js *joinScope
	var rels, used int
	if c.scope != nil && c.scope.join != nil {
		js = c.scope.join
		rels, used = len(js.rels), len(js.used)
	}
	e, err := plan()
	if err != nil {
		pc.params, pc.planNumber, pc.initPlans = params, number, pc.initPlans[:inits]
		if js != nil {
			js.rels, js.used = js.rels[:rels], js.used[:used]
		}
	}
	return e, err
}

// initPlan plans an uncorrelated scalar subquery or EXISTS, run once; a
// correlated one fails with errCorrelated.
func (c *exprCtx) initPlan(sl *pg.SubLink, exists bool) (nodes.Expr, error) {
	pc := c.p
	plan, visible, err := c.planSubquery(sl.Subselect.GetSelectStmt(), nil)
	if err != nil {
		return nil, err
	}
	number := pc.nextPlanNumber()
	t := types.BoolT
	if !exists {
		out := plan.Base().Out
		if visible != 1 {
			return nil, pgerr.New(pgerr.SyntaxError, "subquery must return only one column")
		}
		t = out[0].T
		if t.ID == types.Unknown {
			t = types.TextT
		}
	}
	id := pc.params
	pc.params++
	pc.initPlans = append(pc.initPlans, &nodes.InitPlan{ID: id, Number: number, Plan: plan, Exists: exists})
	return &nodes.Param{ID: id, T: t}, nil
}

// namesOuterQuery reports whether a column reference that does not
// resolve here names a column of an enclosing query (a correlated
// subquery).
func (pc *planCtx) namesOuterQuery(parts []string, err error) bool {
	if code := pgerr.Code(err); code != pgerr.UndefinedColumn && code != pgerr.UndefinedTable {
		return false
	}
	for i := len(pc.outer) - 1; i >= 0; i-- {
		if s := pc.outer[i].scope; s != nil {
			if _, e := s.resolve(parts); e == nil {
				return true
			}
		}
	}
	return false
}

// errCorrelated refuses a subquery naming the outer query's columns where
// it cannot be decorrelated.
var errCorrelated = pgerr.NotSupported("a subquery in an expression naming the outer query's columns")

func correlated(err error) bool {
	pe, ok := pgerr.As(err)
	return ok && pe.Message == errCorrelated.Message
}

// errNeedsSubPlan is decorrelate's refusal: the subquery runs as a
// SubPlan instead.
var errNeedsSubPlan = pgerr.NotSupported("this correlated subquery (it needs a SubPlan)")

// hasScalarSublink reports whether a WHERE clause has a scalar subquery,
// which, if correlated, joins the query's FROM (decorrelate.go).
func hasScalarSublink(n *pg.Node) bool {
	return anyParseNode(n, func(x *pg.Node) bool {
		sl := x.GetSubLink()
		return sl != nil && sl.SubLinkType == pg.SubLinkType_EXPR_SUBLINK
	}, nil)
}

// targetsHaveScalarSublink is hasScalarSublink for a select list.
func targetsHaveScalarSublink(list []*pg.Node) bool {
	for _, n := range list {
		if rt := n.GetResTarget(); rt != nil && hasScalarSublink(rt.Val) {
			return true
		}
	}
	return false
}
