package instrument

import (
	"strconv"
	"strings"
	"time"

	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/storage"
)

// ExplainOptions are EXPLAIN's options, already defaulted by the caller
// (COSTS on, TIMING on with ANALYZE, SUMMARY on with ANALYZE).
type ExplainOptions struct {
	Analyze, Verbose, Costs, Timing, Summary bool
	Format                                   string // "text" or "json"
	// PlanningTime is shown when Summary is set (also without ANALYZE, when
	// SUMMARY was given explicitly); ExecutionTime only with ANALYZE too.
	PlanningTime, ExecutionTime time.Duration
}

// Explain renders plan p (with stats, nil unless ANALYZE) as the rows of
// EXPLAIN's "QUERY PLAN" column: one row per line for TEXT, one row for JSON.
//
// The layout follows PostgreSQL 15's explain.c: the same properties in the
// same order, the same indentation and number formats, so that output can
// be compared with PostgreSQL's byte for byte.
func Explain(p nodes.Plan, stats *Stats, o ExplainOptions) []string {
	e := &explainer{
		o:      o,
		stats:  stats,
		w:      writer{json: strings.EqualFold(o.Format, "json")},
		prefix: countRelations(p) > 1,
	}
	w := &e.w
	if w.json {
		// One object per query inside an array, as PostgreSQL prints it
		// (ExplainBeginOutput, ExplainOpenGroup("Query")).
		w.buf.WriteString("[")
		w.empty = append(w.empty, true)
		w.indent++
		w.openGroup("", false)
	}
	e.node(p, "", 0)
	if o.Summary {
		w.numProp("Planning Time", millis(o.PlanningTime), "ms")
	}
	if o.Analyze && w.json {
		// PostgreSQL lists the fired triggers here; pgfed has none, and
		// only JSON (not TEXT) shows the empty list.
		w.openGroup("Triggers", true)
		w.closeGroup(true)
	}
	if o.Summary && o.Analyze {
		w.numProp("Execution Time", millis(o.ExecutionTime), "ms")
	}
	if w.json {
		w.closeGroup(false)
		w.buf.WriteString("\n]")
		return []string{w.buf.String()}
	}
	return strings.Split(strings.TrimSuffix(w.buf.String(), "\n"), "\n")
}

// explainer walks a plan, writing each node like PostgreSQL's ExplainNode.
type explainer struct {
	o     ExplainOptions
	stats *Stats
	w     writer
	// prefix qualifies the column names EXPLAIN VERBOSE makes up for scans
	// with their relation, as PostgreSQL does when the query's range table
	// has more than one entry.
	prefix bool
	// subplan names the InitPlan node about to be written (JSON's
	// "Subplan Name").
	subplan string
}

