package planner

// LATERAL: a subquery in FROM marked LATERAL, or a function in FROM
// (always lateral, as in PostgreSQL), may name the columns of the FROM
// items before it (in a comma list, and the left side of a JOIN it is
// the right side of). It is planned as a subquery whose references to
// those items are Params (the lateral frame), and joined as the inner
// side of a parameterized Nested Loop: for each outer row the loop sets
// the Params from the row (nodes.NestedLoop.Params) and runs the inner
// side again, as PostgreSQL's nestloop with nestParams.
//
// Join order: a join splits its items into two sides, and the side
// holding a lateral item must be the inner one when its references are
// on the other side; a split with references both ways is never made
// (join_order.go). A LATERAL reference across a RIGHT or FULL join is
// PostgreSQL's 42P10.

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
)

// lateralCapable reports whether a FROM item may name earlier items.
func lateralCapable(n *pg.Node) bool {
	if s := n.GetRangeSubselect(); s != nil {
		return s.Lateral
	}
	return n.GetRangeFunction() != nil
}

// lateralBase plans FROM item n with the items visible to it laterally
// (ja.lateral) reachable as Params, and returns the frame holding them
// (nil when it names none of them).
func (ja *joinAnalysis) lateralBase(n *pg.Node) (*source, *corrFrame, error) {
	if !lateralCapable(n) || len(ja.lateral) == 0 {
		src, err := ja.pc.planFrom([]*pg.Node{n})
		return src, nil, err
	}
	pc := ja.pc
	frame := &corrFrame{lateral: true}
	sc := &scope{join: ja.js, items: ja.lateral, parent: ja.outer}
	pc.outer = append(pc.outer, outerLevel{scope: sc, frame: frame})
	src, err := pc.planFrom([]*pg.Node{n})
	pc.outer = pc.outer[:len(pc.outer)-1]
	if err != nil || len(frame.params) == 0 {
		return src, nil, err
	}
	return src, frame, nil
}

// lateralDeps are the relations lateral relation r names (0: none).
func (ja *joinAnalysis) lateralDeps(rel int) relSet {
	if f := ja.js.rels[rel].lateral; f != nil {
		return ja.refs(f.args...)
	}
	return 0
}

// lateralNeeds reports whether a lateral relation of rels names one of
// from.
func (ja *joinAnalysis) lateralNeeds(rels, from relSet) bool {
	for r := range ja.js.rels {
		if rels&(relSet(1)<<r) != 0 && ja.lateralDeps(r)&from != 0 {
			return true
		}
	}
	return false
}

// lateralArgs are the outer columns every lateral relation reads, which
// the sides that have them must output.
func (ja *joinAnalysis) lateralArgs() []nodes.Expr {
	var out []nodes.Expr
	for _, r := range ja.js.rels {
		if r.lateral != nil {
			out = append(out, r.lateral.args...)
		}
	}
	return out
}

// checkLateralJoin refuses a lateral reference from one side of a RIGHT
// or FULL join to the other, as PostgreSQL does.
func (ja *joinAnalysis) checkLateralJoin(n *jtNode) error {
	if n.typ != nodes.JoinRight && n.typ != nodes.JoinFull {
		return nil
	}
	if ja.lateralNeeds(n.right.rels, n.left.rels) || ja.lateralNeeds(n.left.rels, n.right.rels) {
		return pgerr.New(pgerr.InvalidColumnReference, "invalid reference to FROM-clause entry").
			WithDetail("The combining JOIN type must be INNER or LEFT for a LATERAL reference.")
	}
	return nil
}

// paramJoin is the parameterized Nested Loop of outer with inner, whose
// lateral relations name outer's columns: the loop sets those Params
// from each outer row before it runs inner again.
func (ja *joinAnalysis) paramJoin(typ nodes.JoinType, outer, inner *planned, quals, filters, want []nodes.Expr, out []nodes.Field) (*planned, error) {
	if typ != nodes.JoinInner && typ != nodes.JoinLeft {
		return nil, pgerr.NotSupported("a LATERAL reference into a semi or anti join")
	}
	nl := &nodes.NestedLoop{Type: typ, Outer: outer.plan, Inner: inner.plan}
	for r, rel := range ja.js.rels {
		if rel.lateral == nil || inner.rels&(relSet(1)<<r) == 0 {
			continue
		}
		for i, a := range rel.lateral.args {
			if !ja.refs(a).subsetOf(outer.rels) {
				continue // set by a loop inside inner, or above
			}
			e, err := ja.fix1(a, outer.layout)
			if err != nil {
				return nil, err
			}
			nl.Params = append(nl.Params, nodes.NestParam{ID: rel.lateral.params[i], Expr: e})
		}
	}
	pairs := append(append([]int(nil), outer.layout...), inner.layout...)
	own, ownFields := pairs, append(append([]nodes.Field(nil), outer.plan.Base().Out...), inner.plan.Base().Out...)
	var err error
	if len(quals) > 0 {
		if nl.JoinFilter, err = ja.fix1(andOf(quals), pairs); err != nil {
			return nil, err
		}
	}
	if len(filters) > 0 {
		if nl.Filter, err = ja.fix1(andOf(filters), own); err != nil {
			return nil, err
		}
	}
	if nl.Targets, err = ja.fix(want, own); err != nil {
		return nil, err
	}
	nl.Out = out
	if isIdentity(nl.Targets, ownFields) {
		nl.Targets = nil
	}
	return &planned{plan: nl, layout: nodes.ColumnIndexes(want), rels: outer.rels | inner.rels}, nil
}

