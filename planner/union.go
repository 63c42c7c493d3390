package planner

// Set operations, as PostgreSQL's generate_union_paths and
// generate_nonunion_paths: each branch is planned on its own and
// projected to the columns' common types (the leftmost branch names
// them); ORDER BY and LIMIT of the whole apply on top.
//
//	UNION ALL            Append (nested UNION ALLs flattened into one)
//	UNION                HashAggregate on every column <- Append
//	INTERSECT / EXCEPT   HashAggregate counting each group's rows from the
//	                     left and the right branch (a flag column tells
//	                     them apart) and keeping the groups found on both
//	                     sides (INTERSECT) or on the left only (EXCEPT):
//	                     PostgreSQL's HashSetOp, with NULLs equal.
//
// INTERSECT ALL and EXCEPT ALL, which repeat rows by their counts, are
// not supported yet.

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// planSetOp plans a SELECT whose Op is a set operation.
func (pc *planCtx) planSetOp(s *pg.SelectStmt) (*relPlan, error) {
	p, _, err := pc.setOpTree(s, true)
	if err != nil {
		return nil, err
	}
	return pc.planSortLimit(&relPlan{plan: p, visible: len(p.Base().Out)}, s, nil, nil)
}

// setOpTree plans s without its own ORDER BY and LIMIT when top; a
// branch with them (in parentheses) is planned whole. unionAll lists the
// branches of a UNION ALL result, for flattening.
func (pc *planCtx) setOpTree(s *pg.SelectStmt, top bool) (nodes.Plan, []nodes.Plan, error) {
	if s.Op == pg.SetOperation_SETOP_NONE || !top && (len(s.SortClause) > 0 || s.LimitCount != nil || s.LimitOffset != nil || s.WithClause != nil) {
		pc.keepUnknown = true
		r, err := pc.planSelect(s)
		pc.keepUnknown = false
		if err != nil {
			return nil, nil, err
		}
		return stripJunk(r), nil, nil
	}
	if s.WithClause != nil {
		return nil, nil, pgerr.NotSupported("WITH on a set operation")
	}
	l, lkids, err := pc.setOpTree(s.Larg, false)
	if err != nil {
		return nil, nil, err
	}
	r, rkids, err := pc.setOpTree(s.Rarg, false)
	if err != nil {
		return nil, nil, err
	}
	name := map[pg.SetOperation]string{pg.SetOperation_SETOP_UNION: "UNION", pg.SetOperation_SETOP_INTERSECT: "INTERSECT", pg.SetOperation_SETOP_EXCEPT: "EXCEPT"}[s.Op]
	out, err := setOpColumns(name, l, r)
	if err != nil {
		return nil, nil, err
	}
	if lkids == nil {
		lkids = []nodes.Plan{l}
	}
	if rkids == nil {
		rkids = []nodes.Plan{r}
	}
	kids := append(append([]nodes.Plan(nil), lkids...), rkids...)
	for i, k := range kids {
		if kids[i], err = projectTo(k, out, nil); err != nil {
			return nil, nil, err
		}
	}
	if s.Op == pg.SetOperation_SETOP_UNION {
		app := &nodes.Append{Kids: kids}
		app.Out = out
		if s.All {
			return app, kids, nil
		}
		return distinctOf(app), nil, nil
	}
	if s.All {
		return nil, nil, pgerr.NotSupported(name + " ALL")
	}
	return pc.hashSetOp(s.Op, kids[:len(lkids)], kids[len(lkids):], out)
}

// setOpColumns checks that both sides have as many columns and returns
// the result's columns: the left side's names, the common types.
func setOpColumns(name string, l, r nodes.Plan) ([]nodes.Field, error) {
	lo, ro := l.Base().Out, r.Base().Out
	if len(lo) != len(ro) {
		return nil, pgerr.New(pgerr.SyntaxError, "each %s query must have the same number of columns", name)
	}
	out := append([]nodes.Field(nil), lo...)
	for c := range out {
		t, err := commonType([]types.T{lo[c].T, ro[c].T}, name)
		if err != nil {
			return nil, err
		}
		if t.ID == types.Unknown {
			t = types.TextT
		}
		out[c].T = t
	}
	return out, nil
}

