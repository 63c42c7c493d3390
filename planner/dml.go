package planner

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
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
	if err := refuseForeignWrite(t, "INSERT into"); err != nil {
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
		r, err := pc.planSelect(sel)
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
	}
	m := &nodes.ModifyTable{Op: nodes.Insert, Table: t, Child: child}
	return pc.finishModify(m, s.ReturningList, "INSERT")
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
	tree, err := pg.Parse("SELECT " + col.Default)
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

// RefuseForeignWrite reports 0A000 when t is, or has partitions that are,
// foreign tables: writing to remote tables is not supported yet, and
// must never land in local storage instead.
func RefuseForeignWrite(t *storage.Table, what string) error { return refuseForeignWrite(t, what) }

func refuseForeignWrite(t *storage.Table, what string) error {
	for _, l := range t.Leaves() {
		if l.Kind == storage.KindForeign {
			return pgerr.NotSupported(what + " foreign table " + strconvQuote(l.Name))
		}
	}
	return nil
}

func strconvQuote(s string) string { return `"` + s + `"` }

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
	if len(s.FromClause) > 0 {
		return nil, pgerr.NotSupported("UPDATE ... FROM")
	}
	t, alias, err := pc.modifyTarget(s.Relation, "UPDATE of")
	if err != nil {
		return nil, err
	}
	src := pc.tableSource(t, alias)
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
	where, err := pc.modifyWhere(s.WhereClause, src.scope)
	if err != nil {
		return nil, err
	}
	if err := pc.modifyChild(m, src, where, values, out); err != nil {
		return nil, err
	}
	return pc.finishModify(m, s.ReturningList, "UPDATE")
}

func (pc *planCtx) planDelete(s *pg.DeleteStmt) (*Query, error) {
	if s.WithClause != nil {
		return nil, pgerr.NotSupported("WITH")
	}
	if len(s.UsingClause) > 0 {
		return nil, pgerr.NotSupported("DELETE ... USING")
	}
	t, alias, err := pc.modifyTarget(s.Relation, "DELETE from")
	if err != nil {
		return nil, err
	}
	src := pc.tableSource(t, alias)
	m := &nodes.ModifyTable{Op: nodes.Delete, Table: t}
	where, err := pc.modifyWhere(s.WhereClause, src.scope)
	if err != nil {
		return nil, err
	}
	if err := pc.modifyChild(m, src, where, nil, nil); err != nil {
		return nil, err
	}
	return pc.finishModify(m, s.ReturningList, "DELETE")
}

// modifyTarget resolves the table an UPDATE or DELETE changes, and the
// name the statement calls it by.
func (pc *planCtx) modifyTarget(rv *pg.RangeVar, what string) (*storage.Table, string, error) {
	t, err := pc.resolveTable(rv)
	if err != nil {
		return nil, "", err
	}
	if err := refuseForeignWrite(t, what); err != nil {
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
func (pc *planCtx) modifyChild(m *nodes.ModifyTable, src *source, where nodes.Expr, values []nodes.Expr, out []nodes.Field) error {
	if m.Table.Kind == storage.KindPartitioned {
		values = append(values, src.scope.system(storage.TableOIDColumn))
		out = append(out, nodes.Field{Name: "tableoid", T: types.Int8T})
	}
	values = append(values, src.scope.system(storage.CtidColumn))
	out = append(out, nodes.Field{Name: "ctid", T: types.Int8T})
	src.numberPartitions = true
	child, err := src.finish(where, values, out)
	if err != nil {
		return err
	}
	m.Child = child
	nodes.Walk(child, func(p nodes.Plan) {
		if s, ok := p.(*nodes.SeqScan); ok {
			m.Leaves = append(m.Leaves, s.Table)
		}
	})
	return nil
}

func (pc *planCtx) finishModify(m *nodes.ModifyTable, returning []*pg.Node, tag string) (*Query, error) {
	q := &Query{Plan: m, Tag: tag}
	if len(returning) == 0 {
		return q, nil
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
			return nil, err
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
	q.Columns, q.Returns = m.Out, true
	return q, nil
}
