package executor

// Lifecycle tests: every node kind over scripted fake children, asserting
// the exact calls each child receives (package doc, "Node lifecycle").

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// unaryNode is a node kind with one child, built over a stub that
// produces one bigint column.
type unaryNode struct {
	name string
	plan func(child nodes.Plan) nodes.Plan
}

func unaryNodes() []unaryNode {
	count := &nodes.AggCall{Name: "count", Star: true, T: types.Int8T}
	return []unaryNode{
		{"Limit", func(c nodes.Plan) nodes.Plan {
			return &nodes.Limit{Child: c, Count: int8Lit(100)}
		}},
		{"Sort", func(c nodes.Plan) nodes.Plan {
			return &nodes.Sort{Child: c, Keys: []nodes.SortKey{{Expr: col(0, types.Int8T)}}}
		}},
		{"Aggregate", func(c nodes.Plan) nodes.Plan {
			return &nodes.Agg{Child: c, Strategy: nodes.AggPlain, Aggs: []*nodes.AggCall{count}}
		}},
		{"HashAggregate", func(c nodes.Plan) nodes.Plan {
			return &nodes.Agg{Child: c, Strategy: nodes.AggHashed, GroupKeys: []nodes.Expr{col(0, types.Int8T)}, Aggs: []*nodes.AggCall{count}}
		}},
		{"Unique", func(c nodes.Plan) nodes.Plan { return &nodes.Unique{Child: c, Keys: []int{0}} }},
		{"Subquery Scan", func(c nodes.Plan) nodes.Plan { return &nodes.SubqueryScan{Child: c} }},
		{"Subquery Scan with Filter and Targets", func(c nodes.Plan) nodes.Plan {
			return &nodes.SubqueryScan{
				PlanBase: nodes.PlanBase{
					Filter:  cmpOp(">", col(0, types.Int8T), int8Lit(0)),
					Targets: []nodes.Expr{op("+", col(0, types.Int8T), int8Lit(1), types.Int8T)},
					Out:     []nodes.Field{field("x", types.Int8T)},
				},
				Child: c,
			}
		}},
		{"Append", func(c nodes.Plan) nodes.Plan { return &nodes.Append{Kids: []nodes.Plan{c}} }},
		{"Insert", func(c nodes.Plan) nodes.Plan {
			tbl := storage.NewTable("public", "t", []storage.Column{{Name: "a", Type: types.Int8T}})
			return &nodes.ModifyTable{Op: nodes.Insert, Table: tbl, Child: c}
		}},
	}
}

