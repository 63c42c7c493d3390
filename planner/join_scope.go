package planner

// Name resolution over several FROM items, as PostgreSQL's parse analysis
// does it (transformFromClauseItem, parse_relation.c). Every FROM item
// that is a table, a subquery or a function is a base relation (baseRel)
// with its own single-item scope. The query's namespace is a list of
// items: base relations, and the joins JoinExpr makes (a join item whose
// columns are the USING columns, merged, then the other columns of its
// two sides). Inside a JoinExpr the sides' items stay nameable as
// alias.column, but their columns resolve unqualified only through the
// join item, so that USING columns are not ambiguous.
//
// A reference to column c of base relation r is registered once in the
// joinScope's used list; the ColumnRef the expression gets indexes that
// list (a query-wide column id). Join planning (join.go) places every
// expression at the node that evaluates it and maps those ids to the
// node's input positions last, as PostgreSQL's setrefs.c does.

import (
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// baseRel is a FROM item that is not a join.
type baseRel struct {
	alias string
	src   *source
	table *storage.Table // the table, for schema-qualified names and statistics
	// lateral, for a LATERAL item naming earlier items, holds its Params
	// and the columns (query-wide references) that set them.
	lateral *corrFrame
}

// usedCol is a registered base column: relation rel's scope column col,
// and the ColumnRef its own scope gave it (a position in its rows).
type usedCol struct {
	rel, col int
	base     *nodes.ColumnRef
	name     string // qualified, as EXPLAIN prints it above the scan
}

// joinScope is the range table of a query with several FROM items.
type joinScope struct {
	rels []*baseRel
	used []usedCol
	ja   *joinAnalysis // the analysis it belongs to
}

// nsColumn is a column a namespace item exposes; get registers its reads
// and returns its expression.
type nsColumn struct {
	name string
	t    types.T
	get  func() nodes.Expr
}

// nsItem is one entry of a namespace.
type nsItem struct {
	alias       string
	table       *storage.Table
	relVisible  bool // nameable as alias.column
	colsVisible bool // columns resolve unqualified
	cols        []nsColumn
}

// ref registers column col of relation rel and returns its query-wide
// reference.
func (js *joinScope) ref(rel, col int) *nodes.ColumnRef {
	for g, u := range js.used {
		if u.rel == rel && u.col == col {
			return js.colRef(g)
		}
	}
	r := js.rels[rel]
	var base *nodes.ColumnRef
	if col < 0 {
		base = r.src.scope.system(col) // ctid, tableoid
	} else {
		base = r.src.scope.column(col)
	}
	name := nodes.QuoteIdent(r.alias) + "." + nodes.QuoteIdent(js.colName(rel, col))
	js.used = append(js.used, usedCol{rel: rel, col: col, base: base, name: name})
	return js.colRef(len(js.used) - 1)
}

func (js *joinScope) colRef(g int) *nodes.ColumnRef {
	u := js.used[g]
	return &nodes.ColumnRef{Index: g, Name: u.name, T: u.base.T, Raw: true}
}

// relItem is the namespace item of base relation rel.
func (js *joinScope) relItem(rel int) *nsItem {
	r := js.rels[rel]
	it := &nsItem{alias: r.alias, table: r.table, relVisible: true, colsVisible: true}
	for i, n := range r.src.scope.names {
		i := i
		it.cols = append(it.cols, nsColumn{name: n, t: r.src.scope.types[i], get: func() nodes.Expr { return js.ref(rel, i) }})
	}
	return it
}

// resolve finds a column among items, by name or as alias.name.
func (js *joinScope) resolve(items []*nsItem, parts []string) (nodes.Expr, error) {
	name := parts[len(parts)-1]
	if len(parts) == 1 {
		var hit *nsColumn
		for _, it := range items {
			if !it.colsVisible {
				continue
			}
			for i := range it.cols {
				if it.cols[i].name == name {
					if hit != nil {
						return nil, pgerr.New(pgerr.AmbiguousColumn, "column reference %q is ambiguous", name)
					}
					hit = &it.cols[i]
				}
			}
		}
		if hit == nil {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", name)
		}
		return hit.get(), nil
	}
	it, err := js.item(items, parts[:len(parts)-1])
	if err != nil {
		return nil, err
	}
	for i := range it.cols {
		if it.cols[i].name == name {
			return it.cols[i].get(), nil
		}
	}
	return nil, pgerr.New(pgerr.UndefinedColumn, "column %s.%s does not exist", parts[len(parts)-2], name)
}

// item finds the item a qualifier (alias, or schema.table) names.
func (js *joinScope) item(items []*nsItem, qual []string) (*nsItem, error) {
	q := qual[len(qual)-1]
	var hit *nsItem
	for _, it := range items {
		if !it.relVisible || it.alias != q {
			continue
		}
		if len(qual) > 1 && (it.table == nil || it.table.Schema != qual[len(qual)-2] || it.alias != it.table.Name) {
			continue
		}
		if hit != nil {
			return nil, pgerr.New(pgerr.AmbiguousAlias, "table reference %q is ambiguous", q)
		}
		hit = it
	}
	if hit != nil {
		return hit, nil
	}
	for _, it := range items {
		if it.relVisible && it.table != nil && it.table.Name == q && it.alias != q {
			return nil, pgerr.New(pgerr.UndefinedTable, "invalid reference to FROM-clause entry for table %q", q).
				WithHint("Perhaps you meant to reference the table alias %q.", it.alias)
		}
	}
	for _, r := range js.rels {
		if r.alias == q {
			return nil, pgerr.New(pgerr.UndefinedTable, "invalid reference to FROM-clause entry for table %q", q).
				WithHint("There is an entry for table %q, but it cannot be referenced from this part of the query.", q)
		}
	}
	return nil, pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", q)
}

// star expands * (qual nil) or alias.* over items.
func (js *joinScope) star(items []*nsItem, qual []string) ([]target, error) {
	var out []target
	add := func(it *nsItem) {
		for _, c := range it.cols {
			out = append(out, target{expr: c.get(), name: c.name})
		}
	}
	if qual == nil {
		for _, it := range items {
			if it.colsVisible {
				add(it)
			}
		}
		return out, nil
	}
	it, err := js.item(items, qual)
	if err != nil {
		return nil, err
	}
	add(it)
	return out, nil
}

// colName is the name of column col of relation rel (a system column's
// for col < 0).
func (js *joinScope) colName(rel, col int) string {
	if col < 0 {
		name, _ := storage.SystemColumn(col)
		return name
	}
	return js.rels[rel].src.scope.names[col]
}
