package remote

// Remote transactions follow the local one, as postgres_fdw's do
// (connection.c's callbacks), with fewer round trips:
//
//	local event               remote commands                      round trips
//	first use of a conn       START TRANSACTION (+ SAVEPOINT s2 ...) 0: ahead of the first command
//	use at subxact level k    SAVEPOINT s<k+1> for missing levels   0: ahead of the command
//	RELEASE (subcommit)       RELEASE SAVEPOINT s<k+1>              0: ahead of the next command,
//	                                                                 or dropped by COMMIT
//	ROLLBACK TO (subabort)    ROLLBACK TO SAVEPOINT s<k+1>; RELEASE  1, all servers at once under
//	                                                                 parallel_abort
//	COMMIT (pre-commit)       COMMIT TRANSACTION                     1, all servers at once under
//	                                                                 parallel_commit
//	ABORT                     (cancel;) ABORT TRANSACTION            1, all servers at once under
//	                                                                 parallel_abort
//
// A connection the transaction asked for but never sent a command on has
// no remote transaction: its pending START is dropped, for free.

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/xact"
)

const (
	commitSQL = "COMMIT TRANSACTION"
	abortSQL  = "ABORT TRANSACTION"
)

func savepointSQL(level int) string { return "SAVEPOINT " + savepointName(level) }

// savepointName names the remote savepoint of local subtransaction level
// (1 for the first SAVEPOINT): postgres_fdw's s2 for level 1, after the
// nesting level PostgreSQL gives it.
func savepointName(level int) string { return "s" + strconv.Itoa(level+1) }

var (
	_ xact.Callback    = (*Manager)(nil)
	_ xact.SubCallback = (*Manager)(nil)
)

// OnXact implements xact.Callback: the remote transactions commit at
// PreCommit (a failure aborts the local transaction) and roll back at
// Abort.
func (m *Manager) OnXact(ctx context.Context, ev xact.Event) error {
	switch ev {
	case xact.PreCommit:
		return m.EndTransaction(ctx, true)
	case xact.Abort:
		return m.EndTransaction(ctx, false)
	}
	return nil
}

// OnSubXact implements xact.SubCallback. Savepoints are created lazily
// (Conn adds them), released lazily, and rolled back at once, so that
// what the rolled-back work locked remotely is free again.
func (m *Manager) OnSubXact(ctx context.Context, ev xact.SubEvent, depth int) error {
	switch ev {
	case xact.StartSub:
		m.depth = depth
	case xact.CommitSub:
		m.releaseSavepoints(ctx, depth)
		m.depth = depth - 1
	case xact.AbortSub:
		m.rollbackSavepoints(ctx, depth)
		m.depth = depth - 1
	}
	return nil
}

// EndTransaction commits (commit=true) or aborts the remote transactions
// of the local transaction, leaving every connection idle and usable or
// closed.
//
// A commit sends COMMIT to every server with parallel_commit before
// reading any answer, and commits the others one after another; there is
// no two-phase commit, so when one fails, those already committed stay
// committed, the rest are aborted, and the error's DETAIL says which
// servers committed. Aborting never fails: a command still running is
// cancelled first, and a connection that cannot be brought back to idle
// within cleanupTimeout is closed (the next transaction reconnects).
// Aborts run even when ctx is already cancelled, since cleaning up after
// a cancelled statement is their main use.
//
// The extra slots' transactions end before the primaries': the exporting
// transactions then outlive the ones that imported their snapshots.
func (m *Manager) EndTransaction(ctx context.Context, commit bool) error {
	used := m.inXact
	m.inXact = nil
	m.depth = 0
	clear(m.snapshots)
	m.lastCursor.Store(0)
	slices.SortStableFunc(used, func(a, b *Conn) int {
		return cmp.Compare(isPrimary(a), isPrimary(b))
	})
	if commit && m.twoPhase() {
		return m.commitTwoPhase(ctx, used)
	}
	if commit {
		return m.commitOnePhase(ctx, used)
	}
	m.abortAll(ctx, used)
	return nil
}

// outcome is what became of each server's transaction at a commit.
type outcome struct {
	committed, rolledBack, unknown []string
}

