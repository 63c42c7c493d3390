package executor

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
	"go.uber.org/goleak"
)

// fakeCopies makes a copyBuilder that hands participant i the fake ops[i]
// (the leader is participant 0 when it takes part).
func fakeCopies(ops []*exectest.Op) copyBuilder {
	return func(_ nodes.Plan, ec *ExecContext) (Operator, error) {
		return ops[ec.participant], nil
	}
}

// intBatches are steps returning batches of one int8 column "a".
func intBatches(mem memory.Allocator, batches ...[]any) []exectest.Step {
	var steps []exectest.Step
	for _, vals := range batches {
		steps = append(steps, exectest.Step{Batch: exectest.NewBatch(mem, exectest.Int64s("a", vals...))})
	}
	return steps
}

func newTestGather(workers int, leader bool, ops []*exectest.Op, pool *WorkerPool, max int) *gatherOp {
	p := &nodes.Gather{Child: stub(field("a", types.Int8T)), Workers: workers, LeaderParticipates: leader}
	ec := &ExecContext{BatchSize: DefaultBatchSize, Workers: pool, MaxParallelWorkers: max}
	return &gatherOp{plan: p, gatherBase: gatherBase{ec: ec, build: fakeCopies(ops)}}
}

// newTestGatherMerge is a Gather Merge on column a (ascending unless
// desc) over the fakes ops, two workers planned.
func newTestGatherMerge(t *testing.T, ops []*exectest.Op, leader, desc bool, batchSize int) Operator {
	t.Helper()
	p := &nodes.GatherMerge{Child: stub(field("a", types.Int8T)), Workers: 2, LeaderParticipates: leader,
		Keys: []nodes.SortKey{{Expr: col(0, types.Int8T), Desc: desc, NullsFirst: desc}}}
	g, err := newGatherMerge(p, &ExecContext{BatchSize: batchSize, Workers: &WorkerPool{}, MaxParallelWorkers: 8})
	if err != nil {
		t.Fatal(err)
	}
	g.(*gatherMergeOp).build = fakeCopies(ops)
	return g
}

func sortedInts(rows [][]any) []int64 {
	var out []int64
	for _, r := range rows {
		out = append(out, r[0].(int64))
	}
	slices.Sort(out)
	return out
}

// TestGather checks that every participant's rows come out once, and
// that every copy is opened and closed exactly once, with and without
// the leader, and when the pool has no worker to give.
func TestGather(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cases := []struct {
		name     string
		workers  int
		leader   bool
		max      int
		launched int64
		copies   int // participants that run a copy
	}{
		{"two workers and the leader", 2, true, 8, 2, 3},
		{"two workers, no leader", 2, false, 8, 2, 2},
		{"pool of one", 2, false, 1, 1, 1},
		{"no worker: the leader runs it", 2, false, 0, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := checkedAlloc(t)
			log := &exectest.Log{}
			var ops []*exectest.Op
			var want []int64
			for i := 0; i < c.copies; i++ {
				vals := [][]any{{int64(i*10 + 1), int64(i*10 + 2)}, {int64(i*10 + 3)}}
				ops = append(ops, exectest.New(log, "copy"+itoa(i), intBatches(mem, vals...)...))
				want = append(want, int64(i*10+1), int64(i*10+2), int64(i*10+3))
			}
			pool := &WorkerPool{}
			g := newTestGather(c.workers, c.leader, ops, pool, c.max)
			g.stats = &instrument.NodeStats{}
			rows, err := run(t, g)
			if err != nil {
				t.Fatal(err)
			}
			if got := sortedInts(rows); !slices.Equal(got, want) {
				t.Errorf("rows %v, want %v", got, want)
			}
			if g.stats.WorkersLaunched != c.launched {
				t.Errorf("launched %d, want %d", g.stats.WorkersLaunched, c.launched)
			}
			if pool.Running() != 0 {
				t.Errorf("%d workers still reserved", pool.Running())
			}
			for _, op := range ops {
				if o, n, cl := op.Counts(); o != 1 || cl != 1 || n == 0 {
					t.Errorf("%s: opens %d nexts %d closes %d", op.Name, o, n, cl)
				}
			}
			wantNoViolations(t, ops...)
		})
	}
}

// TestGatherWorkerError: a worker's error is the Gather's; the worker
// still waiting (on the network, say) is cancelled and closed.
func TestGatherWorkerError(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	mem := checkedAlloc(t)
	log := &exectest.Log{}
	gate := exectest.NewGate()
	boom := errors.New("boom")
	ops := []*exectest.Op{
		exectest.New(log, "w0", append(intBatches(mem, []any{int64(1)}), exectest.Step{Pending: gate})...),
		exectest.New(log, "w1", exectest.Step{Err: boom}),
	}
	g := newTestGather(2, false, ops, &WorkerPool{}, 8)
	_, err := run(t, g)
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	wantNoViolations(t, ops...)
	for _, op := range ops {
		if _, _, cl := op.Counts(); cl != 1 {
			t.Errorf("%s closed %d times", op.Name, cl)
		}
	}
}

