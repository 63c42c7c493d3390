package executor

// External merge sort: what Sort does when its input does not fit in
// work_mem. Sort collects input batches until they would pass work_mem,
// sorts them in memory (the same radix or comparison sort as an
// in-memory Sort), and writes them to a spill file as one sorted run,
// then goes on with the next run. At the end of the input it merges the
// runs, at most mergeFanIn at a time (more runs are first merged into
// fewer, longer ones, as PostgreSQL's tape merges do), with a heap over
// each run's current row; each run holds one batch in memory. Ties go to
// the earlier run, so the result is exactly the stable in-memory sort's.
//
// EXPLAIN ANALYZE shows "Sort Method: external merge  Disk: NkB", the
// bytes of the initial runs; an in-memory sort shows "quicksort  Memory:
// NkB" and a bounded one "top-N heapsort", as PostgreSQL names them.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
)

// sortRowOverhead is what sorting adds per row besides the row's bytes
// (counted twice: the rows held and their concatenation): the evaluated
// key, its sortable form and the row index, each double-buffered by the
// radix sort.
const sortRowOverhead = 32

// runBatchBytes is the size of the batches runs are written in, which is
// also what each run being merged holds in memory.
const runBatchBytes = 64 << 10

// maxRunBytes bounds one in-memory run whatever work_mem says: a run is
// concatenated into one batch, whose string columns Arrow addresses with
// 32-bit offsets.
const maxRunBytes = 1 << 30

// mergeFanIn bounds the runs one merge pass reads; it is kept within
// work_mem by mergeWidth.
const mergeFanIn = 128

// mergeWidth is how many runs one pass may merge within workMem bytes:
// each holds a run batch, and at least 6 are merged (PostgreSQL's
// minimum number of tapes).
func mergeWidth(workMem int64) int {
	return min(mergeFanIn, max(6, int(workMem/(2*runBatchBytes))))
}

// spillRun sorts the collected batches and writes them as one run.
func (s *sortOp) spillRun(ctx context.Context, batches []arrow.RecordBatch) (*spillFile, error) {
	data, err := concatBatches(batches)
	if err != nil {
		return nil, err
	}
	defer data.Release()
	order, err := s.sortedOrder(ctx, data)
	if err != nil {
		return nil, err
	}
	f, err := newSpillFile(s.ec.TempDir, data.Schema())
	if err != nil {
		return nil, err
	}
	step := runBatchRows(data)
	for lo := 0; lo < len(order); lo += step {
		b := takeBatch(data, order[lo:min(lo+step, len(order))])
		err := f.write(b)
		b.Release()
		if err == nil {
			err = checkCtx(ctx)
		}
		if err != nil {
			f.close()
			return nil, err
		}
	}
	if err := f.finish(); err != nil {
		f.close()
		return nil, err
	}
	// The concatenation, the order, the radix buffers and the cut batches.
	discarded(3*batchBytes(data) + sortRowOverhead*data.NumRows())
	return f, nil
}

// runBatchRows is the number of rows of data's batches in a run: about
// runBatchBytes, within [64, DefaultBatchSize].
func runBatchRows(data arrow.RecordBatch) int {
	rows := data.NumRows()
	if rows == 0 {
		return 1
	}
	perRow := max(1, batchBytes(data)/rows)
	return int(min(DefaultBatchSize, max(64, runBatchBytes/perRow)))
}

// mergeRuns merges runs into ever fewer until one pass can merge the
// rest, and returns the merger of that last pass.
func (s *sortOp) mergeRuns(ctx context.Context, runs []*spillFile) (*runMerger, error) {
	width := mergeWidth(s.ec.workMem())
	for len(runs) > width {
		var next []*spillFile
		for lo := 0; lo < len(runs); lo += width {
			group := runs[lo:min(lo+width, len(runs))]
			if len(group) == 1 {
				next = append(next, group[0])
				continue
			}
			f, err := s.mergeInto(ctx, group)
			if err != nil {
				closeRuns(next)
				closeRuns(runs[lo:])
				return nil, err
			}
			next = append(next, f)
		}
		runs = next
	}
	return s.newRunMerger(runs)
}

// mergeInto merges runs into a new run, closing them.
func (s *sortOp) mergeInto(ctx context.Context, runs []*spillFile) (*spillFile, error) {
	m, err := s.newRunMerger(runs)
	if err != nil {
		return nil, err
	}
	defer m.close()
	f, err := newSpillFile(s.ec.TempDir, runs[0].schema)
	if err != nil {
		return nil, err
	}
	for {
		b, err := m.next(ctx, s.ec.BatchSize)
		if err == io.EOF {
			return f, nil
		}
		if err == nil {
			err = f.write(b)
			b.Release()
		}
		if err != nil {
			f.close()
			return nil, err
		}
	}
}

func closeRuns(runs []*spillFile) {
	for _, r := range runs {
		r.close()
	}
}

// runMerger merges sorted runs; it owns their files.
type runMerger struct {
	keys  []nodes.SortKey
	evals []evaluator
	runs  []*spillFile
	srcs  []mergeSource
	heap  topHeap // sources by their current row, the smallest on top
	set   func(src int, keys []arrow.Array)
	// loaded holds the batches the picks of the batch being built refer
	// to; a source's exhausted batch stays until that batch is built.
	loaded []arrow.RecordBatch
	picks  []mergePick
}

type mergeSource struct {
	r    *spillReader
	slot int32 // index of the current batch in loaded
	keys []arrow.Array
	rows int32
}

// mergePick is one output row: a row of a loaded batch.
type mergePick struct{ slot, row int32 }

