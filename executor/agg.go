package executor

// Agg computes aggregates over its whole input (plain) or per group
// (hashed). It consumes its child completely on the first Next, then
// returns the result in batches. Per batch, it evaluates the group keys
// and the aggregate arguments once, maps each row to a group number
// (a groupTable of flat key vectors, agg_table.go; an encoded-key map for
// key types it does not normalize),
// and lets each aggregate update its per-group state in a loop over the
// batch. Its own output rows are the group keys followed by the
// aggregate results (the planner's Targets and HAVING read those).
//
// A hashed Agg whose groups pass work_mem x hash_mem_multiplier stops
// adding groups and writes the rows of new groups to hash partitions on
// disk, then aggregates each partition in turn (agg_spill.go).
//
// Errors: overflow of an aggregate's result type (sum of bigint that
// exceeds numeric? never; avg never) and errors of the argument
// expressions stop the node. Cancellation is checked between input batches
// by the child.

import (
	"context"
	"encoding/binary"
	"io"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

type aggOp struct {
	plan   *nodes.Agg
	ec     *ExecContext
	child  Operator
	keys   []evaluator
	args   [][]evaluator
	states []aggState
	schema *arrow.Schema

	// table holds the groups when the keys' types suit it (groupTable);
	// otherwise strKeys maps each encoded key to its group and keyVals
	// holds the groups' key datums.
	table    *groupTable
	useTable bool
	strKeys  map[string]int32
	keyVals  [][]any
	ngroups  int
	groupBuf []int32
	keyBuf   []byte

	out  arrow.RecordBatch // result, handed out in slices
	pos  int64
	done bool

	spill aggSpill // hash partitions and memory (agg_spill.go)
	// gsets, when this aggregates one grouping set, is the Agg of all the
	// sets, whose tables share work_mem (agg_grouping_sets.go).
	gsets *groupingSetsAgg

	// combine, when the aggregates combine from their results, is the
	// Agg that combines flushed groups; flushed says groups were written
	// out, combiner then returns the rows (agg_state_spill.go).
	combine    *nodes.Agg
	flushed    bool
	flushTable *groupTable // hashes the flushed keys
	combiner   *aggOp
	combining  bool // this is a combiner
	rowSpill   bool // this pass row-spills (chooseStateSpill)

	selectedBatches int // aggregated from a scan's selection (agg_selected.go)

	stream *aggStream // input sorted by a group key (agg_stream.go)
}

// aggState is the per-group state of one aggregate. update folds nrows
// rows into their groups (groups nil: every row into group 0); ngroups
// is the number of groups so far, which only grows.
type aggState interface {
	update(groups []int32, nrows, ngroups int, args []arrow.Array) error
	result(ngroups int) (arrow.Array, error)
}

func newAgg(p *nodes.Agg, ec *ExecContext) (Operator, error) {
	child, err := Build(p.Child, ec)
	if err != nil {
		return nil, err
	}
	a := &aggOp{plan: p, ec: ec, child: child}
	if err := a.compile(); err != nil {
		child.Close()
		return nil, err
	}
	return a, nil
}

// compile prepares the group keys, the aggregates' arguments and the
// schema of the Agg's own rows.
func (a *aggOp) compile() error {
	p, ec := a.plan, a.ec
	var err error
	if a.keys, err = compileExprs(p.GroupKeys, ec); err != nil {
		return err
	}
	fields := make([]nodes.Field, 0, len(p.GroupKeys)+len(p.Aggs))
	for i, k := range p.GroupKeys {
		fields = append(fields, nodes.Field{Name: "key" + itoa(i), T: k.Type()})
	}
	for i, call := range p.Aggs {
		exprs := call.Args
		for _, k := range call.OrderBy {
			exprs = append(exprs[:len(exprs):len(exprs)], k.Expr)
		}
		if call.Filter != nil { // the last argument: FILTER's mask (filterState)
			exprs = append(exprs[:len(exprs):len(exprs)], call.Filter)
		}
		args, err := compileExprs(exprs, ec)
		if err != nil {
			return err
		}
		a.args = append(a.args, args)
		fields = append(fields, nodes.Field{Name: "agg" + itoa(i), T: call.T})
	}
	a.schema = schemaOf(fields)
	a.useTable = groupTableFits(a.keyTypes())
	if a.useTable {
		a.combine = combinePlan(p)
	}
	return nil
}

func (a *aggOp) Open(ctx context.Context) error {
	a.resetGroups()
	a.done = false
	a.spill.reset(a.ec)
	a.closeCombiner()
	a.closeStream()
	if err := a.child.Open(ctx); err != nil {
		return err
	}
	a.startStream()
	return nil
}

// resetGroups empties the groups and the result, for a new input or
// the next spilled partition.
func (a *aggOp) resetGroups() {
	a.states = make([]aggState, len(a.plan.Aggs))
	for i, call := range a.plan.Aggs {
		a.states[i] = newAggState(call)
	}
	a.releaseTable()
	a.strKeys, a.keyVals, a.ngroups = nil, nil, 0
	a.pos = 0
	if a.out != nil {
		a.out.Release()
		a.out = nil
	}
	if a.plan.Strategy == nodes.AggPlain {
		a.ngroups = 1
	}
}

// releaseTable drops the groupTable.
func (a *aggOp) releaseTable() {
	if a.table != nil {
		a.table.release()
		a.table = nil
	}
}

func (a *aggOp) Close() error {
	a.releaseTable()
	if a.out != nil {
		a.out.Release()
		a.out = nil
	}
	a.spill.reset(nil)
	a.closeCombiner()
	a.closeStream()
	return a.child.Close()
}

// closeCombiner drops the combining Agg and its partitions.
func (a *aggOp) closeCombiner() {
	if a.combiner != nil {
		a.combiner.Close()
		a.combiner = nil
	}
	a.flushed, a.rowSpill = false, false
}

func (a *aggOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if a.stream != nil && !a.stream.hashing {
		return a.nextStreamed(ctx)
	}
	if !a.done {
		var err error
		if src := a.selectedInput(); src != nil {
			err = a.consumeSelected(ctx, src)
		} else {
			err = a.consume(ctx, a.child.Next)
		}
		if err != nil {
			return nil, err
		}
		a.done = true
		if a.flushed {
			if err := a.startCombining(); err != nil {
				return nil, err
			}
		}
		a.explainSpill()
	}
	if a.combiner != nil {
		b, err := a.combiner.Next(ctx)
		if err != nil {
			a.explainSpill()
		}
		return b, err
	}
	for a.out == nil || a.pos >= a.out.NumRows() {
		more, err := a.nextPartition(ctx)
		if err != nil || !more {
			a.explainSpill()
			return nil, cmpEOF(err)
		}
	}
	return a.nextSlice(), nil
}

// nextSlice hands out the next batch of a.out's rows, a slice that
// reads a.out's numeric vectors (noteSlices).
func (a *aggOp) nextSlice() arrow.RecordBatch {
	end := min(a.pos+int64(a.ec.BatchSize), a.out.NumRows())
	s := a.out.NewSlice(a.pos, end)
	noteSlices(a.out, s, int(a.pos))
	a.pos = end
	return s
}

// consume reads the whole input (next: the child's or a partition's)
// and builds the result batch of the groups kept in memory.
func (a *aggOp) consume(ctx context.Context, next func(context.Context) (arrow.RecordBatch, error)) error {
	for {
		b, err := next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		err = a.addBatch(b)
		b.Release()
		if err != nil {
			return err
		}
	}
	return a.endInput()
}

// endInput ends a pass over the input: the groups flushed so far
// written out, the partitions queued, the groups in memory made the
// result.
func (a *aggOp) endInput() error {
	if a.flushed {
		if err := a.flushGroups(); err != nil {
			return err
		}
	}
	if err := a.spill.endPass(); err != nil {
		return err
	}
	return a.buildResult()
}

func (a *aggOp) addBatch(b arrow.RecordBatch) error {
	var groups []int32
	if a.plan.Strategy == nodes.AggHashed {
		a.spill.startBatch(a, int(b.NumRows()))
		var err error
		if groups, err = a.assignGroups(b); err != nil {
			return err
		}
		if a.spill.full && a.statesSpillable() {
			// Decided at the first refused row (none: every row had its
			// group, and the row spill's path keeps them all).
			first := slices.Index(groups, -1)
			switch {
			case a.flushed || first >= 0 && chooseStateSpill(groups, first):
				return a.addBatchFlushing(b, groups)
			case first >= 0:
				a.rowSpill = true
			}
		}
		if a.spill.full {
			kept, groupsKept, err := a.spill.spillNewGroups(a, b, groups)
			if err != nil || kept == nil {
				return err
			}
			defer kept.Release()
			b, groups = kept, groupsKept
		}
	}
	if err := a.updateStates(b, groups); err != nil {
		return err
	}
	if a.plan.Strategy == nodes.AggHashed {
		return a.spill.endBatch(a)
	}
	return nil
}

// updateStates folds the rows of b into their groups' states.
func (a *aggOp) updateStates(b arrow.RecordBatch, groups []int32) error {
	for i, st := range a.states {
		if done, err := updateAggScaled(st, a.args[i], b, groups, a.ngroups, a.ec); done || err != nil {
			if err != nil {
				return err
			}
			continue
		}
		args := make([]arrow.Array, len(a.args[i]))
		for j, ev := range a.args[i] {
			arr, err := ev.eval(b)
			if err != nil {
				releaseAll(args)
				return err
			}
			args[j] = arr
		}
		err := st.update(groups, int(b.NumRows()), a.ngroups, args)
		releaseAll(args)
		if err != nil {
			return err
		}
	}
	return nil
}

func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
}

