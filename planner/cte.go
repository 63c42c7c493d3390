package planner

// Common table expressions (WITH), with PostgreSQL 12+'s rule for which
// are computed once: a CTE referenced more than once (and not NOT
// MATERIALIZED), MATERIALIZED, recursive, or calling a volatile function
// is planned once, into a nodes.CTE hanging off the top node of the query
// level whose WITH defines it, and each reference is a CTE Scan of its
// shared store (so a volatile function in it gives every reference the
// same values). Every other referenced CTE is inlined: each reference is
// planned as a subquery in FROM, the CTE's query planned where it is
// named. An unreferenced CTE is not planned at all.
//
// The shared CTEs are planned when the WITH is, in the order of the
// list (WITH RECURSIVE: in an order without forward references, as
// parse_cte.c's TopologicalSort), as PostgreSQL's SS_process_ctes does,
// so that they take their Param and plan numbers before the query's
// InitPlans. A recursive CTE (cte_recursive.go) is a Recursive Union of
// its non-recursive and recursive terms. Data-modifying statements in
// WITH are refused with 0A000.

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
)

// cteFrame is the CTEs one WITH clause defines, visible to what is
// planned inside it, with what the planner knows of each (infos[i] is
// ctes[i]'s).
type cteFrame struct {
	ctes      []*pg.CommonTableExpr
	infos     []*cteInfo
	recursive bool // WITH RECURSIVE: every CTE sees all of its siblings
}

// cteInfo is the planning state of one CTE.
type cteInfo struct {
	refs      int  // references, not counting a recursive CTE's own
	recursive bool // it references itself
	volatile  bool // its query calls a volatile function
	// shared is the CTE's plan when it is computed once (nil: inlined),
	// fields its output columns, named by the alias list.
	shared *nodes.CTE
	fields []nodes.Field
	// work is set while the recursive term of a recursive CTE is
	// planned: its references to the CTE read the work table.
	work *workTable
	// level collects the shared CTEs of the WITH, for its top node.
	level *cteLevel
}

// cteLevel is what one WITH clause adds to its query's top node.
type cteLevel struct {
	plans []*nodes.CTE
}

// computedOnce applies PostgreSQL's rule (subselect.c, SS_process_ctes).
func (ci *cteInfo) computedOnce(c *pg.CommonTableExpr) bool {
	if ci.refs == 0 {
		return false // never planned, as PostgreSQL skips it
	}
	switch {
	case ci.recursive, ci.volatile, c.Ctematerialized == pg.CTEMaterialize_CTEMaterializeAlways:
		return true
	case c.Ctematerialized == pg.CTEMaterialize_CTEMaterializeNever:
		return false
	}
	return ci.refs > 1
}

// withCTEs runs plan with the CTEs of w visible; body is the query the
// WITH belongs to, without its WITH clause (where references are
// counted).
func (pc *planCtx) withCTEs(w *pg.WithClause, body *pg.SelectStmt, plan func() (*relPlan, error)) (*relPlan, error) {
	frame, err := newCTEFrame(w)
	if err != nil {
		return nil, err
	}
	level := &cteLevel{}
	for i, c := range frame.ctes {
		ci := frame.infos[i]
		ci.level = level
		ci.refs = countCTERefs(frame, i, body)
		ci.volatile = callsVolatile(c.Ctequery)
	}
	pc.ctes = append(pc.ctes, frame)
	defer func() { pc.ctes = pc.ctes[:len(pc.ctes)-1] }()
	fi := len(pc.ctes) - 1
	for i, c := range frame.ctes {
		if frame.infos[i].computedOnce(c) {
			if err := pc.planSharedCTE(fi, i); err != nil {
				return nil, err
			}
		}
	}
	r, err := plan()
	if err != nil {
		return nil, err
	}
	if len(level.plans) > 0 {
		b := r.plan.Base()
		b.CTEs = append(append([]*nodes.CTE(nil), level.plans...), b.CTEs...)
	}
	return r, nil
}

