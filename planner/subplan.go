package planner

// SubPlans: subqueries in expressions that run for the rows reaching
// them, as PostgreSQL's (subselect.c's make_subplan). A subquery that
// names the outer query's columns is planned with those references as
// Params; the SubPlan's Args are the outer expressions that give them
// their values before each run (PostgreSQL's parParam and args). The
// references may reach several levels out: each level in between passes
// the value on as a Param of its own SubPlan, so that every SubPlan's
// Args say everything its result depends on.
//
// What becomes a SubPlan: a correlated scalar subquery or EXISTS that is
// neither an InitPlan (uncorrelated, initplan.go) nor decorrelated into a
// join (decorrelate.go), and every ANY / ALL / IN in an expression that
// is not pulled up into a semi or anti join (sublink.go): under OR, in a
// select list, NOT IN over a correlated subquery. An uncorrelated IN over
// hashable types is a hashed SubPlan ("(hashed SubPlan 1)"), its rows
// hashed once.
//
// SubPlans are parallel-restricted (PostgreSQL's rule for plan nodes
// referencing a correlated SubPlan): a node holding one stays above any
// Gather (parallelSafe), and a foreign scan holding one in its local
// filter is not async, since fetchers filter on their own goroutines.

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/funcs"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// outerLevel is an enclosing query of a subquery being planned: its scope,
// and, when the subquery is being planned as a SubPlan, the frame that
// collects the Params its references become (nil: an InitPlan attempt, in
// which a reference to this level is refused as correlated).
type outerLevel struct {
	scope *scope
	frame *corrFrame
}

// corrFrame collects a SubPlan's Params and the outer expressions that
// set them.
type corrFrame struct {
	params []int
	args   []nodes.Expr
	// lateral: the frame of a LATERAL item (lateral.go), whose Params a
	// parameterized Nested Loop sets; a Param of a level further out is
	// read through it as it is (no answers are reused per Params there).
	lateral bool
}

// bind returns the Param that carries e, an expression of the outer
// level, into the subquery; one Param per distinct expression.
func (f *corrFrame) bind(pc *planCtx, e nodes.Expr, name string) *nodes.Param {
	for i, a := range f.args {
		if nodes.Equal(a, e) {
			return &nodes.Param{ID: f.params[i], T: e.Type(), Name: name}
		}
	}
	id := pc.params
	pc.params++
	f.params = append(f.params, id)
	f.args = append(f.args, e)
	return &nodes.Param{ID: id, T: e.Type(), Name: name}
}

// outerColumn resolves a column name that the current query level does
// not have in the enclosing levels, innermost first. It returns the
// Param of the innermost level's frame, or errCorrelated where a level
// on the way is not being planned as a SubPlan.
func (pc *planCtx) outerColumn(parts []string) (nodes.Expr, error) {
	return pc.outerColumnAt(len(pc.outer)-1, parts)
}

