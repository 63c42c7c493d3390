package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// fakeSession stands in for the engine in REPL tests. It logs every call
// and answers statements from a table of canned results keyed by the
// statement with whitespace collapsed, case folded and the final semicolon
// dropped. A few statements behave specially (COPY, pg_sleep), and any
// other statement is echoed back as a one-row result holding its exact
// text, which shows in transcripts what the REPL sent.
type fakeSession struct {
	mu      sync.Mutex
	calls   []string
	copy    pgfed.CopyHandler
	notice  func(*pgfed.Notice)
	copied  []string // the rows COPY FROM STDIN stored, COPY TO STDOUT prints
	started chan struct{}

	relations []pgfed.RelationInfo
}

func newFakeSession() *fakeSession {
	return &fakeSession{
		relations: []pgfed.RelationInfo{
			{Schema: "public", Name: "t", Kind: "table"},
			{Schema: "public", Name: "p", Kind: "partitioned table"},
			{Schema: "public", Name: "p1", Kind: "table"},
			{Schema: "public", Name: "Weird", Kind: "table"},
			{Schema: "public", Name: "ft", Kind: "foreign table"},
			{Schema: "other", Name: "a", Kind: "table"},
		},
		started: make(chan struct{}, 1),
	}
}

func (f *fakeSession) log(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fakeSession) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeSession) SetCopyHandler(h pgfed.CopyHandler)      { f.copy = h }
func (f *fakeSession) SetNoticeHandler(fn func(*pgfed.Notice)) { f.notice = fn }

func (f *fakeSession) ListRelations() ([]pgfed.RelationInfo, error) {
	f.log("ListRelations")
	return f.relations, nil
}

func (f *fakeSession) DescribeRelation(pattern string) (*pgfed.RelationDesc, error) {
	f.log("DescribeRelation %q", pattern)
	name := sqlName(pattern)
	cols := []pgfed.ColumnDesc{
		{Name: "a", Type: "integer", NotNull: true, Default: "5"},
		{Name: "b", Type: "character varying(10)"},
		{Name: "c", Type: "numeric(10,2)"},
	}
	switch name {
	case "t":
		return &pgfed.RelationDesc{Schema: "public", Name: "t", Kind: "table", Columns: []pgfed.ColumnDesc{
			{Name: "a", Type: "integer"}, {Name: "b", Type: "text"}, {Name: "c", Type: "numeric"},
		}}, nil
	case "Weird":
		return &pgfed.RelationDesc{Schema: "public", Name: "Weird", Kind: "table", Columns: []pgfed.ColumnDesc{
			{Name: "x", Type: "integer"},
		}}, nil
	case "p":
		return &pgfed.RelationDesc{Schema: "public", Name: "p", Kind: "partitioned table", Columns: cols,
			PartitionKey: "RANGE (a)",
			Partitions: []string{
				"p1 FOR VALUES FROM (1) TO (10)",
				"p2 FOR VALUES FROM (10) TO (20)",
				"pd DEFAULT",
			}}, nil
	case "q":
		return &pgfed.RelationDesc{Schema: "public", Name: "q", Kind: "partitioned table",
			Columns: []pgfed.ColumnDesc{{Name: "a", Type: "integer"}}, PartitionKey: "LIST (a)"}, nil
	case "p1":
		return &pgfed.RelationDesc{Schema: "public", Name: "p1", Kind: "table", Columns: cols,
			PartitionOf: "p", PartitionBound: "FOR VALUES FROM (1) TO (10)"}, nil
	case "pd":
		return &pgfed.RelationDesc{Schema: "public", Name: "pd", Kind: "table", Columns: cols,
			PartitionOf: "p", PartitionBound: "DEFAULT"}, nil
	case "ft":
		return &pgfed.RelationDesc{Schema: "public", Name: "ft", Kind: "foreign table", Columns: []pgfed.ColumnDesc{
			{Name: "a", Type: "integer", NotNull: true}, {Name: "b", Type: "text"},
		}}, nil
	case "broken":
		return nil, errors.New("catalog is on fire")
	}
	return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
}

