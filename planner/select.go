package planner

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// relPlan is a planned query: its plan, output columns, and how many of
// them are visible (the rest are sort-only "junk" columns).
type relPlan struct {
	plan    nodes.Plan
	visible int
}

func (r *relPlan) out() []nodes.Field { return r.plan.Base().Out }

// source is a planned FROM item whose leaf node is built last, once every
// expression has registered the columns it reads.
type source struct {
	scope  *scope
	fields func() []nodes.Field // the source's own rows, for Agg inputs
	finish func(filter nodes.Expr, targets []nodes.Expr, out []nodes.Field) (nodes.Plan, error)
	// numberPartitions names every partition scan alias_N, even a single
	// survivor of pruning, as PostgreSQL does for the target of UPDATE and
	// DELETE (a SELECT's lone survivor keeps the bare alias).
	numberPartitions bool
	// foreignLeaf, when set, plans the foreign leaves instead of a plain
	// foreign scan (UPDATE and DELETE: a scan for update, or a shipped
	// modification); cols are the table columns the rows read.
	foreignLeaf func(leaf *storage.Table, alias string, cols []int, filter nodes.Expr, targets []nodes.Expr, out []nodes.Field) (nodes.Plan, error)
	// target, for the join an UPDATE or DELETE reads, is the source of
	// the table it changes (relation 0 of the join).
	target *source
	// rowsReading, when set, is rowsFor's plan for this source.
	rowsReading func(filter nodes.Expr, reads []nodes.Expr) (nodes.Plan, []int, error)
}

// rowsFor plans the source's own rows (finish(filter, nil, nil)) for a
// reader, such as an Agg, of only the columns reads reference. A join
// source then returns only those, instead of carrying every column a
// WHERE or join condition read below up through its joins and hash
// tables; pos maps a column of the source's own rows to its position in
// the plan's (nil: the same).
func (s *source) rowsFor(filter nodes.Expr, reads []nodes.Expr) (plan nodes.Plan, pos []int, err error) {
	if s.rowsReading != nil {
		return s.rowsReading(filter, reads)
	}
	plan, err = s.finish(filter, nil, nil)
	return plan, nil, err
}

// aggInput plans an Agg's input from src: only the columns its keys and
// aggregates read, which it makes read the plan's positions.
func aggInput(src *source, where nodes.Expr, keys []nodes.Expr, aggs []*nodes.AggCall) (nodes.Plan, error) {
	reads := append([]nodes.Expr(nil), keys...)
	for _, a := range aggs {
		reads = append(append(reads, a.Args...), a.Filter)
		for _, k := range a.OrderBy {
			reads = append(reads, k.Expr)
		}
	}
	plan, pos, err := src.rowsFor(where, reads)
	if err != nil || pos == nil {
		return plan, err
	}
	to := func(e nodes.Expr) nodes.Expr {
		if e == nil {
			return nil
		}
		return mapColumns(e, func(i int) int { return pos[i] })
	}
	for i := range keys {
		keys[i] = to(keys[i])
	}
	for _, a := range aggs {
		args := make([]nodes.Expr, len(a.Args))
		for i, x := range a.Args {
			args[i] = to(x)
		}
		order := append([]nodes.SortKey(nil), a.OrderBy...)
		for i := range order {
			order[i].Expr = to(order[i].Expr)
		}
		a.Args, a.Filter, a.OrderBy = args, to(a.Filter), order
	}
	return plan, nil
}

// planSelect plans one query level; the InitPlans of its expressions
// run before its top node.
func (pc *planCtx) planSelect(s *pg.SelectStmt) (*relPlan, error) {
	saved := pc.initPlans
	pc.initPlans = nil
	r, err := pc.planSelectLevel(s)
	inits := pc.initPlans
	pc.initPlans = saved
	if err != nil {
		return nil, err
	}
	if len(inits) > 0 {
		b := r.plan.Base()
		b.InitPlans = append(b.InitPlans, inits...)
	}
	return r, nil
}

func (pc *planCtx) planSelectLevel(s *pg.SelectStmt) (*relPlan, error) {
	if w := s.WithClause; w != nil {
		s.WithClause = nil
		defer func() { s.WithClause = w }()
		return pc.withCTEs(w, s, func() (*relPlan, error) { return pc.planSelect(s) })
	}
	if len(s.LockingClause) > 0 {
		return nil, pgerr.NotSupported("FOR UPDATE/SHARE")
	}
	if s.IntoClause != nil {
		return nil, pgerr.NotSupported("SELECT INTO")
	}
	if s.Op != pg.SetOperation_SETOP_NONE {
		return pc.planSetOp(s)
	}
	if len(s.ValuesLists) > 0 {
		vs, err := pc.planValues(s.ValuesLists, "*VALUES*")
		if err != nil {
			return nil, err
		}
		return pc.planSortLimit(&relPlan{plan: vs, visible: len(vs.Out)}, s, nil, nil)
	}
	return pullRetry(pc, func() (*relPlan, error) { return pc.planSelectFrom(s) })
}

