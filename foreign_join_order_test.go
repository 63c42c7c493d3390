package pgfed_test

import (
	"strings"
	"testing"
)

// TestJoinOrderPrefersPushdown: the join order counts the rows that
// cross the network, so two foreign tables on one server join remotely
// first even where, by estimated rows alone, joining a local table with
// one of them first looks smaller (and would fetch both foreign tables
// whole).
func TestJoinOrderPrefersPushdown(t *testing.T) {
	s, _ := remoteDB(t, `
		CREATE TABLE public.ra AS SELECT g AS id, g % 100 AS grp FROM generate_series(1, 2000) g;
		CREATE TABLE public.rb AS SELECT g AS id, 'b' || g AS label FROM generate_series(1, 2000) g;
		ANALYZE public.ra; ANALYZE public.rb`, "")
	mustExec(t, s, "CREATE FOREIGN TABLE ra (id int, grp int) SERVER rs OPTIONS (table_name 'ra')")
	mustExec(t, s, "CREATE FOREIGN TABLE rb (id int, label text) SERVER rs OPTIONS (table_name 'rb')")
	mustExec(t, s, "CREATE TABLE pick (grp int)")
	mustExec(t, s, "INSERT INTO pick SELECT g % 100 FROM generate_series(1, 700) g")
	q := "SELECT b.label FROM ra a JOIN rb b ON b.id = a.id JOIN pick p ON p.grp = a.grp"
	plan := strings.Join(textRows(t, s, "EXPLAIN (VERBOSE, COSTS OFF) "+q), "\n")
	if !strings.Contains(plan, "Relations: (public.ra a) INNER JOIN (public.rb b)") {
		t.Errorf("the foreign tables are not joined remotely:\n%s", plan)
	}
	if got := len(textRows(t, s, q)); got != 14000 {
		t.Errorf("%d rows, want 14000", got)
	}
}
