package engine

// Transaction blocks, as PostgreSQL's xact.c keeps them for a session:
// BEGIN / START TRANSACTION, COMMIT / END, ROLLBACK / ABORT (AND CHAIN),
// SAVEPOINT, RELEASE, ROLLBACK TO, SET TRANSACTION, with PostgreSQL 15's
// states, messages and codes.
//
//	noBlock        each statement is its own (implicit) transaction
//	implicitBlock  the statements of one multi-statement query are one
//	               transaction; BEGIN turns it into an explicit block
//	inBlock        BEGIN ... COMMIT
//	failedBlock    an error ended the block's work: everything but COMMIT,
//	               ROLLBACK and ROLLBACK TO fails with 25P02 until then
//
// An error at the block's top level aborts the transaction at once (its
// locks and remote transactions end); inside a savepoint it leaves the
// transaction open for ROLLBACK TO.

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/commands"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
)

type blockState uint8

// blockChars are a transaction's isolation level and read-only mode.
type blockChars struct{ isolation, readOnly string }

const (
	noBlock blockState = iota
	implicitBlock
	inBlock
	failedBlock
)

// errAborted is PostgreSQL's 25P02.
func errAborted() error {
	return pgerr.New(pgerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
}

// warn sends a WARNING (PostgreSQL's ereport(WARNING)).
func (s *Session) warn(code, msg string) {
	s.sendNotice(&pgerr.Error{Severity: "WARNING", Code: code, Message: msg})
}

func (s *Session) sendNotice(e *pgerr.Error) {
	if s.notice != nil {
		s.notice(e)
	}
}

// startTransaction begins a transaction if none is active, with the
// session's default characteristics.
func (s *Session) startTransaction() {
	if !s.txn.Begin() {
		return
	}
	s.queried = false
	// SET LOCAL: the current characteristics end with the transaction.
	_ = s.settings.SetLocal("transaction_isolation", s.settings.Get("default_transaction_isolation"))
	_ = s.settings.SetLocal("transaction_read_only", s.settings.Get("default_transaction_read_only"))
}

// finishTransaction ends the active transaction, if any.
func (s *Session) finishTransaction(ctx context.Context, commit bool) error {
	err := s.endTransaction(ctx, commit)
	s.savepoints = nil
	s.snap.Release()
	s.snap = nil
	return err
}

// statementSnapshot returns the snapshot the next statement reads at and
// whether the transaction reads at one snapshot throughout: READ
// COMMITTED takes a new one per statement (the caller releases it),
// REPEATABLE READ and SERIALIZABLE the transaction's, taken by its first
// statement that reads.
func (s *Session) statementSnapshot() (snap *storage.Snapshot, repeatable, own bool) {
	s.queried = true
	switch s.settings.Get("transaction_isolation") {
	case "repeatable read", "serializable":
		if s.snap == nil {
			s.snap = storage.TakeSnapshot()
		}
		return s.snap, true, false
	}
	return storage.TakeSnapshot(), false, true
}

// statementDone ends a statement that succeeded: an implicit transaction
// commits, a block goes on.
func (s *Session) statementDone() error {
	if s.block == noBlock {
		return s.finishTransaction(context.Background(), true)
	}
	return nil
}

// afterBlock is the state after a block ends: the rest of a
// multi-statement query is one implicit transaction again.
func (s *Session) afterBlock() blockState {
	if s.multi {
		return implicitBlock
	}
	return noBlock
}

// statementFailed ends a statement that failed.
func (s *Session) statementFailed() {
	switch s.block {
	case noBlock, implicitBlock:
		s.finishTransaction(context.Background(), false)
		s.block = noBlock
	case inBlock:
		s.block = failedBlock
		if len(s.savepoints) == 0 {
			// Nothing can be rolled back to: the transaction aborts now,
			// releasing its locks; ROLLBACK ends the block.
			s.endTransaction(context.Background(), false)
		}
	}
}

// transactionControl runs BEGIN, COMMIT, ROLLBACK and the savepoint
// statements.
func (s *Session) transactionControl(ctx context.Context, ts *pg.TransactionStmt) (*commands.Result, error) {
	switch ts.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START:
		return s.begin(ts)
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT:
		return s.commit(ctx, ts.Chain)
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		return s.rollback(ctx, ts.Chain)
	case pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT:
		if err := s.requireBlock("SAVEPOINT"); err != nil {
			return nil, err
		}
		if _, err := s.txn.StartSub(ctx); err != nil {
			return nil, err
		}
		s.savepoints = append(s.savepoints, ts.SavepointName)
		return &commands.Result{Tag: "SAVEPOINT"}, nil
	case pg.TransactionStmtKind_TRANS_STMT_RELEASE:
		if err := s.requireBlock("RELEASE SAVEPOINT"); err != nil {
			return nil, err
		}
		i, err := s.findSavepoint(ts.SavepointName)
		if err != nil {
			return nil, err
		}
		for len(s.savepoints) > i {
			if err := s.txn.CommitSub(ctx); err != nil {
				return nil, err
			}
			s.savepoints = s.savepoints[:len(s.savepoints)-1]
		}
		return &commands.Result{Tag: "RELEASE"}, nil
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		return s.rollbackTo(ctx, ts.SavepointName)
	}
	return nil, pgerr.NotSupported("two-phase commit (PREPARE TRANSACTION, COMMIT PREPARED, ROLLBACK PREPARED)")
}

