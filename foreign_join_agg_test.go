package pgfed_test

// Aggregates, ORDER BY and LIMIT pushed above a pushed-down join, against
// a real PostgreSQL 15 (postgres_fdw's grouping, ordered and final paths
// over a join relation): EXPLAIN VERBOSE shows the one Foreign Scan doing
// it all ("Relations: Aggregate on ((...) INNER JOIN (...))" and the
// Remote SQL), EXPLAIN ANALYZE shows it returning only the groups (or the
// limited rows), and the rows equal those with pushdown off. What would
// change results (text ordering, volatile functions, grouping sets) or
// cannot ship stays local.

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestJoinUpperPushdown(t *testing.T) {
	s, _ := remoteDB(t, `
		CREATE TABLE public.orders AS SELECT g AS id, g % 50 AS cust, g * 10 AS amount FROM generate_series(1, 1000) g;
		INSERT INTO public.orders VALUES (1001, 7, NULL), (1002, 8, NULL);
		CREATE TABLE public.custs AS SELECT g AS id, 'c' || g AS name, g % 3 AS tier FROM generate_series(0, 59) g;
		INSERT INTO public.custs VALUES (60, 'nobody', NULL);
		CREATE TABLE public.notes AS SELECT g AS cust, 'n' || g AS note FROM generate_series(0, 9) g`, "")
	mustExec(t, s, "CREATE FOREIGN TABLE orders (id int, cust int, amount int) SERVER rs OPTIONS (table_name 'orders')")
	mustExec(t, s, "CREATE FOREIGN TABLE custs (id int, name text, tier int) SERVER rs OPTIONS (table_name 'custs')")
	mustExec(t, s, "CREATE FOREIGN TABLE notes (cust int, note text) SERVER rs OPTIONS (table_name 'notes')")
	const join = "(public.orders r1 INNER JOIN public.custs r2 ON (((r2.id = r1.cust))))"
	cases := []struct {
		query   string
		ordered bool     // rows compared in order (the ORDER BY decides it)
		want    []string // lines EXPLAIN VERBOSE must have
		not     []string // and must not
		rows    int      // the Foreign Scan's actual rows (EXPLAIN ANALYZE), if > 0
		zero    bool     // the query returns no rows
	}{
		{query: "SELECT c.tier, count(*), sum(o.amount) FROM orders o JOIN custs c ON c.id = o.cust GROUP BY c.tier",
			want: []string{"Relations: Aggregate on ((public.orders o) INNER JOIN (public.custs c))",
				"Remote SQL: SELECT r2.tier, count(*), sum(r1.amount) FROM " + join + " GROUP BY 1"},
			not: []string{"HashAggregate", "Group Key"}, rows: 3},
		// WHERE, HAVING (an aggregate only HAVING reads, and one the
		// select list repeats, computed once), ORDER BY an aggregate.
		{query: "SELECT c.tier, sum(o.amount) FROM orders o JOIN custs c ON c.id = o.cust WHERE o.amount > 500 GROUP BY c.tier HAVING avg(o.id) < 600 AND sum(o.amount) > 0 ORDER BY 2 DESC",
			ordered: true,
			want: []string{"Relations: Aggregate on ((public.orders o) INNER JOIN (public.custs c))",
				"Remote SQL: SELECT r2.tier, sum(r1.amount), avg(r1.id) FROM " + join + " WHERE ((r1.amount > 500)) GROUP BY 1 HAVING ((avg(r1.id) < 600::numeric)) AND ((sum(r1.amount) > 0::bigint)) ORDER BY sum(r1.amount) DESC NULLS FIRST"},
			not: []string{"Sort", "HashAggregate"}, rows: 3},
		// ORDER BY and LIMIT/OFFSET over the join: no local Sort or Limit.
		{query: "SELECT o.id, c.name FROM orders o JOIN custs c ON c.id = o.cust ORDER BY o.id DESC LIMIT 10 OFFSET 5",
			ordered: true,
			want: []string{"Relations: (public.orders o) INNER JOIN (public.custs c)",
				"Remote SQL: SELECT r1.id, r2.name FROM " + join + " ORDER BY r1.id DESC NULLS FIRST LIMIT 10::bigint OFFSET 5::bigint"},
			not: []string{"Limit", "Sort"}, rows: 10},
		// An expression key, NULLs placed as asked.
		{query: "SELECT o.id, o.amount FROM orders o JOIN custs c ON c.id = o.cust ORDER BY o.amount + c.id NULLS FIRST, o.id LIMIT 4",
			ordered: true,
			want:    []string{"ORDER BY (r1.amount + r2.id) ASC NULLS FIRST, r1.id ASC NULLS LAST LIMIT 4::bigint"},
			not:     []string{"Limit", "Sort"}, rows: 4},
		// Aggregate, ORDER BY and LIMIT all remote.
		{query: "SELECT o.cust, count(*), max(o.amount) FROM orders o JOIN custs c ON c.id = o.cust GROUP BY o.cust ORDER BY o.cust LIMIT 3",
			ordered: true,
			want: []string{"Relations: Aggregate on ((public.orders o) INNER JOIN (public.custs c))",
				"Remote SQL: SELECT r1.cust, count(*), max(r1.amount) FROM " + join + " GROUP BY 1 ORDER BY r1.cust ASC NULLS LAST LIMIT 3::bigint"},
			not: []string{"Limit", "Sort", "HashAggregate"}, rows: 3},
		// Outer join, DISTINCT and FILTER inside aggregates, a key expression.
		{query: "SELECT c.id % 4, count(n.note), count(DISTINCT c.tier), sum(c.id) FILTER (WHERE c.id > 5) FROM custs c LEFT JOIN notes n ON n.cust = c.id GROUP BY c.id % 4",
			want: []string{"Relations: Aggregate on ((public.custs c) LEFT JOIN (public.notes n))",
				"Remote SQL: SELECT (r1.id % 4), count(r2.note), count(DISTINCT r1.tier), sum(r1.id) FILTER (WHERE (r1.id > 5)) FROM (public.custs r1 LEFT JOIN public.notes r2 ON (((r2.cust = r1.id)))) GROUP BY 1"},
			not: []string{"HashAggregate"}, rows: 4},
		// Three relations, a grand total.
		{query: "SELECT count(*), sum(o.amount), avg(c.tier) FROM orders o JOIN custs c ON c.id = o.cust JOIN notes n ON n.cust = c.id",
			want: []string{"Relations: Aggregate on (((public.", "(public.orders o)", "(public.custs c)", "(public.notes n)",
				"Remote SQL: SELECT count(*), sum(r1.amount), avg(r2.tier) FROM (("},
			not: []string{"Aggregate\n"}, rows: 1},
		// A sort key outside the select list (a junk column) and a full join.
		{query: "SELECT o.id FROM orders o JOIN custs c ON c.id = o.cust ORDER BY o.amount DESC NULLS LAST, o.id LIMIT 3",
			ordered: true,
			want:    []string{"Remote SQL: SELECT r1.id, r1.amount FROM " + join + " ORDER BY r1.amount DESC NULLS LAST, r1.id ASC NULLS LAST LIMIT 3::bigint"},
			not:     []string{"Limit", "Sort"}, rows: 3},
		{query: "SELECT count(*), count(n.cust), count(c.id) FROM custs c FULL JOIN notes n ON n.cust = c.id + 55",
			want: []string{"Relations: Aggregate on ((public.custs c) FULL JOIN (public.notes n))"},
			not:  []string{"Aggregate\n"}, rows: 1},
		// The pushed aggregate of a subquery, joined locally to a pushed
		// ordered join.
		{query: "SELECT g.tier, g.n, x.id FROM (SELECT c.tier, count(*) AS n FROM orders o JOIN custs c ON c.id = o.cust GROUP BY c.tier) g JOIN (SELECT o.id, c.tier FROM orders o JOIN custs c ON c.id = o.cust ORDER BY o.id LIMIT 6) x ON x.tier = g.tier",
			want: []string{"Relations: Aggregate on ((public.orders o) INNER JOIN (public.custs c))", "LIMIT 6::bigint"}},
		{query: "SELECT o.id FROM orders o JOIN custs c ON c.id = o.cust ORDER BY o.id LIMIT 0",
			want: []string{"ORDER BY r1.id ASC NULLS LAST LIMIT 0::bigint"}, not: []string{"Limit"}, zero: true},
		// A LIMIT in a subquery goes remote; the count above stays local.
		{query: "SELECT count(*) FROM (SELECT o.id FROM orders o JOIN custs c ON c.id = o.cust LIMIT 7) s",
			want: []string{"Remote SQL: SELECT r1.id FROM " + join + " LIMIT 7::bigint"},
			not:  []string{"Limit"}, rows: 7},

		// Text sorts depend on collation: ORDER BY and so LIMIT stay local.
		{query: "SELECT o.id, c.name FROM orders o JOIN custs c ON c.id = o.cust ORDER BY c.name, o.id LIMIT 5",
			ordered: true,
			want:    []string{"Limit", "Sort", "Remote SQL: SELECT r1.id, r2.name FROM " + join + "\n"}},
		// min/max of text likewise, and a volatile argument: local Agg.
		{query: "SELECT c.tier, min(c.name) FROM orders o JOIN custs c ON c.id = o.cust GROUP BY c.tier",
			want: []string{"HashAggregate", "Relations: (public.orders o) INNER JOIN (public.custs c)"}, not: []string{"Aggregate on"}},
		{query: "SELECT c.tier, sum(o.amount * (random() < 2)::int) FROM orders o JOIN custs c ON c.id = o.cust GROUP BY c.tier",
			want: []string{"HashAggregate"}, not: []string{"Aggregate on"}},
		// A HAVING conjunct that cannot ship stays as the scan's Filter;
		// then the LIMIT (and the ORDER BY under it) stay local.
		{query: "SELECT c.tier, count(*) FROM orders o JOIN custs c ON c.id = o.cust GROUP BY c.tier HAVING sum(o.amount)::float8 * random() >= 0 AND count(*) > 1 ORDER BY 1 LIMIT 2",
			ordered: true,
			want: []string{"Limit", "Sort", "Filter: (((sum(o.amount))::double precision * random()) >= '0'::double precision)",
				"Relations: Aggregate on ((public.orders o) INNER JOIN (public.custs c))",
				"Remote SQL: SELECT r2.tier, count(*), sum(r1.amount) FROM " + join + " GROUP BY 1 HAVING ((count(*) > 1::bigint))\n"}},
		// Grouping sets are never pushed.
		{query: "SELECT c.tier, count(*) FROM orders o JOIN custs c ON c.id = o.cust GROUP BY ROLLUP (c.tier)",
			want: []string{"Relations: (public.orders o) INNER JOIN (public.custs c)"}, not: []string{"Aggregate on"}},
		// A join with a local condition joins and aggregates nothing further.
		{query: "SELECT count(*) FROM orders o JOIN custs c ON c.id = o.cust AND c.name || now()::text <> o.id::text",
			want: []string{"Aggregate", "Filter:", "Relations: (public.orders o) INNER JOIN (public.custs c)"}, not: []string{"Aggregate on"}},
		// A non-constant LIMIT stays local over the remote ORDER BY.
		{query: "SELECT o.id FROM orders o JOIN custs c ON c.id = o.cust ORDER BY o.id LIMIT (SELECT 3)",
			ordered: true,
			want:    []string{"Limit", "ORDER BY r1.id ASC NULLS LAST\n"}, not: []string{"Sort"}},
	}
	for _, tc := range cases {
		mustExec(t, s, "SET pgfed.pushdown = on")
		plan := strings.Join(textRows(t, s, "EXPLAIN (VERBOSE, COSTS OFF) "+tc.query), "\n") + "\n"
		t.Logf("%s\n%s", tc.query, plan)
		for _, w := range tc.want {
			if !strings.Contains(plan, w) {
				t.Errorf("EXPLAIN of %s:\n%s\nwant %q", tc.query, plan, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(plan, w) {
				t.Errorf("EXPLAIN of %s:\n%s\nmust not have %q", tc.query, plan, w)
			}
		}
		if tc.rows > 0 {
			// The remote did the work: only the groups (or the limited
			// rows) come back.
			an := strings.Join(textRows(t, s, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) "+tc.query), "\n")
			if want := "Foreign Scan (actual rows=" + strconv.Itoa(tc.rows) + " loops=1)"; !strings.Contains(an, want) {
				t.Errorf("EXPLAIN ANALYZE of %s:\n%s\nwant %q", tc.query, an, want)
			}
		}
		on := textRows(t, s, tc.query)
		mustExec(t, s, "SET pgfed.pushdown = off")
		off := textRows(t, s, tc.query)
		if !tc.ordered {
			on, off = sortedRows(on), sortedRows(off)
		}
		if !reflect.DeepEqual(on, off) || (len(on) == 0) != tc.zero {
			t.Errorf("%s:\npushdown on  %q\npushdown off %q", tc.query, on, off)
		}
		if plan := strings.Join(textRows(t, s, "EXPLAIN (VERBOSE, COSTS OFF) "+tc.query), "\n"); strings.Contains(plan, "Relations:") {
			t.Errorf("pushdown off still ships work:\n%s", plan)
		}
	}
}
