// Package exectest provides test doubles for the operators of package
// executor, in the style of Vitess's vtgate engine tests: a scripted child
// operator (Op) that logs every call it receives into a shared Log, checks
// that its parent follows the node lifecycle, and can return batches, fail,
// block until released, or panic on a given call.
//
// Package executor builds children from plan nodes and has no hook to
// inject operators, so its internal tests construct the operator under test
// and put an Op where its child would be. This package does not import
// executor (which would be an import cycle for those tests): its Operator
// interface has the same method set as executor.Operator, so values convert
// freely between the two.
package exectest

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/pgerr"
)

// Operator has the method set of executor.Operator.
type Operator interface {
	Open(ctx context.Context) error
	Next(ctx context.Context) (arrow.RecordBatch, error)
	Close() error
}

// Log records calls in the order they happen. Several fakes may share one
// Log, so a test can assert the interleaving of calls across children.
// It is safe for concurrent use.
type Log struct {
	mu    sync.Mutex
	calls []string
}

// Add appends one entry.
func (l *Log) Add(entry string) {
	l.mu.Lock()
	l.calls = append(l.calls, entry)
	l.mu.Unlock()
}

// Calls returns a copy of the entries so far.
func (l *Log) Calls() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.calls...)
}

// Reset forgets every entry.
func (l *Log) Reset() {
	l.mu.Lock()
	l.calls = nil
	l.mu.Unlock()
}

// String renders the entries one per line, for failure messages.
func (l *Log) String() string { return strings.Join(l.Calls(), "\n") }

// Gate makes a Next call block until the test releases it (a child that
// waits on the network). Reached reports that a call is waiting.
type Gate struct {
	reached, release         chan struct{}
	reachedOnce, releaseOnce sync.Once
}

// NewGate returns a closed gate.
func NewGate() *Gate {
	return &Gate{reached: make(chan struct{}), release: make(chan struct{})}
}

// Reached is closed once a Next call waits at the gate.
func (g *Gate) Reached() <-chan struct{} { return g.reached }

// Release lets the waiting call (and any later one) through.
func (g *Gate) Release() { g.releaseOnce.Do(func() { close(g.release) }) }

// wait blocks until the gate is released or ctx is done.
func (g *Gate) wait(ctx context.Context) error {
	g.reachedOnce.Do(func() { close(g.reached) })
	select {
	case <-g.release:
		return nil
	case <-ctx.Done():
		return ctxError(ctx)
	}
}

// ctxError mirrors executor.CtxError: the cause when it is a *pgerr.Error
// (statement_timeout), else a user cancel.
func ctxError(ctx context.Context) error {
	if pe, ok := pgerr.As(context.Cause(ctx)); ok {
		return pe
	}
	return pgerr.Canceled()
}

// Step scripts one Next call. Pending, if set, is waited on first; then
// Panic, Err or Batch decides the outcome, in that order (a step with none
// of them returns io.EOF). When the steps run out, Next returns io.EOF.
type Step struct {
	Pending *Gate
	Panic   any
	Err     error
	// Batch is handed to the caller, who owns it from then on. Batches of
	// steps never reached are released by Close.
	Batch arrow.RecordBatch
}

// Op is a scripted child operator. Its calls are logged as Name+".Open",
// Name+".Next" and Name+".Close" (just "Open" ... with an empty Name).
//
// Op also checks the lifecycle its parent must follow (package executor's
// doc): Open at most once and before Next; no Next after io.EOF, an error
// or Close; Close exactly once. Breaches are collected, not fatal, and
// reported by Violations.
type Op struct {
	Name     string
	Log      *Log
	Steps    []Step
	OpenErr  error // returned by Open (the fake then counts as not open)
	CloseErr error // returned by Close

	mu         sync.Mutex
	opens      int
	nexts      int
	closes     int
	open       bool // Open succeeded
	finished   bool // Next returned io.EOF or an error
	pos        int  // next step to run
	violations []string
}

