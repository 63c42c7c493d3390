package planner

// Row and cost estimates, bottom-up, with PostgreSQL's default cost
// constants and simple selectivity rules (DEFAULT_EQ_SEL 0.005,
// DEFAULT_INEQ_SEL 1/3, 0.5 for anything else). Costs are in
// PostgreSQL's units (seq_page_cost = 1) so plans read familiarly, but
// they are pgfed's own model, not PostgreSQL's numbers.

import (
	"math"
	"sort"
	"strings"

	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

const (
	cpuTupleCost    = 0.01
	cpuOperatorCost = 0.0025
	rowsPerPage     = 100
)

// colStats returns the statistics of the input column an expression's
// ColumnRef names, or nil when unknown.
type colStats func(idx int) *storage.ColumnStats

// scanStats resolves a scan's input columns to its table's statistics.
func scanStats(s *nodes.SeqScan) colStats {
	st := s.Table.Stats()
	return func(idx int) *storage.ColumnStats {
		if st == nil || idx >= len(s.Columns) || s.Columns[idx] < 0 {
			return nil // system columns have no statistics
		}
		return &st[s.Columns[idx]]
	}
}

func selectivity(e nodes.Expr) float64 { return selectivityWith(e, nil) }

// selectivityWith estimates the fraction of rows e keeps, from the
// statistics cs gives for its columns (selfuncs.go) where they apply.
func selectivityWith(e nodes.Expr, cs colStats) float64 {
	switch x := e.(type) {
	case *nodes.OpExpr:
		if sel, ok := opSelectivity(x, cs); ok {
			return sel
		}
	case *nodes.ColumnRef:
		if sel, ok := boolColumnSel(x, cs); ok {
			return sel
		}
	case *nodes.InList:
		if sel, ok := inListSel(x, cs); ok {
			return sel
		}
	case *nodes.DistinctExpr:
		return distinctSel(x, cs)
	case *nodes.NullTest:
		if c, ok := x.Arg.(*nodes.ColumnRef); ok && cs != nil {
			if st := cs(c.Index); st != nil {
				if x.IsNot {
					return 1 - st.NullFrac
				}
				return st.NullFrac
			}
		}
	case *nodes.BoolExpr:
		switch x.Op {
		case nodes.And:
			return andSelectivity(x.Args, cs)
		case nodes.Or:
			s := 0.0
			for _, a := range x.Args {
				sa := selectivityWith(a, cs)
				s = s + sa - s*sa
			}
			return s
		default:
			return 1 - selectivityWith(x.Args[0], cs)
		}
	}
	return defaultSelectivity(e)
}

func defaultSelectivity(e nodes.Expr) float64 {
	switch x := e.(type) {
	case nil:
		return 1
	case *nodes.BoolExpr:
		switch x.Op {
		case nodes.And:
			return andSelectivity(x.Args, nil)
		case nodes.Or:
			s := 0.0
			for _, a := range x.Args {
				sa := selectivity(a)
				s = s + sa - s*sa
			}
			return s
		default:
			return 1 - selectivity(x.Args[0])
		}
	case *nodes.OpExpr:
		switch x.Op {
		case "=":
			return 0.005
		case "<>":
			return 0.995
		case "<", "<=", ">", ">=":
			return 1.0 / 3
		case "~~", "~~*", "!~~", "!~~*":
			if p, ok := likePattern(x.Right); ok {
				sel := likeSelectivity(p)
				if strings.HasPrefix(x.Op, "!") {
					return 1 - sel
				}
				return sel
			}
		}
	case *nodes.NullTest:
		if x.IsNot {
			return 0.995
		}
		return 0.005
	case *nodes.DistinctExpr:
		return distinctSel(x, nil)
	case *nodes.InList:
		return math.Min(0.5, 0.005*float64(len(x.List)))
	}
	return 0.5
}

func typeWidth(t types.T) int {
	switch t.ID {
	case types.Bool:
		return 1
	case types.Int2:
		return 2
	case types.Int4, types.Float4, types.Date:
		return 4
	case types.Int8, types.Float8, types.Timestamp, types.TimestampTZ:
		return 8
	case types.IntervalType:
		return 16
	case types.Name:
		return types.NameDataLen // fixed-length: typlen 64
	}
	if t.Len > 0 {
		return int(t.Len) + 4
	}
	return 32
}

func width(fs []nodes.Field) int {
	w := 0
	for _, f := range fs {
		w += typeWidth(f.T)
	}
	return w
}

func countOps(es ...nodes.Expr) float64 {
	n := 0
	for _, e := range es {
		nodes.WalkExpr(e, func(x nodes.Expr) {
			switch x.(type) {
			case *nodes.OpExpr, *nodes.FuncExpr, *nodes.Cast, *nodes.InList, *nodes.CaseExpr:
				n++
			}
		})
	}
	return float64(n)
}

// estimate fills Rows, Width and costs of p and its descendants.
func estimate(p nodes.Plan) { estimateShare(p, 1) }

// estimateShare estimates p as run by each participant of a Gather whose
// parallel divisor is div (1 outside a Gather): a parallel-aware scan's
// rows and CPU cost are divided among the participants, as PostgreSQL's
// partial paths are.
func estimateShare(p nodes.Plan, div float64) {
	childDiv := div
	switch g := p.(type) {
	case *nodes.Gather:
		childDiv = 1
		if !g.SingleCopy {
			childDiv = divisor(g.Workers, g.LeaderParticipates)
		}
	case *nodes.GatherMerge:
		childDiv = divisor(g.Workers, g.LeaderParticipates)
	}
	for _, c := range p.Children() {
		estimateShare(c, childDiv)
	}
	b := p.Base()
	var rows, startup, total float64
	switch n := p.(type) {
	case *nodes.SeqScan:
		in := float64(n.Table.Rows())
		pages := math.Ceil(in / rowsPerPage)
		share := 1.0
		if n.Parallel {
			share = div
		}
		rows = in / share
		total = pages + (in*cpuTupleCost+in*cpuOperatorCost*countOps(b.Filter))/share
	case *nodes.Gather:
		cb := n.Child.Base()
		rows = cb.Rows * childDiv
		startup = cb.StartupCost + n.SetupCost
		total = cb.TotalCost + n.SetupCost + n.TupleCost*rows
	case *nodes.GatherMerge:
		cb := n.Child.Base()
		rows = cb.Rows * childDiv
		inputs := float64(n.Workers + 1)
		logN := math.Log2(inputs)
		cmp := 2 * cpuOperatorCost
		startup = cb.StartupCost + n.SetupCost + cmp*inputs*logN
		total = startup + (cb.TotalCost - cb.StartupCost) + rows*(cmp*logN+cpuOperatorCost) + n.TupleCost*rows*1.05
	case *nodes.ForeignScan:
		// Without remote statistics postgres_fdw assumes 1000 rows for a
		// never-analyzed table; costs use its defaults (fdw_startup_cost
		// 100, fdw_tuple_cost 0.01 in PostgreSQL 15) unless the server or
		// table says otherwise.
		rows = 1000
		for _, c := range n.RemoteConds {
			rows *= selectivity(c)
		}
		if n.Grouped {
			rows = 1
			if len(n.GroupKeys) > 0 {
				rows = math.Min(200, rows)
			}
		}
		if c, ok := n.Limit.(*nodes.Const); ok && c.Value != nil {
			rows = math.Min(rows, float64(c.Value.(int64)))
		}
		startup = n.FDWStartupCost
		total = startup + rows*(cpuTupleCost+n.FDWTupleCost)
	case *nodes.Result:
		rows, total = 1, 0.01
		if n.Empty {
			rows, total = 0, 0
		}
	case *nodes.ValuesScan:
		rows = float64(len(n.Rows))
		total = rows * cpuOperatorCost
	case *nodes.FunctionScan:
		rows, total = 1000, 10
		if len(n.Args) >= 2 {
			lo, ok1 := n.Args[0].(*nodes.Const)
			hi, ok2 := n.Args[1].(*nodes.Const)
			if ok1 && ok2 && lo.Value != nil && hi.Value != nil && lo.T.IsInteger() {
				rows = math.Max(0, float64(hi.Value.(int64)-lo.Value.(int64)+1))
				total = rows * cpuOperatorCost
			}
		}
	case *nodes.SubqueryScan:
		cb := n.Child.Base()
		rows, startup, total = cb.Rows, cb.StartupCost, cb.TotalCost+cb.Rows*cpuTupleCost
	case *nodes.Append:
		for _, k := range n.Kids {
			kb := k.Base()
			rows += kb.Rows
			total += kb.TotalCost
		}
		if len(n.Kids) > 0 {
			startup = n.Kids[0].Base().StartupCost
		}
	case *nodes.Agg:
		cb := n.Child.Base()
		startup = cb.TotalCost + cb.Rows*cpuOperatorCost*float64(len(n.Aggs)+len(n.GroupKeys))
		if n.GroupingSets != nil && n.Strategy == nodes.AggHashed {
			rows = groupingSetsEstimate(n, cb.Rows)
		} else if n.Strategy == nodes.AggPlain {
			rows = 1
		} else {
			rows = groupEstimate(n, cb.Rows)
		}
		total = startup + rows*cpuTupleCost
	case *nodes.Sort:
		cb := n.Child.Base()
		rows = cb.Rows
		nl := math.Max(rows, 2)
		startup = cb.TotalCost + 2*cpuOperatorCost*nl*math.Log2(nl)
		total = startup + rows*cpuOperatorCost
		if n.Bound > 0 && float64(n.Bound) < rows {
			rows = float64(n.Bound)
		}
	case *nodes.Limit:
		cb := n.Child.Base()
		rows, startup, total = cb.Rows, cb.StartupCost, cb.TotalCost
		perRow := 0.0
		if cb.Rows > 0 {
			perRow = (cb.TotalCost - cb.StartupCost) / cb.Rows
		}
		if c, ok := n.Offset.(*nodes.Const); ok {
			// adjust_limit_rows_costs: the skipped rows are read first.
			if off, ok := c.Value.(int64); ok && off > 0 {
				skipped := math.Min(float64(off), rows)
				startup += perRow * skipped
				rows = math.Max(1, rows-skipped)
			}
		}
		if c, ok := n.Count.(*nodes.Const); ok {
			if lim, ok := c.Value.(int64); ok && float64(lim) < rows {
				rows = math.Max(1, float64(lim))
			}
			total = startup + perRow*rows
		}
	case *nodes.Hash:
		cb := n.Child.Base()
		rows, startup, total = cb.Rows, cb.TotalCost, cb.TotalCost
		if n.Parallel {
			n.RowsTotal = math.Round(cb.Rows * div) // every participant's share
		}
	case *nodes.Material:
		cb := n.Child.Base()
		rows, startup, total = cb.Rows, cb.StartupCost, cb.TotalCost+2*cpuOperatorCost*cb.Rows
	case *nodes.Unique:
		cb := n.Child.Base()
		keys := make([]nodes.Expr, len(n.Keys))
		for i, k := range n.Keys {
			keys[i] = &nodes.ColumnRef{Index: k}
		}
		rows = numGroups(n.Child, keys, cb.Rows)
		startup = cb.StartupCost
		total = cb.TotalCost + cb.Rows*cpuOperatorCost*float64(len(n.Keys))
	case *nodes.SetOp, *nodes.ResultProject:
		rows, startup, total = estimateSetOp(p)
	case *nodes.CTEScan, *nodes.WorkTableScan, *nodes.RecursiveUnion:
		rows, startup, total = estimateCTENode(p)
	case *nodes.WindowAgg:
		cb := n.Child.Base()
		rows, startup = cb.Rows, cb.StartupCost
		total = cb.TotalCost + cb.Rows*cpuOperatorCost*float64(len(n.Funcs)+len(n.PartitionBy)+len(n.OrderBy))
	case *nodes.HashJoin:
		rows, startup, total = estimateHashJoin(n, div)
	case *nodes.MergeJoin:
		rows, startup, total = estimateMergeJoin(n)
		if isSemiOrAnti(n.Type) {
			okeys, ikeys := make([]nodes.Expr, len(n.MergeKeys)), make([]nodes.Expr, len(n.MergeKeys))
			for i, k := range n.MergeKeys {
				okeys[i], ikeys[i] = k.Outer, k.Inner
			}
			rows = semiJoinRows(n.Type, n.Outer, n.Inner, okeys, ikeys, selectivity(n.JoinFilter))
		}
	case *nodes.NestedLoop:
		ob, ib := n.Outer.Base(), n.Inner.Base()
		okeys, ikeys, rest := equalityKeys(n.JoinFilter, len(ob.Out))
		if isSemiOrAnti(n.Type) {
			rows = semiJoinRows(n.Type, n.Outer, n.Inner, okeys, ikeys, andSelectivity(rest, nil))
		} else {
			sel := andSelectivity(rest, nil)
			for i := range okeys {
				sel *= keySelectivity(n.Outer, okeys[i], n.Inner, ikeys[i])
			}
			rows = joinRows(n.Type, ob.Rows, ib.Rows, sel)
		}
		startup = ob.StartupCost + ib.StartupCost
		total = ob.TotalCost + ib.TotalCost + ob.Rows*ib.Rows*cpuOperatorCost*math.Max(1, countOps(n.JoinFilter)) + rows*cpuTupleCost
	case *nodes.ForeignModify:
		// postgres_fdw's defaults, as for a scan of the rows it changes.
		rows = 1000
		startup = 100
		total = startup + rows*(cpuTupleCost+0.01)
	case *nodes.ModifyTable:
		if n.Child != nil {
			cb := n.Child.Base()
			startup, total = cb.StartupCost, cb.TotalCost+cb.Rows*cpuTupleCost
		}
		rows = 0
	}
	if _, isScan := p.(*nodes.SeqScan); isScan || b.Filter != nil {
		if b.Filter != nil {
			var cs colStats
			if s, ok := p.(*nodes.SeqScan); ok {
				cs = scanStats(s)
			}
			if anti, ok := nullExtendedRows(p, b.Filter); ok {
				rows = anti
			} else {
				rows *= selectivityWith(b.Filter, cs)
			}
			if _, isScan := p.(*nodes.SeqScan); !isScan {
				total += rows * cpuOperatorCost
			}
		}
	}
	for _, sp := range nodes.SubPlansOf(p) {
		estimate(sp.Plan) // shown by EXPLAIN; its cost is not charged (yet)
	}
	for _, c := range b.CTEs {
		// As an InitPlan's, a CTE's cost is charged to the node holding it.
		estimate(c.Plan)
		startup += c.Plan.Base().TotalCost
		total += c.Plan.Base().TotalCost
	}
	for _, ip := range b.InitPlans {
		// An InitPlan runs before the node returns anything.
		estimate(ip.Plan)
		startup += ip.Plan.Base().TotalCost
		total += ip.Plan.Base().TotalCost
	}
	b.Rows = clampRowEst(p, rows)
	b.StartupCost, b.TotalCost = round2(startup), round2(math.Max(total, startup))
	b.Width = width(b.Out)
}

// estimateHashJoin estimates a hash join: eqjoinsel's selectivity for
// each key pair whose columns have statistics (DEFAULT_EQ_SEL otherwise).
// A Parallel Hash Join (under a Gather of divisor div) hashes its share of
// the inner rows but probes the table of all of them.
func estimateHashJoin(n *nodes.HashJoin, div float64) (rows, startup, total float64) {
	ob, ib := n.Outer.Base(), n.Inner.Child.Base()
	keySels := make([]float64, len(n.OuterKeys))
	for i := range n.OuterKeys {
		keySels[i] = keySelectivity(n.Outer, n.OuterKeys[i], n.Inner.Child, n.InnerKeys[i])
	}
	innerRows := ib.Rows
	if n.Parallel {
		innerRows *= div
	}
	sel := selectivity(n.JoinFilter) * combinedSelectivity(keySels, ob.Rows, innerRows)
	rows = joinRows(n.Type, ob.Rows, innerRows, sel)
	if isSemiOrAnti(n.Type) && !n.Parallel {
		rows = semiJoinRows(n.Type, n.Outer, n.Inner.Child, n.OuterKeys, n.InnerKeys, selectivity(n.JoinFilter))
	}
	keys := float64(len(n.OuterKeys))
	startup = ib.TotalCost + ib.Rows*(cpuOperatorCost*keys+cpuTupleCost)
	total = startup + ob.TotalCost + ob.Rows*cpuOperatorCost*keys + rows*cpuTupleCost
	return rows, startup, total
}

// combinedSelectivity is the selectivity of several equalities between
// the same inputs: the most selective counts whole, each next one half as
// much in the exponent (exponential backoff), because such keys are
// rarely independent (TPC-H's l_partkey, l_suppkey = ps_partkey,
// ps_suppkey is one key); multiplying them all made joins look like one
// row and put the big side into the hash table. Nor can several keys
// together select more than one key unique in the bigger input would:
// they have at most as many distinct values in an input as it has rows,
// so eqjoinsel over them is at least 1/max(rows1, rows2). (Without the
// bound, TPC-H Q9's lineitem-partsupp join, one partsupp row for every
// lineitem row, looked like 240k rows of 6M and was done first.)
func combinedSelectivity(sels []float64, rows1, rows2 float64) float64 {
	sorted := append([]float64(nil), sels...)
	sort.Float64s(sorted)
	out, exp := 1.0, 1.0
	for _, s := range sorted {
		out *= math.Pow(s, exp)
		exp /= 2
	}
	if len(sels) > 1 {
		out = math.Max(out, 1/math.Max(math.Max(rows1, rows2), 1))
	}
	return out
}

// keySelectivity is eqjoinsel for an inner join's key pair: the share of
// pairs whose keys are equal.
func keySelectivity(op nodes.Plan, ok nodes.Expr, ip nodes.Plan, ik nodes.Expr) float64 {
	return eqJoinSel(joinKey(op, ok), joinKey(ip, ik))
}

func isSemiOrAnti(t nodes.JoinType) bool {
	switch t {
	case nodes.JoinSemi, nodes.JoinAnti, nodes.JoinRightSemi, nodes.JoinRightAnti:
		return true
	}
	return false
}

// semiJoinRows is calc_joinrel_size_estimate for a semi or anti join:
// the rows of the side it returns times the fraction of them that have
// a partner (eqjoinsel_semi for each key, filterSel for the other
// conditions), or that have none.
func semiJoinRows(t nodes.JoinType, outer, inner nodes.Plan, outerKeys, innerKeys []nodes.Expr, filterSel float64) float64 {
	kept, other, keptKeys, otherKeys := outer, inner, outerKeys, innerKeys
	if t == nodes.JoinRightSemi || t == nodes.JoinRightAnti {
		kept, other, keptKeys, otherKeys = inner, outer, innerKeys, outerKeys
	}
	if len(keptKeys) == 0 && filterSel == 1 {
		// Nothing links the sides (an uncorrelated EXISTS): whether the
		// other side is empty decides for all rows, and PostgreSQL's
		// one-time filter keeps the estimate of all of them.
		return kept.Base().Rows
	}
	sel := filterSel
	for i := range keptKeys {
		sel *= eqJoinSelSemi(joinKey(kept, keptKeys[i]), joinKey(other, otherKeys[i]))
	}
	if t == nodes.JoinAnti || t == nodes.JoinRightAnti {
		sel = 1 - sel
	}
	return kept.Base().Rows * sel
}

// equalityKeys splits a nested loop's join filter into the equalities of
// an outer column (below nOuter) with an inner one, as key pairs in the
// inputs' own numbering, and the other conditions.
func equalityKeys(filter nodes.Expr, nOuter int) (outerKeys, innerKeys, rest []nodes.Expr) {
	var conds []nodes.Expr
	if b, ok := filter.(*nodes.BoolExpr); ok && b.Op == nodes.And {
		conds = b.Args
	} else if filter != nil {
		conds = []nodes.Expr{filter}
	}
	for _, c := range conds {
		op, ok := asEquality(c)
		if ok {
			l, lok := statColumn(op.Left)
			r, rok := statColumn(op.Right)
			if lok && rok && (l.Index < nOuter) != (r.Index < nOuter) {
				if r.Index < nOuter {
					l, r = r, l
				}
				inner := *r
				inner.Index -= nOuter
				outerKeys, innerKeys = append(outerKeys, l), append(innerKeys, &inner)
				continue
			}
		}
		rest = append(rest, c)
	}
	return outerKeys, innerKeys, rest
}

// nullExtendedRows estimates a left (or right) join filtered on a join
// key of its nullable side being NULL (WHERE b.id IS NULL: the preserved
// rows without a match) as the anti join PostgreSQL reduces it to.
func nullExtendedRows(p nodes.Plan, filter nodes.Expr) (float64, bool) {
	nt, ok := filter.(*nodes.NullTest)
	if !ok || nt.IsNot {
		return 0, false
	}
	col, ok := nt.Arg.(*nodes.ColumnRef)
	if !ok {
		return 0, false
	}
	var t nodes.JoinType
	var outer, inner nodes.Plan
	var okeys, ikeys []nodes.Expr
	var joinFilter nodes.Expr
	switch n := p.(type) {
	case *nodes.HashJoin:
		t, outer, inner, okeys, ikeys, joinFilter = n.Type, n.Outer, n.Inner.Child, n.OuterKeys, n.InnerKeys, n.JoinFilter
	case *nodes.MergeJoin:
		t, outer, inner, joinFilter = n.Type, n.Outer, n.Inner, n.JoinFilter
		for _, k := range n.MergeKeys {
			okeys, ikeys = append(okeys, k.Outer), append(ikeys, k.Inner)
		}
	default:
		return 0, false
	}
	nOuter := len(outer.Base().Out)
	nullable, idx, anti := ikeys, col.Index-nOuter, nodes.JoinAnti
	switch t {
	case nodes.JoinLeft:
	case nodes.JoinRight:
		nullable, idx, anti = okeys, col.Index, nodes.JoinRightAnti
	default:
		return 0, false
	}
	for _, k := range nullable {
		if strictIn(k, idx) {
			return semiJoinRows(anti, outer, inner, okeys, ikeys, selectivity(joinFilter)), true
		}
	}
	return 0, false
}

// strictIn reports whether e reads column idx through operators and
// casts only, so that a NULL there makes e NULL (and the key unmatched).
func strictIn(e nodes.Expr, idx int) bool {
	switch x := e.(type) {
	case *nodes.ColumnRef:
		return x.Index == idx
	case *nodes.Cast:
		return strictIn(x.Arg, idx)
	case *nodes.OpExpr:
		return strictIn(x.Left, idx) || strictIn(x.Right, idx)
	}
	return false
}

// asEquality returns a = b for an equality join condition: a = b itself,
// or a IS NOT DISTINCT FROM b (which matches NULLs too).
func asEquality(e nodes.Expr) (*nodes.OpExpr, bool) {
	switch x := e.(type) {
	case *nodes.OpExpr:
		return x, x.Op == "="
	case *nodes.DistinctExpr:
		return &nodes.OpExpr{Op: "=", Left: x.Left, Right: x.Right}, x.Not
	case *nodes.BoolExpr:
		if d, ok := x.Args[0].(*nodes.DistinctExpr); ok && x.Op == nodes.Not && !d.Not {
			return &nodes.OpExpr{Op: "=", Left: d.Left, Right: d.Right}, true
		}
	}
	return nil, false
}

// joinRows is calc_joinrel_size_estimate: an outer join returns at least
// its preserved rows.
func joinRows(t nodes.JoinType, outer, inner, sel float64) float64 {
	rows := outer * inner * sel
	switch t {
	case nodes.JoinLeft:
		rows = math.Max(rows, outer)
	case nodes.JoinRight:
		rows = math.Max(rows, inner)
	case nodes.JoinFull:
		rows = math.Max(math.Max(rows, outer), inner)
	case nodes.JoinSemi:
		rows = outer * math.Min(1, sel*inner)
	case nodes.JoinAnti:
		rows = outer * (1 - math.Min(1, sel*inner))
	case nodes.JoinRightSemi:
		rows = inner * math.Min(1, sel*outer)
	case nodes.JoinRightAnti:
		rows = inner * (1 - math.Min(1, sel*outer))
	}
	return rows
}

// columnStats follows output column idx of p down to the table column it
// reads, and returns that column's statistics (nil when it is computed or
// unknown).
func columnStats(p nodes.Plan, idx int) *storage.ColumnStats {
	st, _ := columnOrigin(p, idx)
	return st
}

// columnOrigin is columnStats with the scan the column comes from.
func columnOrigin(p nodes.Plan, idx int) (*storage.ColumnStats, *nodes.SeqScan) {
	for {
		b := p.Base()
		if b.Targets != nil {
			if idx >= len(b.Targets) {
				return nil, nil
			}
			c, ok := b.Targets[idx].(*nodes.ColumnRef)
			if !ok {
				return nil, nil
			}
			idx = c.Index
		}
		switch n := p.(type) {
		case *nodes.SeqScan:
			if st := scanStats(n)(idx); st != nil {
				return st, n
			}
			return nil, nil
		case *nodes.HashJoin:
			p, idx = joinSide(n.Type, n.Outer, n.Inner.Child, idx)
		case *nodes.NestedLoop:
			p, idx = joinSide(n.Type, n.Outer, n.Inner, idx)
		case *nodes.MergeJoin:
			p, idx = joinSide(n.Type, n.Outer, n.Inner, idx)
		case *nodes.Hash, *nodes.Material, *nodes.SubqueryScan, *nodes.Sort, *nodes.Limit, *nodes.Gather, *nodes.GatherMerge, *nodes.WindowAgg:
			p = n.Children()[0]
		default:
			return nil, nil
		}
		if p == nil {
			return nil, nil
		}
	}
}

// joinSide maps a join's own column idx to its input and position there.
func joinSide(t nodes.JoinType, outer, inner nodes.Plan, idx int) (nodes.Plan, int) {
	if t.OwnRowsAreInner() {
		return inner, idx
	}
	n := len(outer.Base().Out)
	if idx < n {
		return outer, idx
	}
	if t.OwnRowsAreOuter() {
		return nil, 0
	}
	return inner, idx - n
}

// groupEstimate estimates the groups of a grouping Agg
// (estimate_num_groups over its keys).
func groupEstimate(n *nodes.Agg, inRows float64) float64 {
	return numGroups(n.Child, n.GroupKeys, inRows)
}

// groupVar is a column grouped on: its statistics and the scan it
// comes from (nil when unknown).
type groupVar struct {
	st   *storage.ColumnStats
	scan *nodes.SeqScan
}

// numGroups is estimate_num_groups: keys without columns (constants)
// form one group; a key over columns groups like those columns; each
// column counts its distinct values (plus one for NULL, 200 without
// statistics); the columns of one scanned table multiply up to that
// table's rows, reduced for the rows its filter keeps (the distinct
// values expected among them); the tables multiply, up to the input's
// rows.
func numGroups(child nodes.Plan, keys []nodes.Expr, inRows float64) float64 {
	seen := map[int]bool{}
	perScan := map[*nodes.SeqScan]float64{}
	var scans []*nodes.SeqScan
	groups := 1.0
	for _, k := range keys {
		nodes.WalkExpr(k, func(e nodes.Expr) {
			c, ok := e.(*nodes.ColumnRef)
			if !ok || seen[c.Index] {
				return
			}
			seen[c.Index] = true
			if isConstColumn(child, c.Index) {
				return // one value: one group
			}
			st, scan := columnOrigin(child, c.Index)
			nd := float64(defaultNumDistinct)
			if st != nil {
				nd = st.NDistinct
				if st.NullFrac > 0 {
					nd++
				}
			}
			if scan == nil {
				groups *= nd
				return
			}
			if _, ok := perScan[scan]; !ok {
				perScan[scan] = 1
				scans = append(scans, scan)
			}
			perScan[scan] *= nd
		})
	}
	for _, scan := range scans {
		tuples, rows := float64(scan.Table.Rows()), scan.Base().Rows
		if scan.Parallel {
			rows = tuples // its Rows are one participant's share
		}
		groups *= restrictedDistinct(perScan[scan], tuples, rows)
	}
	return math.Max(1, math.Min(groups, math.Max(inRows, 1)))
}

// isConstColumn reports whether p's output column idx is a constant.
func isConstColumn(p nodes.Plan, idx int) bool {
	ts := p.Base().Targets
	if idx >= len(ts) {
		return false
	}
	_, ok := ts[idx].(*nodes.Const)
	return ok
}

// restrictedDistinct is the distinct combinations, of nd among a table's
// tuples, expected in the rows its filter keeps (estimate_num_groups'
// formula for selecting rows at random).
func restrictedDistinct(nd, tuples, rows float64) float64 {
	nd = math.Min(nd, math.Max(tuples, 1))
	if tuples > 0 && rows < tuples {
		nd *= 1 - math.Pow((tuples-rows)/tuples, tuples/nd)
	}
	return math.Max(1, math.Min(nd, math.Max(rows, 1)))
}

// clampRowEst is clamp_row_est: whole rows, at least one (an estimate of
// none would make everything above it look free), except for what
// returns no rows by construction: a Result over a false condition, a
// ModifyTable without RETURNING.
func clampRowEst(p nodes.Plan, rows float64) float64 {
	switch n := p.(type) {
	case *nodes.Result:
		if n.Empty {
			return 0
		}
	case *nodes.ModifyTable, *nodes.ForeignModify:
		return math.Max(0, math.Round(rows))
	}
	return math.Max(1, math.Round(rows))
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// likeSelectivity is PostgreSQL's like_selectivity heuristic for a
// pattern without statistics: leading wildcards are skipped (they match
// anything), then each literal character keeps a fifth of the rows
// (FIXED_CHAR_SEL), each _ nine tenths, and each % multiplies by
// FULL_WILDCARD_SEL (5), clamped to [0.0001, 1]: '%green%' is 0.16%,
// where the flat 0.5 of other operators made a LIKE-filtered table look
// like half of itself.
func likeSelectivity(pattern string) float64 {
	sel := 1.0
	start := 0
	for start < len(pattern) && (pattern[start] == '%' || pattern[start] == '_') {
		start++
	}
	for i := start; i < len(pattern); i++ {
		switch pattern[i] {
		case '%':
			sel *= 5
		case '_':
			sel *= 0.9
		case '\\':
			i++
			sel *= 0.2
		default:
			sel *= 0.2
		}
	}
	return math.Min(1, math.Max(sel, 0.0001))
}