// node writes plan p. relationship is PostgreSQL's "Parent Relationship"
// ("" for the root); member is p's 1-based position among the children
// of an Append (0 otherwise), which names unaliased UNION arms.
func (e *explainer) node(p nodes.Plan, relationship string, member int) {
	if g, ok := p.(*nodes.Gather); ok && g.Invisible {
		e.node(g.Child, relationship, member)
		return
	}
	w := &e.w
	b := p.Base()
	ns := e.nodeStats(b.ID)
	_, isAppend := p.(*nodes.Append)
	saveIndent := w.indent

	// The header: the node's name, what it scans, estimates and actuals.
	if w.json {
		label := ""
		if relationship == "" {
			label = "Plan"
		}
		w.openGroup(label, false)
		w.textProp("Node Type", jsonNodeType(p))
		if a, ok := p.(*nodes.Agg); ok {
			strategy := "Plain"
			if a.Strategy == nodes.AggHashed {
				strategy = "Hashed"
				if a.HasEmptySet() {
					strategy = "Mixed"
				}
			}
			w.textProp("Strategy", strategy)
			mode := "Simple"
			if a.Split != "" {
				mode = a.Split
			}
			w.textProp("Partial Mode", mode)
		}
		if so, ok := p.(*nodes.SetOp); ok {
			strategy := "Sorted"
			if so.Strategy == nodes.SetOpHashed {
				strategy = "Hashed"
			}
			w.textProp("Strategy", strategy)
		}
		if m, ok := p.(*nodes.ModifyTable); ok {
			w.textProp("Operation", m.NodeType())
		}
		if f, ok := p.(*nodes.ForeignModify); ok {
			w.textProp("Operation", [...]string{"Insert", "Update", "Delete"}[f.Op])
		}
		if relationship != "" {
			w.textProp("Parent Relationship", relationship)
		}
		if e.subplan != "" {
			w.textProp("Subplan Name", e.subplan)
			e.subplan = ""
		}
		w.boolProp("Parallel Aware", parallelAware(p))
		fs, isForeign := p.(*nodes.ForeignScan)
		w.boolProp("Async Capable", isForeign && fs.Async)
	} else {
		if w.indent > 0 {
			w.spaces()
			w.buf.WriteString("->  ")
			w.indent += 2
		}
		w.buf.WriteString(p.NodeType())
	}
	if t, ok := e.target(p, member); ok {
		e.writeTarget(t)
	}
	if so, ok := p.(*nodes.SetOp); ok && w.json {
		// TEXT has the command in the node's name ("HashSetOp Except").
		w.textProp("Command", so.Cmd.String())
	}
	if typ, ok := joinType(p); ok && w.json {
		// TEXT has the join type in the node's name ("Hash Left Join").
		w.textProp("Join Type", joinTypeName(typ))
	}
	e.estimates(b)
	e.actuals(ns)
	if !w.json {
		w.buf.WriteByte('\n')
		// Detail lines align two columns right of the node's name.
		w.indent++
	}

	// The details, in explain.c's order: output, then what the node does.
	if _, isRecursive := p.(*nodes.RecursiveUnion); e.o.Verbose && !isAppend && !isRecursive {
		// PostgreSQL suppresses an Append's (and a Recursive Union's)
		// output list as unhelpful.
		if items := e.output(p); len(items) > 0 {
			strs := make([]string, len(items))
			for i, it := range items {
				strs[i] = it.String()
			}
			w.listProp("Output", strs)
		}
	}
	if _, ok := joinType(p); ok && w.json {
		// pgfed's planner does not prove inner sides unique; TEXT shows
		// the property only when it is true (and VERBOSE).
		w.boolProp("Inner Unique", false)
	}
	extrasDone := false
	switch x := p.(type) {
	case *nodes.HashJoin:
		conds := x.HashCond()
		if len(conds) == 1 {
			w.textProp("Hash Cond", conds[0])
		} else {
			// make_ands_explicit: one AND inside one pair of parentheses.
			w.textProp("Hash Cond", "("+strings.Join(conds, " AND ")+")")
		}
		e.joinFilter(x.JoinFilter, ns)
		e.filter(b, ns)
	case *nodes.MergeJoin:
		if conds := x.MergeCond(); len(conds) == 1 {
			w.textProp("Merge Cond", conds[0])
		} else {
			w.textProp("Merge Cond", "("+strings.Join(conds, " AND ")+")")
		}
		e.joinFilter(x.JoinFilter, ns)
		e.filter(b, ns)
	case *nodes.NestedLoop:
		e.joinFilter(x.JoinFilter, ns)
		e.filter(b, ns)
	case *nodes.Hash:
		e.filter(b, ns)
		e.hashInfo(ns)
	case *nodes.FunctionScan:
		if e.o.Verbose {
			w.textProp("Function Call", x.Func+"("+joinExprs(x.Args)+")")
		}
		e.filter(b, ns)
	case *nodes.Result:
		if x.Empty {
			w.textProp("One-Time Filter", "false")
		}
		e.filter(b, ns)
	case *nodes.Agg:
		if x.GroupingSets != nil {
			groupingSetKeys(w, x)
		} else if len(x.GroupKeys) > 0 {
			w.listProp("Group Key", exprStrings(x.GroupKeys))
		}
		// PostgreSQL shows HAVING as Filter, and the hash table's
		// statistics before the rows HAVING removed.
		if b.Filter != nil {
			w.textProp("Filter", b.Filter.String())
		}
		e.extras(ns)
		extrasDone = true
		if b.Filter != nil {
			e.removed(ns)
		}
	case *nodes.Sort:
		keys := make([]string, len(x.Keys))
		for i, k := range x.Keys {
			keys[i] = k.String()
		}
		if len(keys) > 0 {
			w.listProp("Sort Key", keys)
		}
		e.filter(b, ns)
	case *nodes.ModifyTable:
		if !e.modifyTargets(x) && x.Table.Kind == storage.KindForeign {
			e.foreignWrite(x.ForeignWriteFor(x.Table, x.Op))
		}
		e.filter(b, ns)
	case *nodes.ForeignModify:
		if e.o.Verbose {
			w.textProp("Remote SQL", x.RemoteSQL)
		}
	case *nodes.Gather:
		e.filter(b, ns)
		e.workers(x.Workers, ns)
		if w.json {
			w.boolProp("Single Copy", x.SingleCopy)
		} else if x.SingleCopy {
			w.textProp("Single Copy", "true")
		}
	case *nodes.GatherMerge:
		e.filter(b, ns)
		e.workers(x.Workers, ns)
	case *nodes.ForeignScan:
		// postgres_fdw: Filter (what stayed local), Relations for
		// pushed-down aggregates, Remote SQL under VERBOSE.
		e.scanFilter(p, ns)
		if x.Relations != "" {
			w.textProp("Relations", x.Relations)
		}
		if e.o.Verbose {
			w.textProp("Remote SQL", x.RemoteSQL)
		}
	case *nodes.SeqScan:
		e.runtimeFilters(x, ns) // applied first
		e.scanFilter(p, ns)
	default:
		e.scanFilter(p, ns)
	}
	if !extrasDone {
		e.extras(ns)
	}
	e.asyncCounters(p, ns)
	e.workerActuals(ns)
	if isAppend && w.json {
		// Run-time pruning never removes subplans in pgfed (pruning
		// happens while planning), but non-text formats always say so.
		w.numProp("Subplans Removed", "0", "")
	}

	if kids := p.Children(); len(kids) > 0 || len(b.InitPlans) > 0 || len(b.SubPlans) > 0 || len(b.CTEs) > 0 {
		rel := childRelationship(p)
		_, isJoin := joinType(p)
		_, isRecursive := p.(*nodes.RecursiveUnion)
		w.openGroup("Plans", true)
		e.ctePlans(b.CTEs)
		e.initPlans(b.InitPlans)
		for i, k := range kids {
			pos := 0
			if isAppend {
				pos = i + 1
			}
			if (isJoin || isRecursive) && i == 1 {
				rel = "Inner" // a join's second child is its inner side
			}
			e.node(k, rel, pos)
		}
		e.subPlans(b.SubPlans)
		w.closeGroup(true)
	}
	if w.json {
		w.closeGroup(false)
	}
	w.indent = saveIndent
}

// initPlans writes a node's InitPlans before its children, as
// PostgreSQL 15 does: "InitPlan 1 (returns $0)" over each plan.
func (e *explainer) initPlans(inits []*nodes.InitPlan) {
	w := &e.w
	for _, ip := range inits {
		name := "InitPlan " + strconv.Itoa(ip.Number) + " (returns $" + strconv.Itoa(ip.ID) + ")"
		if w.json {
			e.subplan = name
			e.node(ip.Plan, "InitPlan", 0)
			continue
		}
		w.spaces()
		w.buf.WriteString(name + "\n")
		w.indent++
		e.node(ip.Plan, "InitPlan", 0)
		w.indent--
	}
}

