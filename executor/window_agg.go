package executor

// WindowAgg computes window functions, as PostgreSQL's nodeWindowAgg.c,
// over its child's rows, which arrive sorted by PARTITION BY and then
// ORDER BY (the planner sorts). Its own rows are the child's columns
// followed by one column per function, in the child's row order; its
// plan's Filter and Targets are applied to them inside the node
// (qualOwner).
//
// Buffering: input batches are kept (retained, never copied) in a FIFO
// of entries, each with the columns the functions read (arguments,
// FILTER masks, the RANGE key) evaluated once per batch and a flag per
// row saying whether it starts a partition or a peer group (compared
// with the row before it, the previous batch's last row included). Once
// a partition is complete (the next one starts, or the input ends) its
// functions are computed over views of those columns (a partition that
// spans batches gets its columns concatenated) into one result builder
// per function; the output is then cut into batches that are slices of
// the input batches (at most ec.BatchSize rows, never across two input
// batches) plus slices of the result columns, and the input batches
// fully emitted are released. The buffered bytes are counted in a memory
// reservation against the statement's pool (53200 beyond it; nothing
// spills).
//
// Functions: row_number, rank, dense_rank, percent_rank, cume_dist,
// ntile, lag and lead ignore the frame and are computed per partition in
// one loop each (window_funcs.go). Aggregates and first_value,
// last_value and nth_value read the frame (window_frame.go): for each
// row its frame head and tail are found as PostgreSQL finds them (ROWS
// by position, GROUPS by peer group, RANGE by monotone head and tail
// pointers moved with in_range's rules), minus the EXCLUDE clause's
// rows (found once per peer group for RANGE and GROUPS frames that do not
// exclude the current row alone). Rows whose frame holds the same rows as
// the previous row's share its value (peers under the default frame, a
// whole-partition frame); when the frame only grows at its end
// (UNBOUNDED PRECEDING .. CURRENT ROW or n FOLLOWING) the new rows are
// added to the running state; any other change recomputes the aggregate
// from the frame's first row, as PostgreSQL restarts an aggregate
// without an inverse transition function (so floating-point sums add in
// the same order). Frame offsets are evaluated once, on the first Next,
// as PostgreSQL's calculate_frame_offsets.
//
// Errors are PostgreSQL's: 22004 and 22013 for NULL and negative frame
// offsets, 22013 for a negative RANGE offset (when first compared, as
// in_range raises it), 22014 ntile, 22016 nth_value. Cancellation is
// checked before each input batch and, through an interrupter, inside
// the per-partition loops.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// Row flags of a winEntry.
const (
	winNewPeer = 1 << iota // the row starts a peer group
	winNewPart             // the row starts a partition (and a peer group)
)

type windowAgg struct {
	plan   *nodes.WindowAgg
	ec     *ExecContext
	child  Operator
	qual   *qual
	schema *arrow.Schema // own rows: the child's columns, then the functions'

	partKeys, ordKeys []evaluator
	partSort          []nodes.SortKey // PartitionBy as sort keys, for the comparators
	// cols are the expressions the functions read, evaluated per input
	// batch; colTypes their types.
	cols     []evaluator
	colTypes []types.T
	colIndex map[int]int // ColumnRef index -> position in cols
	funcs    []*winFunc
	plain    []*winFunc // functions that ignore the frame
	aggs     []*winFunc // aggregates
	values   []*winFunc // first_value, last_value, nth_value
	frame    winFrame

	started   bool // frame offsets evaluated
	entries   []*winEntry
	havePrev  bool
	prevPart  []arrow.Array // the last row read: its partition keys (one-row slices)
	prevOrd   []arrow.Array // and its ORDER BY keys
	rows      int64         // rows read
	partLo    int64         // first row of the partition being read
	computed  int64         // rows whose results are in the functions' outputs
	emitted   int64         // rows handed out
	ready     []arrow.RecordBatch
	childDone bool
	mem       reservation
	held      int64 // bytes of the entries
	part      winPart
}

