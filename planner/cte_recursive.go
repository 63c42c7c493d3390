package planner

// WITH RECURSIVE, as parse_cte.c analyses it and the planner plans it:
// the items are put in an order without forward references (mutual
// recursion is 0A000), a self-referencing item must be
// "non-recursive-term UNION [ALL] recursive-term" with exactly one
// reference to itself in the recursive term, outside subqueries, the
// nullable side of outer joins, INTERSECT ALL and EXCEPT (42P19), no
// ORDER BY, LIMIT, OFFSET or FOR UPDATE on the union (0A000) and no
// aggregates in the recursive term (42P19). Its columns take their types
// from the non-recursive term; a recursive term whose UNION with it
// would change a type is 42804.
//
// The plan is a Recursive Union of the two terms; the recursive term's
// reference is a WorkTable Scan of the rows of the previous iteration
// (estimated, as PostgreSQL does, at ten times the non-recursive term's
// rows, and the union at the non-recursive rows plus ten iterations).

import (
	"math"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/funcs"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
	"google.golang.org/protobuf/proto"
)

// invalidRecursion is SQLSTATE 42P19.
const invalidRecursion = "42P19"

// workTable is the work table of a recursive CTE being planned.
type workTable struct {
	id     int
	fields []nodes.Field
	rows   float64 // estimated rows of one iteration
}

