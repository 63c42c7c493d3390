package pgfed_test

// Join pushdown against a real PostgreSQL 15: a join of two foreign
// tables on one server is one Foreign Scan whose Remote SQL joins them
// (checked in EXPLAIN VERBOSE, the mechanism), with the same rows as the
// local join (pushdown off); what cannot be shipped stays local.

import (
	"reflect"
	"strings"
	"testing"
)

func TestJoinPushdown(t *testing.T) {
	s, _ := remoteDB(t, `
		CREATE TABLE public.orders AS SELECT g AS id, g % 50 AS cust, g * 10 AS amount FROM generate_series(1, 1000) g;
		CREATE TABLE public.custs AS SELECT g AS id, 'c' || g AS name, g % 3 AS tier FROM generate_series(0, 59) g;
		CREATE TABLE public.notes AS SELECT g AS cust, 'n' || g AS note FROM generate_series(0, 9) g`, "")
	mustExec(t, s, "CREATE FOREIGN TABLE orders (id int, cust int, amount int) SERVER rs OPTIONS (table_name 'orders')")
	mustExec(t, s, "CREATE FOREIGN TABLE custs (id int, name text, tier int) SERVER rs OPTIONS (table_name 'custs')")
	mustExec(t, s, "CREATE FOREIGN TABLE notes (cust int, note text) SERVER rs OPTIONS (table_name 'notes')")
	mustExec(t, s, "CREATE TABLE local_tiers (tier int, label text)")
	mustExec(t, s, "INSERT INTO local_tiers VALUES (0, 'gold'), (1, 'silver')")
	cases := []struct {
		query string
		want  []string // lines EXPLAIN VERBOSE must have
		not   []string // and must not
	}{
		{"SELECT o.id, c.name FROM orders o JOIN custs c ON c.id = o.cust WHERE c.tier = 1 AND o.amount > 500",
			[]string{"Relations: (public.orders o) INNER JOIN (public.custs c)", "INNER JOIN public.custs r2 ON (((r2.id = r1.cust)))", "WHERE ((r1.amount > 500)) AND ((r2.tier = 1))"},
			[]string{"Hash Join"}},
		{"SELECT c.name, n.note FROM custs c LEFT JOIN notes n ON n.cust = c.id AND n.note <> 'n3'",
			[]string{"(public.custs c) LEFT JOIN (public.notes n)", "LEFT JOIN public.notes r2 ON (((r2.cust = r1.id)) AND ((r2.note <> 'n3'::text)))"}, nil},
		{"SELECT c.name, n.note FROM custs c FULL JOIN notes n ON n.cust = c.id",
			[]string{"(public.custs c) FULL JOIN (public.notes n)"}, nil},
		{"SELECT count(*) FROM orders o JOIN custs c ON c.id = o.cust JOIN notes n ON n.cust = c.id",
			[]string{"Relations: Aggregate on (((", "(public.notes n)", "(public.orders o)", "(public.custs c)"}, []string{"Hash Join", "Aggregate\n"}},
		// A local table joins locally (here first, as it is tiny).
		{"SELECT o.id, t.label FROM orders o JOIN custs c ON c.id = o.cust JOIN local_tiers t ON t.tier = c.tier",
			[]string{"Hash Join", "Seq Scan on public.local_tiers t"}, nil},
		// Pushed down, then joined to a local table.
		{"SELECT o.id, t.label FROM orders o JOIN custs c ON c.id = o.cust AND c.tier = 1 LEFT JOIN local_tiers t ON t.tier = c.tier",
			[]string{"Hash Left Join", "Relations: (public.orders o) INNER JOIN (public.custs c)", "Seq Scan on public.local_tiers t"}, nil},
		// now() cannot be shipped: a join condition with it stays as the
		// pushed join's local Filter ...
		{"SELECT o.id FROM orders o JOIN custs c ON c.id = o.cust AND c.name || now()::text <> o.id::text",
			[]string{"Filter: ((c.name || (now())::text) <> (o.id)::text)", "Relations: (public.orders o) INNER JOIN (public.custs c)"}, nil},
		// ... but one on a single side makes that side's scan filter
		// locally, which (as in postgres_fdw) keeps the join local.
		{"SELECT o.id FROM orders o JOIN custs c ON c.id = o.cust AND c.name || now()::text <> ''",
			[]string{"Hash Join", "Filter: ((c.name || (now())::text) <> ''::text)"}, []string{"Relations:"}},
		// Anti joins are never shipped (postgres_fdw's rule).
		{"SELECT c.id FROM custs c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.cust = c.id)",
			[]string{"Hash Anti Join"}, []string{"Relations:"}},
	}
	for _, tc := range cases {
		mustExec(t, s, "SET pgfed.pushdown = on")
		plan := strings.Join(textRows(t, s, "EXPLAIN (VERBOSE, COSTS OFF) "+tc.query), "\n")
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
		on := sortedRows(textRows(t, s, tc.query))
		mustExec(t, s, "SET pgfed.pushdown = off")
		off := sortedRows(textRows(t, s, tc.query))
		if !reflect.DeepEqual(on, off) || len(on) == 0 {
			t.Errorf("%s: pushdown on gives %d rows, off %d (or they differ)", tc.query, len(on), len(off))
		}
		if plan := strings.Join(textRows(t, s, "EXPLAIN (VERBOSE, COSTS OFF) "+tc.query), "\n"); strings.Contains(plan, "Relations: (") {
			t.Errorf("pushdown off still ships the join:\n%s", plan)
		}
	}
}

func sortedRows(rows []string) []string {
	out := append([]string(nil), rows...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// TestAsyncAppendUnderJoin: an Append of async foreign partitions stays
// async on either side of a hash join, and its counters stay exact: the
// mechanism, not only the rows (which a silent fallback would give too).
func TestAsyncAppendUnderJoin(t *testing.T) {
	s := asyncSetup(t)
	mustExec(t, s, "CREATE TABLE dim (k int, name text)")
	mustExec(t, s, "INSERT INTO dim SELECT g, 'n' || g FROM generate_series(0, 3999, 10) g")
	mustExec(t, s, "CREATE TABLE big (k int)")
	mustExec(t, s, "INSERT INTO big SELECT g % 5000 FROM generate_series(1, 50000) g")
	for i, q := range []string{
		"SELECT count(*), sum(ap.v) FROM ap JOIN dim ON dim.k = ap.k",      // the Append probes
		"SELECT count(*), sum(ap.v) FROM big LEFT JOIN ap ON big.k = ap.k", // the Append is hashed
	} {
		mustExec(t, s, "SET enable_async_append = off")
		sync := textRows(t, s, q)
		mustExec(t, s, "SET enable_async_append = on")
		if async := textRows(t, s, q); !reflect.DeepEqual(sync, async) || len(async) == 0 {
			t.Errorf("%s:\nsync  %q\nasync %q", q, sync, async)
		}
		an := strings.Join(textRows(t, s, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) "+q), "\n")
		if strings.Count(an, "Async Foreign Scan on ap") != 4 || !strings.Contains(an, "Hash") || i == 1 && !strings.Contains(an, "->  Hash (actual rows=4000") ||
			!strings.Contains(an, "Async Rows: 4000") || !strings.Contains(an, "Sync Rows: 0") || strings.Count(an, "Async Rows: 1000") != 4 {
			t.Errorf("EXPLAIN ANALYZE of %s:\n%s", q, an)
		}
	}
}