// subPlans writes the SubPlans of a node's expressions after its
// children, as PostgreSQL 15 does: "SubPlan 2" over each plan.
func (e *explainer) subPlans(sps []*nodes.SubPlan) {
	w := &e.w
	for _, sp := range sps {
		if w.json {
			e.subplan = sp.Name()
			e.node(sp.Plan, "SubPlan", 0)
			continue
		}
		w.spaces()
		w.buf.WriteString(sp.Name() + "\n")
		w.indent++
		e.node(sp.Plan, "SubPlan", 0)
		w.indent--
	}
}

// parallelAware is JSON's "Parallel Aware": the node shares its work
// out among the participants of a Gather.
func parallelAware(p nodes.Plan) bool {
	switch x := p.(type) {
	case *nodes.SeqScan:
		return x.Parallel
	case *nodes.Append:
		return x.Parallel
	case *nodes.HashJoin:
		return x.Parallel
	case *nodes.Hash:
		return x.Parallel
	}
	return false
}

// workers writes a Gather's planned and (ANALYZE) launched workers.
func (e *explainer) workers(planned int, ns *NodeStats) {
	e.w.numProp("Workers Planned", strconv.Itoa(planned), "")
	if e.o.Analyze {
		var launched int64
		if ns != nil {
			launched = ns.WorkersLaunched
		}
		e.w.numProp("Workers Launched", strconv.FormatInt(launched, 10), "")
	}
}

// workerActuals writes, under ANALYZE VERBOSE, each parallel worker's
// share of the node: "Worker 0:  actual time=... rows=... loops=...".
func (e *explainer) workerActuals(ns *NodeStats) {
	if ns == nil || !e.o.Verbose || len(ns.Workers) == 0 {
		return
	}
	w := &e.w
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	w.openGroup("Workers", true)
	for _, ws := range ns.Workers {
		loops := float64(ws.Loops)
		total := ms(ws.Total) / loops
		startup := min(ms(ws.Startup), total)
		rows := fixed(float64(ws.Rows)/loops, 0)
		if !w.json {
			w.spaces()
			w.buf.WriteString("Worker " + strconv.Itoa(ws.Number) + ":  ")
			if e.o.Timing {
				w.buf.WriteString("actual time=" + fixed(startup, 3) + ".." + fixed(total, 3) + " ")
			}
			w.buf.WriteString("rows=" + rows + " loops=" + fixed(loops, 0) + "\n")
			continue
		}
		w.openGroup("", false)
		w.numProp("Worker Number", strconv.Itoa(ws.Number), "")
		if e.o.Timing {
			w.numProp("Actual Startup Time", fixed(startup, 3), "ms")
			w.numProp("Actual Total Time", fixed(total, 3), "ms")
		}
		w.numProp("Actual Rows", rows, "")
		w.numProp("Actual Loops", fixed(loops, 0), "")
		w.closeGroup(false)
	}
	w.closeGroup(true)
}

// nodeStats returns the counters of node id, or nil without ANALYZE.
func (e *explainer) nodeStats(id int) *NodeStats {
	if !e.o.Analyze || e.stats == nil || id < 0 || id >= len(e.stats.Nodes) {
		return nil
	}
	return &e.stats.Nodes[id]
}

// joinType returns the join type of a join node.
func joinType(p nodes.Plan) (nodes.JoinType, bool) {
	switch x := p.(type) {
	case *nodes.HashJoin:
		return x.Type, true
	case *nodes.NestedLoop:
		return x.Type, true
	case *nodes.MergeJoin:
		return x.Type, true
	}
	return 0, false
}

// joinTypeName is JSON's "Join Type".
func joinTypeName(t nodes.JoinType) string {
	if t == nodes.JoinInner {
		return "Inner"
	}
	return t.String()
}

// joinFilter writes a join's "Join Filter" and, with ANALYZE, the pairs it
// removed (PostgreSQL's show_upper_qual and show_instrumentation_count).
func (e *explainer) joinFilter(f nodes.Expr, ns *NodeStats) {
	if f == nil {
		return
	}
	e.w.textProp("Join Filter", f.String())
	var n int64
	if ns != nil {
		n = ns.RowsRemovedByJoinFilter
	}
	e.count("Rows Removed by Join Filter", n, ns)
}

// hashInfo writes a Hash node's table under ANALYZE, as show_hash_info:
// "Buckets: 1024  Batches: 1  Memory Usage: 9kB" in TEXT, with the
// original counts when they grew; separate properties otherwise.
func (e *explainer) hashInfo(ns *NodeStats) {
	if ns == nil || ns.Hash == nil {
		return
	}
	h, w := ns.Hash, &e.w
	peak := strconv.FormatInt((h.PeakMemory+1023)/1024, 10)
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	if w.json {
		w.numProp("Hash Buckets", itoa(h.Buckets), "")
		w.numProp("Original Hash Buckets", itoa(h.OriginalBuckets), "")
		w.numProp("Hash Batches", itoa(h.Batches), "")
		w.numProp("Original Hash Batches", itoa(h.OriginalBatches), "")
		w.numProp("Peak Memory Usage", peak, "kB")
		return
	}
	w.spaces()
	if h.Batches != h.OriginalBatches || h.Buckets != h.OriginalBuckets {
		w.buf.WriteString("Buckets: " + itoa(h.Buckets) + " (originally " + itoa(h.OriginalBuckets) + ")  Batches: " +
			itoa(h.Batches) + " (originally " + itoa(h.OriginalBatches) + ")  Memory Usage: " + peak + "kB\n")
		return
	}
	w.buf.WriteString("Buckets: " + itoa(h.Buckets) + "  Batches: " + itoa(h.Batches) + "  Memory Usage: " + peak + "kB\n")
}

