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
	if !pc.settings().Bool("enable_partitionwise_aggregate") {
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
	split, ok := splitAgg(agg)
	if !ok {
		return nil
	}
	// One partial node per partition.
	kids := make([]nodes.Plan, len(app.Kids))
	for i, k := range app.Kids {
		partial := split.partial(k, false)
		kids[i] = partial
		if pushed := pc.pushAgg(partial); pushed != nil {
			kids[i] = pushed
		}
	}
	newApp := &nodes.Append{Kids: kids}
	newApp.Out = split.partialOut
	return split.finalize(newApp)
}

// aggSplit is an aggregate split into a partial step, run over parts of
// the input, and a finalize step that combines the partial states:
// count/sum/min/max/bool_and/bool_or combine with themselves (counts add
// up with sum), avg as a sum and a count.
type aggSplit struct {
	agg        *nodes.Agg
	partials   []*nodes.AggCall
	combines   []aggCombine
	partialOut []nodes.Field
}

type aggCombine struct {
	name string
	cols []int // partial columns (after the keys)
	t    types.T
	orig *nodes.AggCall
}

// splitAgg splits agg, or returns false when one of its aggregates cannot
// be split: DISTINCT, ORDER BY (and WITHIN GROUP), and string_agg, which
// PostgreSQL 15 does not split either (its result would depend on which
// participant read which rows), and the variance family, whose float
// combine (float8_combine) would round differently from one serial
// float8_accum. Such an aggregate stays above the Gather. A FILTER stays
// with the partial step (each partial state sees only the rows it
// passes); the finalize step combines without it.
func splitAgg(agg *nodes.Agg) (*aggSplit, bool) {
	if agg.GroupingSets != nil {
		return nil, false // grouping sets aggregate whole rows, in one Agg
	}
	sp := &aggSplit{agg: agg}
	for _, a := range agg.Aggs {
		if a.Distinct || len(a.OrderBy) > 0 || a.WithinGroup {
			return nil, false
		}
		switch a.Name {
		case "count", "sum", "min", "max", "bool_and", "bool_or", "every":
			p := *a
			sp.partials = append(sp.partials, &p)
			name := a.Name
			if name == "count" {
				name = "sum" // counts add up, as bigint
			}
			sp.combines = append(sp.combines, aggCombine{name: name, cols: []int{len(sp.partials) - 1}, t: a.T, orig: a})
		case "avg":
			arg := a.Args[0]
			if arg.Type().ID == types.IntervalType {
				return nil, false // no partial state for avg(interval) here
			}
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
			sp.partials = append(sp.partials,
				&nodes.AggCall{Name: "sum", Args: []nodes.Expr{arg}, T: sumT, Filter: a.Filter},
				&nodes.AggCall{Name: "count", Args: []nodes.Expr{arg}, T: types.Int8T, Filter: a.Filter})
			sp.combines = append(sp.combines, aggCombine{name: "avg_combine", cols: []int{len(sp.partials) - 2, len(sp.partials) - 1}, t: a.T, orig: a})
		default:
			return nil, false
		}
	}
	for i, k := range agg.GroupKeys {
		sp.partialOut = append(sp.partialOut, nodes.Field{Name: "key" + itoa(i), T: k.Type()})
	}
	for i, p := range sp.partials {
		sp.partialOut = append(sp.partialOut, nodes.Field{Name: "partial" + itoa(i), T: p.T})
	}
	return sp, true
}

// partial is the partial step over child; labelled marks the calls
// "PARTIAL" for EXPLAIN VERBOSE, as PostgreSQL prints them.
func (sp *aggSplit) partial(child nodes.Plan, labelled bool) *nodes.Agg {
	aggs := sp.partials
	if labelled {
		aggs = make([]*nodes.AggCall, len(sp.partials))
		for i, p := range sp.partials {
			c := *p
			c.Display = "PARTIAL " + p.String()
			aggs[i] = &c
		}
	}
	partial := &nodes.Agg{Child: child, Strategy: sp.agg.Strategy, GroupKeys: sp.agg.GroupKeys, Aggs: aggs, Split: "Partial"}
	partial.Out = sp.partialOut
	return partial
}

// finalize is the finalize step over child, whose rows are the partial
// step's (gathered or appended); it keeps the original's HAVING and
// projection.
func (sp *aggSplit) finalize(child nodes.Plan) *nodes.Agg {
	agg := sp.agg
	nkeys := len(agg.GroupKeys)
	final := &nodes.Agg{Child: child, Strategy: agg.Strategy, Split: "Finalize"}
	for i, k := range agg.GroupKeys {
		final.GroupKeys = append(final.GroupKeys, &nodes.ColumnRef{Index: i, Name: k.String(), T: k.Type(), Raw: true})
	}
	for _, c := range sp.combines {
		args := make([]nodes.Expr, len(c.cols))
		for j, col := range c.cols {
			args[j] = &nodes.ColumnRef{Index: nkeys + col, Name: sp.partials[col].String(), T: sp.partials[col].T, Raw: true}
		}
		final.Aggs = append(final.Aggs, &nodes.AggCall{Name: c.name, Args: args, T: c.t, Display: c.orig.String()})
	}
	final.Filter, final.Targets, final.Out = agg.Filter, agg.Targets, agg.Out
	return final
}