// fakeResult is a canned answer.
type fakeResult struct {
	cols    []pgfed.Column
	rows    [][]any // nil is NULL, otherwise a string
	tag     string
	err     error
	errAt   string // the error position is where this text first occurs, after leading blanks
	errRows int    // with err: the rows returned before it
	notices []*pgfed.Notice
}

// cols builds columns from "name:type" words.
func cols(spec string) []pgfed.Column {
	typ := map[string]types.T{
		"int4": types.Int4T, "int8": types.Int8T, "numeric": types.NumericT,
		"float8": types.Float8T, "text": types.TextT, "bool": types.BoolT, "date": types.DateT,
	}
	out := []pgfed.Column{} // not nil: "" means a result without columns
	for _, w := range strings.Fields(spec) {
		name, t, _ := strings.Cut(w, ":")
		tt, ok := typ[t]
		if !ok {
			panic("unknown type " + t)
		}
		out = append(out, pgfed.Column{Name: name, Type: tt})
	}
	return out
}

func row(vals ...any) []any { return vals }

func tagOnly(tag string) fakeResult { return fakeResult{tag: tag} }

var tRows = [][]any{
	row("1", "x", "1.5"),
	row("22", nil, nil),
	row("333", "multi\nline\nvalue", "12345.678"),
}

