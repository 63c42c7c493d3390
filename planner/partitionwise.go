package planner

// Partitionwise aggregation (enable_partitionwise_aggregate): an
// aggregate over the partitions of a partitioned table is computed per
// partition (Partial Aggregate, or pushed to the remote server for a
// foreign partition) and the partial states are combined above the
// Append (Finalize Aggregate), as PostgreSQL does with postgres_fdw.

import (
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// partitionwiseAgg rewrites agg over an Append of partition scans into
// Finalize(Append(partials)), or returns nil when it does not apply.
func (pc *planCtx) partitionwiseAgg(agg *nodes.Agg) nodes.Plan {
	if pc.Setting == nil || pc.Setting("enable_partitionwise_aggregate") != "on" {
		return nil
	}
	app, ok := agg.Child.(*nodes.Append)
	if !ok || len(app.Kids) < 2 {
		return nil
	}
	for _, k := range app.Kids {
		switch s := k.(type) {
		case *nodes.SeqScan:
			if s.Targets != nil {
				return nil
			}
		case *nodes.ForeignScan:
			if s.Targets != nil || s.Grouped {
				return nil
			}
		default:
			return nil
		}
	}
	// The partial aggregates each original aggregate needs.
	var partials []*nodes.AggCall
	type combine struct {
		name string
		cols []int // partial columns (after the keys)
		t    types.T
		orig *nodes.AggCall
		sumT types.T
	}
	var combines []combine
	for _, a := range agg.Aggs {
		if a.Distinct || len(a.OrderBy) > 0 || a.Filter != nil {
			return nil
		}
		switch a.Name {
		case "count", "sum", "min", "max", "bool_and", "bool_or", "every":
			p := *a
			partials = append(partials, &p)
			name := a.Name
			if name == "count" {
				name = "sum" // counts add up, as bigint
			}
			combines = append(combines, combine{name: name, cols: []int{len(partials) - 1}, t: a.T, orig: a})
		case "avg":
			arg := a.Args[0]
			sumT := types.NumericT
			switch {
			case arg.Type().ID == types.Int2 || arg.Type().ID == types.Int4:
				sumT = types.Int8T
			case arg.Type().IsFloat():
				sumT = types.Float8T
				if arg.Type().ID == types.Float4 {
					arg = &nodes.Cast{Arg: arg, T: types.Float8T}
				}
			}
			partials = append(partials,
				&nodes.AggCall{Name: "sum", Args: []nodes.Expr{arg}, T: sumT},
				&nodes.AggCall{Name: "count", Args: []nodes.Expr{arg}, T: types.Int8T})
			combines = append(combines, combine{name: "avg_combine", cols: []int{len(partials) - 2, len(partials) - 1}, t: a.T, orig: a, sumT: sumT})
		default:
			return nil
		}
	}
	// One partial node per partition.
	nkeys := len(agg.GroupKeys)
	var partialOut []nodes.Field
	for i, k := range agg.GroupKeys {
		partialOut = append(partialOut, nodes.Field{Name: "key" + itoa(i), T: k.Type()})
	}
	for i, p := range partials {
		partialOut = append(partialOut, nodes.Field{Name: "partial" + itoa(i), T: p.T})
	}
	kids := make([]nodes.Plan, len(app.Kids))
	for i, k := range app.Kids {
		partial := &nodes.Agg{Child: k, Strategy: agg.Strategy, GroupKeys: agg.GroupKeys, Aggs: partials, Split: "Partial"}
		partial.Out = partialOut
		kids[i] = partial
		if pushed := pc.pushAgg(partial); pushed != nil {
			kids[i] = pushed
		}
	}
	newApp := &nodes.Append{Kids: kids}
	newApp.Out = partialOut
	// The finalize step combines the partial columns.
	final := &nodes.Agg{Child: newApp, Strategy: agg.Strategy, Split: "Finalize"}
	for i, k := range agg.GroupKeys {
		final.GroupKeys = append(final.GroupKeys, &nodes.ColumnRef{Index: i, Name: k.String(), T: k.Type(), Raw: true})
	}
	for _, c := range combines {
		args := make([]nodes.Expr, len(c.cols))
		for j, col := range c.cols {
			args[j] = &nodes.ColumnRef{Index: nkeys + col, Name: partials[col].String(), T: partials[col].T, Raw: true}
		}
		final.Aggs = append(final.Aggs, &nodes.AggCall{Name: c.name, Args: args, T: c.t, Display: c.orig.String()})
	}
	final.Filter, final.Targets, final.Out = agg.Filter, agg.Targets, agg.Out
	return final
}
