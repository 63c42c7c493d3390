package planner

// Foreign scans: which conditions, ORDER BY/LIMIT and aggregates can be
// shipped to the remote server, and the remote SQL that does it.

import (
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/remote"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// pushdown reports whether shipping work to remote servers is enabled
// (the pgfed.pushdown setting; off keeps everything local, for testing
// that both give the same results).
func (pc *planCtx) pushdown() bool {
	return pc.settings().Bool("pgfed.pushdown")
}

// foreignScan plans the scan of foreign table t reading table columns
// cols; filter and targets are over those columns (scan positions).
func (pc *planCtx) foreignScan(t *storage.Table, alias string, cols []int, filter nodes.Expr, targets []nodes.Expr, out []nodes.Field) (*nodes.ForeignScan, error) {
	return pc.foreignScanFor(t, alias, cols, filter, targets, out, false)
}

// foreignServer returns the server of foreign table t and the key of the
// session user's mapping for it.
func (pc *planCtx) foreignServer(t *storage.Table) (*storage.Server, string, error) {
	srv := pc.Catalog.Server(t.Foreign.Server)
	if srv == nil {
		return nil, "", pgerr.New(pgerr.UndefinedObject, "server %q does not exist", t.Foreign.Server)
	}
	m := pc.Catalog.MappingFor(srv.Name, pc.User)
	if m == nil {
		return nil, "", pgerr.New(pgerr.UndefinedObject, "user mapping not found for %q", pc.User)
	}
	return srv, srv.Name + "/" + m.User, nil
}

// foreignScanFor is foreignScan; forUpdate makes it the scan of an UPDATE
// or DELETE, which locks the rows it reads remotely (SELECT ... FOR
// UPDATE) and may read the system columns ctid (remote) and tableoid
// (the local leaf's).
func (pc *planCtx) foreignScanFor(t *storage.Table, alias string, cols []int, filter nodes.Expr, targets []nodes.Expr, out []nodes.Field, forUpdate bool) (*nodes.ForeignScan, error) {
	srv, key, err := pc.foreignServer(t)
	if err != nil {
		return nil, err
	}
	fs := &nodes.ForeignScan{Table: t, Alias: alias, Columns: cols, Server: srv.Name, MappingKey: key, ForUpdate: forUpdate}
	// Table options win over server options; the defaults are
	// postgres_fdw's. The validator accepted every value.
	fs.FetchSize = int(intOption(100, t.Foreign.Options["fetch_size"], srv.Options["fetch_size"]))
	fs.AsyncCapable, _ = remote.ParseBool(firstSet(t.Foreign.Options["async_capable"], srv.Options["async_capable"], "false"))
	fs.AsyncConnections = int(intOption(1, srv.Options["async_connections"]))
	fs.FDWStartupCost, fs.FDWTupleCost = 100, 0.01
	if v, ok := remote.ParseReal(srv.Options["fdw_startup_cost"]); ok {
		fs.FDWStartupCost = v
	}
	if v, ok := remote.ParseReal(srv.Options["fdw_tuple_cost"]); ok {
		fs.FDWTupleCost = v
	}
	for _, c := range cols {
		fs.Types = append(fs.Types, t.ColumnType(c))
	}
	// Split the filter: shippable conjuncts go to the remote WHERE.
	var local []nodes.Expr
	for _, c := range conjuncts(filter) {
		if pc.pushdown() && remote.ShippableWithParams(c) {
			fs.RemoteConds = append(fs.RemoteConds, c)
		} else {
			local = append(local, c)
		}
	}
	fs.Filter = andOf(local)
	fs.Targets, fs.Out = targets, out
	if targets != nil {
		fetchOnlyNeeded(fs)
	}
	if err := pc.deparseScan(fs); err != nil {
		return nil, err
	}
	return fs, nil
}

// fetchOnlyNeeded narrows a projecting scan to the columns its targets
// and local filter read, in table order (columns used only by shipped
// conditions are not fetched), as postgres_fdw's remote SQL does.
func fetchOnlyNeeded(fs *nodes.ForeignScan) {
	used := map[int]bool{}
	note := func(e nodes.Expr) {
		nodes.WalkExpr(e, func(x nodes.Expr) {
			if c, ok := x.(*nodes.ColumnRef); ok {
				used[fs.Columns[c.Index]] = true
			}
		})
	}
	for _, t := range fs.Targets {
		note(t)
	}
	note(fs.Filter)
	var fetched []int
	for c := range fs.Table.Columns {
		if used[c] {
			fetched = append(fetched, c)
		}
	}
	// System columns (an UPDATE's or DELETE's row identity) come last,
	// as in postgres_fdw's "SELECT a, b, ctid".
	for _, c := range []int{storage.CtidColumn, storage.TableOIDColumn} {
		if used[c] {
			fetched = append(fetched, c)
		}
	}
	pos := map[int]int{} // table column -> new scan position
	for i, c := range fetched {
		pos[c] = i
	}
	old := fs.Columns
	remap := func(x nodes.Expr) nodes.Expr { return mapColumns(x, func(i int) int { return pos[old[i]] }) }
	targets := make([]nodes.Expr, len(fs.Targets))
	for i, t := range fs.Targets {
		targets[i] = remap(t)
	}
	fs.Targets = targets
	if fs.Filter != nil {
		fs.Filter = remap(fs.Filter)
	}
	// RemoteConds are deparsed against the old positions: translate them
	// to table columns now (the deparser names table columns).
	conds := make([]nodes.Expr, len(fs.RemoteConds))
	for i, c := range fs.RemoteConds {
		conds[i] = toTableColumns(c, old)
	}
	fs.RemoteConds = conds
	fs.Columns = fetched
	fs.Types = fs.Types[:0]
	for _, c := range fetched {
		fs.Types = append(fs.Types, fs.Table.ColumnType(c))
	}
	fs.CondsOnTable = true
}

// markAsync makes the async-capable foreign scans that are direct children
// of an Append with several children async (enable_async_append), as
// PostgreSQL's planner does.
func (pc *planCtx) markAsync(p nodes.Plan) {
	if !pc.settings().Bool("enable_async_append") {
		return
	}
	nodes.Walk(p, func(q nodes.Plan) {
		app, ok := q.(*nodes.Append)
		if !ok || len(app.Kids) < 2 {
			return
		}
		perServer := map[string]int{}
		for _, k := range app.Kids {
			if fs, ok := k.(*nodes.ForeignScan); ok && fs.AsyncCapable {
				fs.Async = true
				// Spread the server's async scans over its connections.
				fs.ConnSlot = perServer[fs.Server] % fs.AsyncConnections
				perServer[fs.Server]++
			}
		}
	})
}

// intOption returns the first of vals that is a positive integer (an
// option given), else def.
func intOption(def int64, vals ...string) int64 {
	for _, v := range vals {
		if n, ok := remote.ParseInt(v); ok && n > 0 {
			return n
		}
	}
	return def
}

// firstSet returns the first non-empty value.
func firstSet(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func conjuncts(e nodes.Expr) []nodes.Expr {
	if e == nil {
		return nil
	}
	if b, ok := e.(*nodes.BoolExpr); ok && b.Op == nodes.And {
		return b.Args
	}
	return []nodes.Expr{e}
}

func andOf(es []nodes.Expr) nodes.Expr {
	switch len(es) {
	case 0:
		return nil
	case 1:
		return es[0]
	}
	return &nodes.BoolExpr{Op: nodes.And, Args: es}
}

// toTableColumns rewrites ColumnRefs over scan positions into ColumnRefs
// over table column numbers (what the deparser resolves names by).
func toTableColumns(e nodes.Expr, cols []int) nodes.Expr {
	return mapColumns(e, func(i int) int { return cols[i] })
}

// deparseScan sets fs.RemoteSQL from its pushed-down parts.
func (pc *planCtx) deparseScan(fs *nodes.ForeignScan) error {
	t := fs.Table
	schema, name := t.RemoteName()
	sel := &remote.Select{Schema: schema, Table: name, AllCols: t.RemoteColumns(), ForUpdate: fs.ForUpdate}
	for _, c := range fs.Columns {
		switch c {
		case storage.TableOIDColumn:
			// The local leaf's OID, which the scan adds itself.
		case storage.CtidColumn:
			sel.Columns = append(sel.Columns, "ctid")
		default:
			sel.Columns = append(sel.Columns, t.RemoteColumn(c))
		}
	}
	for _, c := range fs.RemoteConds {
		if fs.CondsOnTable {
			sel.Where = append(sel.Where, c)
		} else {
			sel.Where = append(sel.Where, toTableColumns(c, fs.Columns))
		}
	}
	if fs.Grouped {
		for _, k := range fs.GroupKeys {
			sel.GroupBy = append(sel.GroupBy, toTableColumns(k, fs.Columns))
		}
		for _, a := range fs.Aggs {
			ac := *a
			ac.Args = nil
			for _, arg := range a.Args {
				ac.Args = append(ac.Args, toTableColumns(arg, fs.Columns))
			}
			if a.Filter != nil {
				ac.Filter = toTableColumns(a.Filter, fs.Columns)
			}
			ac.OrderBy = nil
			for _, k := range a.OrderBy {
				ac.OrderBy = append(ac.OrderBy, nodes.SortKey{Expr: toTableColumns(k.Expr, fs.Columns), Desc: k.Desc, NullsFirst: k.NullsFirst})
			}
			sel.Aggs = append(sel.Aggs, &ac)
		}
	}
	for _, k := range fs.OrderBy {
		sel.OrderBy = append(sel.OrderBy, nodes.SortKey{Expr: toTableColumns(k.Expr, fs.Columns), Desc: k.Desc, NullsFirst: k.NullsFirst})
	}
	sel.Limit = fs.Limit
	sqlText, err := sel.SQL()
	if err != nil {
		return err
	}
	var ids []int
	fs.RemoteSQL, ids = remote.BindParams(sqlText)
	fs.Params, err = paramsByID(sel, ids)
	return err
}

// paramsByID is the Params with these IDs in the remote query, in the
// IDs' order.
func paramsByID(sel *remote.Select, ids []int) ([]*nodes.Param, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	byID := map[int]*nodes.Param{}
	note := func(e nodes.Expr) {
		if e == nil {
			return
		}
		nodes.WalkExpr(e, func(x nodes.Expr) {
			if p, ok := x.(*nodes.Param); ok {
				byID[p.ID] = p
			}
		})
	}
	for _, e := range append(append([]nodes.Expr{sel.Limit}, sel.Where...), sel.GroupBy...) {
		note(e)
	}
	for _, k := range sel.OrderBy {
		note(k.Expr)
	}
	out := make([]*nodes.Param, len(ids))
	for i, id := range ids {
		if out[i] = byID[id]; out[i] == nil {
			return nil, pgerr.Internal("planner: the remote query reads parameter $%d from outside its WHERE", id)
		}
	}
	return out, nil
}

// pushSortLimit ships ORDER BY and LIMIT into a foreign scan that is the
// whole query (no local filter or projection in the way): it returns the
// rewritten scan, or nil when it cannot. Over a pushed-down join or its
// pushed aggregate, pushJoinSortLimit decides (foreign_join.go).
func (pc *planCtx) pushSortLimit(p nodes.Plan) nodes.Plan {
	if !pc.pushdown() {
		return nil
	}
	var lim *nodes.Limit
	if l, ok := p.(*nodes.Limit); ok {
		lim, p = l, l.Child
	}
	var srt *nodes.Sort
	if s, ok := p.(*nodes.Sort); ok {
		srt, p = s, s.Child
	}
	fs, ok := p.(*nodes.ForeignScan)
	if ok && fs.Join != nil && (srt != nil || lim != nil) {
		return pc.pushJoinSortLimit(lim, srt, fs)
	}
	if !ok || fs.Filter != nil || fs.Grouped || fs.Limit != nil || fs.Relations != "" || (srt == nil && lim == nil) {
		return nil
	}
	c := *fs
	if srt != nil {
		// Sort keys are over the scan's output: with a projection, they
		// must be plain columns of the scan to be shipped.
		for _, k := range srt.Keys {
			ref := k.Expr.(*nodes.ColumnRef)
			var expr nodes.Expr
			if fs.Targets != nil {
				expr = fs.Targets[ref.Index]
			} else {
				expr = &nodes.ColumnRef{Index: ref.Index, Name: fs.Table.Columns[fs.Columns[ref.Index]].Name, T: ref.T}
			}
			if !remote.Shippable(expr) || !sortableRemotely(expr.Type()) {
				return nil
			}
			c.OrderBy = append(c.OrderBy, nodes.SortKey{Expr: expr, Desc: k.Desc, NullsFirst: k.NullsFirst})
		}
	}
	if lim != nil {
		if lim.Offset != nil {
			return nil
		}
		if _, isConst := lim.Count.(*nodes.Const); !isConst {
			return nil
		}
		c.Limit = lim.Count
	}
	if err := pc.deparseScan(&c); err != nil {
		return nil
	}
	// Keep the local Sort/Limit on top: correct whatever the remote does,
	// and cheap on the few rows that come back.
	if srt != nil {
		s := *srt
		s.Child = &c
		p = &s
	} else {
		p = &c
	}
	if lim != nil {
		l := *lim
		l.Child = p
		return &l
	}
	return p
}

// sortableRemotely: text ordering differs between collations, so only
// types whose order is collation-free are sorted remotely.
func sortableRemotely(t types.T) bool { return !t.IsString() }

// pushAgg ships an aggregate over a single foreign table to the remote
// server: the scan then returns the group keys and aggregate results
// (the Agg's projection and HAVING stay local on top of it). It returns
// nil when something is not shippable or would differ remotely (text
// ordering inside min/max or aggregate ORDER BY depends on collation).
// Over a pushed-down join, pushJoinAgg does it (foreign_join.go).
func (pc *planCtx) pushAgg(agg *nodes.Agg) nodes.Plan {
	fs, ok := agg.Child.(*nodes.ForeignScan)
	if ok && fs.Join != nil && pc.pushdown() {
		return pc.pushJoinAgg(agg, fs)
	}
	if !ok || !pc.pushdown() || fs.Filter != nil || fs.Targets != nil || fs.Grouped || fs.Limit != nil || fs.Relations != "" {
		return nil
	}
	if !aggsShippable(agg.GroupKeys, agg.Aggs) {
		return nil // postgres_fdw ships FILTER when its qual is shippable, too
	}
	c := *fs
	c.Grouped, c.GroupKeys, c.Aggs = true, agg.GroupKeys, agg.Aggs
	c.Types = nil
	for _, k := range agg.GroupKeys {
		c.Types = append(c.Types, k.Type())
	}
	for _, a := range agg.Aggs {
		c.Types = append(c.Types, a.T)
	}
	c.Relations = "Aggregate on (" + nodes.QuoteIdent(fs.Table.Schema) + "." + nodes.QuoteIdent(fs.Table.Name) + " " + nodes.QuoteIdent(fs.Alias) + ")"
	c.Filter, c.Targets, c.Out = agg.Filter, agg.Targets, agg.Out
	if err := pc.deparseScan(&c); err != nil {
		return nil
	}
	return &c
}