// lateralItemNeeds maps each item of an inner-join group to the items its
// lateral relations name.
func (ja *joinAnalysis) lateralItemNeeds(items []*jtNode) []uint64 {
	needs := make([]uint64, len(items))
	for i, it := range items {
		var deps relSet
		for r := range ja.js.rels {
			if it.rels&(relSet(1)<<r) != 0 {
				deps |= ja.lateralDeps(r)
			}
		}
		needs[i] = ja.itemsOf(items, deps&^it.rels)
	}
	return needs
}

// pullUpLateral merges a simple LATERAL subquery (one that could be
// written as joins: no grouping, aggregates, functions, DISTINCT, ORDER
// BY, LIMIT or set operations) into the join tree, as PostgreSQL's
// pull_up_subqueries: its FROM items join the query's, its WHERE
// conditions go to the join it is part of (ja.pulledQuals), and its
// select list names expressions over its items. So
// `FROM g, LATERAL (SELECT v FROM m WHERE m.gid = g.id) t` is a join of g
// and m on m.gid = g.id, hashed like any other, not a loop over g. It
// reports false, having undone its analysis, when the subquery names
// relations outside ja.localRels (they are planned by a parameterized
// Nested Loop then).
func (ja *joinAnalysis) pullUpLateral(n *pg.Node) (*jtNode, []*nsItem, bool, error) {
	rs := n.GetRangeSubselect()
	if rs == nil || !rs.Lateral || rs.Alias == nil || len(ja.lateral) == 0 {
		return nil, nil, false, nil
	}
	sub := rs.Subquery.GetSelectStmt()
	if sub == nil || !simpleSubquery(sub) || sub.WithClause != nil || sub.WhereClause != nil && hasSublink(sub.WhereClause) {
		return nil, nil, false, nil
	}
	js := ja.js
	rels, used := len(js.rels), len(js.used)
	outer := &scope{join: js, items: ja.lateral, parent: ja.outer}
	tree, items, err := ja.subqueryFrom(sub.FromClause, outer)
	if err != nil {
		return nil, nil, false, err
	}
	sc := &scope{join: js, items: items, parent: outer}
	var quals []nodes.Expr
	if sub.WhereClause != nil {
		ec := &exprCtx{p: ja.pc, scope: sc, clause: "WHERE"}
		w, err := ec.transform(sub.WhereClause)
		if err != nil {
			return nil, nil, false, err
		}
		if w, err = requireBool(w, "argument of WHERE"); err != nil {
			return nil, nil, false, err
		}
		quals = append(quals, flattenAnd(w)...)
	}
	targets, err := (&exprCtx{p: ja.pc, scope: sc, clause: "SELECT"}).selectList(sub.TargetList, false)
	if err != nil {
		return nil, nil, false, err
	}
	var reads []nodes.Expr
	for _, t := range targets {
		reads = append(reads, t.expr)
	}
	if !ja.refs(append(reads, quals...)...).subsetOf(tree.rels|ja.localRels) || !ja.selfContained(tree) {
		js.rels, js.used = js.rels[:rels], js.used[:used]
		return nil, nil, false, nil
	}
	ja.pulledQuals = append(ja.pulledQuals, quals...)
	item := &nsItem{alias: rs.Alias.Aliasname, relVisible: true, colsVisible: true}
	for i, t := range targets {
		name, e := t.name, t.expr
		if i < len(rs.Alias.Colnames) {
			name = rs.Alias.Colnames[i].GetString_().Sval
		}
		item.cols = append(item.cols, nsColumn{name: name, t: e.Type(), get: func() nodes.Expr { return e }})
	}
	if len(rs.Alias.Colnames) > len(targets) {
		return nil, nil, false, pgerr.New(pgerr.InvalidColumnReference, "table %q has %d columns available but %d columns specified", rs.Alias.Aliasname, len(targets), len(rs.Alias.Colnames))
	}
	return tree, []*nsItem{item}, true, nil
}

// takePulled returns and clears the conditions pulled up from LATERAL
// subqueries.
func (ja *joinAnalysis) takePulled() []nodes.Expr {
	q := ja.pulledQuals
	ja.pulledQuals = nil
	return q
}

// hasSublink reports whether a parse tree holds a subquery, or a node
// it does not look into.
func hasSublink(n *pg.Node) bool {
	return anyParseNode(n, func(x *pg.Node) bool { return x.GetSubLink() != nil }, func(x *pg.Node) bool {
		return x.GetColumnRef() == nil && x.GetAConst() == nil
	})
}

// selfContained reports whether the join conditions inside t name only
// t's own relations.
func (ja *joinAnalysis) selfContained(t *jtNode) bool {
	if t.rel >= 0 {
		return true
	}
	return ja.refs(t.quals...).subsetOf(t.rels) && ja.selfContained(t.left) && ja.selfContained(t.right)
}
