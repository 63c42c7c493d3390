package executor

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// BenchmarkHashAgg is Q18's subquery: 6M rows (k bigint, q numeric(15,2)
// stored as text) into 1.5M groups, four rows per key in key order as
// lineitem holds l_orderkey, with sum(q), at the default
// work_mem (it spills) and at 1GB (it does not); and Q20's shape, two
// integer keys. cpu-ns/op (the process's CPU time) is steadier than
// ns/op on a shared machine.
func BenchmarkHashAgg(b *testing.B) {
	const rows, groups = 6_000_000, 1_500_000
	steps := hashAggInput(rows, groups)
	k, k2, q := col(0, types.Int8T), col(1, types.Int4T), col(2, types.NumericT)
	for _, bc := range []struct {
		name    string
		keys    []nodes.Expr
		workMem int64
	}{
		{"int8 key/work_mem=4MB", []nodes.Expr{k}, 0},
		{"int8 key/work_mem=1GB", []nodes.Expr{k}, 1 << 30},
		{"int8,int4 keys/work_mem=4MB", []nodes.Expr{k, k2}, 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := stub(field("k", types.Int8T), field("k2", types.Int4T), field("q", types.NumericT))
			plan := &nodes.Agg{Child: s, Strategy: nodes.AggHashed, GroupKeys: bc.keys,
				Aggs: []*nodes.AggCall{aggCall("sum", q, types.NumericT)}}
			var cpu time.Duration
			defer func() { b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op") }()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				in := make([]exectest.Step, len(steps))
				for j, st := range steps {
					st.Batch.Retain()
					in[j] = st
				}
				ec := &ExecContext{WorkMem: bc.workMem, TempDir: b.TempDir(), Stats: instrument.NewStats(nodes.Number(plan), false)}
				op := buildWindowOver(b, plan, ec, s, exectest.New(nil, "in", in...))
				b.StartTimer()
				cpu0 := processCPU()
				n, err := drainN(context.Background(), op, 0)
				cpu += processCPU() - cpu0
				if err != nil || n != groups {
					b.Fatalf("%d groups, %v", n, err)
				}
				reportSpill(b, ec.Stats.Node(plan.ID).Extra)
				ec.Release()
			}
		})
	}
}

// reportSpill reports the HashAggregate's EXPLAIN line (passes, peak
// memory and bytes spilled) as metrics.
func reportSpill(b *testing.B, extra []string) {
	if len(extra) == 0 {
		return
	}
	for _, m := range regexp.MustCompile(`(Batches|Memory Usage|Disk Usage): (\d+)`).FindAllStringSubmatch(extra[0], -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		b.ReportMetric(v, map[string]string{"Batches": "batches", "Memory Usage": "mem-kB", "Disk Usage": "disk-kB"}[m[1]])
	}
}

func hashAggInput(rows, groups int) []exectest.Step {
	per := rows / groups
	var steps []exectest.Step
	for lo := 0; lo < rows; lo += DefaultBatchSize {
		n := min(DefaultBatchSize, rows-lo)
		ks := array.NewInt64Builder(memory.DefaultAllocator)
		k2s := array.NewInt32Builder(memory.DefaultAllocator)
		qs := array.NewStringBuilder(memory.DefaultAllocator)
		for r := lo; r < lo+n; r++ {
			g := r / per
			ks.Append(int64(g))
			k2s.Append(int32(g % 7))
			qs.Append(strconv.Itoa(1+r%50) + ".00")
		}
		cols := []arrow.Array{ks.NewArray(), k2s.NewArray(), qs.NewArray()}
		schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "k2", Type: arrow.PrimitiveTypes.Int32}, {Name: "q", Type: arrow.BinaryTypes.String}}, nil)
		steps = append(steps, exectest.Step{Batch: array.NewRecordBatch(schema, cols, int64(n))})
	}
	return steps
}
