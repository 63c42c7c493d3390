package engine

import (
	"sync"
	"sync/atomic"

	"github.com/pgfed/pgfed/executor"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
)

// Config configures an Engine.
type Config struct {
	// MaxWorkerProcesses bounds the parallel workers running in all
	// sessions at once (PostgreSQL's max_worker_processes); 0 means
	// unbounded, leaving max_parallel_workers as the only limit.
	MaxWorkerProcesses int
	// Notice, if set, is each new session's NOTICE handler.
	Notice func(*pgerr.Error)
	// FileDirs are the directories under which COPY may read and write
	// server-side files (absolute); none: no file access.
	FileDirs []string
	// MemoryLimit bounds, in bytes, the working memory of all statements
	// of the engine together (sorts, hash tables; 0: no limit): beyond
	// it operators spill, and what cannot spill fails with 53200.
	MemoryLimit int64
	// TempDir is where spilling operators put their temporary files
	// ("": the system's temporary directory).
	TempDir string
}

// Engine is an in-memory database: a catalog of tables shared by
// sessions, and the pool of parallel workers.
type Engine struct {
	cfg     Config
	catalog *storage.Catalog
	workers executor.WorkerPool
	memory  *executor.MemoryPool
	parses  sync.WaitGroup // long parses a cancel abandoned (Session.parse)

	mu       sync.Mutex
	sessions map[*Session]struct{}
	closed   atomic.Bool
}

// New returns an empty engine.
func New(cfg Config) *Engine {
	e := &Engine{cfg: cfg, catalog: storage.NewCatalog(), sessions: map[*Session]struct{}{},
		memory: executor.NewMemoryPool(cfg.MemoryLimit, nil)}
	e.workers.SetLimit(cfg.MaxWorkerProcesses)
	return e
}

// Close ends every session and releases all table data.
func (e *Engine) Close() {
	if e.closed.Swap(true) {
		return
	}
	e.mu.Lock()
	ss := make([]*Session, 0, len(e.sessions))
	for s := range e.sessions {
		ss = append(ss, s)
	}
	e.mu.Unlock()
	for _, s := range ss {
		s.Close()
	}
	e.parses.Wait()
	e.catalog.Close()
}

// ParallelWorkersRunning is the number of parallel query workers running
// now in all sessions.
func (e *Engine) ParallelWorkersRunning() int { return e.workers.Running() }

func (e *Engine) forget(s *Session) {
	e.mu.Lock()
	delete(e.sessions, s)
	e.mu.Unlock()
}
