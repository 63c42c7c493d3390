package planner

// Common table expressions (WITH) that are not recursive. Each reference
// to a CTE is planned as a subquery in FROM, the CTE's query inlined
// where it is named, as PostgreSQL 12+ does for a CTE referenced once
// and not MATERIALIZED. A CTE referenced several times (or MATERIALIZED)
// is planned once per reference instead of once into a shared spool:
// the same rows, since every reference reads the statement's snapshot,
// but computed again each time, and a volatile function in it is
// evaluated per reference. WITH RECURSIVE and data-modifying statements
// in WITH are refused with 0A000.

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/pgerr"
)

// cteFrame is the CTEs one WITH clause defines.
type cteFrame struct {
	ctes []*pg.CommonTableExpr
}

// withCTEs runs plan with the CTEs of w visible.
func (pc *planCtx) withCTEs(w *pg.WithClause, plan func() (*relPlan, error)) (*relPlan, error) {
	if w.Recursive {
		return nil, errAt(pgerr.NotSupported("WITH RECURSIVE"), w.Location)
	}
	frame := &cteFrame{}
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
		frame.ctes = append(frame.ctes, c)
	}
	pc.ctes = append(pc.ctes, frame)
	defer func() { pc.ctes = pc.ctes[:len(pc.ctes)-1] }()
	return plan()
}

// lookupCTE finds the CTE an unqualified name refers to, innermost WITH
// first, and the number of frames visible from its definition.
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

// cteSource plans a reference to a CTE: its query, seeing the WITH
// frames outside its own and its own earlier siblings, as a subquery.
func (pc *planCtx) cteSource(c *pg.CommonTableExpr, frame int, rv *pg.RangeVar) (*source, error) {
	saved := pc.ctes
	own := pc.ctes[frame]
	var siblings []*pg.CommonTableExpr
	for _, s := range own.ctes {
		if s == c {
			break
		}
		siblings = append(siblings, s)
	}
	pc.ctes = append(append([]*cteFrame(nil), saved[:frame]...), &cteFrame{ctes: siblings})
	r, err := pc.planSelect(c.Ctequery.GetSelectStmt())
	pc.ctes = saved
	if err != nil {
		return nil, err
	}
	child := stripJunk(r)
	if len(c.Aliascolnames) > 0 {
		if len(c.Aliascolnames) > len(child.Base().Out) {
			return nil, errAt(pgerr.New(pgerr.InvalidColumnReference, "WITH query %q has %d columns available but %d columns specified", c.Ctename, len(child.Base().Out), len(c.Aliascolnames)), c.Location)
		}
		child = relabelOut(child, renamed(child, c.Aliascolnames))
	}
	alias := c.Ctename
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
	}
	// A MATERIALIZED CTE is computed whole, errors and all, as
	// PostgreSQL's CTE Scan computes it.
	return subquerySource(child, alias, rv.Alias, c.Ctematerialized != pg.CTEMaterialize_CTEMaterializeAlways)
}
