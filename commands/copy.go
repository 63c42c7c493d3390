package commands

// COPY FROM / TO in PostgreSQL's text and CSV formats, with files (paths
// on this machine, relative to the working directory) or the session's
// CopyHandler for STDIN / STDOUT. COPY FROM is all or nothing: a bad line
// stores no row, and the error names the line and column as PostgreSQL's
// CONTEXT does ("COPY t, line 3, column b: "x""). COPY FROM streams:
// the input is cut into chunks of records (copy_split.go), parsed a
// column at a time into batches (copy_parse.go, copy_columns.go), on
// several goroutines for a large input, and stored a batch at a time
// (copy_load.go).

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/executor"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/planner"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// copyOptions are COPY's WITH options.
type copyOptions struct {
	csv         bool
	header      bool
	headerMatch bool // HEADER MATCH: the header must name the columns
	delimiter   byte
	null        string
	quote       byte
	escape      byte
}

func parseCopyOptions(defs []*pg.Node) (copyOptions, error) {
	o := copyOptions{delimiter: '\t', null: `\N`, quote: '"', escape: '"'}
	var delimSet, nullSet, escSet bool
	str := defString
	single := func(d *pg.DefElem, what string) (byte, error) {
		s := str(d)
		if len(s) != 1 {
			return 0, pgerr.New(pgerr.FeatureNotSupported, "COPY %s must be a single one-byte character", what)
		}
		return s[0], nil
	}
	var err error
	for _, n := range defs {
		d := n.GetDefElem()
		switch d.Defname {
		case "format":
			switch strings.ToLower(str(d)) {
			case "csv":
				o.csv = true
			case "text":
			case "binary":
				return o, pgerr.NotSupported("COPY in binary format")
			default:
				return o, pgerr.New(pgerr.InvalidParameterValue, "COPY format %q not recognized", str(d))
			}
		case "header":
			switch strings.ToLower(str(d)) {
			case "", "true", "on", "1":
				o.header = true
			case "false", "off", "0":
			case "match":
				o.header, o.headerMatch = true, true
			default:
				return o, pgerr.New(pgerr.SyntaxError, "header requires a Boolean value or \"match\"")
			}
		case "delimiter":
			if o.delimiter, err = single(d, "delimiter"); err != nil {
				return o, err
			}
			delimSet = true
		case "null":
			o.null, nullSet = str(d), true
		case "quote":
			if o.quote, err = single(d, "quote"); err != nil {
				return o, err
			}
		case "escape":
			if o.escape, err = single(d, "escape"); err != nil {
				return o, err
			}
			escSet = true
		case "encoding":
			if e := strings.ToUpper(strings.ReplaceAll(str(d), "-", "")); e != "UTF8" {
				return o, pgerr.NotSupported("COPY encoding " + str(d))
			}
		case "freeze":
		default:
			return o, pgerr.New(pgerr.SyntaxError, "option %q not recognized", d.Defname)
		}
	}
	if o.csv {
		if !delimSet {
			o.delimiter = ','
		}
		if !nullSet {
			o.null = ""
		}
		if !escSet {
			o.escape = o.quote
		}
	}
	if o.delimiter == '\n' || o.delimiter == '\r' {
		return o, pgerr.New(pgerr.InvalidParameterValue, "COPY delimiter cannot be newline or carriage return")
	}
	return o, nil
}

// Copy runs COPY FROM or COPY TO.
func Copy(ctx context.Context, env *Env, st *pg.CopyStmt) (*Result, error) {
	if st.IsProgram {
		return nil, pgerr.NotSupported("COPY ... PROGRAM")
	}
	if st.WhereClause != nil {
		return nil, pgerr.NotSupported("COPY ... WHERE")
	}
	o, err := parseCopyOptions(st.Options)
	if err != nil {
		return nil, err
	}
	if st.IsFrom {
		return copyFrom(ctx, env, st, o)
	}
	return copyTo(ctx, env, st, o)
}