// newCTEFrame checks the CTEs of w and returns them in planning order
// (WITH RECURSIVE: without forward references), each marked recursive
// or not.
func newCTEFrame(w *pg.WithClause) (*cteFrame, error) {
	frame := &cteFrame{recursive: w.Recursive}
	for _, n := range w.Ctes {
		c := n.GetCommonTableExpr()
		for _, prev := range frame.ctes {
			if prev.Ctename == c.Ctename {
				return nil, errAt(pgerr.New(pgerr.DuplicateAlias, "WITH query name %q specified more than once", c.Ctename), c.Location)
			}
		}
		if c.Ctequery.GetSelectStmt() == nil {
			return nil, errAt(pgerr.NotSupported("data-modifying statements in WITH"), c.Location)
		}
		if c.SearchClause != nil || c.CycleClause != nil {
			// Their columns are arrays of rows, a type pgfed lacks.
			return nil, errAt(pgerr.NotSupported("SEARCH and CYCLE clauses in WITH"), c.Location)
		}
		frame.ctes = append(frame.ctes, c)
	}
	if w.Recursive {
		sorted, recursive, err := sortRecursiveWith(frame.ctes)
		if err != nil {
			return nil, err
		}
		frame.ctes = sorted
		for i, c := range sorted {
			if recursive[i] {
				if err := checkWellFormedRecursion(c); err != nil {
					return nil, err
				}
			}
		}
		for i := range sorted {
			frame.infos = append(frame.infos, &cteInfo{recursive: recursive[i]})
		}
		return frame, nil
	}
	for range frame.ctes {
		frame.infos = append(frame.infos, &cteInfo{})
	}
	return frame, nil
}

// lookupCTE finds the CTE an unqualified name refers to, innermost WITH
// first, and the index of its frame.
func (pc *planCtx) lookupCTE(rv *pg.RangeVar) (*pg.CommonTableExpr, int) {
	if rv.Schemaname != "" {
		return nil, 0
	}
	for i := len(pc.ctes) - 1; i >= 0; i-- {
		for _, c := range pc.ctes[i].ctes {
			if c.Ctename == rv.Relname {
				return c, i
			}
		}
	}
	return nil, 0
}

// cteInfoOf is the planning state of c in frame fi.
func (pc *planCtx) cteInfoOf(c *pg.CommonTableExpr, fi int) (*cteInfo, int) {
	f := pc.ctes[fi]
	for i, x := range f.ctes {
		if x == c {
			return f.infos[i], i
		}
	}
	return nil, -1
}

// visibleFrom returns the WITH frames the query of CTE i of frame fi
// sees: those outside its own, and its siblings (the earlier ones; all
// of them in WITH RECURSIVE).
func (pc *planCtx) visibleFrom(fi, i int) []*cteFrame {
	own := pc.ctes[fi]
	n := i
	if own.recursive {
		n = len(own.ctes)
	}
	sib := &cteFrame{ctes: own.ctes[:n:n], infos: own.infos[:n:n], recursive: own.recursive}
	return append(append([]*cteFrame(nil), pc.ctes[:fi]...), sib)
}

// enterCTE sets up the planning of CTE i of frame fi's query: the WITH
// frames it sees, and untyped literals resolved (a CTE's columns are
// never unknown, whatever the query around it keeps); the function
// returned restores the state around it.
func (pc *planCtx) enterCTE(fi, i int) func() {
	ctes, keep := pc.ctes, pc.keepUnknown
	pc.ctes, pc.keepUnknown = pc.visibleFrom(fi, i), false
	return func() { pc.ctes, pc.keepUnknown = ctes, keep }
}

