package planner

import (
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/guc"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// Planner plans statements for one session.
type Planner struct {
	Catalog *storage.Catalog
	// Settings are the session's settings (nil: every default).
	Settings *guc.Settings
	// User is the session's user, whose user mapping foreign scans use.
	User string
	// TempSchema is the session's temporary schema (pg_temp_N), "" until
	// it creates its first temporary table.
	TempSchema string
}

// defaults stands in for a planner without settings.
var defaults = guc.New()

// settings returns the settings to plan with.
func (p *Planner) settings() *guc.Settings {
	if p.Settings == nil {
		return defaults
	}
	return p.Settings
}

// Query is a planned statement.
type Query struct {
	Plan nodes.Plan
	// Columns are the visible result columns (a prefix of the plan's
	// output; the rest are sort-only columns the caller drops).
	Columns  []nodes.Field
	NumNodes int
	// Tag is the command tag's verb: SELECT, INSERT, UPDATE, DELETE.
	Tag string
	// Returns is false for INSERT/UPDATE/DELETE without RETURNING.
	Returns bool
}

type planCtx struct {
	*Planner
	// keepUnknown leaves untyped literals in a select list unresolved, for
	// UNION branches whose column types the union decides.
	keepUnknown bool
	// ctes are the WITH clauses in scope, outermost first (cte.go).
	ctes []*cteFrame
	// windowClause is the WINDOW clause of the query level being planned,
	// and windows its window calls (for ORDER BY's transformations).
	windowClause []*pg.Node
	windows      *[]*windowCall
	// initPlans are the InitPlans of the query level being planned;
	// params counts the statement's Params and InitPlans (initplan.go).
	// outer are the scopes of the queries enclosing a subquery in an
	// expression, to tell a correlated one from a misspelt name.
	initPlans  []*nodes.InitPlan
	params     int
	planNumber int
	outer      []outerLevel
	// unpullable are the WHERE sublinks no join could take (sublink.go).
	unpullable map[*pg.SubLink]bool
	// queryOrder is the ORDER BY of the query level whose join tree is
	// being planned, over its join scope's columns (pathkeys.go).
	queryOrder []nodes.SortKey
}

func fmtInt(i int) string { return strconv.Itoa(i) }

// Plan plans a SELECT, VALUES, INSERT, UPDATE or DELETE statement.
func (p *Planner) Plan(stmt *pg.Node) (*Query, error) {
	pc := &planCtx{Planner: p}
	var q *Query
	switch x := stmt.Node.(type) {
	case *pg.Node_SelectStmt:
		r, err := pc.planSelect(x.SelectStmt)
		if err != nil {
			return nil, err
		}
		q = &Query{Plan: r.plan, Columns: r.out()[:r.visible], Tag: "SELECT", Returns: true}
	case *pg.Node_InsertStmt:
		r, err := pc.planInsert(x.InsertStmt)
		if err != nil {
			return nil, err
		}
		q = r
	case *pg.Node_UpdateStmt:
		r, err := pc.planUpdate(x.UpdateStmt)
		if err != nil {
			return nil, err
		}
		q = r
	case *pg.Node_DeleteStmt:
		r, err := pc.planDelete(x.DeleteStmt)
		if err != nil {
			return nil, err
		}
		q = r
	default:
		return nil, pgerr.Internal("planner: not a query")
	}
	if len(pc.initPlans) > 0 {
		// A statement's own InitPlans (INSERT's VALUES, UPDATE's SET and
		// WHERE) run before its top node.
		q.Plan.Base().InitPlans = append(q.Plan.Base().InitPlans, pc.initPlans...)
		pc.initPlans = nil
	}
	attachSubPlans(q.Plan)
	pc.markAsync(q.Plan)
	estimate(q.Plan)
	uniqueCTEAliases(q.Plan)
	if q.Tag == "SELECT" {
		q.Plan = pc.parallelize(q.Plan)
		attachSubPlans(q.Plan)
	}
	pc.addRuntimeFilters(q.Plan)
	q.NumNodes = nodes.Number(q.Plan)
	return q, nil
}

// ResolveTable finds the table a RangeVar names, using the search path.
func (p *Planner) ResolveTable(rv *pg.RangeVar) (*storage.Table, error) {
	return (&planCtx{Planner: p}).resolveTable(rv)
}

func (pc *planCtx) resolveTable(rv *pg.RangeVar) (*storage.Table, error) {
	var t *storage.Table
	if rv.Schemaname != "" {
		t = pc.Catalog.Lookup(pc.schemaAlias(rv.Schemaname), rv.Relname)
	} else {
		t = pc.Catalog.Resolve(pc.RelationSearchPath(), rv.Relname)
	}
	if t != nil && storage.IsTempSchema(t.Schema) && t.Schema != pc.TempSchema {
		return nil, errAt(pgerr.New(pgerr.FeatureNotSupported, "cannot access temporary tables of other sessions"), rv.Location)
	}
	if t == nil {
		name := rv.Relname
		if rv.Schemaname != "" {
			name = rv.Schemaname + "." + name
		}
		return nil, errAt(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name), rv.Location)
	}
	return t, nil
}

