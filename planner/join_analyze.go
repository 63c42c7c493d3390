package planner

// Analysis of a FROM clause with several items or JOINs into base
// relations, a join tree and a namespace (join_scope.go), as
// PostgreSQL's transformFromClause: comma-separated items are inner joins
// without a condition; JOIN ... ON conditions are transformed against the
// two sides; USING and NATURAL add equalities between the named columns
// and merge them into one output column (COALESCE of both for FULL JOIN).

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// relSet is a set of base relations (bit i: relation i).
type relSet uint64

func (s relSet) subsetOf(t relSet) bool { return s&^t == 0 }

// maxJoinRels bounds the base relations of one query (relSet's bits).
const maxJoinRels = 64

// jtNode is a node of the join tree: a base relation (rel >= 0) or a
// join of two subtrees with its ON conditions (query-wide references).
type jtNode struct {
	rel         int
	typ         nodes.JoinType
	left, right *jtNode
	quals       []nodes.Expr
	rels        relSet
	// nullAware marks the anti join of NOT IN (sublink.go).
	nullAware bool
}

type joinAnalysis struct {
	pc *planCtx
	js *joinScope
	// outer is the scope a sublink's FROM items are analysed under (its
	// ON conditions may name the outer query's columns); nil at the top.
	outer *scope
	// root is the query's join tree.
	root *jtNode
	// lateral are the namespace items a LATERAL item being analysed may
	// name: those before it in its FROM list and its JOIN's left side.
	lateral []*nsItem
	// pullUp, set for an item of a FROM list or the right side of a
	// JOIN, lets a simple LATERAL subquery there merge into the join tree
	// if it names only localRels; its WHERE conditions are left in
	// pulledQuals for the join it is part of (lateral.go).
	pullUp      bool
	localRels   relSet
	pulledQuals []nodes.Expr
	// wantOrder is the order the query's ORDER BY wants the top join's
	// rows in (query-wide columns), taken from planCtx.queryOrder.
	wantOrder []nodes.SortKey
}

// planJoinFrom is planFrom for a FROM clause that joins: its source
// resolves names over every item and plans the joins when finished.
func (pc *planCtx) planJoinFrom(from []*pg.Node, sublinks ...pulledSublink) (*source, error) {
	return pc.planJoinWithTarget(nil, from, sublinks)
}

// planJoinWithTarget is planJoinFrom with, for UPDATE and DELETE, their
// target (planned) as relation 0, joined first.
func (pc *planCtx) planJoinWithTarget(target *source, from []*pg.Node, sublinks []pulledSublink) (*source, error) {
	ja := &joinAnalysis{pc: pc, js: &joinScope{}}
	ja.js.ja = ja
	var root *jtNode
	var items []*nsItem
	if target != nil {
		ja.js.rels = append(ja.js.rels, &baseRel{alias: target.scope.alias, src: target, table: target.scope.table})
		root = &jtNode{rel: 0, rels: 1}
		items = append(items, ja.js.relItem(0))
	}
	for _, n := range from {
		ja.lateral, ja.pullUp = items, root != nil
		if root != nil {
			ja.localRels = root.rels
		}
		t, its, err := ja.fromItem(n)
		ja.lateral, ja.pullUp = nil, false
		if err != nil {
			return nil, err
		}
		if err := checkNameConflicts(items, its); err != nil {
			return nil, err
		}
		items = append(items, its...)
		if root == nil {
			root = t
		} else {
			root = &jtNode{rel: -1, typ: nodes.JoinInner, left: root, right: t, rels: root.rels | t.rels, quals: ja.takePulled()}
		}
	}
	sc := &scope{join: ja.js, items: items}
	for _, sl := range sublinks {
		var err error
		if root, err = ja.sublinkJoin(sl, root, sc); err != nil {
			return nil, err
		}
	}
	// Correlated scalar subqueries in WHERE join the tree as they are
	// transformed (decorrelate.go), so it is read when finished.
	ja.root = root
	sc.joinRoot = &ja.root
	src := &source{scope: sc}
	src.fields = ja.usedFields
	src.finish = func(filter nodes.Expr, targets []nodes.Expr, out []nodes.Field) (nodes.Plan, error) {
		return ja.planTop(ja.root, filter, targets, out)
	}
	src.rowsReading = func(filter nodes.Expr, reads []nodes.Expr) (nodes.Plan, []int, error) {
		return ja.planTopReading(ja.root, filter, reads)
	}
	return src, nil
}

// usedFields are the source's own rows: every registered column.
func (ja *joinAnalysis) usedFields() []nodes.Field {
	fs := make([]nodes.Field, len(ja.js.used))
	for g, u := range ja.js.used {
		fs[g] = nodes.Field{Name: ja.js.colName(u.rel, u.col), T: u.base.T}
	}
	return fs
}