// planSelectFrom plans a query level's FROM and the rest of it.
func (pc *planCtx) planSelectFrom(s *pg.SelectStmt) (*relPlan, error) {
	if pulled, rest := pc.splitSublinks(s.WhereClause); (len(pulled) > 0 || hasScalarSublink(rest) || targetsHaveScalarSublink(s.TargetList)) && len(s.FromClause) > 0 {
		src, err := pc.planJoinFrom(s.FromClause, pulled...)
		if err != nil {
			return nil, err
		}
		// The pulled conjuncts are the joins now; the body sees the rest.
		where := s.WhereClause
		s.WhereClause = rest
		defer func() { s.WhereClause = where }()
		return pc.planQueryBody(s, src)
	}
	src, err := pc.planFrom(s.FromClause)
	if err != nil {
		return nil, err
	}
	return pc.planQueryBody(s, src)
}

func (pc *planCtx) planFrom(from []*pg.Node) (*source, error) {
	if len(from) == 0 {
		return &source{
			fields: func() []nodes.Field { return nil },
			finish: func(filter nodes.Expr, targets []nodes.Expr, out []nodes.Field) (nodes.Plan, error) {
				r := &nodes.Result{}
				if filter != nil {
					// WHERE without FROM is a one-time filter; keep it as a
					// filter on the single row.
					r.Filter = filter
				}
				r.Targets, r.Out = targets, out
				return r, nil
			},
		}, nil
	}
	if len(from) > 1 {
		return pc.planJoinFrom(from)
	}
	switch x := from[0].Node.(type) {
	case *pg.Node_RangeVar:
		if cte, frame := pc.lookupCTE(x.RangeVar); cte != nil {
			return pc.cteSource(cte, frame, x.RangeVar)
		}
		t, err := pc.resolveTable(x.RangeVar)
		if err != nil {
			return nil, err
		}
		alias := t.Name
		if x.RangeVar.Alias != nil {
			alias = x.RangeVar.Alias.Aliasname
			if len(x.RangeVar.Alias.Colnames) > 0 {
				return nil, pgerr.NotSupported("column aliases on tables")
			}
		}
		return pc.tableSource(t, alias), nil
	case *pg.Node_RangeSubselect:
		if x.RangeSubselect.Alias == nil {
			return nil, pgerr.New(pgerr.SyntaxError, "subquery in FROM must have an alias").
				WithHint("For example, FROM (SELECT ...) [AS] foo.")
		}
		sub, err := pc.planSelect(x.RangeSubselect.Subquery.GetSelectStmt())
		if err != nil {
			return nil, err
		}
		return subquerySource(stripJunk(sub), x.RangeSubselect.Alias.Aliasname, x.RangeSubselect.Alias, true)
	case *pg.Node_RangeFunction:
		return pc.functionSource(x.RangeFunction)
	case *pg.Node_JoinExpr:
		return pc.planJoinFrom(from)
	}
	return nil, pgerr.NotSupported("this FROM item")
}

// subquerySource is a planned subquery in FROM, called alias, its
// columns renamed by the alias's column list. Its scope is lazy, like a
// table's: the subquery outputs only the columns the query names, so an
// unused output column is never computed (as PostgreSQL removes unused
// subquery outputs), unless lazy is false.
func subquerySource(child nodes.Plan, alias string, colAlias *pg.Alias, lazy bool) (*source, error) {
	fields, err := renameFields(child.Base().Out, colAlias)
	if err != nil {
		return nil, err
	}
	sc := newFieldScope(alias, fields)
	sc.lazy = true
	if !lazy {
		// Every column is computed (a MATERIALIZED CTE): register them all.
		for i := range fields {
			sc.ref(i)
		}
	}
	usedFields := func() []nodes.Field {
		cols := sc.readColumns()
		fs := make([]nodes.Field, len(cols))
		for i, c := range cols {
			fs[i] = fields[c]
		}
		return fs
	}
	return &source{
		scope:  sc,
		fields: usedFields,
		finish: func(filter nodes.Expr, targets []nodes.Expr, out []nodes.Field) (nodes.Plan, error) {
			used := sc.readColumns()
			if out == nil {
				out = usedFields()
			}
			inner, narrowed := narrow(child, used)
			if !narrowed {
				// Read the child's columns through a projection.
				in := make([]nodes.Expr, len(used))
				for i, c := range used {
					in[i] = &nodes.ColumnRef{Index: c, Name: fields[c].Name, T: fields[c].T}
				}
				ss := &nodes.SubqueryScan{Child: child, Alias: alias}
				ss.Targets, ss.Out = in, usedFields()
				inner = ss
			}
			if targets != nil && isIdentity(targets, inner.Base().Out) {
				targets = nil
			}
			if filter == nil && targets == nil {
				return relabelOut(inner, out), nil
			}
			ss := &nodes.SubqueryScan{Child: inner, Alias: alias}
			ss.Filter, ss.Targets, ss.Out = filter, targets, out
			return ss, nil
		},
	}, nil
}

// copyProjecting returns a shallow copy of p when p is a node whose
// projection (Targets) may be replaced; false for the others (Sort,
// Limit, Append ... whose rows are their input's).
func copyProjecting(p nodes.Plan) (nodes.Plan, bool) {
	switch n := p.(type) {
	case *nodes.SeqScan:
		c := *n
		return &c, true
	case *nodes.SubqueryScan:
		c := *n
		return &c, true
	case *nodes.Result:
		c := *n
		return &c, true
	case *nodes.FunctionScan:
		c := *n
		return &c, true
	case *nodes.ValuesScan:
		c := *n
		return &c, true
	case *nodes.Agg:
		c := *n
		return &c, true
	case *nodes.HashJoin:
		c := *n
		return &c, true
	case *nodes.NestedLoop:
		c := *n
		return &c, true
	case *nodes.MergeJoin:
		c := *n
		return &c, true
	case *nodes.ForeignScan:
		c := *n
		return &c, true
	}
	return p, false
}