// TestLifecycleMatrix runs every one-child node kind through the ways a
// child can behave and checks that the child is closed exactly once and
// never driven against its lifecycle, and that the child's error (or
// panic) reaches the caller unchanged.
func TestLifecycleMatrix(t *testing.T) {
	errOpen := pgerr.New(pgerr.ConnectionFailure, "child failed to open")
	errNext := pgerr.New(pgerr.IOError, "child failed to read")
	errClose := pgerr.New(pgerr.IOError, "child failed to close")
	type scenario struct {
		name string
		// script sets up the child; mem provides its batches.
		script    func(f *exectest.Op, mem memory.Allocator)
		wantErr   error
		wantPanic any
		// noOpen skips Open and Next: the parent is only closed.
		noOpen bool
		// wantLog is the same for every node kind.
		wantLog []string
	}
	batch := func(mem memory.Allocator, vals ...any) exectest.Step {
		return exectest.Step{Batch: exectest.NewBatch(mem, exectest.Int64s("a", vals...))}
	}
	scenarios := []scenario{
		{
			name: "drained",
			script: func(f *exectest.Op, mem memory.Allocator) {
				f.Steps = []exectest.Step{batch(mem, 1, 2), batch(mem, 3)}
			},
			wantLog: []string{"c.Open", "c.Next", "c.Next", "c.Next", "c.Close"},
		},
		{
			name:    "no rows",
			script:  func(f *exectest.Op, mem memory.Allocator) {},
			wantLog: []string{"c.Open", "c.Next", "c.Close"},
		},
		{
			name: "Open fails",
			script: func(f *exectest.Op, mem memory.Allocator) {
				f.OpenErr = errOpen
				f.Steps = []exectest.Step{batch(mem, 1)}
			},
			wantErr: errOpen,
			wantLog: []string{"c.Open", "c.Close"},
		},
		{
			name: "first Next fails",
			script: func(f *exectest.Op, mem memory.Allocator) {
				f.Steps = []exectest.Step{{Err: errNext}, batch(mem, 1)}
			},
			wantErr: errNext,
			wantLog: []string{"c.Open", "c.Next", "c.Close"},
		},
		{
			name: "second Next fails",
			script: func(f *exectest.Op, mem memory.Allocator) {
				f.Steps = []exectest.Step{batch(mem, 1), {Err: errNext}, batch(mem, 2)}
			},
			wantErr: errNext,
			wantLog: []string{"c.Open", "c.Next", "c.Next", "c.Close"},
		},
		{
			name: "Next panics",
			script: func(f *exectest.Op, mem memory.Allocator) {
				f.Steps = []exectest.Step{batch(mem, 1), {Panic: "boom"}}
			},
			wantPanic: "boom",
			wantLog:   []string{"c.Open", "c.Next", "c.Next", "c.Close"},
		},
		{
			name: "Close fails",
			script: func(f *exectest.Op, mem memory.Allocator) {
				f.Steps = []exectest.Step{batch(mem, 1)}
				f.CloseErr = errClose
			},
			wantErr: errClose,
			wantLog: []string{"c.Open", "c.Next", "c.Next", "c.Close"},
		},
		{
			name:    "Close without Open",
			noOpen:  true,
			script:  func(f *exectest.Op, mem memory.Allocator) { f.Steps = []exectest.Step{batch(mem, 1)} },
			wantLog: []string{"c.Close"},
		},
	}
	for _, node := range unaryNodes() {
		for _, sc := range scenarios {
			t.Run(node.name+"/"+sc.name, func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				log := &exectest.Log{}
				fake := exectest.New(log, "c")
				sc.script(fake, mem)
				s := stub(field("a", types.Int8T))
				plan := node.plan(s)
				ec := writeContext(t)
				root := buildWithFakes(t, plan, ec, map[*nodes.Result]Operator{s: fake})

				if sc.noOpen {
					if err := root.Close(); err != nil {
						t.Fatalf("Close without Open: %v", err)
					}
				} else {
					recovered, err := runRecover(t, root)
					if recovered != sc.wantPanic {
						t.Fatalf("panic = %v, want %v", recovered, sc.wantPanic)
					}
					if sc.wantErr != nil && err != sc.wantErr {
						t.Fatalf("error = %v, want the child's error %v unchanged", err, sc.wantErr)
					}
					if sc.wantErr == nil && err != nil {
						t.Fatalf("error = %v", err)
					}
				}
				wantLog(t, log, sc.wantLog...)
				wantNoViolations(t, fake)
				endWrites(t, ec, false) // drop the inserted rows
				mem.AssertSize(t, 0)
			})
		}
	}
}

// runRecover drains op like the statement boundary does: a panic is
// recovered after op has been closed by Run's deferred Close.
func runRecover(t *testing.T, op Operator) (recovered any, err error) {
	t.Helper()
	defer func() { recovered = recover() }()
	_, err = run(t, op)
	return nil, err
}