// assignGroups maps each row of b to its group number, creating groups.
func (a *aggOp) assignGroups(b arrow.RecordBatch) ([]int32, error) {
	keys := make([]arrow.Array, len(a.keys))
	defer releaseAll(keys)
	for i, ev := range a.keys {
		arr, err := ev.eval(b)
		if err != nil {
			return nil, err
		}
		keys[i] = arr
	}
	return a.assignGroupArrays(keys)
}

// assignGroupArrays is assignGroups over the evaluated keys.
func (a *aggOp) assignGroupArrays(keys []arrow.Array) ([]int32, error) {
	n := keys[0].Len()
	if cap(a.groupBuf) < n {
		a.groupBuf = make([]int32, n)
	}
	groups := a.groupBuf[:n]
	if a.useTable {
		if a.table == nil {
			a.table = newGroupTable(a.keyTypes())
		}
		if a.table.fitsArrays(keys) {
			a.table.load(keys)
			a.table.assign(a, groups)
			a.table.keepFirstRows(keys)
			return groups, nil
		}
		if a.ngroups > 0 {
			return nil, pgerr.Internal("executor: group keys of types %v changed form", a.keyTypes())
		}
		a.useTable = false
		a.releaseTable()
	}
	if a.strKeys == nil {
		a.strKeys = map[string]int32{}
	}
	for r := 0; r < n; r++ {
		buf := a.keyBuf[:0]
		for k, arr := range keys {
			buf = encodeKey(buf, a.plan.GroupKeys[k].Type(), types.DatumAt(arr, a.plan.GroupKeys[k].Type(), r))
		}
		a.keyBuf = buf
		g, ok := a.strKeys[string(buf)]
		if !ok && !a.spill.admit(a) {
			a.spill.markRow(r, hashBytes(buf))
			groups[r] = -1
			continue
		}
		if !ok {
			a.spill.keyBytes += int64(len(buf))
			g = int32(a.ngroups)
			a.ngroups++
			a.strKeys[string(buf)] = g
			kv := make([]any, len(keys))
			for k, arr := range keys {
				kv[k] = types.DatumAt(arr, a.plan.GroupKeys[k].Type(), r)
			}
			a.keyVals = append(a.keyVals, kv)
		}
		groups[r] = g
	}
	return groups, nil
}