// RelationSearchPath is the schemas unqualified relation names resolve
// in, as PostgreSQL's namespace.c recomputes them: search_path with
// pg_temp standing for the session's temporary schema, which is searched
// first when search_path does not name it (temporary tables shadow
// permanent ones of the same name).
func (p *Planner) RelationSearchPath() []string {
	path := p.settings().SearchPath()
	out := make([]string, 0, len(path)+1)
	explicit := false
	for _, s := range path {
		if s == "pg_temp" {
			explicit = true
			if p.TempSchema == "" {
				continue
			}
			s = p.TempSchema
		}
		out = append(out, s)
	}
	if !explicit && p.TempSchema != "" {
		out = append([]string{p.TempSchema}, out...)
	}
	return out
}

// schemaAlias resolves a schema qualifier: pg_temp is the session's
// temporary schema (one that does not exist yet finds no table).
func (p *Planner) schemaAlias(schema string) string {
	if schema == "pg_temp" {
		if p.TempSchema == "" {
			return "" // no schema has the empty name
		}
		return p.TempSchema
	}
	return schema
}

// Expr transforms a parse-tree expression without input columns (a
// DEFAULT, a partition bound, a SET value) and coerces it to t by
// assignment (t.ID == Unknown: leave its type).
func (p *Planner) Expr(n *pg.Node, t types.T, clause string) (nodes.Expr, error) {
	ec := &exprCtx{p: &planCtx{Planner: p}, clause: clause, noFold: true} // stored as written
	e, err := ec.transform(n)
	if err != nil {
		return nil, err
	}
	if t.ID == types.Unknown {
		return e, nil
	}
	return coerce(e, t, types.CastAssignment)
}

// figureColname names an output column as PostgreSQL's FigureColname.
func figureColname(n *pg.Node) string {
	name, _ := figureColnameStrength(n)
	if name == "" {
		return "?column?"
	}
	return name
}

func figureColnameStrength(n *pg.Node) (string, int) {
	switch x := n.Node.(type) {
	case *pg.Node_ColumnRef:
		f := x.ColumnRef.Fields[len(x.ColumnRef.Fields)-1]
		if s := f.GetString_(); s != nil {
			return s.Sval, 2
		}
	case *pg.Node_FuncCall:
		return opName(x.FuncCall.Funcname), 2
	case *pg.Node_TypeCast:
		if name, st := figureColnameStrength(x.TypeCast.Arg); st >= 2 {
			return name, st
		}
		names := x.TypeCast.TypeName.Names
		return names[len(names)-1].GetString_().Sval, 1
	case *pg.Node_CaseExpr:
		if x.CaseExpr.Defresult != nil {
			if name, st := figureColnameStrength(x.CaseExpr.Defresult); st >= 2 {
				return name, st
			}
		}
		return "case", 1
	case *pg.Node_CoalesceExpr:
		return "coalesce", 2
	case *pg.Node_GroupingFunc:
		return "grouping", 2
	case *pg.Node_MinMaxExpr:
		if x.MinMaxExpr.Op == pg.MinMaxOp_IS_GREATEST {
			return "greatest", 2
		}
		return "least", 2
	case *pg.Node_AExpr:
		if x.AExpr.Kind == pg.A_Expr_Kind_AEXPR_NULLIF {
			return "nullif", 2
		}
	case *pg.Node_SubLink:
		switch x.SubLink.SubLinkType {
		case pg.SubLinkType_EXISTS_SUBLINK:
			return "exists", 2
		case pg.SubLinkType_ARRAY_SUBLINK:
			return "array", 2
		case pg.SubLinkType_EXPR_SUBLINK:
			// The subquery's own column name, as FigureColnameInternal.
			if sub := x.SubLink.Subselect.GetSelectStmt(); sub != nil && len(sub.TargetList) == 1 {
				rt := sub.TargetList[0].GetResTarget()
				if rt.Name != "" {
					return rt.Name, 2
				}
				return figureColnameStrength(rt.Val)
			}
		}
	case *pg.Node_SqlvalueFunction:
		switch x.SqlvalueFunction.Op {
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
			return "current_timestamp", 2
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
			return "current_date", 2
		}
	}
	return "", 0
}

// walkAll visits e and its sub-expressions, including aggregate
// placeholders.
func walkAll(e nodes.Expr, fn func(nodes.Expr)) { nodes.WalkExpr(e, fn) }

// mapColumns is e with every ColumnRef's position i made to(i).
func mapColumns(e nodes.Expr, to func(int) int) nodes.Expr {
	return nodes.MapColumns(e, func(c *nodes.ColumnRef) nodes.Expr {
		cc := *c
		cc.Index = to(c.Index)
		return &cc
	})
}

// mapChildren is nodes.MapChildren.
func mapChildren(e nodes.Expr, f func(nodes.Expr) (nodes.Expr, error)) (nodes.Expr, error) {
	return nodes.MapChildren(e, f)
}
