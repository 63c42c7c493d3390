package remote

import (
	"context"
	"maps"
	"sort"
	"sync/atomic"
	"time"

	"github.com/pgfed/pgfed/pgerr"
)

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
// User is the role the connection logged in as. Valid is false once the
// connection broke or its options changed while it was in use.
type ConnInfo struct {
	Server     string
	User       string
	Valid      bool
	InXact     bool
	BackendPID uint32
}

// Manager holds one session's remote connections.
type Manager struct {
	conns map[string]*Conn // by ConnSpec.Key
	// inXact are the connections whose remote transaction the current
	// statement opened, in the order it did, which is the order
	// EndStatement ends them in.
	inXact []*Conn
	// lastCursor numbers cursors c1, c2 ... across all connections, as
	// postgres_fdw does; atomic because scans may open cursors from
	// goroutines of their own.
	lastCursor atomic.Uint32
}

// NewManager returns an empty connection cache.
func NewManager() *Manager { return &Manager{conns: map[string]*Conn{}} }

// startSQL opens a statement's remote transaction. REPEATABLE READ gives
// every scan of the statement on this connection the same snapshot.
const startSQL = "START TRANSACTION ISOLATION LEVEL REPEATABLE READ"

// Conn returns the connection for spec, connecting on first use, and
// makes sure the current statement's remote transaction is open on it.
//
// A cached connection found broken, or whose connection options changed,
// is replaced when no remote transaction is open on it. Inside the
// transaction, a broken connection is 08006 "connection to server was
// lost" (reconnecting would change the snapshot mid-statement), and
// changed options take effect from the next statement.
func (m *Manager) Conn(ctx context.Context, spec ConnSpec) (*Conn, error) {
	if ctx.Err() != nil {
		return nil, contextError(ctx)
	}
	c := m.conns[spec.Key]
	if c != nil && c.xact {
		if c.broken() {
			return nil, lostError(spec.Server)
		}
		if !sameConnOptions(c.spec, spec) {
			c.invalidated = true
		}
		return c, nil
	}
	if c != nil && (c.broken() || !sameConnOptions(c.spec, spec)) {
		m.drop(c)
		c = nil
	}
	reused := c != nil
	if c == nil {
		var err error
		if c, err = m.open(ctx, spec); err != nil {
			return nil, err
		}
	}
	err := c.begin(ctx)
	if err != nil && reused && c.broken() && ctx.Err() == nil {
		// The connection died while idle (server restart, terminated
		// backend): no remote transaction was open, so nothing is lost by
		// reconnecting, once, as postgres_fdw does.
		m.drop(c)
		if c, err = m.open(ctx, spec); err != nil {
			return nil, err
		}
		err = c.begin(ctx)
	}
	if err != nil {
		// An interrupted START leaves the connection in a state not worth
		// guessing at, unless it is plainly still outside a transaction.
		if c.broken() || c.pg.TxStatus() != 'I' {
			m.drop(c)
		}
		return nil, err
	}
	m.inXact = append(m.inXact, c)
	return c, nil
}

// open connects for spec and caches the connection.
func (m *Manager) open(ctx context.Context, spec ConnSpec) (*Conn, error) {
	c, err := connect(ctx, m, spec)
	if err != nil {
		return nil, err
	}
	m.conns[spec.Key] = c
	return c, nil
}

// drop closes c and forgets it.
func (m *Manager) drop(c *Conn) {
	c.closeAnyway()
	if m.conns[c.spec.Key] == c {
		delete(m.conns, c.spec.Key)
	}
}

// begin opens the remote transaction.
func (c *Conn) begin(ctx context.Context) error {
	if err := c.acquire(ctx); err != nil {
		return err
	}
	defer c.release()
	if err := c.exec(ctx, startSQL); err != nil {
		return err
	}
	c.xact = true
	c.xactID++
	return nil
}

// sameConnOptions reports whether a and b connect the same way; options
// that are not libpq's (fetch_size ...) do not matter.
func sameConnOptions(a, b ConnSpec) bool {
	return maps.Equal(connOnly(a.Options), connOnly(b.Options)) && maps.Equal(connOnly(a.User), connOnly(b.User))
}

func connOnly(opts map[string]string) map[string]string {
	out := make(map[string]string, len(opts))
	for k, v := range opts {
		if IsConnOption(k) {
			out[k] = v
		}
	}
	return out
}

