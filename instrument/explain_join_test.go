package instrument

import (
	"strings"
	"testing"

	"github.com/pgfed/pgfed/nodes"
)

// Join plans over t(a int, b int) and u(a int, b int), as pgfed's planner
// builds them, with PostgreSQL 15's EXPLAIN output for the queries in the
// comments.

// hashJoin is
//
//	select * from t left join u on t.a = u.a and t.b < u.b where u.b is null
func hashJoin(typ nodes.JoinType, conds int) *nodes.HashJoin {
	ts, us := scan(newTable("t"), "", 0, 1), scan(newTable("u"), "", 0, 1)
	h := &nodes.Hash{Child: us}
	h.Out = us.Out
	j := &nodes.HashJoin{Type: typ, Outer: ts, Inner: h,
		OuterKeys: []nodes.Expr{col(0, "t.a")}, InnerKeys: []nodes.Expr{col(0, "u.a")},
		JoinFilter: op("<", col(1, "t.b"), col(3, "u.b"))}
	if conds == 2 {
		j.OuterKeys = append(j.OuterKeys, col(1, "t.b"))
		j.InnerKeys = append(j.InnerKeys, col(1, "u.b"))
		j.JoinFilter = nil
	}
	j.Filter = &nodes.NullTest{Arg: col(3, "u.b")}
	j.Out = intFields("a", "b", "a", "b")
	return j
}

// hashJoinStats are the counters of hashJoin(JoinLeft, 1) analyzed, with
// the Hash's table as given.
func hashJoinStats(p nodes.Plan, h *HashInfo) *Stats {
	return analyzed(p,
		NodeStats{Loops: 1, Rows: 7, RowsRemovedByJoinFilter: 3, RowsRemovedByFilter: 2},
		NodeStats{Loops: 1, Rows: 10},
		NodeStats{Loops: 1, Rows: 10, Hash: h},
		NodeStats{Loops: 1, Rows: 10})
}

func nestedLoop(typ nodes.JoinType) *nodes.NestedLoop {
	ts, us := scan(newTable("t"), "", 0, 1), scan(newTable("u"), "", 0, 1)
	m := &nodes.Material{Child: us}
	m.Out = us.Out
	j := &nodes.NestedLoop{Type: typ, Outer: ts, Inner: m, JoinFilter: op("<", col(0, "t.a"), col(2, "u.a"))}
	j.Out = intFields("a", "b", "a", "b")
	return j
}

