package remote

// Atomic commit across servers (pgfed.two_phase_commit), which
// postgres_fdw does not have. When two or more servers wrote in the
// transaction, the first of them is the decision server D:
//
//  1. every other written server runs PREPARE TRANSACTION, all at once;
//  2. D commits one-phase: its commit is the decision (D's transaction
//     id is in every GID, so its fate can be looked up later);
//  3. every prepared server runs COMMIT PREPARED, all at once.
//
// A failure before D's commit rolls everything back; a failure after it
// leaves a prepared transaction in doubt, which a WARNING names and
// Resolve (pgfed_resolve_prepared) commits later, after asking D with
// pg_xact_status whether the decision was to commit. That holds across a
// crash of pgfed too, since the decision is durable on D; what pgfed's
// own tables wrote is not durable (pgfed keeps them in memory). The
// servers that only read commit one-phase; at most one written server
// commits one-phase, without PREPARE.
//
// GIDs: "pgfed:<transaction>:<D's transaction id>:<D's server name>",
// with a random transaction number, so that pgfed's prepared
// transactions can be told from others' and resolved from any session.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/pgfed/pgfed/pgerr"
)

const gidPrefix = "pgfed:"

func makeGID(txn, xid, server string) string {
	return gidPrefix + txn + ":" + xid + ":" + server
}

