package executor

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// TestTupleStoreReaders: readers interleaved with writes each read every
// batch in order, from memory and from the spill file alike, and nothing
// is left allocated once the store and readers close.
func TestTupleStoreReaders(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spill bool
	}{{"in memory", false}, {"spilled", true}} {
		t.Run(tc.name, func(t *testing.T) {
			mem := checkedAlloc(t)
			ec := &ExecContext{DebugSpill: tc.spill, TempDir: t.TempDir()}
			s := newTupleStore(ec, []nodes.Field{field("v", types.Int8T)})
			r1, r2 := s.reader(), s.reader()
			var got1, got2 []any
			read := func(r *storeReader, got *[]any) {
				for {
					b, ok, err := r.next()
					if err != nil {
						t.Fatal(err)
					}
					if !ok {
						return
					}
					for _, row := range exectest.Rows(b) {
						*got = append(*got, row[0])
					}
					b.Release()
				}
			}
			for i := int64(0); i < 3; i++ {
				b := exectest.NewBatch(mem, exectest.Int64s("v", i*2, i*2+1))
				if err := s.add(b); err != nil {
					t.Fatal(err)
				}
				b.Release()
				read(r1, &got1) // r1 keeps up, r2 reads at the end
			}
			read(r2, &got2)
			want := []any{int64(0), int64(1), int64(2), int64(3), int64(4), int64(5)}
			if diff := cmp.Diff(want, got1); diff != "" {
				t.Errorf("reader 1 (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, got2); diff != "" {
				t.Errorf("reader 2 (-want +got):\n%s", diff)
			}
			if spilled := s.file != nil; spilled != tc.spill {
				t.Errorf("spilled = %v, want %v", spilled, tc.spill)
			}
			r1.close()
			r2.close()
			s.close()
			mem.AssertSize(t, 0)
		})
	}
}

// cteOver returns a CTE whose plan is a stub (to be replaced by a fake).
func cteOver(out []nodes.Field) (*nodes.CTE, *nodes.Result) {
	s := stub(out...)
	return &nodes.CTE{ID: 3, Name: "c", Plan: s}, s
}

// buildCTEFake builds p and makes fake the operator of its CTE c.
func buildCTEFake(t *testing.T, p nodes.Plan, ec *ExecContext, c *nodes.CTE, fake Operator) Operator {
	t.Helper()
	op, err := Build(p, ec)
	if err != nil {
		t.Fatal(err)
	}
	store := ec.ctes.stores[c.ID]
	store.op.Close()
	store.op = fake
	return op
}

func cteScan(c *nodes.CTE, alias string) *nodes.CTEScan {
	sc := &nodes.CTEScan{CTE: c, Alias: alias}
	sc.Out = c.Plan.Base().Out
	return sc
}

// TestCTEScanComputedOnce: two CTE Scans of one CTE read its rows
// computed once; a reader that stops early pulls no more of the CTE than
// it read; a CTE no scan reads is never opened.
func TestCTEScanComputedOnce(t *testing.T) {
	out := []nodes.Field{field("v", types.Int8T)}
	batches := func() []exectest.Step {
		mem := alloc
		return exectest.Batches(
			exectest.NewBatch(mem, exectest.Int64s("v", 1, 2)),
			exectest.NewBatch(mem, exectest.Int64s("v", 3)),
			exectest.NewBatch(mem, exectest.Int64s("v", 4, 5)))
	}
	t.Run("two readers", func(t *testing.T) {
		c, _ := cteOver(out)
		app := &nodes.Append{Kids: []nodes.Plan{cteScan(c, "a"), cteScan(c, "b")}}
		app.Out, app.CTEs = out, []*nodes.CTE{c}
		fake := exectest.New(nil, "cte", batches()...)
		op := buildCTEFake(t, app, &ExecContext{}, c, fake)
		rows, err := exectest.Run(context.Background(), op)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 10 {
			t.Errorf("got %d rows, want 10", len(rows))
		}
		if opens, nexts, closes := fake.Counts(); opens != 1 || nexts != 4 || closes != 1 {
			t.Errorf("CTE opened %d, read %d, closed %d times; want 1, 4, 1", opens, nexts, closes)
		}
	})
	t.Run("reader stops early", func(t *testing.T) {
		c, _ := cteOver(out)
		sc := cteScan(c, "c")
		sc.CTEs = []*nodes.CTE{c}
		fake := exectest.New(nil, "cte", batches()...)
		op := buildCTEFake(t, sc, &ExecContext{}, c, fake)
		ctx := context.Background()
		if err := op.Open(ctx); err != nil {
			t.Fatal(err)
		}
		b, err := op.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b.Release()
		op.Close()
		if _, nexts, closes := fake.Counts(); nexts != 1 || closes != 1 {
			t.Errorf("CTE read %d times, closed %d; want 1, 1", nexts, closes)
		}
	})
	t.Run("never read", func(t *testing.T) {
		c, _ := cteOver(out)
		r := &nodes.Result{}
		r.CTEs = []*nodes.CTE{c}
		fake := exectest.New(nil, "cte", batches()...)
		op := buildCTEFake(t, r, &ExecContext{}, c, fake)
		if _, err := exectest.Run(context.Background(), op); err != nil {
			t.Fatal(err)
		}
		if opens, nexts, closes := fake.Counts(); opens != 0 || nexts != 0 || closes != 1 {
			t.Errorf("CTE opened %d, read %d, closed %d times; want 0, 0, 1", opens, nexts, closes)
		}
	})
}

// TestCTEScanError: the CTE's error reaches every reader, also one that
// reads after it happened.
func TestCTEScanError(t *testing.T) {
	out := []nodes.Field{field("v", types.Int8T)}
	c, _ := cteOver(out)
	app := &nodes.Append{Kids: []nodes.Plan{cteScan(c, "a"), cteScan(c, "b")}}
	app.Out, app.CTEs = out, []*nodes.CTE{c}
	boom := errBatchTooWide(1, 0, 1)
	fake := exectest.New(nil, "cte", exectest.Step{Err: boom})
	ec := &ExecContext{}
	op := buildCTEFake(t, app, ec, c, fake)
	defer op.Close()
	ctx := context.Background()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := op.Next(ctx); err != boom {
		t.Fatalf("first reader got %v, want %v", err, boom)
	}
	store := ec.ctes.stores[c.ID]
	r := store.rows.reader()
	if _, err := store.fetch(ctx, r); err != boom {
		t.Errorf("later reader got %v, want %v", err, boom)
	}
}
