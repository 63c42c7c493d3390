package executor

// An Agg with grouping sets (GROUPING SETS, ROLLUP, CUBE), hashed as
// PostgreSQL's HashAggregate / MixedAggregate: one pass over the input
// feeds every set at once, a hash table per non-empty set (an aggOp of
// the set's keys) and a single group per empty set "()" (which gives its
// row even over an empty input, as GROUP BY () does). The tables share
// work_mem x hash_mem_multiplier: each counts the others' memory when it
// decides whether a new group still fits, and once full a table writes
// the input rows of its new groups to its own partitions (agg_spill.go),
// aggregated after the input, set by set.
//
// Protocol: the first Next consumes the whole input; then the sets are
// returned one after the other (the empty sets first, then the others in
// the plan's order, as PostgreSQL does), each set's groups in memory,
// then its spilled partitions. A set's memory is released when it is
// done. A row of a set has NULL for every key outside the set, and the
// value of each grouping() call for that set after the aggregates.

import (
	"context"
	"io"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

type groupingSetsAgg struct {
	plan  *nodes.Agg
	ec    *ExecContext
	child Operator
	sets  []*aggOp // per plan.GroupingSets entry
	// values are, per set, the value of each grouping() call.
	values [][]int64
	order  []int // the sets in output order
	schema *arrow.Schema
	cur    int // position in order of the set being returned
	done   bool
	stats  struct{ batches, disk int64 } // of finished sets
	peak   int64                         // of all the tables together
}

func newGroupingSetsAgg(p *nodes.Agg, ec *ExecContext) (Operator, error) {
	child, err := Build(p.Child, ec)
	if err != nil {
		return nil, err
	}
	g := &groupingSetsAgg{plan: p, ec: ec, child: child}
	for i, set := range p.GroupingSets {
		sp := &nodes.Agg{Strategy: nodes.AggHashed, Aggs: p.Aggs}
		sp.ID = p.ID
		if len(set) == 0 {
			sp.Strategy = nodes.AggPlain
			g.order = append(g.order, i)
		}
		for _, k := range set {
			sp.GroupKeys = append(sp.GroupKeys, p.GroupKeys[k])
		}
		a := &aggOp{plan: sp, ec: ec, gsets: g}
		if err := a.compile(); err != nil {
			child.Close()
			return nil, err
		}
		g.sets = append(g.sets, a)
		g.values = append(g.values, groupingValues(p.Groupings, set))
	}
	for i, set := range p.GroupingSets {
		if len(set) > 0 {
			g.order = append(g.order, i)
		}
	}
	fields := make([]nodes.Field, 0, len(p.GroupKeys)+len(p.Aggs)+len(p.Groupings))
	for i, k := range p.GroupKeys {
		fields = append(fields, nodes.Field{Name: "key" + itoa(i), T: k.Type()})
	}
	for i, call := range p.Aggs {
		fields = append(fields, nodes.Field{Name: "agg" + itoa(i), T: call.T})
	}
	for i := range p.Groupings {
		fields = append(fields, nodes.Field{Name: "grouping" + itoa(i), T: types.Int4T})
	}
	g.schema = schemaOf(fields)
	return g, nil
}

// groupingValues is grouping()'s value for each call in one set: a bit
// per argument, set when the argument's key is not grouped by, the first
// argument the most significant.
func groupingValues(calls [][]int, set []int) []int64 {
	vals := make([]int64, len(calls))
	for i, args := range calls {
		for _, k := range args {
			vals[i] <<= 1
			if !slices.Contains(set, k) {
				vals[i] |= 1
			}
		}
	}
	return vals
}

func (g *groupingSetsAgg) Open(ctx context.Context) error {
	g.cur, g.done = 0, false
	g.stats, g.peak = struct{ batches, disk int64 }{}, 0
	for _, a := range g.sets {
		a.resetGroups()
		a.done = false
		a.spill.reset(g.ec)
	}
	return g.child.Open(ctx)
}

func (g *groupingSetsAgg) Close() error {
	for _, a := range g.sets {
		g.release(a)
	}
	return g.child.Close()
}

// release frees a set's groups, result and partitions.
func (g *groupingSetsAgg) release(a *aggOp) {
	if a.out != nil {
		a.out.Release()
		a.out = nil
	}
	a.releaseTable()
	a.states, a.keyVals, a.strKeys, a.ngroups = nil, nil, nil, 0
	a.spill.reset(nil)
}

// otherSetsMem is the memory of the other grouping sets' tables, which
// share this one's work_mem (0 for an Agg without grouping sets).
func (a *aggOp) otherSetsMem() int64 {
	if a.gsets == nil {
		return 0
	}
	var n int64
	for _, o := range a.gsets.sets {
		if o != a && o.plan.Strategy == nodes.AggHashed {
			n += o.spill.estimate(o)
		}
	}
	return n
}

func (g *groupingSetsAgg) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !g.done {
		if err := g.consume(ctx); err != nil {
			return nil, err
		}
		g.done = true
	}
	for g.cur < len(g.order) {
		set := g.order[g.cur]
		a := g.sets[set]
		if a.out != nil && a.pos < a.out.NumRows() {
			end := min(a.pos+int64(g.ec.BatchSize), a.out.NumRows())
			s := a.out.NewSlice(a.pos, end)
			a.pos = end
			return g.widen(set, s), nil
		}
		more, err := a.nextPartition(ctx)
		if err != nil {
			return nil, err
		}
		g.notePeak()
		if !more {
			g.finish(a)
			g.cur++
		}
	}
	g.explain()
	return nil, io.EOF
}

