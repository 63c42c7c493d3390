package planner

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// planUnionAll plans a chain of UNION ALL as one Append whose children
// are projected to the common column types; ORDER BY and LIMIT of the
// whole apply on top.
func (pc *planCtx) planUnionAll(s *pg.SelectStmt) (*relPlan, error) {
	var branches []*pg.SelectStmt
	var collect func(x *pg.SelectStmt) error
	collect = func(x *pg.SelectStmt) error {
		if x.Op == pg.SetOperation_SETOP_UNION && x.All && len(x.SortClause) == 0 && x.LimitCount == nil && x.LimitOffset == nil && x.WithClause == nil {
			if err := collect(x.Larg); err != nil {
				return err
			}
			return collect(x.Rarg)
		}
		if x.Op != pg.SetOperation_SETOP_NONE && x.Op != pg.SetOperation_SETOP_UNION {
			return pgerr.NotSupported("INTERSECT/EXCEPT")
		}
		if x.Op == pg.SetOperation_SETOP_UNION && !x.All {
			return pgerr.NotSupported("UNION without ALL")
		}
		branches = append(branches, x)
		return nil
	}
	if err := collect(s.Larg); err != nil {
		return nil, err
	}
	if err := collect(s.Rarg); err != nil {
		return nil, err
	}
	var plans []nodes.Plan
	for _, b := range branches {
		pc.keepUnknown = true
		r, err := pc.planSelect(b)
		pc.keepUnknown = false
		if err != nil {
			return nil, err
		}
		plans = append(plans, stripJunk(r))
	}
	ncols := len(plans[0].Base().Out)
	for _, p := range plans[1:] {
		if len(p.Base().Out) != ncols {
			return nil, pgerr.New(pgerr.SyntaxError, "each UNION query must have the same number of columns")
		}
	}
	out := append([]nodes.Field(nil), plans[0].Base().Out...)
	for c := 0; c < ncols; c++ {
		ts := make([]types.T, len(plans))
		for i, p := range plans {
			ts[i] = p.Base().Out[c].T
		}
		t, err := commonType(ts, "UNION")
		if err != nil {
			return nil, err
		}
		out[c].T = t
	}
	for i, p := range plans {
		needs := false
		for c := 0; c < ncols; c++ {
			if p.Base().Out[c].T != out[c].T {
				needs = true
			}
		}
		if !needs {
			continue
		}
		targets := make([]nodes.Expr, ncols)
		for c := 0; c < ncols; c++ {
			f := p.Base().Out[c]
			e, err := coerce(&nodes.ColumnRef{Index: c, Name: f.Name, T: f.T}, out[c].T, types.CastImplicit)
			if err != nil {
				return nil, err
			}
			targets[c] = e
		}
		ss := &nodes.SubqueryScan{Child: p}
		ss.Targets, ss.Out = targets, out
		plans[i] = ss
	}
	app := &nodes.Append{Kids: plans}
	app.Out = out
	return pc.planSortLimit(&relPlan{plan: app, visible: ncols}, s, nil, nil)
}
