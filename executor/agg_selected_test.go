package executor

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// TestAggReadsScanSelections: an Agg over a filtered Seq Scan aggregates
// the filter's selection of each stored batch (no copy), with the
// answers of the rows that pass; where an argument fails on a row the
// filter removed (100 / b behind b <> 0), the batch goes the ordinary
// way and the statement does not fail; a projecting scan is read as
// usual.
func TestAggReadsScanSelections(t *testing.T) {
	mem := memory.NewGoAllocator()
	var batches []arrow.RecordBatch
	var as, bs []any
	for i := 0; i < 30000; i++ {
		as, bs = append(as, int64(i%7)), append(bs, int64(i%50))
		if len(as) == 1000 {
			batches = append(batches, abBatch(mem, as, bs))
			as, bs = nil, nil
		}
	}
	tbl := newTable("t", batches...)
	a, b := col(0, types.Int8T), col(1, types.Int8T)
	notZero := cmpOp("<>", b, int8Lit(0))
	cases := []struct {
		name     string
		arg      nodes.Expr
		project  bool
		selected bool
	}{
		{"sum(b)", b, false, true},
		{"sum(100 / b)", op("/", int8Lit(100), b, types.Int8T), false, false},
		{"sum(b), projecting scan", b, true, false},
	}
	for _, strategy := range []nodes.AggStrategy{nodes.AggHashed, nodes.AggPlain} {
		for _, c := range cases {
			t.Run(fmt.Sprint(c.name, strategy), func(t *testing.T) {
				scan := scanAB(tbl)
				scan.Filter = notZero
				if c.project {
					scan.Targets = []nodes.Expr{a, b}
				}
				plan := &nodes.Agg{Child: scan, Strategy: strategy,
					Aggs: []*nodes.AggCall{aggCall("count", nil, types.Int8T), aggCall("sum", c.arg, types.NumericT)}}
				if strategy == nodes.AggHashed {
					plan.GroupKeys = []nodes.Expr{a}
				}
				op, err := Build(plan, &ExecContext{})
				if err != nil {
					t.Fatal(err)
				}
				agg := op.(*aggOp)
				var got []string
				if err := Drain(context.Background(), op, func(r arrow.RecordBatch) error {
					for i := 0; i < int(r.NumRows()); i++ {
						row := ""
						for c := 0; c < int(r.NumCols()); c++ {
							row += fmt.Sprint(r.Column(c).ValueStr(i), " ")
						}
						got = append(got, row)
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if (agg.selectedBatches > 0) != c.selected {
					t.Errorf("%d batches aggregated from selections, want them used: %v", agg.selectedBatches, c.selected)
				}
				want := expectedSums(strategy == nodes.AggHashed, c.name == "sum(100 / b)")
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("got %v\nwant %v", got, want)
				}
			})
		}
	}
}

// expectedSums is the test's answer, computed row by row.
func expectedSums(grouped, divide bool) []string {
	counts, sums := map[int64]int64{}, map[int64]int64{}
	for i := 0; i < 30000; i++ {
		a, b := int64(i%7), int64(i%50)
		if b == 0 {
			continue
		}
		k := a
		if !grouped {
			k = 0
		}
		counts[k]++
		if divide {
			sums[k] += 100 / b
		} else {
			sums[k] += b
		}
	}
	var out []string
	for k, n := range counts {
		row := ""
		if grouped {
			row = fmt.Sprint(k, " ")
		}
		out = append(out, row+fmt.Sprint(n, " ", sums[k], " "))
	}
	slices.Sort(out)
	return out
}
