package executor

// An Agg over a Seq Scan with a filter reads the scan's batches
// unfiltered, with the filter's selection (selectionSource), instead of
// copies of the rows that pass: it evaluates its group keys and
// arguments over the whole batch, then keeps the selected rows of what
// they computed. Numeric arguments are parsed straight from the stored
// text into scaled vectors and compacted as integers, where the copy
// would have copied every numeric column's text (TPC-H Q1 keeps 98% of
// lineitem).
//
// Exactness: the rows the filter removed must not change anything.
//   - They reach no aggregate state and make no group: the keys are
//     compacted before the groups are assigned, the arguments before the
//     states are updated.
//   - Evaluating an expression over them may fail where PostgreSQL never
//     evaluates it (1 / x behind WHERE x <> 0): every key and argument is
//     evaluated before anything changes, and on any error the batch is
//     aggregated the ordinary way, over a copy of its selected rows, so
//     the statement fails only if that fails.
//   - Expressions with volatile functions or SubPlans (which evaluating
//     more rows would change or slow) keep the ordinary way.

import (
	"context"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/funcs"
	"github.com/pgfed/pgfed/nodes"
)

// selectionSource is an operator that can return a batch with the rows
// its filter passes as a selection (sel nil: every row; never empty),
// valid until the next call, instead of a filtered copy.
type selectionSource interface {
	canSelect() bool
	nextSelected(ctx context.Context) (arrow.RecordBatch, []int32, error)
}

var (
	_ selectionSource = (*seqScan)(nil)
	_ selectionSource = (*instrumented)(nil)
)

// canSelect: a filter without a projection (whose targets would be
// evaluated over the rows it removes).
func (s *seqScan) canSelect() bool {
	return s.qual != nil && s.qual.filter != nil && s.qual.targets == nil && !s.system
}

func (s *seqScan) nextSelected(ctx context.Context) (arrow.RecordBatch, []int32, error) {
	for {
		b, err := s.nextFiltered(ctx)
		if err != nil {
			return nil, nil, err
		}
		sel, all, err := s.qual.selectRows(b)
		if err != nil {
			b.Release()
			return nil, nil, err
		}
		if all {
			return b, nil, nil
		}
		if len(sel) > 0 {
			return b, sel, nil
		}
		b.Release()
	}
}

func (w *instrumented) canSelect() bool {
	src, ok := w.Operator.(selectionSource)
	return ok && src.canSelect()
}

func (w *instrumented) nextSelected(ctx context.Context) (arrow.RecordBatch, []int32, error) {
	var start time.Time
	if w.timing {
		start = time.Now()
	}
	b, sel, err := w.Operator.(selectionSource).nextSelected(ctx)
	if w.timing {
		w.stats.AddTime(time.Since(start))
	}
	if b != nil {
		rows := b.NumRows()
		if sel != nil {
			rows = int64(len(sel))
		}
		w.stats.Rows += rows
		w.stats.Batches++
	}
	return b, sel, err
}

// selectedInput is the child as a selectionSource, when the Agg may read
// it so (the package comment's conditions), else nil.
func (a *aggOp) selectedInput() selectionSource {
	src, ok := a.child.(selectionSource)
	if !ok || !src.canSelect() || a.gsets != nil || !scaledVectors {
		return nil
	}
	exprs := append([]nodes.Expr(nil), a.plan.GroupKeys...)
	for _, call := range a.plan.Aggs {
		exprs = append(exprs, call.Args...)
		for _, k := range call.OrderBy {
			exprs = append(exprs, k.Expr)
		}
		if call.Filter != nil {
			exprs = append(exprs, call.Filter)
		}
	}
	for _, e := range exprs {
		if !evaluableOverMoreRows(e) {
			return nil
		}
	}
	return src
}

// evaluableOverMoreRows reports whether e may be evaluated over rows the
// filter removed: no volatile function, no SubPlan.
func evaluableOverMoreRows(e nodes.Expr) bool {
	ok := true
	nodes.WalkExpr(e, func(x nodes.Expr) {
		switch y := x.(type) {
		case *nodes.SubPlan:
			ok = false
		case *nodes.FuncExpr:
			if f := funcs.Lookup(y.Name); f == nil || volatileCall(f, y) {
				ok = false
			}
		}
	})
	return ok
}