func (pc *planCtx) outerColumnAt(level int, parts []string) (nodes.Expr, error) {
	if level < 0 {
		return nil, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", parts[len(parts)-1])
	}
	o := pc.outer[level]
	var e nodes.Expr
	err := error(pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", parts[len(parts)-1]))
	if o.scope != nil {
		e, err = o.scope.resolve(parts)
	}
	if c := pgerr.Code(err); c == pgerr.UndefinedColumn || c == pgerr.UndefinedTable {
		if level == 0 {
			return nil, err
		}
		if e, err = pc.outerColumnAt(level-1, parts); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	if o.frame == nil {
		return nil, errCorrelated
	}
	if _, ok := e.(*nodes.Param); ok && o.frame.lateral {
		return e, nil
	}
	return o.frame.bind(pc, e, outerName(e, o.scope, parts)), nil
}

// outerName is how EXPLAIN shows an outer reference inside the subquery:
// qualified, as PostgreSQL prints the outer query's Vars there.
func outerName(e nodes.Expr, sc *scope, parts []string) string {
	if p, ok := e.(*nodes.Param); ok {
		return p.Name
	}
	if _, ok := e.(*nodes.ColumnRef); ok && sc != nil && sc.join == nil && sc.alias != "" {
		return nodes.QuoteIdent(sc.alias) + "." + nodes.QuoteIdent(parts[len(parts)-1])
	}
	return e.String()
}

// subPlan plans sl as a SubPlan of kind.
func (c *exprCtx) subPlan(sl *pg.SubLink, kind nodes.SubLinkKind) (nodes.Expr, error) {
	pc := c.p
	var lhs []nodes.Expr
	if kind == nodes.SubLinkAny || kind == nodes.SubLinkAll {
		tests := []*pg.Node{sl.Testexpr}
		if row := sl.Testexpr.GetRowExpr(); row != nil {
			tests = row.Args
		}
		var err error
		if lhs, err = c.transformList(tests); err != nil {
			return nil, err
		}
	}
	frame := &corrFrame{}
	plan, visible, err := c.planSubquery(sl.Subselect.GetSelectStmt(), frame)
	if err != nil {
		return nil, err
	}
	// Numbered once planned, so that SubPlans inside it come first, as
	// PostgreSQL numbers them.
	sp := &nodes.SubPlan{Number: pc.nextPlanNumber(), Kind: kind, Plan: plan, Volatile: planVolatile(plan)}
	out := plan.Base().Out[:visible]
	switch kind {
	case nodes.SubLinkExpr:
		if len(out) != 1 {
			return nil, pgerr.New(pgerr.SyntaxError, "subquery must return only one column")
		}
		sp.T = out[0].T
		if sp.T.ID == types.Unknown {
			sp.T = types.TextT
		}
	case nodes.SubLinkExists:
		sp.T = types.BoolT
	default:
		sp.T = types.BoolT
		if err := c.subPlanTest(sp, sl, lhs, frame, out); err != nil {
			return nil, err
		}
	}
	if !sp.Hashed {
		sp.Params, sp.Args = frame.params, frame.args
	}
	return sp, nil
}

// planSubquery plans a SubPlan's or InitPlan's query with the current
// level's columns reachable as Params of frame (nil: not at all), and
// returns the number of its visible columns: sort-only columns after
// them stay (nothing reads them), as in PostgreSQL's subplans.
func (c *exprCtx) planSubquery(sub *pg.SelectStmt, frame *corrFrame) (nodes.Plan, int, error) {
	pc := c.p
	pc.outer = append(pc.outer, outerLevel{scope: c.scope, frame: frame})
	saved := struct {
		windows      *[]*windowCall
		windowClause []*pg.Node
	}{pc.windows, pc.windowClause}
	r, err := pc.planSelect(sub)
	pc.windows, pc.windowClause = saved.windows, saved.windowClause
	pc.outer = pc.outer[:len(pc.outer)-1]
	if err != nil {
		return nil, 0, err
	}
	return r.plan, r.visible, nil
}

// subPlanTest makes ANY / ALL's comparison of the left-hand values with
// a row of the subquery, or, for an uncorrelated IN over one hashable
// column, the hashed form.
func (c *exprCtx) subPlanTest(sp *nodes.SubPlan, sl *pg.SubLink, lhs []nodes.Expr, frame *corrFrame, out []nodes.Field) error {
	if len(out) != len(lhs) {
		return subqueryColumns(len(out) - len(lhs) + 1)
	}
	op := opName(sl.OperName)
	if op == "" {
		op = "="
	}
	if len(lhs) == 1 && op == "=" && sp.Kind == nodes.SubLinkAny && len(frame.params) == 0 {
		col := &nodes.ColumnRef{Index: 0, Name: out[0].Name, T: out[0].T}
		eq, err := makeOp("=", lhs[0], col)
		if err != nil {
			return err
		}
		if o, ok := eq.(*nodes.OpExpr); ok && o.Op == "=" && o.Left.Type() == o.Right.Type() && hashable(o.Left.Type()) {
			sp.Hashed, sp.HashLeft, sp.HashRight = true, o.Left, o.Right
			return nil
		}
	}
	var tests []nodes.Expr
	for i, l := range lhs {
		p := frame.bind(c.p, l, l.String())
		col := &nodes.ColumnRef{Index: i, Name: out[i].Name, T: out[i].T}
		t, err := makeOp(op, p, col)
		if err != nil {
			return err
		}
		if t.Type().ID != types.Bool {
			return pgerr.New(pgerr.DatatypeMismatch, "row comparison operator must yield type boolean, not type %s", t.Type())
		}
		tests = append(tests, t)
	}
	sp.Test = tests[0]
	if len(tests) > 1 {
		sp.Test = &nodes.BoolExpr{Op: nodes.And, Args: tests}
	}
	return nil
}

// nextPlanNumber numbers InitPlans and SubPlans in one sequence, as
// PostgreSQL numbers its subplans.
func (pc *planCtx) nextPlanNumber() int {
	pc.planNumber++
	return pc.planNumber
}

// planVolatile reports whether a plan calls a volatile function, so that
// a SubPlan must not reuse its results for equal Params.
func planVolatile(p nodes.Plan) bool {
	volatile := false
	nodes.Walk(p, func(q nodes.Plan) {
		for _, e := range nodes.ExprsOf(q) {
			nodes.WalkExpr(e, func(x nodes.Expr) {
				if f, ok := x.(*nodes.FuncExpr); ok && !stableCall(f) {
					volatile = true
				}
			})
		}
	})
	return volatile
}

func stableCall(call *nodes.FuncExpr) bool {
	f := funcs.Lookup(call.Name)
	if f == nil {
		return false
	}
	ts := make([]types.T, len(call.Args))
	for i, a := range call.Args {
		ts[i] = a.Type()
	}
	s := f.Overload(ts)
	return s != nil && s.Volatility != funcs.Volatile
}

// attachSubPlans records on every node the SubPlans of its expressions
// (for EXPLAIN and numbering), and keeps foreign scans that hold one
// synchronous. It runs once the plan tree is final.
func attachSubPlans(p nodes.Plan) {
	nodes.Walk(p, func(q nodes.Plan) {
		b := q.Base()
		b.SubPlans = nodes.SubPlansOf(q)
		if fs, ok := q.(*nodes.ForeignScan); ok && len(b.SubPlans) > 0 {
			fs.AsyncCapable, fs.Async = false, false
		}
	})
}

// holdsSubPlan reports whether a node's own expressions hold a SubPlan.
func holdsSubPlan(p nodes.Plan) bool { return len(nodes.SubPlansOf(p)) > 0 }
