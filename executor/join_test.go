package executor

// Joins built from whole plans over stored tables (as the planner builds
// them), under Gather, with EXPLAIN ANALYZE, and with failing children.

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
	"go.uber.org/goleak"
)

// joinTable stores rows of (k1 bigint, k2 text, v bigint).
func joinTable(mem memory.Allocator, name string, fs []nodes.Field, rows [][]any, batch int) *storage.Table {
	tbl := storage.NewTable("public", name, []storage.Column{
		{Name: fs[0].Name, Type: types.Int8T}, {Name: fs[1].Name, Type: types.TextT}, {Name: fs[2].Name, Type: types.Int8T},
	})
	tbl.Append(rowBatches(mem, fs, rows, batch)...)
	return tbl
}

func joinScan(tbl *storage.Table, fs []nodes.Field) *nodes.SeqScan {
	return &nodes.SeqScan{PlanBase: nodes.PlanBase{Out: fs}, Table: tbl, Columns: []int{0, 1, 2}}
}

// TestJoinPlansOverTables runs a hash join and a nested loop over table
// scans (with their own filters), with projections, under EXPLAIN
// ANALYZE, and under a Gather whose workers each build the hash table and
// share the outer table out, against the reference join.
func TestJoinPlansOverTables(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	data := memory.NewGoAllocator()
	r := rand.New(rand.NewSource(10))
	nOuter := 5000
	if raceEnabled { // slow under the race detector; still 8 batches
		nOuter = 2000
	}
	outer, inner := randomRows(r, nOuter, 300), randomRows(r, 700, 300)
	ot, it := joinTable(data, "o", outerFields, outer, 256), joinTable(data, "i", innerFields, inner, 100)
	// The inner scan keeps iw IS NOT NULL.
	var innerKept [][]any
	for _, row := range inner {
		if row[2] != nil {
			innerKept = append(innerKept, row)
		}
	}
	for _, typ := range joinTypes {
		want := refJoin(typ, outer, innerKept, []int{0}, ltGo)
		wantNL := refJoin(typ, outer, innerKept, nil, keyEqGo(true))
		sameRows(t, "hash and nested loop references", want, wantNL)
		mkHash := func(parallel bool) nodes.Plan {
			os, is := joinScan(ot, outerFields), joinScan(it, innerFields)
			os.Parallel = parallel
			is.Filter = &nodes.NullTest{Arg: col(2, types.Int8T), IsNot: true}
			h := &nodes.Hash{Child: is}
			h.Out = innerFields
			j := &nodes.HashJoin{Type: typ, Outer: os, Inner: h, JoinFilter: ltFilter(),
				OuterKeys: []nodes.Expr{col(0, types.Int8T)}, InnerKeys: []nodes.Expr{col(0, types.Int8T)}}
			j.Out = ownFields(typ)
			return j
		}
		mkNL := func() nodes.Plan {
			os, is := joinScan(ot, outerFields), joinScan(it, innerFields)
			is.Filter = &nodes.NullTest{Arg: col(2, types.Int8T), IsNot: true}
			m := &nodes.Material{Child: is}
			m.Out = innerFields
			j := &nodes.NestedLoop{Type: typ, Outer: os, Inner: m, JoinFilter: keyEq(true)}
			j.Out = ownFields(typ)
			return j
		}
		plans := map[string]nodes.Plan{"hash": mkHash(false), "nested loop": mkNL()}
		if !fillInner(typ) {
			// Under a Gather each worker returns the matches of its share
			// of the outer rows (unmatched inner rows would be returned
			// by every worker: a planner does not make that plan).
			g := &nodes.Gather{Child: mkHash(true), Workers: 2, LeaderParticipates: true}
			g.Out = ownFields(typ)
			plans["gather"] = g
		}
		for name, p := range plans {
			n := nodes.Number(p)
			ec := &ExecContext{BatchSize: 333, Stats: instrument.NewStats(n, false), Workers: &WorkerPool{}, MaxParallelWorkers: 4}
			op, err := Build(p, ec)
			if err != nil {
				t.Fatal(err)
			}
			got, err := drainChecked(t, op, 333)
			ec.Release()
			if err != nil {
				t.Fatalf("%s %s: %v", typ.SQL(), name, err)
			}
			sameRows(t, typ.SQL()+" "+name, got, want)
			lines := instrument.Explain(p, ec.Stats, instrument.ExplainOptions{Format: "text", Analyze: true})
			text := strings.Join(lines, "\n")
			if name == "hash" && !strings.Contains(text, "Buckets: 1024  Batches: 1  Memory Usage: ") {
				t.Errorf("%s: no hash line in\n%s", typ.SQL(), text)
			}
			if root := ec.Stats.Node(0); root.Rows != int64(len(want)) {
				t.Errorf("%s %s: root rows %d, want %d\n%s", typ.SQL(), name, root.Rows, len(want), text)
			}
		}
	}
}