// groupingSetKeys prints an Agg's grouping sets as PostgreSQL's
// show_grouping_set_keys: "Hash Key: a, b" per hashed set, then "Group
// Key: ()" per empty set; in JSON, "Grouping Sets" with a "Hash Keys"
// group per hashed set and one "Group Keys" group of the empty sets.
func groupingSetKeys(w *writer, a *nodes.Agg) {
	w.openGroup("Grouping Sets", true)
	empty := 0
	for _, set := range a.GroupingSets {
		if len(set) == 0 {
			empty++
			continue
		}
		keys := make([]string, len(set))
		for i, k := range set {
			keys[i] = a.GroupKeys[k].String()
		}
		if !w.json {
			w.listProp("Hash Key", keys)
			continue
		}
		w.openGroup("", false)
		w.openGroup("Hash Keys", true)
		w.jsonList(keys)
		w.closeGroup(true)
		w.closeGroup(false)
	}
	if empty > 0 && w.json {
		w.openGroup("", false)
		w.openGroup("Group Keys", true)
		for i := 0; i < empty; i++ {
			w.jsonList(nil)
		}
		w.closeGroup(true)
		w.closeGroup(false)
	}
	for i := 0; i < empty && !w.json; i++ {
		w.textProp("Group Key", "()")
	}
	w.closeGroup(true)
}

// jsonList writes an unlabelled JSON array of strings on one line.
func (w *writer) jsonList(items []string) {
	w.member()
	w.buf.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			w.buf.WriteString(", ")
		}
		w.buf.WriteString(jsonString(it))
	}
	w.buf.WriteByte(']')
}

// jsonNodeType is the "Node Type" of non-text formats, where PostgreSQL
// spells the executor node's name, not the TEXT headline.
func jsonNodeType(p nodes.Plan) string {
	switch p.(type) {
	case *nodes.HashJoin:
		return "Hash Join" // the join type is a property of its own
	case *nodes.Hash:
		return "Hash" // a Parallel Hash says so in "Parallel Aware"
	case *nodes.SeqScan:
		return "Seq Scan" // so does a Parallel Seq Scan
	case *nodes.Append:
		return "Append"
	case *nodes.NestedLoop:
		return "Nested Loop"
	case *nodes.MergeJoin:
		return "Merge Join"
	case *nodes.Agg:
		return "Aggregate"
	case *nodes.SetOp:
		return "SetOp"
	case *nodes.ModifyTable:
		return "ModifyTable"
	case *nodes.ForeignScan, *nodes.ForeignModify:
		// JSON says "Foreign Scan" with "Async Capable": true, or with
		// the "Operation" a shipped UPDATE or DELETE does.
		return "Foreign Scan"
	}
	return p.NodeType()
}

// childRelationship is the "Parent Relationship" of p's children.
func childRelationship(p nodes.Plan) string {
	switch p.(type) {
	case *nodes.Append:
		return "Member"
	case *nodes.SubqueryScan:
		return "Subquery"
	}
	return "Outer"
}

// estimates writes the planner's costs unless COSTS is off.
func (e *explainer) estimates(b *nodes.PlanBase) {
	if !e.o.Costs {
		return
	}
	w := &e.w
	if !w.json {
		w.buf.WriteString("  (cost=" + fixed(b.StartupCost, 2) + ".." + fixed(b.TotalCost, 2) +
			" rows=" + fixed(b.Rows, 0) + " width=" + strconv.Itoa(b.Width) + ")")
		return
	}
	w.numProp("Startup Cost", fixed(b.StartupCost, 2), "")
	w.numProp("Total Cost", fixed(b.TotalCost, 2), "")
	w.numProp("Plan Rows", fixed(b.Rows, 0), "")
	w.numProp("Plan Width", strconv.Itoa(b.Width), "")
}

// actuals writes what ANALYZE measured: per-loop averages of rows and
// times, as PostgreSQL does, or "never executed".
func (e *explainer) actuals(ns *NodeStats) {
	if !e.o.Analyze {
		return
	}
	w := &e.w
	if ns == nil || ns.Loops == 0 {
		if !w.json {
			w.buf.WriteString(" (never executed)")
			return
		}
		if e.o.Timing {
			w.numProp("Actual Startup Time", "0.000", "ms")
			w.numProp("Actual Total Time", "0.000", "ms")
		}
		w.numProp("Actual Rows", "0", "")
		w.numProp("Actual Loops", "0", "")
		return
	}
	loops := float64(ns.Loops)
	total := float64(ns.Total) / float64(time.Millisecond) / loops
	// Startup is measured on the first loop only (PostgreSQL averages it
	// over loops); keep it from exceeding the average total.
	startup := min(float64(ns.Startup)/float64(time.Millisecond), total)
	rows := fixed(float64(ns.Rows)/loops, 0)
	if !w.json {
		if e.o.Timing {
			w.buf.WriteString(" (actual time=" + fixed(startup, 3) + ".." + fixed(total, 3) +
				" rows=" + rows + " loops=" + fixed(loops, 0) + ")")
		} else {
			w.buf.WriteString(" (actual rows=" + rows + " loops=" + fixed(loops, 0) + ")")
		}
		return
	}
	if e.o.Timing {
		w.numProp("Actual Startup Time", fixed(startup, 3), "ms")
		w.numProp("Actual Total Time", fixed(total, 3), "ms")
	}
	w.numProp("Actual Rows", rows, "")
	w.numProp("Actual Loops", fixed(loops, 0), "")
}

// filter writes the node's Filter and, with ANALYZE, the rows it removed.
// scanFilter is filter for any node; a scan's under VERBOSE names its
// columns with the relation's alias, as show_scan_qual does.
func (e *explainer) scanFilter(p nodes.Plan, ns *NodeStats) {
	b := p.Base()
	if alias, ok := scanAlias(p); ok && b.Filter != nil && e.o.Verbose {
		e.w.textProp("Filter", qualifyColumns(b.Filter, alias).String())
		e.removed(ns)
		return
	}
	e.filter(b, ns)
}

