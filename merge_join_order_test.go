package pgfed_test

// Merge joins over inputs that come sorted (planner/pathkeys.go), checked
// by the mechanism: EXPLAIN shows no Sort the merge join added (only the
// subqueries' own), none above it for ORDER BY on its key, and the rows
// equal, in order, those of a plan without merge joins (enable_mergejoin
// off: a Sort over a Hash Join).

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/pgfed/pgfed"
)

func TestMergeJoinSortedInputs(t *testing.T) {
	db, err := pgfed.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := db.NewSession()
	mustExec(t, s, "CREATE TABLE ta (k int, s text)")
	mustExec(t, s, "INSERT INTO ta SELECT g, 'a' || g FROM generate_series(1, 3000) g")
	mustExec(t, s, "INSERT INTO ta VALUES (NULL, 'null')")
	mustExec(t, s, "CREATE TABLE tb (k int, v int)")
	mustExec(t, s, "INSERT INTO tb SELECT g * 2, g FROM generate_series(1, 2000) g")
	const a, b = "(SELECT * FROM ta ORDER BY k) a", "(SELECT * FROM tb ORDER BY k) b"
	cases := []struct {
		query string
		sorts int    // Sort nodes in the plan
		top   string // the plan's first line
	}{
		// Both sides sorted: only the subqueries' Sorts.
		{"SELECT a.k, a.s, b.v FROM " + a + " JOIN " + b + " ON a.k = b.k", 2, "Merge Join"},
		// ... and ORDER BY on either key needs no Sort above.
		{"SELECT a.k, a.s, b.v FROM " + a + " JOIN " + b + " ON a.k = b.k ORDER BY a.k", 2, "Merge Join"},
		{"SELECT b.k, a.s, b.v FROM " + a + " JOIN " + b + " ON a.k = b.k ORDER BY b.k LIMIT 7", 2, "Limit"},
		{"SELECT a.k, a.s FROM " + a + " WHERE EXISTS (SELECT 1 FROM " + b + " WHERE b.k = a.k) ORDER BY a.k", 2, "Merge Semi Join"},
		// One side sorted, ORDER BY on the key: the other side is sorted.
		{"SELECT a.k, b.v FROM " + a + " JOIN tb b ON a.k = b.k ORDER BY a.k", 2, "Merge Join"},
		// The other direction, or a left join (its rows are not in outer
		// order), keeps the Sort above.
		{"SELECT a.k, b.v FROM " + a + " JOIN " + b + " ON a.k = b.k ORDER BY a.k DESC", 3, "Sort"},
		{"SELECT a.k, b.v FROM " + a + " LEFT JOIN " + b + " ON a.k = b.k ORDER BY a.k", 3, "Sort"},
		// Unsorted inputs stay a hash join.
		{"SELECT a.k, b.v FROM ta a JOIN tb b ON a.k = b.k ORDER BY a.k", 1, "Sort"},
	}
	for _, tc := range cases {
		mustExec(t, s, "RESET enable_mergejoin")
		plan := textRows(t, s, "EXPLAIN (COSTS OFF) "+tc.query)
		text := strings.Join(plan, "\n")
		if got := strings.Count(text, "Sort Key:"); got != tc.sorts || strings.TrimSpace(plan[0]) != tc.top {
			t.Errorf("%s: %d Sorts under %q, want %d under %q:\n%s", tc.query, got, plan[0], tc.sorts, tc.top, text)
		}
		got := textRows(t, s, tc.query)
		mustExec(t, s, "SET enable_mergejoin = off")
		if text := strings.Join(textRows(t, s, "EXPLAIN (COSTS OFF) "+tc.query), "\n"); strings.Contains(text, "Merge") {
			t.Fatalf("enable_mergejoin off still merges:\n%s", text)
		}
		want := textRows(t, s, tc.query)
		if !strings.Contains(tc.query, "ORDER BY a.k") && !strings.Contains(tc.query, "ORDER BY b.k") {
			sort.Strings(got) // no ORDER BY: any order
			sort.Strings(want)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: rows differ from the hash join's (%d rows, want %d)", tc.query, len(got), len(want))
		}
	}
}