// narrow returns p computing only its output columns cols, in that
// order, when p's own projection can be cut down (false: it cannot).
func narrow(p nodes.Plan, cols []int) (nodes.Plan, bool) {
	b := p.Base()
	if len(cols) == len(b.Out) {
		same := true
		for i, c := range cols {
			same = same && c == i
		}
		if same {
			return p, true
		}
	}
	targets := make([]nodes.Expr, len(cols))
	out := make([]nodes.Field, len(cols))
	for i, c := range cols {
		if b.Targets != nil {
			targets[i] = b.Targets[c]
		} else {
			targets[i] = &nodes.ColumnRef{Index: c, Name: b.Out[c].Name, T: b.Out[c].T}
		}
		out[i] = b.Out[c]
	}
	cp, ok := copyProjecting(p)
	if !ok {
		return p, false
	}
	cp.Base().Targets, cp.Base().Out = targets, out
	return cp, true
}

// relabelOut gives p's output columns new names (a shallow copy of the
// node, so the plan stays immutable for whoever else holds p).
func relabelOut(p nodes.Plan, out []nodes.Field) nodes.Plan {
	same := true
	for i, f := range p.Base().Out {
		if f.Name != out[i].Name {
			same = false
		}
	}
	if same {
		return p
	}
	switch n := p.(type) {
	case *nodes.ValuesScan:
		c := *n
		c.Out = out
		return &c
	}
	ss := &nodes.SubqueryScan{Child: p}
	ss.Out = out
	return ss
}

// renamed is p's output with the first columns named names.
func renamed(p nodes.Plan, names []*pg.Node) []nodes.Field {
	out := append([]nodes.Field(nil), p.Base().Out...)
	for i, n := range names {
		out[i].Name = n.GetString_().Sval
	}
	return out
}

func renameFields(fields []nodes.Field, alias *pg.Alias) ([]nodes.Field, error) {
	out := append([]nodes.Field(nil), fields...)
	if alias != nil {
		if len(alias.Colnames) > len(out) {
			return nil, pgerr.New(pgerr.InvalidColumnReference, "table %q has %d columns available but %d columns specified", alias.Aliasname, len(out), len(alias.Colnames))
		}
		for i, c := range alias.Colnames {
			out[i].Name = c.GetString_().Sval
		}
	}
	return out, nil
}

// isIdentity reports whether targets just pass the input columns through
// in order with the same types, so no projection is needed.
func isIdentity(targets []nodes.Expr, in []nodes.Field) bool {
	if len(targets) != len(in) {
		return false
	}
	for i, t := range targets {
		c, ok := t.(*nodes.ColumnRef)
		if !ok || c.Index != i || c.T != in[i].T {
			return false
		}
	}
	return true
}

// stripJunk projects away sort-only columns.
func stripJunk(r *relPlan) nodes.Plan {
	out := r.out()
	if r.visible == len(out) {
		return r.plan
	}
	targets := make([]nodes.Expr, r.visible)
	for i := range targets {
		targets[i] = &nodes.ColumnRef{Index: i, Name: out[i].Name, T: out[i].T}
	}
	ss := &nodes.SubqueryScan{Child: r.plan}
	ss.Targets, ss.Out = targets, out[:r.visible]
	return ss
}

// tableSource scans a table, or for a partitioned table, an Append of its
// (unpruned) leaf partitions.
func (pc *planCtx) tableSource(t *storage.Table, alias string) *source {
	sc := newTableScope(t, alias)
	fields := func() []nodes.Field {
		cols := sc.readColumns()
		fs := make([]nodes.Field, len(cols))
		for i, c := range cols {
			fs[i] = nodes.Field{Name: t.ColumnName(c), T: t.ColumnType(c)}
		}
		return fs
	}
	src := &source{scope: sc, fields: fields}
	src.finish = func(filter nodes.Expr, targets []nodes.Expr, out []nodes.Field) (nodes.Plan, error) {
		cols := sc.readColumns()
		if out == nil {
			out = fields()
		}
		if targets != nil && isIdentity(targets, fields()) {
			targets = nil
		}
		scan := func(leaf *storage.Table, a string) (nodes.Plan, error) {
			if leaf.Kind == storage.KindForeign && src.foreignLeaf != nil {
				return src.foreignLeaf(leaf, a, cols, filter, targets, out)
			}
			if leaf.Kind == storage.KindForeign {
				return pc.foreignScan(leaf, a, cols, filter, targets, out)
			}
			s := &nodes.SeqScan{Table: leaf, Alias: a, Columns: cols}
			s.Filter, s.Targets, s.Out = filter, targets, out
			return s, nil
		}
		if t.Kind != storage.KindPartitioned {
			return scan(t, alias)
		}
		// Partition scans are named after the parent's alias, numbered
		// when there are several (p_1, p_2), as PostgreSQL does.
		var kids []nodes.Plan
		survivors := pc.prunePartitions(t, filter, cols)
		for i, leaf := range survivors {
			a := alias
			if len(survivors) > 1 || src.numberPartitions {
				a = alias + "_" + itoa(i+1)
			}
			k, err := scan(leaf, a)
			if err != nil {
				return nil, err
			}
			kids = append(kids, k)
		}
		if len(kids) == 0 {
			r := &nodes.Result{Empty: true}
			r.Out = out
			return r, nil
		}
		if len(kids) == 1 {
			return kids[0], nil
		}
		app := &nodes.Append{Kids: kids}
		app.Out = out
		return app, nil
	}
	return src
}