// winEntry is one buffered input batch: rows [base, base+n).
type winEntry struct {
	b     arrow.RecordBatch
	base  int64
	n     int64
	cols  []arrow.Array
	flags []byte
	bytes int64
}

func (e *winEntry) release() {
	if e.b != nil {
		e.b.Release()
		e.b = nil
	}
	releaseAll(e.cols)
	e.cols = nil
}

func newWindowAgg(p *nodes.WindowAgg, ec *ExecContext) (Operator, error) {
	child, err := Build(p.Child, ec)
	if err != nil {
		return nil, err
	}
	w := &windowAgg{plan: p, ec: ec, child: child, colIndex: map[int]int{}}
	if err := w.compile(); err != nil {
		child.Close()
		return nil, err
	}
	if w.qual, err = newQual(&p.PlanBase, ec); err != nil {
		child.Close()
		return nil, err
	}
	return w, nil
}

func (w *windowAgg) ownsQual() {}

var _ qualOwner = (*windowAgg)(nil)

func (w *windowAgg) compile() error {
	p, ec := w.plan, w.ec
	var err error
	if w.partKeys, err = compileExprs(p.PartitionBy, ec); err != nil {
		return err
	}
	for _, e := range p.PartitionBy {
		w.partSort = append(w.partSort, nodes.SortKey{Expr: e})
	}
	for _, k := range p.OrderBy {
		ev, err := compileExpr(k.Expr, ec)
		if err != nil {
			return err
		}
		w.ordKeys = append(w.ordKeys, ev)
	}
	fields := append([]nodes.Field(nil), p.Child.Base().Out...)
	for i, fn := range p.Funcs {
		f, err := w.compileFunc(fn)
		if err != nil {
			return err
		}
		w.funcs = append(w.funcs, f)
		switch {
		case f.kind == wfAgg:
			w.aggs = append(w.aggs, f)
		case f.kind == wfFirstValue || f.kind == wfLastValue || f.kind == wfNthValue:
			w.values = append(w.values, f)
		default:
			w.plain = append(w.plain, f)
		}
		fields = append(fields, nodes.Field{Name: "w" + itoa(i), T: fn.T})
	}
	w.schema = schemaOf(fields)
	return w.compileFrame()
}

// column returns the position in w.cols of expression e, compiling it
// the first time (column references are read once however often used).
func (w *windowAgg) column(e nodes.Expr) (int, error) {
	c, isCol := e.(*nodes.ColumnRef)
	if isCol {
		if i, ok := w.colIndex[c.Index]; ok {
			return i, nil
		}
	}
	ev, err := compileExpr(e, w.ec)
	if err != nil {
		return 0, err
	}
	w.cols = append(w.cols, ev)
	w.colTypes = append(w.colTypes, e.Type())
	if isCol {
		w.colIndex[c.Index] = len(w.cols) - 1
	}
	return len(w.cols) - 1, nil
}

func (w *windowAgg) Open(ctx context.Context) error {
	w.reset()
	w.mem = reservation{pool: w.ec.Memory}
	return w.child.Open(ctx)
}

// reset drops everything buffered.
func (w *windowAgg) reset() {
	for _, e := range w.entries {
		e.release()
	}
	w.entries = nil
	releaseAll(w.prevPart)
	releaseAll(w.prevOrd)
	w.prevPart, w.prevOrd, w.havePrev = nil, nil, false
	releaseBatches(w.ready)
	w.ready = nil
	for _, f := range w.funcs {
		f.out.release()
	}
	w.part.unbind()
	w.rows, w.partLo, w.computed, w.emitted, w.held = 0, 0, 0, 0, 0
	w.childDone, w.started = false, false
	w.mem.free()
}

func (w *windowAgg) Close() error {
	w.reset()
	w.qual.close()
	return w.child.Close()
}

func (w *windowAgg) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return w.qual.next(func() (arrow.RecordBatch, error) { return w.produce(ctx) })
}

