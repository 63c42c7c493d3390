package executor

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

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

// phRows makes n rows (a, b): a key in [0, keys), about one in ten NULL,
// and b the row number.
func phRows(r *rand.Rand, n, keys int) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		var k any
		if r.Intn(10) > 0 {
			k = int64(r.Intn(keys))
		}
		rows[i] = []any{k, int64(i)}
	}
	return rows
}

// phTable stores rows (a, b) in batches of size.
func phTable(mem memory.Allocator, name string, rows [][]any, size int) *storage.Table {
	var batches []arrow.RecordBatch
	for lo := 0; lo < len(rows); lo += size {
		var a, b []any
		for _, r := range rows[lo:min(lo+size, len(rows))] {
			a, b = append(a, r[0]), append(b, r[1])
		}
		batches = append(batches, abBatch(mem, a, b))
	}
	return newTable(name, batches...) // which takes the batches over
}

// phCase is a join the tests run as a Parallel Hash Join.
type phCase struct {
	typ       nodes.JoinType
	filter    bool // JoinFilter o.b < i.b
	nullAware bool // NOT IN
}

func (c phCase) String() string {
	s := map[nodes.JoinType]string{nodes.JoinInner: "inner", nodes.JoinLeft: "left", nodes.JoinSemi: "semi", nodes.JoinAnti: "anti",
		nodes.JoinRight: "right", nodes.JoinFull: "full", nodes.JoinRightSemi: "right semi", nodes.JoinRightAnti: "right anti"}[c.typ]
	if c.filter {
		s += "+filter"
	}
	if c.nullAware {
		s += "+notin"
	}
	return s
}

var phCases = []phCase{
	{typ: nodes.JoinInner}, {typ: nodes.JoinLeft}, {typ: nodes.JoinSemi}, {typ: nodes.JoinAnti},
	{typ: nodes.JoinInner, filter: true}, {typ: nodes.JoinLeft, filter: true},
	{typ: nodes.JoinSemi, filter: true}, {typ: nodes.JoinAnti, filter: true},
	{typ: nodes.JoinAnti, nullAware: true},
	// Joins that return inner rows by their matches share the table's
	// match flags; the last participant to finish probing returns them.
	{typ: nodes.JoinRight}, {typ: nodes.JoinFull}, {typ: nodes.JoinRightSemi}, {typ: nodes.JoinRightAnti},
	{typ: nodes.JoinRight, filter: true}, {typ: nodes.JoinFull, filter: true},
	{typ: nodes.JoinRightSemi, filter: true}, {typ: nodes.JoinRightAnti, filter: true},
}

// phJoin is a Parallel Hash Join of outer and inner on a (with the
// case's filter) under a Gather; parallel false makes it the
// parallel-oblivious join (each participant scans the inner side).
func phJoin(c phCase, outer nodes.Plan, inner nodes.Plan, parallel bool, workers int, leader bool) (*nodes.Gather, *nodes.HashJoin) {
	hj := &nodes.HashJoin{Type: c.typ, Outer: outer, Inner: &nodes.Hash{Child: inner, Parallel: parallel},
		OuterKeys: []nodes.Expr{col(0, types.Int8T)}, InnerKeys: []nodes.Expr{col(0, types.Int8T)},
		Parallel: parallel, NullAware: c.nullAware}
	hj.Inner.Out = inner.Base().Out
	if c.filter {
		hj.JoinFilter = cmpOp("<", col(1, types.Int8T), col(3, types.Int8T))
	}
	switch {
	case c.typ.OwnRowsAreOuter():
		hj.Out = outer.Base().Out
	case c.typ.OwnRowsAreInner():
		hj.Out = inner.Base().Out
	default:
		hj.Out = append(append([]nodes.Field(nil), outer.Base().Out...), inner.Base().Out...)
	}
	g := &nodes.Gather{Child: hj, Workers: workers, LeaderParticipates: leader}
	g.Out = hj.Out
	nodes.Number(g)
	return g, hj
}

