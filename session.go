package pgfed

import (
	"context"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/executor"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/planner"
	"github.com/pgfed/pgfed/remote"
	"github.com/pgfed/pgfed/types"
)

// Session runs statements one after another; it is not safe for
// concurrent use.
type Session struct {
	db       *DB
	settings *settings
	copy     CopyHandler
	notice   func(*Notice)
	closed   bool
	remote   *remote.Manager // this session's remote connections, made on first use
	// remoteUsed is set when the running statement used a remote
	// connection, so that its end commits or aborts remote work.
	remoteUsed bool
}

// Conn implements executor.RemoteConnector: the session's connection to
// a server under a user mapping, read from the catalog at execution.
func (s *Session) Conn(ctx context.Context, server, mappingKey string, slot int) (*remote.Conn, error) {
	srv := s.db.catalog.Server(server)
	if srv == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", server)
	}
	m := s.db.catalog.MappingFor(server, sessionUser)
	if m == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "user mapping not found for %q", sessionUser)
	}
	s.remoteUsed = true
	return s.remoteManager().Conn(ctx, remote.ConnSpec{Key: mappingKey, Server: server, Options: srv.Options, User: m.Options, Slot: slot})
}

// Connections lists the session's remote connections
// (postgres_fdw_get_connections()).
func (s *Session) Connections() []remote.ConnInfo {
	if s.remote == nil {
		return nil
	}
	return s.remote.Connections()
}

// Disconnect closes the session's connections to a server
// (postgres_fdw_disconnect(name)); an unknown server is an error.
func (s *Session) Disconnect(server string) (bool, error) {
	if s.db.catalog.Server(server) == nil {
		return false, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", server)
	}
	if s.remote == nil {
		return false, nil
	}
	return s.remote.Disconnect(server), nil
}

// DisconnectAll closes all the session's remote connections
// (postgres_fdw_disconnect_all()).
func (s *Session) DisconnectAll() bool {
	if s.remote == nil {
		return false
	}
	return s.remote.DisconnectAll()
}

// endStatement commits or aborts the remote transactions the statement
// opened (until pgfed has transactions of its own, each statement is one).
func (s *Session) endStatement(commit bool) error {
	if !s.remoteUsed || s.remote == nil {
		return nil
	}
	s.remoteUsed = false
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return s.remote.EndStatement(ctx, commit)
}

// remoteManager returns the session's remote connection cache.
func (s *Session) remoteManager() *remote.Manager {
	if s.remote == nil {
		s.remote = remote.NewManager()
	}
	return s.remote
}

// SetCopyHandler sets the streams for COPY FROM STDIN / TO STDOUT.
func (s *Session) SetCopyHandler(h CopyHandler) { s.copy = h }

// SetNoticeHandler sets the function that receives NOTICEs.
func (s *Session) SetNoticeHandler(fn func(*Notice)) { s.notice = fn }

// noticef sends a NOTICE with the given SQLSTATE (PostgreSQL sends
// "already exists, skipping" with the duplicate-object code, and "does not
// exist, skipping" with 00000).
func (s *Session) noticef(code, format string, args ...any) {
	if s.notice != nil {
		s.notice(&pgerr.Error{Severity: "NOTICE", Code: code, Message: fmt.Sprintf(format, args...)})
	}
}

// Close ends the session.
func (s *Session) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.remote != nil {
		s.remote.Close()
	}
	s.db.mu.Lock()
	delete(s.db.sessions, s)
	s.db.mu.Unlock()
	return nil
}

func (s *Session) planner() *planner.Planner {
	return &planner.Planner{Catalog: s.db.catalog, SearchPath: s.settings.searchPath(), Setting: s.settings.get, User: sessionUser}
}

// parse parses sql, turning parser errors into PostgreSQL's syntax errors
// with the cursor position in characters.
func parse(sql string) (*pg.ParseResult, error) {
	tree, err := pg.Parse(sql)
	if err != nil {
		msg := err.Error()
		pe := &pgerr.Error{Code: pgerr.SyntaxError, Message: msg}
		// libpg_query's cursor already counts characters, as PostgreSQL's.
		pe.Position = parserCursor(err)
		return nil, pe
	}
	return tree, nil
}

