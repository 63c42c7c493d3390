package instrument

import (
	"strings"
	"testing"
	"time"

	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// lit is an expression printed as given. The tests use it instead of
// nodes.Const, so as not to depend on types.Format, and for references
// to aggregate results, which a ColumnRef would print quoted.
type lit string

func (l lit) Type() types.T  { return types.Int4T }
func (l lit) String() string { return string(l) }

func col(i int, name string) *nodes.ColumnRef {
	return &nodes.ColumnRef{Index: i, Name: name, T: types.Int4T}
}

func op(o string, l, r nodes.Expr) *nodes.OpExpr {
	return &nodes.OpExpr{Op: o, Left: l, Right: r, T: types.BoolT}
}

func intFields(names ...string) []nodes.Field {
	fs := make([]nodes.Field, len(names))
	for i, n := range names {
		fs[i] = nodes.Field{Name: n, T: types.Int4T}
	}
	return fs
}

// newTable makes public.<name>(a int, b int).
func newTable(name string) *storage.Table {
	return storage.NewTable("public", name, []storage.Column{
		{Name: "a", Type: types.Int4T},
		{Name: "b", Type: types.Int4T},
	})
}

func scan(t *storage.Table, alias string, cols ...int) *nodes.SeqScan {
	s := &nodes.SeqScan{Table: t, Alias: alias, Columns: cols}
	for _, c := range cols {
		s.Out = append(s.Out, nodes.Field{Name: t.Columns[c].Name, T: t.Columns[c].Type})
	}
	return s
}

// costs sets a node's estimates.
func costs(b *nodes.PlanBase, startup, total, rows float64, width int) {
	b.StartupCost, b.TotalCost, b.Rows, b.Width = startup, total, rows, width
}

// analyzed numbers plan p and returns counters for it, filled by fill
// (indexed by the depth-first node IDs).
func analyzed(p nodes.Plan, fill ...NodeStats) *Stats {
	s := NewStats(nodes.Number(p), false)
	copy(s.Nodes, fill)
	return s
}

var (
	costsOff        = ExplainOptions{Format: "text"}
	verboseCostsOff = ExplainOptions{Format: "text", Verbose: true}
)

func jsonOf(o ExplainOptions) ExplainOptions {
	o.Format = "json"
	return o
}

// The plans below are built as pgfed's planner would build them for the
// queries in their comments, over tables analyzed in PostgreSQL 15 so
// that the estimates match. Each want is PostgreSQL 15's EXPLAIN output
// for that query (psql -At), with its tables:
//
//	create table t(a int, b int);  -- 10 rows: (g, g % 3) for g in 1..10
//	create table p(a int, b text) partition by range(a);
//	create table p1 partition of p for values from (0) to (10);
//	create table p2 partition of p for values from (10) to (20);
func TestExplainMatchesPostgres(t *testing.T) {
	tests := []struct {
		name string
		plan func() (nodes.Plan, *Stats)
		opts ExplainOptions
		want string
	}{
		{
			// explain select * from t;
			name: "seq scan with costs",
			plan: func() (nodes.Plan, *Stats) {
				s := scan(newTable("t"), "", 0, 1)
				costs(&s.PlanBase, 0, 1.10, 10, 8)
				return s, nil
			},
			opts: ExplainOptions{Format: "text", Costs: true},
			want: `Seq Scan on t  (cost=0.00..1.10 rows=10 width=8)`,
		},
		{
			// explain (verbose, costs off) select a+1 from t x where b > 1;
			name: "alias and verbose",
			plan: func() (nodes.Plan, *Stats) {
				s := scan(newTable("t"), "x", 0, 1)
				s.Filter = op(">", col(1, "x.b"), lit("1"))
				s.Targets = []nodes.Expr{op("+", col(0, "a"), lit("1"))}
				s.Out = intFields("?column?")
				return s, nil
			},
			opts: verboseCostsOff,
			want: `Seq Scan on public.t x
  Output: (a + 1)
  Filter: (x.b > 1)`,
		},
		{
			// explain (verbose, analyze, timing off, summary off)
			// select b, count(*) from t where a > 2 group by b having count(*) > 1;
			name: "hash aggregate analyzed",
			plan: hashAggAnalyzed,
			opts: ExplainOptions{Format: "text", Analyze: true, Verbose: true, Costs: true},
			want: `HashAggregate  (cost=1.17..1.21 rows=1 width=12) (actual rows=3 loops=1)
  Output: b, count(*)
  Group Key: t.b
  Filter: (count(*) > 1)
  Batches: 1  Memory Usage: 24kB
  ->  Seq Scan on public.t  (cost=0.00..1.12 rows=9 width=4) (actual rows=8 loops=1)
        Output: a, b
        Filter: (t.a > 2)
        Rows Removed by Filter: 2`,
		},
		{
			name: "hash aggregate analyzed, json",
			plan: hashAggAnalyzed,
			opts: ExplainOptions{Format: "json", Analyze: true, Verbose: true, Costs: true},
			want: `[
  {
    "Plan": {
      "Node Type": "Aggregate",
      "Strategy": "Hashed",
      "Partial Mode": "Simple",
      "Parallel Aware": false,
      "Async Capable": false,
      "Startup Cost": 1.17,
      "Total Cost": 1.21,
      "Plan Rows": 1,
      "Plan Width": 12,
      "Actual Rows": 3,
      "Actual Loops": 1,
      "Output": ["b", "count(*)"],
      "Group Key": ["t.b"],
      "Filter": "(count(*) > 1)",
      "Planned Partitions": 0,
      "HashAgg Batches": 1,
      "Peak Memory Usage": 24,
      "Disk Usage": 0,
      "Rows Removed by Filter": 0,
      "Plans": [
        {
          "Node Type": "Seq Scan",
          "Parent Relationship": "Outer",
          "Parallel Aware": false,
          "Async Capable": false,
          "Relation Name": "t",
          "Schema": "public",
          "Alias": "t",
          "Startup Cost": 0.00,
          "Total Cost": 1.12,
          "Plan Rows": 9,
          "Plan Width": 4,
          "Actual Rows": 8,
          "Actual Loops": 1,
          "Output": ["a", "b"],
          "Filter": "(t.a > 2)",
          "Rows Removed by Filter": 2
        }
      ]
    },
    "Triggers": [
    ]
  }
]`,
		},
		{
			// explain (costs off, verbose) select * from t order by a desc, b limit 3;
			name: "sort and limit, verbose",
			plan: func() (nodes.Plan, *Stats) {
				return sortLimit("t.a", "t.b"), nil
			},
			opts: verboseCostsOff,
			want: `Limit
  Output: a, b
  ->  Sort
        Output: a, b
        Sort Key: t.a DESC, t.b
        ->  Seq Scan on public.t
              Output: a, b`,
		},
		{
			// explain (format json, costs off, analyze, timing off)
			// select * from t order by a desc, b limit 3;
			name: "sort and limit analyzed, json with summary",
			plan: func() (nodes.Plan, *Stats) {
				p := sortLimit("a", "b")
				return p, analyzed(p,
					NodeStats{Loops: 1, Rows: 3},
					NodeStats{Loops: 1, Rows: 3, Extra: []string{"Sort Method: top-N heapsort  Memory: 25kB"}},
					NodeStats{Loops: 1, Rows: 10})
			},
			opts: ExplainOptions{Format: "json", Analyze: true, Summary: true,
				PlanningTime: 22 * time.Microsecond, ExecutionTime: 64 * time.Microsecond},
			want: `[
  {
    "Plan": {
      "Node Type": "Limit",
      "Parallel Aware": false,
      "Async Capable": false,
      "Actual Rows": 3,
      "Actual Loops": 1,
      "Plans": [
        {
          "Node Type": "Sort",
          "Parent Relationship": "Outer",
          "Parallel Aware": false,
          "Async Capable": false,
          "Actual Rows": 3,
          "Actual Loops": 1,
          "Sort Key": ["a DESC", "b"],
          "Sort Method": "top-N heapsort",
          "Sort Space Used": 25,
          "Sort Space Type": "Memory",
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
            }
          ]
        }
      ]
    },
    "Planning Time": 0.022,
    "Triggers": [
    ],
    "Execution Time": 0.064
  }
]`,
		},
		{
			// explain (costs off) select a from t union all select b from t x;
			name: "append",
			plan: unionAll,
			opts: costsOff,
			want: `Append
  ->  Seq Scan on t
  ->  Seq Scan on t x`,
		},
		{
			name: "append, verbose qualifies columns",
			plan: unionAll,
			opts: verboseCostsOff,
			want: `Append
  ->  Seq Scan on public.t
        Output: t.a
  ->  Seq Scan on public.t x
        Output: x.b`,
		},
		{
			name: "append, json",
			plan: unionAll,
			opts: jsonOf(costsOff),
			want: `[
  {
    "Plan": {
      "Node Type": "Append",
      "Parallel Aware": false,
      "Async Capable": false,
      "Subplans Removed": 0,
      "Plans": [
        {
          "Node Type": "Seq Scan",
          "Parent Relationship": "Member",
          "Parallel Aware": false,
          "Async Capable": false,
          "Relation Name": "t",
          "Alias": "t"
        },
        {
          "Node Type": "Seq Scan",
          "Parent Relationship": "Member",
          "Parallel Aware": false,
          "Async Capable": false,
          "Relation Name": "t",
          "Alias": "x"
        }
      ]
    }
  }
]`,
		},
		{
			// explain (analyze, timing off, summary off) select * from t where a > 3 limit 0;
			name: "never executed, with costs",
			plan: neverExecuted,
			opts: ExplainOptions{Format: "text", Analyze: true, Costs: true},
			want: `Limit  (cost=0.00..0.14 rows=1 width=8) (actual rows=0 loops=1)
  ->  Seq Scan on t  (cost=0.00..1.12 rows=8 width=8) (never executed)
        Filter: (a > 3)`,
		},
		{
			name: "never executed, json",
			plan: neverExecuted,
			opts: ExplainOptions{Format: "json", Analyze: true},
			want: `[
  {
    "Plan": {
      "Node Type": "Limit",
      "Parallel Aware": false,
      "Async Capable": false,
      "Actual Rows": 0,
      "Actual Loops": 1,
      "Plans": [
        {
          "Node Type": "Seq Scan",
          "Parent Relationship": "Outer",
          "Parallel Aware": false,
          "Async Capable": false,
          "Relation Name": "t",
          "Alias": "t",
          "Actual Rows": 0,
          "Actual Loops": 0,
          "Filter": "(a > 3)",
          "Rows Removed by Filter": 0
        }
      ]
    },
    "Triggers": [
    ]
  }
]`,
		},
		{
			// explain (costs off, verbose) update p set b = 'x';
			name: "update of a partitioned table",
			plan: func() (nodes.Plan, *Stats) { return modifyPartitioned(nodes.Update), nil },
			opts: verboseCostsOff,
			want: `Update on public.p
  Update on public.p1 p_1
  Update on public.p2 p_2
  ->  Append
        ->  Seq Scan on public.p1 p_1
              Output: 'x'::text, p_1.tableoid, p_1.ctid
        ->  Seq Scan on public.p2 p_2
              Output: 'x'::text, p_2.tableoid, p_2.ctid`,
		},
		{
			name: "update of a partitioned table, json",
			plan: func() (nodes.Plan, *Stats) { return modifyPartitioned(nodes.Update), nil },
			opts: jsonOf(verboseCostsOff),
			want: `[
  {
    "Plan": {
      "Node Type": "ModifyTable",
      "Operation": "Update",
      "Parallel Aware": false,
      "Async Capable": false,
      "Relation Name": "p",
      "Schema": "public",
      "Alias": "p",
      "Target Tables": [
        {
          "Relation Name": "p1",
          "Schema": "public",
          "Alias": "p_1"
        },
        {
          "Relation Name": "p2",
          "Schema": "public",
          "Alias": "p_2"
        }
      ],
      "Plans": [
        {
          "Node Type": "Append",
          "Parent Relationship": "Outer",
          "Parallel Aware": false,
          "Async Capable": false,
          "Subplans Removed": 0,
          "Plans": [
            {
              "Node Type": "Seq Scan",
              "Parent Relationship": "Member",
              "Parallel Aware": false,
              "Async Capable": false,
              "Relation Name": "p1",
              "Schema": "public",
              "Alias": "p_1",
              "Output": ["'x'::text", "p_1.tableoid", "p_1.ctid"]
            },
            {
              "Node Type": "Seq Scan",
              "Parent Relationship": "Member",
              "Parallel Aware": false,
              "Async Capable": false,
              "Relation Name": "p2",
              "Schema": "public",
              "Alias": "p_2",
              "Output": ["'x'::text", "p_2.tableoid", "p_2.ctid"]
            }
          ]
        }
      ]
    }
  }
]`,
		},
		{
			// explain (costs off) delete from p;
			name: "delete from a partitioned table",
			plan: func() (nodes.Plan, *Stats) { return modifyPartitioned(nodes.Delete), nil },
			opts: costsOff,
			want: `Delete on p
  Delete on p1 p_1
  Delete on p2 p_2
  ->  Append
        ->  Seq Scan on p1 p_1
        ->  Seq Scan on p2 p_2`,
		},
		{
			// explain (costs off, verbose) insert into t values (1,2),(3,4);
			name: "insert values",
			plan: func() (nodes.Plan, *Stats) {
				vs := &nodes.ValuesScan{Rows: [][]nodes.Expr{{lit("1"), lit("2")}, {lit("3"), lit("4")}}}
				vs.Out = intFields("column1", "column2")
				return &nodes.ModifyTable{Op: nodes.Insert, Table: newTable("t"), Child: vs}, nil
			},
			opts: verboseCostsOff,
			want: `Insert on public.t
  ->  Values Scan on "*VALUES*"
        Output: "*VALUES*".column1, "*VALUES*".column2`,
		},
		{
			// explain (costs off, verbose) select * from (select a from t limit 1) s where a > 1;
			name: "subquery scan",
			plan: func() (nodes.Plan, *Stats) { return subquery(), nil },
			opts: verboseCostsOff,
			want: `Subquery Scan on s
  Output: s.a
  Filter: (s.a > 1)
  ->  Limit
        Output: t.a
        ->  Seq Scan on public.t
              Output: t.a`,
		},
		{
			name: "subquery scan, json",
			plan: func() (nodes.Plan, *Stats) { return subquery(), nil },
			opts: jsonOf(verboseCostsOff),
			want: `[
  {
    "Plan": {
      "Node Type": "Subquery Scan",
      "Parallel Aware": false,
      "Async Capable": false,
      "Alias": "s",
      "Output": ["s.a"],
      "Filter": "(s.a > 1)",
      "Plans": [
        {
          "Node Type": "Limit",
          "Parent Relationship": "Subquery",
          "Parallel Aware": false,
          "Async Capable": false,
          "Output": ["t.a"],
          "Plans": [
            {
              "Node Type": "Seq Scan",
              "Parent Relationship": "Outer",
              "Parallel Aware": false,
              "Async Capable": false,
              "Relation Name": "t",
              "Schema": "public",
              "Alias": "t",
              "Output": ["t.a"]
            }
          ]
        }
      ]
    }
  }
]`,
		},
		{
			// explain (costs off) select a from t union all select 1.5 from t;
			name: "unnamed union arm",
			plan: func() (nodes.Plan, *Stats) {
				t := newTable("t")
				arm := &nodes.SubqueryScan{Child: scan(t, "", 0)}
				arm.Targets = []nodes.Expr{&nodes.Cast{Arg: col(0, "a"), T: types.NumericT}}
				arm.Out = intFields("a")
				app := &nodes.Append{Kids: []nodes.Plan{arm, scan(t, "t_1")}}
				app.Out = intFields("a")
				return app, nil
			},
			opts: costsOff,
			want: `Append
  ->  Subquery Scan on "*SELECT* 1"
        ->  Seq Scan on t
  ->  Seq Scan on t t_1`,
		},
		{
			// explain (costs off, verbose) select * from generate_series(1,3) g;
			name: "function scan",
			plan: func() (nodes.Plan, *Stats) { return generateSeries(), nil },
			opts: verboseCostsOff,
			want: `Function Scan on pg_catalog.generate_series g
  Output: g
  Function Call: generate_series(1, 3)`,
		},
		{
			name: "function scan, json",
			plan: func() (nodes.Plan, *Stats) { return generateSeries(), nil },
			opts: jsonOf(verboseCostsOff),
			want: `[
  {
    "Plan": {
      "Node Type": "Function Scan",
      "Parallel Aware": false,
      "Async Capable": false,
      "Function Name": "generate_series",
      "Schema": "pg_catalog",
      "Alias": "g",
      "Output": ["g"],
      "Function Call": "generate_series(1, 3)"
    }
  }
]`,
		},
		{
			// explain (costs off, verbose) select * from t where false;
			name: "everything pruned",
			plan: pruned,
			opts: verboseCostsOff,
			want: `Result
  Output: a, b
  One-Time Filter: false`,
		},
		{
			name: "everything pruned, json",
			plan: pruned,
			opts: jsonOf(verboseCostsOff),
			want: `[
  {
    "Plan": {
      "Node Type": "Result",
      "Parallel Aware": false,
      "Async Capable": false,
      "Output": ["a", "b"],
      "One-Time Filter": "false"
    }
  }
]`,
		},
		{
			// explain (costs off, summary on) select 1;
			name: "summary without analyze",
			plan: func() (nodes.Plan, *Stats) { return &nodes.Result{}, nil },
			opts: ExplainOptions{Format: "text", Summary: true, PlanningTime: 8 * time.Microsecond},
			want: `Result
Planning Time: 0.008 ms`,
		},
		{
			// explain (analyze, costs off, timing off) select 1;
			name: "summary with analyze",
			plan: func() (nodes.Plan, *Stats) {
				r := &nodes.Result{}
				return r, analyzed(r, NodeStats{Loops: 1, Rows: 1})
			},
			opts: ExplainOptions{Format: "text", Analyze: true, Summary: true,
				PlanningTime: 6 * time.Microsecond, ExecutionTime: 6 * time.Microsecond},
			want: `Result (actual rows=1 loops=1)
Planning Time: 0.006 ms
Execution Time: 0.006 ms`,
		},
		{
			// explain (format json, costs off, summary on) select 1;
			name: "summary without analyze, json",
			plan: func() (nodes.Plan, *Stats) { return &nodes.Result{}, nil },
			opts: ExplainOptions{Format: "json", Summary: true, PlanningTime: 7 * time.Microsecond},
			want: `[
  {
    "Plan": {
      "Node Type": "Result",
      "Parallel Aware": false,
      "Async Capable": false
    },
    "Planning Time": 0.007
  }
]`,
		},
		{
			// explain (costs off, verbose, format json) select 'a"b\c
			// d' from t where a > 1;
			name: "json escapes",
			plan: func() (nodes.Plan, *Stats) {
				s := scan(newTable("t"), "", 0)
				s.Filter = op(">", col(0, "t.a"), lit("1"))
				s.Targets = []nodes.Expr{lit("'a\"b\\c\nd'::text")}
				return s, nil
			},
			opts: jsonOf(verboseCostsOff),
			want: `[
  {
    "Plan": {
      "Node Type": "Seq Scan",
      "Parallel Aware": false,
      "Async Capable": false,
      "Relation Name": "t",
      "Schema": "public",
      "Alias": "t",
      "Output": ["'a\"b\\c\nd'::text"],
      "Filter": "(t.a > 1)"
    }
  }
]`,
		},
		{
			// explain (costs off, verbose) select b, count(*) from t group by b order by b limit 2;
			name: "computed columns referenced from above",
			plan: func() (nodes.Plan, *Stats) {
				agg := &nodes.Agg{Child: scan(newTable("t"), "", 0, 1), Strategy: nodes.AggHashed,
					GroupKeys: []nodes.Expr{col(1, "t.b")}, Aggs: []*nodes.AggCall{{Name: "count", Star: true}}}
				agg.Targets = []nodes.Expr{col(0, "b"), lit("count(*)")}
				agg.Out = intFields("b", "count")
				sort := &nodes.Sort{Child: agg, Keys: []nodes.SortKey{{Expr: col(0, "t.b")}}, Bound: 2}
				sort.Out = agg.Out
				lim := &nodes.Limit{Child: sort, Count: lit("2")}
				lim.Out = agg.Out
				return lim, nil
			},
			opts: verboseCostsOff,
			want: `Limit
  Output: b, (count(*))
  ->  Sort
        Output: b, (count(*))
        Sort Key: t.b
        ->  HashAggregate
              Output: b, count(*)
              Group Key: t.b
              ->  Seq Scan on public.t
                    Output: a, b`,
		},
		{
			// explain (costs off, verbose) select count(*) from t;
			name: "aggregate without targets",
			plan: func() (nodes.Plan, *Stats) {
				agg := &nodes.Agg{Child: scan(newTable("t"), "", 0, 1), Aggs: []*nodes.AggCall{{Name: "count", Star: true}}}
				agg.Out = intFields("count")
				return agg, nil
			},
			opts: verboseCostsOff,
			want: `Aggregate
  Output: count(*)
  ->  Seq Scan on public.t
        Output: a, b`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, stats := tt.plan()
			if stats == nil {
				nodes.Number(p)
			}
			checkExplain(t, Explain(p, stats, tt.opts), tt.opts, tt.want)
		})
	}
}

