package planner

// Pulling up sublinks, as PostgreSQL's pull_up_sublinks: a WHERE
// conjunct `EXISTS (SELECT ... FROM ... WHERE ...)` becomes a semi join
// of the query's FROM tree with the subquery's FROM items, whose WHERE
// (it may name the outer query's columns) becomes the join's condition;
// `NOT EXISTS` becomes an anti join, and `x IN (SELECT y ...)` (= ANY) a
// semi join on x = y; `x NOT IN (SELECT y ...)` a NULL-aware anti join
// (nodes.HashJoin.NullAware) of the uncorrelated subquery. A subquery that is not simple enough to merge
// (grouping, aggregates, LIMIT, set operations ...) joins as a planned
// subquery when it does not reference the outer query. Everything else
// (correlated NOT IN, scalar subqueries, sublinks under OR) is refused
// with 0A000.

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
)

// pulledSublink is a WHERE conjunct that becomes a semi or anti join.
type pulledSublink struct {
	link *pg.SubLink
	anti bool
}

// splitSublinks separates the WHERE conjuncts that can become joins from
// the rest (nil when none remain); a sublink a join could not take
// (unpulled) stays in the rest, a SubPlan.
func (pc *planCtx) splitSublinks(where *pg.Node) ([]pulledSublink, *pg.Node) {
	if where == nil {
		return nil, nil
	}
	var conj []*pg.Node
	if b := where.GetBoolExpr(); b != nil && b.Boolop == pg.BoolExprType_AND_EXPR {
		conj = b.Args
	} else {
		conj = []*pg.Node{where}
	}
	var pulled []pulledSublink
	var rest []*pg.Node
	for _, c := range conj {
		if sl := pullable(c); sl != nil && !pc.unpullable[sl.link] {
			pulled = append(pulled, *sl)
		} else {
			rest = append(rest, c)
		}
	}
	if len(pulled) == 0 {
		return nil, where
	}
	switch len(rest) {
	case 0:
		return pulled, nil
	case 1:
		return pulled, rest[0]
	}
	return pulled, &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_AND_EXPR, Args: rest, Location: -1}}}
}

func pullable(n *pg.Node) *pulledSublink {
	anti := false
	if b := n.GetBoolExpr(); b != nil && b.Boolop == pg.BoolExprType_NOT_EXPR && len(b.Args) == 1 {
		n, anti = b.Args[0], true
	}
	sl := n.GetSubLink()
	if sl == nil || sl.Subselect.GetSelectStmt() == nil {
		return nil
	}
	switch sl.SubLinkType {
	case pg.SubLinkType_EXISTS_SUBLINK:
		return &pulledSublink{link: sl, anti: anti}
	case pg.SubLinkType_ANY_SUBLINK:
		if len(sl.OperName) > 0 && opName(sl.OperName) != "=" || sl.Testexpr.GetRowExpr() != nil {
			return nil // other operators and row comparisons need a SubPlan
		}
		return &pulledSublink{link: sl, anti: anti}
	}
	return nil
}

// simpleSubquery reports whether a subquery's FROM items can join the
// outer query directly (PostgreSQL's is_simple_subquery, roughly).
func simpleSubquery(s *pg.SelectStmt) bool {
	return s.Op == pg.SetOperation_SETOP_NONE && s.WithClause == nil && len(s.GroupClause) == 0 &&
		s.HavingClause == nil && s.LimitCount == nil && s.LimitOffset == nil && len(s.DistinctClause) == 0 &&
		len(s.WindowClause) == 0 && len(s.FromClause) > 0 && len(s.ValuesLists) == 0 && len(s.LockingClause) == 0 &&
		!targetsHaveAggregates(s.TargetList)
}

// targetsHaveAggregates reports whether a select list calls a function
// with aggregate syntax, or any function (which could be an aggregate):
// such lists make the subquery a planned one.
func targetsHaveAggregates(list []*pg.Node) bool {
	found := false
	var walk func(n *pg.Node)
	walk = func(n *pg.Node) {
		if n == nil || found {
			return
		}
		switch x := n.Node.(type) {
		case *pg.Node_ResTarget:
			walk(x.ResTarget.Val)
		case *pg.Node_FuncCall:
			found = true
		case *pg.Node_AExpr:
			walk(x.AExpr.Lexpr)
			walk(x.AExpr.Rexpr)
		case *pg.Node_TypeCast:
			walk(x.TypeCast.Arg)
		case *pg.Node_SubLink:
			found = true
		}
	}
	for _, n := range list {
		walk(n)
	}
	return found
}

