package pgfed_test

import (
	"reflect"
	"strings"
	"testing"
)

// TestParameterizedForeignScan: a foreign scan whose conditions read
// outer values (a correlated SubPlan's, a LATERAL subquery's through a
// parameterized Nested Loop, an InitPlan's) sends them as $1, $2 ... with
// its Remote SQL each time it runs, as postgres_fdw's parameterized paths
// do, instead of fetching the whole table per outer row: EXPLAIN VERBOSE
// shows the parameter, EXPLAIN ANALYZE the few rows fetched per loop, and
// the answers equal those with pushdown off (NULL values included).
func TestParameterizedForeignScan(t *testing.T) {
	s, _ := remoteDB(t, `
		CREATE TABLE public.big AS SELECT g AS id, g % 100 AS grp, 'v' || g AS label, (g % 7)::numeric / 2 AS amount,
			date '2024-01-01' + g % 365 AS day FROM generate_series(1, 20000) g;
		ANALYZE public.big`, "")
	mustExec(t, s, "CREATE FOREIGN TABLE big (id int, grp int, label text, amount numeric, day date) SERVER rs OPTIONS (table_name 'big')")
	mustExec(t, s, "CREATE TABLE small (id int, tag text, n numeric, d date)")
	mustExec(t, s, "INSERT INTO small VALUES (5, 'v5', 1.5, '2024-01-06'), (17, 'v17', 2, '2024-02-01'), (NULL, NULL, NULL, NULL), (40000, 'none', 0, '1999-01-01')")
	for _, tc := range []struct {
		query  string
		remote string // in the Remote SQL
		scan   string // the Foreign Scan's actual rows and loops
	}{
		{"SELECT s.id, (SELECT b.label FROM big b WHERE b.id = s.id) FROM small s",
			"WHERE ((id = $1::integer))", "rows=0 loops=4"},
		{"SELECT s.tag, (SELECT count(*) FROM big b WHERE b.label = s.tag AND b.amount > s.n) FROM small s",
			"WHERE ((label = $1::text)) AND ((amount > $2::numeric))", "loops=4"},
		{"SELECT s.id FROM small s WHERE s.id = 40000 OR EXISTS (SELECT 1 FROM big b WHERE b.grp = s.id AND b.day = s.d)",
			"WHERE ((grp = $1::integer)) AND ((day = $2::date))", "loops=3"},
		{"SELECT s.id, x.label FROM small s, LATERAL (SELECT label FROM big b WHERE b.id = s.id + 1 ORDER BY label LIMIT 1) x",
			"$1::integer", "loops=4"},
		{"SELECT count(*), sum(amount) FROM big WHERE id > (SELECT max(id) + 19980 FROM small WHERE id < 30000)",
			"WHERE ((id > $1::integer))", "rows=3 loops=1"},
	} {
		mustExec(t, s, "SET pgfed.pushdown = on")
		plan := strings.Join(textRows(t, s, "EXPLAIN (VERBOSE, COSTS OFF) "+tc.query), "\n")
		if !strings.Contains(plan, tc.remote) {
			t.Errorf("EXPLAIN of %s:\n%s\nwant Remote SQL with %s", tc.query, plan, tc.remote)
		}
		analyzed := strings.Join(textRows(t, s, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) "+tc.query), "\n")
		if scan, _, _ := strings.Cut(analyzed[strings.Index(analyzed, "Foreign Scan"):]+"\n", "\n"); !strings.Contains(scan, tc.scan+")") ||
			strings.Contains(analyzed[strings.Index(analyzed, "Foreign Scan"):], "Filter:") {
			t.Errorf("EXPLAIN ANALYZE of %s:\n%s\nwant the foreign scan to fetch only matching rows (%s)", tc.query, analyzed, tc.scan)
		}
		on := sortedRows(textRows(t, s, tc.query))
		mustExec(t, s, "SET pgfed.pushdown = off")
		off := sortedRows(textRows(t, s, tc.query))
		if !reflect.DeepEqual(on, off) || len(on) == 0 {
			t.Errorf("%s: with parameters %v, without pushdown %v", tc.query, on, off)
		}
	}
}
