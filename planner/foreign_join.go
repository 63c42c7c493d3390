package planner

// Join pushdown, as postgres_fdw's foreign_join_ok and deparseFromExpr:
// a join whose two sides are foreign scans (or pushed-down joins) on one
// server through one user mapping becomes a single Foreign Scan whose
// Remote SQL joins them, with pgfed.pushdown on. Each base relation is
// named rN in the remote query (N its place in the query's FROM list).
//
//   - Inner, left and full joins are shipped (right joins are planned as
//     left joins with the sides swapped); semi and anti joins are not.
//   - Every condition of an outer join must be shippable; a non-shippable
//     condition of an inner join, or a non-shippable WHERE condition
//     above an outer join, stays local as the scan's Filter, and the scan
//     then joins nothing further.
//   - A side's own remote conditions go to the WHERE clause, except those
//     of an outer join's nullable side, which go to its ON clause (where
//     they restrict that side); a full join whose sides have any is not
//     shipped (postgres_fdw wraps them in subqueries instead).
//
// EXPLAIN shows "Relations: (public.ft1 t1) INNER JOIN (public.ft2 t2)".

import (
	"strings"

	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/remote"
)

// remoteRel is a planned subtree that a server can run whole.
type remoteRel struct {
	scan      *nodes.ForeignScan // the scan it is (options, costs)
	from      string             // its FROM-clause SQL
	relations string             // EXPLAIN's Relations
	joined    bool               // a join, parenthesized when nested
	conds     []string           // its WHERE conjuncts
	cols      []string           // the SQL of each column of its layout
}

// baseRemote describes a plain foreign scan of base relation rel for
// join pushdown, or returns nil when it cannot join remotely.
func (ja *joinAnalysis) baseRemote(rel int, p nodes.Plan) *remoteRel {
	fs, ok := p.(*nodes.ForeignScan)
	if !ok || !ja.pc.pushdown() || fs.Filter != nil || fs.Grouped || fs.Limit != nil || len(fs.OrderBy) > 0 || fs.ForUpdate || fs.Relations != "" {
		return nil
	}
	t := fs.Table
	alias := "r" + itoa(rel+1)
	qualified := func(c int) string { return alias + "." + remote.QuoteIdent(t.RemoteColumn(c)) }
	r := &remoteRel{scan: fs}
	schema, name := t.RemoteName()
	r.from = remote.Relation{Schema: schema, Table: name}.SQL() + " " + alias
	r.relations = "(" + nodes.QuoteIdent(t.Schema) + "." + nodes.QuoteIdent(t.Name) + " " + nodes.QuoteIdent(fs.Alias) + ")"
	for i := range fs.Out {
		col := i
		if fs.Targets != nil {
			ref, isRef := fs.Targets[i].(*nodes.ColumnRef)
			if !isRef {
				return nil
			}
			col = ref.Index
		}
		c := fs.Columns[col]
		if c < 0 {
			return nil // ctid, tableoid
		}
		r.cols = append(r.cols, qualified(c))
	}
	all := make([]string, len(t.Columns))
	for c := range t.Columns {
		all[c] = qualified(c)
	}
	for _, c := range fs.RemoteConds {
		if !fs.CondsOnTable {
			c = toTableColumns(c, fs.Columns)
		}
		sql, err := remote.ExprOver(c, all)
		if err != nil {
			return nil
		}
		r.conds = append(r.conds, sql)
	}
	return r
}