// scanAlias is the alias a scan of one table reads it under, whose
// expressions name the table's columns unqualified.
func scanAlias(p nodes.Plan) (string, bool) {
	switch x := p.(type) {
	case *nodes.SeqScan:
		if x.Alias != "" {
			return x.Alias, true
		}
		return x.Table.Name, true
	case *nodes.ForeignScan:
		if x.Join != nil || x.Grouped {
			return "", false
		}
		if x.Alias != "" {
			return x.Alias, true
		}
		return x.Table.Name, true
	}
	return "", false
}

// qualifyColumns is e with its plain column names prefixed with alias.
func qualifyColumns(e nodes.Expr, alias string) nodes.Expr {
	return nodes.MapColumns(e, func(c *nodes.ColumnRef) nodes.Expr {
		if c.Raw || strings.Contains(c.Name, ".") {
			return c // printed as given: qualified already, or not a column name
		}
		q := *c
		q.Name, q.Raw = nodes.QuoteIdent(alias)+"."+nodes.QuoteIdent(c.Name), true
		return &q
	})
}

// runtimeFilters writes the hash joins' key filters a Seq Scan applies
// and, with ANALYZE, the rows they removed.
func (e *explainer) runtimeFilters(s *nodes.SeqScan, ns *NodeStats) {
	if len(s.RuntimeFilters) == 0 {
		return
	}
	alias, _ := scanAlias(s)
	key := func(k nodes.Expr) string {
		if e.o.Verbose {
			k = qualifyColumns(k, alias)
		}
		return k.String()
	}
	conds := make([]string, len(s.RuntimeFilters))
	for i, rf := range s.RuntimeFilters {
		conds[i] = rf.Cond(key)
	}
	e.w.textProp("Runtime Filter", strings.Join(conds, " AND "))
	var n int64
	if ns != nil {
		n = ns.RowsRemovedByRuntimeFilter
	}
	e.count("Rows Removed by Runtime Filter", n, ns)
}

func (e *explainer) filter(b *nodes.PlanBase, ns *NodeStats) {
	if b.Filter == nil {
		return
	}
	e.w.textProp("Filter", b.Filter.String())
	e.removed(ns)
}

// removed writes "Rows Removed by Filter" per loop. Like PostgreSQL, TEXT
// leaves out a zero count, other formats always show it.
func (e *explainer) removed(ns *NodeStats) {
	var n int64
	if ns != nil {
		n = ns.RowsRemovedByFilter
	}
	e.count("Rows Removed by Filter", n, ns)
}

// count writes a per-loop count of rows as show_instrumentation_count
// does: under ANALYZE, left out of TEXT when zero.
func (e *explainer) count(label string, n int64, ns *NodeStats) {
	if !e.o.Analyze {
		return
	}
	var loops int64
	if ns != nil {
		loops = ns.Loops
	}
	if n == 0 && !e.w.json {
		return
	}
	v := "0"
	if loops > 0 {
		v = fixed(float64(n)/float64(loops), 0)
	}
	e.w.numProp(label, v, "")
}

// extras writes the node-specific lines the executor recorded ("Sort
// Method: ..."); JSON splits them into PostgreSQL's separate properties.
// In TEXT each parallel worker's own lines follow, prefixed "Worker N:  "
// as PostgreSQL prints them.
func (e *explainer) extras(ns *NodeStats) {
	if ns == nil {
		return
	}
	w := &e.w
	if !w.json {
		defer func() {
			for _, ws := range ns.Workers {
				for _, line := range ws.Extra {
					w.spaces()
					w.buf.WriteString("Worker " + strconv.Itoa(ws.Number) + ":  " + line + "\n")
				}
			}
		}()
	}
	for _, line := range ns.Extra {
		if !w.json {
			w.spaces()
			w.buf.WriteString(line + "\n")
			continue
		}
		for _, pr := range jsonExtra(line) {
			if pr.number {
				w.numProp(pr.key, pr.value, "")
			} else {
				w.textProp(pr.key, pr.value)
			}
		}
	}
}

// asyncCounters writes pgfed's own counters of asynchronous and remote
// execution. PostgreSQL has no such lines, so they appear only when
// nonzero, leaving PostgreSQL-shaped output untouched otherwise.
func (e *explainer) asyncCounters(p nodes.Plan, ns *NodeStats) {
	if ns == nil {
		return
	}
	w := &e.w
	if ns.AsyncRows > 0 && ns.Loops > 0 {
		// Per loop, like the node's rows (which include them). A driver
		// (Append) also shows the rows its synchronous children gave.
		w.numProp("Async Rows", fixed(float64(ns.AsyncRows)/float64(ns.Loops), 0), "")
		if _, isAppend := p.(*nodes.Append); isAppend {
			w.numProp("Sync Rows", fixed(float64(ns.Rows-ns.AsyncRows)/float64(ns.Loops), 0), "")
		}
	}
	if ns.Requests > 0 {
		w.numProp("Remote Requests", strconv.FormatInt(ns.Requests, 10), "")
	}
	if ns.Waited > 0 && e.o.Timing {
		w.numProp("Async Wait Time", millis(ns.Waited), "ms")
	}
}

// modifyTargets labels the leaf tables an UPDATE or DELETE on a
// partitioned table changes, as PostgreSQL does whenever the result
// relations are not just the named table: "Update on p1 p_1", "Foreign
// Update on ft1 p_2" (with, under VERBOSE, the Remote SQL of a foreign
// leaf changed row by row). It reports whether it labelled any.
func (e *explainer) modifyTargets(m *nodes.ModifyTable) bool {
	if m.Op == nodes.Insert || len(m.Leaves) == 0 || len(m.Leaves) == 1 && m.Leaves[0] == m.Table {
		return false
	}
	w := &e.w
	w.openGroup("Target Tables", true)
	for _, leaf := range m.Leaves {
		w.openGroup("", false)
		if !w.json {
			w.spaces()
			if leaf.Kind == storage.KindForeign {
				w.buf.WriteString("Foreign ")
			}
			w.buf.WriteString(m.NodeType())
		}
		e.writeTarget(e.tableTarget(leaf, leafAlias(m.Child, leaf)))
		if !w.json {
			w.buf.WriteByte('\n')
		}
		if fw := m.ForeignWriteFor(leaf, m.Op); fw != nil {
			w.indent++
			e.foreignWrite(fw)
			w.indent--
		}
		w.closeGroup(false)
	}
	w.closeGroup(true)
	return true
}

