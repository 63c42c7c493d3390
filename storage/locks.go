package storage

// Table write locks, held by transactions from the moment they first
// change a table in a way that depends on its contents (UPDATE, DELETE,
// TRUNCATE) until they end, and briefly by every commit that publishes.
// Readers never take them: they read versions (mvcc.go).
//
// A transaction that finds a table locked waits, as PostgreSQL does, until
// the holder ends, its context is done (57014), lock_timeout passes
// (55P03), or waiting would close a cycle of waits (40P01 "deadlock
// detected", reported at once rather than after deadlock_timeout). This is
// table granularity, PostgreSQL's first stage: two transactions changing
// different rows of one table wait for each other.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pgfed/pgfed/pgerr"
)

// locks is the one lock table of the process.
var locks = &lockTable{holder: map[*Table]*LockOwner{}, waiting: map[*LockOwner]*Table{}}

type lockTable struct {
	mu      sync.Mutex
	holder  map[*Table]*LockOwner
	waiting map[*LockOwner]*Table
	freed   chan struct{} // closed (and replaced) whenever a lock is freed
}

var lastOwner atomic.Uint64

// LockOwner is a transaction's identity in the lock table (a session's
// write set holds one).
type LockOwner struct {
	id uint64
}

// NewLockOwner returns a new owner.
func NewLockOwner() *LockOwner { return &LockOwner{id: lastOwner.Add(1)} }

// lock takes the write locks of tables for owner, waiting as the package
// comment says; timeout 0 waits without limit. It returns the tables it
// newly locked (those owner held already are not in it). On an error none
// of them is left locked.
func (lt *lockTable) lock(ctx context.Context, owner *LockOwner, tables []*Table, timeout time.Duration) ([]*Table, error) {
	var got []*Table
	var deadline <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	for _, t := range tables {
		fresh, err := lt.lockOne(ctx, owner, t, deadline)
		if err != nil {
			lt.unlock(owner, got)
			return nil, err
		}
		if fresh {
			got = append(got, t)
		}
	}
	return got, nil
}

func (lt *lockTable) lockOne(ctx context.Context, owner *LockOwner, t *Table, deadline <-chan time.Time) (bool, error) {
	for {
		lt.mu.Lock()
		h := lt.holder[t]
		if h == nil {
			lt.holder[t] = owner
			delete(lt.waiting, owner)
			lt.mu.Unlock()
			return true, nil
		}
		if h == owner {
			lt.mu.Unlock()
			return false, nil
		}
		lt.waiting[owner] = t
		if cycle := lt.cycleLocked(owner); cycle != "" {
			delete(lt.waiting, owner)
			lt.mu.Unlock()
			return false, pgerr.New(pgerr.DeadlockDetected, "deadlock detected").WithDetail("%s", cycle).
				WithHint("Each of these transactions waits for a table another holds; retry the transaction.")
		}
		if lt.freed == nil {
			lt.freed = make(chan struct{})
		}
		freed := lt.freed
		lt.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			lt.stopWaiting(owner)
			return false, ctxError(ctx)
		case <-deadline:
			lt.stopWaiting(owner)
			return false, pgerr.New(pgerr.LockNotAvailable, "canceling statement due to lock timeout")
		}
	}
}

func (lt *lockTable) stopWaiting(owner *LockOwner) {
	lt.mu.Lock()
	delete(lt.waiting, owner)
	lt.mu.Unlock()
}

// cycleLocked follows owner's wait to the holder, that holder's wait to
// its holder, and so on; if it comes back to owner it describes the cycle.
func (lt *lockTable) cycleLocked(owner *LockOwner) string {
	var steps []string
	seen := map[*LockOwner]bool{}
	for o := owner; !seen[o]; {
		seen[o] = true
		t := lt.waiting[o]
		if t == nil {
			return ""
		}
		h := lt.holder[t]
		steps = append(steps, fmt.Sprintf("Transaction %d waits for a write lock on table %s; blocked by transaction %d.", o.id, t.QualifiedName(), h.id))
		if h == owner {
			return strings.Join(steps, "\n")
		}
		o = h
	}
	return ""
}

// unlock frees tables held by owner and wakes the waiters.
func (lt *lockTable) unlock(owner *LockOwner, tables []*Table) {
	if len(tables) == 0 {
		return
	}
	lt.mu.Lock()
	for _, t := range tables {
		if lt.holder[t] == owner {
			delete(lt.holder, t)
		}
	}
	if lt.freed != nil {
		close(lt.freed)
		lt.freed = nil
	}
	lt.mu.Unlock()
}

// ctxError is PostgreSQL's error for a wait ended by ctx: 57014, the
// cause saying whether by a cancel or statement_timeout.
func ctxError(ctx context.Context) error {
	if pe, ok := pgerr.As(context.Cause(ctx)); ok {
		return pe
	}
	return pgerr.Canceled()
}
