package executor

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// groupingSetsPlan is an Agg over a stub of (k1 int8, k2 text, v int8)
// with grouping sets over the keys (k1, k2), computing count(*), sum(v)
// and count(DISTINCT v) FILTER (WHERE v > 2), and grouping(k1, k2).
func groupingSetsPlan(sets [][]int) (*nodes.Agg, *nodes.Result) {
	in := stub(field("k1", types.Int8T), field("k2", types.TextT), field("v", types.Int8T))
	v := col(2, types.Int8T)
	p := &nodes.Agg{
		Child:     in,
		Strategy:  nodes.AggHashed,
		GroupKeys: []nodes.Expr{col(0, types.Int8T), col(1, types.TextT)},
		Aggs: []*nodes.AggCall{
			{Name: "count", Star: true, T: types.Int8T},
			{Name: "sum", Args: []nodes.Expr{v}, T: types.NumericT},
			{Name: "count", Args: []nodes.Expr{v}, Distinct: true, Filter: cmpOp(">", v, int8Lit(2)), T: types.Int8T},
		},
		GroupingSets: sets,
		Groupings:    [][]int{{0, 1}},
	}
	if !slices.ContainsFunc(sets, func(s []int) bool { return len(s) > 0 }) {
		p.Strategy = nodes.AggPlain
	}
	p.Out = []nodes.Field{field("k1", types.Int8T), field("k2", types.TextT), field("count", types.Int8T),
		field("sum", types.NumericT), field("cd", types.Int8T), field("g", types.Int4T)}
	nodes.Number(p)
	return p, in
}

// expectedGroupingSets computes the Agg's rows by brute force.
func expectedGroupingSets(rows [][]any, sets [][]int) [][]any {
	var out [][]any
	for _, set := range sets {
		type group struct {
			keys     []any
			n, sum   int64
			sumNull  bool
			distinct map[int64]bool
		}
		var order []string
		groups := map[string]*group{}
		for _, r := range rows {
			keys := []any{nil, nil}
			for _, k := range set {
				keys[k] = r[k]
			}
			id := fmt.Sprint(keys...)
			g := groups[id]
			if g == nil {
				g = &group{keys: keys, sumNull: true, distinct: map[int64]bool{}}
				groups[id] = g
				order = append(order, id)
			}
			g.n++
			if v, ok := r[2].(int64); ok {
				g.sum += v
				g.sumNull = false
				if v > 2 {
					g.distinct[v] = true
				}
			}
		}
		if len(set) == 0 && len(rows) == 0 {
			groups[""] = &group{keys: []any{nil, nil}, sumNull: true}
			order = append(order, "")
		}
		for _, id := range order {
			g := groups[id]
			var sum any = fmt.Sprint(g.sum)
			if g.sumNull {
				sum = nil
			}
			out = append(out, []any{g.keys[0], g.keys[1], g.n, sum, int64(len(g.distinct)), groupingValues([][]int{{0, 1}}, set)[0]})
		}
	}
	return out
}

// buildGroupingSets builds p over the fake input.
func buildGroupingSets(t *testing.T, p *nodes.Agg, ec *ExecContext, input Operator) Operator {
	t.Helper()
	op, err := Build(p, ec)
	if err != nil {
		t.Fatal(err)
	}
	inner := op
	if w, ok := op.(*instrumented); ok {
		inner = w.Operator
	}
	g := inner.(*groupingSetsAgg)
	g.child.Close()
	g.child = input
	return op
}

func groupingInput(r *rand.Rand, n int) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		var k1, k2, v any
		if r.Intn(8) > 0 {
			k1 = int64(r.Intn(9))
		}
		if r.Intn(8) > 0 {
			k2 = fmt.Sprintf("s%d", r.Intn(6))
		}
		if r.Intn(6) > 0 {
			v = int64(r.Intn(7))
		}
		rows[i] = []any{k1, k2, v}
	}
	return rows
}

