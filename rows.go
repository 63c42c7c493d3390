package pgfed

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pganalyze/pg_query_go/v6/parser"
	"github.com/pgfed/pgfed/executor"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/planner"
	"github.com/pgfed/pgfed/types"
)

// Rows is a statement's result. Iterate rows with Next, or Arrow batches
// with NextBatch (not both); always Close.
type Rows struct {
	op     executor.Operator
	ec     *executor.ExecContext
	ctx    context.Context
	cancel context.CancelFunc
	query  *planner.Query

	cols   []Column
	schema *arrow.Schema // of the batches handed out
	batch  arrow.RecordBatch
	row    int
	count  int64
	err    error
	done   bool
	tag    string

	static [][]any // rows of utility statements (SHOW, EXPLAIN)
	cur    []any

	// endStatement finishes the statement's remote work (commit when the
	// statement succeeded), after the operators are closed.
	endStatement func(commit bool) error
}

func tagRows(tag string) *Rows { return &Rows{tag: tag, done: true} }

func staticRows(cols []Column, vals [][]any, tag string) *Rows {
	return &Rows{cols: cols, static: vals, tag: tag, row: -1}
}

// guard runs fn, turning a panic into an XX000 error.
func (r *Rows) guard(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = pgerr.Internal("internal error: %v", p).WithDetail("%s", firstLines(string(debug.Stack()), 12))
		}
	}()
	return fn()
}

// ReturnsRows reports whether the statement produces a result set.
func (r *Rows) ReturnsRows() bool { return r.cols != nil }

// Columns describes the result columns.
func (r *Rows) Columns() []Column { return r.cols }

// NextBatch advances to the next Arrow record batch (visible columns only).
func (r *Rows) NextBatch() bool {
	if r.batch != nil {
		r.batch.Release()
		r.batch = nil
	}
	if r.done || r.op == nil {
		r.finish()
		return false
	}
	var b arrow.RecordBatch
	err := r.guard(func() error {
		var err error
		b, err = r.op.Next(r.ctx)
		return err
	})
	if err == io.EOF {
		r.finish()
		return false
	}
	if err != nil {
		r.err = pgerr.Wrap(err)
		r.finish()
		return false
	}
	if r.query != nil && r.query.Returns {
		b = r.relabel(b)
	}
	r.batch = b
	r.count += b.NumRows()
	return true
}

// relabel presents b with the result's visible columns and names (the
// plan may carry sort-only columns, and scans keep stored column names);
// no data is copied.
func (r *Rows) relabel(b arrow.RecordBatch) arrow.RecordBatch {
	if r.schema == nil {
		fields := make([]arrow.Field, len(r.cols))
		for i, c := range r.cols {
			fields[i] = arrow.Field{Name: c.Name, Type: c.Type.ArrowType(), Nullable: true}
		}
		r.schema = arrow.NewSchema(fields, nil)
	}
	if b.Schema().Equal(r.schema) {
		return b
	}
	cols := make([]arrow.Array, len(r.cols))
	for i := range cols {
		cols[i] = b.Column(i)
	}
	nb := array.NewRecordBatch(r.schema, cols, b.NumRows())
	b.Release()
	return nb
}

// finish ends iteration: it releases the operators and sets the tag.
func (r *Rows) finish() {
	if r.done && r.op == nil {
		return
	}
	r.done = true
	r.closeOp()
	if r.tag == "" && r.query != nil && r.err == nil {
		switch r.query.Tag {
		case "SELECT":
			r.tag = "SELECT " + strconv.FormatInt(r.count, 10)
		case "INSERT":
			r.tag = "INSERT 0 " + strconv.FormatInt(r.ec.RowsAffected, 10)
		default:
			r.tag = r.query.Tag + " " + strconv.FormatInt(r.ec.RowsAffected, 10)
		}
	}
}

func (r *Rows) closeOp() {
	if r.op != nil {
		op := r.op
		r.op = nil
		if err := r.guard(op.Close); err != nil && r.err == nil {
			r.err = err
		}
		r.ec.Release()
		if r.endStatement != nil {
			// Remote work is read-only (writes to foreign tables are not
			// supported yet), so the remote transaction is always rolled
			// back: that also ends cleanly after a cancelled fetch (LIMIT
			// stopping async children early), where COMMIT would fail.
			if err := r.endStatement(false); err != nil && r.err == nil {
				r.err = pgerr.Wrap(err)
			}
		}
	}
	if r.cancel != nil {
		r.cancel()
		r.cancel = nil
	}
}

