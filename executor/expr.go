package executor

// Expression evaluation. compileExpr turns a nodes.Expr into an evaluator
// tree once per operator; eval then runs over whole batches. Hot shapes
// (integer and float arithmetic and comparison, boolean logic, IS NULL)
// run as typed loops over Arrow buffers; everything else falls back to a
// row-at-a-time loop over datums (package types), which is correct for
// every type and fast enough off the hot path.
//
// Errors: evaluation errors are *pgerr.Error (22003, 22012, 22P02 ...).
// Lazy constructs (CASE, COALESCE, AND, OR) evaluate an argument only on
// the rows that need it, so `CASE WHEN b = 0 THEN 0 ELSE a / b END` does
// not divide by zero, as in PostgreSQL.

import (
	"math/bits"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// evaluator computes an expression over a batch; the result has one row
// per row of the batch and is owned by the caller.
type evaluator interface {
	eval(b arrow.RecordBatch) (arrow.Array, error)
}

// checkResultTypes makes every compiled evaluator check that the array it
// returns has the Arrow type of its expression's SQL type. It is on in
// tests, where a kernel or a plan with inconsistent types then fails with
// XX000 at the node that went wrong instead of somewhere downstream (or
// not at all). Column reads and valuesOf check their types always.
var checkResultTypes = testing.Testing()

// compileExpr turns e into an evaluator.
func compileExpr(e nodes.Expr, ec *ExecContext) (evaluator, error) {
	if !ec.noFold && !ec.paramsVary && bindsParams(e) { // param_bind.go
		return &paramBoundEval{expr: e, ec: ec}, nil
	}
	return compileWritten(e, ec)
}

// compileWritten compiles e as it is written (Params read as Params).
func compileWritten(e nodes.Expr, ec *ExecContext) (evaluator, error) {
	ev, err := compileNode(e, ec)
	if err != nil || !checkResultTypes {
		return ev, err
	}
	return &checkedEval{ev: ev, want: e.Type().ArrowType(), expr: e}, nil
}

// checkedEval is an evaluator whose results are checked against the type
// the plan gives its expression (see checkResultTypes).
type checkedEval struct {
	ev   evaluator
	want arrow.DataType
	expr nodes.Expr
}

func (c *checkedEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	arr, err := c.ev.eval(b)
	if err != nil {
		return nil, err
	}
	if !arrow.TypeEqual(arr.DataType(), c.want) || arr.Len() != int(b.NumRows()) {
		defer arr.Release()
		return nil, pgerr.Internal("executor: %s evaluated to %d rows of %s, the plan says %d rows of %s",
			c.expr, arr.Len(), arr.DataType(), b.NumRows(), c.want)
	}
	return arr, nil
}

func compileNode(e nodes.Expr, ec *ExecContext) (evaluator, error) {
	if !ec.noFold && foldable(e) {
		if ev, ok := compileFolded(e, ec); ok {
			return ev, nil
		}
	}
	switch x := e.(type) {
	case *nodes.ColumnRef:
		return &columnEval{idx: x.Index, want: x.T.ArrowType().ID(), ref: x}, nil
	case *nodes.Param:
		if ec.params == nil {
			ec.params = &paramValues{}
		}
		return &paramEval{p: x, values: ec.params}, nil
	case *nodes.SubPlan:
		return compileSubPlan(x, ec)
	case *nodes.Const:
		c := &constEval{t: x.T, v: x.Value}
		ec.consts = append(ec.consts, c)
		return c, nil
	case *nodes.BoolExpr:
		args, err := compileExprs(x.Args, ec)
		if err != nil {
			return nil, err
		}
		reads := make([][]int, len(x.Args))
		wholeOK := make([]bool, len(x.Args))
		for i, a := range x.Args {
			reads[i] = columnsRead(a)
			wholeOK[i] = evaluableOverMoreRows(a)
		}
		return &boolEval{op: x.Op, args: args, reads: reads, wholeOK: wholeOK}, nil
	case *nodes.NullTest:
		arg, err := compileExpr(x.Arg, ec)
		if err != nil {
			return nil, err
		}
		return &nullTestEval{arg: arg, not: x.IsNot}, nil
	case *nodes.OpExpr:
		return compileOp(x, ec)
	case *nodes.CaseExpr:
		return compileCase(x, ec)
	case *nodes.CoalesceExpr:
		args, err := compileExprs(x.Args, ec)
		if err != nil {
			return nil, err
		}
		return &coalesceEval{args: args, t: x.T}, nil
	case *nodes.Cast:
		return compileCast(x, ec)
	case *nodes.FuncExpr:
		return compileFunc(x, ec)
	case *nodes.DistinctExpr:
		return compileRowwise([]nodes.Expr{x.Left, x.Right}, types.BoolT, false, ec, func(a []any) (any, error) {
			t := x.Left.Type()
			var distinct bool
			switch {
			case a[0] == nil && a[1] == nil:
				distinct = false
			case a[0] == nil || a[1] == nil:
				distinct = true
			default:
				distinct = types.Compare(t, a[0], a[1]) != 0
			}
			return distinct != x.Not, nil
		})
	case *nodes.InList:
		return compileInList(x, ec)
	case *nodes.NullIfExpr:
		t := x.Left.Type()
		return compileRowwise([]nodes.Expr{x.Left, x.Right}, x.T, false, ec, func(a []any) (any, error) {
			if a[0] != nil && a[1] != nil && types.Compare(t, a[0], a[1]) == 0 {
				return nil, nil
			}
			return a[0], nil
		})
	case *nodes.MinMaxExpr:
		return compileRowwise(x.Args, x.T, false, ec, func(a []any) (any, error) {
			var best any
			for _, v := range a {
				if v == nil {
					continue
				}
				if best == nil {
					best = v
					continue
				}
				c := types.Compare(x.T, v, best)
				if (x.Greatest && c > 0) || (!x.Greatest && c < 0) {
					best = v
				}
			}
			return best, nil
		})
	}
	return nil, pgerr.Internal("executor: cannot evaluate %T", e)
}

func compileExprs(es []nodes.Expr, ec *ExecContext) ([]evaluator, error) {
	out := make([]evaluator, len(es))
	for i, e := range es {
		ev, err := compileExpr(e, ec)
		if err != nil {
			return nil, err
		}
		out[i] = ev
	}
	return out, nil
}

// EvalConst evaluates an expression without input columns (LIMIT counts,
// VALUES rows, DEFAULTs) to a datum.
func EvalConst(e nodes.Expr, ec *ExecContext) (any, error) { return evalConstWith(e, ec) }

// evalConstWith is EvalConst; its own compilation does not fold (it is
// the folding).
func evalConstWith(e nodes.Expr, ec *ExecContext) (any, error) {
	// A private context, so that the constants compiled here are released
	// here and not kept for the whole statement.
	sub := &ExecContext{Now: ec.Now, BatchSize: ec.BatchSize, params: ec.params, noFold: true}
	defer sub.Release()
	ev, err := compileExpr(e, sub)
	if err != nil {
		return nil, err
	}
	b := oneRowBatch()
	defer b.Release()
	arr, err := ev.eval(b)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	return types.DatumAt(arr, e.Type(), 0), nil
}

var emptySchema = arrow.NewSchema(nil, nil)

// oneRowBatch is a batch of one row and no columns.
func oneRowBatch() arrow.RecordBatch { return array.NewRecordBatch(emptySchema, nil, 1) }

// columnEval reads an input column. It checks that the column has the
// type the plan says: kernels above it choose their loops by the plan's
// type, so a column of another width would be read as the wrong values.
type columnEval struct {
	idx  int
	want arrow.Type
	ref  *nodes.ColumnRef
}

func (c *columnEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	if c.idx < 0 || c.idx >= int(b.NumCols()) {
		return nil, pgerr.Internal("executor: column %d (%s) of a %d-column input", c.idx, c.ref, b.NumCols())
	}
	col := b.Column(c.idx)
	if col.DataType().ID() != c.want {
		return nil, pgerr.Internal("executor: column %d (%s) holds %s, the plan says %s", c.idx, c.ref, col.DataType(), c.ref.T)
	}
	col.Retain()
	return col, nil
}

// constEval materializes its constant once per batch length and reuses it.
type constEval struct {
	t     types.T
	v     any
	cache arrow.Array
}

func (c *constEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	n := int(b.NumRows())
	if c.cache == nil || c.cache.Len() != n {
		if c.cache != nil {
			c.cache.Release()
		}
		c.cache = constArray(c.t, c.v, n)
	}
	c.cache.Retain()
	return c.cache, nil
}

// boolEval is AND / OR / NOT with SQL's three-valued logic. For AND and OR
// each argument after the first is evaluated only on rows whose outcome is
// still open.
type boolEval struct {
	op   nodes.BoolOp
	args []evaluator
	// reads are the input columns each argument reads: an argument that
	// sees only the undecided rows gets those columns of them, not a
	// copy of the whole batch.
	reads [][]int
	// wholeOK: the argument may be evaluated over rows already decided
	// (no SubPlan, nothing volatile), which, with half the rows or more
	// undecided, costs less than copying them for it; an error there
	// sends it back to the undecided rows alone, where PostgreSQL would
	// evaluate it.
	wholeOK []bool
}

// columnsRead lists the input columns e reads.
func columnsRead(e nodes.Expr) []int {
	var cols []int
	nodes.WalkExpr(e, func(x nodes.Expr) {
		if c, ok := x.(*nodes.ColumnRef); ok && !slices.Contains(cols, c.Index) {
			cols = append(cols, c.Index)
		}
	})
	return cols
}

// takeReadColumns is takeBatch of only the columns cols: the others become
// null-typed placeholders without buffers.
func takeReadColumns(b arrow.RecordBatch, rows []int32, cols []int) arrow.RecordBatch {
	n := len(rows)
	fields := make([]arrow.Field, b.NumCols())
	arrs := make([]arrow.Array, b.NumCols())
	for i := range arrs {
		if slices.Contains(cols, i) {
			fields[i] = b.Schema().Field(i)
			arrs[i] = takeArray(b.Column(i), rows)
		} else {
			fields[i] = arrow.Field{Name: b.Schema().Field(i).Name, Type: arrow.Null, Nullable: true}
			arrs[i] = array.NewNull(n)
		}
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(n))
	for _, a := range arrs {
		a.Release()
	}
	return out
}

func (e *boolEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	first, err := e.args[0].eval(b)
	if err != nil {
		return nil, err
	}
	acc := first.(*array.Boolean)
	n := acc.Len()
	if e.op == nodes.Not {
		defer acc.Release()
		bits := make([]byte, bitutil.BytesForBits(int64(n)))
		src := boolBits(acc)
		for i := range bits {
			bits[i] = ^src[i]
		}
		v := validity(acc)
		var vc []byte
		if v != nil {
			vc = append([]byte(nil), v...)
		}
		return newBoolArray(bits, n, vc, acc.NullN()), nil
	}
	return e.evalAndOr(b, acc)
}

// evalAndOr runs AND or OR over bitmaps: decided marks the rows whose
// outcome is settled (a false for AND, a true for OR), sawNull those
// where an argument was NULL. Each argument after the first sees only the
// rows not yet decided.
func (e *boolEval) evalAndOr(b arrow.RecordBatch, first *array.Boolean) (arrow.Array, error) {
	isAnd := e.op == nodes.And
	n := first.Len()
	nb := int(bitutil.BytesForBits(int64(n)))
	decided := make([]byte, nb)
	sawNull := make([]byte, nb)
	absorbAll(first, isAnd, decided, sawNull)
	first.Release()
	var open []int32
	for k, arg := range e.args[1:] {
		undecided := n - bitutil.CountSetBits(decided, 0, n)
		if undecided == 0 {
			break
		}
		if undecided < n && 4*undecided >= n {
			all, ok, err := evalOnAll(arg, b)
			if err != nil {
				return nil, err
			}
			if ok {
				absorbAll(all, isAnd, decided, sawNull)
				all.Release()
				continue
			}
			// Half the rows or more: evaluating the rest costs at most
			// as much again as the copy it saves (an expensive arm, a
			// regular expression, is not worth it on fewer).
			if e.wholeOK[k+1] && filterInPlace && 2*undecided >= n {
				if arr, err := arg.eval(b); err == nil {
					absorbAll(arr.(*array.Boolean), isAnd, decided, sawNull)
					arr.Release()
					continue
				}
			}
		}
		if undecided == n {
			arr, err := arg.eval(b)
			if err != nil {
				return nil, err
			}
			absorbAll(arr.(*array.Boolean), isAnd, decided, sawNull)
			arr.Release()
			continue
		}
		open = undecidedRows(decided, n, open[:0])
		arr, err := evalOnRows(arg, b, open, e.reads[k+1])
		if err != nil {
			return nil, err
		}
		absorbRows(arr.(*array.Boolean), open, isAnd, decided, sawNull)
		arr.Release()
	}
	// Decided rows have their value; the others are NULL if an argument
	// was, else the operator's identity (true for AND, false for OR).
	vals := make([]byte, nb)
	valid := make([]byte, nb)
	for i := range vals {
		valid[i] = decided[i] | ^sawNull[i]
		if isAnd {
			vals[i] = ^decided[i] & valid[i]
		} else {
			vals[i] = decided[i]
		}
	}
	nulls := n - bitutil.CountSetBits(valid, 0, n)
	if nulls == 0 {
		valid = nil
	}
	return newBoolArray(vals, n, valid, nulls), nil
}

// absorbAll folds an argument evaluated on every row into decided and
// sawNull, a byte (eight rows) at a time.
func absorbAll(arr *array.Boolean, isAnd bool, decided, sawNull []byte) {
	bits := boolBits(arr)
	v := validity(arr)
	for i := range decided {
		valid := byte(0xFF)
		if v != nil {
			valid = v[i]
		}
		val := bits[i]
		if isAnd {
			val = ^val
		}
		decided[i] |= valid & val
		sawNull[i] |= ^valid
	}
}

// absorbRows is absorbAll for an argument evaluated on the rows rows.
func absorbRows(arr *array.Boolean, rows []int32, isAnd bool, decided, sawNull []byte) {
	bits := boolBits(arr)
	v := validity(arr)
	for k, i := range rows {
		switch {
		case !isValid(v, k):
			sawNull[i>>3] |= 1 << (i & 7)
		case (bits[k>>3]&(1<<(k&7)) != 0) != isAnd:
			decided[i>>3] |= 1 << (i & 7)
		}
	}
}

// undecidedRows appends to rows the indexes of the n rows not set in
// decided, skipping settled bytes whole.
func undecidedRows(decided []byte, n int, rows []int32) []int32 {
	for j, d := range decided {
		for open := ^d; open != 0; open &= open - 1 {
			i := j*8 + bits.TrailingZeros8(open)
			if i >= n {
				return rows
			}
			rows = append(rows, int32(i))
		}
	}
	return rows
}

type nullTestEval struct {
	arg evaluator
	not bool
}

func (e *nullTestEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	arr, err := e.arg.eval(b)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	n := arr.Len()
	bits := make([]byte, bitutil.BytesForBits(int64(n)))
	v := validity(arr)
	for i := 0; i < n; i++ {
		if isValid(v, i) == e.not {
			bitutil.SetBit(bits, i)
		}
	}
	return newBoolArray(bits, n, nil, 0), nil
}

// coalesceEval evaluates each argument only where all earlier ones were NULL.
type coalesceEval struct {
	args []evaluator
	t    types.T
}

func (e *coalesceEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	n := int(b.NumRows())
	out := make([]any, n)
	open := make([]int32, n)
	for i := range open {
		open[i] = int32(i)
	}
	for _, arg := range e.args {
		if len(open) == 0 {
			break
		}
		arr, err := evalOn(arg, b, open, n)
		if err != nil {
			return nil, err
		}
		next := open[:0]
		for k, i := range open {
			d := types.DatumAt(arr, e.t, k)
			if d == nil {
				next = append(next, i)
			} else {
				out[i] = d
			}
		}
		arr.Release()
		open = next
	}
	return arrayOfDatums(e.t, out), nil
}

// evalOn evaluates ev on the rows rows of b (all rows when len(rows) == n);
// the result has len(rows) rows.
func evalOn(ev evaluator, b arrow.RecordBatch, rows []int32, n int) (arrow.Array, error) {
	if len(rows) == n {
		return ev.eval(b)
	}
	sub := takeBatch(b, rows)
	defer sub.Release()
	return ev.eval(sub)
}

// caseEval is a searched CASE: each WHEN is evaluated on the rows not yet
// matched, each THEN only on the rows it matched.
type caseEval struct {
	conds, results []evaluator
	els            evaluator
	t              types.T
}

func compileCase(x *nodes.CaseExpr, ec *ExecContext) (evaluator, error) {
	c := &caseEval{t: x.T}
	for _, w := range x.Whens {
		cond, err := compileExpr(w.Cond, ec)
		if err != nil {
			return nil, err
		}
		res, err := compileExpr(w.Result, ec)
		if err != nil {
			return nil, err
		}
		c.conds = append(c.conds, cond)
		c.results = append(c.results, res)
	}
	if x.Else != nil {
		els, err := compileExpr(x.Else, ec)
		if err != nil {
			return nil, err
		}
		c.els = els
	}
	return c, nil
}

func (c *caseEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	n := int(b.NumRows())
	out := make([]any, n)
	open := make([]int32, n)
	for i := range open {
		open[i] = int32(i)
	}
	fill := func(ev evaluator, rows []int32) error {
		if len(rows) == 0 {
			return nil
		}
		sub := takeBatch(b, rows)
		defer sub.Release()
		arr, err := ev.eval(sub)
		if err != nil {
			return err
		}
		defer arr.Release()
		for k, i := range rows {
			out[i] = types.DatumAt(arr, c.t, k)
		}
		return nil
	}
	for w, cond := range c.conds {
		if len(open) == 0 {
			break
		}
		arr, err := evalOn(cond, b, open, n)
		if err != nil {
			return nil, err
		}
		mask := arr.(*array.Boolean)
		var hit []int32
		next := make([]int32, 0, len(open))
		for k, i := range open {
			if mask.IsValid(k) && mask.Value(k) {
				hit = append(hit, i)
			} else {
				next = append(next, i)
			}
		}
		arr.Release()
		if err := fill(c.results[w], hit); err != nil {
			return nil, err
		}
		open = next
	}
	if c.els != nil {
		if err := fill(c.els, open); err != nil {
			return nil, err
		}
	}
	return arrayOfDatums(c.t, out), nil
}

// rowwiseEval evaluates fn row by row over datums of its arguments. With
// strict set, a NULL argument gives NULL without calling fn.
type rowwiseEval struct {
	args   []evaluator
	types  []types.T
	t      types.T
	strict bool
	fn     func([]any) (any, error)
}

func compileRowwise(args []nodes.Expr, t types.T, strict bool, ec *ExecContext, fn func([]any) (any, error)) (evaluator, error) {
	evs, err := compileExprs(args, ec)
	if err != nil {
		return nil, err
	}
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	return &rowwiseEval{args: evs, types: ts, t: t, strict: strict, fn: fn}, nil
}

func (r *rowwiseEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	arrs := make([]arrow.Array, len(r.args))
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, ev := range r.args {
		a, err := ev.eval(b)
		if err != nil {
			return nil, err
		}
		arrs[i] = a
	}
	n := int(b.NumRows())
	bld := newBuilder(r.t)
	defer bld.Release()
	bld.Reserve(n)
	vals := make([]any, len(arrs))
	var bytes int
rows:
	for i := 0; i < n; i++ {
		for k, a := range arrs {
			vals[k] = types.DatumAt(a, r.types[k], i)
			if vals[k] == nil && r.strict {
				bld.AppendNull()
				continue rows
			}
		}
		d, err := r.fn(vals)
		if err != nil {
			return nil, err
		}
		if s, ok := d.(string); ok {
			if bytes += len(s); bytes > maxArrayBytes && n > 1 {
				return nil, errBatchTooWide(n, i, maxArrayBytes)
			}
		}
		appendDatum(bld, r.t, d)
	}
	return bld.NewArray(), nil
}

// hashedInList is the size from which a list of constants is looked up in
// a hash set built once, instead of compared value by value per row
// (PostgreSQL hashes from 9: MIN_ARRAY_SIZE_FOR_HASHED_SAOP).
const hashedInList = 9

// compileInList compiles x IN (list) and NOT IN: the SQL semantics of a
// NULL argument or a NULL in the list, and = ANY's equality.
func compileInList(x *nodes.InList, ec *ExecContext) (evaluator, error) {
	if ev, ok, err := compileConstInList(x, ec); ok || err != nil { // filter_kernels.go
		return ev, err
	}
	t := x.Arg.Type()
	if set, hasNull, ok := constSet(x.List, t); ok && len(x.List) >= hashedInList {
		var buf []byte
		return compileRowwise([]nodes.Expr{x.Arg}, types.BoolT, true, ec, func(a []any) (any, error) {
			buf = datumKey(buf[:0], t, a[0])
			if _, found := set[string(buf)]; found {
				return !x.Not, nil
			}
			if hasNull {
				return nil, nil
			}
			return x.Not, nil
		})
	}
	exprs := append([]nodes.Expr{x.Arg}, x.List...)
	return compileRowwise(exprs, types.BoolT, false, ec, func(a []any) (any, error) {
		if a[0] == nil {
			return nil, nil
		}
		sawNull := false
		for _, v := range a[1:] {
			if v == nil {
				sawNull = true
				continue
			}
			if types.Compare(t, a[0], v) == 0 {
				return !x.Not, nil
			}
		}
		if sawNull {
			return nil, nil
		}
		return x.Not, nil
	})
}

// constSet is the set of the constants of list (of type t), keyed as
// datumKey keys them; ok is false when an element is not a constant.
func constSet(list []nodes.Expr, t types.T) (set map[string]struct{}, hasNull, ok bool) {
	set = make(map[string]struct{}, len(list))
	for _, e := range list {
		c, isConst := e.(*nodes.Const)
		if !isConst || c.T != t && c.Value != nil {
			return nil, false, false
		}
		if c.Value == nil {
			hasNull = true
			continue
		}
		set[string(datumKey(nil, t, c.Value))] = struct{}{}
	}
	return set, hasNull, true
}

// datumKey is encodeKey for a value of t in any of its datum forms
// (numeric as text, too).
func datumKey(buf []byte, t types.T, d any) []byte {
	if s, isText := d.(string); isText && t.ID == types.Numeric {
		if n, err := types.NumericFromString(s); err == nil {
			d = n
		}
	}
	if iv, ok := d.(types.Interval); ok {
		// Intervals that compare equal ('1 month', '30 days') key alike.
		var kb [16]byte
		return encodeKey(buf, types.TextT, string(types.IntervalKey(kb[:0], iv)))
	}
	return encodeKey(buf, t, d)
}