func (pc *planCtx) functionSource(rf *pg.RangeFunction) (*source, error) {
	if rf.Ordinality || rf.IsRowsfrom || len(rf.Functions) != 1 {
		return nil, pgerr.NotSupported("this form of function in FROM")
	}
	items := rf.Functions[0].GetList().Items
	fc := items[0].GetFuncCall()
	if fc != nil && strings.ToLower(opName(fc.Funcname)) == "postgres_fdw_get_connections" && len(fc.Args) == 0 {
		return connectionsSource(rf), nil
	}
	if fc != nil {
		if name := strings.ToLower(opName(fc.Funcname)); name == "pgfed_prepared_xacts" || name == "pgfed_resolve_prepared" {
			return pc.preparedSource(rf, name, fc)
		}
	}
	if fc == nil || strings.ToLower(opName(fc.Funcname)) != "generate_series" {
		return nil, pgerr.NotSupported("functions in FROM other than generate_series, postgres_fdw_get_connections, pgfed_prepared_xacts and pgfed_resolve_prepared")
	}
	ec := &exprCtx{p: pc, clause: "functions in FROM"}
	args, err := ec.transformList(fc.Args)
	if err != nil {
		return nil, err
	}
	if len(args) < 2 || len(args) > 3 {
		return nil, errAt(funcMissing("generate_series", args), fc.Location)
	}
	args, t, err := coerceAll(args, "generate_series")
	if err != nil || !(t.ID == types.Int4 || t.ID == types.Int8 || t.ID == types.Int2 || t.ID == types.Numeric) {
		return nil, errAt(funcMissing("generate_series", args), fc.Location)
	}
	if t.ID == types.Int2 {
		t = types.Int4T
		for i := range args {
			args[i], _ = coerce(args[i], t, types.CastImplicit)
		}
	}
	name, alias := "generate_series", "generate_series"
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
		name = alias
		if len(rf.Alias.Colnames) > 0 {
			name = rf.Alias.Colnames[0].GetString_().Sval
		}
	}
	fields := []nodes.Field{{Name: name, T: t}}
	return &source{
		scope:  newFieldScope(alias, fields),
		fields: func() []nodes.Field { return fields },
		finish: func(filter nodes.Expr, targets []nodes.Expr, out []nodes.Field) (nodes.Plan, error) {
			fs := &nodes.FunctionScan{Func: "generate_series", Args: args, T: t, Alias: alias}
			fs.Filter, fs.Targets, fs.Out = filter, targets, out
			if out == nil {
				fs.Out = fields
			}
			return fs, nil
		},
	}, nil
}

// connectionsSource is postgres_fdw_get_connections(): the session's
// remote connections as (server_name text, valid boolean), PostgreSQL
// 15's columns.
func connectionsSource(rf *pg.RangeFunction) *source {
	alias := "postgres_fdw_get_connections"
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
	}
	fields := []nodes.Field{{Name: "server_name", T: types.TextT}, {Name: "valid", T: types.BoolT}}
	return &source{
		scope:  newFieldScope(alias, fields),
		fields: func() []nodes.Field { return fields },
		finish: func(filter nodes.Expr, targets []nodes.Expr, out []nodes.Field) (nodes.Plan, error) {
			fs := &nodes.FunctionScan{Func: "postgres_fdw_get_connections", Cols: fields, Alias: alias}
			fs.Filter, fs.Targets, fs.Out = filter, targets, out
			if out == nil {
				fs.Out = fields
			}
			return fs, nil
		},
	}
}

// preparedSource is pgfed_prepared_xacts(server) and
// pgfed_resolve_prepared(server): pgfed's prepared transactions on a
// server (remote/twophase.go), listed, or resolved and listed, as rows of
// (gid, decision_server, decision, action).
func (pc *planCtx) preparedSource(rf *pg.RangeFunction, name string, fc *pg.FuncCall) (*source, error) {
	if len(fc.Args) != 1 {
		return nil, pgerr.New(pgerr.UndefinedFunction, "function %s() takes one argument, the server name", name)
	}
	ec := &exprCtx{p: pc, clause: "functions in FROM"}
	arg, err := ec.transform(fc.Args[0])
	if err != nil {
		return nil, err
	}
	if arg, err = coerce(arg, types.TextT, types.CastImplicit); err != nil {
		return nil, err
	}
	alias := name
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
	}
	fields := []nodes.Field{{Name: "gid", T: types.TextT}, {Name: "decision_server", T: types.TextT},
		{Name: "decision", T: types.TextT}, {Name: "action", T: types.TextT}}
	return &source{
		scope:  newFieldScope(alias, fields),
		fields: func() []nodes.Field { return fields },
		finish: func(filter nodes.Expr, targets []nodes.Expr, out []nodes.Field) (nodes.Plan, error) {
			fs := &nodes.FunctionScan{Func: name, Args: []nodes.Expr{arg}, Cols: fields, Alias: alias}
			fs.Filter, fs.Targets, fs.Out = filter, targets, out
			if out == nil {
				fs.Out = fields
			}
			return fs, nil
		},
	}, nil
}