// foreignWrite shows postgres_fdw's details of a foreign table written
// row by row, under VERBOSE: its Remote SQL and, for INSERT, Batch Size.
func (e *explainer) foreignWrite(fw *nodes.ForeignWrite) {
	if fw == nil || !e.o.Verbose {
		return
	}
	e.w.textProp("Remote SQL", fw.RemoteSQL)
	if fw.Op == nodes.Insert {
		e.w.numProp("Batch Size", strconv.Itoa(fw.BatchSize), "")
	}
}

// leafAlias is the alias under which the plan below a ModifyTable scans
// leaf, so that the target labels match the scans; the table's own name
// when no scan reads it.
func leafAlias(child nodes.Plan, leaf *storage.Table) string {
	alias := leaf.Name
	if child == nil {
		return alias
	}
	found := false
	nodes.Walk(child, func(q nodes.Plan) {
		var t *storage.Table
		var a string
		switch s := q.(type) {
		case *nodes.SeqScan:
			t, a = s.Table, s.Alias
		case *nodes.ForeignScan:
			t, a = s.Table, s.Alias
		case *nodes.ForeignModify:
			t, a = s.Table, s.Alias
		}
		if t == leaf && !found && a != "" {
			alias, found = a, true
		}
	})
	return alias
}

// relTarget is what a node scans or modifies, printed as PostgreSQL's
// ExplainTargetRel does: " on schema.object alias" in TEXT, separate
// properties in JSON.
type relTarget struct {
	tag    string // JSON key for object: "Relation Name" or "Function Name"
	object string // table or function name; "" for VALUES and subqueries
	schema string // set only under VERBOSE
	alias  string // the name the query refers to it by
}

// target returns what p reads or writes, if p is a scan or ModifyTable.
func (e *explainer) target(p nodes.Plan, member int) (relTarget, bool) {
	switch x := p.(type) {
	case *nodes.SeqScan:
		return e.tableTarget(x.Table, x.Alias), true
	case *nodes.ForeignScan:
		if x.Relations != "" {
			return relTarget{}, false // a pushed-down aggregate scans no single relation
		}
		return e.tableTarget(x.Table, x.Alias), true
	case *nodes.ModifyTable:
		return e.tableTarget(x.Table, x.Table.Name), true
	case *nodes.ForeignModify:
		return e.tableTarget(x.Table, x.Alias), true
	case *nodes.FunctionScan:
		t := relTarget{tag: "Function Name", object: x.Func, alias: functionAlias(x)}
		if e.o.Verbose {
			// generate_series, the only set-returning function, is a
			// built-in.
			t.schema = "pg_catalog"
		}
		return t, true
	case *nodes.ValuesScan:
		return relTarget{alias: "*VALUES*"}, true
	case *nodes.SubqueryScan:
		return relTarget{alias: subqueryAlias(x, member)}, true
	case *nodes.CTEScan:
		return relTarget{tag: "CTE Name", object: x.CTE.Name, alias: x.Alias}, true
	case *nodes.WorkTableScan:
		return relTarget{tag: "CTE Name", object: x.Name, alias: x.Alias}, true
	}
	return relTarget{}, false
}

func (e *explainer) tableTarget(t *storage.Table, alias string) relTarget {
	if alias == "" {
		alias = t.Name
	}
	rt := relTarget{tag: "Relation Name", object: t.Name, alias: alias}
	if e.o.Verbose {
		rt.schema = t.Schema
	}
	return rt
}

func functionAlias(f *nodes.FunctionScan) string {
	if f.Alias != "" {
		return f.Alias
	}
	return f.Func
}

// subqueryAlias is a subquery's name; PostgreSQL calls unaliased ones
// (UNION arms, INSERT ... SELECT) "*SELECT* n" or "*SELECT*".
func subqueryAlias(s *nodes.SubqueryScan, member int) string {
	switch {
	case s.Alias != "":
		return s.Alias
	case member > 0:
		return "*SELECT* " + strconv.Itoa(member)
	}
	return "*SELECT*"
}

func (e *explainer) writeTarget(t relTarget) {
	w := &e.w
	if w.json {
		if t.tag != "" && t.object != "" {
			w.textProp(t.tag, t.object)
		}
		if t.schema != "" {
			w.textProp("Schema", t.schema)
		}
		w.textProp("Alias", t.alias)
		return
	}
	w.buf.WriteString(" on")
	switch {
	case t.schema != "":
		w.buf.WriteString(" " + nodes.QuoteIdent(t.schema) + "." + nodes.QuoteIdent(t.object))
	case t.object != "":
		w.buf.WriteString(" " + nodes.QuoteIdent(t.object))
	}
	if t.object == "" || t.alias != t.object {
		w.buf.WriteString(" " + nodes.QuoteIdent(t.alias))
	}
}

// outItem is one output column as EXPLAIN VERBOSE prints it.
type outItem struct {
	text string
	// plain is true for a column reference; a parent node that passes an
	// input column through prints any other expression in parentheses, as
	// PostgreSQL deparses a reference to a computed child column.
	plain bool
	ref   bool // the item is the input column of a pass-through node
}

func (it outItem) String() string {
	if it.ref && !it.plain {
		return "(" + it.text + ")"
	}
	return it.text
}