// TestLimitPullsOnlyWhatItNeeds asserts the exact calls a Limit makes on
// its child: it stops pulling once satisfied and never opens the child
// for LIMIT 0.
func TestLimitPullsOnlyWhatItNeeds(t *testing.T) {
	null := lit(nil, types.Int8T)
	tests := []struct {
		name          string
		count, offset nodes.Expr
		batches       [][]any
		wantRows      [][]any
		wantLog       []string
	}{
		{
			name:    "LIMIT 1 over three batches",
			count:   int8Lit(1),
			batches: [][]any{{1, 2}, {3}, {4}},
			// One Next, never a second one.
			wantRows: [][]any{{int64(1)}},
			wantLog:  []string{"c.Open", "c.Next", "c.Close"},
		},
		{
			name:     "LIMIT equal to the first batch",
			count:    int8Lit(2),
			batches:  [][]any{{1, 2}, {3}},
			wantRows: [][]any{{int64(1)}, {int64(2)}},
			wantLog:  []string{"c.Open", "c.Next", "c.Close"},
		},
		{
			name:     "LIMIT 0 never opens the child",
			count:    int8Lit(0),
			batches:  [][]any{{1}},
			wantRows: nil,
			wantLog:  []string{"c.Close"},
		},
		{
			name:     "LIMIT 0 OFFSET 1 never opens the child",
			count:    int8Lit(0),
			offset:   int8Lit(1),
			batches:  [][]any{{1}},
			wantRows: nil,
			wantLog:  []string{"c.Close"},
		},
		{
			name:     "LIMIT 2 OFFSET 1 spans a batch boundary",
			count:    int8Lit(2),
			offset:   int8Lit(1),
			batches:  [][]any{{1, 2}, {3, 4}, {5}},
			wantRows: [][]any{{int64(2)}, {int64(3)}},
			wantLog:  []string{"c.Open", "c.Next", "c.Next", "c.Close"},
		},
		{
			name:     "OFFSET skips whole batches",
			offset:   int8Lit(3),
			batches:  [][]any{{1, 2}, {3}, {4, 5}},
			wantRows: [][]any{{int64(4)}, {int64(5)}},
			wantLog:  []string{"c.Open", "c.Next", "c.Next", "c.Next", "c.Next", "c.Close"},
		},
		{
			name:     "OFFSET past the end",
			count:    int8Lit(5),
			offset:   int8Lit(10),
			batches:  [][]any{{1, 2}},
			wantRows: nil,
			wantLog:  []string{"c.Open", "c.Next", "c.Next", "c.Close"},
		},
		{
			name:     "LIMIT NULL is no limit",
			count:    null,
			offset:   null,
			batches:  [][]any{{1}, {2}},
			wantRows: [][]any{{int64(1)}, {int64(2)}},
			wantLog:  []string{"c.Open", "c.Next", "c.Next", "c.Next", "c.Close"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			log := &exectest.Log{}
			fake := exectest.New(log, "c")
			for _, vals := range tt.batches {
				fake.Steps = append(fake.Steps, exectest.Step{Batch: exectest.NewBatch(mem, exectest.Int64s("a", vals...))})
			}
			s := stub(field("a", types.Int8T))
			limit := buildOver(t, &nodes.Limit{Child: s, Count: tt.count, Offset: tt.offset}, s, fake)
			rows, err := run(t, limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantRows, rows); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			wantLog(t, log, tt.wantLog...)
			wantNoViolations(t, fake)
			mem.AssertSize(t, 0)
		})
	}
}

// TestLimitDoesNotWaitForUnneededBatch gives Limit a child whose second
// batch never arrives: a Limit satisfied by the first batch must finish
// instead of blocking on it.
func TestLimitDoesNotWaitForUnneededBatch(t *testing.T) {
	log := &exectest.Log{}
	never := exectest.NewGate()
	fake := exectest.New(log, "c",
		exectest.Step{Batch: exectest.NewBatch(memory.DefaultAllocator, exectest.Int64s("a", 1, 2))},
		exectest.Step{Pending: never},
	)
	s := stub(field("a", types.Int8T))
	limit := buildOver(t, &nodes.Limit{Child: s, Count: int8Lit(2)}, s, fake)
	rows, err := run(t, limit)
	if err != nil {
		t.Fatalf("Limit blocked on a batch it did not need: %v", err)
	}
	if len(rows) != 2 {
		t.Errorf("got %d rows, want 2", len(rows))
	}
	wantLog(t, log, "c.Open", "c.Next", "c.Close")
}

// TestLimitCountErrors checks the errors of a negative LIMIT or OFFSET:
// the child is never opened but still closed.
func TestLimitCountErrors(t *testing.T) {
	tests := []struct {
		name          string
		count, offset nodes.Expr
		code, msg     string
	}{
		{"negative LIMIT", int8Lit(-1), nil, pgerr.InvalidRowCountInLimit, "LIMIT must not be negative"},
		{"negative OFFSET", int8Lit(1), int8Lit(-1), pgerr.InvalidRowCountInOffset, "OFFSET must not be negative"},
		{"LIMIT expression overflows", op("*", int8Lit(1<<62), int8Lit(4), types.Int8T), nil, pgerr.NumericValueOutOfRange, "bigint out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &exectest.Log{}
			fake := exectest.New(log, "c")
			s := stub(field("a", types.Int8T))
			limit := buildOver(t, &nodes.Limit{Child: s, Count: tt.count, Offset: tt.offset}, s, fake)
			_, err := run(t, limit)
			wantPgErr(t, err, tt.code, tt.msg)
			wantLog(t, log, "c.Close")
		})
	}
}

