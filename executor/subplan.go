package executor

// SubPlans (nodes.SubPlan): subqueries in expressions that run for the
// rows reaching them, as PostgreSQL's nodeSubplan.c.
//
// Protocol: the evaluator of a SubPlan evaluates its Args over the outer
// batch (vectorized), then, row by row, sets the subquery's Params in a
// layer of its own over the statement's values (subplan Params never
// leak to other evaluators, or between parallel copies), builds the
// subquery's operators afresh, runs them as far as the SubPlan's kind
// needs (a scalar subquery to its second row, 21000; EXISTS to its first;
// ANY / ALL until the answer is known) and closes them. A run's counters
// go to the subquery's nodes (loops = runs, as PostgreSQL's rescans).
//
//   - Reuse: a subquery without volatile functions gives the same answer
//     for the same Params, so a correlated SubPlan keeps the answers per
//     distinct Args (up to subPlanCacheEntries), and an uncorrelated ANY
//     / ALL keeps the subquery's rows (up to work_mem; beyond it, it runs
//     the subquery again per row), or, hashed, a hash set of the values
//     (up to work_mem x hash_mem_multiplier; beyond it, as unhashed).
//   - Context: evaluators have no context of their own; the operator of
//     the node whose expressions hold the SubPlan (subPlanHost, set up by
//     Build) hands its Open / Next context to them, so that cancelling
//     the statement cancels a subquery mid-run.
//   - Teardown: the host's Close releases the kept rows and constants.
//
// The planner keeps nodes holding SubPlans out of parallel plans and
// async foreign fetchers, so every evaluation runs on the goroutine of
// its host.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// subPlanCacheEntries bounds the answers a correlated SubPlan keeps.
const subPlanCacheEntries = 1 << 16

// hashedParam is the Param an unhashed fallback of a hashed SubPlan
// binds the left-hand value to.
const hashedParam = -1

type subPlanEval struct {
	sp     *nodes.SubPlan
	args   []evaluator
	argT   []types.T
	ec     *ExecContext // the subquery's: the statement's, with params
	params *paramValues
	ctx    context.Context
	test   evaluator // ANY / ALL over a subquery batch; nil when hashed

	cache map[string]any
	// correlated: the subquery reads outer values (sp.Correlated), so it
	// runs per distinct Args; else its rows are kept once.
	correlated bool

	// An uncorrelated subquery's rows, once run (keptAll: all of them).
	kept      []arrow.RecordBatch
	keptBytes int64
	ran       bool
	keptAll   bool

	// Hashed: the set of the subquery's values, and whether it had a NULL
	// or any row at all.
	hashLeft, hashRight evaluator
	set                 map[string]struct{}
	setNull, setRows    bool
	hashed, hashedOK    bool
}

func compileSubPlan(sp *nodes.SubPlan, ec *ExecContext) (evaluator, error) {
	params := &paramValues{parent: ec.params}
	sub := *ec
	sub.params, sub.consts, sub.subPlans = params, nil, nil
	s := &subPlanEval{sp: sp, ec: &sub, params: params}
	var err error
	if s.args, err = compileExprs(sp.Args, ec); err != nil {
		return nil, err
	}
	for _, a := range sp.Args {
		s.argT = append(s.argT, a.Type())
	}
	test := sp.Test
	// The test and the hashed right side read the Params of the row of
	// the subquery at hand: one value per row.
	s.ec.paramsVary = true
	defer func() { s.ec.paramsVary = false }()
	if sp.Hashed {
		if s.hashLeft, err = compileExpr(sp.HashLeft, ec); err != nil {
			return nil, err
		}
		if s.hashRight, err = compileExpr(sp.HashRight, s.ec); err != nil {
			return nil, err
		}
		test = &nodes.OpExpr{Op: "=", Left: &nodes.Param{ID: hashedParam, T: sp.HashLeft.Type()}, Right: sp.HashRight, T: types.BoolT}
	}
	if test != nil {
		if s.test, err = compileExpr(test, s.ec); err != nil {
			return nil, err
		}
	}
	s.correlated = sp.Correlated()
	if !sp.Volatile && s.correlated {
		s.cache = map[string]any{}
	}
	ec.subPlans = append(ec.subPlans, s)
	return s, nil
}