// Exec runs every statement in sql and returns the last command tag.
func (s *Session) Exec(ctx context.Context, sql string) (string, error) {
	tree, err := parse(sql)
	if err != nil {
		return "", err
	}
	tag := ""
	for _, raw := range tree.Stmts {
		text := stmtText(sql, raw)
		rows, err := s.run(ctx, raw.Stmt, text)
		if err != nil {
			return "", err
		}
		for rows.Next() {
		}
		err = rows.Err()
		tag = rows.Tag()
		rows.Close()
		if err != nil {
			return "", err
		}
	}
	return tag, nil
}

func stmtText(sql string, raw *pg.RawStmt) string {
	start := int(raw.StmtLocation)
	end := len(sql)
	if raw.StmtLen > 0 {
		end = start + int(raw.StmtLen)
	}
	return sql[start:end]
}

// Query runs exactly one statement and returns its result stream.
func (s *Session) Query(ctx context.Context, sql string) (*Rows, error) {
	tree, err := parse(sql)
	if err != nil {
		return nil, err
	}
	if len(tree.Stmts) == 0 {
		return &Rows{tag: ""}, nil
	}
	if len(tree.Stmts) > 1 {
		return nil, pgerr.New(pgerr.SyntaxError, "cannot run several statements in one Query; use Exec")
	}
	return s.run(ctx, tree.Stmts[0].Stmt, sql)
}