// sortRecursiveWith orders the items of a WITH RECURSIVE so that each
// comes after those it references (TopologicalSort) and reports which
// reference themselves.
func sortRecursiveWith(ctes []*pg.CommonTableExpr) ([]*pg.CommonTableExpr, []bool, error) {
	n := len(ctes)
	deps := make([]map[int]bool, n)
	self := make([]bool, n)
	for i, c := range ctes {
		deps[i] = map[int]bool{}
		walkCTERefs(c.Ctequery, nil, func(rv *pg.RangeVar) {
			for j, d := range ctes {
				if d.Ctename == rv.Relname {
					if j == i {
						self[i] = true
					} else {
						deps[i][j] = true
					}
				}
			}
		})
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	for i := 0; i < n; i++ {
		j := i
		for j < n && len(deps[order[j]]) > 0 {
			j++
		}
		if j == n {
			return nil, nil, errAt(pgerr.New(pgerr.FeatureNotSupported, "mutual recursion between WITH items is not implemented"), ctes[order[i]].Location)
		}
		order[i], order[j] = order[j], order[i]
		for k := i + 1; k < n; k++ {
			delete(deps[order[k]], order[i])
		}
	}
	sorted := make([]*pg.CommonTableExpr, n)
	recursive := make([]bool, n)
	for i, o := range order {
		sorted[i], recursive[i] = ctes[o], self[o]
	}
	return sorted, recursive, nil
}

// recursionContext is where a self-reference is being looked for.
type recursionContext int

const (
	recursionOK recursionContext = iota
	recursionNonRecursiveTerm
	recursionSublink
	recursionOuterJoin
	recursionIntersect
	recursionExcept
)

var recursionErrors = [...]string{
	recursionNonRecursiveTerm: "recursive reference to query %q must not appear within its non-recursive term",
	recursionSublink:          "recursive reference to query %q must not appear within a subquery",
	recursionOuterJoin:        "recursive reference to query %q must not appear within an outer join",
	recursionIntersect:        "recursive reference to query %q must not appear within INTERSECT",
	recursionExcept:           "recursive reference to query %q must not appear within EXCEPT",
}

// recursionCheck is checkWellFormedRecursionWalker's state.
type recursionCheck struct {
	name     string
	context  recursionContext
	selfRefs int
	err      error
}

// checkWellFormedRecursion checks a self-referencing CTE's form.
func checkWellFormedRecursion(c *pg.CommonTableExpr) error {
	s := c.Ctequery.GetSelectStmt()
	if s.Op != pg.SetOperation_SETOP_UNION {
		return errAt(pgerr.New(invalidRecursion, "recursive query %q does not have the form non-recursive-term UNION [ALL] recursive-term", c.Ctename), c.Location)
	}
	rc := &recursionCheck{name: c.Ctename, context: recursionNonRecursiveTerm}
	rc.walk(s.Larg, nil)
	if rc.err != nil {
		return rc.err
	}
	rc.context = recursionOK
	rc.walk(s.Rarg, nil)
	if rc.err != nil {
		return rc.err
	}
	switch {
	case len(s.SortClause) > 0:
		return errAt(pgerr.New(pgerr.FeatureNotSupported, "ORDER BY in a recursive query is not implemented"), nodeLocation(s.SortClause[0]))
	case s.LimitOffset != nil:
		return errAt(pgerr.New(pgerr.FeatureNotSupported, "OFFSET in a recursive query is not implemented"), nodeLocation(s.LimitOffset))
	case s.LimitCount != nil:
		return errAt(pgerr.New(pgerr.FeatureNotSupported, "LIMIT in a recursive query is not implemented"), nodeLocation(s.LimitCount))
	case len(s.LockingClause) > 0:
		return pgerr.New(pgerr.FeatureNotSupported, "FOR UPDATE/SHARE in a recursive query is not implemented")
	}
	return aggregateInRecursiveTerm(s.Rarg)
}

// nodeLocation is the parse location of a few node kinds (-1 if unknown).
func nodeLocation(n *pg.Node) int32 {
	switch x := n.Node.(type) {
	case *pg.Node_SortBy:
		if x.SortBy.Node != nil {
			return nodeLocation(x.SortBy.Node)
		}
		return x.SortBy.Location
	case *pg.Node_AConst:
		return x.AConst.Location
	case *pg.Node_ColumnRef:
		return x.ColumnRef.Location
	}
	return -1
}

func (rc *recursionCheck) fail(rv *pg.RangeVar, format string) {
	if rc.err == nil {
		rc.err = errAt(pgerr.New(invalidRecursion, format, rc.name), rv.Location)
	}
}

// walk looks for self-references in m; shadowed are the names inner
// WITHs capture.
func (rc *recursionCheck) walk(m proto.Message, shadowed []string) {
	if rc.err != nil {
		return
	}
	save := rc.context
	switch x := unwrapNode(m).(type) {
	case nil:
	case *pg.RangeVar:
		if x.Schemaname != "" || containsName(shadowed, x.Relname) || x.Relname != rc.name {
			return
		}
		if rc.context != recursionOK {
			rc.fail(x, recursionErrors[rc.context])
		}
		if rc.selfRefs++; rc.selfRefs > 1 {
			rc.fail(x, "recursive reference to query %q must not appear more than once")
		}
	case *pg.WithClause:
	case *pg.SelectStmt:
		sh := shadowed
		if x.WithClause != nil {
			sh = withShadow(x.WithClause, shadowed, func(q *pg.Node, sh []string) { rc.walk(q, sh) })
		}
		rc.selectStmt(x, sh)
	case *pg.JoinExpr:
		rc.joinExpr(x, shadowed)
	case *pg.SubLink:
		// A subquery is independent of the outer context.
		rc.context = recursionSublink
		rc.walk(x.Subselect, shadowed)
		rc.context = save
		rc.walk(x.Testexpr, shadowed)
	default:
		eachChild(x, func(c proto.Message) { rc.walk(c, shadowed) })
	}
}

func (rc *recursionCheck) joinExpr(j *pg.JoinExpr, sh []string) {
	save := rc.context
	nullable := func() {
		if save == recursionOK {
			rc.context = recursionOuterJoin
		}
	}
	switch j.Jointype {
	case pg.JoinType_JOIN_LEFT:
		rc.walk(j.Larg, sh)
		nullable()
		rc.walk(j.Rarg, sh)
	case pg.JoinType_JOIN_FULL:
		nullable()
		rc.walk(j.Larg, sh)
		rc.walk(j.Rarg, sh)
	case pg.JoinType_JOIN_RIGHT:
		nullable()
		rc.walk(j.Larg, sh)
		rc.context = save
		rc.walk(j.Rarg, sh)
	default:
		rc.walk(j.Larg, sh)
		rc.walk(j.Rarg, sh)
	}
	rc.context = save
	rc.walk(j.Quals, sh)
}

// selectStmt is checkWellFormedSelectStmt: s without its WITH clause.
func (rc *recursionCheck) selectStmt(s *pg.SelectStmt, sh []string) {
	save := rc.context
	all := func() { eachChild(s, func(c proto.Message) { rc.walk(c, sh) }) }
	if save != recursionOK {
		all()
		return
	}
	switch s.Op {
	case pg.SetOperation_SETOP_INTERSECT, pg.SetOperation_SETOP_EXCEPT:
		except := s.Op == pg.SetOperation_SETOP_EXCEPT
		if s.All {
			rc.context = map[bool]recursionContext{false: recursionIntersect, true: recursionExcept}[except]
		}
		rc.walk(s.Larg, sh)
		if except {
			rc.context = recursionExcept
		}
		rc.walk(s.Rarg, sh)
		rc.context = save
		for _, n := range s.SortClause {
			rc.walk(n, sh)
		}
		rc.walk(s.LimitOffset, sh)
		rc.walk(s.LimitCount, sh)
	default:
		all()
	}
}

// aggregateInRecursiveTerm refuses an aggregate call in the recursive
// term's own query level (not in its subqueries).
func aggregateInRecursiveTerm(s *pg.SelectStmt) error {
	if s.Op != pg.SetOperation_SETOP_NONE {
		if err := aggregateInRecursiveTerm(s.Larg); err != nil {
			return err
		}
		return aggregateInRecursiveTerm(s.Rarg)
	}
	var err error
	var walk func(m proto.Message)
	walk = func(m proto.Message) {
		switch x := unwrapNode(m).(type) {
		case nil, *pg.SubLink, *pg.SelectStmt, *pg.RangeSubselect:
			return
		case *pg.FuncCall:
			if x.Over == nil && funcs.Aggregate(strings.ToLower(opName(x.Funcname))) != nil && err == nil {
				err = errAt(pgerr.New(invalidRecursion, "aggregate functions are not allowed in a recursive query's recursive term"), x.Location)
			}
		}
		eachChild(unwrapNode(m), walk)
	}
	for _, n := range s.TargetList {
		walk(n)
	}
	walk(s.HavingClause)
	return err
}

// planRecursiveCTE plans a self-referencing CTE as a Recursive Union.
func (pc *planCtx) planRecursiveCTE(c *pg.CommonTableExpr, ci *cteInfo) (nodes.Plan, error) {
	s := c.Ctequery.GetSelectStmt()
	// The work table's Param comes first, as root->wt_param_id.
	wt := &workTable{id: pc.params}
	pc.params++
	l, err := pc.planSelect(s.Larg)
	if err != nil {
		return nil, err
	}
	nonRec, err := aliasCTEColumns(c, stripJunk(l), true)
	if err != nil {
		return nil, err
	}
	// An untyped literal in the non-recursive term is text.
	fields := append([]nodes.Field(nil), nonRec.Base().Out...)
	for i := range fields {
		if fields[i].T.ID == types.Unknown {
			fields[i].T = types.TextT
		}
	}
	if nonRec, err = projectTo(nonRec, fields, nil, ""); err != nil {
		return nil, err
	}
	estimate(nonRec)
	wt.fields = fields
	wt.rows = 10 * nonRec.Base().Rows
	ci.work = wt
	r, err := pc.planSelect(s.Rarg)
	ci.work = nil
	if err != nil {
		return nil, err
	}
	rec := stripJunk(r)
	if rec, err = pc.recursiveTermTo(c, rec, nonRec, fields); err != nil {
		return nil, err
	}
	ru := &nodes.RecursiveUnion{NonRecursive: nonRec, Recursive: rec, WorkTable: wt.id, Distinct: !s.All}
	ru.Out = fields
	return ru, nil
}

// recursiveTermTo casts the recursive term's columns to the CTE's types,
// which the UNION with it must not change (42804).
func (pc *planCtx) recursiveTermTo(c *pg.CommonTableExpr, rec, nonRec nodes.Plan, fields []nodes.Field) (nodes.Plan, error) {
	out, err := setOpColumns("UNION", nonRec, rec)
	if err != nil {
		return nil, err
	}
	for i, f := range out {
		if f.T != fields[i].T {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "recursive query %q column %d has type %s in non-recursive term but type %s overall", c.Ctename, i+1, fields[i].T, f.T).
				WithHint("Cast the output of the non-recursive term to the correct type.")
		}
	}
	return projectTo(rec, fields, nil, "")
}

