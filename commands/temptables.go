package commands

// Temporary tables, the session's side: its temporary schema (made when
// it creates its first temporary table, dropped with the session, as
// PostgreSQL's namespace.c InitTempTableNamespace and
// RemoveTempRelations) and the ON COMMIT actions of its tables
// (tablecmds.c's register_on_commit_action and
// PreCommit_on_commit_actions).
//
// Protocol: the session makes one TempTables and registers it with its
// transaction after the write set and the DDL log; CREATE TEMP TABLE
// registers the table's action (Register). At every commit, PreCommit
// empties the ON COMMIT DELETE ROWS tables through the write set (the
// emptying is published with the commit's other writes), and Commit drops
// the ON COMMIT DROP tables for good; at abort nothing runs, the DDL log
// having already reverted what the transaction created or dropped. An
// action whose table is no longer in the catalog (dropped, or its
// creation rolled back) is forgotten at the transaction's end. Close
// drops the schema and everything in it.
//
// Parallel scans: PostgreSQL never scans a temporary table in parallel,
// because its pages live in the leader's local buffers, which workers
// cannot see. pgfed's workers are goroutines reading the same Arrow
// batches through the leader's View, so a temporary table is scanned in
// parallel exactly like a permanent one.

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/xact"
)

// OnCommit is what happens to a temporary table when a transaction
// commits (CREATE TEMP TABLE ... ON COMMIT).
type OnCommit uint8

const (
	// PreserveRows keeps the table and its rows (the default).
	PreserveRows OnCommit = iota
	// DeleteRows empties the table at every commit.
	DeleteRows
	// DropTable drops the table at the commit of its transaction.
	DropTable
)

// TempTables is one session's temporary schema and ON COMMIT actions.
type TempTables struct {
	catalog *storage.Catalog
	writes  *storage.WriteSet
	schema  string // "" until the first temporary table
	actions []tempAction
}

type tempAction struct {
	t  *storage.Table
	on OnCommit
}

var _ xact.Callback = (*TempTables)(nil)

// NewTempTables returns a session's temporary tables, whose commits go
// through writes.
func NewTempTables(c *storage.Catalog, writes *storage.WriteSet) *TempTables {
	return &TempTables{catalog: c, writes: writes}
}

// Schema is the session's temporary schema, "" if it has none yet.
func (tt *TempTables) Schema() string {
	if tt == nil {
		return ""
	}
	return tt.schema
}

// ensureSchema returns the session's temporary schema, making it first.
func (tt *TempTables) ensureSchema() string {
	if tt.schema == "" {
		tt.schema = tt.catalog.CreateTempSchema()
	}
	return tt.schema
}

// Register records t's ON COMMIT action (PreserveRows needs none).
func (tt *TempTables) Register(t *storage.Table, on OnCommit) {
	if on != PreserveRows {
		tt.actions = append(tt.actions, tempAction{t: t, on: on})
	}
}

// live reports whether t is still in the catalog.
func (tt *TempTables) live(t *storage.Table) bool {
	return tt.catalog.Lookup(t.Schema, t.Name) == t
}

// OnXact runs the ON COMMIT actions.
func (tt *TempTables) OnXact(ctx context.Context, ev xact.Event) error {
	switch ev {
	case xact.PreCommit:
		return tt.deleteRows(ctx)
	case xact.Commit:
		for _, a := range tt.actions {
			if a.on == DropTable && tt.live(a.t) {
				tt.catalog.DropTable(a.t).Finish()
			}
		}
	}
	kept := tt.actions[:0]
	for _, a := range tt.actions {
		if tt.live(a.t) {
			kept = append(kept, a)
		}
	}
	clear(tt.actions[len(kept):])
	tt.actions = kept
	return nil
}

// deleteRows empties the ON COMMIT DELETE ROWS tables that have rows (or
// writes pending). A partitioned table's own action does not reach its
// partitions, as in PostgreSQL.
func (tt *TempTables) deleteRows(ctx context.Context) error {
	for _, a := range tt.actions {
		t := a.t
		if a.on != DeleteRows || t.Kind != storage.KindTable || !tt.live(t) {
			continue
		}
		if t.Rows() == 0 && !tt.writes.Wrote(t) {
			continue
		}
		// Only this session sees the table: the lock is free.
		if err := tt.writes.Lock(ctx, []*storage.Table{t}, 0); err != nil {
			return err
		}
		tt.writes.Truncate(t)
	}
	return nil
}

// Close drops the session's temporary schema with its tables (the
// session's transaction has ended).
func (tt *TempTables) Close() {
	if tt.schema != "" {
		tt.catalog.DropTempSchema(tt.schema)
		tt.schema = ""
	}
	tt.actions = nil
}

// onCommitOf reads a CREATE statement's ON COMMIT clause: only temporary
// tables may have one (42P16, DefineRelation's check).
func onCommitOf(oc pg.OnCommitAction, temp bool) (OnCommit, error) {
	var on OnCommit
	switch oc {
	case pg.OnCommitAction_ONCOMMIT_DELETE_ROWS:
		on = DeleteRows
	case pg.OnCommitAction_ONCOMMIT_DROP:
		on = DropTable
	case pg.OnCommitAction_ONCOMMIT_PRESERVE_ROWS:
	default:
		return PreserveRows, nil
	}
	if !temp {
		return 0, pgerr.New(pgerr.InvalidTableDefinition, "ON COMMIT can only be used on temporary tables")
	}
	return on, nil
}
