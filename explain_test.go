package pgfed_test

import (
	"context"
	"flag"
	"path/filepath"
	"regexp"
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
				if err := logictest.Rewrite(path, explainDB{engineDB{db.NewSession()}}, pgfedEngine); err != nil {
					t.Fatal(err)
				}
				return
			}
			logictest.Run(t, path, explainDB{engineDB{db.NewSession()}}, pgfedEngine)
		})
	}
}

// explainDB masks what varies from run to run in EXPLAIN ANALYZE: the
// sizes a sort or hash table reports (a parallel worker's depend on the
// batches it happened to take), as PostgreSQL's regression tests do.
type explainDB struct{ engineDB }

var explainSizes = regexp.MustCompile(`(Memory|Memory Usage|Disk|Disk Usage): \d+kB`)

func (d explainDB) Query(ctx context.Context, sql string) ([]string, [][]*string, error) {
	names, rows, err := d.engineDB.Query(ctx, sql)
	for _, row := range rows {
		for i, v := range row {
			if v != nil {
				masked := explainSizes.ReplaceAllString(*v, "$1: NkB")
				row[i] = &masked
			}
		}
	}
	return names, rows, err
}
