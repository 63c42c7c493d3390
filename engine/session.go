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
	ddl      ddlLog
	temp     *commands.TempTables // its temporary schema and ON COMMIT actions
	// portal is the query whose result is being read, if any.
	portal *Portal
	// received is when the statement text being run arrived: the first
	// statement's statement_timeout counts from it, parsing included, as
	// PostgreSQL's does (zero: from the statement's own start).
	received time.Time

	// The transaction block (xact.go): its state, the names of its open
	// savepoints (one per subtransaction), the REPEATABLE READ snapshot,
	// and whether a statement has read in it yet.
	block      blockState
	savepoints []string
	snap       *storage.Snapshot
	queried    bool
	// chained are the characteristics AND CHAIN gave the transaction,
	// which outlive its abort (a later AND CHAIN passes them on).
	chained *blockChars
	// multi is set while the statements of a multi-statement query run.
	multi bool
	// cur is the statement running now.
	cur *statement
}

// statement is one statement's reading of local tables.
type statement struct {
	view *storage.View
	snap *storage.Snapshot // its own (READ COMMITTED), released with it
}

func (st *statement) release() {
	if st == nil {
		return
	}
	if st.view != nil {
		st.view.Release()
		st.view = nil
	}
	st.snap.Release()
	st.snap = nil
}

// NewSession opens a session with its own settings.
func (e *Engine) NewSession() *Session {
	s := &Session{eng: e, settings: guc.New(), writes: storage.NewWriteSet(), notice: e.cfg.Notice}
	// The write set publishes at Commit after every PreCommit (the remote
	// transactions, registered on first use) succeeded.
	s.txn.Register(s.writes)
	s.txn.Register(&s.ddl)
	s.settings.Follow(&s.txn)
	// After the write set (ON COMMIT DELETE ROWS empties tables through
	// it before it publishes) and the DDL log (which has reverted an
	// aborted transaction's tables when the ON COMMIT actions are pruned).
	s.temp = commands.NewTempTables(e.catalog, s.writes)
	s.txn.Register(s.temp)
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
// connections are closed, its temporary tables dropped.
func (s *Session) Close() {
	if s.closed {
		return
	}
	s.closeStatement()
	if s.block != noBlock || s.txn.Active() {
		s.block = noBlock
		s.finishTransaction(context.Background(), false)
	}
	s.closed = true
	s.temp.Close()
	if s.remote != nil {
		s.remote.Close()
	}
	s.eng.forget(s)
}

// remoteManager returns the session's remote connection cache, which
// takes part in its transactions from its creation on.
func (s *Session) remoteManager() *remote.Manager {
	if s.remote == nil {
		s.remote = remote.NewManager(remote.ManagerConfig{Serializable: s.serializable,
			TwoPhase: func() bool { return s.settings.Bool("pgfed.two_phase_commit") },
			Notice:   func(e *pgerr.Error) { s.sendNotice(e) }})
		s.txn.Register(s.remote)
	}
	return s.remote
}

// Env is what the session's commands may use (the catalog descriptions
// of the REPL's \d commands read through it too).
func (s *Session) Env() *commands.Env {
	return &commands.Env{Catalog: s.eng.catalog, Settings: s.settings, Writes: s.writes,
		Remote: connector{s}, Copy: s.copy, Files: &commands.FileAccess{Dirs: s.eng.cfg.FileDirs},
		Notice: s.notice, Run: s.runPlan, Changed: s.ddl.record, Temp: s.temp}
}

// Exec runs every statement in sql (see Run) and returns the last
// command tag.
func (s *Session) Exec(ctx context.Context, sql string) (string, error) {
	tag := ""
	err := s.Run(ctx, sql, func(p *Portal) error {
		err := p.drain()
		tag = p.Tag()
		return err
	})
	if err != nil {
		return "", err
	}
	return tag, nil
}

// Run runs every statement in sql as PostgreSQL's simple query protocol
// does: several statements are one implicit transaction (all or nothing:
// the first error ends the query and rolls back what it did, unless
// transaction control statements in it say otherwise), and fn sees each
// statement's portal, which it reads (or leaves) before the next runs.
func (s *Session) Run(ctx context.Context, sql string, fn func(*Portal) error) error {
	s.received = time.Now()
	defer func() { s.received = time.Time{} }()
	tree, err := s.parse(ctx, sql)
	if err != nil {
		return err
	}
	if len(tree.Stmts) > 1 {
		s.multi = true
		defer func() { s.multi = false }()
		if s.block == noBlock {
			s.block = implicitBlock
		}
	}
	for _, raw := range tree.Stmts {
		p, err := s.run(ctx, raw.Stmt, stmtText(sql, raw))
		s.received = time.Time{} // the next statements are timed from their own start
		if err != nil {
			return err
		}
		err = fn(p)
		p.Close()
		if err == nil {
			err = p.Err()
		}
		if err != nil {
			if s.block == implicitBlock {
				s.statementFailed()
			}
			return err
		}
	}
	if s.block == implicitBlock {
		s.block = noBlock
		return s.finishTransaction(ctx, true)
	}
	return nil
}

// Query runs exactly one statement and returns its portal.
func (s *Session) Query(ctx context.Context, sql string) (*Portal, error) {
	s.received = time.Now()
	defer func() { s.received = time.Time{} }()
	tree, err := s.parse(ctx, sql)
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

// parse parses sql (planner.Parse: bounded, with PostgreSQL's errors).
// Parsing a long statement (a list of 100,000 constants takes ~250 ms in
// the C parser, which cannot be interrupted) runs on its own goroutine,
// so that a cancel or statement_timeout answers at once, as PostgreSQL's
// does during parsing; the abandoned parse ends by itself.
func (s *Session) parse(ctx context.Context, sql string) (*pg.ParseResult, error) {
	if len(sql) < longStatement {
		return planner.Parse(sql)
	}
	pctx, cancel := s.statementContext(ctx)
	defer cancel()
	type parsed struct {
		tree *pg.ParseResult
		err  error
	}
	done := make(chan parsed, 1)
	s.eng.parses.Go(func() { // Close waits for an abandoned parse
		tree, err := planner.Parse(sql)
		done <- parsed{tree, err}
	})
	select {
	case p := <-done:
		return p.tree, p.err
	case <-pctx.Done():
		return nil, executor.CtxError(pctx)
	}
}

// longStatement is the length from which parsing may take long enough to
// be worth abandoning on cancel.
const longStatement = 64 << 10

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

// run executes one statement in the session's transaction (xact.go). A
// query's statement ends with its portal; any other statement's here.
func (s *Session) run(ctx context.Context, stmt *pg.Node, text string) (p *Portal, err error) {
	if s.closed || s.eng.closed.Load() {
		return nil, pgerr.New(pgerr.ConnectionDoesNotExist, "session is closed")
	}
	s.closeStatement()
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, pgerr.Internal("internal error: %v", r).WithDetail("%s", firstLines(string(debug.Stack()), 12))
		}
		if err != nil {
			s.closeStatement()
			s.endStatement(false)
			err = fixPosition(err, text)
		}
	}()
	beforeDispatch(text)
	if ts := stmt.GetTransactionStmt(); ts != nil {
		res, err := s.transactionControl(ctx, ts)
		if err != nil {
			return nil, err
		}
		return resultPortal(res), nil
	}
	if s.block == failedBlock {
		return nil, errAborted()
	}
	if set := stmt.GetVariableSetStmt(); set != nil {
		if res, ok, err := s.transactionSet(set); ok {
			if err != nil {
				return nil, err
			}
			return resultPortal(res), nil
		}
	}
	s.startTransaction()
	if err := s.readOnlyCheck(stmt); err != nil {
		return nil, err
	}
	s.beginStatement(stmt)
	sctx, cancel := s.statementContext(ctx)
	switch stmt.Node.(type) {
	case *pg.Node_SelectStmt, *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt:
		q, err := s.Env().Planner().Plan(stmt)
		if err != nil {
			cancel()
			return nil, err
		}
		return s.open(sctx, cancel, q)
	}
	res, err := s.utility(sctx, stmt)
	cancel()
	if err != nil {
		return nil, err
	}
	if err := s.endStatement(true); err != nil {
		return nil, err
	}
	return resultPortal(res), nil
}

