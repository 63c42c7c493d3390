package planner

// Walks of the raw parse tree for WITH, as parse_cte.c's tree walkers:
// the references to a CTE name (unqualified RangeVars not captured by an
// inner WITH of the same name), for PostgreSQL's cterefcount and the
// dependencies between the items of a WITH RECURSIVE, and whether a
// CTE's query calls a volatile function (contain_volatile_functions).
// pg_query_go's nodes are protocol buffers, so one reflective walk
// reaches every child of every node kind.

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/funcs"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// eachChild calls fn for every node directly inside m.
func eachChild(m proto.Message, fn func(proto.Message)) {
	if m == nil {
		return
	}
	m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				fn(l.Get(i).Message().Interface())
			}
			return true
		}
		fn(v.Message().Interface())
		return true
	})
}

// unwrapNode returns the node a pg.Node wraps (m itself otherwise).
func unwrapNode(m proto.Message) proto.Message {
	if n, ok := m.(*pg.Node); ok {
		var inner proto.Message
		eachChild(n, func(c proto.Message) { inner = c })
		return inner
	}
	return m
}

// walkCTERefs calls fn for each unqualified RangeVar in m whose name no
// WITH inside m (nor a name in shadowed) captures.
func walkCTERefs(m proto.Message, shadowed []string, fn func(*pg.RangeVar)) {
	switch x := unwrapNode(m).(type) {
	case nil:
		return
	case *pg.RangeVar:
		if x.Schemaname == "" && !containsName(shadowed, x.Relname) {
			fn(x)
		}
		return
	case *pg.WithClause:
		return // walked by its statement, below
	case *pg.SelectStmt:
		if x.WithClause != nil {
			sh := withShadow(x.WithClause, shadowed, func(q *pg.Node, sh []string) { walkCTERefs(q, sh, fn) })
			eachChild(x, func(c proto.Message) { walkCTERefs(c, sh, fn) })
			return
		}
	}
	eachChild(unwrapNode(m), func(c proto.Message) { walkCTERefs(c, shadowed, fn) })
}

// withShadow calls query for each CTE query of w with the names it
// cannot see as outer references, and returns those the statement's
// body cannot: in WITH RECURSIVE all of w's names are visible everywhere
// in it; otherwise each to the items after it and the body.
func withShadow(w *pg.WithClause, shadowed []string, query func(q *pg.Node, sh []string)) []string {
	sh := append([]string(nil), shadowed...)
	if w.Recursive {
		for _, n := range w.Ctes {
			sh = append(sh, n.GetCommonTableExpr().Ctename)
		}
		for _, n := range w.Ctes {
			query(n.GetCommonTableExpr().Ctequery, sh)
		}
		return sh
	}
	for _, n := range w.Ctes {
		c := n.GetCommonTableExpr()
		query(c.Ctequery, sh)
		sh = append(sh, c.Ctename)
	}
	return sh
}

func containsName(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// refsTo counts the references to name in m.
func refsTo(m proto.Message, name string) int {
	n := 0
	walkCTERefs(m, nil, func(rv *pg.RangeVar) {
		if rv.Relname == name {
			n++
		}
	})
	return n
}

// countCTERefs is PostgreSQL's cterefcount of CTE i of frame: its
// references from the WITH's body and from the sibling queries that see
// it (a recursive CTE's references to itself are not counted).
func countCTERefs(frame *cteFrame, i int, body *pg.SelectStmt) int {
	name := frame.ctes[i].Ctename
	n := refsTo(body, name)
	for j, c := range frame.ctes {
		if j > i || frame.recursive && j != i {
			n += refsTo(c.Ctequery, name)
		}
	}
	return n
}

// callsVolatile reports whether a query calls a volatile function.
func callsVolatile(m proto.Message) bool {
	found := false
	var walk func(m proto.Message)
	walk = func(m proto.Message) {
		if found {
			return
		}
		if fc, ok := unwrapNode(m).(*pg.FuncCall); ok {
			if f := funcs.Lookup(strings.ToLower(opName(fc.Funcname))); f != nil {
				for _, s := range f.Overloads {
					found = found || s.Volatility == funcs.Volatile
				}
			}
		}
		eachChild(unwrapNode(m), walk)
	}
	walk(m)
	return found
}