// run executes one statement, recovering panics into XX000.
func (s *Session) run(ctx context.Context, stmt *pg.Node, text string) (rows *Rows, err error) {
	if s.closed || s.db.closed.Load() {
		return nil, pgerr.New(pgerr.ConnectionDoesNotExist, "session is closed")
	}
	defer func() {
		if r := recover(); r != nil {
			rows, err = nil, pgerr.Internal("internal error: %v", r).WithDetail("%s", firstLines(string(debug.Stack()), 12))
		}
	}()
	rows, err = s.dispatch(ctx, stmt, text)
	if err != nil {
		return nil, fixPosition(err, text)
	}
	return rows, nil
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// fixPosition converts a byte offset position into characters.
func fixPosition(err error, text string) error {
	pe, ok := pgerr.As(err)
	if !ok || pe.Position <= 0 || pe.Position > len(text)+1 {
		return err
	}
	c := *pe
	c.Position = utf8.RuneCountInString(text[:pe.Position-1]) + 1
	return &c
}

// beforeDispatch is a test seam: tests make it panic to check that a panic
// inside the engine becomes XX000 and leaves the session usable.
var beforeDispatch = func(text string) {}

func (s *Session) dispatch(ctx context.Context, stmt *pg.Node, text string) (*Rows, error) {
	beforeDispatch(text)
	switch x := stmt.Node.(type) {
	case *pg.Node_SelectStmt, *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt:
		return s.runQuery(ctx, stmt)
	case *pg.Node_ExplainStmt:
		return s.explain(ctx, x.ExplainStmt)
	case *pg.Node_VariableSetStmt:
		return s.setStmt(x.VariableSetStmt)
	case *pg.Node_VariableShowStmt:
		return s.showStmt(x.VariableShowStmt)
	case *pg.Node_CreateSchemaStmt:
		return s.createSchema(x.CreateSchemaStmt)
	case *pg.Node_CreateStmt:
		return s.createTable(x.CreateStmt)
	case *pg.Node_CreateTableAsStmt:
		return s.createTableAs(ctx, x.CreateTableAsStmt)
	case *pg.Node_DropStmt:
		return s.drop(x.DropStmt)
	case *pg.Node_TruncateStmt:
		return s.truncate(x.TruncateStmt)
	case *pg.Node_CopyStmt:
		return s.copyStmt(ctx, x.CopyStmt)
	case *pg.Node_CreateForeignServerStmt:
		return s.createServer(x.CreateForeignServerStmt)
	case *pg.Node_AlterForeignServerStmt:
		return s.alterServer(x.AlterForeignServerStmt)
	case *pg.Node_CreateUserMappingStmt:
		return s.createUserMapping(x.CreateUserMappingStmt)
	case *pg.Node_AlterUserMappingStmt:
		return s.alterUserMapping(x.AlterUserMappingStmt)
	case *pg.Node_DropUserMappingStmt:
		return s.dropUserMapping(x.DropUserMappingStmt)
	case *pg.Node_CreateForeignTableStmt:
		return s.createForeignTable(x.CreateForeignTableStmt)
	case *pg.Node_ImportForeignSchemaStmt:
		return s.importForeignSchema(ctx, x.ImportForeignSchemaStmt)
	case *pg.Node_CreateExtensionStmt:
		// postgres_fdw is built in; accept the statement users paste.
		if x.CreateExtensionStmt.Extname != "postgres_fdw" {
			return nil, pgerr.New(pgerr.UndefinedFile, "extension %q is not available", x.CreateExtensionStmt.Extname)
		}
		return tagRows("CREATE EXTENSION"), nil
	}
	return nil, pgerr.NotSupported(statementName(stmt))
}

// statementName names a statement kind for the "not supported" error.
func statementName(n *pg.Node) string {
	name := fmt.Sprintf("%T", n.Node)
	name = strings.TrimPrefix(name, "*pg_query.Node_")
	name = strings.TrimSuffix(name, "Stmt")
	var b strings.Builder
	for i, r := range name {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return "statement " + strings.ToUpper(b.String())
}

// statementContext applies statement_timeout.
func (s *Session) statementContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ms, _ := strconv.ParseInt(s.settings.get("statement_timeout"), 10, 64)
	if ms > 0 {
		return context.WithTimeoutCause(ctx, time.Duration(ms)*time.Millisecond, pgerr.Timeout())
	}
	return context.WithCancel(ctx)
}

// runQuery plans and starts a query; the returned Rows stream its result.
func (s *Session) runQuery(ctx context.Context, stmt *pg.Node) (*Rows, error) {
	q, err := s.planner().Plan(stmt)
	if err != nil {
		return nil, err
	}
	return s.start(ctx, q, nil)
}

// start builds and opens q's operators.
func (s *Session) start(ctx context.Context, q *planner.Query, stats *instrument.Stats) (*Rows, error) {
	maxWorkers, _ := strconv.Atoi(s.settings.get("max_parallel_workers"))
	ec := &executor.ExecContext{Stats: stats, Now: time.Now().UnixMicro(), Remote: s,
		Workers: &s.db.workers, MaxParallelWorkers: maxWorkers}
	op, err := executor.Build(q.Plan, ec)
	if err != nil {
		return nil, err
	}
	sctx, cancel := s.statementContext(ctx)
	r := &Rows{op: op, ec: ec, ctx: sctx, cancel: cancel, query: q, endStatement: s.endStatement}
	if q.Returns {
		r.cols = make([]Column, len(q.Columns))
		for i, f := range q.Columns {
			r.cols[i] = Column{Name: f.Name, Type: f.T}
		}
	}
	if err := r.guard(func() error { return op.Open(sctx) }); err != nil {
		r.err = pgerr.Wrap(err) // so that remote work is aborted, not committed
		r.Close()
		return nil, r.err
	}
	if !q.Returns {
		// INSERT/UPDATE/DELETE without RETURNING run to completion here, so
		// that the change happens even if the caller never iterates.
		for r.NextBatch() {
		}
		if err := r.Err(); err != nil {
			r.Close()
			return nil, err
		}
	}
	return r, nil
}

func (s *Session) explain(ctx context.Context, st *pg.ExplainStmt) (*Rows, error) {
	o := instrument.ExplainOptions{Costs: true, Timing: true, Format: "text"}
	summarySet := false
	for _, opt := range st.Options {
		d := opt.GetDefElem()
		val := true
		var sval string
		if d.Arg != nil {
			switch a := d.Arg.Node.(type) {
			case *pg.Node_String_:
				sval = strings.ToLower(a.String_.Sval)
			case *pg.Node_Boolean:
				sval = strconv.FormatBool(a.Boolean.Boolval)
			case *pg.Node_Integer:
				sval = strconv.Itoa(int(a.Integer.Ival))
			case *pg.Node_AConst:
				sval = strings.ToLower(fmt.Sprint(a.AConst.Val))
			}
			switch sval {
			case "true", "on", "1", "":
			case "false", "off", "0":
				val = false
			default:
				if d.Defname != "format" {
					return nil, pgerr.New(pgerr.InvalidParameterValue, "%s requires a Boolean value", strings.ToUpper(d.Defname))
				}
			}
		}
		switch d.Defname {
		case "analyze":
			o.Analyze = val
		case "verbose":
			o.Verbose = val
		case "costs":
			o.Costs = val
		case "timing":
			o.Timing = val
		case "summary":
			o.Summary, summarySet = val, true
		case "buffers", "wal", "settings":
		case "format":
			if sval != "text" && sval != "json" {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "EXPLAIN format %q is not supported", sval)
			}
			o.Format = sval
		default:
			return nil, pgerr.New(pgerr.SyntaxError, "unrecognized EXPLAIN option %q", d.Defname)
		}
	}
	if !summarySet {
		o.Summary = o.Analyze
	}
	planStart := time.Now()
	switch st.Query.Node.(type) {
	case *pg.Node_SelectStmt, *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt:
	case *pg.Node_CreateTableAsStmt:
		return nil, pgerr.NotSupported("EXPLAIN of CREATE TABLE AS")
	default:
		return nil, pgerr.NotSupported("EXPLAIN of this statement")
	}
	q, err := s.planner().Plan(st.Query)
	if err != nil {
		return nil, err
	}
	o.PlanningTime = time.Since(planStart)
	var stats *instrument.Stats
	if o.Analyze {
		stats = instrument.NewStats(q.NumNodes, o.Timing)
		execStart := time.Now()
		rows, err := s.start(ctx, q, stats)
		if err != nil {
			return nil, err
		}
		for rows.NextBatch() {
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
		o.ExecutionTime = time.Since(execStart)
	}
	lines := instrument.Explain(q.Plan, stats, o)
	vals := make([][]any, len(lines))
	for i, l := range lines {
		vals[i] = []any{l}
	}
	return staticRows([]Column{{Name: "QUERY PLAN", Type: types.TextT}}, vals, "EXPLAIN"), nil
}

func (s *Session) setStmt(st *pg.VariableSetStmt) (*Rows, error) {
	name := strings.ToLower(st.Name)
	switch st.Kind {
	case pg.VariableSetKind_VAR_RESET_ALL:
		s.settings.vals = map[string]string{}
		return tagRows("RESET"), nil
	case pg.VariableSetKind_VAR_RESET, pg.VariableSetKind_VAR_SET_DEFAULT:
		if err := s.settings.reset(name); err != nil {
			return nil, err
		}
		if st.Kind == pg.VariableSetKind_VAR_RESET {
			return tagRows("RESET"), nil
		}
		return tagRows("SET"), nil
	case pg.VariableSetKind_VAR_SET_VALUE:
		var parts []string
		for _, a := range st.Args {
			c := a.GetAConst()
			if c == nil {
				if tc := a.GetTypeCast(); tc != nil {
					c = tc.Arg.GetAConst()
				}
			}
			if c == nil {
				return nil, pgerr.New(pgerr.SyntaxError, "syntax error in SET value")
			}
			switch v := c.Val.(type) {
			case *pg.A_Const_Sval:
				p := v.Sval.Sval
				if name == "search_path" && (strings.ToLower(p) != p || strings.ContainsAny(p, " ,$")) {
					p = `"` + p + `"`
				}
				parts = append(parts, p)
			case *pg.A_Const_Ival:
				parts = append(parts, strconv.Itoa(int(v.Ival.Ival)))
			case *pg.A_Const_Fval:
				parts = append(parts, v.Fval.Fval)
			case *pg.A_Const_Boolval:
				parts = append(parts, strconv.FormatBool(v.Boolval.Boolval))
			}
		}
		if name == "timezone" && len(parts) == 1 && strings.EqualFold(parts[0], "utc") {
			parts[0] = "UTC"
		}
		if err := s.settings.set(name, strings.Join(parts, ", ")); err != nil {
			return nil, err
		}
		return tagRows("SET"), nil
	}
	return nil, pgerr.NotSupported("this form of SET")
}

func (s *Session) showStmt(st *pg.VariableShowStmt) (*Rows, error) {
	name := strings.ToLower(st.Name)
	if name == "all" {
		return nil, pgerr.NotSupported("SHOW ALL")
	}
	v, err := s.settings.show(name)
	if err != nil {
		return nil, err
	}
	col := name
	if d, ok := displayNames[name]; ok {
		col = d
	}
	return staticRows([]Column{{Name: col, Type: types.TextT}}, [][]any{{v}}, "SHOW"), nil
}

var _ = nodes.Field{}