// produce returns the next batch of the node's own rows.
func (w *windowAgg) produce(ctx context.Context) (arrow.RecordBatch, error) {
	if !w.started {
		if err := w.frame.evalOffsets(w.ec); err != nil {
			return nil, err
		}
		w.started = true
	}
	for len(w.ready) == 0 {
		if w.childDone {
			return nil, io.EOF
		}
		if err := w.step(ctx); err != nil {
			return nil, err
		}
	}
	b := w.ready[0]
	w.ready[0] = nil
	w.ready = w.ready[1:]
	return b, nil
}

// step reads one input batch, computes the partitions it completes and
// cuts the output that is ready.
func (w *windowAgg) step(ctx context.Context) (err error) {
	if err := checkCtx(ctx); err != nil {
		return err
	}
	b, err := w.child.Next(ctx)
	if err != nil && err != io.EOF {
		return err
	}
	in := newInterrupter(ctx)
	defer catchInterrupt(ctx, &err)
	if err == io.EOF {
		w.childDone = true
		if w.rows > w.partLo {
			if err := w.computePartition(w.partLo, w.rows, in); err != nil {
				return err
			}
			w.partLo = w.rows
		}
		return w.flush()
	}
	if b.NumRows() == 0 {
		b.Release()
		return nil
	}
	e, err := w.addEntry(b)
	if err != nil {
		return err
	}
	for i, f := range e.flags {
		if f&winNewPart != 0 && e.base+int64(i) > w.partLo {
			end := e.base + int64(i)
			if err := w.computePartition(w.partLo, end, in); err != nil {
				return err
			}
			w.partLo = end
		}
	}
	return w.flush()
}

// addEntry buffers b (taking it over): its columns and row flags.
func (w *windowAgg) addEntry(b arrow.RecordBatch) (*winEntry, error) {
	e := &winEntry{b: b, base: w.rows, n: b.NumRows()}
	e.cols = make([]arrow.Array, len(w.cols))
	for i, ev := range w.cols {
		arr, err := ev.eval(b)
		if err != nil {
			e.release()
			return nil, err
		}
		e.cols[i] = arr
	}
	flags, err := w.markBoundaries(b)
	if err != nil {
		e.release()
		return nil, err
	}
	e.flags = flags
	e.bytes = batchBytes(b) + int64(len(flags))
	for i, c := range e.cols {
		if _, isCol := w.cols[i].(*columnEval); !isCol {
			e.bytes += arrayBytes(c)
		}
	}
	if err := w.mem.resize(w.held + e.bytes + w.part.bytes); err != nil {
		e.release()
		return nil, err
	}
	w.held += e.bytes
	w.entries = append(w.entries, e)
	w.rows += e.n
	return e, nil
}

// markBoundaries flags the rows of b that start a partition or a peer
// group, comparing each row with the one before it (the previous
// batch's last row for the first), and keeps b's last row's keys.
func (w *windowAgg) markBoundaries(b arrow.RecordBatch) ([]byte, error) {
	n := int(b.NumRows())
	flags := make([]byte, n)
	part, err := evalAll(w.partKeys, b)
	if err != nil {
		return nil, err
	}
	ord, err := evalAll(w.ordKeys, b)
	if err != nil {
		releaseAll(part)
		return nil, err
	}
	partCmp := pairComparator(w.prevPart, part, w.partSort, w.havePrev)
	ordCmp := pairComparator(w.prevOrd, ord, w.plan.OrderBy, w.havePrev)
	for i := 0; i < n; i++ {
		prev := topEntry{src: 1, row: int32(i - 1)}
		if i == 0 {
			if !w.havePrev {
				flags[0] = winNewPart | winNewPeer
				continue
			}
			prev = topEntry{src: 0}
		}
		cur := topEntry{src: 1, row: int32(i)}
		if partCmp != nil && partCmp(prev, cur) != 0 {
			flags[i] = winNewPart | winNewPeer
		} else if ordCmp != nil && ordCmp(prev, cur) != 0 {
			flags[i] = winNewPeer
		}
	}
	releaseAll(w.prevPart)
	releaseAll(w.prevOrd)
	w.prevPart, w.prevOrd = lastRows(part), lastRows(ord)
	w.havePrev = true
	releaseAll(part)
	releaseAll(ord)
	return flags, nil
}

