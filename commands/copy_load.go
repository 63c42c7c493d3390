package commands

// COPY FROM's loading loop. The statement's goroutine reads the input
// into chunks of records (copy_split.go) and stores the batches parsed
// from them, in input order, through the Inserter (constraint checks,
// partition routing, the write set). Parsing, most of the work, runs on
// up to maxCopyWorkers goroutines (at most GOMAXPROCS) while the
// statement's goroutine reads ahead, at most a few chunks: memory stays
// bounded however large the input. An input that fits one chunk is
// parsed on the statement's goroutine. Errors come in input order
// whatever the goroutines: a chunk's batch holds the rows before its
// first bad record, which are stored (so that their constraint errors,
// on earlier lines, win) before the bad record's error is reported.

import (
	"context"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/executor"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
)

// maxCopyWorkers is the most goroutines that parse chunks: beyond it the
// reading goroutine could not keep them busy.
const maxCopyWorkers = 4

// copyWorkers is how many goroutines parse the chunks of a large input.
func copyWorkers() int { return min(runtime.GOMAXPROCS(0), maxCopyWorkers) }

// copyLoad is one COPY FROM's loading state.
type copyLoad struct {
	ctx      context.Context
	t        *storage.Table
	o        copyOptions
	cols     []int
	defaults map[int]any
	ins      *executor.Inserter
	writes   *storage.WriteSet
	split    *copySplitter
	free     []*copyChunk // chunks to reuse
}

// parsedChunk is a chunk's batch (nil if no row) and the error after it.
type parsedChunk struct {
	ch    *copyChunk
	batch arrow.RecordBatch
	err   error
}

// chunkPool keeps chunks, with their buffers, from one COPY to the next.
var chunkPool = sync.Pool{New: func() any { return &copyChunk{} }}

func (l *copyLoad) chunk() *copyChunk {
	if n := len(l.free); n > 0 {
		ch := l.free[n-1]
		l.free = l.free[:n-1]
		return ch
	}
	return chunkPool.Get().(*copyChunk)
}

// release gives the chunks back to the pool.
func (l *copyLoad) release() {
	for _, ch := range l.free {
		if cap(ch.data) <= 4*chunkBytes {
			ch.reset()
			chunkPool.Put(ch)
		}
	}
	l.free = nil
}

// run loads the whole input.
func (l *copyLoad) run() error {
	defer l.release()
	p := newCopyParser(l.t, l.o, l.cols, l.defaults)
	if l.o.header {
		if err := l.header(p); err != nil {
			return err
		}
	}
	first := l.chunk()
	if !l.split.next(first, maxChunkRecords) {
		l.free = append(l.free, first)
		return nil
	}
	if l.split.done || copyWorkers() < 2 {
		return l.runInline(p, first)
	}
	return l.runParallel(first)
}

// header reads the header line, checking it under HEADER MATCH.
func (l *copyLoad) header(p *copyParser) error {
	ch := l.chunk()
	defer func() { l.free = append(l.free, ch) }()
	if !l.split.next(ch, 1) {
		return nil
	}
	if ch.records() == 0 {
		return l.inputError(ch)
	}
	if !l.o.headerMatch {
		return nil
	}
	if err := checkHeader(l.t, l.cols, p.headerFields(ch)); err != nil {
		return copyContext(err, l.t, lineContext(ch.firstLine, string(ch.record(0))))
	}
	return nil
}

// runInline parses the chunks on this goroutine.
func (l *copyLoad) runInline(p *copyParser, ch *copyChunk) error {
	defer func() { l.free = append(l.free, ch) }()
	for {
		b, err := p.parse(ch)
		if err := l.store(parsedChunk{ch, b, err}); err != nil {
			return err
		}
		if !l.split.next(ch, maxChunkRecords) {
			return nil
		}
	}
}

// copyJob is a chunk given to a parsing goroutine; the result comes
// back on done.
type copyJob struct {
	ch   *copyChunk
	done chan parsedChunk
}

// runParallel reads chunks ahead and has goroutines parse them, storing
// the results in order.
func (l *copyLoad) runParallel(first *copyChunk) error {
	workers := copyWorkers()
	jobs := make(chan copyJob)
	var stop atomic.Bool // set when the results are no longer wanted
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := newCopyParser(l.t, l.o, l.cols, l.defaults)
			for j := range jobs {
				if stop.Load() {
					j.done <- parsedChunk{ch: j.ch}
					continue
				}
				j.done <- parseGuarded(p, j.ch)
			}
		}()
	}
	var pending []copyJob
	defer func() {
		stop.Store(true)
		close(jobs)
		wg.Wait()
		for _, j := range pending {
			if r := <-j.done; r.batch != nil {
				r.batch.Release()
			}
			l.free = append(l.free, j.ch)
		}
	}()
	submit := func(ch *copyChunk) {
		j := copyJob{ch, make(chan parsedChunk, 1)}
		jobs <- j
		pending = append(pending, j)
	}
	submit(first)
	for len(pending) > 0 {
		// Keep every worker busy and one chunk more read.
		for len(pending) <= workers && !l.split.done {
			ch := l.chunk()
			if !l.split.next(ch, maxChunkRecords) {
				l.free = append(l.free, ch)
				break
			}
			submit(ch)
		}
		r := <-pending[0].done
		pending = pending[1:]
		if err := l.store(r); err != nil {
			return err
		}
		l.free = append(l.free, r.ch)
	}
	return nil
}

// parseGuarded parses ch on a goroutine of its own: a panic there (a bug)
// would end the process, so it becomes the chunk's error, and the parser
// is not used again.
func parseGuarded(p *copyParser, ch *copyChunk) (r parsedChunk) {
	defer func() {
		if x := recover(); x != nil {
			stop := pgerr.Internal("internal error in COPY FROM: %v", x).WithDetail("%s", firstStackLines(12))
			r = parsedChunk{ch: ch, err: stop}
			p.broken = stop
		}
	}()
	if p.broken != nil {
		return parsedChunk{ch: ch, err: p.broken}
	}
	b, err := p.parse(ch)
	return parsedChunk{ch, b, err}
}

// firstStackLines is the beginning of the goroutine's stack.
func firstStackLines(n int) string {
	lines := strings.SplitN(string(debug.Stack()), "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// store inserts a parsed chunk's rows and then reports its error, or the
// input's failure after it.
func (l *copyLoad) store(r parsedChunk) error {
	if r.batch != nil {
		err := l.ins.Insert(l.ctx, l.writes, r.batch)
		r.batch.Release()
		if re, ok := err.(*storage.RowError); ok {
			return copyContext(re.Err, l.t, lineContext(r.ch.firstLine+re.Row, string(r.ch.record(re.Row))))
		}
		if err != nil {
			return err
		}
	}
	if r.err != nil {
		return r.err
	}
	if r.ch.err != nil {
		return l.inputError(r.ch)
	}
	if l.ctx.Err() != nil {
		return executor.CtxError(l.ctx)
	}
	return nil
}

// inputError is the error the input failed with after ch's records.
func (l *copyLoad) inputError(ch *copyChunk) error {
	if ch.errRaw != "" {
		return copyContext(ch.err, l.t, lineContext(ch.errLine, ch.errRaw))
	}
	return copyContext(ch.err, l.t, "line "+strconv.Itoa(ch.errLine))
}
