package pgfed

// COPY FROM / TO in PostgreSQL's text and CSV formats, with files (paths
// on this machine, relative to the working directory) or the session's
// CopyHandler for STDIN / STDOUT. COPY FROM is all or nothing: a bad line
// stores no row, and the error names the line and column as PostgreSQL's
// CONTEXT does ("COPY t, line 3, column b: "x"").

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/executor"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// copyOptions are COPY's WITH options.
type copyOptions struct {
	csv       bool
	header    bool
	delimiter byte
	null      string
	quote     byte
	escape    byte
}

func parseCopyOptions(defs []*pg.Node) (copyOptions, error) {
	o := copyOptions{delimiter: '\t', null: `\N`, quote: '"', escape: '"'}
	var delimSet, nullSet, escSet bool
	str := func(d *pg.DefElem) string {
		if d.Arg == nil {
			return ""
		}
		switch a := d.Arg.Node.(type) {
		case *pg.Node_String_:
			return a.String_.Sval
		case *pg.Node_Boolean:
			return strconv.FormatBool(a.Boolean.Boolval)
		case *pg.Node_Integer:
			return strconv.Itoa(int(a.Integer.Ival))
		}
		return ""
	}
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
				o.header = true
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
	} else if o.header && false {
		return o, nil
	}
	if o.delimiter == '\n' || o.delimiter == '\r' {
		return o, pgerr.New(pgerr.InvalidParameterValue, "COPY delimiter cannot be newline or carriage return")
	}
	return o, nil
}

func (s *Session) copyStmt(ctx context.Context, st *pg.CopyStmt) (*Rows, error) {
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
		return s.copyFrom(ctx, st, o)
	}
	return s.copyTo(ctx, st, o)
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

func (s *Session) copyFrom(ctx context.Context, st *pg.CopyStmt, o copyOptions) (*Rows, error) {
	t, err := s.planner().ResolveTable(st.Relation)
	if err != nil {
		return nil, err
	}
	cols, err := copyColumns(t, st.Attlist)
	if err != nil {
		return nil, err
	}
	var in io.Reader
	if st.Filename == "" {
		if s.copy == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY FROM STDIN needs a copy handler (Session.SetCopyHandler)")
		}
		if in, err = s.copy.CopyIn(); err != nil {
			return nil, pgerr.Wrap(err)
		}
	} else {
		f, err := os.Open(st.Filename)
		if err != nil {
			return nil, pgerr.New(pgerr.UndefinedFile, "could not open file %q for reading: %v", st.Filename, errors.Unwrap(err))
		}
		defer f.Close()
		in = f
	}
	// Defaults for the columns the input does not provide.
	pl := s.planner()
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
		e, err := defaultOf(pl, c)
		if err != nil {
			return nil, err
		}
		v, err := executor.EvalConst(e, ec)
		if err != nil {
			return nil, err
		}
		defaults[i] = v
	}
	r := &copyReader{in: bufio.NewReaderSize(in, 1<<16), o: o}
	var batches []arrow.RecordBatch
	release := func() {
		for _, b := range batches {
			b.Release()
		}
	}
	bld := newRowBatcher(t)
	line := 0
	if o.header {
		if _, err := r.record(); err != nil && err != io.EOF {
			return nil, err
		}
		line++
	}
	for {
		fields, err := r.record()
		if err == io.EOF {
			break
		}
		line++
		if err != nil {
			release()
			bld.release()
			return nil, copyContext(err, t, line, "")
		}
		if len(fields) == 1 && !fields[0].quoted && fields[0].val == `\.` {
			break
		}
		if len(fields) < len(cols) {
			release()
			bld.release()
			return nil, copyContext(pgerr.New(pgerr.BadCopyFileFormat, "missing data for column %q", t.Columns[cols[len(fields)]].Name), t, line, "")
		}
		if len(fields) > len(cols) {
			release()
			bld.release()
			return nil, copyContext(pgerr.New(pgerr.BadCopyFileFormat, "extra data after last expected column"), t, line, "")
		}
		row := make([]any, len(t.Columns))
		for i, v := range defaults {
			row[i] = v
		}
		for k, c := range cols {
			f := fields[k]
			if !f.quoted && f.val == o.null {
				continue
			}
			v, err := types.Parse(t.Columns[c].Type, f.val)
			if err != nil {
				release()
				bld.release()
				return nil, copyContext(err, t, line, fmt.Sprintf("column %s: %q", t.Columns[c].Name, f.val))
			}
			row[c] = v
		}
		bld.add(row)
		if bld.n >= executor.DefaultBatchSize {
			batches = append(batches, bld.flush())
			if err := ctx.Err(); err != nil {
				release()
				return nil, executor.CtxError(ctx)
			}
		}
	}
	if bld.n > 0 {
		batches = append(batches, bld.flush())
	}
	bld.release()
	n, err := executor.InsertBatches(t, batches)
	if err != nil {
		return nil, err
	}
	return tagRows("COPY " + itoa64(n)), nil
}