// planValues plans a VALUES list: column types are the common types of
// each column (unknown literals become text).
func (pc *planCtx) planValues(lists []*pg.Node, alias string) (*nodes.ValuesScan, error) {
	ec := &exprCtx{p: pc, clause: "VALUES"}
	var rows [][]nodes.Expr
	for _, l := range lists {
		row, err := ec.transformList(l.GetList().Items)
		if err != nil {
			return nil, err
		}
		if len(rows) > 0 && len(row) != len(rows[0]) {
			return nil, pgerr.New(pgerr.SyntaxError, "VALUES lists must all be the same length")
		}
		rows = append(rows, row)
	}
	ncols := len(rows[0])
	vs := &nodes.ValuesScan{Rows: rows}
	for c := 0; c < ncols; c++ {
		col := make([]nodes.Expr, len(rows))
		for r := range rows {
			col[r] = rows[r][c]
		}
		col, t, err := coerceAll(col, "VALUES")
		if err != nil {
			return nil, err
		}
		for r := range rows {
			rows[r][c] = col[r]
		}
		vs.Types = append(vs.Types, t)
		vs.Out = append(vs.Out, nodes.Field{Name: "column" + itoa(c+1), T: t})
	}
	return vs, nil
}

// target is one output column while planning.
type target struct {
	expr nodes.Expr
	name string
}

