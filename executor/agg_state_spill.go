package executor

// Spilling partial states. A hashed Agg whose aggregates all combine
// from their own results (count, sum over exact types, min, max,
// bool_and, bool_or, every; none DISTINCT or ordered) does not spill
// input rows when its table is full: it writes its groups, keys and
// results so far, to the hash partitions (by the keys' hash) and starts
// again with an empty table. Each spilled row is then a whole group of
// many input rows, where the row spill of agg_spill.go writes every input
// row of every group that came too late (the rows of a table stored in
// key order, lineitem by l_orderkey, all come too late once it is full).
//
// After the input, the groups still in memory are written out too, and
// a combining Agg (combinePlan: sum for count, the same function for the
// others, over the partition's columns) aggregates each partition in
// turn; a partition too big for it row-spills as usual, at the next bits
// of the hash. Its own rows have the same layout as the original's
// (keys, then results), so the original's HAVING and projection apply
// unchanged. Sums of floating-point values are left to the row spill:
// adding partial sums would round differently from one serial sum.
//
// EXPLAIN ANALYZE's Batches, Memory Usage and Disk Usage count both
// steps: the first pass, then every partition pass.

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
)

// combinePlan is the Agg that combines p's own rows, or nil when one of
// p's aggregates cannot be combined from its result.
func combinePlan(p *nodes.Agg) *nodes.Agg {
	if p.Strategy != nodes.AggHashed || p.GroupingSets != nil || len(p.Aggs) == 0 {
		return nil
	}
	nkeys := len(p.GroupKeys)
	c := &nodes.Agg{Strategy: nodes.AggHashed}
	for i, k := range p.GroupKeys {
		c.GroupKeys = append(c.GroupKeys, &nodes.ColumnRef{Index: i, Name: "key" + itoa(i), T: k.Type(), Raw: true})
	}
	for i, call := range p.Aggs {
		if call.Distinct || len(call.OrderBy) > 0 || call.WithinGroup {
			return nil
		}
		name := call.Name
		switch name {
		case "count":
			name = "sum" // counts add up, as bigint
		case "sum":
			if call.T.IsFloat() {
				return nil
			}
		case "min", "max", "bool_and", "bool_or", "every":
		default:
			return nil
		}
		partial := &nodes.ColumnRef{Index: nkeys + i, Name: "agg" + itoa(i), T: call.T, Raw: true}
		c.Aggs = append(c.Aggs, &nodes.AggCall{Name: name, Args: []nodes.Expr{partial}, T: call.T})
	}
	return c
}

// statesSpillable reports whether a full table writes its groups out
// (rather than the rows of new groups): the aggregates combine, the
// groups are in a groupTable, and this is the pass over the child.
func (a *aggOp) statesSpillable() bool {
	return a.combine != nil && a.gsets == nil && a.table != nil && a.spill.depth == 0 && !a.rowSpill
}

// chooseStateSpill decides, at the first row a full table refused
// (groups[first] < 0), whether the pass writes groups out (true) or
// row-spills as agg_spill.go does: groups, when the rows after it mostly
// found no group either, as in input stored in key order, whose groups in
// memory are finished; rows, when many still found one, since those rows
// cost nothing under the row spill and a flush would start their groups
// again.
func chooseStateSpill(groups []int32, first int) bool {
	hits := 0
	for _, g := range groups[first:] {
		if g >= 0 {
			hits++
		}
	}
	return hits*4 < len(groups)-first
}

// addBatchFlushing is addBatch once the table became full while it
// assigned b's rows (groups[r] < 0: refused): the rows with a group are
// aggregated, the groups written out, and the other rows start the
// emptied table.
func (a *aggOp) addBatchFlushing(b arrow.RecordBatch, groups []int32) error {
	var keep, rest []int32
	for r, g := range groups {
		if g >= 0 {
			keep = append(keep, int32(r))
		} else {
			rest = append(rest, int32(r))
		}
	}
	if len(keep) > 0 {
		kept := b
		if len(rest) > 0 {
			kept = takeBatch(b, keep)
			defer kept.Release()
		}
		keptGroups := make([]int32, len(keep))
		for i, r := range keep {
			keptGroups[i] = groups[r]
		}
		if err := a.updateStates(kept, keptGroups); err != nil {
			return err
		}
	}
	if err := a.flushGroups(); err != nil || len(rest) == 0 {
		return err
	}
	left := takeBatch(b, rest)
	defer left.Release()
	return a.addBatch(left)
}

// flushGroups writes the groups in memory to the partitions by their
// keys' hash and empties the table.
func (a *aggOp) flushGroups() error {
	if a.ngroups == 0 {
		return nil
	}
	if err := a.buildResult(); err != nil {
		return err
	}
	out := a.out
	a.out = nil
	defer out.Release()
	hashes, err := a.flushHashes(out)
	if err != nil {
		return err
	}
	var perPart [aggPartitions][]int32
	for r, h := range hashes {
		p := h >> (64 - aggPartitionBits) // depth 0's bits, as markRow
		perPart[p] = append(perPart[p], int32(r))
	}
	s := &a.spill
	if err := s.writeParts(out, &perPart); err != nil {
		return err
	}
	discarded(s.estimate(a))
	a.resetGroups()
	s.full, s.keyBytes = false, 0
	a.flushed = true
	return s.mem.resize(0)
}

// flushHashes hashes the key columns of the flushed groups the way the
// groupTable hashes its input (every flush the same way, so that a key's
// groups of every flush meet in one partition).
func (a *aggOp) flushHashes(out arrow.RecordBatch) ([]uint64, error) {
	if a.flushTable == nil {
		a.flushTable = newGroupTable(a.keyTypes())
	}
	keys := out.Columns()[:len(a.keys)]
	if !a.flushTable.fitsArrays(keys) {
		// keyArrays writes the forms the table reads: this cannot be.
		return nil, pgerr.Internal("executor: flushed group keys of types %v do not fit a groupTable", a.keyTypes())
	}
	a.flushTable.load(keys)
	return a.flushTable.hashes, nil
}

// startCombining, after an input whose groups were flushed, hands the
// partitions to the combining Agg, which returns the rows from then on.
func (a *aggOp) startCombining() error {
	c := &aggOp{plan: a.combine, ec: a.ec, child: noChild{}, combining: true}
	if err := c.compile(); err != nil {
		return err
	}
	c.resetGroups()
	c.spill.reset(a.ec)
	c.spill.pending, a.spill.pending = a.spill.pending, nil
	c.done = true
	a.combiner = c
	return nil
}

// noChild is the combining Agg's child: its rows come from partitions.
type noChild struct{}

func (noChild) Open(context.Context) error { return nil }
func (noChild) Close() error               { return nil }
func (noChild) Next(context.Context) (arrow.RecordBatch, error) {
	return nil, pgerr.Internal("executor: the combining Agg reads only its partitions")
}
