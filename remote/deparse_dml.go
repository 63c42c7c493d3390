package remote

// The remote SQL of writes to foreign tables, as postgres_fdw deparses it
// (deparse.c's deparseInsertSql, deparseUpdateSql, deparseDeleteSql,
// deparseDirectUpdateSql, deparseDirectDeleteSql, deparseTruncateSql).

import (
	"strconv"
	"strings"

	"github.com/pgfed/pgfed/nodes"
)

// Relation is a remote table: its schema (may be "") and name.
type Relation struct{ Schema, Table string }

// SQL is the relation's name as remote SQL.
func (r Relation) SQL() string { return r.sql() }

func (r Relation) sql() string {
	if r.Schema == "" {
		return QuoteIdent(r.Table)
	}
	return QuoteIdent(r.Schema) + "." + QuoteIdent(r.Table)
}

// InsertSQL is the INSERT of rows rows of cols, with parameters $1, $2
// ... row after row, e.g.
//
//	INSERT INTO public.t(a, b) VALUES ($1, $2), ($3, $4) RETURNING a
func InsertSQL(rel Relation, cols []string, rows int, returning []string) string {
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(rel.sql())
	if len(cols) == 0 {
		// postgres_fdw's form for a table without columns.
		b.WriteString(" DEFAULT VALUES")
		writeReturning(&b, returning)
		return b.String()
	}
	b.WriteByte('(')
	writeIdents(&b, cols)
	b.WriteString(") VALUES ")
	n := 1
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for i := range cols {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			n++
		}
		b.WriteByte(')')
	}
	writeReturning(&b, returning)
	return b.String()
}

// UpdateSQL updates one row found by its ctid ($1); the new values of
// set are $2, $3 ...:
//
//	UPDATE public.t SET b = $2 WHERE ctid = $1 RETURNING a, b
func UpdateSQL(rel Relation, set []string, returning []string) string {
	var b strings.Builder
	b.WriteString("UPDATE ")
	b.WriteString(rel.sql())
	b.WriteString(" SET ")
	for i, c := range set {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(QuoteIdent(c))
		b.WriteString(" = $")
		b.WriteString(strconv.Itoa(i + 2))
	}
	b.WriteString(" WHERE ctid = $1")
	writeReturning(&b, returning)
	return b.String()
}

// DeleteSQL deletes one row found by its ctid ($1).
func DeleteSQL(rel Relation, returning []string) string {
	var b strings.Builder
	b.WriteString("DELETE FROM ")
	b.WriteString(rel.sql())
	b.WriteString(" WHERE ctid = $1")
	writeReturning(&b, returning)
	return b.String()
}

// DirectModify is an UPDATE or DELETE shipped whole (postgres_fdw's
// direct modification): its SET expressions and WHERE conjuncts read
// AllCols, and must be shippable.
type DirectModify struct {
	Rel     Relation
	AllCols []string
	// Set are the columns an UPDATE assigns, with their new values;
	// empty for a DELETE.
	Set       []string
	Values    []nodes.Expr
	Where     []nodes.Expr
	Returning []string
}

// SQL builds the statement, e.g.
//
//	UPDATE public.t SET b = 'y'::text WHERE ((a = 1))
//	DELETE FROM public.t WHERE ((a > 5)) RETURNING a, b
func (d *DirectModify) SQL() (string, error) {
	for _, e := range append(append([]nodes.Expr{}, d.Values...), d.Where...) {
		if err := checkNoParams(e); err != nil {
			return "", err
		}
	}
	p := printer{cols: d.AllCols}
	if len(d.Set) > 0 {
		p.WriteString("UPDATE ")
		p.WriteString(d.Rel.sql())
		p.WriteString(" SET ")
		for i, c := range d.Set {
			if i > 0 {
				p.WriteString(", ")
			}
			p.WriteString(QuoteIdent(c))
			p.WriteString(" = ")
			p.expr(d.Values[i])
		}
	} else {
		p.WriteString("DELETE FROM ")
		p.WriteString(d.Rel.sql())
	}
	p.where(d.Where)
	writeReturning(&p.Builder, d.Returning)
	return p.result()
}

// TruncateSQL truncates the tables in one command.
func TruncateSQL(rels []Relation, restartIdentity, cascade bool) string {
	var b strings.Builder
	b.WriteString("TRUNCATE ")
	for i, r := range rels {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.sql())
	}
	if restartIdentity {
		b.WriteString(" RESTART IDENTITY")
	} else {
		b.WriteString(" CONTINUE IDENTITY")
	}
	if cascade {
		b.WriteString(" CASCADE")
	} else {
		b.WriteString(" RESTRICT")
	}
	return b.String()
}

func writeIdents(b *strings.Builder, names []string) {
	for i, c := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(QuoteIdent(c))
	}
}

func writeReturning(b *strings.Builder, cols []string) {
	if len(cols) == 0 {
		return
	}
	b.WriteString(" RETURNING ")
	writeIdents(b, cols)
}

// TidText renders a row identity made by the tid decoder (block << 16 |
// offset) as PostgreSQL's tid input reads it: "(block,offset)".
func TidText(v int64) string {
	return "(" + strconv.FormatInt(v>>16, 10) + "," + strconv.FormatInt(v&0xffff, 10) + ")"
}