// consumeSelected is consume over a selectionSource.
func (a *aggOp) consumeSelected(ctx context.Context, src selectionSource) error {
	for {
		b, sel, err := src.nextSelected(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if sel == nil {
			err = a.addBatch(b)
		} else {
			err = a.addSelected(b, sel)
		}
		b.Release()
		if err != nil {
			return err
		}
	}
	return a.endInput()
}

// selectedMinShare is the percentage of a batch's rows that must pass
// for its selection to be aggregated in place.
const selectedMinShare = 50

// selectedArgs is one aggregate's arguments: a scaled vector of every
// row of the batch for a numeric sum or avg, else arrays of the selected
// rows.
type selectedArgs struct {
	scaled *scaledVec
	arrays []arrow.Array
}

// addSelected aggregates the rows sel of b: keys and arguments evaluated
// over b, then compacted. On an error, or when the table is full (the
// spill writes input rows), the batch goes the ordinary way.
func (a *aggOp) addSelected(b arrow.RecordBatch, sel []int32) error {
	if len(sel) < int(b.NumRows())*selectedMinShare/100 {
		// Few rows pass: copying them costs less than evaluating all.
		return a.addCopy(b, sel)
	}
	keys, args, ok := a.evalSelected(b, sel)
	defer releaseSelected(keys, args)
	if !ok || a.spill.full {
		return a.addCopy(b, sel)
	}
	var groups []int32
	if a.plan.Strategy == nodes.AggHashed {
		a.spill.startBatch(a, len(sel))
		var err error
		if groups, err = a.assignGroupsSelected(keys, sel); err != nil {
			return err
		}
		if a.spill.full {
			// Assigning again finds the groups made: the copy's rows
			// take the ordinary way, spill included.
			return a.addCopy(b, sel)
		}
	}
	for i, st := range a.states {
		var err error
		if sa := args[i]; sa.scaled != nil {
			err = st.(*numericSumState).updateScaledSel(groups, a.ngroups, sa.scaled, sel)
		} else {
			err = st.update(groups, len(sel), a.ngroups, sa.arrays)
		}
		if err != nil {
			return err
		}
	}
	a.selectedBatches++
	if a.plan.Strategy == nodes.AggHashed {
		return a.spill.endBatch(a)
	}
	return nil
}

// addCopy is addBatch over a copy of the rows sel of b.
func (a *aggOp) addCopy(b arrow.RecordBatch, sel []int32) error {
	c := takeBatch(b, sel)
	defer c.Release()
	return a.addBatch(c)
}

// assignGroupsSelected is assignGroupArrays for the rows sel of keys,
// which the group table reads in place; other keys are compacted first.
func (a *aggOp) assignGroupsSelected(keys []arrow.Array, sel []int32) ([]int32, error) {
	if !a.useTable || a.table == nil || !a.table.fitsArrays(keys) {
		taken := make([]arrow.Array, len(keys))
		for i, k := range keys {
			taken[i] = takeArray(k, sel)
		}
		defer releaseAll(taken)
		return a.assignGroupArrays(taken)
	}
	if cap(a.groupBuf) < len(sel) {
		a.groupBuf = make([]int32, len(sel))
	}
	groups := a.groupBuf[:len(sel)]
	a.table.loadSelected(keys, sel)
	a.table.assign(a, groups)
	a.table.keepFirstRowsSelected(keys, sel)
	return groups, nil
}

// evalSelected evaluates the keys (every row of b) and every aggregate's
// arguments over b, keeping the arguments' rows sel; ok is false when an
// evaluation failed.
func (a *aggOp) evalSelected(b arrow.RecordBatch, sel []int32) ([]arrow.Array, []selectedArgs, bool) {
	var keys []arrow.Array
	for _, ev := range a.keys {
		arr, err := ev.eval(b)
		if err != nil {
			return keys, nil, false
		}
		keys = append(keys, arr)
	}
	args := make([]selectedArgs, len(a.states))
	for i, st := range a.states {
		if v, ok, err := evalScaledArg(st, a.args[i], b, a.ec); err != nil {
			return keys, args, false
		} else if ok {
			args[i].scaled = v // its rows sel are read in place
			continue
		}
		for _, ev := range a.args[i] {
			arr, err := ev.eval(b)
			if err != nil {
				return keys, args, false
			}
			args[i].arrays = append(args[i].arrays, takeArray(arr, sel))
			arr.Release()
		}
	}
	return keys, args, true
}

func releaseSelected(keys []arrow.Array, args []selectedArgs) {
	releaseAll(keys)
	for _, sa := range args {
		releaseAll(sa.arrays)
	}
}