// phScans are Parallel Seq Scans of outer and inner (the inner one
// parallel-aware only for a Parallel Hash).
func phScans(outer, inner *storage.Table, parallel bool) (*nodes.SeqScan, *nodes.SeqScan) {
	o, i := scanAB(outer), scanAB(inner)
	o.Parallel, i.Parallel = true, parallel
	return o, i
}

// phRef joins the rows (a, b) the slow way.
func phRef(c phCase, outer, inner [][]any) [][]any {
	if c.nullAware {
		for _, i := range inner {
			if i[0] == nil {
				return nil
			}
		}
	}
	var out [][]any
	innerHit := make([]bool, len(inner))
	for _, o := range outer {
		hit := false
		for k, i := range inner {
			if o[0] == nil || i[0] == nil || o[0] != i[0] || (c.filter && o[1].(int64) >= i[1].(int64)) {
				continue
			}
			hit, innerHit[k] = true, true
			if !c.typ.OwnRowsAreOuter() && !c.typ.OwnRowsAreInner() {
				out = append(out, []any{o[0], o[1], i[0], i[1]})
			}
		}
		switch {
		case c.typ == nodes.JoinSemi && hit:
			out = append(out, o)
		case c.typ == nodes.JoinAnti && !hit && !(c.nullAware && o[0] == nil && len(inner) > 0):
			out = append(out, o)
		case (c.typ == nodes.JoinLeft || c.typ == nodes.JoinFull) && !hit:
			out = append(out, []any{o[0], o[1], nil, nil})
		}
	}
	for k, i := range inner {
		switch {
		case c.typ == nodes.JoinRightSemi && innerHit[k], c.typ == nodes.JoinRightAnti && !innerHit[k]:
			out = append(out, i)
		case (c.typ == nodes.JoinRight || c.typ == nodes.JoinFull) && !innerHit[k]:
			out = append(out, []any{nil, nil, i[0], i[1]})
		}
	}
	return out
}

// phConfig is how a test runs the Gather.
type phConfig struct {
	name       string
	workers    int
	leader     bool
	maxWorkers int   // the pool's limit
	debugSpill bool  // split at once
	workMem    int64 // 0: the default
}

var phConfigs = []phConfig{
	{name: "2 workers", workers: 2, leader: true, maxWorkers: 8},
	{name: "2 workers, no leader", workers: 2, maxWorkers: 8},
	{name: "1 worker", workers: 1, leader: true, maxWorkers: 8},
	{name: "no worker launched", workers: 2, leader: true, maxWorkers: 0},
	{name: "debug spill, 2 workers", workers: 2, leader: true, maxWorkers: 8, debugSpill: true},
	{name: "spill past work_mem, 2 workers", workers: 2, leader: true, maxWorkers: 8, workMem: 16 << 10},
}

func (c phConfig) context(stats *instrument.Stats, dir string) *ExecContext {
	return &ExecContext{BatchSize: 256, Workers: &WorkerPool{}, MaxParallelWorkers: c.maxWorkers, Stats: stats,
		DebugSpill: c.debugSpill, WorkMem: c.workMem, HashMemMultiplier: 1, TempDir: dir}
}

