package executor

// extract(field FROM d) and date_part(field, d) of a date with a constant
// field (TPC-H's extract(year FROM o_orderdate)): each row's field in one
// loop over the day numbers, instead of a decimal made per row. A batch
// holding an infinite date goes the row-by-row way, which knows what
// each field of infinity is.

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// dateFieldEval computes a date field of its argument's rows.
type dateFieldEval struct {
	arg   evaluator
	field func(days int32) int64
	float bool      // date_part: double precision; extract: numeric
	rows  evaluator // the row-by-row evaluation, for infinite dates
}

// compileDateField is x as a dateFieldEval when it is extract or
// date_part of a date with a constant field that DateField computes;
// ok is false otherwise.
func compileDateField(x *nodes.FuncExpr, rows evaluator, ec *ExecContext) (evaluator, bool, error) {
	if x.Name != "extract" && x.Name != "date_part" || len(x.Args) != 2 || x.Args[1].Type().ID != types.Date {
		return nil, false, nil
	}
	c, ok := x.Args[0].(*nodes.Const)
	if !ok || holdsSubPlan(x.Args[1]) { // compiled again here: a SubPlan must be compiled once
		return nil, false, nil
	}
	name, ok := c.Value.(string)
	if !ok {
		return nil, false, nil
	}
	field, ok := types.DateField(name)
	if !ok {
		return nil, false, nil
	}
	arg, err := compileExpr(x.Args[1], ec)
	if err != nil {
		return nil, false, err
	}
	return &dateFieldEval{arg: arg, field: field, float: x.Name == "date_part", rows: rows}, true, nil
}

func (e *dateFieldEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	arr, err := e.arg.eval(b)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	days := valuesOf[int32](arr)
	for i, d := range days {
		if (d == types.DateNegInfinity || d == types.DatePosInfinity) && arr.IsValid(i) {
			return e.rows.eval(b)
		}
	}
	valid, nulls := copyValidity(arr)
	if e.float {
		out := make([]float64, len(days))
		for i, d := range days {
			if isValid(valid, i) {
				out[i] = float64(e.field(d))
			}
		}
		return newFixedArray(arrow.PrimitiveTypes.Float64, out, valid, nulls), nil
	}
	offs := make([]int32, len(days)+1)
	data := make([]byte, 0, 4*len(days))
	for i, d := range days {
		if isValid(valid, i) {
			data = strconv.AppendInt(data, e.field(d), 10)
		}
		offs[i+1] = int32(len(data))
	}
	return newStringArray(offs, data, valid, nulls), nil
}

// holdsSubPlan reports whether e contains a SubPlan.
func holdsSubPlan(e nodes.Expr) bool {
	return nodes.ExprContains(e, func(x nodes.Expr) bool { _, ok := x.(*nodes.SubPlan); return ok })
}