// fromItem analyses one FROM item: its join tree and namespace items.
func (ja *joinAnalysis) fromItem(n *pg.Node) (*jtNode, []*nsItem, error) {
	je := n.GetJoinExpr()
	if je == nil {
		return ja.baseItem(n)
	}
	ja.pullUp = false
	lt, litems, err := ja.fromItem(je.Larg)
	if err != nil {
		return nil, nil, err
	}
	saved, savedLocal := ja.lateral, ja.localRels
	ja.lateral = append(append([]*nsItem(nil), saved...), litems...)
	ja.pullUp = je.Jointype == pg.JoinType_JOIN_INNER || je.Jointype == pg.JoinType_JOIN_LEFT
	ja.localRels = lt.rels
	rt, ritems, err := ja.fromItem(je.Rarg)
	ja.lateral, ja.localRels, ja.pullUp = saved, savedLocal, false
	pulled := ja.takePulled()
	if err != nil {
		return nil, nil, err
	}
	if err := checkNameConflicts(litems, ritems); err != nil {
		return nil, nil, err
	}
	node := &jtNode{rel: -1, left: lt, right: rt, rels: lt.rels | rt.rels, quals: pulled}
	switch je.Jointype {
	case pg.JoinType_JOIN_INNER:
		node.typ = nodes.JoinInner
	case pg.JoinType_JOIN_LEFT:
		node.typ = nodes.JoinLeft
	case pg.JoinType_JOIN_RIGHT:
		node.typ = nodes.JoinRight
	case pg.JoinType_JOIN_FULL:
		node.typ = nodes.JoinFull
	default:
		return nil, nil, pgerr.NotSupported("this join type")
	}
	if err := ja.checkLateralJoin(node); err != nil {
		return nil, nil, err
	}
	both := append(append([]*nsItem(nil), litems...), ritems...)
	joinItem := &nsItem{colsVisible: true}
	lcols, rcols := visibleColumns(litems), visibleColumns(ritems)
	using, err := usingNames(je, lcols, rcols)
	if err != nil {
		return nil, nil, err
	}
	lused, rused := map[int]bool{}, map[int]bool{}
	for _, name := range using {
		li, err := usingColumn(lcols, name, "left")
		if err != nil {
			return nil, nil, err
		}
		ri, err := usingColumn(rcols, name, "right")
		if err != nil {
			return nil, nil, err
		}
		lused[li], rused[ri] = true, true
		col, qual, err := mergeUsing(name, lcols[li], rcols[ri], node.typ)
		if err != nil {
			return nil, nil, err
		}
		node.quals = append(node.quals, qual)
		joinItem.cols = append(joinItem.cols, col)
	}
	if je.Quals != nil {
		ec := &exprCtx{p: ja.pc, scope: &scope{join: ja.js, items: both, parent: ja.outer}, clause: "JOIN conditions"}
		on, err := ec.transform(je.Quals)
		if err != nil {
			return nil, nil, err
		}
		if on, err = requireBool(on, "argument of JOIN/ON"); err != nil {
			return nil, nil, err
		}
		for _, q := range flattenAnd(on) {
			if c, ok := q.(*nodes.Const); !ok || c.Value != true {
				node.quals = append(node.quals, q) // ON true adds nothing
			}
		}
	}
	for i, c := range lcols {
		if !lused[i] {
			joinItem.cols = append(joinItem.cols, c)
		}
	}
	for i, c := range rcols {
		if !rused[i] {
			joinItem.cols = append(joinItem.cols, c)
		}
	}
	for _, it := range both {
		it.colsVisible = false
	}
	if je.Alias != nil {
		// An aliased join hides the names of what it joins.
		for _, it := range both {
			it.relVisible = false
		}
		joinItem.alias, joinItem.relVisible = je.Alias.Aliasname, true
		for i, c := range je.Alias.Colnames {
			if i >= len(joinItem.cols) {
				return nil, nil, pgerr.New(pgerr.InvalidColumnReference, "column alias list for %q has too many entries", je.Alias.Aliasname)
			}
			joinItem.cols[i].name = c.GetString_().Sval
		}
	}
	return node, append(both, joinItem), nil
}

// baseItem plans a FROM item that is not a join as a base relation.
func (ja *joinAnalysis) baseItem(n *pg.Node) (*jtNode, []*nsItem, error) {
	pullUp := ja.pullUp
	ja.pullUp = false
	if pullUp {
		if t, items, ok, err := ja.pullUpLateral(n); ok || err != nil {
			return t, items, err
		}
	}
	src, frame, err := ja.lateralBase(n)
	if err != nil {
		return nil, nil, err
	}
	idx := len(ja.js.rels)
	if idx >= maxJoinRels {
		return nil, nil, pgerr.NotSupported("more than 64 relations in one FROM clause")
	}
	ja.js.rels = append(ja.js.rels, &baseRel{alias: src.scope.alias, src: src, table: src.scope.table, lateral: frame})
	return &jtNode{rel: idx, rels: relSet(1) << idx}, []*nsItem{ja.js.relItem(idx)}, nil
}