// TestParallelHashJoin checks the join's rows against a reference join
// for every join type, participants and spill, and that the inner side
// was read once in all (not once per participant) into one table.
func TestParallelHashJoin(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	exec := checkedAlloc(t)
	r := rand.New(rand.NewSource(7))
	sizes := []struct {
		name          string
		nOuter, nIner int
	}{{"regular", 2500, 1500}, {"empty inner", 2000, 0}, {"empty outer", 0, 2000}}
	for _, sz := range sizes {
		outerRows, innerRows := phRows(r, sz.nOuter, 1500), phRows(r, sz.nIner, 1500)
		outer, inner := phTable(mem, "o", outerRows, 500), phTable(mem, "i", innerRows, 300)
		for _, cfg := range phConfigs {
			for _, c := range phCases {
				t.Run(fmt.Sprintf("%s/%s/%s", sz.name, cfg.name, c), func(t *testing.T) {
					os, is := phScans(outer, inner, true)
					g, hj := phJoin(c, os, is, true, cfg.workers, cfg.leader)
					stats := instrument.NewStats(nodes.Number(g), false)
					dir := t.TempDir()
					op, err := Build(g, cfg.context(stats, dir))
					if err != nil {
						t.Fatal(err)
					}
					readBefore := sharedBuildRowsRead.Load()
					got, err := drainChecked(t, op, 256)
					if err != nil {
						t.Fatal(err)
					}
					exec.AssertSize(t, 0)
					// Spilled, each build partition became a table once,
					// by one participant: the inner rows with a key (the
					// regular outer side has rows in every partition), not
					// once per participant, and not never (no fallback;
					// NOT IN over an inner side with a NULL is over at once).
					read, want := sharedBuildRowsRead.Load()-readBefore, keyedRows(innerRows)
					spilled := (cfg.debugSpill || cfg.workMem > 0) && !c.nullAware
					if read > want || (spilled && sz.name == "regular" && read != want) {
						t.Errorf("%d rows read back from the shared build partitions, want the %d spilled, once", read, want)
					}
					sameRows(t, "rows", got, phRef(c, outerRows, innerRows))
					noTempFiles(t, dir)
					scan, hash := stats.Node(is.ID), stats.Node(hj.Inner.ID)
					if scan.Rows != int64(sz.nIner) {
						t.Errorf("the inner scan returned %d rows in all, want the table's %d once", scan.Rows, sz.nIner)
					}
					participants := int64(cfg.workers)
					if cfg.maxWorkers == 0 {
						participants = 0
					}
					if cfg.leader || participants == 0 {
						participants++
					}
					// A participant the build was over for never opened
					// the inner side, but every one ran the Hash.
					if hash.Loops != participants || scan.Loops > participants || (sz.nIner > 0 && scan.Loops < 1) {
						t.Errorf("Hash loops %d, inner scan loops %d; %d participants", hash.Loops, scan.Loops, participants)
					}
					if hash.Hash == nil || hash.Hash.Batches < 1 {
						t.Fatalf("no hash info: %+v", hash.Hash)
					}
					if spills := cfg.debugSpill || cfg.workMem > 0; spills != (hash.Hash.Batches > 1) && sz.nIner > 0 {
						t.Errorf("Batches %d", hash.Hash.Batches)
					}
				})
			}
		}
		outer.Replace(nil)
		inner.Replace(nil)
	}
	mem.AssertSize(t, 0)
}

// keyedRows counts the rows with a key, the ones a join's build keeps.
func keyedRows(rows [][]any) int64 {
	n := int64(0)
	for _, r := range rows {
		if r[0] != nil {
			n++
		}
	}
	return n
}

// TestParallelHashBuildsOnce: the same join parallel-oblivious reads the
// inner side once per participant, which the counters of the test above
// would notice.
func TestParallelHashBuildsOnce(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	mem := checkedAlloc(t)
	r := rand.New(rand.NewSource(3))
	outer, inner := phTable(mem, "o", phRows(r, 5000, 100), 500), phTable(mem, "i", phRows(r, 2000, 100), 200)
	defer outer.Replace(nil)
	defer inner.Replace(nil)
	for _, parallel := range []bool{false, true} {
		os, is := phScans(outer, inner, parallel)
		g, _ := phJoin(phCase{typ: nodes.JoinInner}, os, is, parallel, 2, false)
		stats := instrument.NewStats(nodes.Number(g), false)
		op, err := Build(g, phConfigs[0].context(stats, ""))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := drainChecked(t, op, 256); err != nil {
			t.Fatal(err)
		}
		want := int64(2000)
		if !parallel {
			want *= 2 // each of the two workers reads all of it
		}
		if got := stats.Node(is.ID).Rows; got != want {
			t.Errorf("parallel %v: the inner scan returned %d rows, want %d", parallel, got, want)
		}
	}
}

// lateCopy holds a participant's copy back until the shared build of
// join id is over (or, with afterProbe, until the outer side of its
// spilled build is partitioned), as a worker the scheduler starts late.
type lateCopy struct {
	Operator
	ec         *ExecContext
	id         int
	afterProbe bool
	waited     bool
}

