package remote

import (
	"context"
	"maps"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgfed/pgfed/pgerr"
)

// Conn is one remote connection. Its commands run one at a time: a second
// goroutine using the same Conn waits for the first.
type Conn struct {
	m    *Manager
	spec ConnSpec // as connected; a spec with other connection options invalidates it
	pg   *pgconn.PgConn
	user string // the role it logged in as

	// busy holds a token while a command runs, which lets the end of a
	// transaction find a command still in flight (a fetch running in
	// another goroutine) and cancel it.
	busy chan struct{}

	// The remote transaction (xact.go). Only the Manager's goroutine
	// changes these, with busy held, so commands of other goroutines read
	// them with busy held.
	//
	// xact is set while the local transaction uses the connection;
	// xactID counts such transactions, so that a cursor can tell whether
	// the one it was declared in is still current. started is set once
	// the remote START has run (until then it is pending). depth is the
	// local subtransaction level the connection has savepoints for
	// (created or pending). pending are commands to send ahead of the
	// next one (see request.go); startPending says the remote START is
	// among them. changing is set when a command changing the remote
	// transaction's state failed or was interrupted: its state is
	// unknown, the rest of the local transaction gets "connection lost",
	// and the connection is closed at its end. wrote is set once the
	// transaction wrote on the connection.
	xact         bool
	xactID       uint64
	started      bool
	depth        int
	pending      []string
	startPending bool
	changing     bool
	wrote        bool
	// xid is the remote transaction's id, once a write under
	// pgfed.two_phase_commit asked for it.
	xid string
	// reused is set when the connection served an earlier transaction
	// (it may have died while idle).
	reused bool
	// invalidated is set when the connection options changed while a
	// transaction was open; the connection is closed when it ends. Only
	// the Manager's goroutine uses it.
	invalidated bool
	// parallel are the transaction's parallel_commit and parallel_abort.
	parallel parallelEnd
	// roundTrips counts the requests sent (each waits for one answer).
	roundTrips atomic.Int64

	// fetchStmts names the prepared statements of FETCH commands and of
	// writes by their text (see FetchTogether, ExecAll); stmtSeq numbers
	// them. Used with busy held.
	fetchStmts map[string]string
	stmtSeq    int
}

// maxFetchStatements bounds the statements a connection keeps prepared;
// more distinct ones (hundreds of cursors in one statement, or many fetch
// sizes) are parsed each time.
const maxFetchStatements = 256

// fetchStatement returns the prepared statement to run the FETCH sql
// with, and whether it is new (to be prepared first). The unnamed
// statement, prepared every time, serves when the cache is full.
func (c *Conn) fetchStatement(sql string) (name string, fresh bool) {
	return c.preparedStatement(sql, "pgfed_fetch_")
}

func (c *Conn) preparedStatement(sql, prefix string) (name string, fresh bool) {
	if name, ok := c.fetchStmts[sql]; ok {
		return name, false
	}
	if len(c.fetchStmts) >= maxFetchStatements {
		return "", true
	}
	if c.fetchStmts == nil {
		c.fetchStmts = map[string]string{}
	}
	c.stmtSeq++
	name = prefix + strconv.Itoa(c.stmtSeq)
	c.fetchStmts[sql] = name
	return name, true
}

// sessionSettings make deparsed literals and text output mean the same
// remotely as locally, whatever the remote role's or database's defaults
// are (postgres_fdw's configure_remote_session). They go in the startup
// message, which costs no round trip, where postgres_fdw sends five SETs.
var sessionSettings = map[string]string{
	"search_path":        "pg_catalog",
	"timezone":           "UTC",
	"datestyle":          "ISO",
	"intervalstyle":      "postgres",
	"extra_float_digits": "3",
}

// closeTimeout bounds the goodbye message of a connection being closed.
const closeTimeout = 5 * time.Second

// connect opens a connection for spec.
func connect(ctx context.Context, m *Manager, spec ConnSpec) (*Conn, error) {
	pg, user, err := dial(ctx, spec)
	if err != nil {
		return nil, err
	}
	// The spec is kept to compare with later ones, so it must not change
	// under us with a caller's map.
	spec.Options, spec.User = maps.Clone(spec.Options), maps.Clone(spec.User)
	return &Conn{m: m, spec: spec, pg: pg, user: user, busy: make(chan struct{}, 1)}, nil
}

// dial connects and logs in as spec says. A server that cannot be
// reached or refuses the login is 08001.
func dial(ctx context.Context, spec ConnSpec) (*pgconn.PgConn, string, error) {
	cfg, err := connConfig(spec)
	if err != nil {
		return nil, "", connectError(spec.Server, err)
	}
	for k, v := range sessionSettings {
		cfg.RuntimeParams[k] = v
	}
	pg, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", contextError(ctx)
		}
		return nil, "", connectError(spec.Server, err)
	}
	return pg, cfg.User, nil
}