// requireBlock is PostgreSQL's CheckTransactionBlock for what only a
// block allows (and 25P02 in a failed one).
func (s *Session) requireBlock(what string) error {
	switch s.block {
	case failedBlock:
		return errAborted()
	case inBlock:
		return nil
	}
	return pgerr.New(pgerr.NoActiveSQLTransaction, "%s can only be used in transaction blocks", what)
}

// findSavepoint returns the position of the newest savepoint called name.
func (s *Session) findSavepoint(name string) (int, error) {
	for i := len(s.savepoints) - 1; i >= 0; i-- {
		if s.savepoints[i] == name {
			return i, nil
		}
	}
	return 0, pgerr.New(pgerr.InvalidSavepointSpecification, "savepoint %q does not exist", name)
}

func (s *Session) begin(ts *pg.TransactionStmt) (*commands.Result, error) {
	tag := "BEGIN"
	if ts.Kind == pg.TransactionStmtKind_TRANS_STMT_START {
		tag = "START TRANSACTION"
	}
	switch s.block {
	case failedBlock:
		return nil, errAborted()
	case inBlock:
		// PostgreSQL warns, and still applies the options (to the block
		// in progress).
		s.warn(pgerr.ActiveSQLTransaction, "there is already a transaction in progress")
		if err := s.setCharacteristics(ts.Options); err != nil {
			return nil, err
		}
		return &commands.Result{Tag: tag}, nil
	}
	s.startTransaction()
	s.block = inBlock
	s.chained = nil
	if err := s.setCharacteristics(ts.Options); err != nil {
		return nil, err
	}
	return &commands.Result{Tag: tag}, nil
}

func (s *Session) commit(ctx context.Context, chain bool) (*commands.Result, error) {
	switch s.block {
	case noBlock, implicitBlock:
		if chain {
			return nil, pgerr.New(pgerr.NoActiveSQLTransaction, "COMMIT AND CHAIN can only be used in transaction blocks")
		}
		s.warn(pgerr.NoActiveSQLTransaction, "there is no transaction in progress")
		// In a multi-statement query COMMIT ends what ran so far.
		return &commands.Result{Tag: "COMMIT"}, s.finishTransaction(ctx, true)
	case failedBlock:
		return s.endBlock(ctx, false, chain, "ROLLBACK")
	}
	return s.endBlock(ctx, true, chain, "COMMIT")
}

func (s *Session) rollback(ctx context.Context, chain bool) (*commands.Result, error) {
	switch s.block {
	case noBlock, implicitBlock:
		if chain {
			return nil, pgerr.New(pgerr.NoActiveSQLTransaction, "ROLLBACK AND CHAIN can only be used in transaction blocks")
		}
		s.warn(pgerr.NoActiveSQLTransaction, "there is no transaction in progress")
		return &commands.Result{Tag: "ROLLBACK"}, s.finishTransaction(ctx, false)
	}
	return s.endBlock(ctx, false, chain, "ROLLBACK")
}