var _ Operator = (*Op)(nil)

// New returns an Op named name that logs into log and runs steps.
func New(log *Log, name string, steps ...Step) *Op {
	return &Op{Name: name, Log: log, Steps: steps}
}

// Batches turns batches into steps that return them in order.
func Batches(bs ...arrow.RecordBatch) []Step {
	steps := make([]Step, len(bs))
	for i, b := range bs {
		steps[i] = Step{Batch: b}
	}
	return steps
}

func (o *Op) log(call string) {
	if o.Log == nil {
		return
	}
	if o.Name == "" {
		o.Log.Add(call)
		return
	}
	o.Log.Add(o.Name + "." + call)
}

func (o *Op) violate(format string, args ...any) {
	o.violations = append(o.violations, fmt.Sprintf(format, args...))
}

// Open implements Operator.
func (o *Op) Open(ctx context.Context) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.log("Open")
	o.opens++
	if o.closes > 0 {
		o.violate("Open after Close")
	}
	if o.opens > 1 {
		o.violate("Open called %d times", o.opens)
	}
	if o.OpenErr != nil {
		return o.OpenErr
	}
	o.open = true
	return nil
}

// Next implements Operator.
func (o *Op) Next(ctx context.Context) (arrow.RecordBatch, error) {
	o.mu.Lock()
	o.log("Next")
	o.nexts++
	switch {
	case o.closes > 0:
		o.violate("Next after Close")
	case !o.open:
		o.violate("Next without a successful Open")
	case o.finished:
		o.violate("Next after io.EOF or an error")
	}
	if o.pos >= len(o.Steps) {
		o.finished = true
		o.mu.Unlock()
		return nil, io.EOF
	}
	step := o.Steps[o.pos]
	o.Steps[o.pos].Batch = nil // handed over (or about to be)
	o.pos++
	o.mu.Unlock()

	if step.Pending != nil {
		if err := step.Pending.wait(ctx); err != nil {
			o.finish()
			if step.Batch != nil {
				step.Batch.Release()
			}
			return nil, err
		}
	}
	if step.Panic != nil {
		if step.Batch != nil {
			step.Batch.Release()
		}
		panic(step.Panic)
	}
	if step.Err != nil {
		o.finish()
		if step.Batch != nil {
			step.Batch.Release()
		}
		return nil, step.Err
	}
	if step.Batch == nil {
		o.finish()
		return nil, io.EOF
	}
	return step.Batch, nil
}

func (o *Op) finish() {
	o.mu.Lock()
	o.finished = true
	o.mu.Unlock()
}

// Close implements Operator; it releases the batches it still holds.
func (o *Op) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.log("Close")
	o.closes++
	if o.closes > 1 {
		o.violate("Close called %d times", o.closes)
	}
	for i := o.pos; i < len(o.Steps); i++ {
		if b := o.Steps[i].Batch; b != nil {
			b.Release()
			o.Steps[i].Batch = nil
		}
	}
	return o.CloseErr
}

// Counts returns how often Open, Next and Close were called.
func (o *Op) Counts() (opens, nexts, closes int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.opens, o.nexts, o.closes
}

// Violations returns the lifecycle breaches seen so far, including a
// missing Close (call it after the parent was closed).
func (o *Op) Violations() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	v := append([]string(nil), o.violations...)
	if o.closes == 0 {
		v = append(v, "never closed")
	}
	return v
}

// Counter wraps an operator and counts what passes through it: the rows
// and batches its Next returned, and its Open calls.
type Counter struct {
	Operator
	Opens, Batches, Rows int64
}

// Open implements Operator.
func (c *Counter) Open(ctx context.Context) error {
	c.Opens++
	return c.Operator.Open(ctx)
}

// Next implements Operator.
func (c *Counter) Next(ctx context.Context) (arrow.RecordBatch, error) {
	b, err := c.Operator.Next(ctx)
	if b != nil {
		c.Batches++
		c.Rows += b.NumRows()
	}
	return b, err
}
