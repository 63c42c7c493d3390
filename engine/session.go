package engine

// The statement loop: parse, then run each statement in its transaction,
// dispatching queries to the planner and executor (a portal) and utility
// statements to package commands.

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
	"github.com/pgfed/pgfed/commands"
	"github.com/pgfed/pgfed/executor"
	"github.com/pgfed/pgfed/guc"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/planner"
	"github.com/pgfed/pgfed/remote"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/xact"
)

// Session runs statements one after another, like a connection.
type Session struct {
	eng      *Engine
	settings *guc.Settings
	txn      xact.Transaction
	writes   *storage.WriteSet
	remote   *remote.Manager // made on first use
	copy     commands.CopyHandler
	notice   func(*pgerr.Error)
	closed   bool
	// portal is the query whose result is being read, if any.
	portal *Portal
}

// NewSession opens a session with its own settings.
func (e *Engine) NewSession() *Session {
	s := &Session{eng: e, settings: guc.New(), writes: storage.NewWriteSet(), notice: e.cfg.Notice}
	// The write set publishes at Commit after every PreCommit (the remote
	// transactions, registered on first use) succeeded.
	s.txn.Register(s.writes)
	s.settings.Follow(&s.txn)
	e.mu.Lock()
	e.sessions[s] = struct{}{}
	e.mu.Unlock()
	return s
}

// SetCopyHandler sets the streams for COPY FROM STDIN / TO STDOUT.
func (s *Session) SetCopyHandler(h commands.CopyHandler) { s.copy = h }

// SetNoticeHandler sets the function that receives NOTICEs.
func (s *Session) SetNoticeHandler(fn func(*pgerr.Error)) { s.notice = fn }

// Close ends the session: a statement still open is aborted, its remote
// connections are closed.
func (s *Session) Close() {
	if s.closed {
		return
	}
	s.closeStatement()
	s.closed = true
	if s.remote != nil {
		s.remote.Close()
	}
	s.eng.forget(s)
}

// remoteManager returns the session's remote connection cache, which
// takes part in its transactions from its creation on.
func (s *Session) remoteManager() *remote.Manager {
	if s.remote == nil {
		s.remote = remote.NewManager()
		s.txn.Register(s.remote)
	}
	return s.remote
}

// Env is what the session's commands may use (the catalog descriptions
// of the REPL's \d commands read through it too).
func (s *Session) Env() *commands.Env {
	return &commands.Env{Catalog: s.eng.catalog, Settings: s.settings, Writes: s.writes,
		Remote: connector{s}, Copy: s.copy, Notice: s.notice, Run: s.runPlan}
}

// Exec runs every statement in sql and returns the last command tag.
func (s *Session) Exec(ctx context.Context, sql string) (string, error) {
	tree, err := parse(sql)
	if err != nil {
		return "", err
	}
	tag := ""
	for _, raw := range tree.Stmts {
		p, err := s.run(ctx, raw.Stmt, stmtText(sql, raw))
		if err != nil {
			return "", err
		}
		if err := p.drain(); err != nil {
			return "", err
		}
		tag = p.Tag()
	}
	return tag, nil
}

// Query runs exactly one statement and returns its portal.
func (s *Session) Query(ctx context.Context, sql string) (*Portal, error) {
	tree, err := parse(sql)
	if err != nil {
		return nil, err
	}
	switch len(tree.Stmts) {
	case 0:
		return &Portal{done: true}, nil
	case 1:
		return s.run(ctx, tree.Stmts[0].Stmt, sql)
	}
	return nil, pgerr.New(pgerr.SyntaxError, "cannot run several statements in one Query; use Exec")
}

// parse parses sql, turning parser errors into PostgreSQL's syntax errors
// with the cursor position in characters.
func parse(sql string) (*pg.ParseResult, error) {
	tree, err := pg.Parse(sql)
	if err != nil {
		pe := &pgerr.Error{Code: pgerr.SyntaxError, Message: err.Error()}
		if perr, ok := err.(*parser.Error); ok {
			// libpg_query's cursor already counts characters, as PostgreSQL's.
			pe.Position = perr.Cursorpos
		}
		return nil, pe
	}
	return tree, nil
}

func stmtText(sql string, raw *pg.RawStmt) string {
	start := int(raw.StmtLocation)
	end := len(sql)
	if raw.StmtLen > 0 {
		end = start + int(raw.StmtLen)
	}
	return sql[start:end]
}

