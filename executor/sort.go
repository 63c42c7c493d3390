package executor

// Sort reads its whole input, evaluates the sort keys, sorts row indexes
// with a comparator specialised per key type, and returns the rows in
// order in batches. With a bound (LIMIT above), only the first Bound rows
// are returned. NULLs sort as PostgreSQL's: last for ASC, first for DESC,
// unless NULLS FIRST/LAST says otherwise. Input beyond work_mem is
// sorted in runs on disk and merged (sort_external.go). Cancellation is
// checked between input batches and inside the sort and merge kernels.

import (
	"context"
	"io"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

type sortOp struct {
	plan  *nodes.Sort
	ec    *ExecContext
	child Operator
	keys  []evaluator

	out   *sortedRows
	merge *runMerger // set instead of out when the input spilled
	mem   reservation
	// topSteps counts a top-N sort's heap steps (one per input chunk).
	topSteps int
}

type sortedRows struct {
	data  arrow.RecordBatch
	order []int32
	pos   int
}

func newSort(p *nodes.Sort, ec *ExecContext) (Operator, error) {
	child, err := Build(p.Child, ec)
	if err != nil {
		return nil, err
	}
	s := &sortOp{plan: p, ec: ec, child: child}
	for _, k := range p.Keys {
		ev, err := compileExpr(k.Expr, ec)
		if err != nil {
			child.Close()
			return nil, err
		}
		s.keys = append(s.keys, ev)
	}
	return s, nil
}

func (s *sortOp) Open(ctx context.Context) error {
	s.release()
	return s.child.Open(ctx)
}

func (s *sortOp) release() {
	if s.merge != nil {
		s.merge.close()
		s.merge = nil
	}
	s.mem.free()
	if s.out != nil {
		if s.out.data != nil {
			s.out.data.Release()
		}
		s.out = nil
	}
}

func (s *sortOp) Close() error {
	s.release()
	return s.child.Close()
}

func (s *sortOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.out == nil && s.merge == nil {
		if err := s.sortInput(ctx); err != nil {
			return nil, err
		}
	}
	if s.merge != nil {
		return s.merge.next(ctx, s.ec.BatchSize)
	}
	o := s.out
	if o.data == nil || o.pos >= len(o.order) {
		return nil, io.EOF
	}
	end := min(o.pos+s.ec.BatchSize, len(o.order))
	b := takeBatch(o.data, o.order[o.pos:end])
	o.pos = end
	return b, nil
}

func (s *sortOp) sortInput(ctx context.Context) error {
	s.mem = reservation{pool: s.ec.Memory}
	if s.plan.Bound > 0 && s.plan.Bound <= maxTopN {
		return s.topN(ctx)
	}
	var batches []arrow.RecordBatch
	var runs []*spillFile
	var held, disk int64
	defer func() {
		releaseBatches(batches)
		closeRuns(runs)
	}()
	// spill writes the batches held as one run.
	spill := func() error {
		f, err := s.spillRun(ctx, batches)
		if err != nil {
			return err
		}
		runs = append(runs, f)
		disk += f.bytes
		releaseBatches(batches)
		batches, held = nil, 0
		return s.mem.resize(0)
	}
	for {
		b, err := s.child.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		n := 2*batchBytes(b) + sortRowOverhead*b.NumRows()
		if len(batches) > 0 && held+n > min(s.ec.workMem(), maxRunBytes) {
			err = spill()
		}
		if err == nil {
			err = s.mem.resize(held + n)
		}
		if err != nil && len(batches) > 0 && pgerr.Code(err) == pgerr.OutOfMemory {
			// The memory limit is reached first: spill early.
			if err = spill(); err == nil {
				err = s.mem.resize(n)
			}
		}
		if err == nil {
			err = checkCtx(ctx)
		}
		if err != nil {
			b.Release()
			return err
		}
		batches = append(batches, b)
		held += n
	}
	if len(runs) > 0 {
		if len(batches) > 0 {
			if err := spill(); err != nil {
				return err
			}
		}
		m, err := s.mergeRuns(ctx, runs)
		runs = nil // the merger (or mergeRuns on error) closed or owns them
		if err != nil {
			return err
		}
		s.merge = m
		s.method("external merge  Disk: " + kB(disk))
		return nil
	}
	s.out = &sortedRows{}
	if len(batches) == 0 {
		s.method("quicksort  Memory: " + kB(0))
		return nil
	}
	data, err := concatBatches(batches)
	if err != nil {
		return err
	}
	order, err := s.sortedOrder(ctx, data)
	if err != nil {
		data.Release()
		return err
	}
	if s.plan.Bound > 0 && int64(len(order)) > s.plan.Bound {
		order = order[:s.plan.Bound]
	}
	s.out.data, s.out.order = data, order
	s.method("quicksort  Memory: " + kB(s.mem.peak))
	return nil
}

// method records the sort's "Sort Method" line for EXPLAIN ANALYZE.
func (s *sortOp) method(m string) {
	if s.ec.Stats != nil {
		s.ec.Stats.Node(s.plan.ID).Extra = []string{"Sort Method: " + m}
	}
}

// sortedOrder returns the row indexes of data in sort order; a cancel
// stops it within interruptEvery comparisons or radix moves.
func (s *sortOp) sortedOrder(ctx context.Context, data arrow.RecordBatch) (order []int32, err error) {
	keys, err := s.evalKeys(data)
	if err != nil {
		return nil, err
	}
	defer releaseAll(keys)
	in := newInterrupter(ctx)
	defer catchInterrupt(ctx, &err)
	cmps := make([]func(a, b int32) int, len(keys))
	for i, k := range s.plan.Keys {
		c := keyComparator(keys[i], k)
		cmps[i] = func(a, b int32) int { in.tick(); return c(a, b) }
	}
	if first := s.plan.Keys[0]; radixSortable(first.Expr.Type()) {
		var rest func(a, b int32) int
		if len(cmps) > 1 {
			rest = func(a, b int32) int {
				for _, c := range cmps[1:] {
					if r := c(a, b); r != 0 {
						return r
					}
				}
				return 0
			}
		}
		return radixSortedOrder(keys[0], first, rest, in), nil
	}
	order = make([]int32, data.NumRows())
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		for _, c := range cmps {
			if r := c(a, b); r != 0 {
				return r
			}
		}
		return 0
	})
	return order, nil
}