// pairComparator compares rows of the previous batch's last row (src 0)
// and of the current batch (src 1) under keys; nil without keys.
func pairComparator(prev, cur []arrow.Array, keys []nodes.SortKey, havePrev bool) func(a, b topEntry) int {
	if len(keys) == 0 {
		return nil
	}
	if !havePrev {
		prev = cur // never compared against
	}
	return sourcesComparator([][]arrow.Array{prev, cur}, keys)
}

func evalAll(evs []evaluator, b arrow.RecordBatch) ([]arrow.Array, error) {
	out := make([]arrow.Array, len(evs))
	for i, ev := range evs {
		arr, err := ev.eval(b)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out[i] = arr
	}
	return out, nil
}

// lastRows returns one-row slices of the arrays' last rows.
func lastRows(arrs []arrow.Array) []arrow.Array {
	out := make([]arrow.Array, len(arrs))
	for i, a := range arrs {
		out[i] = array.NewSlice(a, int64(a.Len()-1), int64(a.Len()))
	}
	return out
}

// flush cuts the output batches whose rows all have their results: each
// is a slice of one input batch, at most ec.BatchSize rows.
func (w *windowAgg) flush() error {
	for len(w.entries) > 0 {
		e := w.entries[0]
		end := min(e.base+e.n, w.emitted+int64(w.ec.BatchSize))
		if end > w.computed {
			return nil
		}
		k := int(end - w.emitted)
		cols := make([]arrow.Array, 0, int(e.b.NumCols())+len(w.funcs))
		lo, hi := w.emitted-e.base, end-e.base
		for _, c := range e.b.Columns() {
			if lo == 0 && hi == e.n {
				c.Retain()
				cols = append(cols, c)
			} else {
				cols = append(cols, array.NewSlice(c, lo, hi))
			}
		}
		for _, f := range w.funcs {
			arr, err := f.out.take(k)
			if err != nil {
				releaseAll(cols)
				return err
			}
			cols = append(cols, arr)
		}
		w.ready = append(w.ready, makeBatch(w.schema, cols, k))
		w.emitted = end
		if end == e.base+e.n {
			e.release()
			w.entries[0] = nil
			w.entries = w.entries[1:]
			w.held -= e.bytes
			if err := w.mem.resize(w.held + w.part.bytes); err != nil {
				return err
			}
		}
	}
	return nil
}

// computePartition computes every function over the rows [lo, hi).
func (w *windowAgg) computePartition(lo, hi int64, in *interrupter) error {
	p := &w.part
	if err := w.bindPartition(lo, hi); err != nil {
		return err
	}
	defer func() {
		p.unbind()
		w.mem.resize(w.held) // shrinking: cannot fail
	}()
	for _, f := range w.plain {
		if err := w.computePlain(f, p, in); err != nil {
			return err
		}
	}
	// A RANGE frame with an offset moves its pointers even when no
	// function reads the frame, as ExecWindowAgg does (update_frameheadpos
	// and update_frametailpos for every row): in_range's errors surface.
	if len(w.aggs) > 0 || len(w.values) > 0 || w.frame.rangeCol >= 0 {
		if err := w.computeFramed(p, in); err != nil {
			return err
		}
	}
	w.computed = hi
	return nil
}

// winPart is the partition being computed: its rows' columns and peer
// groups, and the RANGE frame pointers.
type winPart struct {
	n     int
	peers []int    // first row of each peer group, then n
	cols  []winCol // views of the columns the functions read
	owned []arrow.Array
	bytes int64 // of owned (concatenated) columns
	key   rangeKey
	head  int // RANGE offset frame pointers (monotone within a partition)
	tail  int
}

func (p *winPart) unbind() {
	releaseAll(p.owned)
	p.owned = p.owned[:0]
	p.bytes = 0
	for i := range p.cols {
		p.cols[i] = winCol{}
	}
	p.key.reset()
}

