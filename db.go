package pgfed

import (
	"context"
	"path/filepath"

	"github.com/pgfed/pgfed/engine"
	"github.com/pgfed/pgfed/pgerr"
)

// Option configures Open.
type Option func(*engine.Config)

// WithMaxWorkerProcesses bounds the parallel query workers running at
// once in all sessions (PostgreSQL's max_worker_processes; each session's
// max_parallel_workers bounds its own). 0, the default, leaves only the
// sessions' bounds.
func WithMaxWorkerProcesses(n int) Option {
	return func(c *engine.Config) { c.MaxWorkerProcesses = n }
}

// WithNoticeHandler sets the NOTICE handler of every session (the default
// one included); Session.SetNoticeHandler overrides it per session.
func WithNoticeHandler(fn func(*Notice)) Option {
	return func(c *engine.Config) { c.Notice = fn }
}

// WithFileAccess lets COPY read and write server-side files under the
// given directories (absolute paths; "/" for every file the process can
// reach, as the REPL does for its user). Without it, COPY works only
// with STDIN and STDOUT, as for PostgreSQL users without the
// pg_read_server_files and pg_write_server_files roles.
func WithFileAccess(dirs ...string) Option {
	return func(c *engine.Config) { c.FileDirs = append(c.FileDirs, dirs...) }
}

// WithMemoryLimit bounds the working memory (sorts, hash tables) of all
// statements of the DB together, in bytes: operators that reach it spill
// to temporary files earlier, and a statement that still needs more
// fails with SQLSTATE 53200 instead of the process running out of
// memory. Table data is not counted. The session setting
// pgfed.memory_limit bounds one statement the same way.
func WithMemoryLimit(bytes int64) Option {
	return func(c *engine.Config) { c.MemoryLimit = bytes }
}

// WithTempDir sets the directory of the temporary files of operators that
// spill (default: the system's temporary directory).
func WithTempDir(dir string) Option {
	return func(c *engine.Config) { c.TempDir = dir }
}

// DB is an embedded pgfed engine: a catalog of tables shared by sessions.
type DB struct {
	e   *engine.Engine
	def *Session
}

// Open opens an in-memory engine.
func Open(opts ...Option) (*DB, error) {
	var c engine.Config
	for _, o := range opts {
		o(&c)
	}
	for _, d := range c.FileDirs {
		if !filepath.IsAbs(d) {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "file access directory %q is not an absolute path", d)
		}
	}
	db := &DB{e: engine.New(c)}
	db.def = db.NewSession()
	return db, nil
}

// Close releases the engine, its sessions and all table data.
func (db *DB) Close() error {
	db.e.Close()
	return nil
}

// NewSession opens a session with its own settings (SET), like a connection.
func (db *DB) NewSession() *Session { return &Session{s: db.e.NewSession()} }

// Exec runs every statement in sql on the default session.
func (db *DB) Exec(ctx context.Context, sql string) (string, error) { return db.def.Exec(ctx, sql) }

// Query runs one statement on the default session.
func (db *DB) Query(ctx context.Context, sql string) (*Rows, error) { return db.def.Query(ctx, sql) }

// Session returns the default session (the one DB.Exec and DB.Query use).
func (db *DB) Session() *Session { return db.def }

// ParallelWorkersRunning is the number of parallel query workers running
// now in all sessions (at most max_parallel_workers are started).
func (db *DB) ParallelWorkersRunning() int { return db.e.ParallelWorkersRunning() }