// canned maps statements (as canonicalSQL spells them) to their results.
var canned = map[string]fakeResult{
	// Statements without a result set.
	"create table t (a int, b text, c numeric)": tagOnly("CREATE TABLE"),
	"update t set b = 'z' where a = 4":          tagOnly("UPDATE 1"),
	"set search_path = public":                  tagOnly("SET"),
	"begin":                                     tagOnly("BEGIN"),
	"commit":                                    tagOnly("COMMIT"),
	"insert into t values (1, 'x', 1.5), (22, null, null), (333, e'multi\\nline\\nvalue', 12345.678)": tagOnly("INSERT 0 3"),

	// Result sets.
	"select * from t": {
		cols: cols("a:int4 b:text c:numeric"), rows: tRows, tag: "SELECT 3",
	},
	"select * from t where false": {
		cols: cols("a:int4 b:text c:numeric"), tag: "SELECT 0",
	},
	"select": {
		cols: cols(""), rows: [][]any{row()}, tag: "SELECT 1",
	},
	"select 1 as a, e'a\\nbb' as x": {
		cols: cols("a:int4 x:text"), rows: [][]any{row("1", "a\nbb")}, tag: "SELECT 1",
	},
	"select e'a\\nbb' as x, 1 as y": {
		cols: cols("x:text y:int4"), rows: [][]any{row("a\nbb", "1")}, tag: "SELECT 1",
	},
	"select 1 as \"a b\", 'xyz' as c": {
		cols: []pgfed.Column{{Name: "a\nb", Type: types.Int4T}, {Name: "c", Type: types.TextT}},
		rows: [][]any{row("1", "xyz")}, tag: "SELECT 1",
	},
	"select e'tab\\there' as t, e'cr\\rx' as cr, e'ctl\\x01' as ctl, 'é日本' as w": {
		cols: cols("t:text cr:text ctl:text w:text"),
		rows: [][]any{row("tab\there", "cr\rx", "ctl\x01", "é日本")}, tag: "SELECT 1",
	},
	"insert into t values (4, 'r', 1) returning a, b": {
		cols: cols("a:int4 b:text"), rows: [][]any{row("4", "r")}, tag: "INSERT 0 1",
	},
	"delete from t where a = 4 returning *": {
		cols: cols("a:int4 b:text c:numeric"), rows: [][]any{row("4", "z", "1")}, tag: "DELETE 1",
	},
	"select 1 as a, 'hello' as bb, null as c": {
		cols: cols("a:int4 bb:text c:text"), rows: [][]any{row("1", "hello", nil)}, tag: "SELECT 1",
	},
	"select * from (values (1, e'a\\nb'), (22, 'long value here')) v(num, txt)": {
		cols: cols("num:int4 txt:text"),
		rows: [][]any{row("1", "a\nb"), row("22", "long value here")}, tag: "SELECT 2",
	},
	"select 1 as a, 'x,y' as \"b,c\", 'q\"q' as d, e'l1\\nl2' as e, '' as f, null as g, '\\.' as h, ' sp ' as i": {
		cols: cols("a:int4 b,c:text d:text e:text f:text g:text h:text i:text"),
		rows: [][]any{row("1", "x,y", `q"q`, "l1\nl2", "", nil, `\.`, " sp ")}, tag: "SELECT 1",
	},

	// Errors and notices.
	"select * frm t": {
		err: pgerr.New(pgerr.SyntaxError, `syntax error at or near "frm"`), errAt: "frm",
	},
	"select a from t where b = 'zzz' and c > 0 and nosuch = 1": {
		err: pgerr.New(pgerr.UndefinedColumn, `column "nosuch" does not exist`), errAt: "nosuch",
	},
	"insert into t values (null, 'n', 0)": {
		err: pgerr.New(pgerr.NotNullViolation, `null value in column "a" of relation "t" violates not-null constraint`).
			WithDetail("Failing row contains (null, n, 0)."),
	},
	"select nosuchfunc(1)": {
		err: pgerr.New(pgerr.UndefinedFunction, "function nosuchfunc(integer) does not exist").
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts."),
		errAt: "nosuchfunc",
	},
	"select 1/0 from t": {
		cols: cols("?column?:int4"), rows: [][]any{row("1")}, errRows: 1,
		err: &pgerr.Error{Code: pgerr.DivisionByZero, Message: "division by zero", Context: "parallel worker"},
	},
	"select boom": {err: errors.New("boom")},
	"select 111111111, 222222222, 333333333, 444444444, 555555555, 666666666, 777777777, 888888888, 999999999 frm x": {
		err: pgerr.New(pgerr.SyntaxError, `syntax error at or near "x"`), errAt: " x;",
	},
	"drop table if exists nosuch": {
		tag:     "DROP TABLE",
		notices: []*pgfed.Notice{{Code: "00000", Message: `table "nosuch" does not exist, skipping`}},
	},
	"select warn()": {
		cols: cols("warn:text"), rows: [][]any{row("")}, tag: "SELECT 1",
		notices: []*pgfed.Notice{{Severity: "WARNING", Message: "careful", Detail: "it is late", Hint: "sleep",
			Context: "not shown for notices"}},
	},
}

func canonicalSQL(sql string) string {
	s := strings.Join(strings.Fields(sql), " ")
	s = strings.TrimSuffix(s, ";")
	return strings.ToLower(strings.TrimSpace(s))
}

