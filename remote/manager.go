package remote

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/xact"
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
	// Slot picks one of several connections of Key that share one
	// snapshot within a statement, so that scans of one server can fetch
	// in parallel: 0 is the primary connection (the only one
	// postgres_fdw has), 1, 2 ... are extra ones, which import the
	// primary's snapshot when a statement first uses them.
	Slot int
}

// connKey is what the Manager caches connections by.
type connKey struct {
	key  string
	slot int
}

func keyOf(spec ConnSpec) connKey { return connKey{spec.Key, spec.Slot} }

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
	conns map[connKey]*Conn
	// inXact are the connections whose remote transaction the current
	// statement opened, in the order it did.
	inXact []*Conn
	// snapshots are the snapshots the current statement exported from
	// primary connections for extra slots to import, by ConnSpec.Key.
	// An id stays valid while the exporting transaction is open, which
	// is until EndStatement.
	snapshots map[string]string
	// lastCursor numbers cursors c1, c2 ... across all connections, as
	// postgres_fdw does; atomic because scans may open cursors from
	// goroutines of their own.
	lastCursor atomic.Uint32
}

// NewManager returns an empty connection cache.
func NewManager() *Manager {
	return &Manager{conns: map[connKey]*Conn{}, snapshots: map[string]string{}}
}

// startSQL opens a statement's remote transaction. REPEATABLE READ gives
// every scan of the statement on this connection the same snapshot.
const startSQL = "START TRANSACTION ISOLATION LEVEL REPEATABLE READ"

// Conn returns the connection for spec, connecting on first use, and
// makes sure the current statement's remote transaction is open on it.
//
// For an extra slot (spec.Slot > 0) that means, on its first use in a
// statement: the primary connection's transaction is opened if it is not
// yet, the primary exports its snapshot (once per statement), and the
// extra connection's transaction starts with that snapshot, so that all
// slots of a Key see the same data. An extra slot reaches the server the
// way the primary did, even when spec's options changed within the
// statement (the snapshot exists only there); it is then invalidated like
// the primary. Extra slots read: they do not see what the primary wrote
// in the statement, nor the other way round.
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
	if spec.Slot < 0 {
		return nil, pgerr.Internal("remote: connection slot %d is negative", spec.Slot)
	}
	if c := m.conns[keyOf(spec)]; c != nil && c.xact {
		// Statements call Conn again for each scan, while other scans of
		// the statement may be fetching on c in goroutines of their own.
		if c.brokenUnlessBusy() {
			return nil, lostError(spec.Server)
		}
		if !sameConnOptions(c.spec, spec) {
			c.invalidated = true
		}
		return c, nil
	}
	if spec.Slot == 0 {
		return m.join(ctx, spec, startSQL)
	}

	primarySpec := spec
	primarySpec.Slot = 0
	p, err := m.Conn(ctx, primarySpec)
	if err != nil {
		return nil, err
	}
	id, ok := m.snapshots[spec.Key]
	if !ok {
		if id, err = p.exportSnapshot(ctx); err != nil {
			return nil, err
		}
		m.snapshots[spec.Key] = id
	}
	want := p.spec
	want.Slot = spec.Slot
	c, err := m.join(ctx, want, importSQL(id))
	if err != nil {
		return nil, err
	}
	if !sameConnOptions(want, spec) {
		c.invalidated = true
	}
	return c, nil
}