// endBlock ends the block's transaction; with chain a new block starts
// with the same characteristics.
func (s *Session) endBlock(ctx context.Context, commit, chain bool, tag string) (*commands.Result, error) {
	isolation, readOnly := s.settings.Get("transaction_isolation"), s.settings.Get("transaction_read_only")
	if c := s.chained; c != nil && !s.txn.Active() {
		// PostgreSQL: the abort undid what BEGIN and SET TRANSACTION set,
		// but not what a chain gave the transaction (those are not SETs).
		isolation, readOnly = c.isolation, c.readOnly
	}
	s.chained = nil
	s.block = s.afterBlock()
	err := s.finishTransaction(ctx, commit)
	if chain {
		s.startTransaction()
		s.block = inBlock
		_ = s.settings.SetLocal("transaction_isolation", isolation)
		_ = s.settings.SetLocal("transaction_read_only", readOnly)
		s.chained = &blockChars{isolation, readOnly}
	}
	if err != nil {
		return nil, err
	}
	return &commands.Result{Tag: tag}, nil
}

// rollbackTo runs ROLLBACK TO SAVEPOINT: the work since the savepoint is
// undone, the savepoint stays, and a failed block goes on.
func (s *Session) rollbackTo(ctx context.Context, name string) (*commands.Result, error) {
	if s.block != inBlock && s.block != failedBlock {
		return nil, pgerr.New(pgerr.NoActiveSQLTransaction, "ROLLBACK TO SAVEPOINT can only be used in transaction blocks")
	}
	i, err := s.findSavepoint(name)
	if err != nil {
		return nil, err
	}
	for s.txn.Depth() > i {
		if err := s.txn.AbortSub(ctx); err != nil {
			return nil, err
		}
	}
	s.savepoints = s.savepoints[:i]
	if _, err := s.txn.StartSub(ctx); err != nil {
		return nil, err
	}
	s.savepoints = append(s.savepoints, name)
	s.block = inBlock
	return &commands.Result{Tag: "ROLLBACK"}, nil
}

// setCharacteristics applies BEGIN's or SET TRANSACTION's options.
func (s *Session) setCharacteristics(opts []*pg.Node) error {
	for _, n := range opts {
		d := n.GetDefElem()
		var name, value string
		switch d.Defname {
		case "transaction_isolation":
			name, value = "transaction_isolation", strings.ToLower(d.Arg.GetAConst().GetSval().GetSval())
			if err := s.checkIsolationChange(value); err != nil {
				return err
			}
		case "transaction_read_only":
			name, value = "transaction_read_only", "off"
			if d.Arg.GetAConst().GetIval().GetIval() != 0 {
				value = "on"
			}
			if value == "off" && s.settings.Bool("transaction_read_only") {
				// PostgreSQL's check_transaction_read_only.
				if s.txn.Depth() > 0 {
					return pgerr.New(pgerr.ActiveSQLTransaction, "cannot set transaction read-write mode inside a read-only transaction")
				}
				if s.queried {
					return pgerr.New(pgerr.ActiveSQLTransaction, "transaction read-write mode must be set before any query")
				}
			}
		case "transaction_deferrable":
			continue
		default:
			return pgerr.New(pgerr.SyntaxError, "unrecognized transaction option %q", d.Defname)
		}
		if err := s.settings.SetLocal(name, value); err != nil {
			return err
		}
	}
	return nil
}

// transactionSet handles the SET statements that are about transactions:
// SET TRANSACTION, SET SESSION CHARACTERISTICS, SET LOCAL outside a
// block; ok is false for every other SET.
func (s *Session) transactionSet(st *pg.VariableSetStmt) (*commands.Result, bool, error) {
	switch {
	case st.Kind == pg.VariableSetKind_VAR_SET_MULTI && st.Name == "TRANSACTION":
		if s.block == noBlock {
			s.warn(pgerr.NoActiveSQLTransaction, "SET TRANSACTION can only be used in transaction blocks")
			return &commands.Result{Tag: "SET"}, true, nil
		}
		return &commands.Result{Tag: "SET"}, true, s.setCharacteristics(st.Args)
	case st.Kind == pg.VariableSetKind_VAR_SET_MULTI && st.Name == "SESSION CHARACTERISTICS":
		for _, n := range st.Args {
			d := n.GetDefElem()
			switch d.Defname {
			case "transaction_isolation":
				if err := s.settings.Set("default_transaction_isolation", strings.ToLower(d.Arg.GetAConst().GetSval().GetSval())); err != nil {
					return nil, true, err
				}
			case "transaction_read_only":
				v := "off"
				if d.Arg.GetAConst().GetIval().GetIval() != 0 {
					v = "on"
				}
				if err := s.settings.Set("default_transaction_read_only", v); err != nil {
					return nil, true, err
				}
			}
		}
		return &commands.Result{Tag: "SET"}, true, nil
	case st.IsLocal && s.block == noBlock:
		s.warn(pgerr.NoActiveSQLTransaction, "SET LOCAL can only be used in transaction blocks")
		return &commands.Result{Tag: "SET"}, true, nil
	case strings.EqualFold(st.Name, "transaction_isolation") && st.Kind == pg.VariableSetKind_VAR_SET_VALUE:
		if err := s.checkIsolationChange(strings.ToLower(setValue(st))); err != nil {
			return nil, true, err
		}
	}
	return nil, false, nil
}