func (l *lateCopy) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !l.waited {
		l.waited = true
		l.ec.parallel.mu.Lock()
		sh := l.ec.parallel.hashes[l.id]
		l.ec.parallel.mu.Unlock()
		done := sh.done
		if l.afterProbe {
			done = sh.probe.done
		}
		select {
		case <-done:
		case <-ctx.Done():
			return nil, CtxError(ctx)
		case <-time.After(testTimeout):
			return nil, errors.New("the build never ended")
		}
	}
	return l.Operator.Next(ctx)
}

// TestParallelHashLateParticipants: participants that come after the
// build has ended (late workers, or a late leader) build nothing, wait
// for nobody, and still probe; the early ones read all the inner side.
func TestParallelHashLateParticipants(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	mem := checkedAlloc(t)
	r := rand.New(rand.NewSource(5))
	outerRows, innerRows := phRows(r, 8000, 700), phRows(r, 3000, 700)
	outer, inner := phTable(mem, "o", outerRows, 400), phTable(mem, "i", innerRows, 250)
	defer outer.Replace(nil)
	defer inner.Replace(nil)
	type lateness struct {
		name  string
		cfg   phConfig
		probe bool // late until the spilled join's outer side is partitioned
		typ   nodes.JoinType
	}
	wants := map[nodes.JoinType][][]any{}
	for _, typ := range []nodes.JoinType{nodes.JoinLeft, nodes.JoinRight} {
		wants[typ] = phRef(phCase{typ: typ}, outerRows, innerRows)
	}
	for _, when := range []lateness{{"build", phConfigs[0], false, nodes.JoinLeft}, {"spilled build", phConfigs[4], false, nodes.JoinLeft},
		{"spilled probe", phConfigs[4], true, nodes.JoinLeft}, {"build, right join", phConfigs[0], false, nodes.JoinRight},
		{"spilled probe, right join", phConfigs[4], true, nodes.JoinRight}} {
		for _, late := range []string{"workers", "leader"} {
			for _, ownedShares := range []bool{false, true} {
				t.Run(fmt.Sprintf("late after %s/late %s/owned shares %v", when.name, late, ownedShares), func(t *testing.T) {
					testLateParticipants(t, when.typ, wants[when.typ], len(innerRows), outer, inner, when.cfg, late, ownedShares, when.probe)
				})
			}
		}
	}
}

func testLateParticipants(t *testing.T, typ nodes.JoinType, want [][]any, innerRows int, outer, inner *storage.Table, cfg phConfig, late string, ownedShares, afterProbe bool) {
	c := phCase{typ: typ}
	os, is := phScans(outer, inner, true)
	g, hj := phJoin(c, os, is, true, 2, true)
	stats := instrument.NewStats(nodes.Number(g), false)
	ec := cfg.context(stats, t.TempDir())
	gop, err := newGather(g, ec)
	if err != nil {
		t.Fatal(err)
	}
	ga := gop.(*gatherOp)
	ga.build = func(p nodes.Plan, pec *ExecContext) (Operator, error) {
		if ownedShares {
			pec.parallel.mu.Lock()          // the workers started may be scanning
			pec.parallel.ownedShares = true // as under a Gather Merge
			pec.parallel.mu.Unlock()
		}
		op, err := Build(p, pec)
		if err != nil || (late == "workers") == (pec.participant == 0) {
			return op, err
		}
		return &lateCopy{Operator: op, ec: pec, id: hj.ID, afterProbe: afterProbe}, nil
	}
	got, err := drainChecked(t, ga, 256)
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, "rows", got, want)
	if scan := stats.Node(is.ID); scan.Rows != int64(innerRows) {
		t.Errorf("inner scan rows %d, want %d", scan.Rows, innerRows)
	}
	if hash := stats.Node(hj.Inner.ID); hash.Loops != 3 {
		t.Errorf("Hash loops %d, want 3", hash.Loops)
	}
}

// gatedInner builds the Gather g of a Parallel Hash Join whose inner side
// is the stub s, giving participant i the fake inners[i].
func gatedGather(t *testing.T, g *nodes.Gather, s *nodes.Result, inners []*exectest.Op) *gatherOp {
	ec := &ExecContext{BatchSize: 256, Workers: &WorkerPool{}, MaxParallelWorkers: 8}
	gop, err := newGather(g, ec)
	if err != nil {
		t.Fatal(err)
	}
	ga := gop.(*gatherOp)
	ga.build = func(p nodes.Plan, pec *ExecContext) (Operator, error) {
		return buildWithFakes(t, p, pec, map[*nodes.Result]Operator{s: inners[pec.participant]}), nil
	}
	return ga
}