func (s *subPlanEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	if s.ctx == nil {
		return nil, pgerr.Internal("executor: %s evaluated outside its node", s.sp.Name())
	}
	if s.sp.Hashed {
		return s.evalHashed(b)
	}
	args := make([]arrow.Array, len(s.args))
	defer releaseAll(args)
	for i, ev := range s.args {
		a, err := ev.eval(b)
		if err != nil {
			return nil, err
		}
		args[i] = a
	}
	n := int(b.NumRows())
	bld := newBuilder(s.sp.T)
	defer bld.Release()
	bld.Reserve(n)
	var key []byte
	for r := 0; r < n; r++ {
		key = key[:0]
		for i, a := range args {
			v := types.DatumAt(a, s.argT[i], r)
			s.params.set(s.sp.Params[i], v)
			if s.cache != nil {
				key = encodeKey(key, s.argT[i], v)
			}
		}
		v, err := s.answer(key)
		if err != nil {
			return nil, err
		}
		appendDatum(bld, s.sp.T, v)
	}
	return bld.NewArray(), nil
}

// answer is the SubPlan's value for the Params set, reused when the
// same Args were seen before.
func (s *subPlanEval) answer(key []byte) (any, error) {
	if s.cache != nil {
		if v, ok := s.cache[string(key)]; ok {
			return v, nil
		}
	}
	var v any
	var err error
	if s.correlated || s.sp.Volatile {
		v, err = s.run(s.ctx)
	} else {
		v, err = s.fromKept()
	}
	if err != nil {
		return nil, err
	}
	if s.cache != nil && len(s.cache) < subPlanCacheEntries {
		s.cache[string(key)] = v
	}
	return v, nil
}

// run runs the subquery once, with the Params set, to its answer.
func (s *subPlanEval) run(ctx context.Context) (any, error) {
	if err := checkCtx(ctx); err != nil {
		return nil, err
	}
	acc := newSubLinkAcc(s.sp)
	err := s.scan(ctx, func(b arrow.RecordBatch) (bool, error) {
		defer b.Release()
		err := s.accumulate(acc, b)
		return acc.done, err
	})
	if err != nil {
		return nil, err
	}
	return acc.result(), nil
}

// scan runs the subquery once, handing each batch to each (which owns it)
// until it says stop, and closes it.
func (s *subPlanEval) scan(ctx context.Context, each func(arrow.RecordBatch) (stop bool, err error)) error {
	rec := *s.ec
	rec.consts = nil
	defer rec.Release()
	op, err := Build(s.sp.Plan, &rec)
	if err != nil {
		return err
	}
	defer op.Close()
	if err := op.Open(ctx); err != nil {
		return err
	}
	for {
		b, err := op.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if stop, err := each(b); stop || err != nil {
			return err
		}
	}
}

// fromKept answers an uncorrelated ANY / ALL from the subquery's rows,
// run once and kept while they fit in work_mem (else run again).
func (s *subPlanEval) fromKept() (any, error) {
	if !s.ran {
		s.ran = true
		if err := s.keep(); err != nil {
			return nil, err
		}
	}
	if !s.keptAll {
		return s.run(s.ctx)
	}
	acc := newSubLinkAcc(s.sp)
	for _, b := range s.kept {
		if acc.done {
			break
		}
		if err := s.accumulate(acc, b); err != nil {
			return nil, err
		}
	}
	return acc.result(), nil
}

// keep runs the subquery and keeps its batches, up to work_mem.
func (s *subPlanEval) keep() error {
	limit, tooBig := s.ec.workMem(), false
	err := s.scan(s.ctx, func(b arrow.RecordBatch) (bool, error) {
		s.kept = append(s.kept, b)
		s.keptBytes += batchBytes(b)
		tooBig = s.keptBytes > limit
		return tooBig, nil
	})
	if err != nil || tooBig {
		s.dropKept()
		return err
	}
	s.keptAll = true
	return nil
}

func (s *subPlanEval) dropKept() {
	for _, b := range s.kept {
		b.Release()
	}
	s.kept, s.keptBytes, s.keptAll = nil, 0, false
}

// accumulate folds one batch of the subquery's rows into acc.
func (s *subPlanEval) accumulate(acc *subLinkAcc, b arrow.RecordBatch) error {
	switch s.sp.Kind {
	case nodes.SubLinkExpr:
		return acc.addRows(b, s.sp.Plan.Base().Out[0].T)
	case nodes.SubLinkExists:
		acc.value, acc.done = true, true
		return nil
	}
	res, err := s.test.eval(b)
	if err != nil {
		return err
	}
	defer res.Release()
	acc.addTests(res)
	return nil
}