// Batch returns the current batch; it is valid until the next NextBatch or Close.
func (r *Rows) Batch() arrow.RecordBatch { return r.batch }

// Next advances to the next row.
func (r *Rows) Next() bool {
	if r.static != nil {
		r.row++
		if r.row < len(r.static) {
			r.cur = r.static[r.row]
			return true
		}
		r.cur = nil
		return false
	}
	r.cur = nil
	for r.batch == nil || r.row+1 >= int(r.batch.NumRows()) {
		if !r.NextBatch() {
			return false
		}
		r.row = -1
	}
	r.row++
	return true
}

// Values returns the current row (see package types for the Go value of
// each SQL type).
func (r *Rows) Values() []any {
	if r.static != nil {
		return r.cur
	}
	out := make([]any, len(r.cols))
	for i := range out {
		out[i] = executor.DatumAt(r.batch.Column(i), r.cols[i].Type, r.row)
	}
	return out
}

// Text returns column i of the current row in PostgreSQL's text output;
// ok is false for NULL.
func (r *Rows) Text(i int) (string, bool) {
	var d any
	if r.static != nil {
		d = r.cur[i]
	} else {
		d = executor.DatumAt(r.batch.Column(i), r.cols[i].Type, r.row)
	}
	if d == nil {
		return "", false
	}
	return types.Format(r.cols[i].Type, d), true
}

// Scan copies the current row into dest: *any, *string (text output),
// *int64, *int, *float64, *bool, or *sql.NullString-like via *any.
func (r *Rows) Scan(dest ...any) error {
	if len(dest) != len(r.cols) {
		return pgerr.New(pgerr.InvalidParameterValue, "Scan: %d destinations for %d columns", len(dest), len(r.cols))
	}
	vals := r.Values()
	for i, d := range dest {
		v := vals[i]
		switch p := d.(type) {
		case *any:
			*p = v
		case *string:
			s, _ := r.Text(i)
			*p = s
		case *int64:
			n, ok := v.(int64)
			if !ok {
				return scanErr(i, v, "int64")
			}
			*p = n
		case *int:
			n, ok := v.(int64)
			if !ok {
				return scanErr(i, v, "int")
			}
			*p = int(n)
		case *float64:
			f, ok := v.(float64)
			if !ok {
				return scanErr(i, v, "float64")
			}
			*p = f
		case *bool:
			b, ok := v.(bool)
			if !ok {
				return scanErr(i, v, "bool")
			}
			*p = b
		default:
			return pgerr.New(pgerr.InvalidParameterValue, "Scan: unsupported destination %T", d)
		}
	}
	return nil
}

func scanErr(i int, v any, want string) error {
	if v == nil {
		return pgerr.New(pgerr.NullValueNotAllowed, "Scan: column %d is NULL; scan into *any to accept NULLs", i)
	}
	return pgerr.New(pgerr.DatatypeMismatch, "Scan: column %d is %T, not %s", i, v, want)
}

// Err returns the error that ended iteration, if any.
func (r *Rows) Err() error {
	if r.err == nil {
		return nil
	}
	return r.err
}

// Tag returns the command tag ("SELECT 3", "INSERT 0 1", "CREATE TABLE")
// once iteration ended.
func (r *Rows) Tag() string {
	if r.static != nil && r.tag == "SHOW" {
		return "SHOW"
	}
	if r.static != nil && r.tag == "" {
		return "SELECT " + strconv.Itoa(len(r.static))
	}
	return r.tag
}

// Close ends the statement, releasing everything it holds.
func (r *Rows) Close() error {
	if r.batch != nil {
		r.batch.Release()
		r.batch = nil
	}
	r.done = true
	r.closeOp()
	return nil
}

// parserCursor extracts the 1-based byte cursor of a parser error.
func parserCursor(err error) int {
	if pe, ok := err.(*parser.Error); ok {
		return pe.Cursorpos
	}
	return 0
}

var _ = fmt.Sprint
