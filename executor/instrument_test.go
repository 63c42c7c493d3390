package executor

// Instrumentation (EXPLAIN ANALYZE): with ExecContext.Stats set, every
// node's counters must match what its operator really did, as observed by
// a counting wrapper between the node and its parent.

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// observed is a counter placed above the instrumented wrapper of a node.
type observed struct {
	counter *exectest.Counter
	stats   *instrument.NodeStats
}

// interpose puts an exectest.Counter above every instrumented operator of
// the tree rooted at *root (the root included).
func interpose(root *Operator) []observed {
	slots := []*Operator{root}
	walkSlots(*root, func(s *Operator) { slots = append(slots, s) })
	var obs []observed
	for _, s := range slots {
		if w, ok := (*s).(*instrumented); ok {
			c := &exectest.Counter{Operator: w}
			*s = c
			obs = append(obs, observed{counter: c, stats: w.stats})
		}
	}
	return obs
}

// nodeWant is what one node's counters must say after the run.
type nodeWant struct {
	node                  nodes.Plan
	loops, rows, rmFilter int64
	// notWrapped marks nodes without an operator of their own (the scans
	// shown under UPDATE), whose counters the parent keeps.
	notWrapped bool
}

func TestInstrumentationCounts(t *testing.T) {
	type plan struct {
		root nodes.Plan
		want []nodeWant
	}
	tests := []struct {
		name string
		plan func(tbl *storage.Table) plan
	}{
		{"Limit over Sort over filtered Seq Scan", func(tbl *storage.Table) plan {
			scan := withFilter(scanAB(tbl), cmpOp("<", colA, colB))
			sort := &nodes.Sort{Child: scan, Keys: []nodes.SortKey{{Expr: colB, Desc: true}}}
			limit := &nodes.Limit{Child: sort, Count: int8Lit(2)}
			return plan{limit, []nodeWant{
				{node: limit, loops: 1, rows: 2},
				{node: sort, loops: 1, rows: 3},
				{node: scan, loops: 1, rows: 3, rmFilter: 5},
			}}
		}},
		{"Limit stops Append in its first child", func(tbl *storage.Table) plan {
			s1, s2, s3 := scanAB(tbl), scanAB(tbl), scanAB(tbl)
			app := &nodes.Append{Kids: []nodes.Plan{s1, s2, s3}}
			limit := &nodes.Limit{Child: app, Count: int8Lit(1)}
			return plan{limit, []nodeWant{
				{node: limit, loops: 1, rows: 1},
				{node: app, loops: 1, rows: 3}, // the whole first batch
				{node: s1, loops: 1, rows: 3},
				{node: s2, loops: 0, rows: 0}, // never executed
				{node: s3, loops: 0, rows: 0},
			}}
		}},
		{"LIMIT 0 never opens its child", func(tbl *storage.Table) plan {
			scan := scanAB(tbl)
			limit := &nodes.Limit{Child: scan, Count: int8Lit(0)}
			return plan{limit, []nodeWant{
				{node: limit, loops: 1, rows: 0},
				{node: scan, loops: 0, rows: 0},
			}}
		}},
		{"HashAggregate with HAVING", func(tbl *storage.Table) plan {
			scan := scanAB(tbl)
			agg := &nodes.Agg{Child: scan, Strategy: nodes.AggHashed, GroupKeys: []nodes.Expr{colB},
				Aggs: []*nodes.AggCall{aggCall("count", nil, types.Int8T)}}
			// HAVING b > 2 (column 0 of the Agg's rows is the key b) keeps
			// groups 3, 5, 9 of 3, 2, 1, 5, NULL, 9, 0.
			withFilter(agg, cmpOp(">", col(0, types.Int8T), int8Lit(2)))
			return plan{agg, []nodeWant{
				{node: agg, loops: 1, rows: 3, rmFilter: 4},
				{node: scan, loops: 1, rows: 8},
			}}
		}},
		{"Unique over Sort over Function Scan", func(tbl *storage.Table) plan {
			series := seriesPlan(types.Int8T, int64(1), int64(10))
			half := withFilter(&nodes.SubqueryScan{Child: series}, nil, op("/", col(0, types.Int8T), int8Lit(2), types.Int8T))
			sort := &nodes.Sort{PlanBase: nodes.PlanBase{Out: half.Base().Out}, Child: half, Keys: []nodes.SortKey{{Expr: col(0, types.Int8T)}}}
			uniq := &nodes.Unique{Child: sort, Keys: []int{0}}
			return plan{uniq, []nodeWant{
				{node: uniq, loops: 1, rows: 6}, // 0 .. 5
				{node: sort, loops: 1, rows: 10},
				{node: half, loops: 1, rows: 10},
				{node: series, loops: 1, rows: 10},
			}}
		}},
		{"UPDATE consumes its scan", func(tbl *storage.Table) plan {
			upd := dmlPlan(nodes.Update, tbl, cmpOp("<", colA, colB), []int{1}, []nodes.Expr{colA})
			return plan{upd, []nodeWant{
				{node: upd, loops: 1, rows: 0},
				{node: upd.Child, loops: 1, rows: 3, rmFilter: 5},
			}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl := leakTable(memory.DefaultAllocator)
			p := tt.plan(tbl)
			n := nodes.Number(p.root)
			ec := writeContext(t)
			ec.Stats, ec.BatchSize = instrument.NewStats(n, true), 4
			root, err := Build(p.root, ec)
			if err != nil {
				t.Fatal(err)
			}
			obs := interpose(&root)
			if err := Drain(context.Background(), root, func(arrow.RecordBatch) error { return nil }); err != nil {
				t.Fatal(err)
			}
			for _, o := range obs {
				if o.counter.Rows != o.stats.Rows || o.counter.Batches != o.stats.Batches || o.counter.Opens != o.stats.Loops {
					t.Errorf("node stats %+v disagree with what passed through: rows %d, batches %d, opens %d",
						*o.stats, o.counter.Rows, o.counter.Batches, o.counter.Opens)
				}
				if o.stats.Total < 0 || o.stats.Startup > o.stats.Total {
					t.Errorf("node timing: startup %v, total %v", o.stats.Startup, o.stats.Total)
				}
			}
			for _, w := range p.want {
				id := w.node.Base().ID
				got := ec.Stats.Node(id)
				if got.Loops != w.loops || got.Rows != w.rows || got.RowsRemovedByFilter != w.rmFilter {
					t.Errorf("%s (node %d): loops %d rows %d removed %d, want loops %d rows %d removed %d",
						w.node.NodeType(), id, got.Loops, got.Rows, got.RowsRemovedByFilter, w.loops, w.rows, w.rmFilter)
				}
				wrapped := false
				for _, o := range obs {
					wrapped = wrapped || o.stats == got
				}
				if wrapped == w.notWrapped {
					t.Errorf("%s (node %d): instrumented wrapper present = %v", w.node.NodeType(), id, wrapped)
				}
			}
		})
	}
}

// TestNoInstrumentationWithoutStats: without EXPLAIN ANALYZE no operator
// of the tree is wrapped; with it, every node is.
func TestNoInstrumentationWithoutStats(t *testing.T) {
	tbl := leakTable(memory.DefaultAllocator)
	mk := func() nodes.Plan {
		scan := withFilter(scanAB(tbl), cmpOp("<", colA, colB))
		app := &nodes.Append{PlanBase: nodes.PlanBase{Out: scan.Base().Out}, Kids: []nodes.Plan{scan, seriesPlan(types.Int8T, int64(1), int64(3))}}
		sort := &nodes.Sort{PlanBase: nodes.PlanBase{Out: scan.Base().Out}, Child: &nodes.SubqueryScan{Child: app}, Keys: []nodes.SortKey{{Expr: colA}}}
		uniq := &nodes.Unique{Child: sort, Keys: []int{0}}
		agg := &nodes.Agg{Child: uniq, Aggs: []*nodes.AggCall{aggCall("count", nil, types.Int8T)}}
		return &nodes.Limit{Child: agg, Count: int8Lit(5)}
	}
	countWrappers := func(root Operator) int {
		n := 0
		if _, ok := root.(*instrumented); ok {
			n++
		}
		walkSlots(root, func(s *Operator) {
			if _, ok := (*s).(*instrumented); ok {
				n++
			}
		})
		return n
	}

	p := mk()
	nodes.Number(p)
	root, err := Build(p, &ExecContext{})
	if err != nil {
		t.Fatal(err)
	}
	if n := countWrappers(root); n != 0 {
		t.Errorf("without Stats: %d instrumented operators, want none", n)
	}
	if _, ok := root.(*limitOp); !ok {
		t.Errorf("without Stats the root is %T, want *limitOp", root)
	}
	root.Close()

	p = mk()
	n := nodes.Number(p)
	root, err = Build(p, &ExecContext{Stats: instrument.NewStats(n, false)})
	if err != nil {
		t.Fatal(err)
	}
	if got := countWrappers(root); got != n {
		t.Errorf("with Stats: %d instrumented operators, want one per node (%d)", got, n)
	}
	root.Close()
}
