package engine

// Portal: a statement's result, read batch by batch or row by row. A
// query's portal owns its operators and statement context; when it is
// exhausted or closed it closes the operators and ends the statement's
// transaction (commit when no error ended it). A utility statement's
// portal holds its rows (EXPLAIN, SHOW) or only its tag.

import (
	"context"
	"io"
	"runtime/debug"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/commands"
	"github.com/pgfed/pgfed/executor"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/planner"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// Portal is one statement's result stream; it is used by one goroutine.
type Portal struct {
	op     executor.Operator
	ec     *executor.ExecContext
	ctx    context.Context
	cancel context.CancelFunc
	query  *planner.Query
	cols   []nodes.Field
	schema *arrow.Schema // the result's, built on first use

	batch arrow.RecordBatch
	row   int
	count int64
	err   error
	done  bool
	tag   string

	static [][]any // rows of utility statements (SHOW, EXPLAIN)
	cur    []any

	// end finishes the statement, after the operators are closed.
	end func(*Portal) error
}

// resultPortal is the portal of a utility statement's result.
func resultPortal(r *commands.Result) *Portal {
	if r.Columns == nil {
		return &Portal{tag: r.Tag, done: true}
	}
	return &Portal{cols: r.Columns, static: r.Rows, tag: r.Tag, row: -1}
}

// guard runs fn, turning a panic into an XX000 error.
func (p *Portal) guard(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = pgerr.Internal("internal error: %v", r).WithDetail("%s", firstLines(string(debug.Stack()), 12))
		}
	}()
	return fn()
}

// ReturnsRows reports whether the statement produces a result set.
func (p *Portal) ReturnsRows() bool { return p.cols != nil }

// Columns describes the result columns.
func (p *Portal) Columns() []nodes.Field { return p.cols }

// NextBatch advances to the next Arrow record batch (visible columns only).
func (p *Portal) NextBatch() bool {
	if p.batch != nil {
		p.batch.Release()
		p.batch = nil
	}
	if p.done || p.op == nil {
		p.finish()
		return false
	}
	var b arrow.RecordBatch
	err := p.guard(func() error {
		var err error
		b, err = p.op.Next(p.ctx)
		return err
	})
	if err == io.EOF {
		p.finish()
		return false
	}
	if err == nil && p.ctx.Err() != nil {
		// A batch finished after the statement was cancelled or timed
		// out is not a result: the statement failed (57014).
		b.Release()
		err = executor.CtxError(p.ctx)
	}
	if err != nil {
		p.err = pgerr.Wrap(err)
		p.finish()
		return false
	}
	if p.query.Returns {
		if p.schema == nil {
			p.schema = resultSchema(p.cols)
		}
		b = storage.Relabel(b, p.schema)
	}
	p.batch = b
	p.count += b.NumRows()
	return true
}

// resultSchema is the Arrow schema of a result with these columns.
func resultSchema(cols []nodes.Field) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.T.ArrowType(), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// finish ends iteration: it releases the operators, ends the statement
// and sets the tag.
func (p *Portal) finish() {
	if p.done && p.op == nil {
		return
	}
	p.done = true
	p.closeOp()
	if p.tag == "" && p.query != nil && p.err == nil {
		switch p.query.Tag {
		case "SELECT":
			p.tag = "SELECT " + strconv.FormatInt(p.count, 10)
		case "INSERT":
			p.tag = "INSERT 0 " + strconv.FormatInt(p.ec.RowsAffected, 10)
		default:
			p.tag = p.query.Tag + " " + strconv.FormatInt(p.ec.RowsAffected, 10)
		}
	}
}

func (p *Portal) closeOp() {
	if p.op != nil {
		op := p.op
		p.op = nil
		if p.err != nil && p.cancel != nil {
			// The statement failed: remote requests still in flight (a
			// stopped scan's FETCH) are cancelled rather than awaited.
			p.cancel()
		}
		if err := p.guard(op.Close); err != nil && p.err == nil {
			p.err = err
		}
		p.ec.Release()
		if p.cancel != nil {
			// A statement cancelled or timed out never commits, even if
			// its last batch came in time.
			if err := p.ctx.Err(); err != nil && p.err == nil {
				p.err = executor.CtxError(p.ctx)
			}
		}
		if p.end != nil {
			if err := p.end(p); err != nil && p.err == nil {
				p.err = pgerr.Wrap(err)
			}
		}
	}
	if p.cancel != nil {
		p.cancel()
		p.cancel = nil
	}
}

// drain runs the statement to its end (Exec, and statements without a
// result set) and returns its error.
func (p *Portal) drain() error {
	if p.static != nil {
		return nil
	}
	for p.NextBatch() {
	}
	return p.Err()
}

// Batch returns the current batch; it is valid until the next NextBatch or Close.
func (p *Portal) Batch() arrow.RecordBatch { return p.batch }

// Next advances to the next row.
func (p *Portal) Next() bool {
	if p.static != nil {
		p.row++
		if p.row < len(p.static) {
			p.cur = p.static[p.row]
			return true
		}
		p.cur = nil
		return false
	}
	p.cur = nil
	for p.batch == nil || p.row+1 >= int(p.batch.NumRows()) {
		if !p.NextBatch() {
			return false
		}
		p.row = -1
	}
	p.row++
	return true
}

// Value returns column i of the current row as a datum (see package
// types; nil for NULL).
func (p *Portal) Value(i int) any {
	if p.static != nil {
		return p.cur[i]
	}
	return types.DatumAt(p.batch.Column(i), p.cols[i].T, p.row)
}

// Values fills dst (one entry per column) with the current row.
func (p *Portal) Values(dst []any) {
	if p.static != nil {
		copy(dst, p.cur)
		return
	}
	for i := range dst {
		dst[i] = types.DatumAt(p.batch.Column(i), p.cols[i].T, p.row)
	}
}

// Err returns the error that ended iteration, if any.
func (p *Portal) Err() error {
	if p.err == nil {
		return nil
	}
	return p.err
}

// Tag returns the command tag ("SELECT 3", "INSERT 0 1", "CREATE TABLE")
// once iteration ended.
func (p *Portal) Tag() string {
	if p.static != nil && p.tag == "" {
		return "SELECT " + strconv.Itoa(len(p.static))
	}
	return p.tag
}

// Close ends the statement, releasing everything it holds.
func (p *Portal) Close() {
	if p.batch != nil {
		p.batch.Release()
		p.batch = nil
	}
	p.done = true
	p.closeOp()
}
