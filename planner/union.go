package planner

// Set operations, as PostgreSQL's generate_union_paths and
// generate_nonunion_paths: each branch is planned on its own and
// projected to the columns' common types (the leftmost branch names
// them); ORDER BY and LIMIT of the whole apply on top.
//
//	UNION ALL                   Append (nested UNION ALLs flattened into one)
//	UNION                       HashAggregate on every column <- Append
//	INTERSECT [ALL] / EXCEPT [ALL]
//	                            SetOp <- Append of the two inputs, each
//	                            projected with a flag column (0 left,
//	                            1 right): a leaf in a Subquery Scan, a
//	                            nested UNION's HashAggregate by its own
//	                            projection, another nested set operation
//	                            in a Result. Hashed (HashSetOp) unless
//	                            enable_hashagg is off or the groups would
//	                            not fit in work_mem x hash_mem_multiplier;
//	                            sorted, the SetOp reads a Sort of the
//	                            Append. INTERSECT puts the input of fewer
//	                            estimated groups first, as PostgreSQL does.
//
// Leaves are numbered left to right over the whole tree, as
// PostgreSQL's range table names them: "*SELECT* n".

import (
	"math"
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// planSetOp plans a SELECT whose Op is a set operation.
func (pc *planCtx) planSetOp(s *pg.SelectStmt) (*relPlan, error) {
	b := &setOpBuilder{pc: pc, leaf: map[nodes.Plan]int{}}
	p, _, err := b.tree(s, true)
	if err != nil {
		return nil, err
	}
	b.nameScans()
	return pc.planSortLimit(&relPlan{plan: p, visible: len(p.Base().Out)}, s, nil, nil)
}

// setOpBuilder plans one set operation tree; leaf numbers its leaves.
type setOpBuilder struct {
	pc   *planCtx
	leaf map[nodes.Plan]int
}

// alias is the Subquery Scan name of leaf p ("" for other nodes).
func (b *setOpBuilder) alias(p nodes.Plan) string {
	if n, ok := b.leaf[p]; ok {
		return "*SELECT* " + strconv.Itoa(n)
	}
	return ""
}

// tree plans s without its own ORDER BY and LIMIT when top; a branch
// with them (in parentheses) is planned whole, as a leaf. unionAll lists
// the branches of a UNION ALL result, for flattening.
func (b *setOpBuilder) tree(s *pg.SelectStmt, top bool) (nodes.Plan, []nodes.Plan, error) {
	pc := b.pc
	if s.Op == pg.SetOperation_SETOP_NONE || !top && (len(s.SortClause) > 0 || s.LimitCount != nil || s.LimitOffset != nil || s.WithClause != nil) {
		pc.keepUnknown = true
		r, err := pc.planSelect(s)
		pc.keepUnknown = false
		if err != nil {
			return nil, nil, err
		}
		p := stripJunk(r)
		if ss, ok := p.(*nodes.SubqueryScan); ok && p != r.plan {
			ss.Alias = "*SELECT* " + strconv.Itoa(len(b.leaf)+1)
		}
		b.leaf[p] = len(b.leaf) + 1
		return p, nil, nil
	}
	if s.WithClause != nil {
		return nil, nil, pgerr.NotSupported("WITH on a set operation")
	}
	l, lkids, err := b.tree(s.Larg, false)
	if err != nil {
		return nil, nil, err
	}
	r, rkids, err := b.tree(s.Rarg, false)
	if err != nil {
		return nil, nil, err
	}
	name := map[pg.SetOperation]string{pg.SetOperation_SETOP_UNION: "UNION", pg.SetOperation_SETOP_INTERSECT: "INTERSECT", pg.SetOperation_SETOP_EXCEPT: "EXCEPT"}[s.Op]
	out, err := setOpColumns(name, l, r)
	if err != nil {
		return nil, nil, err
	}
	if s.Op != pg.SetOperation_SETOP_UNION {
		p, err := b.setOp(setOpCmd(s.Op, s.All), l, r, out)
		return p, nil, err
	}
	if lkids == nil {
		lkids = []nodes.Plan{l}
	}
	if rkids == nil {
		rkids = []nodes.Plan{r}
	}
	kids := append(append([]nodes.Plan(nil), lkids...), rkids...)
	for i, k := range kids {
		if _, isSetOp := k.(*nodes.SetOp); isSetOp {
			// PostgreSQL's Result over it drops its flag column.
			kids[i], err = b.projected(k, out, nil)
		} else {
			kids[i], err = projectTo(k, out, nil, b.alias(k))
		}
		if err != nil {
			return nil, nil, err
		}
	}
	app := &nodes.Append{Kids: kids}
	app.Out = out
	if s.All {
		return app, kids, nil
	}
	return distinctOf(app), nil, nil
}

// nameScans gives the tables the leaves scan names of their own, as
// PostgreSQL's EXPLAIN does in range-table (leaf) order: the second
// scan of s1 is "Seq Scan on s1 s1_1". Partitions under an Append keep
// their numbered names.
func (b *setOpBuilder) nameScans() {
	leaves := make([]nodes.Plan, len(b.leaf))
	for p, n := range b.leaf {
		leaves[n-1] = p
	}
	used := map[string]bool{}
	var walk func(p nodes.Plan, partition bool)
	walk = func(p nodes.Plan, partition bool) {
		if sc, ok := p.(*nodes.SeqScan); ok {
			name := sc.Alias
			if name == "" {
				name = sc.Table.Name
			}
			for i := 1; used[name] && !partition; i++ {
				name = sc.Table.Name + "_" + strconv.Itoa(i)
				if sc.Alias != "" {
					name = sc.Alias + "_" + strconv.Itoa(i)
				}
			}
			sc.Alias, used[name] = name, true
			return
		}
		_, isAppend := p.(*nodes.Append)
		for _, k := range p.Children() {
			walk(k, isAppend)
		}
	}
	for _, l := range leaves {
		walk(l, false)
	}
}

func setOpCmd(op pg.SetOperation, all bool) nodes.SetOpCmd {
	cmd := nodes.SetOpIntersect
	if op == pg.SetOperation_SETOP_EXCEPT {
		cmd = nodes.SetOpExcept
	}
	if all {
		cmd++
	}
	return cmd
}

// setOpColumns checks that both sides have as many columns and returns
// the result's columns: the left side's names, the common types.
func setOpColumns(name string, l, r nodes.Plan) ([]nodes.Field, error) {
	lo, ro := l.Base().Out, r.Base().Out
	if len(lo) != len(ro) {
		return nil, pgerr.New(pgerr.SyntaxError, "each %s query must have the same number of columns", name)
	}
	out := append([]nodes.Field(nil), lo...)
	for c := range out {
		t, err := commonType([]types.T{lo[c].T, ro[c].T}, name)
		if err != nil {
			return nil, err
		}
		if t.ID == types.Unknown {
			t = types.TextT
		}
		out[c].T = t
	}
	return out, nil
}

// projectTo casts p's columns to the types of out, and appends extra
// constant columns (nil: none), in a Subquery Scan named alias. A leaf's
// own Subquery Scan that only drops sort columns (stripJunk's) is
// merged into it.
func projectTo(p nodes.Plan, out []nodes.Field, extra []nodes.Expr, alias string) (nodes.Plan, error) {
	in := p.Base().Out
	needs := len(extra) > 0
	for c := range out {
		if in[c].T != out[c].T {
			needs = true
		}
	}
	if !needs {
		return p, nil
	}
	if ss, ok := p.(*nodes.SubqueryScan); ok && alias != "" && ss.Alias == alias && ss.Filter == nil && keepsPrefix(ss.Targets) {
		p = ss.Child
	}
	targets := make([]nodes.Expr, 0, len(out)+len(extra))
	fields := make([]nodes.Field, 0, len(out)+len(extra))
	for c, f := range in {
		e, err := coerce(&nodes.ColumnRef{Index: c, Name: f.Name, T: f.T}, out[c].T, types.CastImplicit)
		if err != nil {
			return nil, err
		}
		targets = append(targets, e)
		fields = append(fields, nodes.Field{Name: out[c].Name, T: out[c].T})
	}
	for _, e := range extra {
		targets = append(targets, e)
		fields = append(fields, nodes.Field{Name: "flag", T: e.Type()})
	}
	ss := &nodes.SubqueryScan{Child: p, Alias: alias}
	ss.Targets, ss.Out = targets, fields
	return ss, nil
}

// keepsPrefix reports whether targets are the first columns of their
// input, in order.
func keepsPrefix(targets []nodes.Expr) bool {
	for i, e := range targets {
		if c, ok := e.(*nodes.ColumnRef); !ok || c.Index != i {
			return false
		}
	}
	return true
}

// distinctOf removes duplicate rows of p (NULLs equal).
func distinctOf(p nodes.Plan) nodes.Plan {
	out := p.Base().Out
	keys := make([]nodes.Expr, len(out))
	for i, f := range out {
		keys[i] = &nodes.ColumnRef{Index: i, Name: f.Name, T: f.T}
	}
	d := &nodes.Agg{Child: p, Strategy: nodes.AggHashed, GroupKeys: keys}
	d.Out = out
	return d
}

// setOp plans INTERSECT [ALL] or EXCEPT [ALL] of l and r.
func (b *setOpBuilder) setOp(cmd nodes.SetOpCmd, l, r nodes.Plan, out []nodes.Field) (nodes.Plan, error) {
	left, err := b.projected(l, out, &nodes.Const{Value: int64(0), T: types.Int4T})
	if err != nil {
		return nil, err
	}
	right, err := b.projected(r, out, &nodes.Const{Value: int64(1), T: types.Int4T})
	if err != nil {
		return nil, err
	}
	estimate(left)
	estimate(right)
	lg, rg := sideGroups(left, len(out)), sideGroups(right, len(out))
	kids, first, groups := []nodes.Plan{left, right}, 0, lg
	if cmd == nodes.SetOpIntersect || cmd == nodes.SetOpIntersectAll {
		groups = math.Min(lg, rg)
		if lg > rg {
			// A hash table holds the first input's groups: the smaller.
			kids, first = []nodes.Plan{right, left}, 1
		}
	}
	app := &nodes.Append{Kids: kids}
	app.Out = append(append([]nodes.Field(nil), out...), nodes.Field{Name: "flag", T: types.Int4T})
	n := &nodes.SetOp{Child: app, Cmd: cmd, Strategy: nodes.SetOpHashed, FlagCol: len(out), FirstFlag: first}
	n.Out = out
	if !b.hashFits(groups, out) {
		n.Strategy = nodes.SetOpSorted
		sort := &nodes.Sort{Child: app, Keys: setOpSortKeys(kids[0], out)}
		sort.Out = app.Out
		n.Child = sort
	}
	return n, nil
}

// hashFits is PostgreSQL's choice of a hashed SetOp: enable_hashagg on
// and the estimated groups within work_mem x hash_mem_multiplier.
func (b *setOpBuilder) hashFits(groups float64, out []nodes.Field) bool {
	set := b.pc.settings()
	if !set.Bool("enable_hashagg") {
		return false
	}
	entry := float64(width(out) + 48) // the row, its header and the entry
	return groups*entry <= float64(set.Int("work_mem"))*1024*math.Max(1, set.Real("hash_mem_multiplier"))
}

// projected projects a set operation's input p to the columns out and
// the flag column fl (nil: none): a leaf in its Subquery Scan, a UNION's
// HashAggregate by its own projection, anything else (an Append, a
// SetOp) in a Result.
func (b *setOpBuilder) projected(p nodes.Plan, out []nodes.Field, fl *nodes.Const) (nodes.Plan, error) {
	var extra []nodes.Expr
	fields := append([]nodes.Field(nil), out...)
	if fl != nil {
		extra = []nodes.Expr{fl}
		fields = append(fields, nodes.Field{Name: "flag", T: types.Int4T})
	}
	if _, leaf := b.leaf[p]; leaf {
		return projectTo(p, out, extra, b.alias(p))
	}
	in := p.Base().Out
	targets := make([]nodes.Expr, 0, len(out)+1)
	for c, f := range in {
		e, err := coerce(&nodes.ColumnRef{Index: c, Name: f.Name, T: f.T}, out[c].T, types.CastImplicit)
		if err != nil {
			return nil, err
		}
		targets = append(targets, e)
	}
	targets = append(targets, extra...)
	if agg, ok := p.(*nodes.Agg); ok && agg.Targets == nil {
		agg.Targets, agg.Out = targets, fields
		return agg, nil
	}
	res := &nodes.ResultProject{Child: p}
	res.Targets, res.Out = targets, fields
	return res, nil
}

// sideGroups estimates the groups of a set operation's input, as
// estimate_num_groups does over its columns: a column that casts a
// column below counts that column's distinct values.
func sideGroups(p nodes.Plan, ncols int) float64 {
	groups := 1.0
	for c := range ncols {
		st := columnStats(p, c)
		if ss, ok := p.(*nodes.SubqueryScan); ok && st == nil && c < len(ss.Targets) {
			if cast, ok := ss.Targets[c].(*nodes.Cast); ok {
				if ref, ok := cast.Arg.(*nodes.ColumnRef); ok {
					st = columnStats(ss.Child, ref.Index)
				}
			}
		}
		if st == nil {
			groups *= 200
			continue
		}
		nd := st.NDistinct
		if st.NullFrac > 0 {
			nd++
		}
		groups *= nd
	}
	return math.Max(1, math.Min(groups, math.Max(p.Base().Rows, 1)))
}

// setOpSortKeys are the Sort's keys over the Append: every compared
// column, printed as PostgreSQL deparses the Append's columns, from its
// first input's ("(("*SELECT* 1".a)::bigint)").
func setOpSortKeys(first nodes.Plan, out []nodes.Field) []nodes.SortKey {
	keys := make([]nodes.SortKey, len(out))
	ss, _ := first.(*nodes.SubqueryScan)
	for i, f := range out {
		ref := &nodes.ColumnRef{Index: i, Name: f.Name, T: f.T}
		if ss != nil && ss.Alias != "" && i < len(ss.Targets) {
			if text, ok := qualifiedColumn(ss.Alias, ss.Child.Base().Out, ss.Targets[i]); ok {
				ref.Name, ref.Raw = text, true
			}
		}
		keys[i] = nodes.SortKey{Expr: ref}
	}
	return keys
}

// qualifiedColumn prints e, a column of a subquery's input or a cast of
// one, qualified with the subquery's alias.
func qualifiedColumn(alias string, in []nodes.Field, e nodes.Expr) (string, bool) {
	name := func(c *nodes.ColumnRef) string {
		return nodes.QuoteIdent(alias) + "." + nodes.QuoteIdent(in[c.Index].Name)
	}
	switch x := e.(type) {
	case *nodes.ColumnRef:
		return name(x), true
	case *nodes.Cast:
		if c, ok := x.Arg.(*nodes.ColumnRef); ok {
			return "((" + name(c) + ")::" + x.T.String() + ")", true
		}
	}
	return "", false
}

// estimateSetOp estimates a SetOp as PostgreSQL's
// generate_nonunion_paths does (rows: the groups it returns, the rows of
// the smaller input for INTERSECT ALL, of the left for EXCEPT ALL), and
// a Result over a set operation as a projection.
func estimateSetOp(p nodes.Plan) (rows, startup, total float64) {
	switch n := p.(type) {
	case *nodes.ResultProject:
		cb := n.Child.Base()
		return cb.Rows, cb.StartupCost, cb.TotalCost + cb.Rows*cpuTupleCost
	case *nodes.SetOp:
		cb := n.Child.Base()
		app, ok := n.Child.(*nodes.Append)
		if s, isSort := n.Child.(*nodes.Sort); isSort {
			app, ok = s.Child.(*nodes.Append)
		}
		if !ok || len(app.Kids) != 2 {
			return cb.Rows, cb.StartupCost, cb.TotalCost
		}
		l, r := app.Kids[0], app.Kids[1]
		if n.FirstFlag == 1 {
			l, r = r, l
		}
		lg, rg := sideGroups(l, n.FlagCol), sideGroups(r, n.FlagCol)
		lr, rr := l.Base().Rows, r.Base().Rows
		switch n.Cmd {
		case nodes.SetOpIntersect:
			rows = math.Min(lg, rg)
		case nodes.SetOpIntersectAll:
			rows = math.Min(lr, rr)
		case nodes.SetOpExcept:
			rows = lg
		default:
			rows = lr
		}
		work := cpuOperatorCost * cb.Rows * float64(n.FlagCol)
		if n.Strategy == nodes.SetOpHashed {
			return rows, cb.TotalCost + work, cb.TotalCost + work
		}
		return rows, cb.StartupCost, cb.TotalCost + work
	}
	return 0, 0, 0
}