// parseGID splits a pgfed GID; ok is false for anyone else's.
func parseGID(gid string) (txn, xid, server string, ok bool) {
	rest, found := strings.CutPrefix(gid, gidPrefix)
	if !found {
		return "", "", "", false
	}
	parts := strings.SplitN(rest, ":", 3)
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

func newTransactionNumber() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// commitTwoPhase commits used atomically when two or more of them wrote,
// and one-phase otherwise.
func (m *Manager) commitTwoPhase(ctx context.Context, used []*Conn) error {
	var written, readers []*Conn
	for _, c := range used {
		if c.wrote && c.started {
			written = append(written, c)
		} else {
			readers = append(readers, c)
		}
	}
	if len(written) < 2 {
		return m.commitOnePhase(ctx, used)
	}
	// The readers' outcome does not matter: they end first, at once.
	m.abortAll(ctx, readers)
	for i, c := range written {
		if err := m.takeForPrepare(ctx, c); err != nil {
			for _, held := range written[:i] {
				m.abortHeld(ctx, held)
			}
			for _, rest := range written[i+1:] {
				m.abortOne(ctx, rest, nil)
			}
			return err
		}
	}
	d, others := written[0], written[1:]
	if d.xid == "" {
		rows, err := d.queryLocked(ctx, xidSQL)
		if err != nil || len(rows) != 1 || rows[0][0] == nil {
			m.abortHeldAll(ctx, written)
			return cmpErr(err, pgerr.Internal("remote: no transaction id from server %q", d.spec.Server))
		}
		d.xid = *rows[0][0]
	}
	gid := makeGID(newTransactionNumber(), d.xid, d.spec.Server)
	prepared, err := m.prepareAll(ctx, others, gid)
	if err != nil {
		m.finishAbort(m.sendEnd(ctx, d, true, abortSQL))
		m.endPrepared(ctx, prepared, "ROLLBACK PREPARED", gid)
		return withOutcome(err, outcome{rolledBack: serverNames(written)})
	}
	// The decision.
	if err := m.finishEnd(m.sendEnd(ctx, d, false, commitSQL)); err != nil {
		if !d.broken() && d.pg.TxStatus() == 'I' && pgerr.Code(err) != pgerr.QueryCanceled {
			m.endHeld(d)
			m.endPrepared(ctx, prepared, "ROLLBACK PREPARED", gid)
			return withOutcome(err, outcome{rolledBack: serverNames(written)})
		}
		// Cut off during the decision: nobody knows yet.
		d.changing = true
		m.endHeld(d)
		for _, c := range prepared {
			m.endHeld(c)
		}
		e := pgerr.Wrap(err)
		copied := *e
		copied.Detail = joinDetail(e.Detail, "The prepared transactions \""+gid+"\" on servers "+quoteNames(serverNames(others))+
			" are in doubt until pgfed_resolve_prepared() resolves them.")
		return &copied
	}
	m.endHeld(d)
	m.endPrepared(ctx, prepared, "COMMIT PREPARED", gid)
	return nil
}

// takeForPrepare takes c for the commit; it fails (releasing c) when c's
// transaction cannot be committed.
func (m *Manager) takeForPrepare(ctx context.Context, c *Conn) error {
	if err := c.acquire(ctx); err != nil {
		return err
	}
	switch {
	case c.changing || c.broken() || closedByServer(c.pg.Conn()):
		c.changing = true
		m.endHeld(c)
		return lostError(c.spec.Server)
	case ctx.Err() != nil:
		c.release()
		return contextError(ctx)
	case c.pg.TxStatus() == 'E':
		c.release()
		return pgerr.New(pgerr.InFailedSQLTransaction,
			"could not commit the remote transaction on server \"%s\" because it was aborted", c.spec.Server)
	}
	c.pending, c.startPending = nil, false
	return nil
}

// prepareAll runs PREPARE TRANSACTION on every conn at once, busy held;
// it returns the ones that prepared and the first failure. The ones that
// failed are ended (a failed PREPARE rolls back).
func (m *Manager) prepareAll(ctx context.Context, conns []*Conn, gid string) ([]*Conn, error) {
	trips := make([]*trip, len(conns))
	for i, c := range conns {
		trips[i] = m.sendEnd(ctx, c, false, "PREPARE TRANSACTION "+QuoteLiteral(gid))
	}
	var prepared []*Conn
	var first error
	for _, t := range trips {
		if err := m.finishEnd(t); err != nil {
			if first == nil {
				first = err
			}
			if t.c.pg.TxStatus() != 'I' {
				m.abortHeld(ctx, t.c)
			} else {
				m.endHeld(t.c)
			}
			continue
		}
		prepared = append(prepared, t.c)
	}
	return prepared, first
}

// endPrepared runs COMMIT PREPARED or ROLLBACK PREPARED of gid on every
// conn at once, busy held, and ends them. A failure leaves the prepared
// transaction in doubt: a WARNING says so.
func (m *Manager) endPrepared(ctx context.Context, conns []*Conn, command, gid string) {
	sql := command + " " + QuoteLiteral(gid)
	trips := make([]*trip, len(conns))
	for i, c := range conns {
		trips[i] = m.sendEnd(ctx, c, true, sql)
	}
	for _, t := range trips {
		if err := m.finishEnd(t); err != nil {
			t.c.changing = true
			m.warn(pgerr.New(pgerr.ConnectionFailure, "prepared transaction \"%s\" on server \"%s\" is in doubt", gid, t.c.spec.Server).
				WithDetail("%s failed: %s", command, pgerr.Wrap(err).Message).
				WithHint("Run SELECT * FROM pgfed_resolve_prepared('%s') once the server is back.", t.c.spec.Server))
		}
		m.endHeld(t.c)
	}
}

func (m *Manager) abortHeldAll(ctx context.Context, conns []*Conn) {
	for _, c := range conns {
		m.abortHeld(ctx, c)
	}
}

func (m *Manager) warn(e *pgerr.Error) {
	if m.cfg.Notice != nil {
		e.Severity = "WARNING"
		m.cfg.Notice(e)
	}
}

func cmpErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

// withOutcome adds the commit's outcome to err's DETAIL.
func withOutcome(err error, out outcome) error {
	e := pgerr.Wrap(err)
	copied := *e
	copied.Detail = joinDetail(e.Detail, out.detail())
	return &copied
}

func serverNames(conns []*Conn) []string {
	var names []string
	for _, c := range conns {
		if !slices.Contains(names, c.spec.Server) {
			names = append(names, c.spec.Server)
		}
	}
	return names
}

func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "\"" + n + "\""
	}
	return strings.Join(q, ", ")
}

