package planner

import (
	"fmt"
	"testing"
)

// treeString prints a join tree over item indexes: (l r) for an inner
// join, (l semi r) for a semi join, each side's first item on the left.
func treeString(t *orderNode) string {
	if t == nil {
		return "<none>"
	}
	if t.item >= 0 {
		return fmt.Sprint(t.item)
	}
	if t.semi >= 0 {
		return "(" + treeString(t.left) + " semi " + treeString(t.right) + ")"
	}
	return "(" + treeString(t.left) + " " + treeString(t.right) + ")"
}

// TestSemiJoinOrder checks where the join order search puts a semi join
// (join_is_legal and the rows it keeps): below the inner joins when it
// removes rows, only against a side with every item its condition
// names, its right side alone. Both the exhaustive and the greedy
// search.
func TestSemiJoinOrder(t *testing.T) {
	// Items of TPC-H Q18: 0 customer, 1 orders, 2 lineitem, 3 the IN
	// subquery (the semi join's right side, on orders).
	q18 := func(sel float64) *joinGraph {
		return &joinGraph{
			rows: []float64{150000, 1500000, 6000000, 60},
			edges: []edge{
				{items: 0b0011, sel: 1.0 / 150000, semi: -1},
				{items: 0b0110, sel: 1.0 / 1500000, semi: -1},
				{items: 0b1010, semi: 0},
			},
			semis: []semiSpec{{rhs: 3, minLeft: 0b0010, sel: sel}},
			rhs:   0b1000,
		}
	}
	// 0 and 1 joined on a condition, 2 a semi join's right side whose
	// condition names both.
	twoRels := &joinGraph{
		rows:  []float64{1000, 1000, 10},
		edges: []edge{{items: 0b011, sel: 0.001, semi: -1}, {items: 0b111, semi: 0}},
		semis: []semiSpec{{rhs: 2, minLeft: 0b011, sel: 0.001}},
		rhs:   0b100,
	}
	// Two semi joins' right sides (2, 3) on item 0: neither may join the
	// other; the one keeping fewer rows goes first.
	twoSemis := &joinGraph{
		rows: []float64{100, 10000, 5, 5},
		edges: []edge{
			{items: 0b0011, sel: 0.001, semi: -1},
			{items: 0b0101, semi: 0},
			{items: 0b1001, semi: 1},
		},
		semis: []semiSpec{{rhs: 2, minLeft: 0b01, sel: 0.05}, {rhs: 3, minLeft: 0b01, sel: 0.1}},
		rhs:   0b1100,
	}
	for _, tc := range []struct {
		name string
		g    *joinGraph
		want string
	}{
		{"Q18: semi join on orders first", q18(0.5), "((0 (1 semi 3)) 2)"},
		{"Q18: one keeping every row goes on its smallest left side", q18(1), "(((0 1) semi 3) 2)"},
		{"condition on two items waits for their join", twoRels, "((0 1) semi 2)"},
		{"two semi joins on one item", twoSemis, "(((0 semi 2) semi 3) 1)"},
	} {
		for _, greedy := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/greedy=%v", tc.name, greedy), func(t *testing.T) {
				tc.g.needs = make([]uint64, len(tc.g.rows))
				tc.g.remote = make([]string, len(tc.g.rows))
				tree := tc.g.dpJoinOrder()
				if greedy {
					tree = tc.g.greedyJoinOrder()
				}
				if got := treeString(tree); got != tc.want {
					t.Errorf("join order %s, want %s", got, tc.want)
				}
			})
		}
	}
}

// TestSemiJoinable checks join_is_legal's rules for a semi join's right
// side (item 2, its condition naming item 0).
func TestSemiJoinable(t *testing.T) {
	g := &joinGraph{
		rows:  []float64{10, 10, 10},
		semis: []semiSpec{{rhs: 2, minLeft: 0b001}},
		rhs:   0b100,
		needs: make([]uint64, 3),
	}
	for _, tc := range []struct {
		l, r uint64
		semi int
		ok   bool
	}{
		{0b001, 0b010, -1, true}, // inner join
		{0b001, 0b100, 0, true},  // the semi join
		{0b100, 0b011, 0, true},  // either side
		{0b010, 0b100, 0, false}, // its condition's item is missing
		{0b101, 0b010, -1, true}, // the semi join done, an inner join above
	} {
		semi, ok := g.joinable(tc.l, tc.r)
		if semi != tc.semi || ok != tc.ok {
			t.Errorf("joinable(%03b, %03b) = %d, %v, want %d, %v", tc.l, tc.r, semi, ok, tc.semi, tc.ok)
		}
	}
}