// beginStatement sets up the statement's reading of local tables: its
// snapshot (READ COMMITTED's own, or the transaction's) and view. SET and
// SHOW read nothing and take none, as in PostgreSQL.
func (s *Session) beginStatement(stmt *pg.Node) {
	st := &statement{}
	switch stmt.Node.(type) {
	case *pg.Node_VariableSetStmt, *pg.Node_VariableShowStmt:
		st.view = storage.NewView(s.writes, nil, false)
	default:
		snap, repeatable, own := s.statementSnapshot()
		if own {
			st.snap = snap
		}
		st.view = storage.NewView(s.writes, snap, repeatable)
	}
	s.cur = st
}

// endStatement ends the running statement: its view and snapshot, and
// its effect on the transaction (an implicit one commits when ok).
func (s *Session) endStatement(ok bool) error {
	s.cur.release()
	s.cur = nil
	if ok {
		if err := s.statementDone(); err != nil {
			s.statementFailed()
			return err
		}
		return nil
	}
	s.statementFailed()
	return nil
}

// statementContext applies statement_timeout, from when the statement
// text arrived for the first statement of a text (the parse counts), from
// now for the others (PostgreSQL 13+ times each statement of a
// multi-statement query separately).
func (s *Session) statementContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d := s.settings.StatementTimeout(); d > 0 {
		start := s.received
		if start.IsZero() {
			start = time.Now()
		}
		return context.WithDeadlineCause(ctx, start.Add(d), pgerr.Timeout())
	}
	return context.WithCancel(ctx)
}

// endTransaction commits or aborts the transaction. A commit runs on
// ctx with statement_timeout, as a COMMIT statement does in PostgreSQL
// (the remote commits can take long, and a cancel stops them); an abort
// runs on a context of its own, since cleaning up after a cancelled
// statement is its main use.
func (s *Session) endTransaction(ctx context.Context, commit bool) error {
	if commit {
		cctx, cancel := s.statementContext(ctx)
		defer cancel()
		return s.txn.Commit(cctx)
	}
	actx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return s.txn.Abort(actx)
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

// endPortal ends the statement of portal p (commit when p ended without
// an error and its transaction is implicit).
func (s *Session) endPortal(p *Portal) error {
	if s.portal == p {
		s.portal = nil
	}
	return s.endStatement(p.err == nil)
}

// execContext is the executor's context for the running statement.
func (s *Session) execContext(stats *instrument.Stats) *executor.ExecContext {
	ec := &executor.ExecContext{Stats: stats, Now: time.Now().UnixMicro(), Remote: connector{s},
		Workers: &s.eng.workers, MaxParallelWorkers: int(s.settings.Int("max_parallel_workers")),
		LockTimeout: s.settings.Duration("lock_timeout"),
		WorkMem:     s.settings.Int("work_mem") << 10, HashMemMultiplier: s.settings.Real("hash_mem_multiplier"),
		TempDir: s.eng.cfg.TempDir, DebugSpill: s.settings.Bool("pgfed.debug_spill"),
		Memory: executor.NewMemoryPool(s.settings.Int("pgfed.memory_limit")<<10, s.eng.memory)}
	if s.cur != nil {
		ec.View = s.cur.view
	}
	return ec
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