// evalHashed answers IN for each outer row from the hash set of the
// subquery's values, built at the first batch; a set beyond work_mem x
// hash_mem_multiplier is dropped and the subquery runs per row instead.
func (s *subPlanEval) evalHashed(b arrow.RecordBatch) (arrow.Array, error) {
	if !s.hashed {
		s.hashed = true
		if err := s.buildSet(); err != nil {
			return nil, err
		}
	}
	left, err := s.hashLeft.eval(b)
	if err != nil {
		return nil, err
	}
	defer left.Release()
	t := s.sp.HashLeft.Type()
	n := int(b.NumRows())
	bld := newBuilder(types.BoolT)
	defer bld.Release()
	bld.Reserve(n)
	var key []byte
	for r := 0; r < n; r++ {
		v := types.DatumAt(left, t, r)
		if !s.hashedOK {
			s.params.set(hashedParam, v)
			ans, err := s.run(s.ctx)
			if err != nil {
				return nil, err
			}
			appendDatum(bld, types.BoolT, ans)
			continue
		}
		var ans any
		switch key = encodeKey(key[:0], t, v); {
		case v == nil:
			ans = false
			if s.setRows {
				ans = nil
			}
		case hasKey(s.set, key):
			ans = true
		case s.setNull:
			ans = nil
		default:
			ans = false
		}
		appendDatum(bld, types.BoolT, ans)
	}
	return bld.NewArray(), nil
}

func hasKey(set map[string]struct{}, key []byte) bool {
	_, ok := set[string(key)]
	return ok
}

// buildSet runs the subquery once into the hash set of its values.
func (s *subPlanEval) buildSet() error {
	s.set = map[string]struct{}{}
	t := s.sp.HashRight.Type()
	limit, used := s.ec.hashMem(), int64(0)
	var key []byte
	err := s.scan(s.ctx, func(b arrow.RecordBatch) (bool, error) {
		vals, err := s.hashRight.eval(b)
		b.Release()
		if err != nil {
			return true, err
		}
		defer vals.Release()
		s.setRows = true
		for r := 0; r < vals.Len(); r++ {
			v := types.DatumAt(vals, t, r)
			if v == nil {
				s.setNull = true
				continue
			}
			key = encodeKey(key[:0], t, v)
			if !hasKey(s.set, key) {
				s.set[string(key)] = struct{}{}
				used += int64(len(key)) + 48 // the map entry's own share
			}
		}
		return used > limit, nil
	})
	if err != nil || used > limit {
		s.set, s.setNull, s.setRows = nil, false, false
		return err // hashedOK stays false: run per row
	}
	s.hashedOK = true
	return nil
}

// close releases what the evaluator kept.
func (s *subPlanEval) close() {
	s.dropKept()
	s.set = nil
	s.ec.Release()
}

// subLinkAcc is the answer of one run of a SubPlan as its rows arrive.
type subLinkAcc struct {
	kind    nodes.SubLinkKind
	value   any
	rows    int
	sawNull bool
	done    bool
}

func newSubLinkAcc(sp *nodes.SubPlan) *subLinkAcc {
	a := &subLinkAcc{kind: sp.Kind}
	switch sp.Kind {
	case nodes.SubLinkExists, nodes.SubLinkAny:
		a.value = false
	case nodes.SubLinkAll:
		a.value = true
	}
	return a
}

func (a *subLinkAcc) addRows(b arrow.RecordBatch, t types.T) error {
	if a.rows+int(b.NumRows()) > 1 {
		return pgerr.New(pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
	}
	if b.NumRows() == 1 {
		a.value = types.DatumAt(b.Column(0), t, 0)
	}
	a.rows += int(b.NumRows())
	return nil
}

// addTests folds Test's results over a batch: ANY stops at a true, ALL
// at a false; NULLs make the answer NULL if nothing decides it.
func (a *subLinkAcc) addTests(res arrow.Array) {
	decides := a.kind == nodes.SubLinkAny
	vals := res.(interface{ Value(int) bool })
	for i := 0; i < res.Len(); i++ {
		if res.IsNull(i) {
			a.sawNull = true
			continue
		}
		if vals.Value(i) == decides {
			a.value, a.done = decides, true
			return
		}
	}
}

func (a *subLinkAcc) result() any {
	if (a.kind == nodes.SubLinkAny || a.kind == nodes.SubLinkAll) && !a.done && a.sawNull {
		return nil
	}
	return a.value
}

// subPlanHost is the operator of a node whose expressions hold SubPlans:
// it gives them the context of each call and releases them at Close.
type subPlanHost struct {
	Operator
	evals []*subPlanEval
}

func (h *subPlanHost) setCtx(ctx context.Context) {
	for _, e := range h.evals {
		e.ctx = ctx
	}
}

func (h *subPlanHost) Open(ctx context.Context) error {
	h.setCtx(ctx)
	return h.Operator.Open(ctx)
}

func (h *subPlanHost) Next(ctx context.Context) (arrow.RecordBatch, error) {
	h.setCtx(ctx)
	return h.Operator.Next(ctx)
}

func (h *subPlanHost) Close() error {
	err := h.Operator.Close()
	for _, e := range h.evals {
		e.close()
	}
	return err
}