// join opens the statement's remote transaction on spec's connection,
// which is not in one yet, with the command start; it connects first
// when needed.
func (m *Manager) join(ctx context.Context, spec ConnSpec, start string) (*Conn, error) {
	c := m.conns[keyOf(spec)]
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
	err := c.begin(ctx, start)
	if err != nil && reused && c.broken() && ctx.Err() == nil {
		// The connection died while idle (server restart, terminated
		// backend): no remote transaction was open, so nothing is lost by
		// reconnecting, once, as postgres_fdw does.
		m.drop(c)
		if c, err = m.open(ctx, spec); err != nil {
			return nil, err
		}
		err = c.begin(ctx, start)
	}
	if err != nil {
		// An interrupted START leaves the connection in a state not worth
		// guessing at, unless it is plainly still outside a transaction;
		// a failed snapshot import leaves an aborted transaction block.
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
	m.conns[keyOf(spec)] = c
	return c, nil
}

// drop closes c and forgets it.
func (m *Manager) drop(c *Conn) {
	c.closeAnyway()
	if k := keyOf(c.spec); m.conns[k] == c {
		delete(m.conns, k)
	}
}

// begin opens the remote transaction with start (startSQL, or importSQL
// for an extra slot).
func (c *Conn) begin(ctx context.Context, start string) error {
	if err := c.acquire(ctx); err != nil {
		return err
	}
	defer c.release()
	if err := c.exec(ctx, start); err != nil {
		return err
	}
	c.xact = true
	c.xactID++
	return nil
}

// exportSQL makes the primary's snapshot importable by the extra slots.
// In a REPEATABLE READ transaction that is the transaction's snapshot:
// the one its first query took, or, when the export is the first query,
// the one every later query of the transaction uses.
const exportSQL = "SELECT pg_export_snapshot()"

// exportSnapshot exports the snapshot of c's remote transaction and
// returns its id.
func (c *Conn) exportSnapshot(ctx context.Context) (string, error) {
	if err := c.acquire(ctx); err != nil {
		return "", err
	}
	defer c.release()
	if err := c.checkInXact(); err != nil {
		return "", err
	}
	results, err := c.pg.Exec(ctx, exportSQL).ReadAll()
	if err != nil {
		return "", commandError(ctx, err, c.spec.Server, exportSQL)
	}
	if len(results) != 1 || len(results[0].Rows) != 1 || len(results[0].Rows[0]) != 1 {
		return "", pgerr.Internal("remote: unexpected result of %s on server %q", exportSQL, c.spec.Server)
	}
	id := string(results[0].Rows[0][0])
	// The id goes into a literal; PostgreSQL's are hex digits and dashes
	// ("00000003-0000001B-1"), anything else is not taken on trust.
	if id == "" || strings.Trim(id, "0123456789ABCDEFabcdef-") != "" {
		return "", pgerr.Internal("remote: unexpected snapshot id %q from server %q", id, c.spec.Server)
	}
	return id, nil
}

// importSQL opens an extra slot's remote transaction with the snapshot
// id. SET TRANSACTION SNAPSHOT must come before any query of the
// transaction; sending both as one simple query makes them one round
// trip, and leaves the transaction open since START makes the block
// explicit.
func importSQL(id string) string {
	return startSQL + "; SET TRANSACTION SNAPSHOT '" + id + "'"
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

// OnXact implements xact.Callback: the remote transactions end with the
// local one, at PreCommit or Abort. Until pgfed writes to foreign tables,
// remote work is read-only, so a remote transaction is rolled back at
// commit too: that also ends cleanly after a cancelled fetch (LIMIT
// stopping async children early), where COMMIT would fail.
func (m *Manager) OnXact(ctx context.Context, ev xact.Event) error {
	switch ev {
	case xact.PreCommit, xact.Abort:
		return m.EndStatement(ctx, false)
	}
	return nil
}

var _ xact.Callback = (*Manager)(nil)

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
//
// The extra slots' transactions end before the primaries': the exporting
// transactions then outlive the ones that imported their snapshots
// (which PostgreSQL does not require once the import is done), and a
// commit failing on an extra slot aborts its primary's writes rather
// than leaving them committed.
func (m *Manager) EndStatement(ctx context.Context, commit bool) error {
	used := m.inXact
	m.inXact = nil
	clear(m.snapshots)
	m.lastCursor.Store(0)
	slices.SortStableFunc(used, func(a, b *Conn) int {
		return cmp.Compare(isPrimary(a), isPrimary(b))
	})
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

// isPrimary is 1 for a primary connection and 0 for an extra slot's, an
// order in which extra slots come first.
func isPrimary(c *Conn) int {
	if c.spec.Slot == 0 {
		return 1
	}
	return 0
}

// Connections lists the cached connections, extra slots included (each
// is a connection of its own), ordered by server, user, and then mapping
// and slot. A connection whose command is running in another goroutine
// counts as valid unless invalidated: whether it broke, that command
// will tell.
func (m *Manager) Connections() []ConnInfo {
	conns := slices.Collect(maps.Values(m.conns))
	slices.SortFunc(conns, func(a, b *Conn) int {
		return cmp.Or(cmp.Compare(a.spec.Server, b.spec.Server), cmp.Compare(a.user, b.user),
			cmp.Compare(a.spec.Key, b.spec.Key), cmp.Compare(a.spec.Slot, b.spec.Slot))
	})
	out := make([]ConnInfo, len(conns))
	for i, c := range conns {
		out[i] = ConnInfo{
			Server:     c.spec.Server,
			User:       c.user,
			Valid:      !c.brokenUnlessBusy() && !c.invalidated,
			InXact:     c.xact,
			BackendPID: c.pg.PID(),
		}
	}
	return out
}

// Disconnect closes the cached connections of a server, those of every
// slot; it reports whether any was closed. DisconnectAll closes them all.
// As in postgres_fdw, a connection the current statement uses stays open.
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
	clear(m.snapshots)
	return nil
}
