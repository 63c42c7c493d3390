package planner

// Window functions, as PostgreSQL's parse_func.c/parse_clause.c
// (transformWindowFuncCall, transformWindowDefinitions) and planner.c
// (make_window_input_target, create_one_window_path): calls are
// collected like aggregates while the select list and ORDER BY are
// transformed; then, over the query's rows (after grouping), the input
// projection computes every partition key, order key and argument that
// is not a plain column, and one Sort plus WindowAgg per distinct window
// (a Sort only when the ordering changes) appends the functions' results.
// The select list then reads them.

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/funcs"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// windowSpec is a window: PARTITION BY, ORDER BY (over the query's rows)
// and frame.
type windowSpec struct {
	partition []nodes.Expr
	order     []nodes.SortKey
	frame     nodes.WindowFrame
}

// windowCall is one window function call of a query.
type windowCall struct {
	fn   *nodes.WindowFunc
	spec *windowSpec
}

// windowRef stands for a window function's result until the WindowAgg
// that computes it is built.
type windowRef struct {
	idx  int
	call *windowCall
}

func (w *windowRef) Type() types.T  { return w.call.fn.T }
func (w *windowRef) String() string { return w.call.fn.String() }

// EqualExpr makes two mentions of one call (in the select list and ORDER
// BY) the same expression.
func (w *windowRef) EqualExpr(b nodes.Expr) bool {
	y, ok := b.(*windowRef)
	return ok && w.idx == y.idx
}

var _ nodes.Equaler = (*windowRef)(nil)

// windowFuncTypes are the window functions that are not aggregates:
// their result type (Unknown: the first argument's) and argument counts.
var windowFuncTypes = map[string]struct {
	result  types.T
	minArgs int
	maxArgs int
}{
	"row_number":   {types.Int8T, 0, 0},
	"rank":         {types.Int8T, 0, 0},
	"dense_rank":   {types.Int8T, 0, 0},
	"percent_rank": {types.Float8T, 0, 0},
	"cume_dist":    {types.Float8T, 0, 0},
	"ntile":        {types.Int4T, 1, 1},
	"lag":          {types.T{}, 1, 3},
	"lead":         {types.T{}, 1, 3},
	"first_value":  {types.T{}, 1, 1},
	"last_value":   {types.T{}, 1, 1},
	"nth_value":    {types.T{}, 2, 2},
}

// windowFunc transforms a call with OVER.
func (c *exprCtx) windowFunc(fc *pg.FuncCall, name string) (nodes.Expr, error) {
	if c.windows == nil {
		clause := c.clause
		if clause == "" {
			clause = "this context"
		}
		return nil, errAt(pgerr.New(pgerr.WindowingError, "window functions are not allowed in %s", clause), fc.Location)
	}
	if c.inWindow {
		return nil, errAt(pgerr.New(pgerr.WindowingError, "window function calls cannot be nested"), fc.Location)
	}
	if c.inAgg {
		return nil, errAt(pgerr.New(pgerr.GroupingError, "aggregate function calls cannot contain window function calls"), fc.Location)
	}
	inner := *c
	inner.inWindow = true
	spec, err := inner.windowDef(fc.Over)
	if err != nil {
		return nil, err
	}
	fn, err := inner.windowFuncCall(fc, name)
	if err != nil {
		return nil, errAt(err, fc.Location)
	}
	*c.windows = append(*c.windows, &windowCall{fn: fn, spec: spec})
	return &windowRef{idx: len(*c.windows) - 1, call: (*c.windows)[len(*c.windows)-1]}, nil
}

