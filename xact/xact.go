// Package xact is the transaction object of a session and the callbacks
// that run at its boundaries, as PostgreSQL's access/transam/xact.c with
// RegisterXactCallback and RegisterSubXactCallback.
//
// The engine owns one Transaction per session and drives it: every
// statement runs inside a transaction (an implicit one, that ends with the
// statement, until the session has BEGIN), and the statement's end is the
// transaction's Commit or Abort. The parts of the engine with state tied to
// the transaction register with it once and are called at every boundary
// of every transaction after that:
//
//   - storage's write set publishes the transaction's local writes at
//     Commit and drops them at Abort;
//   - remote's connection manager ends the remote transactions at
//     PreCommit (a failure there aborts the local transaction) and Abort;
//   - the session's settings forget or undo the transaction's SETs.
//
// Contract: callbacks run in the order they registered. At PreCommit each
// may fail; the first failure stops the commit, Abort runs for every
// callback, and Commit returns that error. Commit and Abort events cannot
// undo anything: their errors are collected and returned, after every
// callback has run. A Transaction is used by one goroutine at a time (the
// session's).
package xact

import (
	"context"
	"errors"

	"github.com/pgfed/pgfed/pgerr"
)

// Event is a point at the end of a transaction (PostgreSQL's XactEvent).
type Event uint8

const (
	// PreCommit: the transaction will commit unless a callback fails;
	// remote transactions commit here.
	PreCommit Event = iota
	// Commit: the transaction committed; local writes are published.
	Commit
	// Abort: the transaction is rolled back.
	Abort
)

func (e Event) String() string {
	return [...]string{"PreCommit", "Commit", "Abort"}[e]
}

// SubEvent is a point in the life of a subtransaction (a savepoint).
type SubEvent uint8

const (
	// StartSub: a subtransaction began (SAVEPOINT).
	StartSub SubEvent = iota
	// CommitSub: a subtransaction ended into its parent (RELEASE).
	CommitSub
	// AbortSub: a subtransaction rolled back (ROLLBACK TO).
	AbortSub
)

func (e SubEvent) String() string {
	return [...]string{"StartSub", "CommitSub", "AbortSub"}[e]
}

// Callback is called at each Event of every transaction of the session
// it is registered with.
type Callback interface {
	OnXact(ctx context.Context, ev Event) error
}

// SubCallback is implemented by callbacks that also follow
// subtransactions; depth is the nesting level of the subtransaction the
// event is about (1 for the first savepoint).
type SubCallback interface {
	OnSubXact(ctx context.Context, ev SubEvent, depth int) error
}

// Transaction is a session's current transaction and its callbacks.
type Transaction struct {
	callbacks []Callback
	active    bool
	depth     int    // open subtransactions
	count     uint64 // transactions started in this session
}

// Register adds a callback for every transaction from now on. A callback
// registered inside a transaction takes part in its end.
func (t *Transaction) Register(cb Callback) { t.callbacks = append(t.callbacks, cb) }

// Begin starts a transaction if none is active (a statement's implicit
// one); it reports whether it started one.
func (t *Transaction) Begin() bool {
	if t.active {
		return false
	}
	t.active, t.depth = true, 0
	t.count++
	return true
}

// Active reports whether a transaction is in progress.
func (t *Transaction) Active() bool { return t.active }

// Depth is the number of open subtransactions.
func (t *Transaction) Depth() int { return t.depth }

// Number identifies the current (or last) transaction within the session.
func (t *Transaction) Number() uint64 { return t.count }

// Commit ends the transaction: PreCommit for every callback, then Commit;
// if a PreCommit fails, the transaction aborts instead and Commit returns
// that error.
func (t *Transaction) Commit(ctx context.Context) error {
	if !t.active {
		return nil
	}
	for _, cb := range t.callbacks {
		if err := cb.OnXact(ctx, PreCommit); err != nil {
			if aerr := t.Abort(ctx); aerr != nil {
				return errors.Join(pgerr.Wrap(err), aerr)
			}
			return pgerr.Wrap(err)
		}
	}
	return t.finish(ctx, Commit)
}

// Abort rolls the transaction back, running every Abort callback even if
// some fail.
func (t *Transaction) Abort(ctx context.Context) error {
	if !t.active {
		return nil
	}
	return t.finish(ctx, Abort)
}

func (t *Transaction) finish(ctx context.Context, ev Event) error {
	t.active, t.depth = false, 0
	var errs []error
	for _, cb := range t.callbacks {
		if err := cb.OnXact(ctx, ev); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return pgerr.Wrap(errs[0])
}

// StartSub opens a subtransaction (SAVEPOINT) and returns its depth.
func (t *Transaction) StartSub(ctx context.Context) (int, error) {
	if !t.active {
		return 0, pgerr.New(pgerr.NoActiveSQLTransaction, "SAVEPOINT can only be used in transaction blocks")
	}
	t.depth++
	return t.depth, t.sub(ctx, StartSub, t.depth)
}

// CommitSub ends the innermost subtransaction into its parent (RELEASE).
func (t *Transaction) CommitSub(ctx context.Context) error {
	if t.depth == 0 {
		return pgerr.Internal("xact: no subtransaction to commit")
	}
	err := t.sub(ctx, CommitSub, t.depth)
	t.depth--
	return err
}

// AbortSub rolls the innermost subtransaction back (ROLLBACK TO) and
// closes it.
func (t *Transaction) AbortSub(ctx context.Context) error {
	if t.depth == 0 {
		return pgerr.Internal("xact: no subtransaction to abort")
	}
	err := t.sub(ctx, AbortSub, t.depth)
	t.depth--
	return err
}

// sub runs the subtransaction callbacks; all run, the first error is
// returned.
func (t *Transaction) sub(ctx context.Context, ev SubEvent, depth int) error {
	var first error
	for _, cb := range t.callbacks {
		if sc, ok := cb.(SubCallback); ok {
			if err := sc.OnSubXact(ctx, ev, depth); err != nil && first == nil {
				first = pgerr.Wrap(err)
			}
		}
	}
	return first
}
