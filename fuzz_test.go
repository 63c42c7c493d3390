package pgfed_test

// FuzzStatements feeds any statement to a session after a fixed setup:
// whatever the input, pgfed must answer with a *pgfed.Error or a result,
// in bounded time, without crashing the process (a crash in the C parser
// kills the fuzzing worker, which the fuzzer reports). Internal errors
// (XX000, a recovered panic) fail too: they are bugs.
//
// The seeds below run with every `go test`; PGFED_FUZZTIME=20s
// scripts/test.sh fuzzes briefly after the suite, and at length:
//
//	go test -run '^$' -fuzz '^FuzzStatements$' -fuzztime 1h .
//
// New failing inputs land in testdata/fuzz/FuzzStatements, where they
// become seeds.

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pgfed/pgfed"
)

const fuzzSetup = `CREATE TABLE t (a int, b text, c numeric, d float8, e date, f bool);
INSERT INTO t SELECT g, 'v' || g, g / 3.0, g * 1.5, DATE '2024-01-01' + g, g % 2 = 0 FROM generate_series(1, 50) g;
CREATE TABLE p (k int, v text) PARTITION BY RANGE (k);
CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (100);
CREATE TABLE p2 PARTITION OF p FOR VALUES FROM (100) TO (200);
INSERT INTO p SELECT g, g::text FROM generate_series(0, 199) g;`

var fuzzSeeds = []string{
	"SELECT a, b FROM t WHERE a > 10 ORDER BY b DESC LIMIT 3",
	"SELECT count(*), sum(c), avg(d), min(e), max(b) FROM t GROUP BY f HAVING count(*) > 1",
	"SELECT DISTINCT ON (f) a, f FROM t ORDER BY f, a",
	"SELECT b LIKE '%1%', b ILIKE 'V_', a IN (1, 2, 3) FROM t",
	"UPDATE p SET k = k + 100 WHERE k < 5 RETURNING *",
	"DELETE FROM t WHERE a % 7 = 0",
	"BEGIN; INSERT INTO t VALUES (1); SAVEPOINT s; SELECT 1/0; ROLLBACK TO s; COMMIT",
	"SELECT 1" + strings.Repeat("+1", 30000),
	"SELECT " + strings.Repeat("(", 20000) + "1",
	"SELECT '\xff'",
	"SELECT 'a' || NULL, NULL::int + 1, CAST('x' AS int)",
	"SELECT generate_series(1, 3), now() IS NOT NULL",
	"EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT * FROM p WHERE k BETWEEN 50 AND 150",
	"SELECT 1e308::float8 * 10, 9223372036854775807::int8 + 1",
	"SELECT round(1.5), trunc(-1.5), 7 % 0",
	"SET work_mem = '64kB'; SHOW work_mem",
	"CREATE TABLE x (a int); DROP TABLE x",
	"",
	";;;",
	"SELECT $1",
	"COPY t TO STDOUT",
}

func FuzzStatements(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		// A database per input: every input starts from the same state.
		db, err := pgfed.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		s := db.NewSession()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := s.Exec(ctx, fuzzSetup); err != nil {
			t.Fatalf("setup: %v", err)
		}
		if _, err := s.Exec(ctx, "SET statement_timeout = '2s'"); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = s.Exec(ctx, sql)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("%q took %v (statement_timeout is 2 s)", sql, d)
		}
		if err == nil {
			return
		}
		var pe *pgfed.Error
		if !errors.As(err, &pe) {
			t.Fatalf("%q: %T %v is not a *pgfed.Error", sql, err, err)
		}
		if pe.Code == "XX000" {
			t.Fatalf("%q: internal error: %s\n%s", sql, pe.Message, pe.Detail)
		}
	})
}
