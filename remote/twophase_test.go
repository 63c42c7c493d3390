package remote

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pgfed/pgfed/pgerr"
)

// twoPhaseManager is a manager with pgfed.two_phase_commit on, whose
// WARNINGs the test sees.
func twoPhaseManager(t *testing.T) (*Manager, *[]*pgerr.Error) {
	var warnings []*pgerr.Error
	m := NewManager(ManagerConfig{TwoPhase: func() bool { return true }, Notice: func(e *pgerr.Error) { warnings = append(warnings, e) }})
	t.Cleanup(func() { _ = m.Close() })
	return m, &warnings
}

func (db *testDB) prepared(t *testing.T) []string {
	t.Helper()
	var out []string
	rows, err := db.admin.Query(context.Background(), "SELECT gid FROM pg_prepared_xacts WHERE database = current_database() ORDER BY gid")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var gid string
		if err := rows.Scan(&gid); err != nil {
			t.Fatal(err)
		}
		out = append(out, gid)
	}
	return out
}

// Two written servers: b prepares, a (the decision server) commits,
// then b commits prepared; the GID names a's transaction.
func TestTwoPhaseCommit(t *testing.T) {
	a, b := twoServers(t, nil)
	m, warnings := twoPhaseManager(t)
	ctx := context.Background()
	ca := a.write(t, m, "INSERT INTO public.t VALUES (1)")
	cb := b.write(t, m, "INSERT INTO public.t VALUES (2)")
	xid := ca.xid
	if xid == "" || cb.xid == "" {
		t.Fatalf("transaction ids not learnt: %q %q", ca.xid, cb.xid)
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	if got := a.rows(t) + " " + b.rows(t); got != "1 2" {
		t.Errorf("rows %q", got)
	}
	logB := b.remoteLog(t, cb.pg.PID())
	var prepare, commitPrepared string
	for _, s := range logB {
		if strings.HasPrefix(s, "PREPARE TRANSACTION") {
			prepare = s
		}
		if strings.HasPrefix(s, "COMMIT PREPARED") {
			commitPrepared = s
		}
	}
	gid := strings.TrimSuffix(strings.TrimPrefix(prepare, "PREPARE TRANSACTION '"), "'")
	if _, gotXid, server, ok := parseGID(gid); !ok || gotXid != xid || server != "a" {
		t.Errorf("GID %q (from %q): want a's transaction %s on server a", gid, prepare, xid)
	}
	if commitPrepared != "COMMIT PREPARED '"+gid+"'" {
		t.Errorf("COMMIT PREPARED: %q", commitPrepared)
	}
	if logA := a.remoteLog(t, ca.pg.PID()); logA[len(logA)-1] != commitSQL {
		t.Errorf("the decision server's last command: %q", logA[len(logA)-1])
	}
	if len(*warnings) != 0 || len(b.prepared(t)) != 0 {
		t.Errorf("warnings %v, prepared left %v", *warnings, b.prepared(t))
	}

	// One written server (the other only read): one-phase.
	a.write(t, m, "INSERT INTO public.t VALUES (3)")
	b.conn(t, m)
	queryText(t, b.conn(t, m), "SELECT 1")
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatal(err)
	}
	for _, s := range b.remoteLog(t, cb.pg.PID())[len(logB):] {
		if strings.Contains(s, "PREPARE") {
			t.Errorf("a reader prepared: %q", s)
		}
	}
}

// A server that cannot prepare rolls every server back.
func TestTwoPhasePrepareFails(t *testing.T) {
	a, b := twoServers(t, nil)
	m, _ := twoPhaseManager(t)
	a.write(t, m, "INSERT INTO public.t VALUES (1)")
	b.write(t, m, "INSERT INTO public.t VALUES (2)")
	// PostgreSQL refuses to prepare a transaction that used a temporary table.
	b.write(t, m, "CREATE TEMP TABLE tmp (x int)")
	err := m.EndTransaction(context.Background(), true)
	pe := wantError(t, err, pgerr.FeatureNotSupported, "temporary objects")
	if !strings.Contains(pe.Detail, `rolled back on servers "a", "b"`) {
		t.Errorf("detail %q", pe.Detail)
	}
	if got := a.rows(t) + " " + b.rows(t); got != " " {
		t.Errorf("rows %q", got)
	}
	if p := b.prepared(t); len(p) != 0 {
		t.Errorf("prepared left: %v", p)
	}
}

