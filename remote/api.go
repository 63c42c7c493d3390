package remote

// The signatures other packages program against; the implementation
// lands behind them.

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/types"
)

var errTODO = errors.New("remote: not implemented yet")

// ConnSpec says how to reach a server as a user.
type ConnSpec struct {
	// Key identifies the connection to share: server name + user mapping.
	Key string
	// Server is the foreign server's name (for messages).
	Server string
	// Options are the server's libpq options (host, port, dbname, ...);
	// postgres_fdw-specific options (fetch_size, async_capable ...) are
	// ignored here.
	Options map[string]string
	// User are the user mapping's options (user, password).
	User map[string]string
}

// ConnInfo describes a cached connection (postgres_fdw_get_connections).
type ConnInfo struct {
	Server     string
	User       string
	Valid      bool
	InXact     bool
	BackendPID uint32
}

// Manager holds one session's remote connections.
type Manager struct{}

// NewManager returns an empty connection cache.
func NewManager() *Manager { return &Manager{} }

// Conn returns the connection for spec, connecting on first use, and
// makes sure the current statement's remote transaction is open on it.
func (m *Manager) Conn(ctx context.Context, spec ConnSpec) (*Conn, error) { return nil, errTODO }

// EndStatement commits (commit=true) or aborts the remote transactions
// opened since the last call, leaving every connection idle and usable.
func (m *Manager) EndStatement(ctx context.Context, commit bool) error { return nil }

// Connections lists the cached connections.
func (m *Manager) Connections() []ConnInfo { return nil }

// Disconnect closes the cached connections of a server; it reports whether
// any was closed. DisconnectAll closes them all.
func (m *Manager) Disconnect(server string) bool { return false }
func (m *Manager) DisconnectAll() bool           { return false }

// Close closes every connection.
func (m *Manager) Close() error { return nil }

// Conn is one remote connection.
type Conn struct{}

// Cursor is an open remote cursor (DECLARE cN CURSOR FOR ...).
type Cursor struct{}

// OpenCursor declares a cursor for sql in the current remote transaction.
func (c *Conn) OpenCursor(ctx context.Context, sql string) (*Cursor, error) { return nil, errTODO }

// Fetch runs FETCH n and decodes the rows (binary format) into a batch of
// the given schema, whose columns have the SQL types cols (converting
// from the remote column types when they differ). eof is true when fewer
// than n rows came back. The batch is nil when no rows came back.
func (cu *Cursor) Fetch(ctx context.Context, n int, schema *arrow.Schema, cols []types.T) (b arrow.RecordBatch, eof bool, err error) {
	return nil, true, errTODO
}

// Close closes the cursor (CLOSE cN).
func (cu *Cursor) Close(ctx context.Context) error { return nil }

// QueryText runs a query and returns its rows as text values (nil =
// NULL), for catalog lookups such as IMPORT FOREIGN SCHEMA.
func (c *Conn) QueryText(ctx context.Context, sql string, args ...any) ([][]*string, error) {
	return nil, errTODO
}