// TestParallelHashBuildFailure: an error or a cancel in one participant's
// build share wakes the participants waiting at the barrier (the leader
// among them), the Gather returns that error, and nothing is left
// running or open.
func TestParallelHashBuildFailure(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	mem := checkedAlloc(t)
	r := rand.New(rand.NewSource(9))
	outer := phTable(mem, "o", phRows(r, 4000, 100), 400)
	defer outer.Replace(nil)
	for _, how := range []string{"error", "cancel"} {
		t.Run(how, func(t *testing.T) {
			s := stub(field("a", types.Int8T), field("b", types.Int8T))
			os, _ := phScans(outer, outer, true)
			g, _ := phJoin(phCase{typ: nodes.JoinInner}, os, s, true, 2, true)
			// Participants 0 and 1 go on once 2 is in its share, so that
			// all three are attached when 2 fails.
			gate, others := exectest.NewGate(), exectest.NewGate()
			inners := failingCopies(mem, "inner", how, gate, others, func(i int) arrow.RecordBatch {
				return abBatch(mem, []any{int64(1), int64(2)}, []any{int64(i), int64(i)})
			})
			ga := gatedGather(t, g, s, inners)
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			go func() {
				select {
				case <-gate.Reached():
				case <-ctx.Done():
					return
				}
				others.Release()
				time.Sleep(10 * time.Millisecond) // let them arrive and wait
				failNow(how, gate, cancel)
			}()
			wantFailure(t, ctx, ga, how)
			for _, f := range inners {
				if _, _, closes := f.Counts(); closes > 1 {
					t.Errorf("%s closed %d times", f.Name, closes)
				}
			}
			wantNoViolations(t, inners...)
		})
	}
}

