package pgfed_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/logictest"
)

// parallelModes are the settings TestLogicParallel runs the corpus under.
// The corpus's tables are small, so that by default every plan is serial;
// the forcing modes make the planner choose parallel plans wherever one
// exists (as PostgreSQL's regression tests do with zero costs).
var parallelModes = []struct {
	name     string
	settings []string
}{
	{"debug_parallel_query", []string{"SET debug_parallel_query = on"}},
	{"0_workers", []string{"SET max_parallel_workers_per_gather = 0", "SET parallel_setup_cost = 0",
		"SET parallel_tuple_cost = 0", "SET min_parallel_table_scan_size = 0"}},
	{"2_workers", []string{"SET max_parallel_workers_per_gather = 2", "SET parallel_setup_cost = 0",
		"SET parallel_tuple_cost = 0", "SET min_parallel_table_scan_size = 0"}},
	{"2_workers_no_leader", []string{"SET max_parallel_workers_per_gather = 2", "SET parallel_setup_cost = 0",
		"SET parallel_tuple_cost = 0", "SET min_parallel_table_scan_size = 0",
		"SET parallel_leader_participation = off"}},
	{"2_workers_debug", []string{"SET max_parallel_workers_per_gather = 2", "SET parallel_setup_cost = 0",
		"SET parallel_tuple_cost = 0", "SET min_parallel_table_scan_size = 0", "SET debug_parallel_query = on"}},
	// Every sort and hash aggregate spills to disk at once.
	{"spill", []string{"SET pgfed.debug_spill = on"}},
	{"spill_2_workers", []string{"SET pgfed.debug_spill = on", "SET max_parallel_workers_per_gather = 2",
		"SET parallel_setup_cost = 0", "SET parallel_tuple_cost = 0", "SET min_parallel_table_scan_size = 0"}},
}

// TestLogicParallel runs the SQL logic corpus with parallel plans forced
// in several ways: every answer must be the one PostgreSQL gave, as in
// TestLogic's serial run. Under the race detector (the test command)
// each mode runs every other file, alternating between modes, so that
// every file still runs in three or four of the seven modes and every
// mode over half of the corpus: the whole matrix took a third of the
// suite's time there. Without it the whole matrix runs.
func TestLogicParallel(t *testing.T) {
	files, _ := filepath.Glob("testdata/logic/*.test")
	skip := knownFailing(t)
	for m, mode := range parallelModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			for i, path := range files {
				name := filepath.Base(path)
				if strings.HasPrefix(name, "_") || skip[name] || raceEnabled && (i+m)%2 != 0 {
					continue
				}
				t.Run(name, func(t *testing.T) {
					db, err := pgfed.Open()
					if err != nil {
						t.Fatal(err)
					}
					defer db.Close()
					s := db.NewSession()
					for _, set := range mode.settings {
						mustExec(t, s, set)
					}
					logictest.Run(t, path, engineDB{s}, pgfedEngine)
				})
			}
		})
	}
}