// copyColumns resolves COPY's column list (all columns if empty).
func copyColumns(t *storage.Table, attlist []*pg.Node) ([]int, error) {
	if len(attlist) == 0 {
		cols := make([]int, len(t.Columns))
		for i := range cols {
			cols[i] = i
		}
		return cols, nil
	}
	var cols []int
	for _, a := range attlist {
		name := a.GetString_().Sval
		i := t.ColumnIndex(name)
		if i < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, t.Name)
		}
		for _, c := range cols {
			if c == i {
				return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", name)
			}
		}
		cols = append(cols, i)
	}
	return cols, nil
}

func copyFrom(ctx context.Context, env *Env, st *pg.CopyStmt, o copyOptions) (*Result, error) {
	t, err := env.Planner().ResolveTable(st.Relation)
	if err != nil {
		return nil, err
	}
	foreign, err := env.Planner().ForeignInserts(t)
	if err != nil {
		return nil, err
	}
	cols, err := copyColumns(t, st.Attlist)
	if err != nil {
		return nil, err
	}
	var in io.Reader
	if st.Filename == "" {
		if env.Copy == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY FROM STDIN needs a copy handler (Session.SetCopyHandler)")
		}
		if in, err = env.Copy.CopyIn(); err != nil {
			return nil, pgerr.Wrap(err)
		}
	} else {
		f, err := env.Files.openRead(st.Filename)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in = f
	}
	// Defaults for the columns the input does not provide.
	pl := env.Planner()
	given := map[int]bool{}
	for _, c := range cols {
		given[c] = true
	}
	defaults := map[int]any{}
	ec := &executor.ExecContext{}
	for i, c := range t.Columns {
		if given[i] || c.Default == "" {
			continue
		}
		e, err := pl.DefaultExpr(t, i)
		if err != nil {
			return nil, err
		}
		v, err := executor.EvalConst(e, ec)
		if err != nil {
			return nil, err
		}
		defaults[i] = v
	}
	ins := executor.NewInserter(t, foreign, &executor.ExecContext{Remote: env.Remote})
	l := &copyLoad{ctx: ctx, t: t, o: o, cols: cols, defaults: defaults, ins: ins, writes: env.Writes,
		split: newCopySplitter(ctx, in, o)}
	if err := l.run(); err != nil {
		return nil, err
	}
	if err := ins.Flush(ctx); err != nil {
		return nil, err
	}
	return tag("COPY " + strconv.FormatInt(ins.Affected, 10))
}

// copyContext adds PostgreSQL's COPY CONTEXT line to err: "COPY t, " then
// where (line N: "text", or line N, column c: "value").
func copyContext(err error, t *storage.Table, where string) error {
	pe := pgerr.Wrap(err)
	c := *pe
	c.Context = "COPY " + t.Name + ", " + where
	return &c
}

func lineContext(line int, raw string) string {
	return fmt.Sprintf("line %d: \"%s\"", line, raw)
}

// checkHeader verifies HEADER MATCH: the header names the columns, in order.
func checkHeader(t *storage.Table, cols []int, fields []string) error {
	if len(fields) != len(cols) {
		return pgerr.New(pgerr.BadCopyFileFormat, "wrong number of fields in header line: got %d, expected %d", len(fields), len(cols))
	}
	for i, c := range cols {
		if fields[i] != t.Columns[c].Name {
			return pgerr.New(pgerr.BadCopyFileFormat, "column name mismatch in header line field %d: got %q, expected %q", i+1, fields[i], t.Columns[c].Name)
		}
	}
	return nil
}