func (s *sortOp) newRunMerger(runs []*spillFile) (*runMerger, error) {
	m := &runMerger{keys: s.plan.Keys, evals: s.keys, runs: runs, srcs: make([]mergeSource, len(runs))}
	for i, f := range runs {
		r, err := f.reader()
		if err != nil {
			m.close()
			return nil, err
		}
		m.srcs[i].r = r
	}
	for i := range m.srcs {
		ok, err := m.load(i)
		if err != nil {
			m.close()
			return nil, err
		}
		if ok {
			m.heap.items = append(m.heap.items, topEntry{src: uint8(i)})
		}
	}
	m.setComparator()
	for i := len(m.heap.items)/2 - 1; i >= 0; i-- {
		m.heap.down(i)
	}
	return m, nil
}

// load reads source i's next batch; false at the end of its run.
func (m *runMerger) load(i int) (bool, error) {
	src := &m.srcs[i]
	releaseAll(src.keys)
	src.keys = nil
	b, err := src.r.next()
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	keys := make([]arrow.Array, len(m.evals))
	for k, ev := range m.evals {
		if keys[k], err = ev.eval(b); err != nil {
			releaseAll(keys)
			b.Release()
			return false, err
		}
	}
	src.keys, src.rows = keys, int32(b.NumRows())
	src.slot = int32(len(m.loaded))
	m.loaded = append(m.loaded, b)
	return true, nil
}

// setComparator orders heap entries smallest first (topHeap keeps its
// largest on top), ties to the earlier run.
func (m *runMerger) setComparator() {
	srcKeys := make([][]arrow.Array, len(m.srcs))
	for i := range m.srcs {
		srcKeys[i] = m.srcs[i].keys
		if srcKeys[i] == nil {
			srcKeys[i] = make([]arrow.Array, len(m.keys))
		}
	}
	cmp, set := settableComparator(srcKeys, m.keys)
	m.set = set
	m.heap.cmp = func(a, b topEntry) int {
		if r := cmp(a, b); r != 0 {
			return -r
		}
		return int(b.src) - int(a.src)
	}
}

// next returns up to n merged rows, or io.EOF.
func (m *runMerger) next(ctx context.Context, n int) (b arrow.RecordBatch, err error) {
	in := newInterrupter(ctx)
	defer catchInterrupt(ctx, &err)
	m.picks = m.picks[:0]
	for len(m.picks) < n && len(m.heap.items) > 0 {
		in.tick()
		top := &m.heap.items[0]
		src := &m.srcs[top.src]
		m.picks = append(m.picks, mergePick{slot: src.slot, row: top.row})
		if top.row+1 < src.rows {
			top.row++
			m.heap.down(0)
			continue
		}
		i := int(top.src)
		ok, err := m.load(i)
		if err != nil {
			return nil, err
		}
		m.set(i, m.srcs[i].keys)
		if ok {
			top.row = 0
		} else {
			last := len(m.heap.items) - 1
			m.heap.items[0] = m.heap.items[last]
			m.heap.items = m.heap.items[:last]
		}
		if len(m.heap.items) > 0 {
			m.heap.down(0)
		}
	}
	if len(m.picks) == 0 {
		return nil, io.EOF
	}
	out, err := gatherPicks(m.loaded, m.picks)
	m.retire()
	if err == nil {
		discarded(3 * batchBytes(out)) // read back, gathered twice
	}
	return out, err
}

// retire releases the loaded batches no source reads any more.
func (m *runMerger) retire() {
	var keep []arrow.RecordBatch
	moved := make(map[int32]int32, len(m.srcs))
	for i := range m.srcs {
		src := &m.srcs[i]
		if src.keys == nil {
			continue // run ended
		}
		to, ok := moved[src.slot]
		if !ok {
			to = int32(len(keep))
			moved[src.slot] = to
			keep = append(keep, m.loaded[src.slot])
			m.loaded[src.slot] = nil
		}
		src.slot = to
	}
	for _, b := range m.loaded {
		if b != nil {
			b.Release()
		}
	}
	m.loaded = keep
}

func (m *runMerger) close() {
	for i := range m.srcs {
		releaseAll(m.srcs[i].keys)
		m.srcs[i].keys = nil
		if m.srcs[i].r != nil {
			m.srcs[i].r.close()
		}
	}
	for _, b := range m.loaded {
		if b != nil {
			b.Release()
		}
	}
	m.loaded = nil
	closeRuns(m.runs)
}

// gatherPicks builds the batch of picked rows, in pick order: it takes
// each batch's picked rows at once, then puts them in order.
func gatherPicks(loaded []arrow.RecordBatch, picks []mergePick) (arrow.RecordBatch, error) {
	perSlot := make([][]int32, len(loaded))
	at := make([]int32, len(picks)) // index of each pick within its slot's rows
	for i, p := range picks {
		at[i] = int32(len(perSlot[p.slot]))
		perSlot[p.slot] = append(perSlot[p.slot], p.row)
	}
	var parts []arrow.RecordBatch
	offset := make([]int32, len(loaded))
	var total int32
	for slot, rows := range perSlot {
		offset[slot] = total
		if len(rows) > 0 {
			parts = append(parts, takeBatch(loaded[slot], rows))
			total += int32(len(rows))
		}
	}
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	if len(parts) == 1 {
		parts[0].Retain()
		return parts[0], nil
	}
	all, err := concatBatches(parts)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	for i, p := range picks {
		at[i] += offset[p.slot]
	}
	return takeBatch(all, at), nil
}