// pushJoin returns the join of outer and inner as one foreign scan, when
// both sides run on one server through one user mapping.
func (ja *joinAnalysis) pushJoin(typ nodes.JoinType, outer, inner *planned, quals, filters, want []nodes.Expr, out []nodes.Field) (*planned, bool, error) {
	o, i := outer.remote, inner.remote
	if o == nil || i == nil || o.scan.Server != i.scan.Server || o.scan.MappingKey != i.scan.MappingKey {
		return nil, false, nil
	}
	if len(o.scan.Params) > 0 || len(i.scan.Params) > 0 {
		return nil, false, nil // a joined query has no parameters to bind
	}
	if typ != nodes.JoinInner && typ != nodes.JoinLeft && typ != nodes.JoinFull {
		return nil, false, nil
	}
	if typ == nodes.JoinFull && len(o.conds)+len(i.conds) > 0 {
		return nil, false, nil
	}
	pairs := append(append([]int(nil), outer.layout...), inner.layout...)
	cols := append(append([]string(nil), o.cols...), i.cols...)
	var on, where []string
	var local []nodes.Expr
	ship := func(e nodes.Expr) (string, bool, error) {
		fixed, err := ja.fix1(e, pairs)
		if err != nil {
			return "", false, err
		}
		sql, err := remote.ExprOver(fixed, cols)
		return sql, err == nil, nil
	}
	for _, q := range quals {
		sql, ok, err := ship(q)
		switch {
		case err != nil:
			return nil, false, err
		case ok:
			on = append(on, sql)
		case typ == nodes.JoinInner:
			local = append(local, q)
		default:
			return nil, false, nil
		}
	}
	switch typ {
	case nodes.JoinInner:
		where = append(append(where, o.conds...), i.conds...)
	case nodes.JoinLeft:
		where = append(where, o.conds...)
		on = append(on, i.conds...)
	}
	for _, f := range filters {
		sql, ok, err := ship(f)
		if err != nil {
			return nil, false, err
		}
		if ok {
			where = append(where, sql)
		} else {
			local = append(local, f)
		}
	}
	rel := &remoteRel{scan: o.scan, joined: true, conds: where}
	rel.from = "(" + o.from + " " + typ.SQL() + " JOIN " + i.from + " ON (" + condList(on, "true") + "))"
	rel.relations = o.nested() + " " + typ.SQL() + " JOIN " + i.nested()
	// Fetch what the query above and the local conditions read.
	fetchWant, fetchOut := ja.columnsIn(outer.rels|inner.rels, append(append([]nodes.Expr(nil), want...), local...)...)
	fetched := nodes.ColumnIndexes(fetchWant)
	fs := &nodes.ForeignScan{Table: o.scan.Table, Alias: o.scan.Alias, Server: o.scan.Server, MappingKey: o.scan.MappingKey,
		FetchSize: o.scan.FetchSize, FDWStartupCost: o.scan.FDWStartupCost, FDWTupleCost: o.scan.FDWTupleCost,
		AsyncCapable: o.scan.AsyncCapable, AsyncConnections: o.scan.AsyncConnections, Relations: rel.relations}
	var sel []string
	for k, g := range fetched {
		for p, id := range pairs {
			if id == g {
				sel = append(sel, cols[p])
			}
		}
		fs.Types = append(fs.Types, fetchOut[k].T)
	}
	rel.cols = sel
	fs.RemoteSQL = "SELECT " + strings.Join(orNull(sel), ", ") + " FROM " + rel.from
	if len(where) > 0 {
		fs.RemoteSQL += " WHERE " + condList(where, "")
	}
	var err error
	if len(local) > 0 {
		if fs.Filter, err = ja.fix1(andOf(local), fetched); err != nil {
			return nil, false, err
		}
		rel = nil // postgres_fdw joins nothing with local conditions further
	} else {
		// Nothing local: an aggregate, ORDER BY or LIMIT may go on top.
		fs.Join = &nodes.RemoteJoin{From: rel.from, Where: where, Cols: sel}
	}
	if fs.Targets, err = ja.fix(want, fetched); err != nil {
		return nil, false, err
	}
	fs.Out = out // Targets stay even when they pass rows through: they are what EXPLAIN's Output shows
	if rel != nil {
		// The scan's layout is what the join above sees.
		layout := nodes.ColumnIndexes(want)
		rel.cols = nil
		for _, g := range layout {
			for k, f := range fetched {
				if f == g {
					rel.cols = append(rel.cols, sel[k])
				}
			}
		}
		if len(rel.cols) != len(layout) {
			rel = nil
		}
	}
	return &planned{plan: fs, layout: nodes.ColumnIndexes(want), rels: outer.rels | inner.rels, remote: rel}, true, nil
}