// checkNameConflicts refuses a relation name given twice at one level
// (checkNameSpaceConflicts).
func checkNameConflicts(a, b []*nsItem) error {
	for _, x := range a {
		for _, y := range b {
			if x.relVisible && y.relVisible && x.alias == y.alias && x.alias != "" &&
				(x.table == nil || y.table == nil || x.table == y.table || x.alias != x.table.Name || y.alias != y.table.Name) {
				return pgerr.New(pgerr.DuplicateAlias, "table name %q specified more than once", x.alias)
			}
		}
	}
	return nil
}

// visibleColumns are the columns items expose unqualified, in order.
func visibleColumns(items []*nsItem) []nsColumn {
	var out []nsColumn
	for _, it := range items {
		if it.colsVisible {
			out = append(out, it.cols...)
		}
	}
	return out
}

// usingNames lists the USING columns, or for NATURAL the common ones.
func usingNames(je *pg.JoinExpr, lcols, rcols []nsColumn) ([]string, error) {
	var names []string
	if je.IsNatural {
		for _, l := range lcols {
			for _, r := range rcols {
				if l.name == r.name && !containsString(names, l.name) {
					names = append(names, l.name)
				}
			}
		}
		return names, nil
	}
	for _, u := range je.UsingClause {
		name := u.GetString_().Sval
		if containsString(names, name) {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column name %q appears more than once in USING clause", name)
		}
		names = append(names, name)
	}
	return names, nil
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// usingColumn finds a USING column on one side.
func usingColumn(cols []nsColumn, name, side string) (int, error) {
	found := -1
	for i, c := range cols {
		if c.name == name {
			if found >= 0 {
				return 0, pgerr.New(pgerr.AmbiguousColumn, "common column name %q appears more than once in %s table", name, side)
			}
			found = i
		}
	}
	if found < 0 {
		return 0, pgerr.New(pgerr.UndefinedColumn, "column %q specified in USING clause does not exist in %s table", name, side)
	}
	return found, nil
}

// mergeUsing makes the equality of a USING column and its merged output
// column: the left side's value (the right's for RIGHT JOIN, COALESCE of
// both for FULL JOIN), in the two sides' common type.
func mergeUsing(name string, l, r nsColumn, typ nodes.JoinType) (nsColumn, nodes.Expr, error) {
	t, err := commonType([]types.T{l.t, r.t}, "JOIN/USING")
	if err != nil {
		return nsColumn{}, nil, err
	}
	side := func(c nsColumn) nodes.Expr {
		e, _ := coerce(c.get(), t, types.CastImplicit)
		return e
	}
	qual, err := makeOp("=", side(l), side(r))
	if err != nil {
		return nsColumn{}, nil, err
	}
	get := func() nodes.Expr {
		switch typ {
		case nodes.JoinRight:
			return side(r)
		case nodes.JoinFull:
			return &nodes.CoalesceExpr{Args: []nodes.Expr{side(l), side(r)}, T: t}
		}
		return side(l)
	}
	return nsColumn{name: name, t: t, get: get}, qual, nil
}

// flattenAnd splits nested ANDs into their conjuncts, first taking the
// conjuncts every arm of an OR shares out of it (prepqual.c's
// find_duplicate_ors): (a = b AND x) OR (a = b AND y) is a = b AND (x OR
// y), a join condition instead of a filter over a cross product (TPC-H
// Q19).
func flattenAnd(e nodes.Expr) []nodes.Expr {
	e = factorOr(e)
	b, ok := e.(*nodes.BoolExpr)
	if !ok || b.Op != nodes.And {
		return []nodes.Expr{e}
	}
	var out []nodes.Expr
	for _, a := range b.Args {
		out = append(out, flattenAnd(a)...)
	}
	return out
}

// factorOr rewrites an OR whose arms all have a conjunct in common as that
// conjunct AND the OR of what is left of each arm.
func factorOr(e nodes.Expr) nodes.Expr {
	or, ok := e.(*nodes.BoolExpr)
	if !ok || or.Op != nodes.Or || len(or.Args) < 2 {
		return e
	}
	arms := make([][]nodes.Expr, len(or.Args))
	for i, a := range or.Args {
		arms[i] = flattenAnd(a)
	}
	var common []nodes.Expr
	for _, c := range arms[0] {
		shared := true
		for _, arm := range arms[1:] {
			if !containsExpr(arm, c) {
				shared = false
				break
			}
		}
		if shared && !containsExpr(common, c) {
			common = append(common, c)
		}
	}
	if len(common) == 0 {
		return e
	}
	rest := make([]nodes.Expr, 0, len(arms))
	for _, arm := range arms {
		var left []nodes.Expr
		for _, c := range arm {
			if !containsExpr(common, c) {
				left = append(left, c)
			}
		}
		if len(left) == 0 {
			// An arm that is only the common part makes the OR true.
			return andOf(common)
		}
		rest = append(rest, andOf(left))
	}
	return andOf(append(common, &nodes.BoolExpr{Op: nodes.Or, Args: rest}))
}

func containsExpr(es []nodes.Expr, e nodes.Expr) bool {
	for _, x := range es {
		if nodes.Equal(x, e) {
			return true
		}
	}
	return false
}