func TestExplainJoins(t *testing.T) {
	analyzeText := ExplainOptions{Format: "text", Analyze: true}
	tests := []struct {
		name string
		plan func() (nodes.Plan, *Stats)
		opts ExplainOptions
		want string
	}{
		{
			// explain (costs off) select * from t join u on t.a = u.a and t.b = u.b
			name: "hash join on two clauses",
			plan: func() (nodes.Plan, *Stats) {
				j := hashJoin(nodes.JoinInner, 2)
				j.Filter = nil
				return j, nil
			},
			opts: costsOff,
			want: `Hash Join
  Hash Cond: ((t.a = u.a) AND (t.b = u.b))
  ->  Seq Scan on t
  ->  Hash
        ->  Seq Scan on u`,
		},
		{
			// explain (analyze, costs off, timing off, summary off) the
			// query of hashJoin
			name: "hash left join analyzed",
			plan: func() (nodes.Plan, *Stats) {
				j := hashJoin(nodes.JoinLeft, 1)
				return j, hashJoinStats(j, &HashInfo{Buckets: 1024, OriginalBuckets: 1024, Batches: 1, OriginalBatches: 1, PeakMemory: 8500})
			},
			opts: analyzeText,
			want: `Hash Left Join (actual rows=7 loops=1)
  Hash Cond: (t.a = u.a)
  Join Filter: (t.b < u.b)
  Rows Removed by Join Filter: 3
  Filter: (u.b IS NULL)
  Rows Removed by Filter: 2
  ->  Seq Scan on t (actual rows=10 loops=1)
  ->  Hash (actual rows=10 loops=1)
        Buckets: 1024  Batches: 1  Memory Usage: 9kB
        ->  Seq Scan on u (actual rows=10 loops=1)`,
		},
		{
			// set work_mem = '64kB'; the same query over more rows
			name: "hash join that spilled",
			plan: func() (nodes.Plan, *Stats) {
				j := hashJoin(nodes.JoinAnti, 1)
				j.Filter, j.Out = nil, intFields("a", "b")
				return j, hashJoinStats(j, &HashInfo{Buckets: 2048, OriginalBuckets: 1024, Batches: 16, OriginalBatches: 1, PeakMemory: 128 << 10})
			},
			opts: analyzeText,
			want: `Hash Anti Join (actual rows=7 loops=1)
  Hash Cond: (t.a = u.a)
  Join Filter: (t.b < u.b)
  Rows Removed by Join Filter: 3
  ->  Seq Scan on t (actual rows=10 loops=1)
  ->  Hash (actual rows=10 loops=1)
        Buckets: 2048 (originally 1024)  Batches: 16 (originally 1)  Memory Usage: 128kB
        ->  Seq Scan on u (actual rows=10 loops=1)`,
		},
		{
			// An empty outer side, read first: the Hash never ran.
			name: "hash join, hash never executed",
			plan: func() (nodes.Plan, *Stats) {
				j := hashJoin(nodes.JoinRight, 2)
				j.Filter = nil
				return j, analyzed(j, NodeStats{Loops: 1}, NodeStats{Loops: 1})
			},
			opts: analyzeText,
			want: `Hash Right Join (actual rows=0 loops=1)
  Hash Cond: ((t.a = u.a) AND (t.b = u.b))
  ->  Seq Scan on t (actual rows=0 loops=1)
  ->  Hash (never executed)
        ->  Seq Scan on u (never executed)`,
		},
		{
			name: "hash left join analyzed, json",
			plan: func() (nodes.Plan, *Stats) {
				j := hashJoin(nodes.JoinLeft, 1)
				return j, hashJoinStats(j, &HashInfo{Buckets: 1024, OriginalBuckets: 1024, Batches: 1, OriginalBatches: 1, PeakMemory: 8500})
			},
			opts: jsonOf(analyzeText),
			want: `[
  {
    "Plan": {
      "Node Type": "Hash Join",
      "Parallel Aware": false,
      "Async Capable": false,
      "Join Type": "Left",
      "Actual Rows": 7,
      "Actual Loops": 1,
      "Inner Unique": false,
      "Hash Cond": "(t.a = u.a)",
      "Join Filter": "(t.b < u.b)",
      "Rows Removed by Join Filter": 3,
      "Filter": "(u.b IS NULL)",
      "Rows Removed by Filter": 2,
      "Plans": [
        {
          "Node Type": "Seq Scan",
          "Parent Relationship": "Outer",
          "Parallel Aware": false,
          "Async Capable": false,
          "Relation Name": "t",
          "Alias": "t",
          "Actual Rows": 10,
          "Actual Loops": 1
        },
        {
          "Node Type": "Hash",
          "Parent Relationship": "Inner",
          "Parallel Aware": false,
          "Async Capable": false,
          "Actual Rows": 10,
          "Actual Loops": 1,
          "Hash Buckets": 1024,
          "Original Hash Buckets": 1024,
          "Hash Batches": 1,
          "Original Hash Batches": 1,
          "Peak Memory Usage": 9,
          "Plans": [
            {
              "Node Type": "Seq Scan",
              "Parent Relationship": "Outer",
              "Parallel Aware": false,
              "Async Capable": false,
              "Relation Name": "u",
              "Alias": "u",
              "Actual Rows": 10,
              "Actual Loops": 1
            }
          ]
        }
      ]
    },
    "Triggers": [
    ]
  }
]`,
		},
		{
			// explain (costs off) select * from t join u on t.a < u.a
			name: "nested loop over materialize",
			plan: func() (nodes.Plan, *Stats) { return nestedLoop(nodes.JoinInner), nil },
			opts: costsOff,
			want: `Nested Loop
  Join Filter: (t.a < u.a)
  ->  Seq Scan on t
  ->  Materialize
        ->  Seq Scan on u`,
		},
		{
			// explain (analyze, costs off, timing off, summary off)
			// select * from t left join u on t.a < u.a
			name: "nested loop left join analyzed",
			plan: func() (nodes.Plan, *Stats) {
				j := nestedLoop(nodes.JoinLeft)
				return j, analyzed(j,
					NodeStats{Loops: 1, Rows: 46, RowsRemovedByJoinFilter: 55},
					NodeStats{Loops: 1, Rows: 10},
					NodeStats{Loops: 10, Rows: 100},
					NodeStats{Loops: 1, Rows: 10})
			},
			opts: analyzeText,
			want: `Nested Loop Left Join (actual rows=46 loops=1)
  Join Filter: (t.a < u.a)
  Rows Removed by Join Filter: 55
  ->  Seq Scan on t (actual rows=10 loops=1)
  ->  Materialize (actual rows=10 loops=10)
        ->  Seq Scan on u (actual rows=10 loops=1)`,
		},
		{
			name: "nested loop, json",
			plan: func() (nodes.Plan, *Stats) {
				j := nestedLoop(nodes.JoinSemi)
				return j, analyzed(j,
					NodeStats{Loops: 1, Rows: 9},
					NodeStats{Loops: 1, Rows: 10},
					NodeStats{Loops: 10, Rows: 100},
					NodeStats{Loops: 1, Rows: 10})
			},
			opts: jsonOf(analyzeText),
			want: `[
  {
    "Plan": {
      "Node Type": "Nested Loop",
      "Parallel Aware": false,
      "Async Capable": false,
      "Join Type": "Semi",
      "Actual Rows": 9,
      "Actual Loops": 1,
      "Inner Unique": false,
      "Join Filter": "(t.a < u.a)",
      "Rows Removed by Join Filter": 0,
      "Plans": [
        {
          "Node Type": "Seq Scan",
          "Parent Relationship": "Outer",
          "Parallel Aware": false,
          "Async Capable": false,
          "Relation Name": "t",
          "Alias": "t",
          "Actual Rows": 10,
          "Actual Loops": 1
        },
        {
          "Node Type": "Materialize",
          "Parent Relationship": "Inner",
          "Parallel Aware": false,
          "Async Capable": false,
          "Actual Rows": 10,
          "Actual Loops": 10,
          "Plans": [
            {
              "Node Type": "Seq Scan",
              "Parent Relationship": "Outer",
              "Parallel Aware": false,
              "Async Capable": false,
              "Relation Name": "u",
              "Alias": "u",
              "Actual Rows": 10,
              "Actual Loops": 1
            }
          ]
        }
      ]
    },
    "Triggers": [
    ]
  }
]`,
		},
		{
			// explain (verbose, costs off) select t.b, u.b from t join u on t.a = u.a
			name: "hash join, verbose",
			plan: func() (nodes.Plan, *Stats) {
				j := hashJoin(nodes.JoinInner, 1)
				j.Filter, j.JoinFilter = nil, nil
				j.Outer.Base().Out = intFields("t.a", "t.b")
				j.Inner.Child.Base().Out = intFields("u.a", "u.b")
				j.Targets = []nodes.Expr{col(1, "t.b"), col(3, "u.b")}
				j.Out = intFields("b", "b")
				return j, nil
			},
			opts: verboseCostsOff,
			want: `Hash Join
  Output: t.b, u.b
  Hash Cond: (t.a = u.a)
  ->  Seq Scan on public.t
        Output: t.a, t.b
  ->  Hash
        Output: u.a, u.b
        ->  Seq Scan on public.u
              Output: u.a, u.b`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, stats := tc.plan()
			nodes.Number(p)
			got := strings.Join(Explain(p, stats, tc.opts), "\n")
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestHashInfoMergesWorkers: a parallel worker's Hash keeps the largest
// of each count, and its join filter counts add up.
func TestHashInfoMergesWorkers(t *testing.T) {
	var n NodeStats
	n.MergeWorker(0, &NodeStats{Loops: 1, RowsRemovedByJoinFilter: 2, Hash: &HashInfo{Buckets: 1024, OriginalBuckets: 1024, Batches: 1, OriginalBatches: 1, PeakMemory: 100}})
	n.MergeWorker(1, &NodeStats{Loops: 1, RowsRemovedByJoinFilter: 3, Hash: &HashInfo{Buckets: 2048, OriginalBuckets: 1024, Batches: 4, OriginalBatches: 1, PeakMemory: 50}})
	want := HashInfo{Buckets: 2048, OriginalBuckets: 1024, Batches: 4, OriginalBatches: 1, PeakMemory: 100}
	if n.Hash == nil || *n.Hash != want || n.RowsRemovedByJoinFilter != 5 {
		t.Errorf("merged %+v, removed %d", n.Hash, n.RowsRemovedByJoinFilter)
	}
}
