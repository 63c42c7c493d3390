package pgfed_test

// Merge joins of foreign tables on different servers (so the join stays
// local) against a real PostgreSQL 15: with ORDER BY on the join key,
// each side is asked to sort remotely (postgres_fdw's query pathkeys,
// without use_remote_estimate) and the Merge Join needs no local Sort,
// below or above it (the mechanism, in EXPLAIN VERBOSE); the rows equal
// those of the local plan (pushdown off, a Sort over a Hash Join).

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestMergeJoinRemoteSorts(t *testing.T) {
	s, _ := remoteDB(t, `
		CREATE TABLE public.ma AS SELECT g AS id, g % 10 AS grp, 'a' || g AS s FROM generate_series(1, 1000) g;
		CREATE TABLE public.mb AS SELECT g AS id, g % 500 AS a_id, g % 7 AS v FROM generate_series(1, 5000) g;
		INSERT INTO public.mb VALUES (0, NULL, 1)`, "")
	opts := serverOptionsOf(t, s)
	mustExec(t, s, "CREATE SERVER rs2 FOREIGN DATA WRAPPER postgres_fdw OPTIONS ("+opts+")")
	mustExec(t, s, "CREATE USER MAPPING FOR CURRENT_USER SERVER rs2 OPTIONS (user 'postgres')")
	mustExec(t, s, "CREATE FOREIGN TABLE f1 (id int, grp int, s text) SERVER rs OPTIONS (table_name 'ma')")
	mustExec(t, s, "CREATE FOREIGN TABLE f2 (id int, a_id int, v int) SERVER rs2 OPTIONS (table_name 'mb')")
	cases := []struct {
		query string
		want  []string // in EXPLAIN VERBOSE
		not   []string
	}{
		{"SELECT f1.id, f1.s, f2.v FROM f1 JOIN f2 ON f1.id = f2.a_id ORDER BY f1.id",
			[]string{"Merge Join", "Merge Cond: (f1.id = f2.a_id)", "Remote SQL: SELECT id, s FROM public.ma ORDER BY id ASC NULLS LAST", "Remote SQL: SELECT a_id, v FROM public.mb ORDER BY a_id ASC NULLS LAST"},
			[]string{"Sort", "Hash"}},
		{"SELECT f2.a_id, f1.s, f2.v FROM f1 JOIN f2 ON f1.id = f2.a_id ORDER BY f2.a_id DESC NULLS LAST",
			[]string{"Merge Join", "ORDER BY id DESC NULLS LAST", "ORDER BY a_id DESC NULLS LAST"},
			[]string{"Sort", "Hash"}},
		// Not the join key: no remote sort is useful (a Sort on top).
		{"SELECT f1.grp, f1.s, f2.v FROM f1 JOIN f2 ON f1.id = f2.a_id ORDER BY f1.grp",
			[]string{"Sort Key: (f1.grp)"}, []string{"ORDER BY id", "ORDER BY a_id"}},
		// Without ORDER BY the hash join stays.
		{"SELECT f1.id, f1.s, f2.v FROM f1 JOIN f2 ON f1.id = f2.a_id",
			[]string{"Hash Join"}, []string{"ORDER BY", "Merge"}},
		// A text key is never sorted remotely (collations differ).
		{"SELECT f1.s FROM f1 JOIN f2 ON f1.s = f2.v::text ORDER BY f1.s", nil, []string{"ORDER BY s"}},
	}
	for _, tc := range cases {
		mustExec(t, s, "SET pgfed.pushdown = on")
		plan := strings.Join(textRows(t, s, "EXPLAIN (VERBOSE, COSTS OFF) "+tc.query), "\n")
		for _, w := range tc.want {
			if !strings.Contains(plan, w) {
				t.Errorf("%s: plan lacks %q:\n%s", tc.query, w, plan)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(plan, w) {
				t.Errorf("%s: plan has %q:\n%s", tc.query, w, plan)
			}
		}
		got := textRows(t, s, tc.query)
		mustExec(t, s, "SET pgfed.pushdown = off")
		want := textRows(t, s, tc.query)
		// Rows of equal keys may come in any order: compare the first
		// column (the ORDER BY key) in order, and the rows as sets.
		if !reflect.DeepEqual(firstColumns(got), firstColumns(want)) {
			t.Errorf("%s: keys out of order", tc.query)
		}
		sort.Strings(got)
		sort.Strings(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d rows, want %d (pushdown off)", tc.query, len(got), len(want))
		}
	}
}

// firstColumns are the first column of "a|b" rows.
func firstColumns(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i], _, _ = strings.Cut(r, "|")
	}
	return out
}
