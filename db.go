package pgfed

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/pgfed/pgfed/executor"
	"github.com/pgfed/pgfed/storage"
)

// Option configures Open.
type Option func(*config)

type config struct{}

// DB is an embedded pgfed engine: a catalog of tables shared by sessions.
type DB struct {
	catalog *storage.Catalog

	mu       sync.Mutex
	sessions map[*Session]struct{}
	def      *Session
	closed   atomic.Bool

	// workers counts the parallel workers running in all sessions, which
	// max_parallel_workers bounds.
	workers executor.WorkerPool
}

// Open opens an in-memory engine.
func Open(opts ...Option) (*DB, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	db := &DB{catalog: storage.NewCatalog(), sessions: map[*Session]struct{}{}}
	db.def = db.NewSession()
	return db, nil
}

// Close releases the engine, its sessions and all table data.
func (db *DB) Close() error {
	if db.closed.Swap(true) {
		return nil
	}
	db.mu.Lock()
	ss := make([]*Session, 0, len(db.sessions))
	for s := range db.sessions {
		ss = append(ss, s)
	}
	db.mu.Unlock()
	for _, s := range ss {
		s.Close()
	}
	db.catalog.Close()
	return nil
}

// NewSession opens a session with its own settings (SET), like a connection.
func (db *DB) NewSession() *Session {
	s := &Session{db: db, settings: newSettings()}
	db.mu.Lock()
	db.sessions[s] = struct{}{}
	db.mu.Unlock()
	return s
}

// Exec runs every statement in sql on the default session.
func (db *DB) Exec(ctx context.Context, sql string) (string, error) { return db.def.Exec(ctx, sql) }

// Query runs one statement on the default session.
func (db *DB) Query(ctx context.Context, sql string) (*Rows, error) { return db.def.Query(ctx, sql) }

// Session returns the default session (the one DB.Exec and DB.Query use).
func (db *DB) Session() *Session { return db.def }

// ParallelWorkersRunning is the number of parallel query workers running
// now in all sessions (at most max_parallel_workers are started).
func (db *DB) ParallelWorkersRunning() int { return db.workers.Running() }
