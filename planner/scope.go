package planner

import (
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// scope is the set of columns a query's expressions can name: those of
// its one FROM item. ref maps a scope column to its position in the rows
// the evaluating node reads; for table scans it registers the column as
// read (so that scans read only the columns a query uses).
type scope struct {
	alias string
	names []string
	types []types.T
	// used lists the scope columns read, in input order (nil: identity).
	used  []int
	lazy  bool
	table *storage.Table
	// join, when set, resolves names over several FROM items instead
	// (join_scope.go): those of items.
	join  *joinScope
	items []*nsItem
	// parent is the scope of the query a pulled-up sublink sits in, whose
	// columns the sublink's own query may name (same joinScope).
	parent *scope
	// joinRoot is the join tree a decorrelated subquery of this scope's
	// WHERE joins (decorrelate.go); nil where none may.
	joinRoot **jtNode
}

func newTableScope(t *storage.Table, alias string) *scope {
	s := &scope{alias: alias, lazy: true, table: t}
	for _, c := range t.Columns {
		s.names = append(s.names, c.Name)
		s.types = append(s.types, c.Type)
	}
	return s
}

func newFieldScope(alias string, fields []nodes.Field) *scope {
	s := &scope{alias: alias}
	for _, f := range fields {
		s.names = append(s.names, f.Name)
		s.types = append(s.types, f.T)
	}
	return s
}

// ref returns the input position of scope column i.
func (s *scope) ref(i int) int {
	if !s.lazy {
		return i
	}
	for p, c := range s.used {
		if c == i {
			return p
		}
	}
	s.used = append(s.used, i)
	return len(s.used) - 1
}

// system returns a reference to a system column of the scope's table
// (storage.CtidColumn, TableOIDColumn), which SQL cannot name: UPDATE and
// DELETE read them to find the rows they change.
func (s *scope) system(c int) *nodes.ColumnRef {
	if s.join != nil {
		return s.join.ref(0, c) // the target of an UPDATE or DELETE
	}
	name, t := storage.SystemColumn(c)
	return &nodes.ColumnRef{Index: s.ref(c), Name: name, T: t}
}

// column returns a reference to scope column i.
func (s *scope) column(i int) *nodes.ColumnRef {
	return &nodes.ColumnRef{Index: s.ref(i), Name: s.names[i], T: s.types[i]}
}

// resolve finds a column by name, optionally qualified by the FROM
// item's alias (or schema.table).
func (s *scope) resolve(parts []string) (nodes.Expr, error) {
	if s.join != nil {
		e, err := s.join.resolve(s.items, parts)
		if c := pgerr.Code(err); s.parent != nil && (c == pgerr.UndefinedColumn || c == pgerr.UndefinedTable) {
			pe, perr := s.parent.resolve(parts)
			if perr == nil || c == pgerr.UndefinedTable && pgerr.Code(perr) == pgerr.UndefinedColumn {
				// Found, or its qualifier names an outer relation.
				return pe, perr
			}
		}
		return e, err
	}
	name := parts[len(parts)-1]
	if len(parts) > 1 {
		q := parts[len(parts)-2]
		if q != s.alias {
			if s.table != nil && q == s.table.Name && s.alias != s.table.Name {
				return nil, pgerr.New(pgerr.UndefinedTable, "invalid reference to FROM-clause entry for table %q", q).
					WithHint("Perhaps you meant to reference the table alias %q.", s.alias)
			}
			return nil, pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", q)
		}
		if len(parts) > 2 && (s.table == nil || s.alias != s.table.Name || parts[len(parts)-3] != s.table.Schema) {
			return nil, pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", q)
		}
	}
	found := -1
	for i, n := range s.names {
		if n == name {
			if found >= 0 {
				return nil, pgerr.New(pgerr.AmbiguousColumn, "column reference %q is ambiguous", name)
			}
			found = i
		}
	}
	if found < 0 {
		if len(parts) > 1 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %s.%s does not exist", parts[len(parts)-2], name)
		}
		return nil, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", name)
	}
	return s.column(found), nil
}

// readColumns returns the table columns read, in input order.
func (s *scope) readColumns() []int { return append([]int(nil), s.used...) }

// star expands * (qual nil) or qual.* into targets.
func (s *scope) star(qual []string) ([]target, error) {
	if s.join != nil {
		return s.join.star(s.items, qual)
	}
	if qual != nil && (qual[len(qual)-1] != s.alias || len(qual) > 1 && (s.table == nil || qual[0] != s.table.Schema)) {
		return nil, pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", qual[len(qual)-1])
	}
	out := make([]target, len(s.names))
	for i := range s.names {
		out[i] = target{expr: s.column(i), name: s.names[i]}
	}
	return out, nil
}

// targetColumn is column i of the table an UPDATE or DELETE changes:
// relation 0 of a join scope.
func (s *scope) targetColumn(i int) *nodes.ColumnRef {
	if s.join != nil {
		return s.join.ref(0, i)
	}
	return s.column(i)
}