func defaultOf(pl interface {
	Expr(*pg.Node, types.T, string) (nodes.Expr, error)
}, c storage.Column) (nodes.Expr, error) {
	tree, err := pg.Parse("SELECT " + c.Default)
	if err != nil {
		return nil, pgerr.Internal("bad stored default: %v", err)
	}
	return pl.Expr(tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val, c.Type, "DEFAULT expressions")
}

func copyContext(err error, t *storage.Table, line int, col string) error {
	pe := pgerr.Wrap(err)
	c := *pe
	c.Context = fmt.Sprintf("COPY %s, line %d", t.Name, line)
	if col != "" {
		c.Context += ", " + col
	}
	return &c
}

// rowBatcher accumulates rows of datums into Arrow batches of a table.
type rowBatcher struct {
	t    *storage.Table
	cols [][]any
	n    int
}

func newRowBatcher(t *storage.Table) *rowBatcher {
	return &rowBatcher{t: t, cols: make([][]any, len(t.Columns))}
}

func (b *rowBatcher) add(row []any) {
	for i, v := range row {
		b.cols[i] = append(b.cols[i], v)
	}
	b.n++
}

func (b *rowBatcher) flush() arrow.RecordBatch {
	arrs := make([]arrow.Array, len(b.cols))
	for i, c := range b.cols {
		arrs[i] = executor.ArrayOfDatums(b.t.Columns[i].Type, c)
		b.cols[i] = b.cols[i][:0]
	}
	batch := executor.MakeBatch(b.t.ArrowSchema(), arrs, b.n)
	b.n = 0
	return batch
}

func (b *rowBatcher) release() {}

// copyField is one field of an input line.
type copyField struct {
	val    string
	quoted bool
}

// copyReader splits COPY input into records.
type copyReader struct {
	in *bufio.Reader
	o  copyOptions
}

func (r *copyReader) readLine() (string, error) {
	line, err := r.in.ReadString('\n')
	if err == io.EOF && line == "" {
		return "", io.EOF
	}
	if err != nil && err != io.EOF {
		return "", pgerr.New(pgerr.IOError, "could not read COPY data: %v", err)
	}
	line = strings.TrimSuffix(line, "\n")
	line = strings.TrimSuffix(line, "\r")
	return line, nil
}

func (r *copyReader) record() ([]copyField, error) {
	if r.o.csv {
		return r.csvRecord()
	}
	line, err := r.readLine()
	if err != nil {
		return nil, err
	}
	if line == `\.` {
		return []copyField{{val: line}}, nil
	}
	var out []copyField
	for _, raw := range strings.Split(line, string(r.o.delimiter)) {
		if raw == r.o.null {
			out = append(out, copyField{val: raw})
			continue
		}
		v, err := unescapeText(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, copyField{val: v, quoted: true})
	}
	return out, nil
}