func groupingBatches(fs []nodes.Field, rows [][]any, size int) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	for start := 0; start < len(rows); start += size {
		part := rows[start:min(start+size, len(rows))]
		cols := make([]arrow.Array, len(fs))
		for c, f := range fs {
			vals := make([]any, len(part))
			for i, r := range part {
				vals[i] = r[c]
			}
			cols[c] = arrayOfDatums(f.T, vals)
		}
		out = append(out, makeBatch(schemaOf(fs), cols, len(part)))
	}
	return out
}

// TestGroupingSetsAgg checks every set's groups, NULL keys outside the
// set, the aggregates (DISTINCT and FILTER too) and grouping(), in memory
// and spilling, over empty and non-empty input.
func TestGroupingSetsAgg(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	cases := []struct {
		name string
		sets [][]int
		rows int
	}{
		{"rollup", [][]int{{0, 1}, {0}, {}}, 500},
		{"cube", [][]int{{0, 1}, {0}, {1}, {}}, 300},
		{"two sets", [][]int{{0}, {1}}, 200},
		{"duplicate sets", [][]int{{1}, {1}}, 100},
		{"empty sets only", [][]int{{}, {}}, 50},
		{"rollup over no rows", [][]int{{0, 1}, {0}, {}}, 0},
		{"hashed sets over no rows", [][]int{{0}, {1}}, 0},
	}
	for _, c := range cases {
		for _, debug := range []bool{false, true} {
			name := fmt.Sprintf("%s/spill=%v", c.name, debug)
			p, in := groupingSetsPlan(c.sets)
			rows := groupingInput(r, c.rows)
			ec := &ExecContext{BatchSize: 32, DebugSpill: debug, TempDir: t.TempDir(), Stats: instrument.NewStats(nodes.Number(p), false)}
			op := buildGroupingSets(t, p, ec, exectest.New(nil, "input", exectest.Batches(groupingBatches(in.Out, rows, 40)...)...))
			got, err := drainChecked(t, op, 32)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			sameRows(t, name, got, expectedGroupingSets(rows, c.sets))
			extra := ec.Stats.Node(p.ID).Extra
			if p.Strategy == nodes.AggHashed {
				if len(extra) != 1 || !strings.HasPrefix(extra[0], "Batches: ") {
					t.Errorf("%s: EXPLAIN line %q", name, extra)
				} else if spilled := strings.Contains(extra[0], "Disk Usage"); spilled != (debug && c.rows > 0) {
					t.Errorf("%s: EXPLAIN line %q", name, extra[0])
				}
			}
		}
	}
}

// TestGroupingSetsOutputOrder: the empty sets come first, then the others
// in the plan's order, as PostgreSQL's MixedAggregate returns them.
func TestGroupingSetsOutputOrder(t *testing.T) {
	p, in := groupingSetsPlan([][]int{{0, 1}, {0}, {}})
	rows := [][]any{{int64(1), "x", int64(5)}, {int64(1), "y", int64(1)}}
	ec := &ExecContext{BatchSize: 8}
	op := buildGroupingSets(t, p, ec, exectest.New(nil, "input", exectest.Batches(groupingBatches(in.Out, rows, 8)...)...))
	got, err := run(t, op)
	if err != nil {
		t.Fatal(err)
	}
	var gs []int64
	for _, row := range got {
		gs = append(gs, row[5].(int64))
	}
	if want := []int64{3, 0, 0, 1}; !slices.Equal(gs, want) {
		t.Errorf("grouping() per row %v, want %v", gs, want)
	}
}

func TestGroupingValues(t *testing.T) {
	cases := []struct {
		calls [][]int
		set   []int
		want  []int64
	}{
		{[][]int{{0, 1}}, []int{0, 1}, []int64{0}},
		{[][]int{{0, 1}}, []int{0}, []int64{1}},
		{[][]int{{0, 1}}, []int{1}, []int64{2}},
		{[][]int{{0, 1}}, nil, []int64{3}},
		{[][]int{{2, 0, 1}, {1}}, []int{0}, []int64{5, 1}},
	}
	for _, c := range cases {
		if got := groupingValues(c.calls, c.set); !slices.Equal(got, c.want) {
			t.Errorf("groupingValues(%v, %v) = %v, want %v", c.calls, c.set, got, c.want)
		}
	}
}
