package commands

// COPY FROM / TO in PostgreSQL's text and CSV formats, with files (paths
// on this machine, relative to the working directory) or the session's
// CopyHandler for STDIN / STDOUT. COPY FROM is all or nothing: a bad line
// stores no row, and the error names the line and column as PostgreSQL's
// CONTEXT does ("COPY t, line 3, column b: "x"").

import (
	"bufio"
	"bytes"
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
	r := &copyReader{ctx: ctx, in: bufio.NewReaderSize(in, 1<<16), o: o}
	ins := executor.NewInserter(t, foreign, &executor.ExecContext{Remote: env.Remote})
	bld := newRowBatcher(t)
	// store inserts the rows read so far; a row that breaks a constraint
	// is reported with its line.
	store := func() error {
		if bld.n == 0 {
			return nil
		}
		b, lines, raws := bld.flush()
		err := ins.Insert(ctx, env.Writes, b)
		b.Release()
		if re, ok := err.(*storage.RowError); ok {
			return copyContext(re.Err, t, lineContext(lines[re.Row], raws[re.Row]))
		}
		return err
	}
	// fail reports an input error at a line, after the rows before it
	// (whose constraint errors come first, as PostgreSQL meets them).
	fail := func(err error, context string) (*Result, error) {
		if serr := store(); serr != nil {
			return nil, serr
		}
		return nil, copyContext(err, t, context)
	}
	line := 0
	if o.header {
		fields, err := r.record()
		line++
		if err != nil && err != io.EOF {
			return fail(err, lineContext(line, r.raw))
		}
		if o.headerMatch && err == nil {
			if err := checkHeader(t, cols, fields); err != nil {
				return fail(err, lineContext(line, r.raw))
			}
		}
	}
	for {
		fields, err := r.record()
		if err == io.EOF {
			break
		}
		line++
		if err != nil {
			return fail(err, lineContext(line, r.raw))
		}
		if len(fields) == 1 && !fields[0].quoted && fields[0].val == `\.` {
			break
		}
		if len(fields) < len(cols) {
			return fail(pgerr.New(pgerr.BadCopyFileFormat, "missing data for column %q", t.Columns[cols[len(fields)]].Name), lineContext(line, r.raw))
		}
		if len(fields) > len(cols) {
			return fail(pgerr.New(pgerr.BadCopyFileFormat, "extra data after last expected column"), lineContext(line, r.raw))
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
				return fail(err, fmt.Sprintf("line %d, column %s: %q", line, t.Columns[c].Name, f.val))
			}
			row[c] = v
		}
		bld.add(row, line, r.raw)
		if line%1024 == 0 && ctx.Err() != nil {
			return nil, executor.CtxError(ctx)
		}
		if bld.n >= executor.DefaultBatchSize {
			if err := store(); err != nil {
				return nil, err
			}
			if ctx.Err() != nil {
				return nil, executor.CtxError(ctx)
			}
		}
	}
	if err := store(); err != nil {
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
func checkHeader(t *storage.Table, cols []int, fields []copyField) error {
	if len(fields) != len(cols) {
		return pgerr.New(pgerr.BadCopyFileFormat, "wrong number of fields in header line: got %d, expected %d", len(fields), len(cols))
	}
	for i, c := range cols {
		if fields[i].val != t.Columns[c].Name {
			return pgerr.New(pgerr.BadCopyFileFormat, "column name mismatch in header line field %d: got %q, expected %q", i+1, fields[i].val, t.Columns[c].Name)
		}
	}
	return nil
}

// rowBatcher accumulates rows of datums into a batch of a table, with
// the line each came from (for constraint errors' CONTEXT).
type rowBatcher struct {
	t     *storage.Table
	cols  [][]any
	n     int
	lines []int
	raws  []string
}

func newRowBatcher(t *storage.Table) *rowBatcher {
	return &rowBatcher{t: t, cols: make([][]any, len(t.Columns))}
}

func (b *rowBatcher) add(row []any, line int, raw string) {
	for i, v := range row {
		b.cols[i] = append(b.cols[i], v)
	}
	b.lines, b.raws = append(b.lines, line), append(b.raws, raw)
	b.n++
}

// flush returns the rows added since the last flush as a batch, with
// their lines and texts.
func (b *rowBatcher) flush() (arrow.RecordBatch, []int, []string) {
	arrs := make([]arrow.Array, len(b.cols))
	for i, c := range b.cols {
		arrs[i] = executor.ArrayOfDatums(b.t.Columns[i].Type, c)
		b.cols[i] = b.cols[i][:0]
	}
	batch := executor.MakeBatch(b.t.ArrowSchema(), arrs, b.n)
	lines, raws := b.lines, b.raws
	b.n, b.lines, b.raws = 0, nil, nil
	return batch, lines, raws
}

// copyField is one field of an input line.
type copyField struct {
	val    string
	quoted bool
}

// copyReader splits COPY input into records.
type copyReader struct {
	ctx context.Context
	in  *bufio.Reader
	o   copyOptions
	raw string // the text of the last record read, for error CONTEXT
}

// maxCopyLine is the longest line COPY reads: PostgreSQL's string buffer
// limit (1 GB - 1).
const maxCopyLine = 1<<30 - 1

// readLine reads one line, a buffer at a time, so that a line without end
// (COPY FROM '/dev/zero') is cancelled promptly and stops at PostgreSQL's
// limit. The pieces of a long line are kept apart until its end: growing
// one slice would copy it again and again, and those copies cannot be
// interrupted.
func (r *copyReader) readLine() (string, error) {
	var pieces [][]byte
	var n int
	for {
		chunk, err := r.in.ReadSlice('\n')
		if n+len(chunk) > maxCopyLine {
			return "", pgerr.New(pgerr.ProgramLimitExceeded, "out of memory").
				WithDetail("Cannot enlarge string buffer containing %d bytes by %d more bytes.", n, len(chunk))
		}
		n += len(chunk)
		if err == bufio.ErrBufferFull {
			pieces = append(pieces, bytes.Clone(chunk))
			if r.ctx.Err() != nil {
				return "", executor.CtxError(r.ctx)
			}
			continue
		}
		if err == io.EOF && n == 0 {
			return "", io.EOF
		}
		if err != nil && err != io.EOF {
			return "", pgerr.New(pgerr.IOError, "could not read COPY data: %v", err)
		}
		pieces = append(pieces, chunk)
		break
	}
	b := pieces[0]
	if len(pieces) > 1 {
		b = bytes.Join(pieces, nil)
	}
	line := strings.TrimSuffix(string(b), "\n")
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
	r.raw = line
	if line == `\.` {
		return []copyField{{val: line}}, nil
	}
	var out []copyField
	for _, raw := range splitEscaped(line, r.o.delimiter) {
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

// splitEscaped splits a text-format line at the delimiter, except where a
// backslash escapes it.
func splitEscaped(line string, delim byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++ // the next byte is escaped, whatever it is
		case delim:
			out = append(out, line[start:i])
			start = i + 1
		}
	}
	return append(out, line[start:])
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
	r.raw = line
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
			case inQuote && c == o.escape && i+1 < len(line) && (line[i+1] == o.quote || line[i+1] == o.escape):
				cur.WriteByte(line[i+1])
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
		r.raw += "\n" + next
	}
	out = append(out, copyField{val: cur.String(), quoted: quoted})
	return out, nil
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