// output returns p's output columns for "Output:". Nodes print their
// Targets; without Targets, scans print the columns they read, Sort and
// Limit the columns of their input, Agg its group keys and aggregates,
// WindowAgg its input's columns and its functions, ModifyTable its
// RETURNING list.
func (e *explainer) output(p nodes.Plan) []outItem {
	b := p.Base()
	if w, ok := p.(*nodes.WindowAgg); ok {
		return e.windowOutput(w)
	}
	if b.Targets != nil {
		targets := b.Targets
		if alias, ok := scanAlias(p); ok && e.prefix {
			targets = make([]nodes.Expr, len(b.Targets))
			for i, t := range b.Targets {
				targets[i] = qualifyColumns(t, alias)
			}
		}
		return exprItems(p, targets)
	}
	switch x := p.(type) {
	case *nodes.SeqScan:
		alias := x.Alias
		if alias == "" {
			alias = x.Table.Name
		}
		if x.Columns == nil {
			return e.fieldItems(alias, b.Out)
		}
		items := make([]outItem, len(x.Columns))
		for i, c := range x.Columns {
			items[i] = outItem{text: e.qualify(alias, x.Table.ColumnName(c)), plain: true}
		}
		return items
	case *nodes.ForeignScan:
		if x.Grouped {
			items := exprItems(p, x.GroupKeys)
			for _, a := range x.Aggs {
				items = append(items, outItem{text: a.String()})
			}
			return items
		}
		alias := x.Alias
		if alias == "" {
			alias = x.Table.Name
		}
		items := make([]outItem, len(x.Columns))
		for i, c := range x.Columns {
			items[i] = outItem{text: e.qualify(alias, x.Table.Columns[c].Name), plain: true}
		}
		return items
	case *nodes.ValuesScan:
		return e.fieldItems("*VALUES*", b.Out)
	case *nodes.FunctionScan:
		return e.fieldItems(functionAlias(x), b.Out)
	case *nodes.SubqueryScan:
		// An unaliased subquery has no name its columns could be
		// qualified with here; PostgreSQL's "*SELECT* n" is positional.
		return e.fieldItems(x.Alias, b.Out)
	case *nodes.CTEScan:
		return e.fieldItems(x.Alias, b.Out)
	case *nodes.WorkTableScan:
		return e.fieldItems(x.Alias, b.Out)
	case *nodes.Agg:
		items := exprItems(p, x.GroupKeys)
		for _, a := range x.Aggs {
			items = append(items, outItem{text: a.String()})
		}
		return items
	case *nodes.ModifyTable:
		return exprItems(p, x.Returning)
	case *nodes.Sort, *nodes.Limit, *nodes.Append, *nodes.Gather, *nodes.GatherMerge, *nodes.Hash, *nodes.Material:
		// Their columns are their input's (an Append's, its first
		// child's), which PostgreSQL prints as the parent's references.
		if kids := p.Children(); len(kids) > 0 {
			items := e.output(kids[0])
			for i := range items {
				items[i].ref = true
			}
			return items
		}
	}
	return e.fieldItems("", b.Out)
}

// windowOutput is a WindowAgg's "Output:": its own rows are its input's
// columns (a computed one in parentheses, as PostgreSQL prints a
// reference to it) and then its functions ("rank() OVER (?)"); its
// Targets print references to those rows as they are.
func (e *explainer) windowOutput(w *nodes.WindowAgg) []outItem {
	own := e.output(w.Child)
	for i := range own {
		own[i].ref = true
	}
	for _, f := range w.Funcs {
		own = append(own, outItem{text: f.String()})
	}
	if w.Targets == nil {
		return own
	}
	items := make([]outItem, len(w.Targets))
	for i, x := range w.Targets {
		if c, ok := x.(*nodes.ColumnRef); ok && c.Index >= 0 && c.Index < len(own) {
			items[i] = own[c.Index]
			continue
		}
		items[i] = outItem{text: x.String()}
	}
	return items
}

// exprItems prints expressions evaluated by node p.
func exprItems(p nodes.Plan, es []nodes.Expr) []outItem {
	items := make([]outItem, len(es))
	for i, x := range es {
		c, plain := x.(*nodes.ColumnRef)
		if a, ok := p.(*nodes.Agg); ok && plain {
			// An Agg's own columns are its group keys, then its
			// aggregates: only the former are columns of its input.
			plain = c.Index < len(a.GroupKeys)
		}
		items[i] = outItem{text: x.String(), plain: plain}
	}
	return items
}

// fieldItems prints output fields by name, qualified with rel when the
// plan reads several relations.
func (e *explainer) fieldItems(rel string, fs []nodes.Field) []outItem {
	items := make([]outItem, len(fs))
	for i, f := range fs {
		items[i] = outItem{text: e.qualify(rel, f.Name), plain: true}
	}
	return items
}

func (e *explainer) qualify(rel, col string) string {
	if e.prefix && rel != "" {
		return nodes.QuoteIdent(rel) + "." + nodes.QuoteIdent(col)
	}
	return nodes.QuoteIdent(col)
}

// countRelations counts the distinct relations p reads or writes, the
// nearest thing to PostgreSQL's range table: a table scanned under the
// name it is modified under counts once.
func countRelations(p nodes.Plan) int {
	seen := map[any]bool{}
	type tableRef struct {
		t     *storage.Table
		alias string
	}
	nodes.Walk(p, func(q nodes.Plan) {
		switch x := q.(type) {
		case *nodes.SeqScan:
			alias := x.Alias
			if alias == "" {
				alias = x.Table.Name
			}
			seen[tableRef{x.Table, alias}] = true
		case *nodes.ModifyTable:
			seen[tableRef{x.Table, x.Table.Name}] = true
		case *nodes.ForeignScan:
			seen[tableRef{x.Table, x.Alias}] = true
		case *nodes.ValuesScan, *nodes.FunctionScan, *nodes.SubqueryScan, *nodes.CTEScan, *nodes.WorkTableScan:
			seen[q] = true
		}
	})
	return len(seen)
}

// extraProp is one JSON property made from a TEXT detail line.
type extraProp struct {
	key, value string
	number     bool
}

