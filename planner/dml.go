package planner

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/remote"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// planInsert plans INSERT ... VALUES | SELECT: the source rows are
// projected into complete rows of the target (defaults for omitted
// columns, assignment casts for the rest).
func (pc *planCtx) planInsert(s *pg.InsertStmt) (*Query, error) {
	if s.WithClause != nil {
		return nil, pgerr.NotSupported("WITH")
	}
	if s.OnConflictClause != nil {
		return nil, pgerr.NotSupported("ON CONFLICT")
	}
	t, err := pc.resolveTable(s.Relation)
	if err != nil {
		return nil, err
	}
	// Target columns, in the order the source provides them.
	var cols []int
	if len(s.Cols) == 0 {
		for i := range t.Columns {
			cols = append(cols, i)
		}
	} else {
		seen := map[int]bool{}
		for _, c := range s.Cols {
			rt := c.GetResTarget()
			if len(rt.Indirection) > 0 {
				return nil, pgerr.NotSupported("INSERT into subfields")
			}
			i := t.ColumnIndex(rt.Name)
			if i < 0 {
				return nil, errAt(pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", rt.Name, t.Name), rt.Location)
			}
			if seen[i] {
				return nil, errAt(pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", rt.Name), rt.Location)
			}
			seen[i] = true
			cols = append(cols, i)
		}
	}
	// The source: DEFAULT VALUES (no SelectStmt), a VALUES list (DEFAULT
	// allowed in it), or a query.
	var src nodes.Plan
	var srcOut []nodes.Field
	sel := s.SelectStmt.GetSelectStmt()
	switch {
	case sel == nil:
		r := &nodes.Result{}
		src, cols = r, nil
	case len(sel.ValuesLists) > 0 && len(sel.SortClause) == 0 && sel.LimitCount == nil:
		vs, err := pc.insertValues(t, cols, sel.ValuesLists)
		if err != nil {
			return nil, err
		}
		src, srcOut = vs, vs.Out
	default:
		// Untyped literals in the select list take the target columns'
		// types, as PostgreSQL's transformInsertStmt resolves them.
		pc.keepUnknown = true
		r, err := pc.planSelect(sel)
		pc.keepUnknown = false
		if err != nil {
			return nil, err
		}
		src = stripJunk(r)
		srcOut = src.Base().Out
	}
	if len(srcOut) > len(cols) {
		return nil, pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns")
	}
	if len(srcOut) < len(cols) && sel != nil && len(s.Cols) > 0 {
		return nil, pgerr.New(pgerr.SyntaxError, "INSERT has more target columns than expressions")
	}
	// Project the source into full rows of t.
	targets := make([]nodes.Expr, len(t.Columns))
	for k, c := range cols[:len(srcOut)] {
		ref := &nodes.ColumnRef{Index: k, Name: srcOut[k].Name, T: srcOut[k].T}
		e, err := coerceAssign(ref, t.Columns[c])
		if err != nil {
			return nil, err
		}
		targets[c] = e
	}
	for c := range targets {
		if targets[c] == nil {
			d, err := pc.defaultExpr(t, c)
			if err != nil {
				return nil, err
			}
			targets[c] = d
		}
	}
	out := tableFields(t)
	proj := &nodes.SubqueryScan{Child: src}
	if r, ok := src.(*nodes.Result); ok && sel == nil {
		r.Targets, r.Out = targets, out
		proj = nil
	} else {
		proj.Targets, proj.Out = targets, out
	}
	child := src
	if proj != nil && !isIdentity(targets, srcOut) {
		child = proj
		if np, ok := copyProjecting(src); ok {
			// Fold the row's projection into the source's own, as
			// PostgreSQL's planner does: no Subquery Scan in between.
			if sb := src.Base(); sb.Targets != nil {
				for i := range targets {
					targets[i] = substitute(targets[i], sb.Targets)
				}
			}
			np.Base().Targets, np.Base().Out = targets, out
			child = np
		}
	}
	m := &nodes.ModifyTable{Op: nodes.Insert, Table: t, Child: child}
	if err := pc.planReturning(m, s.ReturningList); err != nil {
		return nil, err
	}
	if err := pc.planForeignInserts(m); err != nil {
		return nil, err
	}
	return modifyQuery(m, "INSERT"), nil
}

// insertValues plans the VALUES list of an INSERT: each value is coerced
// to its target column directly (so '1' goes into an int column), and
// DEFAULT takes the column default.
func (pc *planCtx) insertValues(t *storage.Table, cols []int, lists []*pg.Node) (*nodes.ValuesScan, error) {
	ec := &exprCtx{p: pc, clause: "VALUES"}
	vs := &nodes.ValuesScan{}
	for _, l := range lists {
		items := l.GetList().Items
		if len(items) > len(cols) {
			return nil, pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns")
		}
		if len(items) < len(cols) && len(vs.Rows) == 0 && len(items) != len(cols) {
			cols = cols[:len(items)]
		}
		if len(items) != len(cols) {
			return nil, pgerr.New(pgerr.SyntaxError, "VALUES lists must all be the same length")
		}
		row := make([]nodes.Expr, len(items))
		for k, it := range items {
			col := t.Columns[cols[k]]
			if _, isDefault := it.Node.(*pg.Node_SetToDefault); isDefault {
				d, err := pc.defaultExpr(t, cols[k])
				if err != nil {
					return nil, err
				}
				row[k] = d
				continue
			}
			e, err := ec.transform(it)
			if err != nil {
				return nil, err
			}
			if row[k], err = coerceAssign(e, col); err != nil {
				return nil, errAt(err, exprLocation(it))
			}
		}
		vs.Rows = append(vs.Rows, row)
	}
	for k, c := range cols {
		vs.Types = append(vs.Types, t.Columns[c].Type)
		vs.Out = append(vs.Out, nodes.Field{Name: "column" + itoa(k+1), T: t.Columns[c].Type})
	}
	return vs, nil
}

func exprLocation(n *pg.Node) int32 {
	switch x := n.Node.(type) {
	case *pg.Node_AConst:
		return x.AConst.Location
	case *pg.Node_ColumnRef:
		return x.ColumnRef.Location
	case *pg.Node_TypeCast:
		return x.TypeCast.Location
	case *pg.Node_AExpr:
		return x.AExpr.Location
	case *pg.Node_FuncCall:
		return x.FuncCall.Location
	}
	return -1
}

// coerceAssign converts e for storing into column col, with PostgreSQL's
// assignment error message.
func coerceAssign(e nodes.Expr, col storage.Column) (nodes.Expr, error) {
	if e.Type().ID != types.Unknown && !types.CanCast(e.Type(), col.Type, types.CastAssignment) {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "column %q is of type %s but expression is of type %s", col.Name, col.Type, e.Type()).
			WithHint("You will need to rewrite or cast the expression.")
	}
	if e.Type() == col.Type {
		return e, nil
	}
	// Lengths and numeric scales are enforced by an assignment cast even
	// between the same base types.
	if c, ok := e.(*nodes.Const); ok {
		if c.Value == nil {
			return &nodes.Const{T: col.Type}, nil
		}
		var v any
		var err error
		if c.T.ID == types.Unknown {
			v, err = types.Parse(col.Type, c.Value.(string))
		} else {
			v, err = types.Cast(c.Value, c.T, col.Type, false)
		}
		if err != nil {
			return nil, err
		}
		return &nodes.Const{T: col.Type, Value: v}, nil
	}
	return &nodes.Cast{Arg: e, T: col.Type}, nil
}

// DefaultExpr is column c of t's DEFAULT, coerced to the column's type
// (a NULL constant when it has none); COPY FROM fills omitted columns
// with it.
func (p *Planner) DefaultExpr(t *storage.Table, c int) (nodes.Expr, error) {
	return (&planCtx{Planner: p}).defaultExpr(t, c)
}

// defaultExpr is column c's DEFAULT (NULL when it has none).
func (pc *planCtx) defaultExpr(t *storage.Table, c int) (nodes.Expr, error) {
	col := t.Columns[c]
	if col.Default == "" {
		return &nodes.Const{T: col.Type}, nil
	}
	tree, err := Parse("SELECT " + col.Default)
	if err != nil {
		return nil, pgerr.Internal("bad stored default %q: %v", col.Default, err)
	}
	n := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
	ec := &exprCtx{p: pc, clause: "DEFAULT expressions"}
	e, err := ec.transform(n)
	if err != nil {
		return nil, err
	}
	return coerceAssign(e, col)
}

func tableFields(t *storage.Table) []nodes.Field {
	out := make([]nodes.Field, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = nodes.Field{Name: c.Name, T: c.Type}
	}
	return out
}

// fullRowScope is a scope over all columns of t, in table order (the rows
// UPDATE and DELETE evaluate their expressions on).
func fullRowScope(t *storage.Table, alias string) *scope {
	sc := newTableScope(t, alias)
	sc.lazy = false
	return sc
}

func (pc *planCtx) planUpdate(s *pg.UpdateStmt) (*Query, error) {
	if s.WithClause != nil {
		return nil, pgerr.NotSupported("WITH")
	}
	t, alias, err := pc.modifyTarget(s.Relation, "UPDATE of")
	if err != nil {
		return nil, err
	}
	src, whereClause, err := pc.modifySource(t, alias, s.FromClause, s.WhereClause)
	if err != nil {
		return nil, err
	}
	m := &nodes.ModifyTable{Op: nodes.Update, Table: t}
	ec := &exprCtx{p: pc, scope: src.scope, clause: "UPDATE"}
	var values []nodes.Expr
	var out []nodes.Field
	for _, n := range s.TargetList {
		rt := n.GetResTarget()
		if len(rt.Indirection) > 0 {
			return nil, pgerr.NotSupported("UPDATE of subfields")
		}
		c := t.ColumnIndex(rt.Name)
		if c < 0 {
			return nil, errAt(pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", rt.Name, t.Name), rt.Location)
		}
		var e nodes.Expr
		if _, isDefault := rt.Val.Node.(*pg.Node_SetToDefault); isDefault {
			if e, err = pc.defaultExpr(t, c); err != nil {
				return nil, err
			}
		} else {
			if e, err = ec.transform(rt.Val); err != nil {
				return nil, err
			}
			if e, err = coerceAssign(e, t.Columns[c]); err != nil {
				return nil, errAt(err, rt.Location)
			}
		}
		for _, prev := range m.SetCols {
			if prev == c {
				return nil, errAt(pgerr.New(pgerr.SyntaxError, "multiple assignments to same column %q", rt.Name), rt.Location)
			}
		}
		m.SetCols = append(m.SetCols, c)
		values = append(values, e)
		out = append(out, nodes.Field{Name: t.Columns[c].Name, T: t.Columns[c].Type})
	}
	where, err := pc.modifyWhere(whereClause, src.scope)
	if err != nil {
		return nil, err
	}
	if err := pc.planReturning(m, s.ReturningList); err != nil {
		return nil, err
	}
	if err := pc.modifyChild(m, src, where, values, out); err != nil {
		return nil, err
	}
	return modifyQuery(m, "UPDATE"), nil
}

func (pc *planCtx) planDelete(s *pg.DeleteStmt) (*Query, error) {
	if s.WithClause != nil {
		return nil, pgerr.NotSupported("WITH")
	}
	t, alias, err := pc.modifyTarget(s.Relation, "DELETE from")
	if err != nil {
		return nil, err
	}
	src, whereClause, err := pc.modifySource(t, alias, s.UsingClause, s.WhereClause)
	if err != nil {
		return nil, err
	}
	m := &nodes.ModifyTable{Op: nodes.Delete, Table: t}
	where, err := pc.modifyWhere(whereClause, src.scope)
	if err != nil {
		return nil, err
	}
	if err := pc.planReturning(m, s.ReturningList); err != nil {
		return nil, err
	}
	if err := pc.modifyChild(m, src, where, nil, nil); err != nil {
		return nil, err
	}
	return modifyQuery(m, "DELETE"), nil
}

// modifyTarget resolves the table an UPDATE or DELETE changes, and the
// name the statement calls it by.
func (pc *planCtx) modifyTarget(rv *pg.RangeVar, what string) (*storage.Table, string, error) {
	t, err := pc.resolveTable(rv)
	if err != nil {
		return nil, "", err
	}
	alias := t.Name
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
	}
	return t, alias, nil
}

func (pc *planCtx) modifyWhere(w *pg.Node, sc *scope) (nodes.Expr, error) {
	if w == nil {
		return nil, nil
	}
	if _, ok := w.Node.(*pg.Node_CurrentOfExpr); ok {
		return nil, pgerr.NotSupported("WHERE CURRENT OF")
	}
	ec := &exprCtx{p: pc, scope: sc, clause: "WHERE"}
	e, err := ec.transform(w)
	if err != nil {
		return nil, err
	}
	return requireBool(e, "argument of WHERE")
}

// modifyChild plans what UPDATE and DELETE read, as PostgreSQL does: the
// target's scans (pruned by the WHERE), producing the new values of the
// SET columns (UPDATE), then the row identity: tableoid for a
// partitioned target, and ctid. ModifyTable fetches the old rows by their
// identity. Leaves are the tables the scans read.
//
// A foreign leaf is changed by a ForeignModify that ships the statement
// whole when the WHERE and the new values can be evaluated remotely
// (pgfed.pushdown on); otherwise it is read FOR UPDATE, with its remote
// ctid, and changed row by row (a ForeignWrite). An UPDATE that does so
// also reads the whole old row (WholeRow), which the ModifyTable needs
// for a row that moves to another partition.
func (pc *planCtx) modifyChild(m *nodes.ModifyTable, src *source, where nodes.Expr, values []nodes.Expr, out []nodes.Field) error {
	direct := pc.shipsWhole(where, values)
	target := src
	if src.target != nil {
		// Joined to other relations (UPDATE ... FROM, DELETE ... USING):
		// the rows are changed one by one, once each.
		target, direct, m.MayRepeat = src.target, false, true
	}
	nset := len(values)
	if m.Table.Kind == storage.KindPartitioned {
		values = append(values, src.scope.system(storage.TableOIDColumn))
		out = append(out, nodes.Field{Name: "tableoid", T: types.Int8T})
	}
	values = append(values, src.scope.system(storage.CtidColumn))
	out = append(out, nodes.Field{Name: "ctid", T: types.Int8T})
	if m.Op == nodes.Update && !direct && hasForeignLeaf(m.Table) {
		m.WholeRow = true
		for i, c := range m.Table.Columns {
			values = append(values, src.scope.targetColumn(i))
			out = append(out, nodes.Field{Name: c.Name, T: c.Type})
		}
	}
	ret := returningColumns(m)
	target.numberPartitions = true
	target.foreignLeaf = func(leaf *storage.Table, alias string, cols []int, filter nodes.Expr, targets []nodes.Expr, fields []nodes.Field) (nodes.Plan, error) {
		if err := pc.checkUpdatable(leaf, m.Op); err != nil {
			return nil, err
		}
		if direct {
			return pc.foreignModify(m, leaf, alias, cols, filter, targets[:nset], ret)
		}
		fs, err := pc.foreignScanFor(leaf, alias, cols, filter, targets, fields, true)
		if err != nil {
			return nil, err
		}
		fw, err := pc.foreignWrite(leaf, alias, m.Op, m.SetCols, ret)
		if err != nil {
			return nil, err
		}
		m.Foreign = append(m.Foreign, fw)
		return fs, nil
	}
	child, err := src.finish(where, values, out)
	if err != nil {
		return err
	}
	m.Child = child
	if err := pc.planMoves(m); err != nil {
		return err
	}
	isTarget := func(t *storage.Table) bool {
		return t == m.Table || slices.Contains(m.Table.Leaves(), t)
	}
	nodes.Walk(child, func(p nodes.Plan) {
		var t *storage.Table
		switch s := p.(type) {
		case *nodes.SeqScan:
			t = s.Table
		case *nodes.ForeignScan:
			t = s.Table
		case *nodes.ForeignModify:
			t = s.Table
		}
		if t != nil && isTarget(t) && !slices.Contains(m.Leaves, t) {
			m.Leaves = append(m.Leaves, t)
		}
	})
	return nil
}

// modifySource is what UPDATE and DELETE read: the target's scan, or,
// with FROM / USING items or WHERE sublinks that become joins, the join
// of the target (relation 0) with them; it returns the WHERE left over.
func (pc *planCtx) modifySource(t *storage.Table, alias string, from []*pg.Node, where *pg.Node) (*source, *pg.Node, error) {
	type planned struct {
		src  *source
		rest *pg.Node
	}
	r, err := pullRetry(pc, func() (planned, error) {
		pulled, rest := pc.splitSublinks(where)
		target := pc.tableSource(t, alias)
		if len(from) == 0 && len(pulled) == 0 {
			return planned{target, where}, nil
		}
		src, err := pc.planJoinWithTarget(target, from, pulled)
		if err != nil {
			return planned{}, err
		}
		src.target = target
		return planned{src, rest}, nil
	})
	return r.src, r.rest, err
}

// planMoves plans the writes of an UPDATE of a partitioned table whose
// rows may move between partitions through foreign ones: inserts into
// every foreign partition, and deletes from the foreign partitions it
// changes row by row.
func (pc *planCtx) planMoves(m *nodes.ModifyTable) error {
	if m.Op != nodes.Update || m.Table.Kind != storage.KindPartitioned {
		return nil
	}
	for _, fw := range m.Foreign {
		if fw.Op != nodes.Update {
			continue
		}
		del, err := pc.foreignWrite(fw.Table, fw.Alias, nodes.Delete, nil, nil)
		if err != nil {
			return err
		}
		m.Foreign = append(m.Foreign, del)
	}
	for _, leaf := range m.Table.Leaves() {
		if leaf.Kind != storage.KindForeign {
			continue
		}
		ins, err := pc.foreignWrite(leaf, leaf.Name, nodes.Insert, nil, nil)
		if err != nil {
			return err
		}
		m.Foreign = append(m.Foreign, ins)
	}
	return nil
}

func hasForeignLeaf(t *storage.Table) bool {
	for _, l := range t.Leaves() {
		if l.Kind == storage.KindForeign {
			return true
		}
	}
	return false
}

// shipsWhole reports whether an UPDATE or DELETE with this WHERE and
// these new values can be shipped whole to the foreign leaves.
func (pc *planCtx) shipsWhole(where nodes.Expr, values []nodes.Expr) bool {
	if !pc.pushdown() {
		return false
	}
	for _, e := range append(conjuncts(where), values...) {
		if !remote.Shippable(e) {
			return false
		}
	}
	return true
}

// foreignModify ships an UPDATE or DELETE of foreign leaf whole: cols are
// the table columns filter and values read (scope positions).
func (pc *planCtx) foreignModify(m *nodes.ModifyTable, leaf *storage.Table, alias string, cols []int, filter nodes.Expr, values []nodes.Expr, ret []int) (nodes.Plan, error) {
	srv, key, err := pc.foreignServer(leaf)
	if err != nil {
		return nil, err
	}
	schema, name := leaf.RemoteName()
	d := &remote.DirectModify{Rel: remote.Relation{Schema: schema, Table: name}, AllCols: leaf.RemoteColumns()}
	for i, c := range m.SetCols {
		d.Set = append(d.Set, leaf.RemoteColumn(c))
		d.Values = append(d.Values, toTableColumns(values[i], cols))
	}
	for _, c := range conjuncts(filter) {
		d.Where = append(d.Where, toTableColumns(c, cols))
	}
	for _, c := range ret {
		d.Returning = append(d.Returning, leaf.RemoteColumn(c))
	}
	sql, err := d.SQL()
	if err != nil {
		return nil, err
	}
	return &nodes.ForeignModify{Op: m.Op, Table: leaf, Alias: alias, RemoteSQL: sql, Returning: ret,
		Server: srv.Name, MappingKey: key}, nil
}

// planReturning plans m's RETURNING list over the full row of its table.
func (pc *planCtx) planReturning(m *nodes.ModifyTable, returning []*pg.Node) error {
	if len(returning) == 0 {
		return nil
	}
	sc := fullRowScope(m.Table, m.Table.Name)
	ec := &exprCtx{p: pc, scope: sc, clause: "RETURNING"}
	for _, n := range returning {
		rt := n.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil {
			if _, star := cr.Fields[len(cr.Fields)-1].Node.(*pg.Node_AStar); star {
				for i := range sc.names {
					m.Returning = append(m.Returning, sc.column(i))
					m.Out = append(m.Out, nodes.Field{Name: sc.names[i], T: sc.types[i]})
				}
				continue
			}
		}
		e, err := ec.transform(rt.Val)
		if err != nil {
			return err
		}
		if e.Type().ID == types.Unknown {
			e, _ = coerce(e, types.TextT, types.CastImplicit)
		}
		name := rt.Name
		if name == "" {
			name = figureColname(rt.Val)
		}
		m.Returning = append(m.Returning, e)
		m.Out = append(m.Out, nodes.Field{Name: name, T: e.Type()})
	}
	return nil
}

// modifyQuery is the query of a planned ModifyTable.
func modifyQuery(m *nodes.ModifyTable, tag string) *Query {
	q := &Query{Plan: m, Tag: tag}
	if m.Returning != nil {
		q.Columns, q.Returns = m.Out, true
	}
	return q
}