func (s *sortOp) evalKeys(b arrow.RecordBatch) ([]arrow.Array, error) {
	keys := make([]arrow.Array, len(s.keys))
	for i, ev := range s.keys {
		k, err := ev.eval(b)
		if err != nil {
			releaseAll(keys)
			return nil, err
		}
		keys[i] = k
	}
	return keys, nil
}

// maxTopN bounds the LIMIT for which Sort keeps only the best rows seen
// so far instead of sorting its whole input.
const maxTopN = 1 << 16

// topN keeps the best Bound rows seen so far. It runs a bounded max-heap
// (worst kept row on top) over rows of two sources: the rows kept from
// earlier batches and the current batch. Each input row costs one
// comparison with the heap top; only rows that beat it are sifted in
// (log Bound comparisons), as in PostgreSQL's bounded heapsort. After each
// batch the surviving rows are gathered into a new kept batch.
func (s *sortOp) topN(ctx context.Context) error {
	bound := int(s.plan.Bound)
	var kept arrow.RecordBatch // unsorted best rows so far
	var keptKeys []arrow.Array
	release := func() {
		releaseAll(keptKeys)
		keptKeys = nil
		if kept != nil {
			kept.Release()
			kept = nil
		}
	}
	s.out = &sortedRows{}
	chunk := topNChunkRows(bound, s.ec.BatchSize)
	for {
		b, err := nextChunk(ctx, s.child, chunk)
		if err == io.EOF {
			break
		}
		if err != nil {
			release()
			return err
		}
		keys, err := s.evalKeys(b)
		if err != nil {
			b.Release()
			release()
			return err
		}
		s.topSteps++
		h := &topHeap{cmp: entryComparator(keptKeys, keys, s.plan.Keys)}
		if kept != nil {
			for r := int32(0); r < int32(kept.NumRows()); r++ {
				h.push(topEntry{src: 0, row: r})
			}
		}
		took := false
		for _, r := range batchCandidates(keys, s.plan.Keys, bound) {
			e := topEntry{src: 1, row: r}
			if len(h.items) < bound {
				h.push(e)
				took = true
			} else if h.cmp(e, h.items[0]) < 0 {
				h.items[0] = e
				h.down(0)
				took = true
			}
		}
		releaseAll(keys)
		if !took {
			b.Release()
			continue
		}
		var fromKept, fromBatch []int32
		for _, e := range h.items {
			if e.src == 0 {
				fromKept = append(fromKept, e.row)
			} else {
				fromBatch = append(fromBatch, e.row)
			}
		}
		parts := []arrow.RecordBatch{takeBatch(b, fromBatch)}
		b.Release()
		if kept != nil && len(fromKept) > 0 {
			parts = append(parts, takeBatch(kept, fromKept))
		}
		release()
		kept, err = concatBatches(parts)
		for _, p := range parts {
			p.Release()
		}
		if err != nil {
			return err
		}
		if keptKeys, err = s.evalKeys(kept); err != nil {
			release()
			return err
		}
	}
	if kept == nil {
		s.method("top-N heapsort  Memory: " + kB(0))
		return nil
	}
	s.method("top-N heapsort  Memory: " + kB(batchBytes(kept)+sortRowOverhead*kept.NumRows()))
	order, err := s.sortedOrder(ctx, kept)
	if err != nil {
		release()
		return err
	}
	releaseAll(keptKeys)
	s.out.data, s.out.order = kept, order
	return nil
}