func (o *outcome) add(list *[]string, server string) {
	if !slices.Contains(*list, server) {
		*list = append(*list, server)
	}
}

// detail describes the outcome for the DETAIL of a failed commit.
func (o *outcome) detail() string {
	var parts []string
	for _, p := range []struct {
		what    string
		servers []string
	}{{"committed on", o.committed}, {"rolled back on", o.rolledBack}, {"outcome unknown on", o.unknown}} {
		if len(p.servers) == 0 {
			continue
		}
		names := make([]string, len(p.servers))
		for i, s := range p.servers {
			names[i] = strconv.Quote(s)
		}
		parts = append(parts, p.what+" "+plural("server", len(names))+" "+strings.Join(names, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	s := "Remote transactions " + strings.Join(parts, "; ") + "."
	return strings.ToUpper(s[:1]) + s[1:]
}

func plural(word string, n int) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// commitOnePhase commits the transactions of used one-phase. Every
// connection is taken and checked first, so that a server found gone
// before anything is sent aborts them all; then COMMIT goes out.
func (m *Manager) commitOnePhase(ctx context.Context, used []*Conn) error {
	var ready []*Conn
	for i, c := range used {
		ok, err := m.takeForCommit(ctx, c)
		if err != nil {
			for _, held := range ready {
				m.abortHeld(ctx, held)
			}
			for _, rest := range used[i+1:] {
				m.abortOne(ctx, rest, nil)
			}
			return err
		}
		if ok {
			ready = append(ready, c)
		}
	}
	var (
		out      outcome
		firstErr error
		inFlight []*trip
	)
	fail := func(err error) {
		if firstErr == nil {
			firstErr = err
		}
	}
	for _, c := range ready {
		switch {
		case firstErr != nil:
			m.abortHeld(ctx, c)
			out.add(&out.rolledBack, c.spec.Server)
		case c.parallelCommit():
			inFlight = append(inFlight, m.sendEnd(ctx, c, false, commitSQL))
		default:
			m.finishCommit(m.sendEnd(ctx, c, false, commitSQL), &out, fail)
		}
	}
	for _, t := range inFlight {
		m.finishCommit(t, &out, fail)
	}
	if firstErr == nil {
		return nil
	}
	e := pgerr.Wrap(firstErr)
	if len(out.committed)+len(out.unknown) > 0 {
		copied := *e
		copied.Detail = joinDetail(e.Detail, out.detail())
		e = &copied
	}
	return e
}

func joinDetail(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

// takeForCommit takes c for its commit: ok when it is to be committed
// (busy held), false when there is nothing to commit (it then is ended),
// and an error when it cannot commit (it then is aborted).
func (m *Manager) takeForCommit(ctx context.Context, c *Conn) (bool, error) {
	if err := c.acquire(ctx); err != nil {
		m.abortOne(ctx, c, nil)
		return false, err
	}
	switch {
	case !c.started:
		// Never sent a command: there is no remote transaction.
		m.endHeld(c)
		return false, nil
	case c.changing || c.broken() || closedByServer(c.pg.Conn()):
		c.changing = true
		m.endHeld(c)
		return false, lostError(c.spec.Server)
	case ctx.Err() != nil:
		// Too late to commit; pgx would not even send it.
		m.abortHeld(ctx, c)
		return false, contextError(ctx)
	case c.pg.TxStatus() == 'E':
		// A command failed and the statement went on regardless (a scan
		// stopped by LIMIT before reading the error): COMMIT would quietly
		// roll back instead, which loses nothing if nothing was written.
		wrote := c.wrote
		m.abortHeld(ctx, c)
		if !wrote {
			return false, nil
		}
		return false, pgerr.New(pgerr.InFailedSQLTransaction,
			"could not commit the remote transaction on server \"%s\" because it was aborted", c.spec.Server)
	}
	// COMMIT closes the cursors and releases the savepoints that are
	// still to be closed and released.
	c.pending, c.startPending = nil, false
	return true, nil
}

// finishCommit reads the answer to COMMIT and ends the connection's
// transaction, recording the outcome.
func (m *Manager) finishCommit(t *trip, out *outcome, fail func(error)) {
	c := t.c
	err := m.finishEnd(t)
	var pgErr *pgerr.Error
	switch {
	case err == nil:
		out.add(&out.committed, c.spec.Server)
	case !c.broken() && c.pg.TxStatus() == 'I' && errors.As(err, &pgErr) && pgErr.Code != pgerr.QueryCanceled:
		// The server refused to commit (a deferred constraint, a
		// serialization failure) and rolled back.
		fail(err)
		out.add(&out.rolledBack, c.spec.Server)
	default:
		// Interrupted or cut off: the server may or may not have
		// committed.
		fail(err)
		out.add(&out.unknown, c.spec.Server)
		c.changing = true
	}
	m.endHeld(c)
}

// endHeld ends c's part in the transaction, busy held, and releases
// busy; a connection that is not idle and in order is closed.
func (m *Manager) endHeld(c *Conn) {
	reusable := !c.broken() && !c.invalidated && !c.changing && c.pg.TxStatus() == 'I'
	c.xact, c.started, c.wrote, c.changing = false, false, false, false
	c.pending, c.startPending, c.depth = nil, false, 0
	c.release()
	if !reusable {
		m.drop(c)
	}
}

// abortAll rolls back the transactions of used: ABORT goes to every
// server with parallel_abort before any answer is read, to the others
// one after another.
func (m *Manager) abortAll(ctx context.Context, used []*Conn) {
	var inFlight []*trip
	for _, c := range used {
		m.abortOne(ctx, c, &inFlight)
	}
	for _, t := range inFlight {
		m.finishAbort(t)
	}
}

// abortOne rolls back c's transaction, cancelling a command still
// running on it, in postgres_fdw's manner. With inFlight (and c's
// parallel_abort) it only sends the ABORT and adds the trip there.
func (m *Manager) abortOne(ctx context.Context, c *Conn, inFlight *[]*trip) {
	cctx, cancel := cleanupContext(ctx)
	defer cancel()
	if !c.acquireCancelling(cctx) {
		// The command in flight outlasted every cancel request: the
		// connection is beyond repair.
		c.changing = true
		m.drop(c)
		return
	}
	if !c.started || c.broken() || c.pg.TxStatus() == 'I' {
		m.endHeld(c)
		return
	}
	c.pending, c.startPending = nil, false
	t := m.sendEnd(ctx, c, true, abortSQL)
	if inFlight != nil && c.parallelAbort() {
		*inFlight = append(*inFlight, t)
		return
	}
	m.finishAbort(t)
}

func (m *Manager) finishAbort(t *trip) {
	if err := m.finishEnd(t); err != nil {
		t.c.changing = true
	}
	m.endHeld(t.c)
}

// abortHeld rolls back c's remote transaction at once, busy held, and
// releases busy.
func (m *Manager) abortHeld(ctx context.Context, c *Conn) {
	c.pending, c.startPending = nil, false
	m.finishAbort(m.sendEnd(ctx, c, true, abortSQL))
}

// cleanupContext derives the context of an abort: it keeps ctx's values
// but not its cancellation, since cleaning up after a cancelled statement
// is the abort's main use, and is bounded by cleanupTimeout instead.
func cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}

// releaseSavepoints ends local subtransaction level into its parent on
// every connection that has a savepoint for it: a savepoint not created
// yet is forgotten, an existing one is released ahead of the next
// command (COMMIT, or ROLLBACK TO an outer one, releases it anyway).
func (m *Manager) releaseSavepoints(ctx context.Context, level int) {
	for _, c := range m.inXact {
		if c.depth < level {
			continue
		}
		if err := c.acquire(context.WithoutCancel(ctx)); err != nil {
			continue
		}
		if i := slices.Index(c.pending, savepointSQL(level)); i >= 0 {
			// Nothing was sent since, so what follows it are the
			// savepoints of deeper levels, gone with it.
			c.pending = c.pending[:i]
		} else {
			c.pending = append(c.pending, "RELEASE SAVEPOINT "+savepointName(level))
		}
		c.depth = level - 1
		c.release()
	}
}

// rollbackSavepoints rolls local subtransaction level back on every
// connection that has a savepoint for it: ROLLBACK TO SAVEPOINT and
// RELEASE SAVEPOINT in one round trip, sent to every server with
// parallel_abort before any answer is read. A savepoint not created yet
// is forgotten. A connection where this fails (or whose running command
// cannot be cancelled) is marked changing: the rest of the transaction
// finds it lost.
func (m *Manager) rollbackSavepoints(ctx context.Context, level int) {
	name := savepointName(level)
	cmds := []string{"ROLLBACK TO SAVEPOINT " + name, "RELEASE SAVEPOINT " + name}
	var inFlight []*trip
	for _, c := range m.inXact {
		if c.depth < level {
			continue
		}
		t := m.startRollbackTo(ctx, c, level, cmds...)
		if t == nil {
			continue
		}
		if c.parallelAbort() {
			inFlight = append(inFlight, t)
			continue
		}
		m.finishRollbackTo(t)
	}
	for _, t := range inFlight {
		m.finishRollbackTo(t)
	}
}

func (m *Manager) startRollbackTo(ctx context.Context, c *Conn, level int, cmds ...string) *trip {
	cctx, cancel := cleanupContext(ctx)
	defer cancel()
	if !c.acquireCancelling(cctx) {
		c.changing = true
		c.closeAnyway()
		return nil
	}
	c.depth = level - 1
	if i := slices.Index(c.pending, savepointSQL(level)); i >= 0 {
		c.pending = c.pending[:i]
		c.release()
		return nil
	}
	if c.changing || c.broken() {
		c.release()
		return nil
	}
	return m.sendEnd(ctx, c, true, cmds...)
}

func (m *Manager) finishRollbackTo(t *trip) {
	if err := m.finishEnd(t); err != nil {
		t.c.changing = true
	}
	t.c.release()
}

// sendEnd sends the commands ending a (sub)transaction on c, after the
// pending ones, and does not wait for the answer; busy held.
func (m *Manager) sendEnd(ctx context.Context, c *Conn, cleanup bool, cmds ...string) *trip {
	m.trace("send", c, append(slices.Clone(c.pending), cmds...))
	t := c.startTrip(ctx, cleanup, sendAll(cmds))
	t.cmds = cmds
	return t
}

// finishEnd waits for the answer to sendEnd's commands.
func (m *Manager) finishEnd(t *trip) error {
	err := t.finish(readAll(t.ctx, t.c, t.cmds))
	m.trace("done", t.c, t.cmds)
	return err
}

// trace reports the steps of transaction ends to tests (Manager.Trace).
func (m *Manager) trace(step string, c *Conn, cmds []string) {
	if m.Trace != nil {
		m.Trace(step + " " + c.spec.Server + ": " + strings.Join(cmds, "; "))
	}
}

// acquireCancelling takes c's busy token. When a command is running, it
// sends cancel requests, the first at once and then again after 1 s,
// 2 s, 4 s ... (the server may receive a request between two commands
// of a fetch loop and lose it), until the command ends or ctx expires.
func (c *Conn) acquireCancelling(ctx context.Context) bool {
	select {
	case c.busy <- struct{}{}:
		return true
	default:
	}
	wait := time.Second
	for {
		_ = c.pg.CancelRequest(ctx)
		timer := time.NewTimer(wait)
		select {
		case c.busy <- struct{}{}:
			timer.Stop()
			return true
		case <-ctx.Done():
			timer.Stop()
			return false
		case <-timer.C:
			wait *= 2
		}
	}
}

// parallelCommit and parallelAbort are the server options of those
// names (PostgreSQL's, off by default), as the transaction found them
// when it first used the connection.
func (c *Conn) parallelCommit() bool { return c.parallel.commit }
func (c *Conn) parallelAbort() bool  { return c.parallel.abort }

type parallelEnd struct{ commit, abort bool }

func parallelOptions(opts map[string]string) parallelEnd {
	on := func(name string) bool {
		v, ok := ParseBool(opts[name])
		return ok && v
	}
	return parallelEnd{commit: on("parallel_commit"), abort: on("parallel_abort")}
}
