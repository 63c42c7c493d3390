package planner

// Writes to foreign tables, planned as postgres_fdw plans them: INSERT
// sends complete rows, batch_size at a time; UPDATE and DELETE are
// shipped whole ("Foreign Update", postgres_fdw's direct modification)
// when the WHERE and the new values can be evaluated remotely, and else
// read the rows to change with SELECT ... FOR UPDATE and change each by
// its remote ctid.

import (
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/remote"
	"github.com/pgfed/pgfed/storage"
)

// maxParams is the most parameters one remote statement may have
// (PostgreSQL's protocol counts them in 16 bits).
const maxParams = 65535

var opVerb = [...]string{nodes.Insert: "inserts", nodes.Update: "updates", nodes.Delete: "deletes"}

// checkUpdatable is postgres_fdw's updatable option (table over server,
// default true): 55000 when t may not be written so.
func (pc *planCtx) checkUpdatable(t *storage.Table, op nodes.ModifyOp) error {
	srv := pc.Catalog.Server(t.Foreign.Server)
	v := t.Foreign.Options["updatable"]
	if v == "" && srv != nil {
		v = srv.Options["updatable"]
	}
	if ok, valid := remote.ParseBool(v); valid && !ok {
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "foreign table \"%s\" does not allow %s", t.Name, opVerb[op])
	}
	return nil
}

// foreignWrite plans how the statement writes rows of foreign table t
// one by one: op's remote SQL, with the table columns returning (for
// RETURNING) and, for an UPDATE, the new values of setCols. A table that
// does not allow op is marked ReadOnly, for the caller to refuse.
func (pc *planCtx) foreignWrite(t *storage.Table, alias string, op nodes.ModifyOp, setCols, returning []int) (*nodes.ForeignWrite, error) {
	srv, key, err := pc.foreignServer(t)
	if err != nil {
		return nil, err
	}
	schema, name := t.RemoteName()
	rel := remote.Relation{Schema: schema, Table: name}
	fw := &nodes.ForeignWrite{Table: t, Alias: alias, Op: op, Returning: returning, Server: srv.Name, MappingKey: key,
		ReadOnly: pc.checkUpdatable(t, op) != nil}
	var ret []string
	for _, c := range returning {
		ret = append(ret, t.RemoteColumn(c))
	}
	switch op {
	case nodes.Insert:
		fw.RemoteSQL = remote.InsertSQL(rel, t.RemoteColumns(), 1, ret)
		fw.BatchSize = pc.batchSize(t, srv, len(returning) > 0)
	case nodes.Update:
		set := make([]string, len(setCols))
		for i, c := range setCols {
			set[i] = t.RemoteColumn(c)
		}
		fw.RemoteSQL = remote.UpdateSQL(rel, set, ret)
	case nodes.Delete:
		fw.RemoteSQL = remote.DeleteSQL(rel, ret)
	}
	return fw, nil
}

// batchSize is postgres_fdw's batch_size (table over server, default 1):
// 1 with RETURNING, and no more rows than fit the parameter limit.
func (pc *planCtx) batchSize(t *storage.Table, srv *storage.Server, returning bool) int {
	if returning {
		return 1
	}
	n := int(intOption(1, t.Foreign.Options["batch_size"], srv.Options["batch_size"]))
	if len(t.Columns) > 0 {
		n = min(n, maxParams/len(t.Columns))
	}
	return max(n, 1)
}

// returningColumns are the table columns m's RETURNING reads, which the
// remote RETURNING must give back.
func returningColumns(m *nodes.ModifyTable) []int {
	used := map[int]bool{}
	for _, e := range m.Returning {
		nodes.WalkExpr(e, func(x nodes.Expr) {
			if c, ok := x.(*nodes.ColumnRef); ok {
				used[c.Index] = true
			}
		})
	}
	var cols []int
	for c := range m.Table.Columns {
		if used[c] {
			cols = append(cols, c)
		}
	}
	return cols
}

// ForeignInserts plans the writes of rows into t's foreign leaves (COPY
// FROM's, which shares INSERT's path).
func (p *Planner) ForeignInserts(t *storage.Table) ([]*nodes.ForeignWrite, error) {
	m := &nodes.ModifyTable{Op: nodes.Insert, Table: t}
	if err := (&planCtx{Planner: p}).planForeignInserts(m); err != nil {
		return nil, err
	}
	return m.Foreign, nil
}

// planForeignInserts gives an INSERT a ForeignWrite for each foreign
// table its rows may go to: the target, or its foreign partitions. A
// partition that does not allow inserts fails only when a row goes there
// (at execution), as in PostgreSQL; the target itself at once.
func (pc *planCtx) planForeignInserts(m *nodes.ModifyTable) error {
	ret := returningColumns(m)
	for _, leaf := range m.Table.Leaves() {
		if leaf.Kind != storage.KindForeign {
			continue
		}
		if leaf == m.Table {
			if err := pc.checkUpdatable(leaf, nodes.Insert); err != nil {
				return err
			}
		}
		fw, err := pc.foreignWrite(leaf, leaf.Name, nodes.Insert, nil, ret)
		if err != nil {
			return err
		}
		m.Foreign = append(m.Foreign, fw)
	}
	return nil
}

// ForeignServer returns the server of foreign table t and the key of the
// session user's mapping for it (for commands that write foreign tables:
// COPY, TRUNCATE).
func (p *Planner) ForeignServer(t *storage.Table) (server, mappingKey string, err error) {
	srv, key, err := (&planCtx{Planner: p}).foreignServer(t)
	if err != nil {
		return "", "", err
	}
	return srv.Name, key, nil
}

// CheckTruncatable is postgres_fdw's truncatable option (table over
// server, default true).
func (p *Planner) CheckTruncatable(t *storage.Table) error {
	v := t.Foreign.Options["truncatable"]
	if srv := p.Catalog.Server(t.Foreign.Server); v == "" && srv != nil {
		v = srv.Options["truncatable"]
	}
	if ok, valid := remote.ParseBool(v); valid && !ok {
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "foreign table \"%s\" does not allow truncates", t.Name)
	}
	return nil
}