// batchCandidates returns the rows of a batch that can enter the top
// Bound: for one integer sort key without NULLs, only the batch's own best
// Bound rows, found by selection in linear time (so input arriving in the
// worst order, e.g. ascending for ORDER BY ... DESC, costs O(n) per batch
// instead of a heap operation per row); otherwise every row.
func batchCandidates(keys []arrow.Array, sortKeys []nodes.SortKey, bound int) []int32 {
	n := keys[0].Len()
	if len(keys) == 1 && n > 4*bound && keys[0].NullN() == 0 {
		desc := sortKeys[0].Desc
		switch keys[0].(type) {
		case *array.Int64, *array.Timestamp:
			return selectBest(valuesOf[int64](keys[0]), bound, desc)
		case *array.Int32, *array.Date32:
			return selectBest(valuesOf[int32](keys[0]), bound, desc)
		case *array.Int16:
			return selectBest(valuesOf[int16](keys[0]), bound, desc)
		}
	}
	all := make([]int32, n)
	for i := range all {
		all[i] = int32(i)
	}
	return all
}

// selectBest returns the indexes of the k smallest values (largest with
// desc), in no particular order, by quickselect over (value, index) pairs.
func selectBest[T int16 | int32 | int64](vals []T, k int, desc bool) []int32 {
	type pair struct {
		v T
		i int32
	}
	ps := make([]pair, len(vals))
	for i, v := range vals {
		ps[i] = pair{v, int32(i)}
	}
	less := func(a, b pair) bool {
		if desc {
			return a.v > b.v
		}
		return a.v < b.v
	}
	lo, hi := 0, len(ps)-1
	for lo < hi {
		// Median of three as pivot, then Hoare partition.
		mid := lo + (hi-lo)/2
		if less(ps[mid], ps[lo]) {
			ps[mid], ps[lo] = ps[lo], ps[mid]
		}
		if less(ps[hi], ps[lo]) {
			ps[hi], ps[lo] = ps[lo], ps[hi]
		}
		if less(ps[hi], ps[mid]) {
			ps[hi], ps[mid] = ps[mid], ps[hi]
		}
		pivot := ps[mid]
		i, j := lo, hi
		for i <= j {
			for less(ps[i], pivot) {
				i++
			}
			for less(pivot, ps[j]) {
				j--
			}
			if i <= j {
				ps[i], ps[j] = ps[j], ps[i]
				i++
				j--
			}
		}
		switch {
		case k-1 <= j:
			hi = j
		case k-1 >= i:
			lo = i
		default:
			lo = hi // k-1 lies between j and i: done
		}
	}
	out := make([]int32, k)
	for i := range out {
		out[i] = ps[i].i
	}
	return out
}

// topEntry names a row of a source: for top-N, the kept rows (src 0) or
// the current batch (src 1); for a merge, an input.
type topEntry struct {
	src uint8
	row int32
}

// topHeap is a max-heap of entries in sort order: the worst row on top.
type topHeap struct {
	items []topEntry
	cmp   func(a, b topEntry) int
}

