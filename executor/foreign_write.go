package executor

// foreignWriter writes the rows a statement changes in one foreign table
// (postgres_fdw's ForeignModify): INSERTs of BatchSize rows each, UPDATEs
// and DELETEs of one row each, found by its remote ctid. Beyond
// postgres_fdw, the commands are not sent one round trip each: they are
// buffered and sent in pipelines of about pipelineRows rows (one round
// trip, one Sync), which the server runs in order, stopping at the first
// error, exactly as if they had been sent one by one. Values go as text
// parameters, typed by the server from the statement.
//
// The rows changed count only when the server says so (a remote trigger
// may skip a row); the RETURNING rows are those the remote RETURNING gave
// back, as full rows of the table.

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/remote"
	"github.com/pgfed/pgfed/types"
)

// pipelineRows and pipelineBytes bound what a writer buffers before
// sending, also within one incoming batch: one round trip per so many
// rows or parameter bytes, whichever comes first.
const (
	pipelineRows  = 4096
	pipelineBytes = 1 << 20
)

type foreignWriter struct {
	plan *nodes.ForeignWrite
	ec   *ExecContext
	conn *remote.Conn
	cols []types.T

	// INSERT: buffered rows, as their parameters; UPDATE and DELETE:
	// buffered commands.
	rows    [][][]byte
	cmds    []remote.Command
	bytes   int
	sqlByN  map[int]string // INSERT text by rows per statement
	rel     remote.Relation
	retCols []string

	// returned receives the remote RETURNING rows (full rows of the
	// table); affected the rows the server changed.
	returned func(arrow.RecordBatch) error
	affected func(int64)
}

func newForeignWriter(p *nodes.ForeignWrite, ec *ExecContext, returned func(arrow.RecordBatch) error, affected func(int64)) *foreignWriter {
	w := &foreignWriter{plan: p, ec: ec, returned: returned, affected: affected, sqlByN: map[int]string{}}
	for _, c := range p.Table.Columns {
		w.cols = append(w.cols, c.Type)
	}
	schema, name := p.Table.RemoteName()
	w.rel = remote.Relation{Schema: schema, Table: name}
	for _, c := range p.Returning {
		w.retCols = append(w.retCols, p.Table.RemoteColumn(c))
	}
	return w
}

// refuse is the error of a write the table's updatable option forbids.
func (w *foreignWriter) refuse() error {
	verb := [...]string{nodes.Insert: "inserts", nodes.Update: "updates", nodes.Delete: "deletes"}[w.plan.Op]
	return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "foreign table \"%s\" does not allow %s", w.plan.Table.Name, verb)
}

// insert buffers the rows of b (complete rows of the table).
func (w *foreignWriter) insert(ctx context.Context, b arrow.RecordBatch) error {
	if w.plan.ReadOnly {
		return w.refuse()
	}
	n := int(b.NumRows())
	for r := 0; r < n; r++ {
		row := make([][]byte, len(w.cols))
		for c, t := range w.cols {
			row[c] = w.param(b.Column(c), t, r)
		}
		w.rows = append(w.rows, row)
		if err := w.maybeFlush(ctx); err != nil {
			return err
		}
	}
	return nil
}

// param renders value r of a as a text parameter (nil = NULL).
func (w *foreignWriter) param(a arrow.Array, t types.T, r int) []byte {
	d := types.DatumAt(a, t, r)
	if d == nil {
		return nil
	}
	s := types.Format(t, d)
	w.bytes += len(s)
	return []byte(s)
}

// update buffers the UPDATE of the rows whose remote ctids are ctids;
// values holds their new values of the SET columns, row i of them at
// row from+i.
func (w *foreignWriter) update(ctx context.Context, ctids []int64, values arrow.RecordBatch, setTypes []types.T, from int) error {
	if w.plan.ReadOnly {
		return w.refuse()
	}
	for i, ctid := range ctids {
		params := make([][]byte, 1, len(setTypes)+1)
		params[0] = []byte(remote.TidText(ctid))
		for c, t := range setTypes {
			params = append(params, w.param(values.Column(c), t, from+i))
		}
		w.cmds = append(w.cmds, remote.Command{SQL: w.plan.RemoteSQL, Params: params, Prepare: true})
		if err := w.maybeFlush(ctx); err != nil {
			return err
		}
	}
	return nil
}