// windowFuncCall resolves the function of a window call.
func (c *exprCtx) windowFuncCall(fc *pg.FuncCall, name string) (*nodes.WindowFunc, error) {
	if agg := funcs.Aggregate(name); agg != nil {
		if fc.AggWithinGroup || len(fc.AggOrder) > 0 || fc.AggDistinct {
			return nil, pgerr.NotSupported("DISTINCT, ORDER BY or WITHIN GROUP in a window aggregate")
		}
		local := []*nodes.AggCall{}
		ac := *c
		ac.aggs, ac.queryAggs = &local, c.aggs
		if _, err := ac.aggregate(agg, fc); err != nil {
			return nil, err
		}
		return &nodes.WindowFunc{Name: name, Agg: local[0], T: local[0].T}, nil
	}
	wf, ok := windowFuncTypes[name]
	if !ok {
		if _, err := c.funcCall(&pg.FuncCall{Funcname: fc.Funcname, Args: fc.Args, Location: fc.Location}); err != nil {
			return nil, err
		}
		return nil, pgerr.New(pgerr.WrongObjectType, "OVER specified, but %s is not a window function nor an aggregate function", name)
	}
	if fc.AggStar || fc.AggDistinct || fc.AggFilter != nil || len(fc.AggOrder) > 0 {
		return nil, pgerr.NotSupported("this syntax for window function " + name)
	}
	args, err := c.transformList(fc.Args)
	if err != nil {
		return nil, err
	}
	if len(args) < wf.minArgs || len(args) > wf.maxArgs {
		return nil, funcMissing(name, args)
	}
	t := wf.result
	switch name {
	case "ntile":
		if args[0], err = coerceArg(args[0], types.Int4T, name, args); err != nil {
			return nil, err
		}
	case "nth_value":
		if args[1], err = coerceArg(args[1], types.Int4T, name, args); err != nil {
			return nil, err
		}
	case "lag", "lead":
		if len(args) > 1 {
			if args[1], err = coerceArg(args[1], types.Int4T, name, args); err != nil {
				return nil, err
			}
		}
		if len(args) == 3 {
			// The default shares the value's type (anycompatible).
			ct, err := commonType([]types.T{args[0].Type(), args[2].Type()}, name)
			if err != nil {
				return nil, err
			}
			if args[0], err = coerce(args[0], ct, types.CastImplicit); err != nil {
				return nil, err
			}
			if args[2], err = coerce(args[2], ct, types.CastImplicit); err != nil {
				return nil, err
			}
		}
	}
	if t.ID == types.Unknown {
		if args[0].Type().ID == types.Unknown {
			args[0], _ = coerce(args[0], types.TextT, types.CastImplicit)
		}
		t = args[0].Type()
	}
	return &nodes.WindowFunc{Name: name, Args: args, T: t}, nil
}

func coerceArg(e nodes.Expr, t types.T, name string, args []nodes.Expr) (nodes.Expr, error) {
	if e.Type().ID != types.Unknown && !types.CanCast(e.Type(), t, types.CastImplicit) {
		return nil, funcMissing(name, args)
	}
	return coerce(e, t, types.CastImplicit)
}

// windowDef transforms an OVER clause, resolving a named window.
func (c *exprCtx) windowDef(w *pg.WindowDef) (*windowSpec, error) {
	base := w
	if w.Refname != "" || w.Name != "" && len(w.PartitionClause) == 0 && len(w.OrderClause) == 0 && w.FrameOptions&frameNonDefault == 0 {
		ref := w.Refname
		if ref == "" {
			ref = w.Name // OVER w
		}
		named := c.p.namedWindow(ref)
		if named == nil {
			return nil, errAt(pgerr.New(pgerr.UndefinedObject, "window %q does not exist", ref), w.Location)
		}
		if len(w.PartitionClause) > 0 {
			return nil, errAt(pgerr.New(pgerr.WindowingError, "cannot override PARTITION BY clause of window %q", ref), w.Location)
		}
		if len(w.OrderClause) > 0 && len(named.OrderClause) > 0 {
			return nil, errAt(pgerr.New(pgerr.WindowingError, "cannot override ORDER BY clause of window %q", ref), w.Location)
		}
		if named.FrameOptions&frameNonDefault != 0 && (w.Refname != "" || w.FrameOptions&frameNonDefault != 0) {
			return nil, errAt(pgerr.New(pgerr.WindowingError, "cannot copy window %q because it has a frame clause", ref), w.Location).(*pgerr.Error).
				WithHint("Omit the parentheses in this OVER clause.")
		}
		merged := &pg.WindowDef{PartitionClause: named.PartitionClause, OrderClause: named.OrderClause,
			FrameOptions: w.FrameOptions, StartOffset: w.StartOffset, EndOffset: w.EndOffset, Location: w.Location}
		if len(w.OrderClause) > 0 {
			merged.OrderClause = w.OrderClause
		}
		if w.Refname == "" {
			merged.FrameOptions, merged.StartOffset, merged.EndOffset = named.FrameOptions, named.StartOffset, named.EndOffset
		}
		base = merged
	}
	spec := &windowSpec{}
	for _, p := range base.PartitionClause {
		e, err := c.transform(p)
		if err != nil {
			return nil, err
		}
		if e.Type().ID == types.Unknown {
			e, _ = coerce(e, types.TextT, types.CastImplicit)
		}
		spec.partition = append(spec.partition, e)
	}
	for _, o := range base.OrderClause {
		sb := o.GetSortBy()
		if sb.SortbyDir == pg.SortByDir_SORTBY_USING {
			return nil, pgerr.NotSupported("ORDER BY USING")
		}
		e, err := c.transform(sb.Node)
		if err != nil {
			return nil, err
		}
		if e.Type().ID == types.Unknown {
			e, _ = coerce(e, types.TextT, types.CastImplicit)
		}
		desc, nullsFirst := sortDirection(sb)
		spec.order = append(spec.order, nodes.SortKey{Expr: e, Desc: desc, NullsFirst: nullsFirst})
	}
	frame, err := c.windowFrame(base, spec.order)
	if err != nil {
		return nil, err
	}
	spec.frame = frame
	return spec, nil
}

