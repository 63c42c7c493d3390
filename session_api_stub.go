package pgfed

// Temporary: the engine behind these signatures lands in the next commits.

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
)

var errNotYet = errors.New("pgfed: engine not implemented yet")

// Option configures Open.
type Option func(*config)

type config struct{}

// DB is an embedded pgfed engine: a catalog of tables plus sessions.
type DB struct{}

// Open opens an in-memory engine.
func Open(opts ...Option) (*DB, error) { return &DB{}, nil }

// Close releases the engine and all its sessions.
func (db *DB) Close() error { return nil }

// NewSession opens a session with its own settings (SET), like a connection.
func (db *DB) NewSession() *Session { return &Session{} }

// Session runs statements one after another; it is not safe for concurrent use.
type Session struct{}

// Exec runs every statement in sql and returns the last command tag.
func (s *Session) Exec(ctx context.Context, sql string) (string, error) { return "", errNotYet }

// Query runs exactly one statement and returns its result stream.
func (s *Session) Query(ctx context.Context, sql string) (*Rows, error) { return nil, errNotYet }

// SetCopyHandler sets the streams for COPY FROM STDIN / TO STDOUT.
func (s *Session) SetCopyHandler(h CopyHandler) {}

// SetNoticeHandler sets the function that receives NOTICEs.
func (s *Session) SetNoticeHandler(fn func(*Notice)) {}

// ListRelations lists the relations of the search path's schemas, as \d does.
func (s *Session) ListRelations() ([]RelationInfo, error) { return nil, errNotYet }

// DescribeRelation describes one relation, as \d NAME does.
func (s *Session) DescribeRelation(name string) (*RelationDesc, error) { return nil, errNotYet }

// Close ends the session.
func (s *Session) Close() error { return nil }

// Rows is a statement's result. Iterate rows with Next, or Arrow batches
// with NextBatch (not both); Close always.
type Rows struct{}

// ReturnsRows reports whether the statement produces a result set.
func (r *Rows) ReturnsRows() bool { return false }

// Columns describes the result columns.
func (r *Rows) Columns() []Column { return nil }

// Next advances to the next row.
func (r *Rows) Next() bool { return false }

// Values returns the current row (see package types for the Go value of each SQL type).
func (r *Rows) Values() []any { return nil }

// Text returns column i of the current row in PostgreSQL's text output;
// ok is false for NULL.
func (r *Rows) Text(i int) (s string, ok bool) { return "", false }

// Scan copies the current row into dest (pointers to Go values).
func (r *Rows) Scan(dest ...any) error { return errNotYet }

// NextBatch advances to the next Arrow record batch.
func (r *Rows) NextBatch() bool { return false }

// Batch returns the current batch; it is valid until the next NextBatch or Close.
func (r *Rows) Batch() arrow.RecordBatch { return nil }

// Err returns the error that ended iteration, if any.
func (r *Rows) Err() error { return nil }

// Tag returns the command tag ("SELECT 3", "INSERT 0 1", "CREATE TABLE") once iteration ended.
func (r *Rows) Tag() string { return "" }

// Close ends the statement, releasing everything it holds.
func (r *Rows) Close() error { return nil }
