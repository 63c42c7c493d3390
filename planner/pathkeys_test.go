package planner

import (
	"testing"

	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

func col(i int) *nodes.ColumnRef { return &nodes.ColumnRef{Index: i, T: types.Int4T} }

func fields(n int) []nodes.Field {
	out := make([]nodes.Field, n)
	for i := range out {
		out[i] = nodes.Field{Name: "c", T: types.Int4T}
	}
	return out
}

// leaf is an unordered input of n columns.
func leaf(n int) nodes.Plan {
	v := &nodes.ValuesScan{}
	v.Out = fields(n)
	return v
}

func sortOn(p nodes.Plan, keys ...nodes.SortKey) nodes.Plan {
	s := &nodes.Sort{Child: p, Keys: keys}
	s.Out = p.Base().Out
	return s
}

func asc(i int) nodes.SortKey  { return nodes.SortKey{Expr: col(i)} }
func desc(i int) nodes.SortKey { return nodes.SortKey{Expr: col(i), Desc: true, NullsFirst: true} }

// TestOutputOrder checks which plans are known to return sorted rows
// (pathkeys.go): sorts and what passes their order through (a
// projection only for the keys it keeps as columns), a merge join's
// outer order (its inner keys too for an inner join) but not a left
// join's, whose unmatched rows come at the end of their batch, and
// nothing for a hash join.
func TestOutputOrder(t *testing.T) {
	projected := func(p nodes.Plan, targets ...nodes.Expr) nodes.Plan {
		s := &nodes.SubqueryScan{Child: p}
		s.Targets, s.Out = targets, fields(len(targets))
		return s
	}
	merge := func(typ nodes.JoinType) nodes.Plan {
		mj := &nodes.MergeJoin{Type: typ, Outer: sortOn(leaf(2), asc(1)), Inner: sortOn(leaf(3), asc(2)),
			MergeKeys: []nodes.MergeKey{{Outer: col(1), Inner: col(2)}}}
		mj.Out = fields(5)
		return mj
	}
	hash := &nodes.HashJoin{Type: nodes.JoinInner, Outer: sortOn(leaf(1), asc(0)), Inner: &nodes.Hash{Child: leaf(1)}}
	hash.Out = fields(2)
	for _, tc := range []struct {
		name string
		plan nodes.Plan
		keys []nodes.SortKey // sorted on these
		not  []nodes.SortKey // and not on these
	}{
		{"unordered", leaf(2), nil, []nodes.SortKey{asc(0)}},
		{"sort", sortOn(leaf(2), asc(1), desc(0)), []nodes.SortKey{asc(1), desc(0)}, []nodes.SortKey{asc(0)}},
		{"direction counts", sortOn(leaf(2), asc(1)), []nodes.SortKey{asc(1)}, []nodes.SortKey{{Expr: col(1), Desc: true}, {Expr: col(1), NullsFirst: true}}},
		{"projection keeps columns", projected(sortOn(leaf(3), asc(2), asc(0)), col(1), col(2), col(0)), []nodes.SortKey{asc(1), asc(2)}, []nodes.SortKey{asc(0)}},
		{"projection drops an expression key", projected(sortOn(leaf(2), asc(0), asc(1)), &nodes.OpExpr{Op: "+", Left: col(0), Right: col(1)}, col(1)), nil, []nodes.SortKey{asc(1)}},
		{"limit", func() nodes.Plan { l := &nodes.Limit{Child: sortOn(leaf(1), asc(0))}; l.Out = fields(1); return l }(), []nodes.SortKey{asc(0)}, nil},
		{"inner merge join: outer and inner keys", merge(nodes.JoinInner), []nodes.SortKey{asc(1)}, []nodes.SortKey{asc(0)}},
		{"inner merge join: inner key", merge(nodes.JoinInner), []nodes.SortKey{asc(4)}, nil},
		{"left merge join", merge(nodes.JoinLeft), nil, []nodes.SortKey{asc(1)}},
		{"full merge join", merge(nodes.JoinFull), nil, []nodes.SortKey{asc(1)}},
		{"anti merge join", merge(nodes.JoinAnti), []nodes.SortKey{asc(1)}, nil},
		{"hash join", hash, nil, []nodes.SortKey{asc(0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := outputOrder(tc.plan)
			if tc.keys != nil && !o.satisfies(tc.keys) {
				t.Errorf("not sorted on %v", tc.keys)
			}
			for _, k := range tc.not {
				if o.satisfies([]nodes.SortKey{k}) {
					t.Errorf("sorted on %v", k)
				}
			}
		})
	}
}

// TestOrderCovering checks the order merge keys take: an input's order
// when it begins with them, its directions, the others after it.
func TestOrderCovering(t *testing.T) {
	o := outputOrder(sortOn(leaf(3), asc(2), desc(0)))
	perm, dirs, n := orderCovering(o, []nodes.Expr{col(0), col(2)})
	if n != 2 || perm[0] != 1 || perm[1] != 0 || dirs[0].Desc || !dirs[1].Desc || !dirs[1].NullsFirst {
		t.Errorf("got %v %v %d", perm, dirs, n)
	}
	perm, _, n = orderCovering(o, []nodes.Expr{col(1), col(0)})
	if n != 0 || perm[0] != 0 || perm[1] != 1 {
		t.Errorf("a key not first: got %v, %d covered", perm, n)
	}
	if _, _, n = orderCovering(o, []nodes.Expr{col(2), col(1)}); n != 1 {
		t.Errorf("got %d covered, want 1", n)
	}
}