// The frame option bits of a WindowDef (PostgreSQL's FRAMEOPTION_*).
const (
	frameNonDefault         = 0x00001
	frameRange              = 0x00002
	frameRows               = 0x00004
	frameGroups             = 0x00008
	frameStartUnboundedPrec = 0x00020
	frameEndUnboundedPrec   = 0x00040
	frameStartUnboundedFoll = 0x00080
	frameEndUnboundedFoll   = 0x00100
	frameStartCurrentRow    = 0x00200
	frameEndCurrentRow      = 0x00400
	frameStartOffsetPrec    = 0x00800
	frameEndOffsetPrec      = 0x01000
	frameStartOffsetFoll    = 0x02000
	frameEndOffsetFoll      = 0x04000
	frameExcludeCurrentRow  = 0x08000
	frameExcludeGroup       = 0x10000
	frameExcludeTies        = 0x20000
)

// windowFrame decodes a frame clause and types its offsets.
func (c *exprCtx) windowFrame(w *pg.WindowDef, order []nodes.SortKey) (nodes.WindowFrame, error) {
	o := w.FrameOptions
	if o&frameNonDefault == 0 {
		return nodes.DefaultFrame, nil
	}
	f := nodes.WindowFrame{Mode: nodes.FrameRange}
	switch {
	case o&frameRows != 0:
		f.Mode = nodes.FrameRows
	case o&frameGroups != 0:
		f.Mode = nodes.FrameGroups
		if len(order) == 0 {
			return f, errAt(pgerr.New(pgerr.WindowingError, "GROUPS mode requires an ORDER BY clause"), w.Location)
		}
	}
	bound := func(unbPrec, unbFoll, cur, offPrec, offFoll int32, offset *pg.Node) (nodes.FrameBound, error) {
		switch {
		case o&unbPrec != 0:
			return nodes.FrameBound{Kind: nodes.BoundUnboundedPreceding}, nil
		case o&unbFoll != 0:
			return nodes.FrameBound{Kind: nodes.BoundUnboundedFollowing}, nil
		case o&cur != 0:
			return nodes.FrameBound{Kind: nodes.BoundCurrentRow}, nil
		}
		kind := nodes.BoundPreceding
		if o&offFoll != 0 {
			kind = nodes.BoundFollowing
		}
		e, err := c.frameOffset(offset, f.Mode, order, w.Location)
		return nodes.FrameBound{Kind: kind, Offset: e}, err
	}
	var err error
	if f.Start, err = bound(frameStartUnboundedPrec, frameStartUnboundedFoll, frameStartCurrentRow, frameStartOffsetPrec, frameStartOffsetFoll, w.StartOffset); err != nil {
		return f, err
	}
	if f.End, err = bound(frameEndUnboundedPrec, frameEndUnboundedFoll, frameEndCurrentRow, frameEndOffsetPrec, frameEndOffsetFoll, w.EndOffset); err != nil {
		return f, err
	}
	switch {
	case o&frameExcludeCurrentRow != 0:
		f.Exclude = nodes.ExcludeCurrentRow
	case o&frameExcludeGroup != 0:
		f.Exclude = nodes.ExcludeGroup
	case o&frameExcludeTies != 0:
		f.Exclude = nodes.ExcludeTies
	}
	return f, nil
}

