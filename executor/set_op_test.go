package executor

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// setOpRow is one input row of a test: its compared values (nil: NULL).
type setOpRow []any

// setOpPlan builds cmd over the rows of left and right (columns of
// types ts), as the planner does: an Append of two VALUES lists with a
// flag column, under a Sort for the sorted strategy.
func setOpPlan(cmd nodes.SetOpCmd, strategy nodes.SetOpStrategy, ts []types.T, left, right []setOpRow, swap bool) *nodes.SetOp {
	fields := make([]nodes.Field, len(ts))
	for i, t := range ts {
		fields[i] = nodes.Field{Name: "c" + itoa(i), T: t}
	}
	withFlag := append(slices.Clone(fields), nodes.Field{Name: "flag", T: types.Int4T})
	values := func(rows []setOpRow, flag int64) nodes.Plan {
		v := &nodes.ValuesScan{Types: append(slices.Clone(ts), types.Int4T)}
		for _, r := range rows {
			var exprs []nodes.Expr
			for i, d := range r {
				exprs = append(exprs, &nodes.Const{Value: d, T: ts[i]})
			}
			v.Rows = append(v.Rows, append(exprs, &nodes.Const{Value: flag, T: types.Int4T}))
		}
		v.Out = withFlag
		if len(rows) == 0 {
			return &nodes.Result{PlanBase: nodes.PlanBase{Out: withFlag}, Empty: true}
		}
		return v
	}
	kids := []nodes.Plan{values(left, 0), values(right, 1)}
	first := 0
	if swap {
		kids[0], kids[1], first = kids[1], kids[0], 1
	}
	app := &nodes.Append{Kids: kids}
	app.Out = withFlag
	var child nodes.Plan = app
	if strategy == nodes.SetOpSorted {
		s := &nodes.Sort{Child: app}
		for i, t := range ts {
			s.Keys = append(s.Keys, nodes.SortKey{Expr: &nodes.ColumnRef{Index: i, T: t}})
		}
		s.Out = withFlag
		child = s
	}
	p := &nodes.SetOp{Child: child, Cmd: cmd, Strategy: strategy, FlagCol: len(ts), FirstFlag: first}
	p.Out = fields
	return p
}

// expectSetOp computes cmd's answer the slow way, as sorted text rows.
func expectSetOp(cmd nodes.SetOpCmd, left, right []setOpRow) []string {
	type count struct{ l, r int64 }
	counts := map[string]*count{}
	var order []string
	for side, rows := range [][]setOpRow{left, right} {
		for _, r := range rows {
			k := fmt.Sprint(r)
			c := counts[k]
			if c == nil {
				c = &count{}
				counts[k] = c
				order = append(order, k)
			}
			if side == 0 {
				c.l++
			} else {
				c.r++
			}
		}
	}
	var out []string
	for _, k := range order {
		for range cmd.Copies(counts[k].l, counts[k].r) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func runSetOp(t *testing.T, p *nodes.SetOp, ec *ExecContext) []string {
	t.Helper()
	op, err := Build(p, ec)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := run(t, op)
	ec.Release()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprint(setOpRow(r)))
	}
	slices.Sort(out)
	return out
}

var setOpCmds = []nodes.SetOpCmd{nodes.SetOpIntersect, nodes.SetOpIntersectAll, nodes.SetOpExcept, nodes.SetOpExceptAll}

func TestSetOpCases(t *testing.T) {
	i, s := types.Int4T, types.TextT
	r := func(v ...any) setOpRow { return v }
	cases := []struct {
		name        string
		ts          []types.T
		left, right []setOpRow
	}{
		{"duplicates", []types.T{i}, []setOpRow{r(int64(1)), r(int64(1)), r(int64(1)), r(int64(2)), r(int64(3))},
			[]setOpRow{r(int64(1)), r(int64(1)), r(int64(3)), r(int64(3)), r(int64(4))}},
		{"nulls equal", []types.T{i, s}, []setOpRow{r(nil, "x"), r(nil, "x"), r(int64(1), nil), r(nil, nil)},
			[]setOpRow{r(nil, "x"), r(int64(1), nil), r(int64(1), nil), r(int64(0), "")}},
		{"empty right", []types.T{s}, []setOpRow{r("a"), r("a"), r("b")}, nil},
		{"empty left", []types.T{s}, nil, []setOpRow{r("a")}},
		{"both empty", []types.T{i}, nil, nil},
		{"zero is not null", []types.T{i, i}, []setOpRow{r(int64(0), nil), r(nil, int64(0))},
			[]setOpRow{r(nil, int64(0)), r(nil, nil)}},
	}
	for _, c := range cases {
		for _, cmd := range setOpCmds {
			for _, strategy := range []nodes.SetOpStrategy{nodes.SetOpHashed, nodes.SetOpSorted} {
				for _, spill := range []bool{false, true} {
					name := fmt.Sprintf("%s/%s/%d/spill=%v", c.name, cmd, strategy, spill)
					t.Run(name, func(t *testing.T) {
						mem := checkedAlloc(t)
						want := expectSetOp(cmd, c.left, c.right)
						swap := strategy == nodes.SetOpHashed && (cmd == nodes.SetOpIntersect || cmd == nodes.SetOpIntersectAll)
						for _, sw := range []bool{false, swap} {
							got := runSetOp(t, setOpPlan(cmd, strategy, c.ts, c.left, c.right, sw), &ExecContext{DebugSpill: spill, BatchSize: 2})
							if !slices.Equal(got, want) {
								t.Errorf("swap=%v: got %v, want %v", sw, got, want)
							}
						}
						mem.AssertSize(t, 0)
					})
				}
			}
		}
	}
}