// readOnlyCheck refuses what a read-only transaction may not run
// (PostgreSQL's PreventCommandIfReadOnly): 25006.
func (s *Session) readOnlyCheck(stmt *pg.Node) error {
	if !s.settings.Bool("transaction_read_only") {
		return nil
	}
	var what string
	switch x := stmt.Node.(type) {
	case *pg.Node_SelectStmt, *pg.Node_ExplainStmt, *pg.Node_VariableSetStmt, *pg.Node_VariableShowStmt:
	case *pg.Node_CopyStmt:
		if x.CopyStmt.IsFrom {
			what = commands.CommandName(stmt)
		}
	default:
		what = commands.CommandName(stmt)
	}
	if what == "" || s.writesOnlyTemp(stmt) {
		return nil
	}
	return pgerr.New(pgerr.ReadOnlySQLTransaction, "cannot execute %s in a read-only transaction", what)
}

// writesOnlyTemp reports whether stmt is an INSERT, UPDATE, DELETE or
// COPY FROM (without WITH) of one of the session's temporary tables,
// which a read-only transaction may write (PostgreSQL's
// ExecCheckXactReadOnly and DoCopy skip them: no other session sees
// them).
func (s *Session) writesOnlyTemp(stmt *pg.Node) bool {
	var rv *pg.RangeVar
	switch x := stmt.Node.(type) {
	case *pg.Node_InsertStmt:
		if x.InsertStmt.WithClause == nil {
			rv = x.InsertStmt.Relation
		}
	case *pg.Node_UpdateStmt:
		if x.UpdateStmt.WithClause == nil {
			rv = x.UpdateStmt.Relation
		}
	case *pg.Node_DeleteStmt:
		if x.DeleteStmt.WithClause == nil {
			rv = x.DeleteStmt.Relation
		}
	case *pg.Node_CopyStmt:
		rv = x.CopyStmt.Relation
	}
	if rv == nil || s.temp.Schema() == "" {
		return false
	}
	t, err := s.Env().Planner().ResolveTable(rv)
	return err == nil && t.Schema == s.temp.Schema()
}

// serializable tells the remote connections whether the transaction is
// SERIALIZABLE (their own are then too).
func (s *Session) serializable() bool {
	return s.settings.Get("transaction_isolation") == "serializable"
}

// setValue is the first value of a SET statement, as text.
func setValue(st *pg.VariableSetStmt) string {
	if len(st.Args) == 0 {
		return ""
	}
	c := st.Args[0].GetAConst()
	if c == nil {
		return ""
	}
	if sv := c.GetSval(); sv != nil {
		return sv.Sval
	}
	return ""
}

// checkIsolationChange is PostgreSQL's check_transaction_isolation: the
// level may change only before the transaction's first snapshot, and
// not in a subtransaction; setting it to what it is is always fine.
func (s *Session) checkIsolationChange(value string) error {
	if value == s.settings.Get("transaction_isolation") || !s.txn.Active() {
		return nil
	}
	if s.queried {
		return pgerr.New(pgerr.ActiveSQLTransaction, "SET TRANSACTION ISOLATION LEVEL must be called before any query")
	}
	if s.txn.Depth() > 0 {
		return pgerr.New(pgerr.ActiveSQLTransaction, "SET TRANSACTION ISOLATION LEVEL must not be called in a subtransaction")
	}
	return nil
}