func (pc *planCtx) planQueryBody(s *pg.SelectStmt, src *source) (*relPlan, error) {
	var aggs []*nodes.AggCall
	var windows []*windowCall
	savedClause, savedWindows := pc.windowClause, pc.windows
	pc.windowClause, pc.windows = s.WindowClause, &windows
	defer func() { pc.windowClause, pc.windows = savedClause, savedWindows }()
	var where nodes.Expr
	if s.WhereClause != nil {
		ec := &exprCtx{p: pc, scope: src.scope, clause: "WHERE"}
		w, err := ec.transform(s.WhereClause)
		if err != nil {
			return nil, err
		}
		if where, err = requireBool(w, "argument of WHERE"); err != nil {
			return nil, err
		}
	}
	keepUnknown := pc.keepUnknown
	pc.keepUnknown = false
	tec := &exprCtx{p: pc, scope: src.scope, aggs: &aggs, windows: &windows}
	targets, err := tec.selectList(s.TargetList, keepUnknown)
	if err != nil {
		return nil, err
	}
	var having nodes.Expr
	if s.HavingClause != nil {
		hec := &exprCtx{p: pc, scope: src.scope, aggs: &aggs, clause: "HAVING"}
		h, err := hec.transform(s.HavingClause)
		if err != nil {
			return nil, err
		}
		if having, err = requireBool(h, "argument of HAVING"); err != nil {
			return nil, err
		}
	}
	distinct := len(s.DistinctClause) > 0
	var distinctOnKeys []nodes.SortKey
	var distinctOn []*pg.Node
	for _, d := range s.DistinctClause {
		if d != nil && d.Node != nil {
			distinctOn = append(distinctOn, d)
		}
	}
	var uniqueKeys []int
	if len(distinctOn) > 0 {
		distinct = false
		items := make([]*pg.Node, len(distinctOn))
		for i, d := range distinctOn {
			items[i] = &pg.Node{Node: &pg.Node_SortBy{SortBy: &pg.SortBy{Node: d, SortbyDir: pg.SortByDir_SORTBY_DEFAULT, SortbyNulls: pg.SortByNulls_SORTBY_NULLS_DEFAULT, Location: -1}}}
		}
		onKeys, err := pc.sortTargets(items, &targets, src.scope, &aggs, false)
		if err != nil {
			return nil, err
		}
		for _, k := range onKeys {
			uniqueKeys = append(uniqueKeys, k.Expr.(*nodes.ColumnRef).Index)
		}
		distinctOnKeys = onKeys
	}
	sortKeys, err := pc.sortTargets(s.SortClause, &targets, src.scope, &aggs, distinct)
	if err != nil {
		return nil, err
	}
	if uniqueKeys != nil {
		if len(sortKeys) == 0 {
			sortKeys = distinctOnKeys
		} else if !prefixMatches(sortKeys, uniqueKeys) {
			return nil, pgerr.New(pgerr.InvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions")
		}
	}
	visible := len(targets) - countJunk(targets, sortKeys)
	grouped := len(s.GroupClause) > 0 || len(aggs) > 0 || having != nil || hasGroupingRef(targetExprs(targets)...)
	var plan nodes.Plan
	out := make([]nodes.Field, len(targets))
	exprs := make([]nodes.Expr, len(targets))
	for i, t := range targets {
		out[i] = nodes.Field{Name: t.name, T: t.expr.Type()}
		exprs[i] = t.expr
	}
	if !grouped && len(windows) > 0 {
		input, err := src.finish(where, nil, nil)
		if err != nil {
			return nil, err
		}
		if plan, err = windowPlan(input, windows, exprs, out); err != nil {
			return nil, err
		}
	} else if !grouped {
		if !distinct {
			pc.queryOrder = queryOrder(sortKeys, exprs) // a merge join may return rows in this order (pathkeys.go)
		}
		plan, err = src.finish(where, exprs, out)
		pc.queryOrder = nil
		if err != nil {
			return nil, err
		}
	} else {
		gec := &exprCtx{p: pc, scope: src.scope, clause: "GROUP BY"}
		var keys []nodes.Expr
		var sets [][]int
		if hasGroupingSets(s) {
			spec, err := pc.groupingSets(s, gec, targets, visible, sortKeys)
			if err != nil {
				return nil, err
			}
			keys, sets = spec.keys, spec.sets
		} else {
			for _, g := range s.GroupClause {
				k, err := pc.groupKey(g, gec, targets[:visible])
				if err != nil {
					return nil, err
				}
				keys = append(keys, k)
			}
		}
		l := &lifter{keys: keys, nkeys: len(keys), sets: sets, naggs: len(aggs)}
		if src.scope != nil {
			l.alias = src.scope.alias
		}
		for i := range exprs {
			if exprs[i], err = l.lift(exprs[i]); err != nil {
				return nil, err
			}
		}
		if having != nil {
			if having, err = l.lift(having); err != nil {
				return nil, err
			}
		}
		child, err := aggInput(src, where, keys, aggs)
		if err != nil {
			return nil, err
		}
		agg := &nodes.Agg{Child: child, GroupKeys: keys, Aggs: aggs, GroupingSets: sets, Groupings: l.groupings}
		if len(keys) > 0 {
			agg.Strategy = nodes.AggHashed
		}
		agg.Filter, agg.Targets, agg.Out = having, exprs, out
		plan = agg
		if len(windows) > 0 {
			// Windows read the groups: the Agg's own rows, then the
			// select list over the windows' results.
			if err := liftWindows(l, windows); err != nil {
				return nil, err
			}
			agg.Groupings = l.groupings // also those the windows' arguments call
			agg.Targets, agg.Out = nil, append(aggRowFields(keys, aggs), groupingFields(keys, l.groupings)...)
			if plan, err = windowPlan(agg, windows, exprs, out); err != nil {
				return nil, err
			}
		} else if sets != nil {
			plan = agg // grouping sets: one Agg here, never pushed down or split
		} else if pushed := pc.pushAgg(agg); pushed != nil {
			plan = pushed
		} else if split := pc.partitionwiseAgg(agg); split != nil {
			plan = split
		}
	}
	if distinct {
		keys := make([]nodes.Expr, len(out))
		for i, f := range out {
			keys[i] = &nodes.ColumnRef{Index: i, Name: f.Name, T: f.T}
		}
		d := &nodes.Agg{Child: plan, Strategy: nodes.AggHashed, GroupKeys: keys}
		d.Out = out
		plan = d
	}
	r, err := pc.planSortLimit(&relPlan{plan: plan, visible: visible}, s, sortKeys, uniqueKeys)
	if err != nil {
		return nil, err
	}
	if pushed := pc.pushSortLimit(r.plan); pushed != nil {
		r.plan = pushed
	}
	return r, nil
}

// prefixMatches reports whether the first len(unique) sort keys are the
// DISTINCT ON columns, in any order.
func prefixMatches(keys []nodes.SortKey, unique []int) bool {
	if len(keys) < len(unique) {
		// ORDER BY may be shorter only if every key is a DISTINCT ON column.
		for _, k := range keys {
			if !containsInt(unique, k.Expr.(*nodes.ColumnRef).Index) {
				return false
			}
		}
		return true
	}
	for _, k := range keys[:len(unique)] {
		if !containsInt(unique, k.Expr.(*nodes.ColumnRef).Index) {
			return false
		}
	}
	return true
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func countJunk(targets []target, keys []nodes.SortKey) int {
	n := 0
	for _, t := range targets {
		if t.name == junkName {
			n++
		}
	}
	return n
}

const junkName = "?junk?"

// sortTargets resolves ORDER BY items to target-list positions, adding
// junk targets for expressions not in the select list.
func (pc *planCtx) sortTargets(items []*pg.Node, targets *[]target, sc *scope, aggs *[]*nodes.AggCall, distinct bool) ([]nodes.SortKey, error) {
	var keys []nodes.SortKey
	for _, it := range items {
		sb := it.GetSortBy()
		if sb.SortbyDir == pg.SortByDir_SORTBY_USING {
			return nil, pgerr.NotSupported("ORDER BY USING")
		}
		idx := -1
		if c := sb.Node.GetAConst(); c != nil && c.GetIval() != nil {
			pos := int(c.GetIval().Ival)
			if pos < 1 || pos > len(*targets) {
				return nil, errAt(pgerr.New(pgerr.InvalidColumnReference, "ORDER BY position %d is not in select list", pos), c.Location)
			}
			idx = pos - 1
		} else if cr := sb.Node.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
			name := cr.Fields[0].GetString_().Sval
			for i, t := range *targets {
				if t.name == name {
					if idx >= 0 {
						return nil, errAt(pgerr.New(pgerr.AmbiguousColumn, "ORDER BY %q is ambiguous", name), cr.Location)
					}
					idx = i
				}
			}
		}
		if idx < 0 {
			ec := &exprCtx{p: pc, scope: sc, aggs: aggs, clause: "ORDER BY", windows: pc.windows}
			e, err := ec.transform(sb.Node)
			if err != nil {
				return nil, err
			}
			if e.Type().ID == types.Unknown {
				e, _ = coerce(e, types.TextT, types.CastImplicit)
			}
			for i, t := range *targets {
				if nodes.Equal(stripImplicit(t.expr), e) {
					idx = i
					break
				}
			}
			if idx < 0 {
				if distinct {
					return nil, errAt(pgerr.New(pgerr.InvalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list"), sb.Location)
				}
				*targets = append(*targets, target{expr: e, name: junkName})
				idx = len(*targets) - 1
			}
		}
		t := (*targets)[idx]
		desc, nullsFirst := sortDirection(sb)
		keys = append(keys, nodes.SortKey{Expr: &nodes.ColumnRef{Index: idx, Name: displayName(t), T: t.expr.Type(), Raw: true}, Desc: desc, NullsFirst: nullsFirst})
	}
	return keys, nil
}

// displayName is how a sort key over target t prints in EXPLAIN: the
// target's expression, as PostgreSQL shows Sort Key.
func displayName(t target) string {
	switch e := t.expr.(type) {
	case *nodes.ColumnRef:
		if !e.Raw {
			return e.String()
		}
	case *nodes.Const:
		return e.String()
	}
	return "(" + t.expr.String() + ")"
}

// planSortLimit adds Sort and Limit on top of a planned body.
func (pc *planCtx) planSortLimit(r *relPlan, s *pg.SelectStmt, keys []nodes.SortKey, unique []int) (*relPlan, error) {
	if len(keys) == 0 && len(s.SortClause) > 0 {
		// VALUES / UNION bodies: resolve ORDER BY against their output.
		out := r.out()
		targets := make([]target, len(out))
		for i, f := range out {
			targets[i] = target{expr: &nodes.ColumnRef{Index: i, Name: f.Name, T: f.T}, name: f.Name}
		}
		sc := newFieldScope("", out)
		var err error
		if keys, err = pc.sortTargets(s.SortClause, &targets, sc, nil, false); err != nil {
			return nil, err
		}
		if len(targets) > len(out) {
			return nil, pgerr.NotSupported("ORDER BY expressions over UNION/VALUES results")
		}
	}
	plan := r.plan
	var bound int64
	if s.LimitOption == pg.LimitOption_LIMIT_OPTION_WITH_TIES {
		return nil, pgerr.NotSupported("FETCH ... WITH TIES")
	}
	var count, offset nodes.Expr
	ec := &exprCtx{p: pc, clause: "LIMIT"}
	var err error
	if s.LimitCount != nil {
		if count, err = pc.limitExpr(ec, s.LimitCount, "LIMIT"); err != nil {
			return nil, err
		}
	}
	if s.LimitOffset != nil {
		if offset, err = pc.limitExpr(ec, s.LimitOffset, "OFFSET"); err != nil {
			return nil, err
		}
	}
	if len(keys) > 0 && !outputOrder(plan).satisfies(keys) { // rows already in order need no Sort (pathkeys.go)
		if c, ok := count.(*nodes.Const); ok && c.Value != nil {
			bound = c.Value.(int64)
			if o, ok := offset.(*nodes.Const); ok && o.Value != nil {
				bound += o.Value.(int64)
			} else if offset != nil {
				bound = 0
			}
		}
		if unique != nil {
			bound = 0
		}
		srt := &nodes.Sort{Child: plan, Keys: keys, Bound: bound}
		srt.Out = plan.Base().Out
		plan = srt
	}
	if unique != nil {
		u := &nodes.Unique{Child: plan, Keys: unique}
		u.Out = plan.Base().Out
		plan = u
	}
	if count != nil || offset != nil {
		if c, ok := count.(*nodes.Const); ok && c.Value == nil && offset == nil {
			return &relPlan{plan: plan, visible: r.visible}, nil // LIMIT ALL / NULL
		}
		lim := &nodes.Limit{Child: plan, Count: count, Offset: offset}
		lim.Out = plan.Base().Out
		plan = lim
	}
	return &relPlan{plan: plan, visible: r.visible}, nil
}

func (pc *planCtx) limitExpr(ec *exprCtx, n *pg.Node, what string) (nodes.Expr, error) {
	if HasColumnRef(n) {
		return nil, pgerr.New(pgerr.InvalidColumnReference, "argument of %s must not contain variables", what)
	}
	e, err := ec.transform(n)
	if err != nil {
		return nil, err
	}
	if t := e.Type(); t.ID != types.Unknown && !types.CanCast(t, types.Int8T, types.CastAssignment) || t.ID == types.Bool {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "argument of %s must be type bigint, not type %s", what, t)
	}
	return coerce(e, types.Int8T, types.CastAssignment)
}

// groupKey resolves one GROUP BY item: an ordinal, an output-column
// name that is not an input column, or an expression over the input.
func (pc *planCtx) groupKey(g *pg.Node, ec *exprCtx, targets []target) (nodes.Expr, error) {
	if c := g.GetAConst(); c != nil && c.GetIval() != nil {
		pos := int(c.GetIval().Ival)
		if pos < 1 || pos > len(targets) {
			return nil, errAt(pgerr.New(pgerr.InvalidColumnReference, "GROUP BY position %d is not in select list", pos), c.Location)
		}
		e := targets[pos-1].expr
		if hasAgg(e) {
			return nil, errAt(pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in GROUP BY"), c.Location)
		}
		return e, nil
	}
	e, err := ec.transform(g)
	if err != nil {
		if cr := g.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && pgerr.Code(err) == pgerr.UndefinedColumn {
			name := cr.Fields[0].GetString_().Sval
			for _, t := range targets {
				if t.name == name {
					if hasAgg(t.expr) {
						return nil, errAt(pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in GROUP BY"), cr.Location)
					}
					return t.expr, nil
				}
			}
		}
		return nil, err
	}
	if e.Type().ID == types.Unknown {
		e, _ = coerce(e, types.TextT, types.CastImplicit)
	}
	return e, nil
}

// stripImplicit removes the implicit coercions at the top of e. An ORDER
// BY item matches a select-list entry or an aggregate argument that
// differs from it only by such a coercion, and then adopts its type, as
// in PostgreSQL's findTargetlistEntrySQL99.
func stripImplicit(e nodes.Expr) nodes.Expr {
	for {
		c, ok := e.(*nodes.Cast)
		if !ok || c.Explicit {
			return e
		}
		e = c.Arg
	}
}

// HasColumnRef reports whether a parse tree names a column (a DEFAULT or a
// LIMIT must not).
func HasColumnRef(n *pg.Node) bool {
	return anyParseNode(n, func(x *pg.Node) bool { return x.GetColumnRef() != nil }, nil)
}

func hasAgg(e nodes.Expr) bool {
	found := false
	walkAll(e, func(x nodes.Expr) {
		if _, ok := x.(*aggRef); ok {
			found = true
		}
	})
	return found
}

// lifter rewrites expressions over an Agg's input into expressions over
// its output: group-key subtrees become key columns, aggregate calls
// become aggregate columns, and any other input column is an error.
type lifter struct {
	keys  []nodes.Expr
	nkeys int
	alias string // the FROM item's name, for error messages
	// sets are the grouping sets (grouping_sets.go; nil: none), naggs the
	// aggregates, and groupings the grouping() calls lifted so far, whose
	// columns follow the aggregates.
	sets      [][]int
	naggs     int
	groupings [][]int
}

func (l *lifter) lift(e nodes.Expr) (nodes.Expr, error) {
	for i, k := range l.keys {
		if nodes.Equal(k, e) {
			return &nodes.ColumnRef{Index: i, Name: k.String(), T: k.Type(), Raw: true}, nil
		}
	}
	switch x := e.(type) {
	case *aggRef:
		return &nodes.ColumnRef{Index: l.nkeys + x.idx, Name: x.String(), T: x.Type(), Raw: true}, nil
	case *groupingRef:
		return l.liftGrouping(x)
	case *nodes.ColumnRef:
		name := x.Name
		if l.alias != "" {
			name = l.alias + "." + name
		}
		return nil, pgerr.New(pgerr.GroupingError, "column %q must appear in the GROUP BY clause or be used in an aggregate function", name)
	case *nodes.Const:
		return x, nil
	}
	return mapChildren(e, l.lift)
}

func itoa(i int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(i))
}

// sortDirection is an ORDER BY item's direction and NULLS placement
// (NULLS FIRST is the default for DESC, as in PostgreSQL).
func sortDirection(sb *pg.SortBy) (desc, nullsFirst bool) {
	desc = sb.SortbyDir == pg.SortByDir_SORTBY_DESC
	nullsFirst = desc
	switch sb.SortbyNulls {
	case pg.SortByNulls_SORTBY_NULLS_FIRST:
		nullsFirst = true
	case pg.SortByNulls_SORTBY_NULLS_LAST:
		nullsFirst = false
	}
	return desc, nullsFirst
}

// selectList transforms a select list in c's scope, expanding * and
// naming each entry as PostgreSQL's FigureColname; untyped literals
// become text unless keepUnknown.
func (c *exprCtx) selectList(list []*pg.Node, keepUnknown bool) ([]target, error) {
	var targets []target
	for _, n := range list {
		rt := n.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil {
			if _, star := cr.Fields[len(cr.Fields)-1].Node.(*pg.Node_AStar); star {
				if c.scope == nil {
					return nil, errAt(pgerr.New(pgerr.SyntaxError, "SELECT * with no tables specified is not valid"), cr.Location)
				}
				var qual []string
				for _, f := range cr.Fields[:len(cr.Fields)-1] {
					qual = append(qual, f.GetString_().Sval)
				}
				ts, err := c.scope.star(qual)
				if err != nil {
					return nil, errAt(err, cr.Location)
				}
				targets = append(targets, ts...)
				continue
			}
		}
		e, err := c.transform(rt.Val)
		if err != nil {
			return nil, err
		}
		if e.Type().ID == types.Unknown && !keepUnknown {
			e, _ = coerce(e, types.TextT, types.CastImplicit)
		}
		name := rt.Name
		if name == "" {
			name = figureColname(rt.Val)
		}
		targets = append(targets, target{expr: e, name: name})
	}
	return targets, nil
}
