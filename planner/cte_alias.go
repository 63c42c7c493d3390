package planner

// EXPLAIN names every relation of a statement uniquely, as PostgreSQL's
// select_rtable_names_for_explain does: a second relation of the same
// name gets a suffix, "t_1", in the order of the statement's flattened
// range table (the main query's relations first, then those of the CTE
// plans). pgfed renames only its CTE and WorkTable Scans so, once the
// statement is planned: the recursive term's reference to its CTE is
// "WorkTable Scan on t t_1" beside the outer "CTE Scan on t", and a
// second reference to a CTE by its bare name is "CTE Scan on t t_1".
//
// The conditions that name a renamed scan's columns were qualified when
// planned ("t.n"); inside a CTE's plan, where the renamed scan is the
// only relation of its old name, they are renamed too ("t_1.n"). In the
// main query a renamed CTE Scan shares its old name with another, so its
// conditions keep the name they were planned with.

import (
	"strconv"
	"strings"

	"github.com/pgfed/pgfed/nodes"
)

// rename is one scan renamed inside the plan of a CTE.
type rename struct {
	old, new string
}

// uniqueCTEAliases renames the aliases of p's CTE and WorkTable Scans
// that another relation of p already uses.
func uniqueCTEAliases(p nodes.Plan) {
	taken := map[string]bool{}
	var ctes []*nodes.CTE
	var renames []rename
	names := map[string]int{} // relations of each name in the plan visited
	var visit func(q nodes.Plan)
	visit = func(q nodes.Plan) {
		b := q.Base()
		ctes = append(ctes, b.CTEs...)
		switch x := q.(type) {
		case *nodes.SeqScan:
			taken[aliasOr(x.Alias, x.Table.Name)] = true
			names[aliasOr(x.Alias, x.Table.Name)]++
		case *nodes.ForeignScan:
			taken[aliasOr(x.Alias, x.Table.Name)] = true
			names[aliasOr(x.Alias, x.Table.Name)]++
		case *nodes.FunctionScan:
			taken[aliasOr(x.Alias, x.Func)] = true
		case *nodes.SubqueryScan:
			names[x.Alias]++
		case *nodes.CTEScan:
			names[x.Alias]++
			if a := uniqueAlias(taken, x.Alias); a != x.Alias {
				renames = append(renames, rename{x.Alias, a})
				x.Alias = a
			}
		case *nodes.WorkTableScan:
			names[x.Alias]++
			if a := uniqueAlias(taken, x.Alias); a != x.Alias {
				renames = append(renames, rename{x.Alias, a})
				x.Alias = a
			}
		}
		for _, ip := range b.InitPlans {
			visit(ip.Plan)
		}
		for _, c := range q.Children() {
			visit(c)
		}
		for _, sp := range b.SubPlans {
			visit(sp.Plan)
		}
	}
	visit(p)
	for i := 0; i < len(ctes); i++ {
		renames, names = nil, map[string]int{}
		visit(ctes[i].Plan)
		for _, r := range renames {
			if names[r.old] == 1 {
				requalify(ctes[i].Plan, r)
			}
		}
	}
}

// requalify renames the qualifier of the column names in p's
// expressions that name r.old's columns.
func requalify(p nodes.Plan, r rename) {
	prefix := nodes.QuoteIdent(r.old) + "."
	nodes.Walk(p, func(q nodes.Plan) {
		for _, e := range nodes.ExprsOf(q) {
			nodes.WalkExpr(e, func(x nodes.Expr) {
				if c, ok := x.(*nodes.ColumnRef); ok && c.Raw && strings.HasPrefix(c.Name, prefix) {
					c.Name = nodes.QuoteIdent(r.new) + "." + strings.TrimPrefix(c.Name, prefix)
				}
			})
		}
	})
}

func aliasOr(alias, name string) string {
	if alias == "" {
		return name
	}
	return alias
}

// uniqueAlias returns alias, or alias_N for the first N that no
// relation uses yet, and marks it used.
func uniqueAlias(taken map[string]bool, alias string) string {
	name := alias
	for i := 1; taken[name]; i++ {
		name = alias + "_" + strconv.Itoa(i)
	}
	taken[name] = true
	return name
}

// readsCTE reports whether p has a CTE or WorkTable Scan, which are
// parallel-restricted in PostgreSQL (their store belongs to the leader):
// such a plan gets no Gather.
func readsCTE(p nodes.Plan) bool {
	found := false
	nodes.Walk(p, func(q nodes.Plan) {
		switch q.(type) {
		case *nodes.CTEScan, *nodes.WorkTableScan:
			found = true
		}
	})
	return found
}
