package pgfed_test

// The differential logic corpus run through foreign tables: every table
// the corpus creates lives on a real PostgreSQL server and is queried by
// pgfed through foreign tables (imported with IMPORT FOREIGN SCHEMA),
// while the same queries run on PostgreSQL directly; results and SQLSTATEs
// must agree. Statements that change data or schema run on the server
// once; SET runs on both sides.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/logictest"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/pgtest"
)

// throughForeign routes a corpus file's statements: data and schema
// changes to the server, queries to pgfed (which reads the server's
// tables through foreign tables) and to the server.
type throughForeign struct {
	t       *testing.T
	cluster *pgtest.Cluster
	dbname  string
	server  *pgx.Conn
	db      *pgfed.DB
	sess    *pgfed.Session
	dirty   bool
	sets    []string
	// lastData caches the outcome of the last data statement, which the
	// PostgreSQL side reports without running it twice.
	lastSQL  string
	lastCols []string
	lastRows [][]*string
	lastErr  error
}

type statementKind int

const (
	queryStatement statementKind = iota
	setStatement
	dataStatement
)

func classify(sql string) statementKind {
	tree, err := pg.Parse(sql)
	if err != nil || len(tree.Stmts) != 1 {
		return dataStatement // let the server report the syntax error
	}
	switch x := tree.Stmts[0].Stmt.Node.(type) {
	case *pg.Node_SelectStmt:
		if x.SelectStmt.IntoClause == nil {
			return queryStatement
		}
	case *pg.Node_VariableSetStmt, *pg.Node_VariableShowStmt:
		return setStatement
	}
	return dataStatement
}

// rebuild makes a fresh pgfed engine whose foreign tables mirror every
// schema of the server database, and replays the session's SETs.
func (f *throughForeign) rebuild() error {
	if f.db != nil {
		f.db.Close()
	}
	db, err := pgfed.Open()
	if err != nil {
		return err
	}
	f.db, f.sess = db, db.NewSession()
	ctx := context.Background()
	setup := []string{
		fmt.Sprintf("CREATE SERVER rs FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '%d', dbname '%s')", f.cluster.Port(), f.dbname),
		"CREATE USER MAPPING FOR CURRENT_USER SERVER rs OPTIONS (user 'postgres')",
	}
	rows, err := f.server.Query(ctx, `SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\_%' AND nspname <> 'information_schema' ORDER BY 1`)
	if err != nil {
		return err
	}
	var schemas []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		schemas = append(schemas, s)
	}
	rows.Close()
	for _, s := range schemas {
		q := pgx.Identifier{s}.Sanitize()
		if s != "public" {
			setup = append(setup, "CREATE SCHEMA "+q)
		}
		setup = append(setup, fmt.Sprintf("IMPORT FOREIGN SCHEMA %s FROM SERVER rs INTO %s", q, q))
		// Partitions are imported only when named, as in postgres_fdw;
		// the corpus queries them directly too.
		parts, err := f.server.Query(ctx, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relispartition AND n.nspname = $1`, s)
		if err != nil {
			return err
		}
		var names []string
		for parts.Next() {
			var name string
			if err := parts.Scan(&name); err != nil {
				return err
			}
			names = append(names, pgx.Identifier{name}.Sanitize())
		}
		parts.Close()
		if len(names) > 0 {
			setup = append(setup, fmt.Sprintf("IMPORT FOREIGN SCHEMA %s LIMIT TO (%s) FROM SERVER rs INTO %s", q, strings.Join(names, ", "), q))
		}
	}
	for _, sql := range append(setup, f.sets...) {
		if _, err := f.sess.Exec(ctx, sql); err != nil {
			return fmt.Errorf("%s: %w", sql, err)
		}
	}
	f.dirty = false
	return nil
}

// pgfedSide is the DB the corpus runs on as "pgfed".
type pgfedSide struct{ f *throughForeign }

func (p pgfedSide) Query(ctx context.Context, sql string) ([]string, [][]*string, error) {
	f := p.f
	switch classify(sql) {
	case dataStatement:
		f.lastSQL = sql
		f.lastCols, f.lastRows, f.lastErr = logictest.PostgresDB(f.server).Query(ctx, sql)
		f.dirty = true
		if f.lastErr != nil {
			// The server ran it; present its error as pgfed's kind.
			return nil, nil, &pgerr.Error{Code: logictest.PostgresSQLState(f.lastErr), Message: logictest.PostgresMessage(f.lastErr)}
		}
		return f.lastCols, f.lastRows, nil
	case setStatement:
		if f.sess == nil {
			if err := f.rebuild(); err != nil {
				return nil, nil, err
			}
		}
		cols, rows, err := engineDB{f.sess}.Query(ctx, sql)
		if err == nil && !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(sql)), "SHOW") {
			f.sets = append(f.sets, sql)
		}
		return cols, rows, err
	}
	if f.dirty || f.sess == nil {
		if err := f.rebuild(); err != nil {
			return nil, nil, err
		}
	}
	return engineDB{f.sess}.Query(ctx, sql)
}

// postgresSide is the DB the corpus runs on as "postgres".
type postgresSide struct{ f *throughForeign }

func (p postgresSide) Query(ctx context.Context, sql string) ([]string, [][]*string, error) {
	f := p.f
	if classify(sql) == dataStatement && sql == f.lastSQL {
		return f.lastCols, f.lastRows, f.lastErr
	}
	return logictest.PostgresDB(f.server).Query(ctx, sql)
}

// knownForeignFailing lists corpus files that do not yet agree when run
// through foreign tables (see the file for why).
func knownForeignFailing() map[string]bool {
	out := map[string]bool{}
	data, err := os.ReadFile("testdata/logic/known_failing_foreign.txt")
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out[strings.Fields(line)[0]] = true
		}
	}
	return out
}

func TestCorpusThroughForeignTables(t *testing.T) {
	if testing.Short() {
		t.Skip("needs PostgreSQL")
	}
	cluster := pgtest.Shared(t)
	files, _ := filepath.Glob("testdata/logic/*.test")
	skip := knownForeignFailing()
	all := os.Getenv("PGFED_ALL_LOGIC") != ""
	ctx := context.Background()
	n := 0
	for _, pushdown := range []string{"on", "off"} {
		for _, path := range files {
			name := filepath.Base(path)
			n++
			dbname := fmt.Sprintf("through_%d", n)
			t.Run("pushdown_"+pushdown+"/"+name, func(t *testing.T) {
				if skip[name] && !all {
					t.Skip("listed in testdata/logic/known_failing_foreign.txt")
				}
				// Each file has a database and a pgfed of its own, and
				// spends much of its time waiting on PostgreSQL: files run
				// side by side (as many as -parallel allows).
				t.Parallel()
				if err := cluster.CreateDatabase(ctx, dbname); err != nil {
					t.Fatal(err)
				}
				conn, err := pgx.Connect(ctx, cluster.DSN(dbname))
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close(ctx)
				f := &throughForeign{t: t, cluster: cluster, dbname: dbname, server: conn}
				// Every session the harness builds starts with this setting, so
				// the corpus runs once with pushdown and once without.
				f.sets = []string{"SET pgfed.pushdown = " + pushdown}
				defer func() {
					if f.db != nil {
						f.db.Close()
					}
				}()
				logictest.Differential(t, path, pgfedSide{f}, pgfedEngine, postgresSide{f}, logictest.PostgresEngine())
			})
		}
	}
}