// remove buffers the DELETE of the rows whose remote ctids are ctids.
func (w *foreignWriter) remove(ctx context.Context, ctids []int64) error {
	if w.plan.ReadOnly {
		return w.refuse()
	}
	for _, ctid := range ctids {
		w.cmds = append(w.cmds, remote.Command{SQL: w.plan.RemoteSQL, Params: [][]byte{[]byte(remote.TidText(ctid))}, Prepare: true})
		if err := w.maybeFlush(ctx); err != nil {
			return err
		}
	}
	return nil
}

// maybeFlush sends what is buffered once it reaches a pipeline's bound.
func (w *foreignWriter) maybeFlush(ctx context.Context) error {
	if len(w.rows)+len(w.cmds) >= max(pipelineRows, w.plan.BatchSize) || w.bytes >= pipelineBytes {
		return w.send(ctx, false)
	}
	return nil
}

// flush sends everything buffered, in one round trip.
func (w *foreignWriter) flush(ctx context.Context) error { return w.send(ctx, true) }

// send sends the buffered commands and INSERTs of BatchSize rows (with
// all, the rest too, in a shorter INSERT), in one round trip.
func (w *foreignWriter) send(ctx context.Context, all bool) error {
	cmds := w.cmds
	k := max(w.plan.BatchSize, 1)
	rows := w.rows
	for len(rows) >= k || all && len(rows) > 0 {
		n := min(k, len(rows))
		var params [][]byte
		for _, row := range rows[:n] {
			params = append(params, row...)
		}
		cmds = append(cmds, remote.Command{SQL: w.insertSQL(n), Params: params, Prepare: true})
		rows = rows[n:]
	}
	w.rows, w.cmds, w.bytes = append(w.rows[:0], rows...), nil, 0
	for _, row := range w.rows {
		for _, p := range row {
			w.bytes += len(p)
		}
	}
	if len(cmds) == 0 {
		return nil
	}
	if w.conn == nil {
		if w.ec.Remote == nil {
			return pgerr.Internal("foreign write without a remote connector")
		}
		c, err := w.ec.Remote.Conn(ctx, w.plan.Server, w.plan.MappingKey, 0)
		if err != nil {
			return err
		}
		w.conn = c
	}
	returned, affected, err := w.conn.ExecAll(ctx, cmds)
	if err != nil {
		return err
	}
	w.affected(affected)
	if len(returned) == 0 || w.returned == nil {
		return nil
	}
	b, err := returnedRows(w.plan.Table.ArrowSchema(), w.cols, w.plan.Returning, returned)
	if err != nil {
		return err
	}
	defer b.Release()
	return w.returned(b)
}

// insertSQL is the INSERT of n rows.
func (w *foreignWriter) insertSQL(n int) string {
	if n == 1 {
		return w.plan.RemoteSQL
	}
	sql, ok := w.sqlByN[n]
	if !ok {
		sql = remote.InsertSQL(w.rel, w.plan.Table.RemoteColumns(), n, w.retCols)
		w.sqlByN[n] = sql
	}
	return sql
}

// returnedRows makes full rows of a table (schema, column types cols)
// from the text rows of a remote RETURNING that gave the columns
// returning; the other columns are NULL.
func returnedRows(schema *arrow.Schema, cols []types.T, returning []int, rows [][]*string) (arrow.RecordBatch, error) {
	datums := make([][]any, len(cols))
	for i := range datums {
		datums[i] = make([]any, len(rows))
	}
	for r, row := range rows {
		if len(row) != len(returning) {
			return nil, pgerr.Internal("remote RETURNING gave %d columns, want %d", len(row), len(returning))
		}
		for j, c := range returning {
			if row[j] == nil {
				continue
			}
			v, err := types.Parse(cols[c], *row[j])
			if err != nil {
				return nil, err
			}
			datums[c][r] = v
		}
	}
	arrs := make([]arrow.Array, len(cols))
	for i, t := range cols {
		arrs[i] = arrayOfDatums(t, datums[i])
	}
	return makeBatch(schema, arrs, len(rows)), nil
}
