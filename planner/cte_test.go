package planner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// TestCTEComputedOnce checks PostgreSQL's rule for which CTEs are
// computed once, from the references counted on the parse tree: names
// captured by an inner WITH do not count, references from sibling CTEs
// do, a recursive CTE's references to itself do not.
func TestCTEComputedOnce(t *testing.T) {
	for _, tc := range []struct {
		name, sql string
		refs      []int
		once      []bool
	}{
		{"once, inlined", "WITH a AS (SELECT 1) SELECT * FROM a", []int{1}, []bool{false}},
		{"twice, computed once", "WITH a AS (SELECT 1) SELECT * FROM a, a b", []int{2}, []bool{true}},
		{"unreferenced", "WITH a AS MATERIALIZED (SELECT 1) SELECT 1", []int{0}, []bool{false}},
		{"materialized", "WITH a AS MATERIALIZED (SELECT 1) SELECT * FROM a", []int{1}, []bool{true}},
		{"not materialized", "WITH a AS NOT MATERIALIZED (SELECT 1) SELECT * FROM a, a b", []int{2}, []bool{false}},
		{"volatile", "WITH a AS NOT MATERIALIZED (SELECT random()) SELECT * FROM a", []int{1}, []bool{true}},
		{"from a sibling and a sublink", "WITH a AS (SELECT 1 x), b AS (SELECT * FROM a) SELECT * FROM b WHERE 1 IN (SELECT x FROM a)", []int{2, 1}, []bool{true, false}},
		{"captured by an inner WITH", "WITH a AS (SELECT 1) SELECT * FROM (WITH a AS (SELECT 2) SELECT * FROM a) s, a", []int{1}, []bool{false}},
		{"qualified name is a table", "WITH a AS (SELECT 1) SELECT * FROM public.a, a", []int{1}, []bool{false}},
		{"recursive", "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n FROM t) SELECT * FROM t", []int{1}, []bool{true}},
		{"recursive, unreferenced", "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n FROM t) SELECT 1", []int{0}, []bool{false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree, err := pg.Parse(tc.sql)
			if err != nil {
				t.Fatal(err)
			}
			s := tree.Stmts[0].Stmt.GetSelectStmt()
			w := s.WithClause
			s.WithClause = nil
			frame, err := newCTEFrame(w)
			if err != nil {
				t.Fatal(err)
			}
			var refs []int
			var once []bool
			for i, c := range frame.ctes {
				ci := frame.infos[i]
				ci.refs = countCTERefs(frame, i, s)
				ci.volatile = callsVolatile(c.Ctequery)
				refs = append(refs, ci.refs)
				once = append(once, ci.computedOnce(c))
			}
			if diff := cmp.Diff(tc.refs, refs); diff != "" {
				t.Errorf("refs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.once, once); diff != "" {
				t.Errorf("computed once (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSortRecursiveWith: WITH RECURSIVE items are put after those they
// reference; a cycle between two items is 0A000.
func TestSortRecursiveWith(t *testing.T) {
	tree, err := pg.Parse("WITH RECURSIVE a AS (SELECT * FROM b), b AS (SELECT * FROM c), c(n) AS (SELECT 1 UNION ALL SELECT n FROM c) SELECT * FROM a")
	if err != nil {
		t.Fatal(err)
	}
	w := tree.Stmts[0].Stmt.GetSelectStmt().WithClause
	frame, err := newCTEFrame(w)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var rec []bool
	for i, c := range frame.ctes {
		names = append(names, c.Ctename)
		rec = append(rec, frame.infos[i].recursive)
	}
	if diff := cmp.Diff([]string{"c", "b", "a"}, names); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{true, false, false}, rec); diff != "" {
		t.Errorf("recursive (-want +got):\n%s", diff)
	}
}
