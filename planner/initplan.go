package planner

// Subqueries in expressions that are not joins (sublink.go makes the
// WHERE clause's EXISTS and IN into joins): an uncorrelated scalar
// subquery or EXISTS becomes an InitPlan, run once, whose value the
// expression reads as a Param ($0, $1 ... as PostgreSQL 15 prints them).
// Correlated ones, which need a SubPlan run per row, and ANY / ALL in
// expressions are refused with 0A000.

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// sublinkExpr plans a subquery in an expression.
func (c *exprCtx) sublinkExpr(sl *pg.SubLink) (nodes.Expr, error) {
	sub := sl.Subselect.GetSelectStmt()
	exists := sl.SubLinkType == pg.SubLinkType_EXISTS_SUBLINK
	if sub == nil || !exists && sl.SubLinkType != pg.SubLinkType_EXPR_SUBLINK {
		return nil, pgerr.NotSupported("ANY, ALL and row comparisons with a subquery here")
	}
	pc := c.p
	pc.outer = append(pc.outer, c.scope)
	saved := struct {
		windows      *[]*windowCall
		windowClause []*pg.Node
	}{pc.windows, pc.windowClause}
	r, err := pc.planSelect(sub)
	pc.windows, pc.windowClause = saved.windows, saved.windowClause
	pc.outer = pc.outer[:len(pc.outer)-1]
	if err != nil {
		if correlated(err) && !exists {
			return c.decorrelate(sl)
		}
		return nil, err
	}
	plan := stripJunk(r)
	t := types.BoolT
	if !exists {
		out := plan.Base().Out
		if len(out) != 1 {
			return nil, pgerr.New(pgerr.SyntaxError, "subquery must return only one column")
		}
		t = out[0].T
		if t.ID == types.Unknown {
			t = types.TextT
		}
	}
	id := pc.params
	pc.params++
	pc.initPlans = append(pc.initPlans, &nodes.InitPlan{ID: id, Number: id + 1, Plan: plan, Exists: exists})
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
		if s := pc.outer[i]; s != nil {
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

// hasScalarSublink reports whether a WHERE clause has a scalar subquery,
// which, if correlated, joins the query's FROM (decorrelate.go).
func hasScalarSublink(n *pg.Node) bool {
	found := false
	var walk func(n *pg.Node)
	walk = func(n *pg.Node) {
		if n == nil || found {
			return
		}
		switch x := n.Node.(type) {
		case *pg.Node_SubLink:
			found = x.SubLink.SubLinkType == pg.SubLinkType_EXPR_SUBLINK
		case *pg.Node_BoolExpr:
			for _, a := range x.BoolExpr.Args {
				walk(a)
			}
		case *pg.Node_AExpr:
			walk(x.AExpr.Lexpr)
			walk(x.AExpr.Rexpr)
		case *pg.Node_TypeCast:
			walk(x.TypeCast.Arg)
		case *pg.Node_FuncCall:
			for _, a := range x.FuncCall.Args {
				walk(a)
			}
		case *pg.Node_NullTest:
			walk(x.NullTest.Arg)
		}
	}
	walk(n)
	return found
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