// unescapeText undoes the text format's backslash escapes.
func unescapeText(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'x':
			j := i + 1
			for j < len(s) && j < i+3 && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('x')
				continue
			}
			v, _ := strconv.ParseUint(s[i+1:j], 16, 8)
			b.WriteByte(byte(v))
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 8)
			b.WriteByte(byte(v))
			i = j - 1
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// csvRecord reads one CSV record; quoted fields may span lines.
func (r *copyReader) csvRecord() ([]copyField, error) {
	line, err := r.readLine()
	if err != nil {
		return nil, err
	}
	if line == `\.` {
		return []copyField{{val: line}}, nil
	}
	o := r.o
	var out []copyField
	var cur strings.Builder
	quoted, inQuote := false, false
	for {
		for i := 0; i < len(line); i++ {
			c := line[i]
			switch {
			case inQuote && c == o.escape && i+1 < len(line) && line[i+1] == o.quote:
				cur.WriteByte(o.quote)
				i++
			case inQuote && c == o.quote:
				inQuote = false
			case inQuote:
				cur.WriteByte(c)
			case c == o.quote:
				inQuote, quoted = true, true
			case c == o.delimiter:
				out = append(out, copyField{val: cur.String(), quoted: quoted})
				cur.Reset()
				quoted = false
			default:
				cur.WriteByte(c)
			}
		}
		if !inQuote {
			break
		}
		cur.WriteByte('\n')
		next, err := r.readLine()
		if err == io.EOF {
			return nil, pgerr.New(pgerr.BadCopyFileFormat, "unterminated CSV quoted field")
		}
		if err != nil {
			return nil, err
		}
		line = next
	}
	out = append(out, copyField{val: cur.String(), quoted: quoted})
	return out, nil
}

func (s *Session) copyTo(ctx context.Context, st *pg.CopyStmt, o copyOptions) (*Rows, error) {
	var q *Rows
	var err error
	if st.Query != nil {
		q, err = s.runQuery(ctx, st.Query)
	} else {
		t, rerr := s.planner().ResolveTable(st.Relation)
		if rerr != nil {
			return nil, rerr
		}
		cols, cerr := copyColumns(t, st.Attlist)
		if cerr != nil {
			return nil, cerr
		}
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = quoteIdent(t.Columns[c].Name)
		}
		sel := fmt.Sprintf("SELECT %s FROM %s.%s", strings.Join(names, ", "), quoteIdent(t.Schema), quoteIdent(t.Name))
		tree, perr := pg.Parse(sel)
		if perr != nil {
			return nil, pgerr.Internal("COPY: %v", perr)
		}
		q, err = s.runQuery(ctx, tree.Stmts[0].Stmt)
	}
	if err != nil {
		return nil, err
	}
	defer q.Close()
	var out io.Writer
	if st.Filename == "" {
		if s.copy == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY TO STDOUT needs a copy handler (Session.SetCopyHandler)")
		}
		if out, err = s.copy.CopyOut(); err != nil {
			return nil, pgerr.Wrap(err)
		}
	} else {
		f, ferr := os.Create(st.Filename)
		if ferr != nil {
			return nil, pgerr.New(pgerr.UndefinedFile, "could not open file %q for writing: %v", st.Filename, errors.Unwrap(ferr))
		}
		defer f.Close()
		out = f
	}
	w := bufio.NewWriterSize(out, 1<<16)
	cols := q.Columns()
	if o.header {
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = c.Name
			if o.csv {
				names[i] = csvQuote(c.Name, o)
			}
		}
		w.WriteString(strings.Join(names, string(o.delimiter)) + "\n")
	}
	var n int64
	line := make([]string, len(cols))
	for q.Next() {
		for i := range cols {
			v, ok := q.Text(i)
			switch {
			case !ok:
				line[i] = o.null
			case o.csv:
				line[i] = csvQuote(v, o)
			default:
				line[i] = escapeText(v, o.delimiter)
			}
		}
		w.WriteString(strings.Join(line, string(o.delimiter)))
		w.WriteByte('\n')
		n++
	}
	if err := q.Err(); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, pgerr.New(pgerr.IOError, "could not write COPY data: %v", err)
	}
	return tagRows("COPY " + itoa64(n)), nil
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

func csvQuote(v string, o copyOptions) string {
	if v != o.null && !strings.ContainsAny(v, string([]byte{o.delimiter, o.quote, '\n', '\r'})) && v != `\.` {
		return v
	}
	q := string(o.quote)
	return q + strings.ReplaceAll(v, q, string(o.escape)+q) + q
}

// quoteIdent quotes an identifier when PostgreSQL would need it.
func quoteIdent(s string) string { return nodes.QuoteIdent(s) }