func (h *topHeap) push(e topEntry) {
	h.items = append(h.items, e)
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h.cmp(h.items[i], h.items[p]) <= 0 {
			break
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *topHeap) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h.cmp(h.items[r], h.items[l]) > 0 {
			c = r
		}
		if h.cmp(h.items[c], h.items[i]) <= 0 {
			return
		}
		h.items[i], h.items[c] = h.items[c], h.items[i]
		i = c
	}
}

// entryComparator orders entries of the two sources under the sort keys.
// keptKeys may be nil (no rows kept yet).
func entryComparator(keptKeys, batchKeys []arrow.Array, keys []nodes.SortKey) func(a, b topEntry) int {
	srcKeys := [][]arrow.Array{keptKeys, batchKeys}
	if keptKeys == nil {
		srcKeys[0] = make([]arrow.Array, len(batchKeys))
	}
	return sourcesComparator(srcKeys, keys)
}

// sourcesComparator orders rows of several sources under the sort keys:
// srcKeys[s][k] is source s's array of key k (nil for a source without
// rows); an entry names a source and a row of it.
func sourcesComparator(srcKeys [][]arrow.Array, keys []nodes.SortKey) func(a, b topEntry) int {
	cmp, _ := settableComparator(srcKeys, keys)
	return cmp
}

// settableComparator is sourcesComparator with a way to give one source
// new key arrays (set), for merges whose inputs move batch by batch: the
// other sources' prepared views stay.
func settableComparator(srcKeys [][]arrow.Array, keys []nodes.SortKey) (cmp func(a, b topEntry) int, set func(src int, keys []arrow.Array)) {
	cols := make([]*keySources, len(keys))
	for k, key := range keys {
		cols[k] = newKeySources(key, len(srcKeys))
		for s := range srcKeys {
			cols[k].set(s, srcKeys[s][k])
		}
	}
	set = func(src int, keys []arrow.Array) {
		for k, c := range cols {
			var a arrow.Array
			if keys != nil {
				a = keys[k]
			}
			c.set(src, a)
		}
	}
	if len(cols) == 1 {
		return cols[0].compare, set
	}
	return func(a, b topEntry) int {
		for _, c := range cols {
			if r := c.compare(a, b); r != 0 {
				return r
			}
		}
		return 0
	}, set
}

// keySources compares rows of several sources (a nil array: no rows)
// under one sort key, through views of each source's array specialised
// per key type.
type keySources struct {
	key      nodes.SortKey
	t        types.T
	valid    [][]byte
	hasNulls bool
	ints     [][]int64
	int32s   [][]int32
	int16s   [][]int16
	f64s     [][]float64
	f32s     [][]float32
	strs     []*array.String
	datums   [][]any // other types, decoded once per source
	cmp      func(a, b topEntry) int
}

func newKeySources(k nodes.SortKey, n int) *keySources {
	c := &keySources{key: k, t: k.Expr.Type(), valid: make([][]byte, n)}
	switch c.t.ID {
	case types.Int8, types.Timestamp, types.TimestampTZ:
		c.ints = make([][]int64, n)
		c.cmp = func(a, b topEntry) int { return cmpOrdered(c.ints[a.src][a.row], c.ints[b.src][b.row]) }
	case types.Int4, types.Date:
		c.int32s = make([][]int32, n)
		c.cmp = func(a, b topEntry) int { return cmpOrdered(c.int32s[a.src][a.row], c.int32s[b.src][b.row]) }
	case types.Int2:
		c.int16s = make([][]int16, n)
		c.cmp = func(a, b topEntry) int { return cmpOrdered(c.int16s[a.src][a.row], c.int16s[b.src][b.row]) }
	case types.Float8:
		c.f64s = make([][]float64, n)
		c.cmp = func(a, b topEntry) int { return cmpFloat(c.f64s[a.src][a.row], c.f64s[b.src][b.row]) }
	case types.Float4:
		c.f32s = make([][]float32, n)
		c.cmp = func(a, b topEntry) int { return cmpFloat(c.f32s[a.src][a.row], c.f32s[b.src][b.row]) }
	case types.Text, types.Varchar, types.Name:
		c.strs = make([]*array.String, n)
		c.cmp = func(a, b topEntry) int {
			return strings.Compare(c.strs[a.src].Value(int(a.row)), c.strs[b.src].Value(int(b.row)))
		}
	default:
		c.datums = make([][]any, n)
		c.cmp = func(a, b topEntry) int { return types.Compare(c.t, c.datums[a.src][a.row], c.datums[b.src][b.row]) }
	}
	return c
}

