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

func selectivityWith(e nodes.Expr, cs colStats) float64 {
	stat := func(x nodes.Expr) *storage.ColumnStats {
		if c, ok := x.(*nodes.ColumnRef); ok && cs != nil {
			return cs(c.Index)
		}
		return nil
	}
	switch x := e.(type) {
	case *nodes.OpExpr:
		if x.Op == "=" || x.Op == "<>" {
			st := stat(x.Left)
			if _, isConst := x.Right.(*nodes.Const); st == nil || !isConst {
				if st = stat(x.Right); st != nil {
					if _, isConst = x.Left.(*nodes.Const); !isConst {
						st = nil
					}
				}
			}
			if st != nil {
				eq := (1 - st.NullFrac) / st.NDistinct
				if x.Op == "=" {
					return eq
				}
				return 1 - st.NullFrac - eq
			}
		}
	case *nodes.NullTest:
		if st := stat(x.Arg); st != nil {
			if x.IsNot {
				return 1 - st.NullFrac
			}
			return st.NullFrac
		}
	case *nodes.BoolExpr:
		switch x.Op {
		case nodes.And:
			s := 1.0
			for _, a := range x.Args {
				s *= selectivityWith(a, cs)
			}
			return s
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
			s := 1.0
			for _, a := range x.Args {
				s *= selectivity(a)
			}
			return s
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
			if c, ok := x.Right.(*nodes.Const); ok && c.Value != nil {
				if p, ok := c.Value.(string); ok {
					sel := likeSelectivity(p)
					if strings.HasPrefix(x.Op, "!") {
						return 1 - sel
					}
					return sel
				}
			}
		}
	case *nodes.NullTest:
		if x.IsNot {
			return 0.995
		}
		return 0.005
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
		if c, ok := n.Count.(*nodes.Const); ok && c.Value != nil && cb.Rows > 0 {
			lim := math.Min(float64(c.Value.(int64)), cb.Rows)
			total = startup + (total-startup)*lim/cb.Rows
			rows = lim
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
	case *nodes.NestedLoop:
		ob, ib := n.Outer.Base(), n.Inner.Base()
		rows = joinRows(n.Type, ob.Rows, ib.Rows, selectivity(n.JoinFilter))
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
			rows *= selectivityWith(b.Filter, cs)
			if _, isScan := p.(*nodes.SeqScan); !isScan {
				total += rows * cpuOperatorCost
			}
		}
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
	b.Rows = math.Max(0, math.Round(rows))
	if b.Rows < 1 && rows > 0 {
		b.Rows = 1
	}
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
	sel := selectivity(n.JoinFilter) * combinedSelectivity(keySels)
	innerRows := ib.Rows
	if n.Parallel {
		innerRows *= div
	}
	rows = joinRows(n.Type, ob.Rows, innerRows, sel)
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
// row and put the big side into the hash table.
func combinedSelectivity(sels []float64) float64 {
	sorted := append([]float64(nil), sels...)
	sort.Float64s(sorted)
	out, exp := 1.0, 1.0
	for _, s := range sorted {
		out *= math.Pow(s, exp)
		exp /= 2
	}
	return out
}

// keySelectivity is eqjoinsel without MCV lists: the share of pairs whose
// keys are equal.
func keySelectivity(op nodes.Plan, ok nodes.Expr, ip nodes.Plan, ik nodes.Expr) float64 {
	nd := func(p nodes.Plan, k nodes.Expr) (float64, float64) {
		if c, isCol := k.(*nodes.ColumnRef); isCol {
			if st := columnStats(p, c.Index); st != nil {
				return st.NDistinct, st.NullFrac
			}
		}
		return math.Min(200, math.Max(p.Base().Rows, 1)), 0
	}
	nd1, nf1 := nd(op, ok)
	nd2, nf2 := nd(ip, ik)
	return (1 - nf1) * (1 - nf2) / math.Max(math.Max(nd1, nd2), 1)
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
	for {
		b := p.Base()
		if b.Targets != nil {
			if idx >= len(b.Targets) {
				return nil
			}
			c, ok := b.Targets[idx].(*nodes.ColumnRef)
			if !ok {
				return nil
			}
			idx = c.Index
		}
		switch n := p.(type) {
		case *nodes.SeqScan:
			return scanStats(n)(idx)
		case *nodes.HashJoin:
			p, idx = joinSide(n.Type, n.Outer, n.Inner.Child, idx)
		case *nodes.NestedLoop:
			p, idx = joinSide(n.Type, n.Outer, n.Inner, idx)
		case *nodes.MergeJoin:
			p, idx = joinSide(n.Type, n.Outer, n.Inner, idx)
		case *nodes.Hash, *nodes.Material, *nodes.SubqueryScan, *nodes.Sort, *nodes.Limit, *nodes.Gather, *nodes.GatherMerge, *nodes.WindowAgg:
			p = n.Children()[0]
		default:
			return nil
		}
		if p == nil {
			return nil
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

// groupEstimate estimates the groups of a hashed Agg: the product of the
// keys' distinct counts when they are columns of a scanned table, else
// PostgreSQL's default of 200 (capped by the input rows).
func groupEstimate(n *nodes.Agg, inRows float64) float64 {
	groups := 1.0
	for _, k := range n.GroupKeys {
		c, isCol := k.(*nodes.ColumnRef)
		var st *storage.ColumnStats
		if isCol {
			st = columnStats(n.Child, c.Index)
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
	return math.Max(1, math.Min(groups, math.Max(inRows, 1)))
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// likeSelectivity is PostgreSQL's like_selectivity heuristic for a
// pattern without statistics: each literal character keeps a fifth of
// the rows (FIXED_CHAR_SEL), each _ nine tenths, and each % multiplies
// by FULL_WILDCARD_SEL (5), clamped to [0.0001, 1]: '%green%' is about
// 0.8%, where the flat 0.5 of other operators made a LIKE-filtered table
// look like half of itself.
func likeSelectivity(pattern string) float64 {
	sel := 1.0
	for i := 0; i < len(pattern); i++ {
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