// reconnect replaces c's dead connection by a new one, busy held.
func (c *Conn) reconnect(ctx context.Context) error {
	pg, user, err := dial(ctx, c.spec)
	if err != nil {
		return err
	}
	c.closeIdle()
	c.pg, c.user, c.reused = pg, user, false
	c.fetchStmts, c.stmtSeq = nil, 0
	return nil
}

// acquire waits until no other command runs on c.
func (c *Conn) acquire(ctx context.Context) error {
	select {
	case c.busy <- struct{}{}:
		return nil
	default:
	}
	select {
	case c.busy <- struct{}{}:
		return nil
	case <-ctx.Done():
		return contextError(ctx)
	}
}

func (c *Conn) release() { <-c.busy }

// broken reports whether the connection failed (network error, FATAL
// error, forced close); pgx closes a connection in any such case. pgx
// does not synchronize the state it reads, which its commands change, so
// broken needs busy held, or a connection no command can be running on.
func (c *Conn) broken() bool { return c.pg.IsClosed() }

// brokenUnlessBusy is broken for a connection that a command may be
// running on in another goroutine (a scan fetching asynchronously). It
// does not wait for that command: while one runs, the connection counts
// as working, and the command itself reports it if not.
func (c *Conn) brokenUnlessBusy() bool {
	select {
	case c.busy <- struct{}{}:
		defer c.release()
		return c.broken()
	default:
		return false
	}
}

// closeIdle closes the connection, saying goodbye to the server; no
// command may be running.
func (c *Conn) closeIdle() {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	_ = c.pg.Close(ctx)
}

// closeAnyway closes the connection, also when a command is running in
// another goroutine: closing the socket under that command makes it fail
// at once with a network error.
func (c *Conn) closeAnyway() {
	select {
	case c.busy <- struct{}{}:
		c.closeIdle()
		c.release()
	default:
		_ = c.pg.Conn().Close()
	}
}

// checkInXact is the precondition of the commands run for a statement:
// the connection works and its remote transaction is the one the
// statement opened.
func (c *Conn) checkInXact() error {
	if c.broken() {
		return lostError(c.spec.Server)
	}
	if !c.xact {
		return pgerr.Internal("remote connection to server %q used outside its transaction", c.spec.Server)
	}
	if c.changing {
		return lostError(c.spec.Server)
	}
	return nil
}

// QueryText runs a query and returns its rows as text values (nil =
// NULL), for catalog lookups such as IMPORT FOREIGN SCHEMA. args are the
// values of $1, $2 ... (nil, string, []byte, bool, integers or float64),
// sent as text for the server to type.
func (c *Conn) QueryText(ctx context.Context, sql string, args ...any) ([][]*string, error) {
	params, err := textParams(args)
	if err != nil {
		return nil, err
	}
	if err := c.acquire(ctx); err != nil {
		return nil, err
	}
	defer c.release()
	if err := c.checkInXact(); err != nil {
		return nil, err
	}
	return c.queryLocked(ctx, sql, params...)
}

// queryLocked runs a query with busy held, returning its rows as text.
func (c *Conn) queryLocked(ctx context.Context, sql string, params ...[]byte) ([][]*string, error) {
	var rows [][]*string
	err := c.roundTrip(ctx, func(p *pgconn.Pipeline) {
		p.SendQueryParams(sql, params, nil, nil, nil)
	}, func(p *pgconn.Pipeline) error {
		res, err := p.GetResults()
		if err != nil {
			return commandError(ctx, err, c.spec.Server, sql)
		}
		rr, ok := res.(*pgconn.ResultReader)
		if !ok {
			return pgerr.Internal("remote: pipeline gave %T for a query", res)
		}
		rows = textRows(rr)
		if _, err := rr.Close(); err != nil {
			return commandError(ctx, err, c.spec.Server, sql)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// textRows reads a result's rows as text values.
func textRows(rr *pgconn.ResultReader) [][]*string {
	var rows [][]*string
	for rr.NextRow() {
		vals := rr.Values()
		row := make([]*string, len(vals))
		texts := make([]string, len(vals))
		for i, v := range vals {
			if v != nil {
				texts[i] = string(v)
				row[i] = &texts[i]
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// textParams renders query arguments in PostgreSQL's text input format.
func textParams(args []any) ([][]byte, error) {
	if len(args) == 0 {
		return nil, nil
	}
	out := make([][]byte, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case nil:
		case string:
			out[i] = []byte(v)
		case []byte:
			out[i] = v
		case bool:
			out[i] = strconv.AppendBool(nil, v)
		case int:
			out[i] = strconv.AppendInt(nil, int64(v), 10)
		case int32:
			out[i] = strconv.AppendInt(nil, int64(v), 10)
		case int64:
			out[i] = strconv.AppendInt(nil, v, 10)
		case uint32:
			out[i] = strconv.AppendUint(nil, uint64(v), 10)
		case float64:
			out[i] = strconv.AppendFloat(nil, v, 'g', -1, 64)
		default:
			return nil, pgerr.Internal("remote: unsupported query argument type %T", a)
		}
	}
	return out, nil
}