// cteSource plans a reference to a CTE: a WorkTable Scan inside its own
// recursive term, a CTE Scan of a CTE computed once, or its query
// inlined as a subquery.
func (pc *planCtx) cteSource(c *pg.CommonTableExpr, frame int, rv *pg.RangeVar) (*source, error) {
	ci, i := pc.cteInfoOf(c, frame)
	alias := c.Ctename
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
	}
	switch {
	case ci != nil && ci.work != nil:
		return workTableSource(c.Ctename, alias, ci.work, rv.Alias)
	case ci != nil && ci.shared != nil:
		return cteScanSource(ci, alias, rv.Alias)
	}
	restore := pc.enterCTE(frame, i)
	r, err := pc.planSelect(c.Ctequery.GetSelectStmt())
	restore()
	if err != nil {
		return nil, err
	}
	child, err := aliasCTEColumns(c, stripJunk(r), false)
	if err != nil {
		return nil, err
	}
	return subquerySource(child, alias, rv.Alias, true)
}

// aliasCTEColumns names the first columns of a CTE's plan by its alias
// list: in a Subquery Scan for an inlined CTE, in the top node itself
// where it projects for one computed once (PostgreSQL's CTE plan has no
// node of its own for the names).
func aliasCTEColumns(c *pg.CommonTableExpr, p nodes.Plan, inPlace bool) (nodes.Plan, error) {
	if len(c.Aliascolnames) == 0 {
		return p, nil
	}
	if len(c.Aliascolnames) > len(p.Base().Out) {
		return nil, errAt(pgerr.New(pgerr.InvalidColumnReference, "WITH query %q has %d columns available but %d columns specified", c.Ctename, len(p.Base().Out), len(c.Aliascolnames)), c.Location)
	}
	out := renamed(p, c.Aliascolnames)
	if cp, ok := copyProjecting(p); ok && inPlace {
		cp.Base().Out = out
		return cp, nil
	}
	return relabelOut(p, out), nil
}

// planSharedCTE plans CTE i of frame fi once, for its CTE Scans.
func (pc *planCtx) planSharedCTE(fi, i int) error {
	c, ci := pc.ctes[fi].ctes[i], pc.ctes[fi].infos[i]
	restore := pc.enterCTE(fi, i)
	var p nodes.Plan
	var err error
	if ci.recursive {
		p, err = pc.planRecursiveCTE(c, ci)
	} else {
		var r *relPlan
		if r, err = pc.planSelect(c.Ctequery.GetSelectStmt()); err == nil {
			p, err = aliasCTEColumns(c, stripJunk(r), true)
		}
	}
	restore()
	if err != nil {
		return err
	}
	// The CTE takes a Param and a plan number after those of its own
	// subqueries, as in PostgreSQL.
	id := pc.params
	pc.params++
	pc.nextPlanNumber()
	estimate(p)
	ci.shared = &nodes.CTE{ID: id, Name: c.Ctename, Plan: p}
	ci.fields = p.Base().Out
	ci.level.plans = append(ci.level.plans, ci.shared)
	return nil
}

// cteScanSource is a reference to a CTE computed once: a CTE Scan of its
// store, which returns every column of it.
func cteScanSource(ci *cteInfo, alias string, colAlias *pg.Alias) (*source, error) {
	fields, err := renameFields(ci.fields, colAlias)
	if err != nil {
		return nil, err
	}
	cte := ci.shared
	return fieldSource(alias, fields, func() nodes.Plan {
		return &nodes.CTEScan{CTE: cte, Alias: alias}
	}), nil
}

// fieldSource is a FROM item whose leaf, made by leaf, returns all of
// fields as its own rows.
func fieldSource(alias string, fields []nodes.Field, leaf func() nodes.Plan) *source {
	return &source{
		scope:  newFieldScope(alias, fields),
		fields: func() []nodes.Field { return fields },
		finish: func(filter nodes.Expr, targets []nodes.Expr, out []nodes.Field) (nodes.Plan, error) {
			p := leaf()
			if out == nil {
				out = fields
			}
			if targets != nil && isIdentity(targets, fields) {
				targets = nil
			}
			b := p.Base()
			b.Filter, b.Targets, b.Out = filter, targets, out
			return p, nil
		},
	}
}