// sublinkJoin adds a pulled sublink to the join tree above root, whose
// names resolve in outerScope.
func (ja *joinAnalysis) sublinkJoin(sl pulledSublink, root *jtNode, outerScope *scope) (*jtNode, error) {
	sub := sl.link.Subselect.GetSelectStmt()
	if sl.link.SubLinkType == pg.SubLinkType_EXISTS_SUBLINK {
		defer simplifyExists(sub)()
	}
	typ := nodes.JoinSemi
	if sl.anti {
		typ = nodes.JoinAnti
	}
	var right *jtNode
	var quals []nodes.Expr
	var target nodes.Expr
	isIn := sl.link.SubLinkType == pg.SubLinkType_ANY_SUBLINK
	// NOT IN is a NULL-aware anti join of the whole subquery, which must
	// not reference the outer query.
	notIn := isIn && sl.anti
	if simpleSubquery(sub) && !notIn {
		var items []*nsItem
		var err error
		if right, items, err = ja.subqueryFrom(sub.FromClause, outerScope); err != nil {
			return nil, err
		}
		lifted, err := liftOuterRefs(ja, right)
		if err != nil {
			return nil, ja.pc.unpulled(sl.link, errAt(err, sl.link.Location))
		}
		quals = append(quals, lifted...)
		sc := &scope{join: ja.js, items: items, parent: outerScope, joinRoot: &right}
		nested, where := ja.pc.splitSublinks(sub.WhereClause)
		for _, n := range nested {
			var err error
			if right, err = ja.sublinkJoin(n, right, sc); err != nil {
				return nil, err
			}
		}
		if where != nil {
			ec := &exprCtx{p: ja.pc, scope: sc, clause: "WHERE"}
			w, err := ec.transform(where)
			if err != nil {
				return nil, err
			}
			if w, err = requireBool(w, "argument of WHERE"); err != nil {
				return nil, err
			}
			quals = flattenAnd(w)
		}
		if isIn {
			if len(sub.TargetList) != 1 {
				return nil, errAt(subqueryColumns(len(sub.TargetList)), sl.link.Location)
			}
			ec := &exprCtx{p: ja.pc, scope: sc, clause: "SELECT"}
			var err error
			if target, err = ec.transform(sub.TargetList[0].GetResTarget().Val); err != nil {
				return nil, err
			}
		}
	} else {
		if !isIn {
			return nil, ja.pc.unpulled(sl.link, errAt(pgerr.NotSupported("EXISTS over a subquery with grouping, LIMIT or set operations"), sl.link.Location))
		}
		t, err := ja.subqueryRel(sub, sl.link.Location)
		if err != nil {
			if pgerr.Code(err) == pgerr.FeatureNotSupported {
				err = ja.pc.unpulled(sl.link, err)
			}
			return nil, err
		}
		right = t
		r := ja.js.rels[t.rel]
		if len(r.src.scope.names) != 1 {
			return nil, errAt(subqueryColumns(len(r.src.scope.names)), sl.link.Location)
		}
		target = ja.js.ref(t.rel, 0)
	}
	if isIn {
		ec := &exprCtx{p: ja.pc, scope: outerScope, clause: "WHERE"}
		test, err := ec.transform(sl.link.Testexpr)
		if err != nil {
			return nil, err
		}
		eq, err := makeOp("=", test, target)
		if err != nil {
			return nil, errAt(err, sl.link.Location)
		}
		quals = append(quals, eq)
	}
	if ja.refs(quals...)&^(root.rels|right.rels) != 0 {
		return nil, ja.pc.unpulled(sl.link, errAt(pgerr.NotSupported("a subquery naming columns of a query two levels out"), sl.link.Location))
	}
	return &jtNode{rel: -1, typ: typ, left: root, right: right, rels: root.rels | right.rels, quals: quals, nullAware: notIn}, nil
}

// subqueryRel plans an uncorrelated subquery as a base relation.
func (ja *joinAnalysis) subqueryRel(sub *pg.SelectStmt, loc int32) (*jtNode, error) {
	r, err := ja.pc.planSelect(sub)
	if err != nil {
		if c := pgerr.Code(err); c == pgerr.UndefinedColumn || c == pgerr.UndefinedTable {
			return nil, errAt(pgerr.NotSupported("correlated subquery with grouping, LIMIT or set operations"), loc)
		}
		return nil, err
	}
	child := stripJunk(r)
	fields := child.Base().Out
	idx := len(ja.js.rels)
	if idx >= maxJoinRels {
		return nil, pgerr.NotSupported("more than 64 relations in one FROM clause")
	}
	src := &source{
		scope:  newFieldScope("ANY_subquery", fields),
		fields: func() []nodes.Field { return fields },
		finish: func(filter nodes.Expr, targets []nodes.Expr, out []nodes.Field) (nodes.Plan, error) {
			if targets != nil && isIdentity(targets, fields) {
				targets = nil
			}
			if filter == nil && targets == nil {
				return child, nil
			}
			ss := &nodes.SubqueryScan{Child: child, Alias: "ANY_subquery"}
			ss.Filter, ss.Targets, ss.Out = filter, targets, out
			if targets == nil {
				ss.Out = fields
			}
			return ss, nil
		},
	}
	ja.js.rels = append(ja.js.rels, &baseRel{alias: "ANY_subquery", src: src})
	return &jtNode{rel: idx, rels: relSet(1) << idx}, nil
}