// appendOver builds Append over fakes named a, b, c ... (each producing
// one bigint column), optionally under a Limit.
func appendOver(t *testing.T, limit nodes.Expr, fakes ...*exectest.Op) Operator {
	t.Helper()
	app := &nodes.Append{}
	m := map[*nodes.Result]Operator{}
	for _, f := range fakes {
		s := stub(field("a", types.Int8T))
		app.Kids = append(app.Kids, s)
		m[s] = f
	}
	var p nodes.Plan = app
	if limit != nil {
		p = &nodes.Limit{Child: app, Count: limit}
	}
	return buildWithFakes(t, p, &ExecContext{}, m)
}

// TestAppendOpensChildrenLazily asserts Append's exact calls: children are
// opened one at a time, each closed as soon as it is exhausted, and the
// rest closed at Close when the parent stops early or a child fails.
func TestAppendOpensChildrenLazily(t *testing.T) {
	errOpen := pgerr.New(pgerr.ConnectionFailure, "b cannot connect")
	errNext := pgerr.New(pgerr.IOError, "b lost its connection")
	one := func(mem memory.Allocator, vals ...any) exectest.Step {
		return exectest.Step{Batch: exectest.NewBatch(mem, exectest.Int64s("a", vals...))}
	}
	tests := []struct {
		name     string
		limit    nodes.Expr
		script   func(a, b, c *exectest.Op, mem memory.Allocator)
		closeRaw bool // close the tree without opening it
		wantErr  error
		wantRows int
		wantLog  []string
	}{
		{
			name: "drained",
			script: func(a, b, c *exectest.Op, mem memory.Allocator) {
				a.Steps = []exectest.Step{one(mem, 1), one(mem, 2)}
				c.Steps = []exectest.Step{one(mem, 3)}
			},
			wantRows: 3,
			wantLog: []string{
				"a.Open", "a.Next", "a.Next", "a.Next", "a.Close",
				"b.Open", "b.Next", "b.Close",
				"c.Open", "c.Next", "c.Next", "c.Close",
			},
		},
		{
			name:  "LIMIT stops in the first child",
			limit: int8Lit(1),
			script: func(a, b, c *exectest.Op, mem memory.Allocator) {
				a.Steps = []exectest.Step{one(mem, 1), one(mem, 2)}
				b.Steps = []exectest.Step{one(mem, 3)}
			},
			wantRows: 1,
			wantLog:  []string{"a.Open", "a.Next", "a.Close", "b.Close", "c.Close"},
		},
		{
			name:  "LIMIT stops in the second child",
			limit: int8Lit(2),
			script: func(a, b, c *exectest.Op, mem memory.Allocator) {
				a.Steps = []exectest.Step{one(mem, 1)}
				b.Steps = []exectest.Step{one(mem, 2), one(mem, 3)}
				c.Steps = []exectest.Step{one(mem, 4)}
			},
			wantRows: 2,
			wantLog:  []string{"a.Open", "a.Next", "a.Next", "a.Close", "b.Open", "b.Next", "b.Close", "c.Close"},
		},
		{
			name: "second child fails to open",
			script: func(a, b, c *exectest.Op, mem memory.Allocator) {
				a.Steps = []exectest.Step{one(mem, 1)}
				b.OpenErr = errOpen
				c.Steps = []exectest.Step{one(mem, 2)}
			},
			wantErr:  errOpen,
			wantRows: 1,
			wantLog:  []string{"a.Open", "a.Next", "a.Next", "a.Close", "b.Open", "b.Close", "c.Close"},
		},
		{
			name: "second child fails on Next",
			script: func(a, b, c *exectest.Op, mem memory.Allocator) {
				b.Steps = []exectest.Step{one(mem, 1), {Err: errNext}}
				c.Steps = []exectest.Step{one(mem, 2)}
			},
			wantErr:  errNext,
			wantRows: 1,
			wantLog:  []string{"a.Open", "a.Next", "a.Close", "b.Open", "b.Next", "b.Next", "b.Close", "c.Close"},
		},
		{
			name:     "Close without Open",
			closeRaw: true,
			script:   func(a, b, c *exectest.Op, mem memory.Allocator) {},
			wantLog:  []string{"a.Close", "b.Close", "c.Close"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			log := &exectest.Log{}
			a, b, c := exectest.New(log, "a"), exectest.New(log, "b"), exectest.New(log, "c")
			tt.script(a, b, c, mem)
			root := appendOver(t, tt.limit, a, b, c)
			if tt.closeRaw {
				if err := root.Close(); err != nil {
					t.Fatal(err)
				}
			} else {
				rows, err := run(t, root)
				if err != tt.wantErr {
					t.Fatalf("error = %v, want %v", err, tt.wantErr)
				}
				if len(rows) != tt.wantRows {
					t.Errorf("got %d rows, want %d", len(rows), tt.wantRows)
				}
			}
			wantLog(t, log, tt.wantLog...)
			wantNoViolations(t, a, b, c)
			mem.AssertSize(t, 0)
		})
	}
}