// workTableSource is the recursive term's reference to its CTE.
func workTableSource(name, alias string, wt *workTable, colAlias *pg.Alias) (*source, error) {
	fields, err := renameFields(wt.fields, colAlias)
	if err != nil {
		return nil, err
	}
	return fieldSource(alias, fields, func() nodes.Plan {
		return &nodes.WorkTableScan{WorkTable: wt.id, Name: name, Alias: alias, TableRows: wt.rows}
	}), nil
}

// estimateCTENode estimates the nodes of cte.go: a CTE Scan (two
// cpu_tuple_costs a row, as cost_ctescan), a WorkTable Scan, a
// Recursive Union.
func estimateCTENode(p nodes.Plan) (rows, startup, total float64) {
	switch n := p.(type) {
	case *nodes.CTEScan:
		rows = n.CTE.Plan.Base().Rows
		total = rows * 2 * cpuTupleCost
	case *nodes.WorkTableScan:
		rows = math.Max(n.TableRows, 1)
		total = rows * 2 * cpuTupleCost
	case *nodes.RecursiveUnion:
		nb, rb := n.NonRecursive.Base(), n.Recursive.Base()
		rows = nb.Rows + 10*rb.Rows
		startup = nb.StartupCost
		total = nb.TotalCost + 10*rb.TotalCost + cpuTupleCost*rows
		if n.Distinct {
			total += cpuOperatorCost * float64(len(n.Out)) * rows
		}
	}
	return rows, startup, total
}