// nested is the relation's Relations text as a join operand.
func (r *remoteRel) nested() string {
	if r.joined {
		return "(" + r.relations + ")"
	}
	return r.relations
}

// condList ANDs conditions, each in parentheses, as deparseExplicitTargetList
// and appendConditions do; empty gives "(none)".
func condList(conds []string, none string) string {
	if len(conds) == 0 {
		return "(" + none + ")"
	}
	parts := make([]string, len(conds))
	for i, c := range conds {
		parts[i] = "(" + c + ")"
	}
	return strings.Join(parts, " AND ")
}

func orNull(cols []string) []string {
	if len(cols) == 0 {
		return []string{"NULL"}
	}
	return cols
}

// Upper-relation pushdown above a pushed-down join, as postgres_fdw's
// add_foreign_grouping_paths, add_foreign_ordered_paths and
// add_foreign_final_paths over a join relation:
//
//   - An Agg directly over a join scan with no local Filter becomes one
//     scan running "SELECT keys, aggs FROM <join> WHERE ... GROUP BY 1, 2
//     HAVING ..." when every group key and aggregate ships (the rules of
//     the single-table pushdown: shippable expressions, no min/max of
//     text, no text-ordered aggregate input); shippable HAVING conjuncts
//     go remote, the others stay as the scan's Filter. Grouping sets,
//     grouping() and partial aggregates are never pushed. EXPLAIN shows
//     "Relations: Aggregate on ((public.ft1 t1) INNER JOIN (public.ft2 t2))".
//   - ORDER BY over such a scan (join or aggregate) with no local Filter
//     goes remote when every key ships and orders without a collation
//     (text stays local, as in the single-table rule); the local Sort
//     then goes away. LIMIT/OFFSET go remote only when the whole ORDER BY
//     did (or there is none) and they are non-negative constants; the
//     local Limit then goes away too.

// pushJoinAgg ships agg into the pushed-down join scan fs, or returns nil.
func (pc *planCtx) pushJoinAgg(agg *nodes.Agg, fs *nodes.ForeignScan) nodes.Plan {
	j := fs.Join
	if fs.Filter != nil || fs.Grouped || fs.Limit != nil || len(fs.OrderBy) > 0 || len(j.OrderBy) > 0 || j.Limit != "" ||
		agg.GroupingSets != nil || len(agg.Groupings) > 0 || agg.Split != "" || len(agg.GroupKeys)+len(agg.Aggs) == 0 {
		return nil
	}
	if !aggsShippable(agg.GroupKeys, agg.Aggs) {
		return nil
	}
	up := &nodes.RemoteJoin{From: j.From, Where: j.Where, GroupBy: len(agg.GroupKeys)}
	for _, k := range agg.GroupKeys {
		if readsNoColumn(k) {
			return nil // GROUP BY 1 would name a constant; rare enough to keep local
		}
		e, ok := throughTargets(k, fs.Targets)
		if !ok {
			return nil
		}
		sql, err := remote.ExprOver(e, j.Cols)
		if err != nil {
			return nil
		}
		up.Cols = append(up.Cols, sql)
	}
	for _, a := range agg.Aggs {
		ra, ok := aggThroughTargets(a, fs.Targets)
		if !ok {
			return nil
		}
		sql, err := remote.AggOver(ra, j.Cols)
		if err != nil {
			return nil
		}
		up.Cols = append(up.Cols, sql)
	}
	// HAVING reads the group rows, which are the remote query's columns.
	var local []nodes.Expr
	for _, c := range conjuncts(agg.Filter) {
		if sql, err := remote.ExprOver(c, up.Cols); err == nil {
			up.Having = append(up.Having, sql)
		} else {
			local = append(local, c)
		}
	}
	c := *fs
	c.Grouped, c.GroupKeys, c.Aggs = true, agg.GroupKeys, agg.Aggs
	c.Filter, c.Targets, c.Out = andOf(local), agg.Targets, agg.Out
	if agg.Targets != nil {
		dedupeAggs(&c, up)
	}
	c.Types = nil
	for _, k := range c.GroupKeys {
		c.Types = append(c.Types, k.Type())
	}
	for _, a := range c.Aggs {
		c.Types = append(c.Types, a.T)
	}
	c.Relations = "Aggregate on (" + fs.Relations + ")"
	c.Join = up
	c.RemoteSQL = remote.UpperSQL(up)
	return &c
}