// TestAppendHoldsOneChildAtATime checks, at each batch Append returns,
// that only the child producing it is open.
func TestAppendHoldsOneChildAtATime(t *testing.T) {
	log := &exectest.Log{}
	mk := func(name string, v int) *exectest.Op {
		return exectest.New(log, name, exectest.Step{Batch: exectest.NewBatch(memory.DefaultAllocator, exectest.Int64s("a", v))})
	}
	kids := []*exectest.Op{mk("a", 1), mk("b", 2), mk("c", 3)}
	root := appendOver(t, nil, kids...)
	ctx := context.Background()
	if err := root.Open(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range kids {
		bt, err := root.Next(ctx)
		if err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		bt.Release()
		for j, k := range kids {
			opens, _, closes := k.Counts()
			open := opens == 1 && closes == 0
			if open != (i == j) {
				t.Errorf("at batch %d: child %s open = %v", i, k.Name, open)
			}
		}
	}
	if err := root.Close(); err != nil {
		t.Fatal(err)
	}
	wantNoViolations(t, kids...)
}

// TestAppendReportsCloseErrorOfExhaustedChild: Append closes a child at
// its end of data but discards the error that Close returns, so a failure
// while releasing a child (a remote connection that cannot be returned)
// is never reported. Every other node returns its child's Close error.
func TestAppendReportsCloseErrorOfExhaustedChild(t *testing.T) {
	errClose := pgerr.New(pgerr.IOError, "a failed to close")
	log := &exectest.Log{}
	a := exectest.New(log, "a")
	a.CloseErr = errClose
	root := appendOver(t, nil, a)
	if _, err := run(t, root); err != errClose {
		t.Fatalf("error = %v, want %v", err, errClose)
	}
}

// TestBlockedChildIsCancelled runs nodes over a child that blocks in Next
// until its context is cancelled (a remote scan waiting on the network):
// the cancel error reaches the caller and the child is closed once.
func TestBlockedChildIsCancelled(t *testing.T) {
	for _, node := range unaryNodes() {
		t.Run(node.name, func(t *testing.T) {
			log := &exectest.Log{}
			gate := exectest.NewGate()
			fake := exectest.New(log, "c", exectest.Step{Pending: gate})
			s := stub(field("a", types.Int8T))
			root := buildOver(t, node.plan(s), s, fake)

			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			done := make(chan error, 1)
			go func() {
				_, err := exectest.Run(ctx, root)
				done <- err
			}()
			<-gate.Reached()
			cancel(pgerr.Timeout())
			err := <-done
			wantPgErr(t, err, pgerr.QueryCanceled, "canceling statement due to statement timeout")
			wantLog(t, log, "c.Open", "c.Next", "c.Close")
			wantNoViolations(t, fake)
		})
	}
}

// TestSortAndAggDrainChildBeforeOutput: Sort and Aggregate read their
// whole input on the first Next and keep the child open until Close.
func TestSortAndAggDrainChildBeforeOutput(t *testing.T) {
	blocking := map[string]bool{"Sort": true, "Aggregate": true, "HashAggregate": true}
	for _, node := range unaryNodes() {
		if !blocking[node.name] {
			continue
		}
		t.Run(node.name, func(t *testing.T) {
			log := &exectest.Log{}
			mem := memory.DefaultAllocator
			fake := exectest.New(log, "c",
				exectest.Step{Batch: exectest.NewBatch(mem, exectest.Int64s("a", 2, 1))},
				exectest.Step{Batch: exectest.NewBatch(mem, exectest.Int64s("a", 3))},
			)
			s := stub(field("a", types.Int8T))
			root := buildOver(t, node.plan(s), s, fake)
			ctx := context.Background()
			if err := root.Open(ctx); err != nil {
				t.Fatal(err)
			}
			b, err := root.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			b.Release()
			wantLog(t, log, "c.Open", "c.Next", "c.Next", "c.Next")
			if err := root.Close(); err != nil {
				t.Fatal(err)
			}
			wantLog(t, log, "c.Open", "c.Next", "c.Next", "c.Next", "c.Close")
		})
	}
}

// TestNodeErrorsArePgErrors checks the SQLSTATE and message of errors the
// nodes raise themselves.
func TestNodeErrorsArePgErrors(t *testing.T) {
	notNull := storage.NewTable("public", "nn", []storage.Column{{Name: "a", Type: types.Int8T, NotNull: true}})
	tests := []struct {
		name      string
		plan      func(s *nodes.Result) nodes.Plan
		vals      []any
		code, msg string
	}{
		{
			name: "Filter divides by zero",
			plan: func(s *nodes.Result) nodes.Plan {
				return &nodes.SubqueryScan{
					PlanBase: nodes.PlanBase{Filter: cmpOp("=", op("/", int8Lit(1), col(0, types.Int8T), types.Int8T), int8Lit(1))},
					Child:    s,
				}
			},
			vals: []any{1, 0},
			code: pgerr.DivisionByZero, msg: "division by zero",
		},
		{
			name: "Aggregate key overflows",
			plan: func(s *nodes.Result) nodes.Plan {
				key := op("+", col(0, types.Int8T), int8Lit(1), types.Int8T)
				return &nodes.Agg{Child: s, Strategy: nodes.AggHashed, GroupKeys: []nodes.Expr{key}, Aggs: []*nodes.AggCall{{Name: "count", Star: true, T: types.Int8T}}}
			},
			vals: []any{int64(1<<63 - 1)},
			code: pgerr.NumericValueOutOfRange, msg: "bigint out of range",
		},
		{
			name: "Aggregate argument overflows",
			plan: func(s *nodes.Result) nodes.Plan {
				arg := op("*", col(0, types.Int8T), int8Lit(2), types.Int8T)
				return &nodes.Agg{Child: s, Aggs: []*nodes.AggCall{{Name: "max", Args: []nodes.Expr{arg}, T: types.Int8T}}}
			},
			vals: []any{int64(1 << 62)},
			code: pgerr.NumericValueOutOfRange, msg: "bigint out of range",
		},
		{
			name: "Group key divides by zero",
			plan: func(s *nodes.Result) nodes.Plan {
				key := op("%", int8Lit(1), col(0, types.Int8T), types.Int8T)
				return &nodes.Agg{Child: s, Strategy: nodes.AggHashed, GroupKeys: []nodes.Expr{key}, Aggs: []*nodes.AggCall{{Name: "count", Star: true, T: types.Int8T}}}
			},
			vals: []any{0},
			code: pgerr.DivisionByZero, msg: "division by zero",
		},
		{
			name: "Insert violates NOT NULL",
			plan: func(s *nodes.Result) nodes.Plan {
				return &nodes.ModifyTable{Op: nodes.Insert, Table: notNull, Child: s}
			},
			vals: []any{1, nil},
			code: pgerr.NotNullViolation, msg: `null value in column "a" of relation "nn" violates not-null constraint`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			log := &exectest.Log{}
			fake := exectest.New(log, "c", exectest.Step{Batch: exectest.NewBatch(mem, exectest.Int64s("a", tt.vals...))})
			s := stub(field("a", types.Int8T))
			root := buildOver(t, tt.plan(s), s, fake)
			_, err := run(t, root)
			wantPgErr(t, err, tt.code, tt.msg)
			wantNoViolations(t, fake)
			mem.AssertSize(t, 0)
		})
	}
	if n := notNull.Rows(); n != 0 {
		t.Errorf("failed INSERT stored %d rows", n)
	}
}

