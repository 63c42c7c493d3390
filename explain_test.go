package pgfed_test

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/logictest"
)

var rewriteExplain = flag.Bool("rewrite-explain", false, "rewrite testdata/explain/*.test from pgfed's current output (review the diff!)")

// TestExplainGoldens checks EXPLAIN output (TEXT and JSON, with and without
// ANALYZE; deterministic with COSTS OFF or TIMING OFF) against goldens.
func TestExplainGoldens(t *testing.T) {
	files, _ := filepath.Glob("testdata/explain/*.test")
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			db, err := pgfed.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if *rewriteExplain {
				if err := logictest.Rewrite(path, engineDB{db.NewSession()}, pgfedEngine); err != nil {
					t.Fatal(err)
				}
				return
			}
			logictest.Run(t, path, engineDB{db.NewSession()}, pgfedEngine)
		})
	}
}