// frameOffset types a frame offset: bigint for ROWS and GROUPS; for
// RANGE the ORDER BY column's type, or interval over dates and times.
func (c *exprCtx) frameOffset(n *pg.Node, mode nodes.FrameMode, order []nodes.SortKey, loc int32) (nodes.Expr, error) {
	clause := map[nodes.FrameMode]string{nodes.FrameRows: "ROWS", nodes.FrameGroups: "GROUPS", nodes.FrameRange: "RANGE"}[mode]
	if HasColumnRef(n) {
		return nil, errAt(pgerr.New(pgerr.InvalidColumnReference, "argument of %s must not contain variables", clause), loc)
	}
	ec := &exprCtx{p: c.p, clause: "window frame"}
	e, err := ec.transform(n)
	if err != nil {
		return nil, err
	}
	want := types.Int8T
	if mode == nodes.FrameRange {
		if len(order) != 1 {
			return nil, errAt(pgerr.New(pgerr.WindowingError, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column"), loc)
		}
		kt := order[0].Expr.Type()
		switch {
		case kt.ID == types.Date || kt.ID == types.Timestamp || kt.ID == types.TimestampTZ:
			want = types.IntervalT
		case kt.IsInteger():
			want = types.Int8T // in_range for int2/int4/int8 takes any integer offset
		case kt.ID == types.Float4 || kt.ID == types.Float8:
			want = types.Float8T
		case numericRank(kt) > 0 || kt.ID == types.IntervalType:
			want = kt.Base()
		default:
			return nil, errAt(pgerr.New(pgerr.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", kt), loc)
		}
	}
	if e.Type().ID != types.Unknown && !types.CanCast(e.Type(), want, types.CastImplicit) {
		return nil, errAt(pgerr.New(pgerr.DatatypeMismatch, "argument of %s must be type %s, not type %s", clause, want, e.Type()), loc)
	}
	return coerce(e, want, types.CastImplicit)
}

// namedWindow finds a WINDOW clause entry of the query being planned,
// with what it copies from the window it names (WINDOW w2 AS (w1 ORDER
// BY x): w1's PARTITION BY).
func (pc *planCtx) namedWindow(name string) *pg.WindowDef {
	for i, n := range pc.windowClause {
		w := n.GetWindowDef()
		if w == nil || w.Name != name {
			continue
		}
		if w.Refname == "" {
			return w
		}
		// Only earlier entries can be named, which also ends the chain.
		saved := pc.windowClause
		pc.windowClause = saved[:i]
		base := pc.namedWindow(w.Refname)
		pc.windowClause = saved
		if base == nil {
			return w
		}
		merged := &pg.WindowDef{Name: w.Name, PartitionClause: base.PartitionClause, OrderClause: base.OrderClause,
			FrameOptions: w.FrameOptions, StartOffset: w.StartOffset, EndOffset: w.EndOffset, Location: w.Location}
		if len(w.OrderClause) > 0 {
			merged.OrderClause = w.OrderClause
		}
		return merged
	}
	return nil
}

// sameWindow reports whether two specifications are one window.
func sameWindow(a, b *windowSpec) bool {
	if len(a.partition) != len(b.partition) || len(a.order) != len(b.order) || !sameFrame(a.frame, b.frame) {
		return false
	}
	return nodes.EqualLists(a.partition, b.partition) && sameOrder(a.order, b.order)
}

func sameOrder(a, b []nodes.SortKey) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Desc != b[i].Desc || a[i].NullsFirst != b[i].NullsFirst || !nodes.Equal(a[i].Expr, b[i].Expr) {
			return false
		}
	}
	return true
}

func sameFrame(a, b nodes.WindowFrame) bool {
	return a.Mode == b.Mode && a.Exclude == b.Exclude && a.Start.Kind == b.Start.Kind && a.End.Kind == b.End.Kind &&
		nodes.Equal(a.Start.Offset, b.Start.Offset) && nodes.Equal(a.End.Offset, b.End.Offset)
}

// planWindows puts the WindowAggs over input, whose own rows (ncols of
// them) the calls' expressions read, and returns the top node and the
// calls' result positions in its rows.
func planWindows(input nodes.Plan, calls []*windowCall) (nodes.Plan, []int, error) {
	in := input.Base()
	width := len(in.Out)
	// The input projection: the input's columns, then each computed key
	// and argument once. It is folded into the input's own projection
	// when the input can take one (the expressions then read its own
	// rows), else a Subquery Scan computes it.
	_, fold := copyProjecting(input)
	var pre []nodes.Expr
	preOut := append([]nodes.Field(nil), in.Out...)
	for i, f := range in.Out {
		if fold && in.Targets != nil {
			pre = append(pre, in.Targets[i])
		} else {
			pre = append(pre, &nodes.ColumnRef{Index: i, Name: f.Name, T: f.T})
		}
	}
	column := func(e nodes.Expr) nodes.Expr {
		if c, ok := e.(*nodes.ColumnRef); ok {
			return c
		}
		if _, ok := e.(*nodes.Const); ok {
			return e
		}
		name := "(" + e.String() + ")"
		if fold && in.Targets != nil {
			e = substitute(e, in.Targets)
		}
		for i := width; i < len(pre); i++ {
			if nodes.Equal(pre[i], e) {
				return &nodes.ColumnRef{Index: i, Name: name, T: e.Type(), Raw: true}
			}
		}
		pre = append(pre, e)
		preOut = append(preOut, nodes.Field{Name: name, T: e.Type()})
		return &nodes.ColumnRef{Index: len(pre) - 1, Name: name, T: e.Type(), Raw: true}
	}
	type window struct {
		spec  *windowSpec
		calls []int
	}
	var windows []*window
	for i, c := range calls {
		spec := &windowSpec{frame: c.spec.frame}
		for _, p := range c.spec.partition {
			spec.partition = append(spec.partition, column(p))
		}
		for _, k := range c.spec.order {
			spec.order = append(spec.order, nodes.SortKey{Expr: column(k.Expr), Desc: k.Desc, NullsFirst: k.NullsFirst})
		}
		fn := *c.fn
		fn.Args = make([]nodes.Expr, len(c.fn.Args))
		for j, a := range c.fn.Args {
			fn.Args[j] = column(a)
		}
		if fn.Agg != nil {
			agg := *fn.Agg
			agg.Args = make([]nodes.Expr, len(fn.Agg.Args))
			for j, a := range fn.Agg.Args {
				agg.Args[j] = column(a)
			}
			if agg.Filter != nil {
				agg.Filter = column(agg.Filter)
			}
			fn.Agg = &agg
		}
		c.fn = &fn
		found := false
		for _, w := range windows {
			if sameWindow(w.spec, spec) {
				w.calls, found = append(w.calls, i), true
				break
			}
		}
		if !found {
			windows = append(windows, &window{spec: spec, calls: []int{i}})
		}
	}
	var plan nodes.Plan = input
	if len(pre) > width {
		plan = withTargets(input, fold, pre, preOut)
	}
	pos := make([]int, len(calls))
	var prevOrder []nodes.SortKey
	for wi, w := range windows {
		keys := make([]nodes.SortKey, 0, len(w.spec.partition)+len(w.spec.order))
		for _, p := range w.spec.partition {
			keys = append(keys, nodes.SortKey{Expr: p})
		}
		keys = append(keys, w.spec.order...)
		if len(keys) > 0 && (wi == 0 || !sameOrder(keys, prevOrder)) {
			srt := &nodes.Sort{Child: plan, Keys: keys}
			srt.Out = plan.Base().Out
			plan = srt
		}
		prevOrder = keys
		wa := &nodes.WindowAgg{Child: plan, PartitionBy: w.spec.partition, OrderBy: w.spec.order, Frame: w.spec.frame}
		wa.Out = append([]nodes.Field(nil), plan.Base().Out...)
		for _, ci := range w.calls {
			pos[ci] = len(wa.Out)
			wa.Funcs = append(wa.Funcs, calls[ci].fn)
			wa.Out = append(wa.Out, nodes.Field{Name: strings.TrimSuffix(calls[ci].fn.Name, "()"), T: calls[ci].fn.T})
		}
		plan = wa
	}
	return plan, pos, nil
}

// withTargets returns p with the projection targets: p's own, replaced
// (fold), or a Subquery Scan's over p's rows.
func withTargets(p nodes.Plan, fold bool, targets []nodes.Expr, out []nodes.Field) nodes.Plan {
	if np, ok := copyProjecting(p); fold && ok {
		np.Base().Targets, np.Base().Out = targets, out
		return np
	}
	ss := &nodes.SubqueryScan{Child: p}
	ss.Targets, ss.Out = targets, out
	return ss
}

// substitute replaces references to a projection's outputs by the
// projection's expressions.
func substitute(e nodes.Expr, targets []nodes.Expr) nodes.Expr {
	var f func(nodes.Expr) (nodes.Expr, error)
	f = func(x nodes.Expr) (nodes.Expr, error) {
		if c, ok := x.(*nodes.ColumnRef); ok {
			return targets[c.Index], nil
		}
		return mapChildren(x, f)
	}
	out, _ := f(e)
	return out
}

// replaceWindowRefs maps window placeholders to their result columns.
func replaceWindowRefs(e nodes.Expr, pos []int) nodes.Expr {
	var f func(nodes.Expr) (nodes.Expr, error)
	f = func(x nodes.Expr) (nodes.Expr, error) {
		if w, ok := x.(*windowRef); ok {
			return &nodes.ColumnRef{Index: pos[w.idx], Name: w.String(), T: w.Type(), Raw: true}, nil
		}
		return mapChildren(x, f)
	}
	out, _ := f(e)
	return out
}

// windowPlan plans the windows over input and projects the select list
// (exprs, over input's rows and the windows' placeholders) on top.
func windowPlan(input nodes.Plan, calls []*windowCall, exprs []nodes.Expr, out []nodes.Field) (nodes.Plan, error) {
	top, pos, err := planWindows(input, calls)
	if err != nil {
		return nil, err
	}
	targets := make([]nodes.Expr, len(exprs))
	for i, e := range exprs {
		targets[i] = replaceWindowRefs(e, pos)
	}
	top.Base().Targets, top.Base().Out = targets, out
	return top, nil
}

// liftWindows rewrites the window calls of a grouped query over the
// Agg's rows, as the select list is.
func liftWindows(l *lifter, calls []*windowCall) error {
	var err error
	lift := func(e nodes.Expr) nodes.Expr {
		if err != nil || e == nil {
			return e
		}
		var out nodes.Expr
		out, err = l.lift(e)
		return out
	}
	for _, c := range calls {
		spec := &windowSpec{frame: c.spec.frame}
		for _, p := range c.spec.partition {
			spec.partition = append(spec.partition, lift(p))
		}
		for _, k := range c.spec.order {
			spec.order = append(spec.order, nodes.SortKey{Expr: lift(k.Expr), Desc: k.Desc, NullsFirst: k.NullsFirst})
		}
		fn := *c.fn
		fn.Args = make([]nodes.Expr, len(c.fn.Args))
		for i, a := range c.fn.Args {
			fn.Args[i] = lift(a)
		}
		if fn.Agg != nil {
			agg := *fn.Agg
			agg.Args = make([]nodes.Expr, len(fn.Agg.Args))
			for i, a := range fn.Agg.Args {
				agg.Args[i] = lift(a)
			}
			agg.Filter = lift(agg.Filter)
			fn.Agg = &agg
		}
		c.fn, c.spec = &fn, spec
	}
	return err
}

// aggRowFields are an Agg's own rows: its keys, then its aggregates.
func aggRowFields(keys []nodes.Expr, aggs []*nodes.AggCall) []nodes.Field {
	var fs []nodes.Field
	for _, k := range keys {
		fs = append(fs, nodes.Field{Name: k.String(), T: k.Type()})
	}
	for _, a := range aggs {
		fs = append(fs, nodes.Field{Name: a.String(), T: a.T})
	}
	return fs
}