// ngroups is the number of peer groups.
func (p *winPart) ngroups() int { return len(p.peers) - 1 }

// winCol is a partition's view of an evaluated column: its row i is row
// off+i of arr.
type winCol struct {
	arr arrow.Array
	off int
}

// bindPartition makes w.part the rows [lo, hi).
func (w *windowAgg) bindPartition(lo, hi int64) error {
	p := &w.part
	p.n = int(hi - lo)
	p.head, p.tail = 0, 0
	first := 0
	for w.entries[first].base+w.entries[first].n <= lo {
		first++
	}
	last := first
	for w.entries[last].base+w.entries[last].n < hi {
		last++
	}
	// Peer groups.
	p.peers = p.peers[:0]
	for i := first; i <= last; i++ {
		e := w.entries[i]
		from, to := max(lo, e.base)-e.base, min(hi, e.base+e.n)-e.base
		for r := from; r < to; r++ {
			if e.flags[r] != 0 || e.base+r == lo {
				p.peers = append(p.peers, int(e.base+r-lo))
			}
		}
	}
	p.peers = append(p.peers, p.n)
	// Columns.
	if cap(p.cols) < len(w.cols) {
		p.cols = make([]winCol, len(w.cols))
	}
	p.cols = p.cols[:len(w.cols)]
	for c := range w.cols {
		if first == last {
			e := w.entries[first]
			p.cols[c] = winCol{arr: e.cols[c], off: int(lo - e.base)}
			continue
		}
		parts := make([]arrow.Array, 0, last-first+1)
		for i := first; i <= last; i++ {
			e := w.entries[i]
			from, to := max(lo, e.base)-e.base, min(hi, e.base+e.n)-e.base
			parts = append(parts, array.NewSlice(e.cols[c], from, to))
		}
		arr, err := array.Concatenate(parts, alloc)
		releaseAll(parts)
		if err != nil {
			return pgerr.Internal("executor: window partition: %v", err)
		}
		p.owned = append(p.owned, arr)
		p.bytes += arrayBytes(arr)
		p.cols[c] = winCol{arr: arr}
	}
	if p.bytes > 0 {
		if err := w.mem.resize(w.held + p.bytes); err != nil {
			return err
		}
	}
	if w.frame.rangeCol >= 0 {
		p.key.bind(p.cols[w.frame.rangeCol], w.colTypes[w.frame.rangeCol])
	}
	return nil
}

// winOut collects a function's results in row order until the output
// batches holding them are cut.
type winOut struct {
	t     types.T
	b     array.Builder
	carry arrow.Array // results built but not yet handed out
}

func newWinOut(t types.T) winOut { return winOut{t: t} }

// builder returns the builder results are appended to.
func (o *winOut) builder() array.Builder {
	if o.b == nil {
		o.b = newBuilder(o.t)
	}
	return o.b
}

// take returns the first k results not yet handed out.
func (o *winOut) take(k int) (arrow.Array, error) {
	if o.b != nil && o.b.Len() > 0 {
		arr := o.b.NewArray()
		if o.carry != nil {
			joined, err := array.Concatenate([]arrow.Array{o.carry, arr}, alloc)
			o.carry.Release()
			arr.Release()
			o.carry = nil
			if err != nil {
				return nil, pgerr.Internal("executor: window results: %v", err)
			}
			arr = joined
		}
		o.carry = arr
	}
	c := o.carry
	if c == nil || c.Len() < k {
		return nil, pgerr.Internal("executor: window results: %d rows wanted", k)
	}
	if c.Len() == k {
		o.carry = nil
		return c, nil
	}
	out := array.NewSlice(c, 0, int64(k))
	o.carry = array.NewSlice(c, int64(k), int64(c.Len()))
	c.Release()
	return out, nil
}

func (o *winOut) release() {
	if o.b != nil {
		o.b.Release()
		o.b = nil
	}
	if o.carry != nil {
		o.carry.Release()
		o.carry = nil
	}
}