// A decision server that refuses to commit rolls the prepared ones back.
func TestTwoPhaseDecisionFails(t *testing.T) {
	a, b := twoServers(t, nil)
	a.exec(t, "ALTER TABLE t ADD CONSTRAINT u UNIQUE (a) DEFERRABLE INITIALLY DEFERRED")
	a.exec(t, "INSERT INTO t VALUES (1)")
	m, _ := twoPhaseManager(t)
	a.write(t, m, "INSERT INTO public.t VALUES (1)")
	b.write(t, m, "INSERT INTO public.t VALUES (2)")
	wantError(t, m.EndTransaction(context.Background(), true), "23505", "duplicate key")
	if got := a.rows(t) + " " + b.rows(t); got != "1 " {
		t.Errorf("rows %q", got)
	}
	if p := b.prepared(t); len(p) != 0 {
		t.Errorf("prepared left: %v", p)
	}
}

// A prepared server lost after the decision stays in doubt, with a
// WARNING; resolving asks the decision server, which committed.
func TestTwoPhaseInDoubtCommitted(t *testing.T) {
	a, b := twoServers(t, nil)
	m, warnings := twoPhaseManager(t)
	ctx := context.Background()
	a.write(t, m, "INSERT INTO public.t VALUES (1)")
	cb := b.write(t, m, "INSERT INTO public.t VALUES (2)")
	m.Trace = func(step string) {
		if step == "done a: "+commitSQL {
			b.terminate(t, cb.pg.PID())
		}
	}
	if err := m.EndTransaction(ctx, true); err != nil {
		t.Fatalf("the decision committed, yet: %v", err)
	}
	m.Trace = nil
	if len(*warnings) != 1 || !strings.Contains((*warnings)[0].Message, "is in doubt") {
		t.Fatalf("warnings %v", *warnings)
	}
	gids := b.prepared(t)
	if len(gids) != 1 || b.rows(t) != "" {
		t.Fatalf("prepared %v, rows %q", gids, b.rows(t))
	}
	specs := map[string]ConnSpec{"a": a.spec, "b": b.spec}
	decide := func(name string) (ConnSpec, bool) { s, ok := specs[name]; return s, ok }
	listed, err := Resolve(ctx, b.spec, decide, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []PreparedXact{{GID: gids[0], DecisionServer: "a", Decision: "committed", Action: "none"}}
	if diff := cmp.Diff(want, listed); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
	resolved, err := Resolve(ctx, b.spec, decide, true)
	if err != nil {
		t.Fatal(err)
	}
	want[0].Action = "committed"
	if diff := cmp.Diff(want, resolved); diff != "" {
		t.Errorf("resolved (-want +got):\n%s", diff)
	}
	if got := a.rows(t) + " " + b.rows(t); got != "1 2" || len(b.prepared(t)) != 0 {
		t.Errorf("after resolving: rows %q, prepared %v", got, b.prepared(t))
	}
}

// The decision server lost before it committed: the prepared one is in
// doubt until resolved, and resolving rolls it back (the decision
// server's transaction aborted).
func TestTwoPhaseInDoubtAborted(t *testing.T) {
	a, b := twoServers(t, nil)
	m, _ := twoPhaseManager(t)
	ctx := context.Background()
	ca := a.write(t, m, "INSERT INTO public.t VALUES (1)")
	b.write(t, m, "INSERT INTO public.t VALUES (2)")
	m.Trace = func(step string) {
		if strings.HasPrefix(step, "done b: PREPARE TRANSACTION") {
			a.terminate(t, ca.pg.PID())
		}
	}
	err := m.EndTransaction(ctx, true)
	m.Trace = nil
	pe, ok := pgerr.As(err)
	if !ok || !strings.Contains(pe.Detail, "in doubt") {
		t.Fatalf("error %v (detail %q)", err, pe.Detail)
	}
	decide := func(name string) (ConnSpec, bool) { return a.spec, name == "a" }
	resolved, err := Resolve(ctx, b.spec, decide, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(resolved) != 1 || resolved[0].Decision != "aborted" || resolved[0].Action != "rolled back" {
		t.Fatalf("resolved %+v", resolved)
	}
	if got := a.rows(t) + " " + b.rows(t); got != " " || len(b.prepared(t)) != 0 {
		t.Errorf("after resolving: rows %q, prepared %v", got, b.prepared(t))
	}
}
