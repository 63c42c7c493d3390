package pgfed_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/logictest"
	"github.com/pgfed/pgfed/pgtest"
)

// TestDifferential runs the logic corpus statement by statement on pgfed
// and on a real PostgreSQL 15 (a throwaway cluster), each file in a fresh
// database of each, and fails on any difference in results or SQLSTATE.
// Unlike TestLogic it does not trust the recorded expectations: it asks
// PostgreSQL again.
func TestDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("needs PostgreSQL")
	}
	cluster := pgtest.Shared(t)
	files, _ := filepath.Glob("testdata/logic/*.test")
	ctx := context.Background()
	for i, path := range files {
		name := filepath.Base(path)
		if strings.HasPrefix(name, "_") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			// A database and a pgfed of its own, mostly waiting on
			// PostgreSQL: files run side by side.
			t.Parallel()
			dbname := fmt.Sprintf("diff_%d", i)
			if err := cluster.CreateDatabase(ctx, dbname); err != nil {
				t.Fatal(err)
			}
			conn, err := pgx.Connect(ctx, cluster.DSN(dbname))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			db, err := pgfed.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			logictest.Differential(t, path, engineDB{db.NewSession()}, pgfedEngine, logictest.PostgresDB(conn), logictest.PostgresEngine())
		})
	}
}