// TestExplainCounters covers what the PostgreSQL comparisons above do
// not: timing, averages over several loops, and pgfed's async counters.
func TestExplainCounters(t *testing.T) {
	build := func() (nodes.Plan, *Stats) {
		s := scan(newTable("t"), "", 0, 1)
		s.Filter = op(">", col(0, "a"), lit("3"))
		lim := &nodes.Limit{Child: s, Count: lit("5")}
		lim.Out = s.Out
		return lim, analyzed(lim,
			NodeStats{Loops: 1, Rows: 5, Startup: 250 * time.Microsecond, Total: 4 * time.Millisecond},
			// 5 rows over 2 loops show as 2 (PostgreSQL rounds 2.5 to
			// even), 7 removed as 4. Startup is the first loop's.
			NodeStats{Loops: 2, Rows: 5, RowsRemovedByFilter: 7,
				Startup: time.Millisecond, Total: 3 * time.Millisecond,
				AsyncRows: 4, Requests: 3, Waited: 2500 * time.Microsecond})
	}
	tests := []struct {
		name string
		opts ExplainOptions
		want string
	}{
		{
			name: "timing",
			opts: ExplainOptions{Format: "text", Analyze: true, Timing: true},
			want: `Limit (actual time=0.250..4.000 rows=5 loops=1)
  ->  Seq Scan on t (actual time=1.000..1.500 rows=2 loops=2)
        Filter: (a > 3)
        Rows Removed by Filter: 4
        Async Rows: 2
        Remote Requests: 3
        Async Wait Time: 2.500 ms`,
		},
		{
			name: "timing off hides times",
			opts: ExplainOptions{Format: "text", Analyze: true},
			want: `Limit (actual rows=5 loops=1)
  ->  Seq Scan on t (actual rows=2 loops=2)
        Filter: (a > 3)
        Rows Removed by Filter: 4
        Async Rows: 2
        Remote Requests: 3`,
		},
		{
			name: "json",
			opts: ExplainOptions{Format: "json", Analyze: true, Timing: true},
			want: `[
  {
    "Plan": {
      "Node Type": "Limit",
      "Parallel Aware": false,
      "Async Capable": false,
      "Actual Startup Time": 0.250,
      "Actual Total Time": 4.000,
      "Actual Rows": 5,
      "Actual Loops": 1,
      "Plans": [
        {
          "Node Type": "Seq Scan",
          "Parent Relationship": "Outer",
          "Parallel Aware": false,
          "Async Capable": false,
          "Relation Name": "t",
          "Alias": "t",
          "Actual Startup Time": 1.000,
          "Actual Total Time": 1.500,
          "Actual Rows": 2,
          "Actual Loops": 2,
          "Filter": "(a > 3)",
          "Rows Removed by Filter": 4,
          "Async Rows": 2,
          "Remote Requests": 3,
          "Async Wait Time": 2.500
        }
      ]
    },
    "Triggers": [
    ]
  }
]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, stats := build()
			checkExplain(t, Explain(p, stats, tt.opts), tt.opts, tt.want)
		})
	}
}

// TestExplainNeverExecutedTiming checks the zero times JSON shows for a
// node that never ran, as PostgreSQL does with TIMING on.
func TestExplainNeverExecutedTiming(t *testing.T) {
	p, stats := neverExecuted()
	got := Explain(p, stats, ExplainOptions{Format: "json", Analyze: true, Timing: true})
	want := `          "Actual Startup Time": 0.000,
          "Actual Total Time": 0.000,
          "Actual Rows": 0,
          "Actual Loops": 0,`
	if len(got) != 1 || !strings.Contains(got[0], want) {
		t.Errorf("got\n%s\nwant it to contain\n%s", strings.Join(got, "\n"), want)
	}
}

func checkExplain(t *testing.T, got []string, o ExplainOptions, want string) {
	t.Helper()
	if o.Format == "json" {
		if len(got) != 1 {
			t.Fatalf("JSON gave %d rows, want 1", len(got))
		}
	} else {
		for _, row := range got {
			if strings.Contains(row, "\n") {
				t.Errorf("TEXT row %q spans lines", row)
			}
		}
	}
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("got\n%s\nwant\n%s", g, want)
	}
}

// hashAggAnalyzed is
// select b, count(*) from t where a > 2 group by b having count(*) > 1
// after running it.
func hashAggAnalyzed() (nodes.Plan, *Stats) {
	s := scan(newTable("t"), "", 0, 1)
	s.Filter = op(">", col(0, "t.a"), lit("2"))
	costs(&s.PlanBase, 0, 1.12, 9, 4)
	agg := &nodes.Agg{Child: s, Strategy: nodes.AggHashed,
		GroupKeys: []nodes.Expr{col(1, "t.b")}, Aggs: []*nodes.AggCall{{Name: "count", Star: true}}}
	agg.Filter = op(">", lit("count(*)"), lit("1"))
	agg.Targets = []nodes.Expr{col(0, "b"), lit("count(*)")}
	agg.Out = intFields("b", "count")
	costs(&agg.PlanBase, 1.17, 1.21, 1, 12)
	return agg, analyzed(agg,
		NodeStats{Loops: 1, Rows: 3, Extra: []string{"Batches: 1  Memory Usage: 24kB"}},
		NodeStats{Loops: 1, Rows: 8, RowsRemovedByFilter: 2})
}

// sortLimit is select * from t order by a desc, b limit 3, with the sort
// keys named as given.
func sortLimit(a, b string) nodes.Plan {
	s := scan(newTable("t"), "", 0, 1)
	sort := &nodes.Sort{Child: s, Bound: 3, Keys: []nodes.SortKey{
		{Expr: col(0, a), Desc: true, NullsFirst: true},
		{Expr: col(1, b)},
	}}
	sort.Out = s.Out
	lim := &nodes.Limit{Child: sort, Count: lit("3")}
	lim.Out = s.Out
	return lim
}

// unionAll is select a from t union all select b from t x.
func unionAll() (nodes.Plan, *Stats) {
	t := newTable("t")
	app := &nodes.Append{Kids: []nodes.Plan{scan(t, "", 0), scan(t, "x", 1)}}
	app.Out = intFields("a")
	return app, nil
}

// neverExecuted is select * from t where a > 3 limit 0, after running
// it: the Limit never started its input.
func neverExecuted() (nodes.Plan, *Stats) {
	s := scan(newTable("t"), "", 0, 1)
	s.Filter = op(">", col(0, "a"), lit("3"))
	costs(&s.PlanBase, 0, 1.12, 8, 8)
	lim := &nodes.Limit{Child: s, Count: lit("0")}
	lim.Out = s.Out
	costs(&lim.PlanBase, 0, 0.14, 1, 8)
	return lim, analyzed(lim, NodeStats{Loops: 1})
}

// modifyPartitioned is update p set b = 'x' (or delete from p): the
// scans of both partitions under an Append, labelled by target.
func modifyPartitioned(kind nodes.ModifyOp) nodes.Plan {
	p := newTable("p")
	p.Kind = storage.KindPartitioned
	p1, p2 := newTable("p1"), newTable("p2")
	var kids []nodes.Plan
	for _, leaf := range []*storage.Table{p1, p2} {
		alias := "p_" + leaf.Name[1:]
		s := scan(leaf, alias, 0, 1)
		if kind == nodes.Update {
			s.Targets = []nodes.Expr{lit("'x'::text"), lit(alias + ".tableoid"), lit(alias + ".ctid")}
		}
		kids = append(kids, s)
	}
	return &nodes.ModifyTable{Op: kind, Table: p, Leaves: []*storage.Table{p1, p2},
		Child: &nodes.Append{Kids: kids}}
}

// subquery is select * from (select a from t limit 1) s where a > 1.
func subquery() nodes.Plan {
	s := scan(newTable("t"), "", 0)
	lim := &nodes.Limit{Child: s, Count: lit("1")}
	lim.Out = s.Out
	sub := &nodes.SubqueryScan{Child: lim, Alias: "s"}
	sub.Filter = op(">", col(0, "s.a"), lit("1"))
	sub.Out = intFields("a")
	return sub
}

// generateSeries is select * from generate_series(1,3) g.
func generateSeries() nodes.Plan {
	f := &nodes.FunctionScan{Func: "generate_series", Args: []nodes.Expr{lit("1"), lit("3")},
		T: types.Int4T, Alias: "g"}
	f.Out = intFields("g")
	return f
}

// pruned is select * from t where false.
func pruned() (nodes.Plan, *Stats) {
	r := &nodes.Result{Empty: true}
	r.Out = intFields("a", "b")
	return r, nil
}