// TestInsertIsAllOrNothing: when the child fails after some batches, the
// rows already read are not stored.
func TestInsertIsAllOrNothing(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	errNext := pgerr.New(pgerr.IOError, "source failed")
	tbl := storage.NewTable("public", "t", []storage.Column{{Name: "a", Type: types.Int8T}})
	ec := writeContext(t)
	fake := exectest.New(nil, "c",
		exectest.Step{Batch: exectest.NewBatch(mem, exectest.Int64s("a", 1, 2))},
		exectest.Step{Err: errNext},
	)
	s := stub(field("a", types.Int8T))
	root := buildWithFakes(t, &nodes.ModifyTable{Op: nodes.Insert, Table: tbl, Child: s}, ec, map[*nodes.Result]Operator{s: fake})
	if _, err := run(t, root); !errors.Is(err, errNext) {
		t.Fatalf("error = %v, want %v", err, errNext)
	}
	endWrites(t, ec, false) // the statement failed: its transaction aborts
	if n := tbl.Rows(); n != 0 {
		t.Errorf("table has %d rows after a failed INSERT, want 0", n)
	}
	mem.AssertSize(t, 0)
}

// TestSortCloseAfterNoOutput closes a Sort whose input produced no sorted
// data: an empty input, a sort key that fails to evaluate, or (top-N) a
// child error. Close must release what it holds and close the child.
// (Once a nil-pointer panic: CREATE TABLE e(a int); SELECT * FROM e
// ORDER BY a failed with XX000 in sortOp.Close.)
func TestSortCloseAfterNoOutput(t *testing.T) {
	errNext := pgerr.New(pgerr.IOError, "child failed")
	overflow := op("+", col(0, types.Int8T), int8Lit(1), types.Int8T)
	tests := []struct {
		name    string
		key     nodes.Expr
		bound   int64
		vals    []any // one batch, or no batch when nil
		nextErr error
		code    string // SQLSTATE Run must return ("" for none)
	}{
		{name: "empty input", key: col(0, types.Int8T)},
		{name: "empty input, top-N", key: col(0, types.Int8T), bound: 10},
		{name: "sort key fails", key: overflow, vals: []any{int64(1<<63 - 1)}, code: pgerr.NumericValueOutOfRange},
		{name: "sort key fails, top-N", key: overflow, bound: 10, vals: []any{int64(1<<63 - 1)}, code: pgerr.NumericValueOutOfRange},
		{name: "child fails, top-N", key: col(0, types.Int8T), bound: 10, nextErr: errNext, code: pgerr.IOError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			log := &exectest.Log{}
			fake := exectest.New(log, "c")
			if tt.vals != nil {
				fake.Steps = append(fake.Steps, exectest.Step{Batch: exectest.NewBatch(mem, exectest.Int64s("a", tt.vals...))})
			}
			if tt.nextErr != nil {
				fake.Steps = append(fake.Steps, exectest.Step{Err: tt.nextErr})
			}
			s := stub(field("a", types.Int8T))
			root := buildOver(t, &nodes.Sort{Child: s, Keys: []nodes.SortKey{{Expr: tt.key}}, Bound: tt.bound}, s, fake)
			recovered, err := runRecover(t, root)
			if recovered != nil {
				t.Fatalf("panic: %v", recovered)
			}
			want := tt.code
			if want == "" {
				want = pgerr.SuccessfulCompletion
			}
			if got := pgerr.Code(err); got != want {
				t.Fatalf("error = %v (%s), want SQLSTATE %s", err, got, want)
			}
			wantNoViolations(t, fake)
			mem.AssertSize(t, 0)
		})
	}
}
