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
	fetched := idsOf(fetchWant)
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
	}
	if fs.Targets, err = ja.fix(want, fetched); err != nil {
		return nil, false, err
	}
	fs.Out = out // Targets stay even when they pass rows through: they are what EXPLAIN's Output shows
	if rel != nil {
		// The scan's layout is what the join above sees.
		layout := idsOf(want)
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
	return &planned{plan: fs, layout: idsOf(want), rels: outer.rels | inner.rels, remote: rel}, true, nil
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