// dedupeAggs computes an aggregate the query calls twice (in the select
// list and in HAVING) once remotely, as postgres_fdw's target list does:
// it drops the repeated columns from up.Cols and c.Aggs and points the
// scan's Targets and Filter at the first.
func dedupeAggs(c *nodes.ForeignScan, up *nodes.RemoteJoin) {
	nk := len(c.GroupKeys)
	pos := make([]int, len(up.Cols)) // own row column -> remote column
	first := map[string]int{}
	cols := append([]string(nil), up.Cols[:nk]...)
	var aggs []*nodes.AggCall
	for i := range pos[:nk] {
		pos[i] = i
	}
	for i, sql := range up.Cols[nk:] {
		if p, dup := first[sql]; dup {
			pos[nk+i] = p
			continue
		}
		first[sql] = len(cols)
		pos[nk+i] = len(cols)
		cols = append(cols, sql)
		aggs = append(aggs, c.Aggs[i])
	}
	if len(cols) == len(up.Cols) {
		return
	}
	// Every column reference must be rewritten: one inside an expression
	// mapChildren does not descend into would keep its old position, so
	// then the duplicates stay.
	seen, rewritten := 0, 0
	remap := func(e nodes.Expr) nodes.Expr {
		var f func(nodes.Expr) (nodes.Expr, error)
		f = func(x nodes.Expr) (nodes.Expr, error) {
			if r, ok := x.(*nodes.ColumnRef); ok && r.Index < len(pos) {
				rr := *r
				rr.Index = pos[r.Index]
				rewritten++
				return &rr, nil
			}
			return mapChildren(x, f)
		}
		nodes.WalkExpr(e, func(x nodes.Expr) {
			if _, ok := x.(*nodes.ColumnRef); ok {
				seen++
			}
		})
		out, _ := f(e)
		return out
	}
	targets := make([]nodes.Expr, len(c.Targets))
	for i, t := range c.Targets {
		targets[i] = remap(t)
	}
	var filter nodes.Expr
	if c.Filter != nil {
		filter = remap(c.Filter)
	}
	if seen != rewritten {
		return
	}
	c.Targets, c.Filter, c.Aggs, up.Cols = targets, filter, aggs, cols
}

// pushJoinSortLimit ships ORDER BY (srt, may be nil) and LIMIT (lim, may
// be nil) into the pushed-down join or aggregate scan fs: it returns the
// scan with what went remote, under the local Limit if that could not,
// or nil when nothing could.
func (pc *planCtx) pushJoinSortLimit(lim *nodes.Limit, srt *nodes.Sort, fs *nodes.ForeignScan) nodes.Plan {
	j := fs.Join
	if fs.Filter != nil || len(j.OrderBy) > 0 || j.Limit != "" || fs.Limit != nil {
		return nil
	}
	up := *j
	c := *fs
	if srt != nil {
		up.OrderBy, c.OrderBy = nil, nil
		for _, k := range srt.Keys {
			e, ok := throughTargets(k.Expr, fs.Targets)
			if !ok || !remote.Shippable(e) || !sortableRemotely(e.Type()) {
				return nil // postgres_fdw pushes no LIMIT above a local sort either
			}
			rk := nodes.SortKey{Expr: e, Desc: k.Desc, NullsFirst: k.NullsFirst}
			sql, err := remote.SortKeyOver(rk, j.Cols)
			if err != nil {
				return nil
			}
			if sql != "" {
				up.OrderBy = append(up.OrderBy, sql)
			}
			c.OrderBy = append(c.OrderBy, rk)
		}
	}
	keepLimit := lim != nil
	if lim != nil && nonNegativeConst(lim.Count) && nonNegativeConst(lim.Offset) {
		if sql, err := remote.LimitSQL(lim.Count, lim.Offset); err == nil {
			up.Limit, c.Limit, keepLimit = sql, lim.Count, false
		}
	}
	if srt == nil && keepLimit {
		return nil
	}
	c.Join = &up
	c.RemoteSQL = remote.UpperSQL(&up)
	if keepLimit {
		l := *lim
		l.Child = &c
		return &l
	}
	return &c
}

