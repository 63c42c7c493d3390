package exectest

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"
	"github.com/pgfed/pgfed/pgerr"
)

func TestOpFollowsScript(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	errNext := errors.New("scripted")
	log := &Log{}
	op := New(log, "c",
		Step{Batch: NewBatch(mem, Int64s("a", 1, nil), Strings("s", "x", "y"))},
		Step{Err: errNext},
		Step{Batch: NewBatch(mem, Int64s("a", 3), Strings("s", "z"))}, // never reached
	)
	ctx := context.Background()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := op.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]any{{int64(1), "x"}, {nil, "y"}}, Rows(b)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	b.Release()
	if _, err := op.Next(ctx); err != errNext {
		t.Fatalf("second Next = %v, want the scripted error", err)
	}
	if err := op.Close(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"c.Open", "c.Next", "c.Next", "c.Close"}, log.Calls()); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	if v := op.Violations(); len(v) != 0 {
		t.Errorf("violations %q, want none", v)
	}
}

func TestOpReportsViolations(t *testing.T) {
	tests := []struct {
		name  string
		drive func(op *Op)
		want  []string
	}{
		{"never closed", func(op *Op) {}, []string{"never closed"}},
		{"Next without Open", func(op *Op) {
			op.Next(context.Background())
			op.Close()
		}, []string{"Next without a successful Open"}},
		{"Next after a failed Open", func(op *Op) {
			op.OpenErr = errors.New("no")
			op.Open(context.Background())
			op.Next(context.Background())
			op.Close()
		}, []string{"Next without a successful Open"}},
		{"Next after io.EOF", func(op *Op) {
			ctx := context.Background()
			op.Open(ctx)
			op.Next(ctx)
			op.Next(ctx)
			op.Close()
		}, []string{"Next after io.EOF or an error"}},
		{"Next after Close", func(op *Op) {
			ctx := context.Background()
			op.Open(ctx)
			op.Close()
			op.Next(ctx)
		}, []string{"Next after Close"}},
		{"Open twice, Close twice", func(op *Op) {
			ctx := context.Background()
			op.Open(ctx)
			op.Open(ctx)
			op.Close()
			op.Close()
		}, []string{"Open called 2 times", "Close called 2 times"}},
		{"Close without Open is fine", func(op *Op) { op.Close() }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := New(nil, "c")
			tt.drive(op)
			if diff := cmp.Diff(tt.want, op.Violations()); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPendingStep(t *testing.T) {
	t.Run("released", func(t *testing.T) {
		gate := NewGate()
		op := New(nil, "c", Step{Pending: gate, Batch: NewBatch(memory.DefaultAllocator, Int64s("a", 1))})
		ctx := context.Background()
		op.Open(ctx)
		defer op.Close()
		go func() {
			<-gate.Reached()
			gate.Release()
		}()
		b, err := op.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b.Release()
		if _, err := op.Next(ctx); err != io.EOF {
			t.Fatalf("Next after the script = %v, want io.EOF", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		gate := NewGate()
		op := New(nil, "c", Step{Pending: gate, Batch: NewBatch(mem, Int64s("a", 1))})
		ctx, cancel := context.WithCancelCause(context.Background())
		op.Open(ctx)
		defer op.Close()
		go func() {
			<-gate.Reached()
			cancel(pgerr.Timeout())
		}()
		_, err := op.Next(ctx)
		if pe, ok := pgerr.As(err); !ok || pe.Message != "canceling statement due to statement timeout" {
			t.Fatalf("Next = %v, want the statement timeout error", err)
		}
	})
}

func TestPanicStep(t *testing.T) {
	op := New(nil, "c", Step{Panic: "boom"})
	op.Open(context.Background())
	defer op.Close()
	defer func() {
		if r := recover(); r != "boom" {
			t.Errorf("recovered %v, want boom", r)
		}
	}()
	op.Next(context.Background())
	t.Error("Next did not panic")
}

func TestRunRejectsEmptyBatches(t *testing.T) {
	op := New(nil, "c", Step{Batch: NewBatch(memory.DefaultAllocator, Int64s("a"))})
	if _, err := Run(context.Background(), op); err != ErrEmptyBatch {
		t.Fatalf("Run = %v, want ErrEmptyBatch", err)
	}
}

func TestCounter(t *testing.T) {
	mem := memory.DefaultAllocator
	c := &Counter{Operator: New(nil, "c",
		Step{Batch: NewBatch(mem, Int64s("a", 1, 2))},
		Step{Batch: NewBatch(mem, Int64s("a", 3))},
	)}
	rows, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || c.Rows != 3 || c.Batches != 2 || c.Opens != 1 {
		t.Errorf("rows %d, counter %+v", len(rows), *c)
	}
}