// TestSetOpRandom compares both strategies, spilling or not, and over
// batch boundaries, with the slow answer on random inputs with many
// duplicates and NULLs.
func TestSetOpRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	ts := []types.T{types.Int8T, types.TextT}
	gen := func(n int) []setOpRow {
		rows := make([]setOpRow, n)
		for i := range rows {
			var a, b any = int64(rng.Intn(40)), fmt.Sprint("v", rng.Intn(3))
			if rng.Intn(10) == 0 {
				a = nil
			}
			if rng.Intn(10) == 0 {
				b = nil
			}
			rows[i] = setOpRow{a, b}
		}
		return rows
	}
	left, right := gen(700), gen(500)
	for _, cmd := range setOpCmds {
		want := expectSetOp(cmd, left, right)
		for _, strategy := range []nodes.SetOpStrategy{nodes.SetOpHashed, nodes.SetOpSorted} {
			for _, ec := range []*ExecContext{{}, {BatchSize: 7}, {DebugSpill: true, BatchSize: 50}, {WorkMem: 4096, HashMemMultiplier: 1}} {
				got := runSetOp(t, setOpPlan(cmd, strategy, ts, left, right, false), ec)
				if !slices.Equal(got, want) {
					t.Errorf("%s strategy %d %+v: %d rows, want %d", cmd, strategy, ec, len(got), len(want))
				}
			}
		}
	}
}

// TestSetOpBatches checks that a group's many copies come in batches of
// at most BatchSize rows.
func TestSetOpBatches(t *testing.T) {
	var left []setOpRow
	for range 25 {
		left = append(left, setOpRow{int64(7)})
	}
	for _, strategy := range []nodes.SetOpStrategy{nodes.SetOpHashed, nodes.SetOpSorted} {
		op, err := Build(setOpPlan(nodes.SetOpExceptAll, strategy, []types.T{types.Int4T}, left, nil, false), &ExecContext{BatchSize: 10})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		var sizes []int64
		if err := Drain(ctx, op, func(b arrow.RecordBatch) error { sizes = append(sizes, b.NumRows()); return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(sizes, []int64{10, 10, 5}) {
			t.Errorf("strategy %d: batches of %v rows", strategy, sizes)
		}
	}
}

// TestSetOpMemoryLimit: a hash table the statement's memory pool cannot
// hold spills instead of failing.
func TestSetOpMemoryLimit(t *testing.T) {
	var left, right []setOpRow
	for i := range 3000 {
		left = append(left, setOpRow{int64(i)})
		if i%2 == 0 {
			right = append(right, setOpRow{int64(i)})
		}
	}
	ec := &ExecContext{Memory: NewMemoryPool(64<<10, nil)}
	got := runSetOp(t, setOpPlan(nodes.SetOpExcept, nodes.SetOpHashed, []types.T{types.Int8T}, left, right, false), ec)
	if len(got) != 1500 {
		t.Errorf("%d rows, want 1500", len(got))
	}
	if ec.Memory.Used() != 0 {
		t.Errorf("%d bytes still reserved", ec.Memory.Used())
	}
}

// TestSetOpLifecycle: the child is read to its end once, never pulled
// after io.EOF or an error, and closed once; an error of the child (here
// after some rows spilled) is the node's, and leaves nothing open.
func TestSetOpLifecycle(t *testing.T) {
	mem := memory.NewGoAllocator()
	batch := func(vals []any, flags []any) arrow.RecordBatch {
		return exectest.NewBatch(mem, exectest.Int64s("a", vals...), exectest.Int32s("flag", flags...))
	}
	fail := pgerr.New(pgerr.IOError, "boom")
	for _, strategy := range []nodes.SetOpStrategy{nodes.SetOpHashed, nodes.SetOpSorted} {
		for _, failing := range []bool{false, true} {
			steps := []exectest.Step{
				{Batch: batch([]any{1, 1, 2, 3}, []any{0, 0, 0, 0})},
				{Batch: batch([]any{3, 4}, []any{1, 1})},
			}
			if failing {
				steps = append(steps, exectest.Step{Err: fail})
			}
			fake := exectest.New(&exectest.Log{}, "child", steps...)
			s := stub(field("a", types.Int8T), field("flag", types.Int4T))
			p := &nodes.SetOp{Child: s, Cmd: nodes.SetOpExceptAll, Strategy: strategy, FlagCol: 1}
			p.Out = []nodes.Field{field("a", types.Int8T)}
			op, err := Build(p, &ExecContext{DebugSpill: true})
			if err != nil {
				t.Fatal(err)
			}
			op.(*setOpOp).child = fake
			ctx := context.Background()
			if err := op.Open(ctx); err != nil {
				t.Fatal(err)
			}
			rows := 0
			for {
				b, err := op.Next(ctx)
				if err != nil {
					if failing {
						wantPgErr(t, err, pgerr.IOError, "boom")
					} else if err != io.EOF {
						t.Fatal(err)
					}
					break
				}
				rows += int(b.NumRows())
				b.Release()
			}
			if !failing {
				if b, err := op.Next(ctx); b != nil || err != io.EOF || rows != 3 {
					t.Errorf("strategy %d: %d rows; Next after the end gave %v, %v", strategy, rows, b, err)
				}
			}
			op.Close()
			wantNoViolations(t, fake)
		}
	}
}