// set makes a source's rows those of a (nil: none).
func (c *keySources) set(src int, a arrow.Array) {
	c.valid[src] = nil
	if a == nil {
		return
	}
	c.valid[src] = validity(a)
	c.hasNulls = c.hasNulls || c.valid[src] != nil
	switch {
	case c.ints != nil:
		c.ints[src] = valuesOf[int64](a)
	case c.int32s != nil:
		c.int32s[src] = valuesOf[int32](a)
	case c.int16s != nil:
		c.int16s[src] = valuesOf[int16](a)
	case c.f64s != nil:
		c.f64s[src] = valuesOf[float64](a)
	case c.f32s != nil:
		c.f32s[src] = valuesOf[float32](a)
	case c.strs != nil:
		c.strs[src] = a.(*array.String)
	default:
		vals := make([]any, a.Len())
		for r := range vals {
			vals[r] = types.DatumAt(a, c.t, r)
		}
		c.datums[src] = vals
	}
}

// compare orders two rows, NULLs first or last as the key says.
func (c *keySources) compare(a, b topEntry) int {
	if c.hasNulls {
		an, bn := !isValid(c.valid[a.src], int(a.row)), !isValid(c.valid[b.src], int(b.row))
		if an || bn {
			switch {
			case an && bn:
				return 0
			case an == c.key.NullsFirst:
				return -1
			default:
				return 1
			}
		}
	}
	r := c.cmp(a, b)
	if c.key.Desc {
		return -r
	}
	return r
}

// cmpFloat orders floats as PostgreSQL does: NaN above every other value
// and equal to itself, -0 equal to 0.
func cmpFloat[T float32 | float64](x, y T) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	case x == y:
		return 0
	}
	xn, yn := x != x, y != y
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	}
	return -1
}

// topNChunkRows is how many input rows a top-N sort takes at a time:
// each step rebuilds a heap of the rows kept so far (up to bound), so
// steps over small batches (a foreign scan's fetches of 100 rows) would
// cost bound per batch; steps of at least bound rows keep the work
// linear in the input.
func topNChunkRows(bound, batchSize int) int {
	if batchSize <= 0 {
		batchSize = DefaultBatchSize
	}
	return min(max(bound, batchSize), 1<<20)
}

// nextChunk reads batches from child until they hold at least rows rows
// (or the input ends) and returns them as one batch; io.EOF once the
// input is over.
func nextChunk(ctx context.Context, child Operator, rows int) (arrow.RecordBatch, error) {
	var parts []arrow.RecordBatch
	defer func() { releaseBatches(parts) }()
	n := 0
	for n < rows {
		b, err := child.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		if len(parts) == 0 && int(b.NumRows()) >= rows {
			return b, nil
		}
		parts = append(parts, b)
		n += int(b.NumRows())
	}
	if len(parts) == 0 {
		return nil, io.EOF
	}
	return concatBatches(parts)
}

// concatBatches joins batches of one schema into one batch.
func concatBatches(bs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(bs) == 1 {
		bs[0].Retain()
		return bs[0], nil
	}
	ncols := int(bs[0].NumCols())
	cols := make([]arrow.Array, ncols)
	var rows int64
	for _, b := range bs {
		rows += b.NumRows()
	}
	for c := 0; c < ncols; c++ {
		parts := make([]arrow.Array, len(bs))
		for i, b := range bs {
			parts[i] = b.Column(c)
		}
		arr, err := array.Concatenate(parts, alloc)
		if err != nil {
			releaseAll(cols)
			return nil, err
		}
		cols[c] = arr
	}
	return makeBatch(bs[0].Schema(), cols, int(rows)), nil
}

// keyComparator compares two rows of arr under one sort key.
func keyComparator(arr arrow.Array, k nodes.SortKey) func(a, b int32) int {
	c := newKeySources(k, 1)
	c.set(0, arr)
	cmp := c.compare
	return func(a, b int32) int { return cmp(topEntry{row: a}, topEntry{row: b}) }
}

func cmpOrdered[T int16 | int32 | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
