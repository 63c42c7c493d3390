package pgfed_test

// Random transaction scripts run statement by statement on pgfed and on
// PostgreSQL 15, comparing every outcome (command tag or SQLSTATE, rows,
// WARNINGs) and the table at the end: blocks, savepoints, chains, errors
// in and out of blocks, multi-statement queries. pgfed's table is local
// in one mode and a foreign table on a real server in the other, where
// every block state and savepoint must be mirrored remotely too.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/pgtest"
)

// scriptGen writes random scripts over table t (k int NOT NULL, v int).
type scriptGen struct {
	r          *rand.Rand
	savepoints int
}

func (g *scriptGen) statement() string {
	k := g.r.IntN(6)
	sp := func() string { return fmt.Sprintf("s%d", g.r.IntN(max(g.savepoints, 1))+1) }
	switch n := g.r.IntN(100); {
	case n < 10:
		return [...]string{"BEGIN", "START TRANSACTION ISOLATION LEVEL REPEATABLE READ", "BEGIN READ ONLY", "BEGIN ISOLATION LEVEL SERIALIZABLE"}[g.r.IntN(4)]
	case n < 18:
		return [...]string{"COMMIT", "END", "COMMIT AND CHAIN"}[g.r.IntN(3)]
	case n < 24:
		return [...]string{"ROLLBACK", "ABORT", "ROLLBACK AND CHAIN"}[g.r.IntN(3)]
	case n < 32:
		g.savepoints++
		return fmt.Sprintf("SAVEPOINT s%d", g.savepoints)
	case n < 37:
		return "RELEASE SAVEPOINT " + sp()
	case n < 44:
		return "ROLLBACK TO SAVEPOINT " + sp()
	case n < 62:
		return fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", k, g.r.IntN(100))
	case n < 70:
		return fmt.Sprintf("UPDATE t SET v = v + 1 WHERE k = %d", k)
	case n < 75:
		return fmt.Sprintf("DELETE FROM t WHERE k = %d", k)
	case n < 82:
		return "SELECT count(*), sum(v) FROM t"
	case n < 86:
		return "INSERT INTO t VALUES (NULL, 1)" // 23502, locally or remotely
	case n < 89:
		return "SELECT 1 / 0"
	case n < 92:
		return "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"
	case n < 95:
		return fmt.Sprintf("INSERT INTO t VALUES (%d, 1); UPDATE t SET v = v * 2 WHERE k = %d", k, k)
	case n < 97:
		return fmt.Sprintf("INSERT INTO t VALUES (%d, 2); SELECT 1 / 0", k)
	default:
		return fmt.Sprintf("BEGIN; INSERT INTO t VALUES (%d, 3); COMMIT", k)
	}
}

// outcome is what a statement did, as the two engines must agree on.
type outcome struct {
	result   string // tag, or "ERROR code"
	rows     string
	warnings string
}

// engineRunner runs a statement and reports its outcome.
type engineRunner func(sql string) outcome

func pgfedRunner(s *pgfed.Session) engineRunner {
	var notices []string
	s.SetNoticeHandler(func(n *pgfed.Notice) { notices = append(notices, n.Code+" "+n.Message) })
	return func(sql string) outcome {
		notices = nil
		var o outcome
		var rows []string
		err := s.Run(context.Background(), sql, func(r *pgfed.Rows) error {
			for r.Next() {
				parts := make([]string, len(r.Columns()))
				for i := range parts {
					v, ok := r.Text(i)
					if !ok {
						v = "NULL"
					}
					parts[i] = v
				}
				rows = append(rows, strings.Join(parts, "|"))
			}
			if err := r.Err(); err != nil {
				return err
			}
			o.result = r.Tag()
			return nil
		})
		if err != nil {
			o.result = "ERROR " + pgfed.ErrorCode(err)
		}
		o.rows = strings.Join(rows, ";")
		o.warnings = strings.Join(notices, ";")
		return o
	}
}