// Run splits sql at semicolons (the fake's statements have none inside
// them) and runs each as Query does, stopping at the first error.
func (f *fakeSession) Run(ctx context.Context, sql string, fn func(Rows) error) error {
	for _, stmt := range strings.SplitAfter(sql, ";") {
		if strings.TrimSpace(strings.TrimSuffix(stmt, ";")) == "" {
			continue
		}
		rows, err := f.Query(ctx, strings.TrimSpace(stmt))
		if err != nil {
			return err
		}
		if err := fn(rows); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakeSession) Query(ctx context.Context, sql string) (Rows, error) {
	f.log("Query %q", sql)
	select {
	case f.started <- struct{}{}:
	default:
	}
	key := canonicalSQL(sql)
	switch {
	case strings.HasPrefix(key, "select pg_sleep"):
		<-ctx.Done()
		return nil, pgerr.Wrap(ctx.Err())
	case strings.HasPrefix(key, "copy") && strings.Contains(key, "from stdin"):
		return f.copyIn(key)
	case strings.HasPrefix(key, "copy") && strings.Contains(key, "to stdout"):
		w, err := f.copy.CopyOut()
		if err != nil {
			return nil, err
		}
		for _, line := range f.copied {
			io.WriteString(w, line+"\n")
		}
		return &fakeRows{res: fakeResult{tag: fmt.Sprintf("COPY %d", len(f.copied))}}, nil
	}
	res, ok := canned[key]
	if !ok {
		res = fakeResult{cols: cols("statement:text"), rows: [][]any{row(sql)}, tag: "SELECT 1"}
	}
	for _, n := range res.notices {
		f.notice(n)
	}
	if res.err != nil && res.errAt != "" {
		if pe, ok := pgerr.As(res.err); ok {
			if i := strings.Index(sql, res.errAt); i >= 0 {
				res.err = pe.WithPosition(utf8.RuneCountInString(sql[:i]) + 1 + len(res.errAt) - len(strings.TrimLeft(res.errAt, " ")))
			}
		}
	}
	if res.err != nil && res.errRows == 0 {
		return nil, res.err
	}
	return &fakeRows{res: res}, nil
}

// copyIn reads COPY data; "copy broken from stdin" fails on its first row
// without reading further, the way a data error stops COPY.
func (f *fakeSession) copyIn(key string) (Rows, error) {
	r, err := f.copy.CopyIn()
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		if strings.Contains(key, "broken") {
			return nil, &pgerr.Error{Code: pgerr.InvalidTextRepresentation,
				Message: fmt.Sprintf(`invalid input syntax for type integer: "%s"`, sc.Text()),
				Context: fmt.Sprintf(`COPY broken, line 1, column a: "%s"`, sc.Text())}
		}
		f.copied = append(f.copied, sc.Text())
		n++
	}
	if err := sc.Err(); err != nil {
		return nil, pgerr.Wrap(err)
	}
	return &fakeRows{res: fakeResult{tag: fmt.Sprintf("COPY %d", n)}}, nil
}

// fakeRows iterates a canned result.
type fakeRows struct {
	res  fakeResult
	next int
	err  error
}

func (r *fakeRows) ReturnsRows() bool       { return r.res.cols != nil }
func (r *fakeRows) Columns() []pgfed.Column { return r.res.cols }

func (r *fakeRows) Next() bool {
	if r.res.err != nil && r.next >= r.res.errRows {
		r.err = r.res.err
		return false
	}
	if r.next >= len(r.res.rows) {
		return false
	}
	r.next++
	return true
}

func (r *fakeRows) Text(i int) (string, bool) {
	v := r.res.rows[r.next-1][i]
	if v == nil {
		return "", false
	}
	return v.(string), true
}

func (r *fakeRows) Err() error { return r.err }
func (r *fakeRows) Tag() string {
	if r.err != nil {
		return ""
	}
	return r.res.tag
}
func (r *fakeRows) Close() error { return nil }

// sqlName resolves a relation name the way the engine does, as SQL reads
// it: unquoted letters fold to lower case, double quotes are removed (""
// standing for one quote), and a schema stays as a "schema." prefix.
func sqlName(name string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '"' && quoted && i+1 < len(name) && name[i+1] == '"':
			b.WriteByte('"')
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func (f *fakeSession) ListServers() ([]pgfed.ServerInfo, error) {
	f.log("ListServers")
	return []pgfed.ServerInfo{{Name: "s1", Wrapper: "postgres_fdw", Options: map[string]string{"host": "127.0.0.1", "port": "5432"}}}, nil
}

func (f *fakeSession) ListUserMappings() ([]pgfed.UserMappingInfo, error) {
	f.log("ListUserMappings")
	return []pgfed.UserMappingInfo{{Server: "s1", User: "public", Options: map[string]string{"user": "u"}}}, nil
}

func (f *fakeSession) ListForeignTables() ([]pgfed.ForeignTableInfo, error) {
	f.log("ListForeignTables")
	return []pgfed.ForeignTableInfo{{Schema: "public", Name: "ft", Server: "s1", Options: map[string]string{"table_name": "t"}}}, nil
}
