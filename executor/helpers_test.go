package executor

// Shared helpers of the executor's internal tests: plan and expression
// builders, fake injection, allocator swapping and error assertions.

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
	"github.com/pgfed/pgfed/xact"
)

// testTimeout bounds tests that could hang if a node pulled a child it
// should not have pulled (a Pending step that is never released).
const testTimeout = 5 * time.Second

// checkedAlloc swaps the executor's allocator for a checked one until the
// test ends. Tests using it must not run in parallel.
func checkedAlloc(t *testing.T) *memory.CheckedAllocator {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	saved := alloc
	alloc = mem
	t.Cleanup(func() { alloc = saved })
	return mem
}

// Expression builders.

func col(i int, t types.T) *nodes.ColumnRef {
	return &nodes.ColumnRef{Index: i, Name: "c" + itoa(i), T: t}
}

func lit(v any, t types.T) *nodes.Const { return &nodes.Const{Value: v, T: t} }

func int8Lit(v int64) *nodes.Const { return lit(v, types.Int8T) }

func op(name string, l, r nodes.Expr, t types.T) *nodes.OpExpr {
	return &nodes.OpExpr{Op: name, Left: l, Right: r, T: t}
}

func cmpOp(name string, l, r nodes.Expr) *nodes.OpExpr { return op(name, l, r, types.BoolT) }

// stub is a placeholder child plan; inject replaces its operator with a
// fake. Out describes the columns the fake produces.
func stub(out ...nodes.Field) *nodes.Result { return &nodes.Result{PlanBase: nodes.PlanBase{Out: out}} }

func field(name string, t types.T) nodes.Field { return nodes.Field{Name: name, T: t} }

// childSlots returns pointers to the child operators of op, so that tests
// can replace or wrap them.
func childSlots(op Operator) []*Operator {
	switch o := op.(type) {
	case *instrumented:
		return []*Operator{&o.Operator}
	case *filterProject:
		return []*Operator{&o.child}
	case *limitOp:
		return []*Operator{&o.child}
	case *sortOp:
		return []*Operator{&o.child}
	case *aggOp:
		return []*Operator{&o.child}
	case *uniqueOp:
		return []*Operator{&o.child}
	case *subqueryScan:
		return []*Operator{&o.child}
	case *appendOp:
		slots := make([]*Operator, len(o.kids))
		for i := range o.kids {
			slots[i] = &o.kids[i]
		}
		return slots
	case *modifyTable:
		if o.child != nil {
			return []*Operator{&o.child}
		}
	case *hashJoin:
		return []*Operator{&o.outer, &o.inner}
	case *nestedLoop:
		return []*Operator{&o.outer, &o.inner}
	case *materialOp:
		return []*Operator{&o.child}
	}
	return nil
}

// walkSlots calls fn for every child slot below op, parents first.
func walkSlots(op Operator, fn func(slot *Operator)) {
	for _, s := range childSlots(op) {
		fn(s)
		walkSlots(*s, fn)
	}
}

// buildWithFakes builds plan p and puts fakes[stub] where the operator of
// each stub would be (inside its instrumented wrapper, if any, so the
// wrapper counts the fake's rows).
func buildWithFakes(t *testing.T, p nodes.Plan, ec *ExecContext, fakes map[*nodes.Result]Operator) Operator {
	t.Helper()
	root, err := Build(p, ec)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	placed := 0
	walkSlots(root, func(slot *Operator) {
		if r, ok := (*slot).(*resultOp); ok {
			if f, ok := fakes[r.plan]; ok {
				*slot = f
				placed++
			}
		}
	})
	if placed != len(fakes) {
		t.Fatalf("placed %d of %d fakes", placed, len(fakes))
	}
	return root
}

// buildOver builds plan p (whose only leaf is the stub s) over fake.
func buildOver(t *testing.T, p nodes.Plan, s *nodes.Result, fake Operator) Operator {
	t.Helper()
	return buildWithFakes(t, p, writeContext(t), map[*nodes.Result]Operator{s: fake})
}

// writeContext returns an ExecContext with a write set for ModifyTable;
// what the test's statements wrote is dropped when the test ends, unless
// endWrites commits it first.
func writeContext(t *testing.T) *ExecContext {
	ec := &ExecContext{View: storage.NewView(storage.NewWriteSet(), nil, false)}
	t.Cleanup(func() { endWrites(t, ec, false) })
	return ec
}