// consume feeds every input batch to every set, then builds each set's
// groups kept in memory.
func (g *groupingSetsAgg) consume(ctx context.Context) error {
	for {
		b, err := g.child.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		for _, a := range g.sets {
			if err = a.addBatch(b); err != nil {
				break
			}
		}
		b.Release()
		g.notePeak()
		if err != nil {
			return err
		}
	}
	for _, a := range g.sets {
		if err := a.spill.endPass(); err != nil {
			return err
		}
		if err := a.buildResult(); err != nil {
			return err
		}
	}
	return nil
}

// widen turns a batch of one set's rows (its keys, the aggregates) into
// the Agg's own rows: every key, NULL outside the set, the aggregates and
// the grouping() values. It takes over s.
func (g *groupingSetsAgg) widen(set int, s arrow.RecordBatch) arrow.RecordBatch {
	defer s.Release()
	n := int(s.NumRows())
	keys := g.plan.GroupingSets[set]
	cols := make([]arrow.Array, 0, g.schema.NumFields())
	for k, key := range g.plan.GroupKeys {
		if at := slices.Index(keys, k); at >= 0 {
			c := s.Column(at)
			c.Retain()
			cols = append(cols, c)
			continue
		}
		cols = append(cols, constArray(key.Type(), nil, n))
	}
	for i := range g.plan.Aggs {
		c := s.Column(len(keys) + i)
		c.Retain()
		cols = append(cols, c)
	}
	for _, v := range g.values[set] {
		cols = append(cols, constArray(types.Int4T, v, n))
	}
	return makeBatch(g.schema, cols, n)
}

// notePeak records the memory the sets' tables hold together.
func (g *groupingSetsAgg) notePeak() {
	var n int64
	for _, a := range g.sets {
		n += a.spill.mem.bytes
	}
	g.peak = max(g.peak, n)
}

// finish records a finished set's spill statistics and frees it.
func (g *groupingSetsAgg) finish(a *aggOp) {
	if a.plan.Strategy == nodes.AggHashed {
		g.stats.batches += int64(a.spill.batches - 1)
		g.stats.disk += a.spill.disk
	}
	discarded(a.spill.estimate(a))
	g.release(a)
}

// explain records EXPLAIN ANALYZE's line of the hash tables: the passes
// (the first, shared by all sets, and each spilled partition's), the
// tables' peak memory together, and the bytes spilled.
func (g *groupingSetsAgg) explain() {
	if g.ec.Stats == nil || g.plan.Strategy != nodes.AggHashed {
		return
	}
	line := "Batches: " + itoa(int(1+g.stats.batches)) + "  Memory Usage: " + kB(g.peak)
	if g.stats.disk > 0 {
		line += "  Disk Usage: " + kB(g.stats.disk)
	}
	g.ec.Stats.Node(g.plan.ID).Extra = []string{line}
}