// projectTo casts p's columns to the types of out, and appends extra
// constant columns (nil: none).
func projectTo(p nodes.Plan, out []nodes.Field, extra []nodes.Expr) (nodes.Plan, error) {
	in := p.Base().Out
	needs := len(extra) > 0
	for c := range out {
		if in[c].T != out[c].T {
			needs = true
		}
	}
	if !needs {
		return p, nil
	}
	targets := make([]nodes.Expr, 0, len(out)+len(extra))
	fields := make([]nodes.Field, 0, len(out)+len(extra))
	for c, f := range in {
		e, err := coerce(&nodes.ColumnRef{Index: c, Name: f.Name, T: f.T}, out[c].T, types.CastImplicit)
		if err != nil {
			return nil, err
		}
		targets = append(targets, e)
		fields = append(fields, nodes.Field{Name: out[c].Name, T: out[c].T})
	}
	for _, e := range extra {
		targets = append(targets, e)
		fields = append(fields, nodes.Field{Name: "flag", T: e.Type()})
	}
	ss := &nodes.SubqueryScan{Child: p}
	ss.Targets, ss.Out = targets, fields
	return ss, nil
}

// distinctOf removes duplicate rows of p (NULLs equal).
func distinctOf(p nodes.Plan) nodes.Plan {
	out := p.Base().Out
	keys := make([]nodes.Expr, len(out))
	for i, f := range out {
		keys[i] = &nodes.ColumnRef{Index: i, Name: f.Name, T: f.T}
	}
	d := &nodes.Agg{Child: p, Strategy: nodes.AggHashed, GroupKeys: keys}
	d.Out = out
	return d
}

// hashSetOp plans INTERSECT or EXCEPT of the left and right branches.
func (pc *planCtx) hashSetOp(op pg.SetOperation, left, right []nodes.Plan, out []nodes.Field) (nodes.Plan, []nodes.Plan, error) {
	var kids []nodes.Plan
	for side, branch := range [][]nodes.Plan{left, right} {
		flag := &nodes.Const{Value: int64(side), T: types.Int4T}
		for _, k := range branch {
			p, err := projectTo(k, out, []nodes.Expr{flag})
			if err != nil {
				return nil, nil, err
			}
			kids = append(kids, p)
		}
	}
	app := &nodes.Append{Kids: kids}
	app.Out = append(append([]nodes.Field(nil), out...), nodes.Field{Name: "flag", T: types.Int4T})
	n := len(out)
	flagCol := &nodes.ColumnRef{Index: n, Name: "flag", T: types.Int4T}
	count := func(side int64) *nodes.AggCall {
		return &nodes.AggCall{Name: "count", Star: true, T: types.Int8T,
			Filter: &nodes.OpExpr{Op: "=", Left: flagCol, Right: &nodes.Const{Value: side, T: types.Int4T}, T: types.BoolT}}
	}
	keys := make([]nodes.Expr, n)
	targets := make([]nodes.Expr, n)
	for i, f := range out {
		keys[i] = &nodes.ColumnRef{Index: i, Name: f.Name, T: f.T}
		targets[i] = &nodes.ColumnRef{Index: i, Name: f.Name, T: f.T}
	}
	zero := &nodes.Const{Value: int64(0), T: types.Int8T}
	lc := &nodes.ColumnRef{Index: n, Name: "count(*) FILTER (WHERE (flag = 0))", T: types.Int8T, Raw: true}
	rc := &nodes.ColumnRef{Index: n + 1, Name: "count(*) FILTER (WHERE (flag = 1))", T: types.Int8T, Raw: true}
	rightOp := ">"
	if op == pg.SetOperation_SETOP_EXCEPT {
		rightOp = "="
	}
	agg := &nodes.Agg{Child: app, Strategy: nodes.AggHashed, GroupKeys: keys, Aggs: []*nodes.AggCall{count(0), count(1)}}
	agg.Filter = &nodes.BoolExpr{Op: nodes.And, Args: []nodes.Expr{
		&nodes.OpExpr{Op: ">", Left: lc, Right: zero, T: types.BoolT},
		&nodes.OpExpr{Op: rightOp, Left: rc, Right: zero, T: types.BoolT},
	}}
	agg.Targets, agg.Out = targets, out
	return agg, nil, nil
}