// PreparedXact is one of pgfed's prepared transactions on a server: its
// GID, its decision server, what the decision server says of the
// decision (committed, aborted, in progress, or unknown), and what
// Resolve did (committed, rolled back, or nothing).
type PreparedXact struct {
	GID, DecisionServer, Decision, Action string
}

// Resolve lists pgfed's prepared transactions in the database spec
// reaches, and with resolve commits those whose decision committed and
// rolls back those whose decision aborted. decision gives the ConnSpec of
// a server by name (false when the catalog has none). It uses
// connections of its own, outside any transaction.
func Resolve(ctx context.Context, spec ConnSpec, decision func(server string) (ConnSpec, bool), resolve bool) ([]PreparedXact, error) {
	c, err := connect(ctx, nil, spec)
	if err != nil {
		return nil, err
	}
	defer c.closeIdle()
	gids, err := c.simpleRows(ctx, "SELECT gid FROM pg_catalog.pg_prepared_xacts WHERE gid LIKE 'pgfed:%' AND database = pg_catalog.current_database() ORDER BY prepared")
	if err != nil {
		return nil, err
	}
	deciders := map[string]*Conn{}
	defer func() {
		for _, d := range deciders {
			d.closeIdle()
		}
	}()
	var out []PreparedXact
	for _, row := range gids {
		gid := *row[0]
		_, xid, server, ok := parseGID(gid)
		if !ok {
			continue
		}
		px := PreparedXact{GID: gid, DecisionServer: server, Decision: "unknown", Action: "none"}
		if d, err := decider(ctx, deciders, server, decision); err == nil {
			px.Decision = xactStatus(ctx, d, xid)
		}
		if resolve {
			switch px.Decision {
			case "committed":
				err = c.simpleExec(ctx, "COMMIT PREPARED "+QuoteLiteral(gid))
				px.Action = "committed"
			case "aborted":
				err = c.simpleExec(ctx, "ROLLBACK PREPARED "+QuoteLiteral(gid))
				px.Action = "rolled back"
			}
			if err != nil {
				return out, err
			}
		}
		out = append(out, px)
	}
	return out, nil
}

// decider returns a connection to the decision server, connecting once.
func decider(ctx context.Context, cache map[string]*Conn, server string, decision func(string) (ConnSpec, bool)) (*Conn, error) {
	if d, ok := cache[server]; ok {
		return d, nil
	}
	spec, ok := decision(server)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", server)
	}
	d, err := connect(ctx, nil, spec)
	if err != nil {
		return nil, err
	}
	cache[server] = d
	return d, nil
}

// xactStatus asks the decision server what became of transaction xid:
// pg_xact_status's committed, aborted or in progress; unknown when it
// cannot tell (too old, or an error).
func xactStatus(ctx context.Context, d *Conn, xid string) string {
	rows, err := d.simpleRows(ctx, "SELECT pg_catalog.pg_xact_status("+QuoteLiteral(xid)+"::pg_catalog.xid8)")
	if err != nil || len(rows) != 1 || rows[0][0] == nil {
		return "unknown"
	}
	return *rows[0][0]
}

// simpleRows and simpleExec run a command outside any transaction, on a
// connection of Resolve's own.
func (c *Conn) simpleRows(ctx context.Context, sql string) ([][]*string, error) {
	rr := c.pg.ExecParams(ctx, sql, nil, nil, nil, nil)
	rows := textRows(rr)
	if _, err := rr.Close(); err != nil {
		return nil, commandError(ctx, err, c.spec.Server, sql)
	}
	return rows, nil
}

func (c *Conn) simpleExec(ctx context.Context, sql string) error {
	_, err := c.simpleRows(ctx, sql)
	return err
}