// intKeyValues widens an integer-like key column to int64 values.
func intKeyValues(arr arrow.Array) ([]int64, bool) {
	switch arr.(type) {
	case *array.Int64, *array.Timestamp:
		return valuesOf[int64](arr), true
	case *array.Int32, *array.Date32:
		return convertSlice[int32, int64](valuesOf[int32](arr)), true
	case *array.Int16:
		return convertSlice[int16, int64](valuesOf[int16](arr)), true
	}
	return nil, false
}

// encodeKey appends a byte encoding of d under which equal values (as
// types.Compare sees them) encode equally.
func encodeKey(buf []byte, t types.T, d any) []byte {
	if d == nil {
		return append(buf, 0)
	}
	buf = append(buf, 1)
	switch v := d.(type) {
	case int64:
		return binary.LittleEndian.AppendUint64(buf, uint64(v))
	case int32:
		return binary.LittleEndian.AppendUint32(buf, uint32(v))
	case float64:
		if v == 0 {
			v = 0
		}
		if math.IsNaN(v) {
			v = math.NaN()
		}
		return binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
	case bool:
		if v {
			return append(buf, 1)
		}
		return append(buf, 0)
	case string:
		if t.ID == types.Bpchar {
			for len(v) > 0 && v[len(v)-1] == ' ' {
				v = v[:len(v)-1]
			}
		}
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(v)))
		return append(buf, v...)
	case types.Interval:
		return types.IntervalKey(buf, v) // '1 mon' = '30 days', as interval_hash
	case *apd.Decimal:
		var r apd.Decimal
		r.Reduce(v)
		s := r.Text('E')
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(s)))
		return append(buf, s...)
	}
	return buf
}

// datumKeyArrays returns the key columns of groups found by encoded key.
func (a *aggOp) datumKeyArrays(n int) []arrow.Array {
	cols := make([]arrow.Array, len(a.plan.GroupKeys))
	for k, key := range a.plan.GroupKeys {
		vals := make([]any, n)
		for g := 0; g < n; g++ {
			vals[g] = a.keyVals[g][k]
		}
		cols[k] = arrayOfDatums(key.Type(), vals)
	}
	return cols
}

func (a *aggOp) keyTypes() []types.T {
	ts := make([]types.T, len(a.plan.GroupKeys))
	for i, k := range a.plan.GroupKeys {
		ts[i] = k.Type()
	}
	return ts
}

func (a *aggOp) buildResult() error {
	n := a.ngroups
	cols := make([]arrow.Array, 0, len(a.keys)+len(a.states))
	if a.table != nil {
		keys, err := a.table.keyArrays()
		if err != nil {
			return err
		}
		cols = append(cols, keys...)
	} else {
		cols = append(cols, a.datumKeyArrays(n)...)
	}
	for _, st := range a.states {
		arr, err := st.result(n)
		if err != nil {
			releaseAll(cols)
			return err
		}
		cols = append(cols, arr)
	}
	if n == 0 {
		releaseAll(cols)
		return nil
	}
	a.out = makeBatch(a.schema, cols, n)
	return nil
}
