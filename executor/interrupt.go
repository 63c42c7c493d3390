package executor

// Long work inside one kernel (sorting millions of rows, one radix pass
// over them) must stop soon after the statement is cancelled, not when
// the kernel ends: a kernel ticks an interrupter as it goes, which looks
// at the context every interruptEvery ticks and, once it is done, panics
// with errInterrupted; the operator running the kernel catches that
// (catchInterrupt) and returns the context's error (57014).

import "context"

// interruptEvery bounds the work between two looks at the context: about
// a millisecond of comparisons or radix moves.
const interruptEvery = 1 << 15

type interrupter struct {
	ctx  context.Context
	left int
}

type interruptSignal struct{}

var errInterrupted = interruptSignal{}

func newInterrupter(ctx context.Context) *interrupter {
	return &interrupter{ctx: ctx, left: interruptEvery}
}

// tick counts one unit of work.
func (in *interrupter) tick() {
	in.left--
	if in.left <= 0 {
		in.poll()
	}
}

// add counts n units of work at once (for loops that count locally).
func (in *interrupter) add(n int) {
	in.left -= n
	if in.left <= 0 {
		in.poll()
	}
}

// poll looks at the context now.
func (in *interrupter) poll() {
	in.left = interruptEvery
	if in.ctx.Err() != nil {
		panic(errInterrupted)
	}
}

// catchInterrupt, deferred, turns an interrupter's panic into the
// context's error in *err; other panics go on.
func catchInterrupt(ctx context.Context, err *error) {
	if r := recover(); r != nil {
		if r != errInterrupted {
			panic(r)
		}
		*err = CtxError(ctx)
	}
}

// chunks runs fn over [0, n) in pieces of interruptEvery items, looking
// at the context between them, so that tight loops stay tight.
func (in *interrupter) chunks(n int, fn func(lo, hi int)) {
	for lo := 0; lo < n; lo += interruptEvery {
		fn(lo, min(lo+interruptEvery, n))
		in.poll()
	}
}
