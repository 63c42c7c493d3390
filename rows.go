package pgfed

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/engine"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// Rows is a statement's result: read it row by row (Next, Scan, Values,
// Text) or batch by batch as Arrow records (NextBatch, Batch), then Close.
type Rows struct {
	p    *engine.Portal
	cols []Column
}

func newRows(p *engine.Portal) *Rows {
	r := &Rows{p: p}
	if p.ReturnsRows() {
		r.cols = make([]Column, 0, len(p.Columns()))
		for _, f := range p.Columns() {
			r.cols = append(r.cols, Column{Name: f.Name, Type: f.T})
		}
	}
	return r
}

// ReturnsRows reports whether the statement produces a result set.
func (r *Rows) ReturnsRows() bool { return r.cols != nil }

// Columns describes the result columns.
func (r *Rows) Columns() []Column { return r.cols }

// NextBatch advances to the next Arrow record batch (visible columns only).
func (r *Rows) NextBatch() bool { return r.p.NextBatch() }

// Batch returns the current batch; it is valid until the next NextBatch or Close.
func (r *Rows) Batch() arrow.RecordBatch { return r.p.Batch() }

// Next advances to the next row.
func (r *Rows) Next() bool { return r.p.Next() }

// Values returns the current row (see package types for the Go value of
// each SQL type).
func (r *Rows) Values() []any {
	out := make([]any, len(r.cols))
	r.p.Values(out)
	return out
}

// Text returns column i of the current row in PostgreSQL's text output;
// ok is false for NULL.
func (r *Rows) Text(i int) (string, bool) {
	d := r.p.Value(i)
	if d == nil {
		return "", false
	}
	return types.Format(r.cols[i].Type, d), true
}

// Scan copies the current row into dest: *any, *string (text output),
// *int64, *int, *float64, *bool.
func (r *Rows) Scan(dest ...any) error {
	if len(dest) != len(r.cols) {
		return pgerr.New(pgerr.InvalidParameterValue, "Scan: %d destinations for %d columns", len(dest), len(r.cols))
	}
	for i, d := range dest {
		v := r.p.Value(i)
		switch p := d.(type) {
		case *any:
			*p = v
		case *string:
			*p, _ = r.Text(i)
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
func (r *Rows) Err() error { return r.p.Err() }

// Tag returns the command tag ("SELECT 3", "INSERT 0 1", "CREATE TABLE")
// once iteration ended.
func (r *Rows) Tag() string { return r.p.Tag() }

// Close ends the statement, releasing everything it holds.
func (r *Rows) Close() error {
	r.p.Close()
	return nil
}