// TestParallelHashEarlyClose: a Gather closed after its first batch (a
// LIMIT), or before any, stops its workers wherever they are, probing
// or still building, and frees the shared table.
func TestParallelHashEarlyClose(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	mem := checkedAlloc(t)
	r := rand.New(rand.NewSource(11))
	outer, inner := phTable(mem, "o", phRows(r, 40000, 50), 1000), phTable(mem, "i", phRows(r, 20000, 50), 1000)
	defer outer.Replace(nil)
	defer inner.Replace(nil)
	for _, leader := range []bool{true, false} {
		for _, batches := range []int{0, 1, 3} {
			t.Run(fmt.Sprintf("leader %v/after %d batches", leader, batches), func(t *testing.T) {
				os, is := phScans(outer, inner, true)
				g, _ := phJoin(phCase{typ: nodes.JoinInner}, os, is, true, 2, leader)
				op, err := Build(g, phConfigs[0].context(nil, ""))
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				if err := op.Open(ctx); err != nil {
					t.Fatal(err)
				}
				for range batches {
					b, err := op.Next(ctx)
					if err != nil {
						t.Fatal(err)
					}
					b.Release()
				}
				if err := op.Close(); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestParallelHashNested: a Parallel Hash over a partial join that is
// itself a Parallel Hash Join (TPC-H's shapes): two barriers, one inside
// the other's build, with every participant, with late ones, and
// spilling.
func TestParallelHashNested(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	data := memory.NewCheckedAllocator(memory.NewGoAllocator())
	r := rand.New(rand.NewSource(13))
	aRows, bRows, cRows := phRows(r, 3000, 400), phRows(r, 2000, 400), phRows(r, 600, 400)
	a, b, c := phTable(data, "a", aRows, 300), phTable(data, "b", bRows, 200), phTable(data, "c", cRows, 100)
	defer a.Replace(nil)
	defer b.Replace(nil)
	defer c.Replace(nil)
	// a JOIN (b JOIN c) on a, compared on a's and b's columns (phRef
	// keeps an inner row's first two).
	want := phRef(phCase{typ: nodes.JoinInner}, aRows, phRef(phCase{typ: nodes.JoinInner}, bRows, cRows))
	for _, cfg := range []phConfig{phConfigs[0], phConfigs[1], phConfigs[4]} {
		t.Run(cfg.name, func(t *testing.T) {
			as, bs := phScans(a, b, true)
			_, cs := phScans(c, c, true)
			inner := &nodes.HashJoin{Outer: bs, Inner: &nodes.Hash{Child: cs, Parallel: true},
				OuterKeys: []nodes.Expr{col(0, types.Int8T)}, InnerKeys: []nodes.Expr{col(0, types.Int8T)}, Parallel: true}
			inner.Inner.Out = cs.Out
			inner.Out = append(append([]nodes.Field(nil), bs.Out...), cs.Out...)
			g, _ := phJoin(phCase{typ: nodes.JoinInner}, as, inner, true, cfg.workers, cfg.leader)
			stats := instrument.NewStats(nodes.Number(g), false)
			op, err := Build(g, cfg.context(stats, t.TempDir()))
			if err != nil {
				t.Fatal(err)
			}
			got, err := drainChecked(t, op, 256)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				got[i] = got[i][:4]
			}
			sameRows(t, "rows", got, want)
			for _, s := range []*nodes.SeqScan{bs, cs} {
				if n := stats.Node(s.ID).Rows; n != s.Table.Rows() {
					t.Errorf("%s: %d rows read, want %d once", s.Table.Name, n, s.Table.Rows())
				}
			}
		})
	}
}

// TestParallelHashRuntimeFilter runs Parallel Hash inner and semi joins
// whose outer Parallel Seq Scan has the join's runtime filter: each
// participant makes its filter from the whole shared table, so the rows
// are the reference join's and the scans drop most outer rows; a build
// that spilled publishes no filter.
func TestParallelHashRuntimeFilter(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewSource(11))
	outerRows, innerRows := phRows(r, 3000, 1500), phRows(r, 200, 150)
	outer, inner := phTable(mem, "o", outerRows, 500), phTable(mem, "i", innerRows, 50)
	for _, cfg := range phConfigs {
		for _, c := range []phCase{{typ: nodes.JoinInner}, {typ: nodes.JoinSemi}, {typ: nodes.JoinInner, filter: true}} {
			t.Run(fmt.Sprintf("%s/%s", cfg.name, c), func(t *testing.T) {
				os, is := phScans(outer, inner, true)
				os.RuntimeFilters = []*nodes.RuntimeFilter{{ID: 1, Keys: []nodes.Expr{col(0, types.Int8T)}, BuildKeys: []nodes.Expr{col(0, types.Int8T)}}}
				g, hj := phJoin(c, os, is, true, cfg.workers, cfg.leader)
				hj.RuntimeFilter = &nodes.RuntimeFilterSource{ID: 1, Keys: []int{0}}
				stats := instrument.NewStats(nodes.Number(g), false)
				dir := t.TempDir()
				op, err := Build(g, cfg.context(stats, dir))
				if err != nil {
					t.Fatal(err)
				}
				got, err := drainChecked(t, op, 256)
				if err != nil {
					t.Fatal(err)
				}
				sameRows(t, "rows", got, phRef(c, outerRows, innerRows))
				removed := stats.Node(os.ID).RowsRemovedByRuntimeFilter
				spills := cfg.debugSpill || cfg.workMem > 0
				if !spills && removed < 2000 {
					t.Errorf("the runtime filter removed %d of 3000 outer rows (keys 10 times the inner's)", removed)
				}
			})
		}
	}
}

// TestParallelHashProbeFailure: with the build spilled, an error or a
// cancel in one participant's outer partitioning wakes the participants
// waiting at the probe barrier (the leader among them); the Gather
// returns that error and nothing is left running or open.
func TestParallelHashProbeFailure(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	mem := checkedAlloc(t)
	r := rand.New(rand.NewSource(17))
	inner := phTable(mem, "i", phRows(r, 4000, 300), 400)
	defer inner.Replace(nil)
	for _, how := range []string{"error", "cancel"} {
		t.Run(how, func(t *testing.T) {
			s := stub(field("a", types.Int8T), field("b", types.Int8T))
			_, is := phScans(inner, inner, true)
			g, _ := phJoin(phCase{typ: nodes.JoinLeft}, s, is, true, 2, true)
			// Participants 0 and 1 finish their outer rows once 2 is in
			// its share (so that all three are attached), and arrive; 2
			// fails once they wait.
			gate, others := exectest.NewGate(), exectest.NewGate()
			outers := failingCopies(mem, "outer", how, gate, others, func(i int) arrow.RecordBatch {
				return abBatch(mem, []any{int64(1), int64(2), nil}, []any{int64(i), int64(i), int64(i)})
			})
			ec := &ExecContext{BatchSize: 256, Workers: &WorkerPool{}, MaxParallelWorkers: 8, DebugSpill: true, TempDir: t.TempDir()}
			gop, err := newGather(g, ec)
			if err != nil {
				t.Fatal(err)
			}
			ga := gop.(*gatherOp)
			var mu sync.Mutex
			var shared *parallelShared
			ga.build = func(p nodes.Plan, pec *ExecContext) (Operator, error) {
				mu.Lock()
				shared = pec.parallel
				mu.Unlock()
				return buildWithFakes(t, p, pec, map[*nodes.Result]Operator{s: outers[pec.participant]}), nil
			}
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			go func() {
				select {
				case <-gate.Reached():
				case <-ctx.Done():
					return
				}
				others.Release()
				// Let the other two arrive at the probe barrier.
				for probeArrived(&mu, &shared) < 2 {
					if ctx.Err() != nil {
						return
					}
					time.Sleep(time.Millisecond)
				}
				failNow(how, gate, cancel)
			}()
			wantFailure(t, ctx, ga, how)
			wantNoViolations(t, outers...)
		})
	}
}

// probeArrived is how many participants arrived at the probe barrier of
// the one Parallel Hash Join of *shared (set under mu).
func probeArrived(mu *sync.Mutex, shared **parallelShared) int {
	mu.Lock()
	ps := *shared
	mu.Unlock()
	if ps == nil {
		return 0
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	n := 0
	for _, sh := range ps.hashes {
		sh.probe.mu.Lock()
		n = sh.probe.arrived
		sh.probe.mu.Unlock()
	}
	return n
}

// failingCopies are three participants' scripted inputs: each returns
// first(i); 0 and 1 then wait for others and end; 2 waits for gate, then
// fails with a division by zero, or, for how == "cancel", would return
// one more batch (the test cancels it while it waits).
func failingCopies(mem memory.Allocator, name, how string, gate, others *exectest.Gate, first func(i int) arrow.RecordBatch) []*exectest.Op {
	ops := make([]*exectest.Op, 3)
	for i := range ops {
		steps := []exectest.Step{{Batch: first(i)}}
		if i < 2 {
			steps = append(steps, exectest.Step{Pending: others})
		} else if how == "cancel" {
			steps = append(steps, exectest.Step{Pending: gate, Batch: abBatch(mem, []any{int64(3)}, []any{int64(3)})})
		} else {
			steps = append(steps, exectest.Step{Pending: gate, Err: pgerr.New(pgerr.DivisionByZero, "division by zero")})
		}
		ops[i] = exectest.New(nil, fmt.Sprint(name, i), steps...)
	}
	return ops
}

// failNow makes the waiting participant fail: its error, or a cancel.
func failNow(how string, gate *exectest.Gate, cancel context.CancelFunc) {
	if how == "cancel" {
		cancel()
	} else {
		gate.Release()
	}
}

// wantFailure drains ga and checks that it failed as how says and
// closed cleanly.
func wantFailure(t *testing.T, ctx context.Context, ga *gatherOp, how string) {
	t.Helper()
	err := ga.Open(ctx)
	for err == nil {
		var b arrow.RecordBatch
		if b, err = ga.Next(ctx); b != nil {
			b.Release()
		}
	}
	if cerr := ga.Close(); cerr != nil {
		t.Errorf("Close: %v", cerr)
	}
	want := pgerr.DivisionByZero
	if how == "cancel" {
		want = pgerr.QueryCanceled
	}
	if pgerr.Code(err) != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