// endWrites ends the transaction of ec's write set: commit publishes its
// writes, abort releases them.
func endWrites(t *testing.T, ec *ExecContext, commit bool) {
	t.Helper()
	ec.View.Release()
	events := []xact.Event{xact.Abort}
	if commit {
		events = []xact.Event{xact.PreCommit, xact.Commit}
	}
	for _, ev := range events {
		if err := ec.View.Writes().OnXact(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
}

// newTable makes a table t(a int8, b int8) holding batches.
func newTable(name string, batches ...arrow.RecordBatch) *storage.Table {
	tbl := storage.NewTable("public", name, []storage.Column{
		{Name: "a", Type: types.Int8T},
		{Name: "b", Type: types.Int8T},
	})
	tbl.Append(batches...)
	return tbl
}

// abBatch is a batch of the columns (a, b) of newTable's tables.
func abBatch(mem memory.Allocator, a, b []any) arrow.RecordBatch {
	return exectest.NewBatch(mem, exectest.Int64s("a", a...), exectest.Int64s("b", b...))
}

// scanAB scans columns a and b of tbl.
func scanAB(tbl *storage.Table) *nodes.SeqScan {
	return &nodes.SeqScan{
		PlanBase: nodes.PlanBase{Out: []nodes.Field{field("a", types.Int8T), field("b", types.Int8T)}},
		Table:    tbl,
		Columns:  []int{0, 1},
	}
}

// dmlPlan is an UPDATE (with set columns) or DELETE of tbl(a, b) as the
// planner makes it: a scan of a, b and ctid filtered by where, producing
// the SET values and the ctid.
func dmlPlan(op nodes.ModifyOp, tbl *storage.Table, where nodes.Expr, setCols []int, set []nodes.Expr, returning ...nodes.Expr) *nodes.ModifyTable {
	scan := &nodes.SeqScan{Table: tbl, Columns: []int{0, 1, storage.CtidColumn}}
	scan.Filter = where
	scan.Targets = append(append([]nodes.Expr(nil), set...), col(2, types.Int8T))
	for i, e := range scan.Targets {
		scan.Out = append(scan.Out, field("x"+itoa(i), e.Type()))
	}
	m := &nodes.ModifyTable{Op: op, Table: tbl, Child: scan, Leaves: []*storage.Table{tbl}, SetCols: setCols, Returning: returning}
	for i, e := range returning {
		m.Out = append(m.Out, field("r"+itoa(i), e.Type()))
	}
	return m
}

// knownBug skips a test that reproduces a known engine bug (the skip
// message starts with "bug: "). Set EXECUTOR_KNOWN_BUGS=1 to run such
// tests and watch them fail.
func knownBug(t *testing.T, desc string) {
	t.Helper()
	if os.Getenv("EXECUTOR_KNOWN_BUGS") == "" {
		t.Skip("bug: " + desc)
	}
}

// wantPgErr fails unless err is a *pgerr.Error with the given SQLSTATE and
// message.
func wantPgErr(t *testing.T, err error, code, msg string) {
	t.Helper()
	var pe *pgerr.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v (%T), want *pgerr.Error %s %q", err, err, code, msg)
	}
	if pe.Code != code || pe.Message != msg {
		t.Fatalf("error = %s %q, want %s %q", pe.Code, pe.Message, code, msg)
	}
}

// wantLog fails unless log holds exactly want.
func wantLog(t *testing.T, log *exectest.Log, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, log.Calls(), cmpEmpty); diff != "" {
		t.Errorf("call log mismatch (-want +got):\n%s", diff)
	}
}

// wantNoViolations fails if a fake saw its lifecycle broken.
func wantNoViolations(t *testing.T, fakes ...*exectest.Op) {
	t.Helper()
	for _, f := range fakes {
		if v := f.Violations(); len(v) > 0 {
			t.Errorf("fake %q: lifecycle violations %q", f.Name, v)
		}
	}
}

// cmpEmpty makes cmp treat nil and empty slices alike.
var cmpEmpty = cmp.Transformer("emptyNil", func(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
})

// run drains op with a bounded context and returns its rows.
func run(t *testing.T, op Operator) ([][]any, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	return exectest.Run(ctx, op)
}