// jsonExtra splits a detail line of the form "Key: value  Key: value"
// into properties, using PostgreSQL's JSON names for the lines it knows:
// Sort's "Sort Method: quicksort  Memory: 25kB" and HashAggregate's
// "Batches: 1  Memory Usage: 24kB".
func jsonExtra(line string) []extraProp {
	var props []extraProp
	for _, seg := range strings.Split(line, "  ") {
		key, value, ok := strings.Cut(seg, ": ")
		if !ok {
			key, value = "Detail", seg
		}
		props = append(props, numericProp(key, value))
	}
	switch props[0].key {
	case "Sort Method":
		// "Memory: 25kB" becomes the space used and where it was used.
		var out []extraProp
		for _, pr := range props {
			if kind := pr.key; kind == "Memory" || kind == "Disk" {
				pr.key = "Sort Space Used"
				out = append(out, pr, extraProp{key: "Sort Space Type", value: kind})
				continue
			}
			out = append(out, pr)
		}
		props = out
	case "Batches":
		out := []extraProp{{key: "Planned Partitions", value: "0", number: true}}
		disk := false
		for _, pr := range props {
			switch pr.key {
			case "Batches":
				pr.key = "HashAgg Batches"
			case "Memory Usage":
				pr.key = "Peak Memory Usage"
			case "Disk Usage":
				disk = true
			}
			out = append(out, pr)
		}
		if !disk {
			// TEXT leaves out an unused disk; JSON shows it as 0.
			out = append(out, extraProp{key: "Disk Usage", value: "0", number: true})
		}
		props = out
	}
	return props
}

// numericProp makes a property, as a number when value is an integer,
// possibly in kilobytes ("25kB"), which JSON shows as the bare number.
func numericProp(key, value string) extraProp {
	n := strings.TrimSuffix(value, "kB")
	if _, err := strconv.ParseInt(n, 10, 64); err == nil {
		return extraProp{key: key, value: n, number: true}
	}
	return extraProp{key: key, value: value}
}

func exprStrings(es []nodes.Expr) []string {
	out := make([]string, len(es))
	for i, x := range es {
		out[i] = x.String()
	}
	return out
}

func joinExprs(es []nodes.Expr) string { return strings.Join(exprStrings(es), ", ") }

// fixed formats f with prec decimals, rounding like C's printf("%.*f").
func fixed(f float64, prec int) string { return strconv.FormatFloat(f, 'f', prec, 64) }

// millis formats d in milliseconds with 3 decimals.
func millis(d time.Duration) string { return fixed(float64(d)/float64(time.Millisecond), 3) }

// writer produces TEXT or JSON like PostgreSQL's ExplainProperty* and
// ExplainOpenGroup functions: the same property calls yield either
// "Key: value" lines indented under their node, or JSON members.
type writer struct {
	json bool
	buf  strings.Builder
	// indent counts steps of two spaces: PostgreSQL's es->indent.
	indent int
	// empty has, per open JSON group, whether no member was written yet.
	empty []bool
}

func (w *writer) spaces() { w.buf.WriteString(strings.Repeat(" ", 2*w.indent)) }

// member starts a JSON member: a comma after the previous one, then a new
// line and the indentation.
func (w *writer) member() {
	top := len(w.empty) - 1
	if !w.empty[top] {
		w.buf.WriteByte(',')
	}
	w.empty[top] = false
	w.buf.WriteByte('\n')
	w.spaces()
}

// openGroup opens a JSON object or array, labelled unless label is "";
// TEXT has no groups.
func (w *writer) openGroup(label string, array bool) {
	if !w.json {
		return
	}
	w.member()
	if label != "" {
		w.buf.WriteString(jsonString(label) + ": ")
	}
	if array {
		w.buf.WriteByte('[')
	} else {
		w.buf.WriteByte('{')
	}
	w.empty = append(w.empty, true)
	w.indent++
}

func (w *writer) closeGroup(array bool) {
	if !w.json {
		return
	}
	w.indent--
	w.empty = w.empty[:len(w.empty)-1]
	w.buf.WriteByte('\n')
	w.spaces()
	if array {
		w.buf.WriteByte(']')
	} else {
		w.buf.WriteByte('}')
	}
}

// textProp writes a string property.
func (w *writer) textProp(key, value string) {
	if w.json {
		w.member()
		w.buf.WriteString(jsonString(key) + ": " + jsonString(value))
		return
	}
	w.spaces()
	w.buf.WriteString(key + ": " + value + "\n")
}

// numProp writes a number already formatted; TEXT appends its unit.
func (w *writer) numProp(key, value, unit string) {
	if w.json {
		w.member()
		w.buf.WriteString(jsonString(key) + ": " + value)
		return
	}
	if unit != "" {
		value += " " + unit
	}
	w.spaces()
	w.buf.WriteString(key + ": " + value + "\n")
}

// boolProp writes a boolean property; PostgreSQL shows these (Parallel
// Aware ...) only in non-text formats.
func (w *writer) boolProp(key string, v bool) {
	if w.json {
		w.member()
		w.buf.WriteString(jsonString(key) + ": " + strconv.FormatBool(v))
	}
}

// listProp writes a list: "Key: a, b" or "Key": ["a", "b"].
func (w *writer) listProp(key string, items []string) {
	if !w.json {
		w.spaces()
		w.buf.WriteString(key + ": " + strings.Join(items, ", ") + "\n")
		return
	}
	w.member()
	w.buf.WriteString(jsonString(key) + ": [")
	for i, it := range items {
		if i > 0 {
			w.buf.WriteString(", ")
		}
		w.buf.WriteString(jsonString(it))
	}
	w.buf.WriteByte(']')
}

// jsonString quotes s as PostgreSQL's escape_json does: only quotes,
// backslashes and control characters are escaped, other text is kept
// as is.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte("0123456789abcdef"[c>>4])
				b.WriteByte("0123456789abcdef"[c&15])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