func postgresRunner(conn *pgx.Conn, notices *[]string) engineRunner {
	return func(sql string) outcome {
		*notices = nil
		var o outcome
		results, err := conn.PgConn().Exec(context.Background(), sql).ReadAll()
		var rows []string
		for _, r := range results {
			if r.Err != nil {
				err = r.Err
				break
			}
			o.result = r.CommandTag.String()
			for _, row := range r.Rows {
				parts := make([]string, len(row))
				for i, v := range row {
					if v == nil {
						parts[i] = "NULL"
					} else {
						parts[i] = string(v)
					}
				}
				rows = append(rows, strings.Join(parts, "|"))
			}
		}
		if err != nil {
			var pe *pgconn.PgError
			code := "?"
			if ok := asPgError(err, &pe); ok {
				code = pe.Code
			}
			o.result = "ERROR " + code
		}
		o.rows = strings.Join(rows, ";")
		o.warnings = strings.Join(*notices, ";")
		return o
	}
}

func asPgError(err error, pe **pgconn.PgError) bool {
	p, ok := err.(*pgconn.PgError)
	if ok {
		*pe = p
	}
	return ok
}

func TestTransactionScriptsDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("needs PostgreSQL")
	}
	for _, mode := range []string{"local", "foreign"} {
		t.Run(mode, func(t *testing.T) { runTransactionScripts(t, mode, 300) })
	}
}

func runTransactionScripts(t *testing.T, mode string, scripts int) {
	cluster := pgtest.Shared(t)
	ctx := context.Background()
	dbname := fmt.Sprintf("xscripts_%s", mode)
	if err := cluster.CreateDatabase(ctx, dbname); err != nil {
		t.Fatal(err)
	}
	cfg, err := pgx.ParseConfig(cluster.DSN(dbname))
	if err != nil {
		t.Fatal(err)
	}
	var notices []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		if n.Severity == "WARNING" {
			notices = append(notices, n.Code+" "+n.Message)
		}
	}
	pgConn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pgConn.Close(ctx)
	db, err := pgfed.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := db.NewSession()
	if mode == "foreign" {
		mustExec(t, s, fmt.Sprintf("CREATE SERVER rs FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '%d', dbname '%s')", cluster.Port(), dbname))
		mustExec(t, s, "CREATE USER MAPPING FOR CURRENT_USER SERVER rs OPTIONS (user 'postgres')")
	}
	fed, ref := pgfedRunner(s), postgresRunner(pgConn, &notices)
	for i := range scripts {
		// Fresh tables, outside any transaction: PostgreSQL's t, and
		// pgfed's (local, or foreign over the remote table ft).
		ref("ROLLBACK")
		fed("ROLLBACK")
		ref("DROP TABLE IF EXISTS t; DROP TABLE IF EXISTS ft; CREATE TABLE t (k int NOT NULL, v int); CREATE TABLE ft (k int NOT NULL, v int)")
		if mode == "foreign" {
			mustExec(t, s, "DROP FOREIGN TABLE IF EXISTS t; CREATE FOREIGN TABLE t (k int NOT NULL, v int) SERVER rs OPTIONS (table_name 'ft')")
		} else {
			mustExec(t, s, "DROP TABLE IF EXISTS t; CREATE TABLE t (k int NOT NULL, v int)")
		}
		g := &scriptGen{r: rand.New(rand.NewPCG(uint64(i), 7))}
		var script []string
		for range 4 + g.r.IntN(14) {
			sql := g.statement()
			script = append(script, sql)
			got, want := fed(sql), ref(sql)
			if got != want {
				t.Fatalf("script %d, statement %d differs:\n%s\npgfed:      %+v\nPostgreSQL: %+v", i, len(script), strings.Join(script, "\n"), got, want)
			}
		}
		fed("ROLLBACK")
		ref("ROLLBACK")
		final := "SELECT k, v FROM t ORDER BY k, v"
		if got, want := fed(final), ref(final); got != want {
			t.Fatalf("script %d: tables differ at the end:\n%s\npgfed:      %+v\nPostgreSQL: %+v", i, strings.Join(script, "\n"), got, want)
		}
	}
}
