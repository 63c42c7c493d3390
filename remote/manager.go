package remote

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"
	"sync/atomic"

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
	// RoundTrips counts the requests sent on the connection, each of
	// which waited for one answer.
	RoundTrips int64
}

// Manager holds one session's remote connections and their remote
// transactions (xact.go).
type Manager struct {
	conns map[connKey]*Conn
	// inXact are the connections the current local transaction uses, in
	// the order it first did.
	inXact []*Conn
	// depth is the local transaction's subtransaction level (0 outside
	// any savepoint).
	depth int
	cfg   ManagerConfig
	// snapshots are the snapshots the current transaction exported from
	// primary connections for extra slots to import, by ConnSpec.Key.
	// An id stays valid while the exporting transaction is open.
	snapshots map[string]string
	// lastCursor numbers cursors c1, c2 ... across all connections, as
	// postgres_fdw does; atomic because scans may open cursors from
	// goroutines of their own.
	lastCursor atomic.Uint32
	// Trace, when set, is told of every command that ends a remote
	// (sub)transaction as it is sent and as its answer is read, for tests
	// of the order of a parallel commit or abort.
	Trace func(step string)
}

// ManagerConfig is what a Manager asks its session; nil functions mean
// false and no notices.
type ManagerConfig struct {
	// Serializable tells whether the local transaction is SERIALIZABLE
	// (its remote ones then are too).
	Serializable func() bool
	// TwoPhase tells whether a commit of several written servers is two
	// phase (pgfed.two_phase_commit).
	TwoPhase func() bool
	// Notice receives WARNINGs (a prepared transaction left in doubt).
	Notice func(*pgerr.Error)
}

// NewManager returns an empty connection cache.
func NewManager(cfg ManagerConfig) *Manager {
	return &Manager{conns: map[connKey]*Conn{}, snapshots: map[string]string{}, cfg: cfg}
}

func (m *Manager) twoPhase() bool { return m.cfg.TwoPhase != nil && m.cfg.TwoPhase() }

// startSQL opens a remote transaction. REPEATABLE READ gives every scan
// of the local transaction on this connection the same snapshot;
// SERIALIZABLE when the local transaction is.
const (
	startSQL             = "START TRANSACTION ISOLATION LEVEL REPEATABLE READ"
	startSerializableSQL = "START TRANSACTION ISOLATION LEVEL SERIALIZABLE"
)

func (m *Manager) startCommand() string {
	if m.cfg.Serializable != nil && m.cfg.Serializable() {
		return startSerializableSQL
	}
	return startSQL
}

// Conn returns the connection for spec, connecting on first use, and
// makes sure the local transaction's remote transaction is open on it,
// with a savepoint for every open local one. Neither costs a round trip
// here: START TRANSACTION and the SAVEPOINTs go ahead of the first
// command sent on the connection.
//
// For an extra slot (spec.Slot > 0) that means, on its first use in a
// transaction: the primary connection's transaction is opened if it is
// not yet, the primary exports its snapshot (once per transaction), and
// the extra connection's transaction starts with that snapshot, so that
// all slots of a Key see the same data. An extra slot reaches the server
// the way the primary did, even when spec's options changed within the
// transaction (the snapshot exists only there); it is then invalidated
// like the primary. Extra slots read: once the transaction wrote through
// the primary, asking for an extra slot gives the primary, whose
// snapshot includes the writes.
//
// A cached connection found broken, or whose connection options changed,
// is replaced when no remote transaction is open on it. Inside the
// transaction, a broken connection (or one whose state a failed command
// left unknown) is 08006 "connection to server was lost": reconnecting
// would change the snapshot and lose the writes. Changed options take
// effect from the next transaction.
func (m *Manager) Conn(ctx context.Context, spec ConnSpec) (*Conn, error) {
	if ctx.Err() != nil {
		return nil, contextError(ctx)
	}
	if spec.Slot < 0 {
		return nil, pgerr.Internal("remote: connection slot %d is negative", spec.Slot)
	}
	if spec.Slot > 0 {
		primarySpec := spec
		primarySpec.Slot = 0
		if p := m.conns[keyOf(primarySpec)]; p != nil && p.xact && p.wrote {
			return m.Conn(ctx, primarySpec)
		}
	}
	if c := m.conns[keyOf(spec)]; c != nil && c.xact {
		// Statements call Conn again for each scan, while other scans of
		// the statement may be fetching on c in goroutines of their own.
		if c.changing || c.brokenUnlessBusy() {
			return nil, lostError(spec.Server)
		}
		if !sameConnOptions(c.spec, spec) {
			c.invalidated = true
		}
		m.addSavepoints(c)
		return c, nil
	}
	if spec.Slot == 0 {
		return m.join(ctx, spec, m.startCommand())
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
	c, err := m.join(ctx, want, m.startCommand(), importSQL(id))
	if err != nil {
		return nil, err
	}
	if !sameConnOptions(want, spec) {
		c.invalidated = true
	}
	return c, nil
}

// join enlists spec's connection, not in the transaction yet, with start
// as its pending first commands; it connects first when needed.
func (m *Manager) join(ctx context.Context, spec ConnSpec, start ...string) (*Conn, error) {
	c := m.conns[keyOf(spec)]
	if c != nil && (c.broken() || closedByServer(c.pg.Conn()) || !sameConnOptions(c.spec, spec)) {
		// Gone while idle (the server restarted, the backend was
		// terminated): nothing is lost by reconnecting before the
		// transaction's first command.
		m.drop(c)
		c = nil
	}
	if c != nil {
		c.reused = true
	} else {
		var err error
		if c, err = m.open(ctx, spec); err != nil {
			return nil, err
		}
	}
	c.xact, c.started, c.changing, c.wrote, c.xid = true, false, false, false, ""
	c.xactID++
	c.depth = 0
	c.parallel = parallelOptions(spec.Options)
	c.pending = append(c.pending[:0], start...)
	c.startPending = true
	m.addSavepoints(c)
	m.inXact = append(m.inXact, c)
	return c, nil
}

// addSavepoints queues a savepoint on c for each local subtransaction
// level it has none for yet (postgres_fdw's s2, s3 ... for levels 1, 2
// ...), so that rolling a level back locally can roll it back remotely.
func (m *Manager) addSavepoints(c *Conn) {
	for c.depth < m.depth {
		c.depth++
		c.pending = append(c.pending, savepointSQL(c.depth))
	}
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
	rows, err := c.queryLocked(ctx, exportSQL)
	if err != nil {
		return "", err
	}
	if len(rows) != 1 || len(rows[0]) != 1 || rows[0][0] == nil {
		return "", pgerr.Internal("remote: unexpected result of %s on server %q", exportSQL, c.spec.Server)
	}
	id := *rows[0][0]
	// The id goes into a literal; PostgreSQL's are hex digits and dashes
	// ("00000003-0000001B-1"), anything else is not taken on trust.
	if id == "" || strings.Trim(id, "0123456789ABCDEFabcdef-") != "" {
		return "", pgerr.Internal("remote: unexpected snapshot id %q from server %q", id, c.spec.Server)
	}
	return id, nil
}

// importSQL gives an extra slot's remote transaction the snapshot id.
// SET TRANSACTION SNAPSHOT must come before any query of the
// transaction: it follows the START in the pending commands.
func importSQL(id string) string {
	return "SET TRANSACTION SNAPSHOT '" + id + "'"
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
			RoundTrips: c.roundTrips.Load(),
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