// TestGatherWorkerPanic: a panic in a worker becomes XX000, not a crash.
func TestGatherWorkerPanic(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	log := &exectest.Log{}
	ops := []*exectest.Op{exectest.New(log, "w0", exectest.Step{Panic: "kaput"})}
	g := newTestGather(1, false, ops, nil, 0)
	_, err := run(t, g)
	wantPgErr(t, err, "XX000", "internal error in parallel worker: kaput")
}

// TestGatherCloseEarly: a parent that stops reading (LIMIT) closes the
// Gather, which stops workers that still have batches to send.
func TestGatherCloseEarly(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	mem := checkedAlloc(t)
	log := &exectest.Log{}
	var ops []*exectest.Op
	for i := 0; i < 2; i++ {
		var batches [][]any
		for j := 0; j < 20; j++ {
			batches = append(batches, []any{int64(j)})
		}
		ops = append(ops, exectest.New(log, "w"+itoa(i), intBatches(mem, batches...)...))
	}
	pool := &WorkerPool{}
	g := newTestGather(2, false, ops, pool, 8)
	ctx := context.Background()
	if err := g.Open(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := g.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b.Release()
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if pool.Running() != 0 {
		t.Errorf("%d workers still reserved", pool.Running())
	}
	wantNoViolations(t, ops...)
}

// TestGatherCancel: a cancelled context stops a Gather waiting for its
// workers, and its Close stops them.
func TestGatherCancel(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	log := &exectest.Log{}
	gate := exectest.NewGate()
	ops := []*exectest.Op{exectest.New(log, "w0", exectest.Step{Pending: gate})}
	g := newTestGather(1, false, ops, nil, 0)
	ctx, cancel := context.WithCancel(context.Background())
	if err := g.Open(ctx); err != nil {
		t.Fatal(err)
	}
	go func() {
		<-gate.Reached()
		cancel()
	}()
	_, err := g.Next(ctx)
	wantPgErr(t, err, "57014", "canceling statement due to user request")
	g.Close()
	wantNoViolations(t, ops...)
}

// TestGatherMerge merges sorted streams with ties, NULLs and several
// batches per input into one sorted stream.
func TestGatherMerge(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, desc := range []bool{false, true} {
		mem := checkedAlloc(t)
		log := &exectest.Log{}
		inputs := [][][]any{
			{{int64(1), int64(1), int64(4)}, {int64(4), int64(9)}},
			{{int64(0), int64(1), int64(2), int64(3), int64(4)}, {int64(5)}, {int64(10), nil}},
			{{int64(2), int64(2)}, {int64(2), int64(7), int64(8), nil}},
		}
		var want []any
		var ops []*exectest.Op
		for i, in := range inputs {
			if desc { // sorted input in the other direction: NULLs first
				for _, b := range in {
					slices.Reverse(b)
				}
				slices.Reverse(in)
			}
			for _, b := range in {
				want = append(want, b...)
			}
			ops = append(ops, exectest.New(log, "in"+itoa(i), intBatches(mem, in...)...))
		}
		slices.SortFunc(want, func(x, y any) int {
			switch {
			case x == nil && y == nil:
				return 0
			case x == nil:
				return 1
			case y == nil:
				return -1
			}
			return int(x.(int64) - y.(int64))
		})
		if desc {
			slices.Reverse(want)
		}
		rows, err := run(t, newTestGatherMerge(t, ops, true, desc, 4))
		if err != nil {
			t.Fatal(err)
		}
		var got []any
		for _, r := range rows {
			got = append(got, r[0])
		}
		if !slices.Equal(got, want) {
			t.Errorf("desc=%v: got %v, want %v", desc, got, want)
		}
		wantNoViolations(t, ops...)
	}
}

// TestGatherMergeWorkerError: an input's error ends the merge.
func TestGatherMergeWorkerError(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	mem := checkedAlloc(t)
	log := &exectest.Log{}
	boom := errors.New("boom")
	ops := []*exectest.Op{
		exectest.New(log, "w0", intBatches(mem, []any{int64(1)}, []any{int64(2)})...),
		exectest.New(log, "w1", append(intBatches(mem, []any{int64(1)}), exectest.Step{Err: boom})...),
	}
	_, err := run(t, newTestGatherMerge(t, ops, false, false, 1))
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	wantNoViolations(t, ops...)
}

// TestGatherMergeLongRuns: inputs with long runs of equal keys are merged
// by concatenating runs; the result is the same sorted stream.
func TestGatherMergeLongRuns(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	mem := checkedAlloc(t)
	log := &exectest.Log{}
	var ops []*exectest.Op
	var want []int64
	for i := 0; i < 3; i++ {
		var batches [][]any
		for b := 0; b < 3; b++ {
			var vals []any
			for k := 0; k < 300; k++ {
				v := int64(b*10 + (k/100)*3 + i)
				vals = append(vals, v)
				want = append(want, v)
			}
			batches = append(batches, vals)
		}
		ops = append(ops, exectest.New(log, "in"+itoa(i), intBatches(mem, batches...)...))
	}
	slices.Sort(want)
	rows, err := run(t, newTestGatherMerge(t, ops, true, false, 1000))
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, r := range rows {
		got = append(got, r[0].(int64))
	}
	if !slices.Equal(got, want) {
		t.Errorf("merged %d rows, not in order or not all of them", len(got))
	}
	wantNoViolations(t, ops...)
}
