package pgfed_test

import (
	"reflect"
	"strings"
	"testing"
)

// TestKeyPassing: a hash join of a small local table with a large
// foreign one sends the local keys to the server (Remote SQL with
// `= ANY ($1::integer[])`), the foreign scan then returns only the rows
// that can match (its actual rows), and the answers equal those without
// key passing.
func TestKeyPassing(t *testing.T) {
	s, _ := remoteDB(t, `
		CREATE TABLE public.big AS SELECT g AS id, g % 100 AS grp, 'v' || g AS label, (g % 7)::numeric / 2 AS amount FROM generate_series(1, 20000) g;
		ANALYZE public.big`, "")
	mustExec(t, s, "CREATE FOREIGN TABLE big (id int, grp int, label text, amount numeric) SERVER rs OPTIONS (table_name 'big', use_remote_estimate 'true')")
	mustExec(t, s, "CREATE TABLE small (id int, tag text)")
	mustExec(t, s, "INSERT INTO small VALUES (5, 'a'), (17, 'b'), (17, 'b2'), (19999, 'c'), (NULL, 'n'), (40000, 'none')")
	mustExec(t, s, "CREATE TABLE names (label text)")
	mustExec(t, s, "INSERT INTO names VALUES ('v7'), ('v8'), ('x\"y'), ('v9\\\\')")
	for _, tc := range []struct {
		query, filter string
		fetched       string // the Foreign Scan's actual rows with keys passed
	}{
		{"SELECT s.tag, b.label FROM small s JOIN big b ON b.id = s.id", "(id = ANY ($1::integer[]))", "rows=3 "},
		{"SELECT b.id FROM big b WHERE b.id IN (SELECT id FROM small)", "(id = ANY ($1::integer[]))", "rows=3 "},
		{"SELECT s.tag, b.id FROM small s LEFT JOIN big b ON b.id = s.id", "(id = ANY ($1::integer[]))", "rows=3 "},
		{"SELECT n.label, b.id FROM names n JOIN big b ON b.label = n.label", "(label = ANY ($1::text[]))", "rows=2 "},
	} {
		mustExec(t, s, "SET pgfed.pass_join_keys = on")
		plan := strings.Join(textRows(t, s, "EXPLAIN (VERBOSE, COSTS OFF) "+tc.query), "\n")
		if !strings.Contains(plan, tc.filter) {
			t.Errorf("EXPLAIN of %s:\n%s\nwant Remote SQL with %s", tc.query, plan, tc.filter)
		}
		analyzed := strings.Join(textRows(t, s, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) "+tc.query), "\n")
		if !strings.Contains(analyzed, "Foreign Scan on big b (actual "+tc.fetched) {
			t.Errorf("EXPLAIN ANALYZE of %s:\n%s\nwant the foreign scan to fetch %s", tc.query, analyzed, tc.fetched)
		}
		on := sortedRows(textRows(t, s, tc.query))
		mustExec(t, s, "SET pgfed.pass_join_keys = off")
		if plan := strings.Join(textRows(t, s, "EXPLAIN (VERBOSE, COSTS OFF) "+tc.query), "\n"); strings.Contains(plan, "ANY ($1") {
			t.Errorf("pgfed.pass_join_keys off still passes keys:\n%s", plan)
		}
		off := sortedRows(textRows(t, s, tc.query))
		if !reflect.DeepEqual(on, off) || len(on) == 0 {
			t.Errorf("%s: keys passed give %v, not passed %v", tc.query, on, off)
		}
	}
	// A build that spills passes no keys: the scan runs unfiltered and
	// the answer is the same.
	mustExec(t, s, "SET pgfed.pass_join_keys = on")
	mustExec(t, s, "SET pgfed.debug_spill = on")
	got := sortedRows(textRows(t, s, "SELECT s.tag, b.label FROM small s JOIN big b ON b.id = s.id"))
	if want := []string{"a|v5", "b2|v17", "b|v17", "c|v19999"}; !reflect.DeepEqual(got, want) {
		t.Errorf("spilled build: %v, want %v", got, want)
	}
}
