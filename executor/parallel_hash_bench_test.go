package executor

// What a Parallel Hash Join buys over the parallel-oblivious join under a
// Gather: a 1M-row build side and a 10M-row probe side (every probe row
// matches one build row, at random), joined serially, by two workers and
// the leader each building the whole table, and by the same participants
// building one shared table.
//
//	go test -run '^$' -bench BenchmarkParallelHashJoin ./executor
//
// On a shared machine compare the variants of one run (their ratios), not
// runs with each other; cpu_ms (the process's CPU time per join, all
// goroutines) shows the work each does whatever the machine's load.

import (
	"context"
	"math/rand"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// benchJoinTable stores keys and their row numbers as t(a, b).
func benchJoinTable(name string, keys []int64) *storage.Table {
	tbl := storage.NewTable("public", name, []storage.Column{{Name: "a", Type: types.Int8T}, {Name: "b", Type: types.Int8T}})
	tbl.Append(int64Batches(keys, DefaultBatchSize)...)
	return tbl
}

func BenchmarkParallelHashJoin(b *testing.B) {
	const buildRows, probeRows = 1 << 20, 10_000_000
	r := rand.New(rand.NewSource(1))
	bk := make([]int64, buildRows)
	for i, k := range r.Perm(buildRows) {
		bk[i] = int64(k)
	}
	pk := make([]int64, probeRows)
	for i := range pk {
		pk[i] = int64(r.Intn(buildRows))
	}
	build, probe := benchJoinTable("build", bk), benchJoinTable("probe", pk)
	defer build.Replace(nil)
	defer probe.Replace(nil)
	variants := []struct {
		name     string
		workers  int
		parallel bool // Parallel Hash
	}{
		{"0_workers", 0, false},
		{"2_workers_oblivious", 2, false},
		{"2_workers_parallel_hash", 2, true},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			plan := benchJoinPlan(probe, build, v.workers, v.parallel)
			var total time.Duration
			best := time.Duration(1<<63 - 1)
			cpu0 := processCPU()
			for b.Loop() {
				op, err := Build(plan, &ExecContext{Workers: &WorkerPool{}, MaxParallelWorkers: 8, WorkMem: 1 << 30})
				if err != nil {
					b.Fatal(err)
				}
				rows := 0
				start := time.Now()
				err = Drain(context.Background(), op, func(batch arrow.RecordBatch) error {
					rows += int(batch.NumRows())
					return nil
				})
				took := time.Since(start)
				total += took
				best = min(best, took)
				if err != nil || rows != probeRows {
					b.Fatalf("%d rows, %v", rows, err)
				}
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N)/probeRows, "ns/probed_row")
			b.ReportMetric(float64(best.Milliseconds()), "min_ms")
			b.ReportMetric(float64((processCPU()-cpu0).Milliseconds())/float64(b.N), "cpu_ms")
		})
	}
}

// benchJoinPlan joins probe with build on a: serially without workers,
// else under a Gather of workers (and the leader), as a Parallel Hash
// Join or a parallel-oblivious one.
func benchJoinPlan(probe, build *storage.Table, workers int, parallel bool) nodes.Plan {
	ps, bs := scanAB(probe), scanAB(build)
	ps.Parallel, bs.Parallel = workers > 0, parallel
	hj := &nodes.HashJoin{Outer: ps, Inner: &nodes.Hash{Child: bs, Parallel: parallel},
		OuterKeys: []nodes.Expr{col(0, types.Int8T)}, InnerKeys: []nodes.Expr{col(0, types.Int8T)}, Parallel: parallel}
	hj.Inner.Out = bs.Out
	hj.Inner.Rows, hj.Inner.RowsTotal = float64(build.Rows()), float64(build.Rows())
	hj.Out = append(append([]nodes.Field(nil), ps.Out...), bs.Out...)
	var p nodes.Plan = hj
	if workers > 0 {
		g := &nodes.Gather{Child: hj, Workers: workers, LeaderParticipates: true}
		g.Out = hj.Out
		p = g
	}
	nodes.Number(p)
	return p
}