// beforeDispatch is a test seam: tests make it panic to check that a panic
// inside the engine becomes XX000 and leaves the session usable.
var beforeDispatch = func(text string) {}

// run executes one statement in its (implicit) transaction. A query's
// transaction ends with its portal; any other statement's here.
func (s *Session) run(ctx context.Context, stmt *pg.Node, text string) (p *Portal, err error) {
	if s.closed || s.eng.closed.Load() {
		return nil, pgerr.New(pgerr.ConnectionDoesNotExist, "session is closed")
	}
	s.closeStatement()
	s.txn.Begin()
	sctx, cancel := s.statementContext(ctx)
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, pgerr.Internal("internal error: %v", r).WithDetail("%s", firstLines(string(debug.Stack()), 12))
		}
		if err != nil {
			cancel()
			s.closeStatement()
			s.endTransaction(false)
			err = fixPosition(err, text)
		}
	}()
	beforeDispatch(text)
	switch stmt.Node.(type) {
	case *pg.Node_SelectStmt, *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt:
		q, err := s.Env().Planner().Plan(stmt)
		if err != nil {
			return nil, err
		}
		return s.open(sctx, cancel, q)
	}
	res, err := s.utility(sctx, stmt)
	cancel()
	if err != nil {
		return nil, err
	}
	if err := s.endTransaction(true); err != nil {
		return nil, err
	}
	return resultPortal(res), nil
}

// statementContext applies statement_timeout.
func (s *Session) statementContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d := s.settings.StatementTimeout(); d > 0 {
		return context.WithTimeoutCause(ctx, d, pgerr.Timeout())
	}
	return context.WithCancel(ctx)
}

// endTransaction commits or aborts the statement's implicit transaction.
// It runs on a context of its own: cleaning up after a cancelled
// statement is its main use.
func (s *Session) endTransaction(commit bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if commit {
		return s.txn.Commit(ctx)
	}
	return s.txn.Abort(ctx)
}

// closeStatement closes a portal left open (a new statement ends the
// previous one, as a new simple query closes the unnamed portal).
func (s *Session) closeStatement() {
	if s.portal != nil {
		s.portal.Close()
	}
}

// open builds and opens q's operators in a portal, which ends the
// statement's transaction when it is exhausted or closed. Statements that
// return no rows run to completion here, so that the change happens even
// if the caller never reads the portal.
func (s *Session) open(ctx context.Context, cancel context.CancelFunc, q *planner.Query) (*Portal, error) {
	ec := s.execContext(nil)
	op, err := executor.Build(q.Plan, ec)
	if err != nil {
		return nil, err
	}
	p := &Portal{op: op, ec: ec, ctx: ctx, cancel: cancel, query: q, end: s.endPortal}
	if q.Returns {
		p.cols = append([]nodes.Field{}, q.Columns...) // non-nil: a result set, maybe without columns
	}
	s.portal = p
	if err := p.guard(func() error { return op.Open(ctx) }); err != nil {
		p.err = pgerr.Wrap(err)
		p.Close() // aborts
		return nil, p.err
	}
	if !q.Returns {
		if err := p.drain(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// endPortal ends the statement of portal p: its transaction commits when
// p ended without an error.
func (s *Session) endPortal(p *Portal) error {
	if s.portal == p {
		s.portal = nil
	}
	return s.endTransaction(p.err == nil)
}

// execContext is the executor's context for a statement of this session.
func (s *Session) execContext(stats *instrument.Stats) *executor.ExecContext {
	return &executor.ExecContext{Stats: stats, Now: time.Now().UnixMicro(), Remote: connector{s},
		Writes: s.writes, Workers: &s.eng.workers, MaxParallelWorkers: int(s.settings.Int("max_parallel_workers"))}
}

// runPlan runs q inside the current statement for a command (EXPLAIN
// ANALYZE, CREATE TABLE AS, COPY TO): fn sees every batch, with q's
// visible columns.
func (s *Session) runPlan(ctx context.Context, q *planner.Query, stats *instrument.Stats, fn func(arrow.RecordBatch) error) (err error) {
	ec := s.execContext(stats)
	defer ec.Release()
	op, err := executor.Build(q.Plan, ec)
	if err != nil {
		return err
	}
	schema := resultSchema(q.Columns)
	return executor.Drain(ctx, op, func(b arrow.RecordBatch) error {
		b.Retain()
		v := storage.Relabel(b, schema)
		defer v.Release()
		return fn(v)
	})
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