func copyTo(ctx context.Context, env *Env, st *pg.CopyStmt, o copyOptions) (*Result, error) {
	query := st.Query
	if query != nil {
		if !returnsRows(query) {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY query must have a RETURNING clause")
		}
	} else {
		t, err := env.Planner().ResolveTable(st.Relation)
		if err != nil {
			return nil, err
		}
		if t.Kind == storage.KindPartitioned {
			return nil, pgerr.New(pgerr.WrongObjectType, "cannot copy from partitioned table %q", t.Name).
				WithHint("Try the COPY (SELECT ...) TO variant.")
		}
		cols, err := copyColumns(t, st.Attlist)
		if err != nil {
			return nil, err
		}
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = quoteIdent(t.Columns[c].Name)
		}
		tree, err := planner.Parse(fmt.Sprintf("SELECT %s FROM %s.%s", strings.Join(names, ", "), quoteIdent(t.Schema), quoteIdent(t.Name)))
		if err != nil {
			return nil, pgerr.Internal("COPY: %v", err)
		}
		query = tree.Stmts[0].Stmt
	}
	q, err := env.Planner().Plan(query)
	if err != nil {
		return nil, err
	}
	out, finish, err := copyDestination(env, st)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			_ = finish(false)
		}
	}()
	w := bufio.NewWriterSize(out, 1<<16)
	cols := q.Columns
	if o.header {
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = c.Name
			if o.csv {
				names[i] = csvQuote(c.Name, o, len(cols) == 1)
			}
		}
		w.WriteString(strings.Join(names, string(o.delimiter)) + "\n")
	}
	var n int64
	line := make([]string, len(cols))
	err = env.Run(ctx, q, nil, func(b arrow.RecordBatch) error {
		for r := 0; r < int(b.NumRows()); r++ {
			for i, c := range cols {
				d := types.DatumAt(b.Column(i), c.T, r)
				switch {
				case d == nil:
					line[i] = o.null
				case o.csv:
					line[i] = csvQuote(types.Format(c.T, d), o, len(cols) == 1)
				default:
					line[i] = escapeText(types.Format(c.T, d), o.delimiter)
				}
			}
			w.WriteString(strings.Join(line, string(o.delimiter)))
			w.WriteByte('\n')
			n++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, pgerr.New(pgerr.IOError, "could not write COPY data: %v", err)
	}
	ok = true
	if err := finish(true); err != nil {
		return nil, err
	}
	return tag("COPY " + strconv.FormatInt(n, 10))
}

// copyDestination opens COPY TO's output: the session's handler for
// STDOUT, else the file; finish(true) puts a file in place.
func copyDestination(env *Env, st *pg.CopyStmt) (io.Writer, func(ok bool) error, error) {
	if st.Filename == "" {
		if env.Copy == nil {
			return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "COPY TO STDOUT needs a copy handler (Session.SetCopyHandler)")
		}
		out, err := env.Copy.CopyOut()
		if err != nil {
			return nil, nil, pgerr.Wrap(err)
		}
		return out, func(bool) error { return nil }, nil
	}
	f, err := env.Files.create(st.Filename)
	if err != nil {
		return nil, nil, err
	}
	return f, f.finish, nil
}

// returnsRows reports whether a COPY (query) produces rows: a SELECT, or
// DML with RETURNING.
func returnsRows(n *pg.Node) bool {
	switch x := n.Node.(type) {
	case *pg.Node_InsertStmt:
		return len(x.InsertStmt.ReturningList) > 0
	case *pg.Node_UpdateStmt:
		return len(x.UpdateStmt.ReturningList) > 0
	case *pg.Node_DeleteStmt:
		return len(x.DeleteStmt.ReturningList) > 0
	}
	return true
}

func escapeText(v string, delim byte) string {
	if !strings.ContainsAny(v, "\\\t\n\r"+string(delim)) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c == delim {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}

// csvQuote quotes a CSV value when PostgreSQL would: it holds the
// delimiter, the quote, CR or LF, equals the NULL string, or is \. alone
// on a line; inside quotes the quote and escape characters are escaped.
func csvQuote(v string, o copyOptions, single bool) string {
	if v != o.null && !strings.ContainsAny(v, string([]byte{o.delimiter, o.quote, '\n', '\r'})) && !(single && v == `\.`) {
		return v
	}
	var b strings.Builder
	b.WriteByte(o.quote)
	for i := 0; i < len(v); i++ {
		if v[i] == o.quote || v[i] == o.escape {
			b.WriteByte(o.escape)
		}
		b.WriteByte(v[i])
	}
	b.WriteByte(o.quote)
	return b.String()
}

func strerror(err error) string { return pgerr.Strerror(err) }

// quoteIdent quotes an identifier when PostgreSQL would need it.
func quoteIdent(s string) string { return nodes.QuoteIdent(s) }