// EndStatement commits (commit=true) or aborts the remote transactions
// opened since the last call, leaving every connection idle and usable.
//
// Commits go one connection after another; there is no two-phase commit,
// so when one fails, the ones before it stay committed and the ones after
// it are aborted, and the failure is returned. Aborting never fails: a
// command still running is cancelled first, and a connection that cannot
// be brought back to idle within cleanupTimeout is closed (the next
// statement reconnects). Aborts run even when ctx is already cancelled,
// since cleaning up after a cancelled statement is their main use.
func (m *Manager) EndStatement(ctx context.Context, commit bool) error {
	used := m.inXact
	m.inXact = nil
	m.lastCursor.Store(0)
	var err error
	for _, c := range used {
		if commit && err == nil {
			err = m.commit(ctx, c)
		} else {
			m.abort(ctx, c)
		}
	}
	return err
}

const commitSQL = "COMMIT TRANSACTION"

const abortSQL = "ABORT TRANSACTION"

// commit commits c's remote transaction.
func (m *Manager) commit(ctx context.Context, c *Conn) error {
	if err := c.acquire(ctx); err != nil {
		m.abort(ctx, c)
		return err
	}
	if c.broken() {
		c.xact = false
		c.release()
		m.drop(c)
		return lostError(c.spec.Server)
	}
	if ctx.Err() != nil {
		// Too late to commit; pgx would not even send it.
		m.abortHeld(ctx, c)
		return contextError(ctx)
	}
	if c.pg.TxStatus() == 'E' {
		// A command failed and the caller went on regardless: COMMIT
		// would quietly roll back instead.
		m.abortHeld(ctx, c)
		return pgerr.New(pgerr.InFailedSQLTransaction,
			"could not commit the remote transaction on server \"%s\" because it was aborted", c.spec.Server)
	}
	err := c.exec(ctx, commitSQL)
	if err != nil && !c.broken() && c.pg.TxStatus() != 'I' {
		// COMMIT was interrupted before the server ran it.
		m.abortHeld(ctx, c)
		return err
	}
	// Whether COMMIT succeeded, or the server rejected it (a deferred
	// constraint, a serialization failure) and rolled back, the connection
	// is idle and fine.
	c.xact = false
	reusable := !c.broken() && !c.invalidated
	c.release()
	if !reusable {
		m.drop(c)
	}
	return err
}

// abort rolls back c's remote transaction, cancelling a command still
// running on it, in postgres_fdw's manner.
func (m *Manager) abort(ctx context.Context, c *Conn) {
	ctx, cancel := cleanupContext(ctx)
	defer cancel()
	if !c.acquireCancelling(ctx) {
		// The command in flight outlasted every cancel request: the
		// connection is beyond repair.
		m.drop(c)
		return
	}
	m.abortHeld(ctx, c)
}

// cleanupContext derives the context of an abort: it keeps ctx's values
// but not its cancellation, since cleaning up after a cancelled statement
// is the abort's main use, and is bounded by cleanupTimeout instead.
func cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}

// abortHeld rolls back c's remote transaction, with busy held, and
// releases busy. A connection it cannot bring back to idle is closed.
func (m *Manager) abortHeld(ctx context.Context, c *Conn) {
	ctx, cancel := cleanupContext(ctx)
	defer cancel()
	c.xact = false
	reusable := !c.broken()
	if reusable && c.pg.TxStatus() != 'I' {
		reusable = c.exec(ctx, abortSQL) == nil && c.pg.TxStatus() == 'I'
	}
	reusable = reusable && !c.invalidated
	c.release()
	if !reusable {
		m.drop(c)
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

// Connections lists the cached connections, ordered by server and user.
func (m *Manager) Connections() []ConnInfo {
	out := make([]ConnInfo, 0, len(m.conns))
	for _, c := range m.conns {
		out = append(out, ConnInfo{
			Server:     c.spec.Server,
			User:       c.user,
			Valid:      !c.broken() && !c.invalidated,
			InXact:     c.xact,
			BackendPID: c.pg.PID(),
		})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Server != out[j].Server {
			return out[i].Server < out[j].Server
		}
		return out[i].User < out[j].User
	})
	return out
}

// Disconnect closes the cached connections of a server; it reports whether
// any was closed. DisconnectAll closes them all. As in postgres_fdw, a
// connection the current statement uses stays open.
func (m *Manager) Disconnect(server string) bool {
	return m.disconnect(func(c *Conn) bool { return c.spec.Server == server })
}

func (m *Manager) DisconnectAll() bool {
	return m.disconnect(func(*Conn) bool { return true })
}

func (m *Manager) disconnect(match func(*Conn) bool) bool {
	closed := false
	for _, c := range m.conns {
		if match(c) && !c.xact {
			m.drop(c)
			closed = true
		}
	}
	return closed
}

// Close closes every connection, also those in a remote transaction,
// which the remote servers then roll back.
func (m *Manager) Close() error {
	for _, c := range m.conns {
		m.drop(c)
	}
	m.inXact = nil
	return nil
}