// nonNegativeConst: nil, or a constant LIMIT/OFFSET that is NULL or not
// negative (a negative one must fail here, with PostgreSQL's error, not
// remotely).
func nonNegativeConst(e nodes.Expr) bool {
	if e == nil {
		return true
	}
	k, ok := e.(*nodes.Const)
	if !ok {
		return false
	}
	n, isInt := k.Value.(int64)
	return k.Value == nil || isInt && n >= 0
}

// aggsShippable applies the single-table aggregate pushdown's rules to
// group keys and aggregate calls: shippable expressions, and nothing whose
// remote result would depend on text collation (min/max of text, text
// ordering inside an aggregate).
func aggsShippable(keys []nodes.Expr, aggs []*nodes.AggCall) bool {
	for _, k := range keys {
		if !remote.Shippable(k) {
			return false
		}
	}
	for _, a := range aggs {
		if a.WithinGroup || !remote.ShippableAgg(a) {
			return false
		}
		if (a.Name == "min" || a.Name == "max") && a.T.IsString() {
			return false
		}
		for _, k := range a.OrderBy {
			if !sortableRemotely(k.Expr.Type()) {
				return false
			}
		}
	}
	return true
}

// throughTargets rewrites e over a scan's output into e over its own rows
// (each output column reference replaced by the target computing it).
func throughTargets(e nodes.Expr, targets []nodes.Expr) (nodes.Expr, bool) {
	if targets == nil {
		return e, true
	}
	var f func(nodes.Expr) (nodes.Expr, error)
	f = func(x nodes.Expr) (nodes.Expr, error) {
		if c, ok := x.(*nodes.ColumnRef); ok {
			if c.Index < 0 || c.Index >= len(targets) {
				return nil, errOutOfRange
			}
			return targets[c.Index], nil
		}
		return mapChildren(x, f)
	}
	out, err := f(e)
	return out, err == nil
}

var errOutOfRange = pgerr.Internal("planner: column reference beyond a scan's targets")

// aggThroughTargets is throughTargets for an aggregate call's arguments,
// FILTER and ORDER BY.
func aggThroughTargets(a *nodes.AggCall, targets []nodes.Expr) (*nodes.AggCall, bool) {
	c := *a
	c.Args, c.OrderBy, c.Filter = nil, nil, nil
	for _, arg := range a.Args {
		e, ok := throughTargets(arg, targets)
		if !ok {
			return nil, false
		}
		c.Args = append(c.Args, e)
	}
	for _, k := range a.OrderBy {
		e, ok := throughTargets(k.Expr, targets)
		if !ok {
			return nil, false
		}
		c.OrderBy = append(c.OrderBy, nodes.SortKey{Expr: e, Desc: k.Desc, NullsFirst: k.NullsFirst})
	}
	if a.Filter != nil {
		e, ok := throughTargets(a.Filter, targets)
		if !ok {
			return nil, false
		}
		c.Filter = e
	}
	return &c, true
}

// readsNoColumn reports whether e is constant over the rows.
func readsNoColumn(e nodes.Expr) bool {
	none := true
	nodes.WalkExpr(e, func(x nodes.Expr) {
		if _, ok := x.(*nodes.ColumnRef); ok {
			none = false
		}
	})
	return none
}
