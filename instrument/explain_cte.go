package instrument

import "github.com/pgfed/pgfed/nodes"

// ctePlans writes the plans of a node's CTEs before its InitPlans, as
// PostgreSQL 15 does (they are initplans there): "CTE name" over each
// plan in TEXT, "Subplan Name": "CTE name" in JSON.
func (e *explainer) ctePlans(ctes []*nodes.CTE) {
	w := &e.w
	for _, c := range ctes {
		name := "CTE " + c.Name
		if w.json {
			e.subplan = name
			e.node(c.Plan, "InitPlan", 0)
			continue
		}
		w.spaces()
		w.buf.WriteString(name + "\n")
		w.indent++
		e.node(c.Plan, "InitPlan", 0)
		w.indent--
	}
}