func subqueryColumns(n int) error {
	if n > 1 {
		return pgerr.New(pgerr.SyntaxError, "subquery has too many columns")
	}
	return pgerr.New(pgerr.SyntaxError, "subquery has too few columns")
}

// liftOuterRefs takes out of a subquery's join tree the join conditions
// that name the outer query (they become the semi join's conditions); it
// can do so only through inner joins, and refuses the others.
func liftOuterRefs(ja *joinAnalysis, n *jtNode) ([]nodes.Expr, error) {
	if n.rel >= 0 {
		return nil, nil
	}
	var lifted, kept []nodes.Expr
	for _, q := range n.quals {
		if ja.refs(q).subsetOf(n.rels) {
			kept = append(kept, q)
		} else if n.typ == nodes.JoinInner {
			lifted = append(lifted, q)
		} else {
			return nil, pgerr.NotSupported("an outer join condition in a subquery naming the outer query")
		}
	}
	n.quals = kept
	for _, c := range []*jtNode{n.left, n.right} {
		more, err := liftOuterRefs(ja, c)
		if err != nil {
			return nil, err
		}
		if len(more) > 0 && n.typ != nodes.JoinInner {
			return nil, pgerr.NotSupported("an outer join condition in a subquery naming the outer query")
		}
		lifted = append(lifted, more...)
	}
	return lifted, nil
}

// subqueryFrom analyses a subquery's FROM items into the query's range
// table, as inner joins; their ON conditions may name outer's columns.
func (ja *joinAnalysis) subqueryFrom(from []*pg.Node, outer *scope) (*jtNode, []*nsItem, error) {
	saved := ja.outer
	ja.outer = outer
	defer func() { ja.outer = saved }()
	var tree *jtNode
	var items []*nsItem
	for _, n := range from {
		t, its, err := ja.fromItem(n)
		if err != nil {
			return nil, nil, err
		}
		if err := checkNameConflicts(items, its); err != nil {
			return nil, nil, err
		}
		items = append(items, its...)
		if tree == nil {
			tree = t
		} else {
			tree = &jtNode{rel: -1, typ: nodes.JoinInner, left: tree, right: t, rels: tree.rels | t.rels}
		}
	}
	return tree, items, nil
}

// unpulled marks a sublink that a join cannot take, so that planning the
// query level again leaves it in the WHERE clause as a SubPlan; it
// returns err, which that retry replaces.
func (pc *planCtx) unpulled(link *pg.SubLink, err error) error {
	if pc.unpullable == nil {
		pc.unpullable = map[*pg.SubLink]bool{}
	}
	pc.unpullable[link] = true
	return err
}

// pullRetry runs plan, which pulls up a WHERE clause's sublinks, again
// each time it fails having marked another sublink unpulled, undoing the
// failed attempt's Params, plan numbers and InitPlans first.
func pullRetry[T any](pc *planCtx, plan func() (T, error)) (T, error) {
	for {
		params, number, inits, marked := pc.params, pc.planNumber, len(pc.initPlans), len(pc.unpullable)
		r, err := plan()
		if err == nil || len(pc.unpullable) == marked {
			return r, err
		}
		pc.params, pc.planNumber, pc.initPlans = params, number, pc.initPlans[:inits]
	}
}

// simplifyExists drops from an EXISTS subquery what cannot change
// whether it returns a row, as PostgreSQL's simplify_EXISTS_query: ORDER
// BY, DISTINCT, and a LIMIT of a positive constant (without OFFSET), so
// that `EXISTS (SELECT 1 ... LIMIT 1)` still becomes a semi join. The
// parse tree is changed in place (its nodes keep their identity, which
// marks of unpulled sublinks rely on) until the returned func restores it.
func simplifyExists(s *pg.SelectStmt) (restore func()) {
	if s.Op != pg.SetOperation_SETOP_NONE || len(s.GroupClause) > 0 || s.HavingClause != nil ||
		len(s.WindowClause) > 0 || s.LimitOffset != nil || targetsHaveAggregates(s.TargetList) {
		return func() {}
	}
	if s.LimitCount != nil {
		c := s.LimitCount.GetAConst()
		if c == nil || c.GetIval() == nil || c.GetIval().Ival <= 0 {
			return func() {}
		}
	}
	limit, option, sort, distinct := s.LimitCount, s.LimitOption, s.SortClause, s.DistinctClause
	s.LimitCount, s.LimitOption, s.SortClause, s.DistinctClause = nil, pg.LimitOption_LIMIT_OPTION_DEFAULT, nil, nil
	return func() { s.LimitCount, s.LimitOption, s.SortClause, s.DistinctClause = limit, option, sort, distinct }
}
