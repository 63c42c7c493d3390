package planner

// Join planning over the analysed join tree (join_analyze.go).
//
// Conditions are placed first, as PostgreSQL's distribute_qual_to_rels:
// a WHERE condition goes down to the lowest node that has all its
// relations, but never into the nullable side of an outer join (there it
// is a Filter above the join, applied after null-extension); an outer
// join's own ON condition on its nullable side goes down into that side,
// and one on its preserved side stays in the join (it decides matches,
// not which preserved rows appear). Inner joins and comma lists are
// flattened into one group whose order is chosen by estimated rows
// (joinorder.go); outer joins keep their place.
//
// Each join becomes a Hash Join when it has an equality between its two
// sides (the Hash built on the side with fewer estimated bytes), else a
// Nested Loop over a Materialize; a Merge Join when an input comes
// sorted on the keys and that costs less, and as the enable_hashjoin,
// enable_mergejoin and enable_nestloop settings make it (joinMethod,
// merge_join.go). Every node outputs only the columns
// something above it reads. Expressions use query-wide column ids
// (joinScope.used) until the node that evaluates them is built; then they
// are mapped to positions in its own rows (setrefs.c's fix_join_expr).

import (
	"sort"

	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// planned is a planned subtree and the column ids its rows hold, in order.
type planned struct {
	plan   nodes.Plan
	layout []int
	rels   relSet
	// remote, when set, is how a server can run the subtree whole (join
	// pushdown, foreign_join.go).
	remote *remoteRel
}

// planTop plans the join tree under the query's WHERE condition and
// select list; targets nil means every registered column, in id order
// (the rows an Agg above reads).
func (ja *joinAnalysis) planTop(root *jtNode, filter nodes.Expr, targets []nodes.Expr, out []nodes.Field) (nodes.Plan, error) {
	ja.wantOrder, ja.pc.queryOrder = ja.pc.queryOrder, nil // merge_join.go
	if targets == nil {
		// A semi or anti join's inner columns are not in its rows; the
		// query above cannot name them, so a NULL keeps the positions.
		visible := outputRels(root)
		targets = make([]nodes.Expr, len(ja.js.used))
		for g, u := range ja.js.used {
			targets[g] = ja.js.colRef(g)
			if visible&(relSet(1)<<u.rel) == 0 {
				targets[g] = &nodes.Const{T: u.base.T}
			}
		}
		out = ja.usedFields()
	}
	var filters []nodes.Expr
	if filter != nil {
		filters = flattenAnd(filter)
	}
	p, err := ja.plan(root, filters, targets, out)
	if err != nil {
		return nil, err
	}
	return p.plan, nil
}

// planTopReading is planTop for a reader of the columns reads reference
// (query-wide ids; source.rowsFor): the plan's rows are those columns in
// id order, and pos maps each id to its position there.
func (ja *joinAnalysis) planTopReading(root *jtNode, filter nodes.Expr, reads []nodes.Expr) (nodes.Plan, []int, error) {
	read := make([]bool, len(ja.js.used))
	for _, e := range reads {
		walkAll(e, func(x nodes.Expr) {
			if c, ok := x.(*nodes.ColumnRef); ok {
				read[c.Index] = true
			}
		})
	}
	pos := make([]int, len(ja.js.used))
	targets, out := []nodes.Expr{}, []nodes.Field{} // not nil: nil is every column
	all := ja.usedFields()
	for g := range ja.js.used {
		pos[g] = len(targets)
		if read[g] {
			targets, out = append(targets, ja.js.colRef(g)), append(out, all[g])
		}
	}
	p, err := ja.planTop(root, filter, targets, out)
	return p, pos, err
}

// outputRels are the relations whose columns n's rows hold.
func outputRels(n *jtNode) relSet {
	if n.rel < 0 && n.typ.OwnRowsAreOuter() {
		return outputRels(n.left)
	}
	return n.rels
}

// plan plans node n so that its rows satisfy filters and are want.
func (ja *joinAnalysis) plan(n *jtNode, filters, want []nodes.Expr, out []nodes.Field) (*planned, error) {
	if n.rel >= 0 {
		return ja.planBase(n, filters, want, out)
	}
	if n.typ == nodes.JoinInner || ja.flattensSemi(n) {
		return ja.planInnerGroup(n, filters, want, out)
	}
	return ja.planOuterJoin(n, filters, want, out)
}

// planBase plans a base relation with its pushed-down conditions; its
// expressions read the relation's own rows.
func (ja *joinAnalysis) planBase(n *jtNode, filters, want []nodes.Expr, out []nodes.Field) (*planned, error) {
	r := ja.js.rels[n.rel]
	var f nodes.Expr
	if len(filters) > 0 {
		f = ja.toBase(andOf(filters))
	}
	targets := make([]nodes.Expr, len(want))
	for i, w := range want {
		targets[i] = ja.toBase(w)
	}
	p, err := r.src.finish(f, targets, out)
	if err != nil {
		return nil, err
	}
	return &planned{plan: p, layout: nodes.ColumnIndexes(want), rels: n.rels, remote: ja.baseRemote(n.rel, p)}, nil
}

// toBase maps query-wide references to the base relation's own columns.
func (ja *joinAnalysis) toBase(e nodes.Expr) nodes.Expr {
	var f func(nodes.Expr) (nodes.Expr, error)
	f = func(x nodes.Expr) (nodes.Expr, error) {
		if c, ok := x.(*nodes.ColumnRef); ok {
			b := *ja.js.used[c.Index].base
			return &b, nil
		}
		return mapChildren(x, f)
	}
	out, _ := f(e)
	return out
}

// refs returns the relations e reads.
func (ja *joinAnalysis) refs(es ...nodes.Expr) relSet {
	var s relSet
	for _, e := range es {
		walkAll(e, func(x nodes.Expr) {
			if c, ok := x.(*nodes.ColumnRef); ok {
				s |= relSet(1) << ja.js.used[c.Index].rel
			}
		})
	}
	return s
}

// columnsIn returns the ids of the columns of rels that es read, sorted,
// as references (what a child must output for es).
func (ja *joinAnalysis) columnsIn(rels relSet, es ...nodes.Expr) ([]nodes.Expr, []nodes.Field) {
	seen := map[int]bool{}
	for _, e := range es {
		walkAll(e, func(x nodes.Expr) {
			if c, ok := x.(*nodes.ColumnRef); ok && rels&(relSet(1)<<ja.js.used[c.Index].rel) != 0 {
				seen[c.Index] = true
			}
		})
	}
	ids := make([]int, 0, len(seen))
	for g := range seen {
		ids = append(ids, g)
	}
	sort.Ints(ids)
	want := make([]nodes.Expr, len(ids))
	out := make([]nodes.Field, len(ids))
	for i, g := range ids {
		want[i] = ja.js.colRef(g)
		u := ja.js.used[g]
		out[i] = nodes.Field{Name: ja.js.colName(u.rel, u.col), T: u.base.T}
	}
	return want, out
}

// planOuterJoin plans a LEFT, RIGHT or FULL join.
func (ja *joinAnalysis) planOuterJoin(n *jtNode, filters, want []nodes.Expr, out []nodes.Field) (*planned, error) {
	if reduced := ja.reduceOuterJoin(n, filters); reduced != n {
		return ja.plan(reduced, filters, want, out)
	}
	typ, pres, null := n.typ, n.left, n.right
	if typ == nodes.JoinRight {
		typ, pres, null = nodes.JoinLeft, n.right, n.left
	}
	// Semi and anti joins place conditions as a left join does: their
	// right side is never part of the output.
	oneSided := typ != nodes.JoinFull
	var presFilters, nullFilters, kept, joinQuals []nodes.Expr
	for _, f := range filters {
		if oneSided && ja.refs(f).subsetOf(pres.rels) {
			presFilters = append(presFilters, f)
		} else {
			kept = append(kept, f)
		}
	}
	for _, q := range n.quals {
		if oneSided && ja.refs(q).subsetOf(null.rels) {
			nullFilters = append(nullFilters, q)
		} else {
			joinQuals = append(joinQuals, q)
		}
	}
	above := append(append(append(append([]nodes.Expr(nil), want...), kept...), joinQuals...), ja.lateralArgs()...)
	pw, po := ja.columnsIn(pres.rels, above...)
	nw, no := ja.columnsIn(null.rels, above...)
	pp, err := ja.plan(pres, presFilters, pw, po)
	if err != nil {
		return nil, err
	}
	np, err := ja.plan(null, nullFilters, nw, no)
	if err != nil {
		return nil, err
	}
	if n.nullAware {
		return ja.nullAwareJoin(pp, np, joinQuals, kept, want, out)
	}
	return ja.join(typ, pp, np, joinQuals, kept, want, out)
}

// nullAwareJoin is the anti join of NOT IN: a hash join on its one
// equality, which must be hashable.
func (ja *joinAnalysis) nullAwareJoin(outer, inner *planned, quals, filters, want []nodes.Expr, out []nodes.Field) (*planned, error) {
	if len(quals) != 1 {
		return nil, pgerr.NotSupported("NOT IN with this subquery")
	}
	if _, _, ok := ja.hashClause(quals[0], outer.rels, inner.rels); !ok {
		return nil, pgerr.NotSupported("NOT IN over a type without hashing")
	}
	p, err := ja.joinHow(nodes.JoinAnti, outer, inner, quals, filters, want, out, true)
	if err != nil {
		return nil, err
	}
	hj, ok := p.plan.(*nodes.HashJoin)
	if !ok {
		return nil, pgerr.Internal("planner: NOT IN did not become a hash join")
	}
	hj.NullAware = true
	return p, nil
}

// join builds the join of outer and inner (for LEFT, outer is the
// preserved side) on quals, filtered by filters and projected to want.
func (ja *joinAnalysis) join(typ nodes.JoinType, outer, inner *planned, quals, filters, want []nodes.Expr, out []nodes.Field) (*planned, error) {
	return ja.joinHow(typ, outer, inner, quals, filters, want, out, false)
}

// joinHow is join; hashOnly makes it a hash join (merge_join.go) on the
// sides given (NOT IN's null-aware anti join).
func (ja *joinAnalysis) joinHow(typ nodes.JoinType, outer, inner *planned, quals, filters, want []nodes.Expr, out []nodes.Field, hashOnly bool) (*planned, error) {
	if typ == nodes.JoinInner && ja.lateralNeeds(outer.rels, inner.rels) {
		outer, inner = inner, outer // the side naming the other's columns runs per row
	}
	if ja.lateralNeeds(inner.rels, outer.rels) {
		return ja.paramJoin(typ, outer, inner, quals, filters, want, out)
	}
	if p, ok, err := ja.pushJoin(typ, outer, inner, quals, filters, want, out); ok || err != nil {
		return p, err
	}
	var okeys, ikeys, rest []nodes.Expr
	for _, q := range quals {
		if l, r, ok := ja.hashClause(q, outer.rels, inner.rels); ok {
			okeys, ikeys = append(okeys, l), append(ikeys, r)
		} else {
			rest = append(rest, q)
		}
	}
	estimate(outer.plan)
	estimate(inner.plan)
	method := ja.joinMethod(typ, outer, inner, quals, len(okeys) > 0, hashOnly)
	if method == hashMethod && bytesOf(outer.plan) < bytesOf(inner.plan) && !hashOnly {
		// Build the hash table on the smaller side: a left join becomes a
		// right join, a semi or anti join a right semi or right anti join
		// (hashing the rows it returns, as PostgreSQL 16 and 18 do). NOT
		// IN's null-aware anti join (hashOnly) keeps its sides.
		if swapped, ok := typ.Swapped(); ok {
			typ = swapped
			outer, inner, okeys, ikeys = inner, outer, ikeys, okeys
		}
	} else if method == nestLoopMethod && typ == nodes.JoinInner && bytesOf(outer.plan) < bytesOf(inner.plan) {
		outer, inner = inner, outer // rescan the smaller side
	}
	own := append(append([]int(nil), outer.layout...), inner.layout...)
	ownFields := append(append([]nodes.Field(nil), outer.plan.Base().Out...), inner.plan.Base().Out...)
	if typ.OwnRowsAreOuter() {
		own, ownFields = outer.layout, outer.plan.Base().Out
	} else if typ.OwnRowsAreInner() {
		own, ownFields = inner.layout, inner.plan.Base().Out
	}
	pairs := append(append([]int(nil), outer.layout...), inner.layout...)
	var jp nodes.Plan
	var base *nodes.PlanBase
	var joinFilter nodes.Expr
	var err error
	if len(rest) > 0 {
		if joinFilter, err = ja.fix1(andOf(rest), pairs); err != nil {
			return nil, err
		}
	}
	if method == mergeMethod {
		mj, err := ja.mergeJoinPlan(typ, outer, inner, quals, pairs)
		if err != nil {
			return nil, err
		}
		jp, base = mj, &mj.PlanBase
	} else if method == hashMethod {
		h := &nodes.Hash{Child: inner.plan}
		h.Out = inner.plan.Base().Out
		hj := &nodes.HashJoin{Type: typ, Outer: outer.plan, Inner: h, JoinFilter: joinFilter}
		if hj.OuterKeys, err = ja.fix(okeys, outer.layout); err != nil {
			return nil, err
		}
		if hj.InnerKeys, err = ja.fix(ikeys, inner.layout); err != nil {
			return nil, err
		}
		ja.passKeys(hj)
		jp, base = hj, &hj.PlanBase
	} else {
		if len(okeys) > 0 {
			// The equalities are not hash keys here: the loop tests them.
			if joinFilter, err = ja.fix1(andOf(quals), pairs); err != nil {
				return nil, err
			}
		}
		var in nodes.Plan = inner.plan
		if _, cte := in.(*nodes.CTEScan); !cte { // a CTE Scan reads its store again itself
			m := &nodes.Material{Child: inner.plan}
			m.Out = inner.plan.Base().Out
			in = m
		}
		nl := &nodes.NestedLoop{Type: typ, Outer: outer.plan, Inner: in, JoinFilter: joinFilter}
		jp, base = nl, &nl.PlanBase
	}
	if len(filters) > 0 {
		if base.Filter, err = ja.fix1(andOf(filters), own); err != nil {
			return nil, err
		}
	}
	if base.Targets, err = ja.fix(want, own); err != nil {
		return nil, err
	}
	base.Out = out
	if isIdentity(base.Targets, ownFields) {
		base.Targets = nil
	}
	return &planned{plan: jp, layout: nodes.ColumnIndexes(want), rels: outer.rels | inner.rels}, nil
}

// hashClause reports whether q is an equality of an expression over outer
// with one over inner, of one hashable type, and returns the two sides.
func (ja *joinAnalysis) hashClause(q nodes.Expr, outer, inner relSet) (nodes.Expr, nodes.Expr, bool) {
	return ja.equalitySides(q, outer, inner, hashable)
}

// equalitySides reports whether q is an equality of an expression over a
// with one over b, and returns them in that order; with keyType set, both
// sides must have one type it accepts.
func (ja *joinAnalysis) equalitySides(q nodes.Expr, a, b relSet, keyType func(types.T) bool) (nodes.Expr, nodes.Expr, bool) {
	op, ok := q.(*nodes.OpExpr)
	if !ok || op.Op != "=" || op.Left == nil {
		return nil, nil, false
	}
	if keyType != nil && (op.Left.Type().ID != op.Right.Type().ID || !keyType(op.Left.Type())) {
		return nil, nil, false
	}
	l, r := ja.refs(op.Left), ja.refs(op.Right)
	switch {
	case l != 0 && r != 0 && l.subsetOf(a) && r.subsetOf(b):
		return op.Left, op.Right, true
	case l != 0 && r != 0 && l.subsetOf(b) && r.subsetOf(a):
		return op.Right, op.Left, true
	}
	return nil, nil, false
}

// hashable reports whether the hash join can hash and compare t.
func hashable(t types.T) bool {
	switch t.ID {
	case types.Bool, types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric,
		types.Text, types.Varchar, types.Bpchar, types.Name, types.Date, types.Timestamp, types.TimestampTZ, types.IntervalType:
		return true
	}
	return false
}

// bytesOf is a plan's estimated output size.
func bytesOf(p nodes.Plan) float64 {
	b := p.Base()
	return b.Rows * float64(max(b.Width, 1))
}

// fix maps query-wide references in es to positions in layout.
func (ja *joinAnalysis) fix(es []nodes.Expr, layout []int) ([]nodes.Expr, error) {
	out := make([]nodes.Expr, len(es))
	for i, e := range es {
		var err error
		if out[i], err = ja.fix1(e, layout); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (ja *joinAnalysis) fix1(e nodes.Expr, layout []int) (nodes.Expr, error) {
	var f func(nodes.Expr) (nodes.Expr, error)
	f = func(x nodes.Expr) (nodes.Expr, error) {
		if c, ok := x.(*nodes.ColumnRef); ok {
			for p, g := range layout {
				if g == c.Index {
					cc := *c
					cc.Index = p
					return &cc, nil
				}
			}
			return nil, pgerr.Internal("planner: column %s is not in its join's input", c.Name)
		}
		return mapChildren(x, f)
	}
	return f(e)
}

// reduceOuterJoin is PostgreSQL's reduce_outer_joins for one join: a
// WHERE condition above an outer join that cannot hold when the nullable
// side's columns are NULL removes every null-extended row, so the join
// is an inner join (a full join, a one-sided one). It returns n when
// nothing changes.
func (ja *joinAnalysis) reduceOuterJoin(n *jtNode, filters []nodes.Expr) *jtNode {
	rejects := func(rels relSet) bool {
		for _, f := range filters {
			if ja.rejectsNulls(f, rels) {
				return true
			}
		}
		return false
	}
	c := *n
	switch n.typ {
	case nodes.JoinLeft:
		if !rejects(n.right.rels) {
			return n
		}
		c.typ = nodes.JoinInner
	case nodes.JoinRight:
		if !rejects(n.left.rels) {
			return n
		}
		c.typ = nodes.JoinInner
	case nodes.JoinFull:
		l, r := rejects(n.left.rels), rejects(n.right.rels)
		switch {
		case l && r:
			c.typ = nodes.JoinInner
		case l:
			c.typ = nodes.JoinLeft // the left side's NULL rows are gone
		case r:
			c.typ = nodes.JoinRight
		default:
			return n
		}
	default:
		return n
	}
	return &c
}

// rejectsNulls reports whether condition e is NULL or false whenever
// every column of rels is NULL (strict operators and casts; AND of one
// such, OR of only such, IS NOT NULL of a NULL).
func (ja *joinAnalysis) rejectsNulls(e nodes.Expr, rels relSet) bool {
	switch x := e.(type) {
	case *nodes.BoolExpr:
		switch x.Op {
		case nodes.And:
			for _, a := range x.Args {
				if ja.rejectsNulls(a, rels) {
					return true
				}
			}
			return false
		case nodes.Or:
			for _, a := range x.Args {
				if !ja.rejectsNulls(a, rels) {
					return false
				}
			}
			return true
		}
		return false
	case *nodes.NullTest:
		return x.IsNot && ja.nullWhenNull(x.Arg, rels)
	}
	return ja.nullWhenNull(e, rels)
}

// nullWhenNull reports whether e is NULL whenever the columns of rels
// are: a column of rels, or a strict operator or cast of such.
func (ja *joinAnalysis) nullWhenNull(e nodes.Expr, rels relSet) bool {
	switch x := e.(type) {
	case *nodes.ColumnRef:
		return rels&(relSet(1)<<ja.js.used[x.Index].rel) != 0
	case *nodes.OpExpr:
		return x.Left != nil && ja.nullWhenNull(x.Left, rels) || ja.nullWhenNull(x.Right, rels)
	case *nodes.Cast:
		return ja.nullWhenNull(x.Arg, rels)
	}
	return false
}