// TestJoinChildErrors: an error of either child, at Open or Next, reaches
// the caller unchanged, and both children are closed once.
func TestJoinChildErrors(t *testing.T) {
	errOpen := pgerr.New(pgerr.ConnectionFailure, "child failed to open")
	errNext := pgerr.New(pgerr.IOError, "child failed to read")
	mem := checkedAlloc(t)
	rows := [][]any{{int64(1), "a", int64(1)}, {int64(2), "b", int64(2)}}
	for _, kind := range []string{"hash", "nested loop"} {
		for _, failing := range []string{"outer", "inner"} {
			for _, atOpen := range []bool{true, false} {
				for _, typ := range []nodes.JoinType{nodes.JoinInner, nodes.JoinFull} {
					var p nodes.Plan
					var o, i *nodes.Result
					if kind == "hash" {
						p, o, i = hashJoinPlan(typ, []int{0}, nil)
					} else {
						p, o, i = nlPlan(typ, nil, true)
					}
					of := exectest.New(nil, "outer", exectest.Batches(rowBatches(mem, outerFields, rows, 1)...)...)
					inf := exectest.New(nil, "inner", exectest.Batches(rowBatches(mem, innerFields, rows, 1)...)...)
					bad, want := of, error(errNext)
					if failing == "inner" {
						bad = inf
					}
					if atOpen {
						bad.OpenErr, want = errOpen, errOpen
					} else {
						for _, st := range bad.Steps[1:] {
							st.Batch.Release()
						}
						bad.Steps = append(bad.Steps[:1:1], exectest.Step{Err: errNext})
					}
					op := buildWithFakes(t, p, &ExecContext{BatchSize: 10}, map[*nodes.Result]Operator{o: of, i: inf})
					_, err := run(t, op)
					if err != want {
						t.Errorf("%s %s %s open=%v: error %v, want %v", kind, typ.SQL(), failing, atOpen, err, want)
					}
					wantNoViolations(t, of, inf)
				}
			}
		}
	}
	mem.AssertSize(t, 0)
}

// TestJoinColumnTypes: a child whose columns disagree with the plan is an
// internal error, not a misread.
func TestJoinColumnTypes(t *testing.T) {
	mem := memory.NewGoAllocator()
	for _, kind := range []string{"hash", "nested loop"} {
		var p nodes.Plan
		var o, i *nodes.Result
		if kind == "hash" {
			p, o, i = hashJoinPlan(nodes.JoinInner, []int{0}, nil)
		} else {
			p, o, i = nlPlan(nodes.JoinInner, nil, false)
		}
		wrong := exectest.NewBatch(mem, exectest.Int32s("k", 1), exectest.Strings("s", "a"), exectest.Int64s("v", 1))
		of := exectest.New(nil, "outer", exectest.Batches(rowBatches(mem, outerFields, [][]any{{int64(1), "a", int64(1)}}, 1)...)...)
		inf := exectest.New(nil, "inner", exectest.Batches(wrong)...)
		op := buildWithFakes(t, p, &ExecContext{BatchSize: 10}, map[*nodes.Result]Operator{o: of, i: inf})
		_, err := run(t, op)
		if pgerr.Code(err) != pgerr.InternalError {
			t.Errorf("%s: error %v, want an internal error", kind, err)
		}
	}
	// A bare Hash has no operator.
	if _, err := Build(&nodes.Hash{Child: stub()}, &ExecContext{}); pgerr.Code(err) != pgerr.InternalError {
		t.Errorf("Build(Hash): %v", err)
	}
}

// TestJoinOwnRowsRenamed: children whose batches carry other field names
// than the plan (as scans do) join and spill alike.
func TestJoinOwnRowsRenamed(t *testing.T) {
	mem := checkedAlloc(t)
	dir := t.TempDir()
	r := rand.New(rand.NewSource(11))
	outer, inner := randomRows(r, 100, 10), randomRows(r, 100, 10)
	renamed := func(rows [][]any) []arrow.RecordBatch {
		return rowBatches(mem, []nodes.Field{field("x", types.Int8T), field("y", types.TextT), field("z", types.Int8T)}, rows, 30)
	}
	p, o, i := hashJoinPlan(nodes.JoinFull, []int{1}, nil)
	of := exectest.New(nil, "outer", exectest.Batches(renamed(outer)...)...)
	inf := exectest.New(nil, "inner", exectest.Batches(renamed(inner)...)...)
	ec := &ExecContext{BatchSize: 50, DebugSpill: true, TempDir: dir}
	op := buildWithFakes(t, p, ec, map[*nodes.Result]Operator{o: of, i: inf})
	got, err := drainChecked(t, op, 50)
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, "renamed", got, refJoin(nodes.JoinFull, outer, inner, []int{1}, nil))
	noTempFiles(t, dir)
	mem.AssertSize(t, 0)
}
