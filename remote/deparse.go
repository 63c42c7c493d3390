package remote

// Deparsing: turning pushed-down expressions and foreign scans into remote
// SQL. The output has the shapes of postgres_fdw's deparse.c, so EXPLAIN
// VERBOSE shows the "Remote SQL" PostgreSQL would: every operator
// expression parenthesized, WHERE conjuncts each in parentheses, constants
// labelled with their type unless the remote would type them the same way
// unlabelled, GROUP BY by position, ORDER BY with explicit ASC/DESC and
// NULLS FIRST/LAST. Identifiers are quoted as quote_identifier does and
// strings as quote_literal does, so any name or value survives.
//
// The remote session is set up with search_path = pg_catalog (see the
// package comment), so built-in functions and operators are written
// unqualified.

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pgfed/pgfed/funcs"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// Shippable reports whether e can be evaluated by the remote server with
// the same result: built-in operators and functions on built-in types, no
// volatile/mutable functions (now(), current_timestamp, random ...), and
// no construct the deparser cannot print.
//
// As in postgres_fdw, "mutable" includes PostgreSQL's STABLE functions and
// casts: anything that reads TimeZone or DateStyle (date/time to or from
// text, conversions to and from timestamp with time zone, date_trunc and
// extract on timestamp with time zone) stays local. Text comparisons and
// sorting are shipped on the assumption, shared with postgres_fdw, that
// the remote database uses the same collation.
//
// Unlike PostgreSQL 15's postgres_fdw, COALESCE, NULLIF, GREATEST and
// LEAST are shipped (postgres_fdw keeps them, and IS [NOT] TRUE/FALSE,
// local), so such quals show under "Remote SQL" rather than "Filter".
func Shippable(e nodes.Expr) bool { return checkNoParams(e) == nil }

// ShippableWithParams is Shippable for a single foreign scan's WHERE,
// which may also read Params (a correlated subquery's outer values, an
// InitPlan's result, a parameterized Nested Loop's outer row): they are
// sent as $1, $2 ... with the query each time the scan opens, as
// postgres_fdw's parameterized paths do. The query deparsed from such
// conditions must go through BindParams.
func ShippableWithParams(e nodes.Expr) bool { return checkExpr(e) == nil }

// checkNoParams is checkExpr refusing Params: the queries outside a
// foreign scan's (joins', modifications') have no parameters to bind.
func checkNoParams(e nodes.Expr) error {
	if e != nil && hasParam(e) {
		return notShippable("parameters here")
	}
	return checkExpr(e)
}

// ShippableAgg reports whether the aggregate call a can be computed by the
// remote server: a built-in aggregate whose arguments, FILTER and ORDER BY
// are shippable.
func ShippableAgg(a *nodes.AggCall) bool { return !aggReadsParams(a) && checkAgg(a) == nil }

// aggReadsParams reports whether an aggregate call reads a Param: only a
// scan's WHERE binds them.
func aggReadsParams(a *nodes.AggCall) bool {
	exprs := append([]nodes.Expr{a.Filter}, a.Args...)
	for _, k := range a.OrderBy {
		exprs = append(exprs, k.Expr)
	}
	for _, e := range exprs {
		if e != nil && hasParam(e) {
			return true
		}
	}
	return false
}

func hasParam(e nodes.Expr) bool {
	found := false
	nodes.WalkExpr(e, func(x nodes.Expr) {
		_, p := x.(*nodes.Param)
		found = found || p
	})
	return found
}

// Deparser prints expressions as remote SQL. Column references
// (ColumnRef.Index) name the remote columns through Cols (already the
// remote column names, e.g. from the column_name option).
type Deparser struct{ Cols []string }

// Expr prints e as remote SQL. It fails if e is not Shippable or refers
// to a column outside Cols.
func (d *Deparser) Expr(e nodes.Expr) (string, error) {
	if err := checkNoParams(e); err != nil {
		return "", err
	}
	p := printer{cols: d.Cols}
	p.expr(e)
	return p.result()
}

// ExprOver prints e as remote SQL in which column reference i is the SQL
// text cols[i] (already qualified and quoted, as r1."C 1" in a pushed-down
// join). It fails if e is not Shippable.
func ExprOver(e nodes.Expr, cols []string) (string, error) {
	if err := checkNoParams(e); err != nil {
		return "", err
	}
	p := printer{cols: cols, rawCols: true}
	p.expr(e)
	return p.result()
}

// Select is the remote query of a foreign scan.
type Select struct {
	Schema, Table string // remote relation (quoted by SQL); Schema "" leaves it unqualified
	// Columns are the remote column names to fetch, in order; with none,
	// the query fetches "NULL" as postgres_fdw does.
	Columns []string
	// Where are conjuncts, ANDed; their ColumnRef.Index indexes AllCols.
	Where []nodes.Expr
	// AllCols are the remote names of all the foreign table's columns, the
	// columns that Where, GroupBy, Aggs and OrderBy refer to.
	AllCols []string
	GroupBy []nodes.Expr
	// Aggs, when set (or GroupBy is), make the SELECT list the GroupBy
	// expressions then these aggregates; Columns is then ignored.
	Aggs []*nodes.AggCall
	// OrderBy reads AllCols too, also in an aggregate query (where it
	// may then only use grouped columns); keys without a column are left
	// out.
	OrderBy []nodes.SortKey
	// Limit and Offset are constant expressions; nil means none.
	Limit, Offset nodes.Expr
	// ForUpdate locks the rows read (the scan of an UPDATE or DELETE).
	ForUpdate bool
}

// SQL builds the query, e.g.
//
//	SELECT a, b FROM public.t WHERE ((a > 10)) AND ((b = 'x'::text)) ORDER BY a ASC NULLS LAST LIMIT 10::bigint
//	SELECT b, count(*), sum(a) FROM public.t GROUP BY 1
//
// It fails if an expression or aggregate is not shippable.
func (s *Select) SQL() (string, error) {
	if err := s.check(); err != nil {
		return "", err
	}
	p := printer{cols: s.AllCols}
	p.WriteString("SELECT ")
	switch {
	case len(s.GroupBy) > 0 || len(s.Aggs) > 0:
		p.exprList(s.GroupBy, ", ")
		for i, a := range s.Aggs {
			if i > 0 || len(s.GroupBy) > 0 {
				p.WriteString(", ")
			}
			p.agg(a)
		}
	case len(s.Columns) == 0:
		p.WriteString("NULL")
	default:
		for i, c := range s.Columns {
			if i > 0 {
				p.WriteString(", ")
			}
			p.WriteString(QuoteIdent(c))
		}
	}
	p.WriteString(" FROM ")
	p.WriteString(Relation{Schema: s.Schema, Table: s.Table}.sql())
	p.where(s.Where)
	for i := range s.GroupBy {
		if i == 0 {
			p.WriteString(" GROUP BY ")
		} else {
			p.WriteString(", ")
		}
		// Positions, as postgres_fdw writes them: the SELECT list starts
		// with the grouping expressions.
		p.WriteString(strconv.Itoa(i + 1))
	}
	p.sortKeys(" ORDER BY ", s.OrderBy)
	if s.Limit != nil {
		p.WriteString(" LIMIT ")
		p.expr(s.Limit)
	}
	if s.Offset != nil {
		p.WriteString(" OFFSET ")
		p.expr(s.Offset)
	}
	if s.ForUpdate {
		p.WriteString(" FOR UPDATE")
	}
	return p.result()
}

// check verifies that everything s would print is shippable.
func (s *Select) check() error {
	if s.Table == "" {
		return pgerr.Internal("remote: foreign scan without a remote table name")
	}
	exprs := append(append([]nodes.Expr(nil), s.Where...), s.GroupBy...)
	for _, k := range s.OrderBy {
		exprs = append(exprs, k.Expr)
	}
	for _, e := range []nodes.Expr{s.Limit, s.Offset} {
		if e != nil {
			exprs = append(exprs, e)
		}
	}
	for _, e := range exprs {
		if err := checkExpr(e); err != nil {
			return err
		}
	}
	for _, a := range s.Aggs {
		if err := checkAgg(a); err != nil {
			return err
		}
	}
	return nil
}

// QuoteIdent quotes an identifier as PostgreSQL's quote_identifier does:
// it is left as is only if it is a lower-case simple identifier
// ([a-z_][a-z0-9_]*) that is not a keyword, or is an unreserved keyword.
// Embedded double quotes are doubled.
func QuoteIdent(s string) string {
	safe := s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] == '_')
	for i := 1; safe && i < len(s); i++ {
		c := s[i]
		safe = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if safe && !quotedKeywords[s] {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// QuoteLiteral quotes a string as a SQL literal as quote_literal does:
// single quotes are doubled, and a string with backslashes is written as
// E'...' with the backslashes doubled, so it reads the same whatever the
// remote standard_conforming_strings.
func QuoteLiteral(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 3)
	if strings.Contains(s, `\`) {
		b.WriteByte('E')
	}
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' || s[i] == '\\' {
			b.WriteByte(s[i])
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('\'')
	return b.String()
}

// Literal prints the datum v of type t as a remote SQL constant that the
// remote server types as t: 1::integer, 1.50::numeric, 'abc'::text,
// '2024-01-01'::date, 'NaN'::double precision, (-1)::integer, true,
// NULL::integer. An untyped (unknown) value prints as a bare string
// literal. v must be a valid datum of t (strings without NUL bytes, valid
// UTF-8), as Shippable checks for constants.
func Literal(t types.T, v any) string { return constSQL(t, v, true) }

// constSQL prints a constant as postgres_fdw's deparseConst does. Numbers
// are written bare, negatives parenthesized, special values (NaN,
// Infinity, -0) quoted; everything else is a quoted literal. The type
// label is left out where the remote would infer the same type from the
// bare spelling (integer, numeric with a decimal point, boolean) unless
// label is set.
func constSQL(t types.T, v any, label bool) string {
	if v == nil {
		if t.ID == types.Unknown {
			return "NULL"
		}
		return "NULL::" + t.String()
	}
	s := types.Format(t, v)
	switch {
	case t.ID == types.Bool:
		if v.(bool) {
			return "true"
		}
		return "false"
	case t.ID == types.Unknown:
		return QuoteLiteral(s)
	case t.IsNumeric() && isPlainNumber(s):
		needLabel := true
		switch t.ID {
		case types.Int4:
			needLabel = false
		case types.Numeric:
			// A bare 1.5 is read as numeric, a bare 1 as integer.
			needLabel = !strings.ContainsAny(s, ".eE") || t.Precision > 0
		}
		if s[0] == '-' || s[0] == '+' {
			s = "(" + s + ")"
		}
		if needLabel || label {
			s += "::" + t.String()
		}
		return s
	}
	return QuoteLiteral(s) + "::" + t.String()
}

// isPlainNumber reports whether a number's text output can be written as a
// bare numeric literal with the same value: digits, sign, point and
// exponent only (not NaN or Infinity), and not -0, which a numeric
// literal would turn into 0.
func isPlainNumber(s string) bool {
	if s == "" || s == "-0" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789+-eE.", rune(s[i])) {
			return false
		}
	}
	return true
}

// printer accumulates remote SQL; the first error (a column index out of
// range) is kept and stops nothing, since the text is discarded then.
type printer struct {
	strings.Builder
	cols []string
	// rawCols: cols are SQL already (qualified, quoted), as in a join.
	rawCols bool
	err     error
}

func (p *printer) result() (string, error) {
	if p.err != nil {
		return "", p.err
	}
	return p.String(), nil
}

// expr prints an expression that checkExpr accepted.
func (p *printer) expr(e nodes.Expr) {
	switch x := e.(type) {
	case *nodes.Const:
		p.WriteString(constSQL(x.T, x.Value, false))
	case *nodes.Param:
		p.WriteString(paramMark(x.ID))
		p.WriteString("::")
		p.WriteString(x.T.String())
	case *nodes.ColumnRef:
		if x.Index < 0 || x.Index >= len(p.cols) {
			if p.err == nil {
				p.err = pgerr.Internal("remote: column reference %d out of range (%d remote columns)", x.Index, len(p.cols))
			}
			return
		}
		if p.rawCols {
			p.WriteString(p.cols[x.Index])
		} else {
			p.WriteString(QuoteIdent(p.cols[x.Index]))
		}
	case *nodes.OpExpr:
		p.WriteByte('(')
		if x.Left != nil {
			p.operand(x.Left, x.Right)
			p.WriteByte(' ')
			p.WriteString(x.Op)
			p.WriteByte(' ')
			p.operand(x.Right, x.Left)
		} else {
			// The space after a prefix operator keeps "- -1" from reading
			// as a comment ("--").
			p.WriteString(x.Op)
			p.WriteByte(' ')
			p.expr(x.Right)
		}
		p.WriteByte(')')
	case *nodes.FuncExpr:
		// Quoting makes keyword-named functions ("substring", "extract")
		// ordinary function calls rather than SQL syntax.
		p.WriteString(QuoteIdent(x.Name))
		p.WriteByte('(')
		p.exprList(x.Args, ", ")
		p.WriteByte(')')
	case *nodes.BoolExpr:
		switch x.Op {
		case nodes.Not:
			p.WriteString("(NOT ")
			p.expr(x.Args[0])
			p.WriteByte(')')
		case nodes.And:
			p.WriteByte('(')
			p.exprList(x.Args, " AND ")
			p.WriteByte(')')
		default:
			p.WriteByte('(')
			p.exprList(x.Args, " OR ")
			p.WriteByte(')')
		}
	case *nodes.NullTest:
		p.WriteByte('(')
		p.expr(x.Arg)
		if x.IsNot {
			p.WriteString(" IS NOT NULL)")
		} else {
			p.WriteString(" IS NULL)")
		}
	case *nodes.DistinctExpr:
		// IS NOT DISTINCT FROM is NOT over IS DISTINCT FROM in
		// PostgreSQL's trees, and prints so.
		if x.Not {
			p.WriteString("(NOT ")
		}
		p.WriteByte('(')
		p.operand(x.Left, x.Right)
		p.WriteString(" IS DISTINCT FROM ")
		p.operand(x.Right, x.Left)
		p.WriteByte(')')
		if x.Not {
			p.WriteByte(')')
		}
	case *nodes.InList:
		p.inList(x)
	case *nodes.CaseExpr:
		p.WriteString("(CASE")
		for _, w := range x.Whens {
			p.WriteString(" WHEN ")
			p.expr(w.Cond)
			p.WriteString(" THEN ")
			p.expr(w.Result)
		}
		if x.Else != nil {
			p.WriteString(" ELSE ")
			p.expr(x.Else)
		}
		p.WriteString(" END)")
	case *nodes.Cast:
		p.cast(x)
	case *nodes.CoalesceExpr:
		p.WriteString("COALESCE(")
		p.exprList(x.Args, ", ")
		p.WriteByte(')')
	case *nodes.NullIfExpr:
		p.WriteString("NULLIF(")
		p.expr(x.Left)
		p.WriteString(", ")
		p.expr(x.Right)
		p.WriteByte(')')
	case *nodes.MinMaxExpr:
		if x.Greatest {
			p.WriteString("GREATEST(")
		} else {
			p.WriteString("LEAST(")
		}
		p.exprList(x.Args, ", ")
		p.WriteByte(')')
	}
}

// where prints conjuncts as postgres_fdw does: " WHERE (c1) AND (c2)".
func (p *printer) where(conds []nodes.Expr) {
	for i, w := range conds {
		if i == 0 {
			p.WriteString(" WHERE ")
		} else {
			p.WriteString(" AND ")
		}
		p.WriteByte('(')
		p.expr(w)
		p.WriteByte(')')
	}
}

func (p *printer) exprList(es []nodes.Expr, sep string) {
	for i, e := range es {
		if i > 0 {
			p.WriteString(sep)
		}
		p.expr(e)
	}
}

// cast prints a conversion as (arg)::type, or, for a constant, the
// constant it folds to (as PostgreSQL's planner would have folded it).
func (p *printer) cast(c *nodes.Cast) {
	if k, ok := foldCast(c); ok {
		p.WriteString(constSQL(k.T, k.Value, false))
		return
	}
	p.WriteByte('(')
	p.expr(c.Arg)
	p.WriteString(")::")
	p.WriteString(c.T.String())
}

// operand prints e, an operand of a binary operator (or IS DISTINCT FROM)
// whose other operand is other. A widening implicit cast on e is left out
// when other already has the cast's target type, as postgres_fdw leaves
// out implicit coercions: the remote then picks the same operator or an
// equivalent cross-type one (int2 = int4 is int24eq, real < double
// precision float48lt, varchar = text texteq), and an index on the column
// stays usable. Elsewhere, where the remote might resolve the uncast
// expression differently (-smallint overflows where -integer does not),
// casts are printed.
func (p *printer) operand(e, other nodes.Expr) {
	if c, ok := liftableCast(e); ok && other.Type().ID == c.T.ID {
		if _, otherLifted := liftableCast(other); !otherLifted {
			p.expr(c.Arg)
			return
		}
	}
	p.expr(e)
}

// liftableCast returns e if it is an implicit cast that PostgreSQL would
// insert by itself: one of its implicit pg_cast conversions, to a type
// without modifier, of a non-constant. char(n) is excluded: whether its
// padding counts depends on which side of a comparison gets converted,
// which is not left to the remote.
func liftableCast(e nodes.Expr) (*nodes.Cast, bool) {
	c, ok := e.(*nodes.Cast)
	if !ok || c.Explicit || hasTypmod(c.T) {
		return nil, false
	}
	if _, folds := foldCast(c); folds {
		return nil, false
	}
	from, to := c.Arg.Type(), c.T
	ok = from.ID != to.ID && from.ID != types.Unknown && from.ID != types.Bpchar && to.ID != types.Bpchar &&
		types.CanCast(from, to, types.CastImplicit)
	return c, ok
}

// foldCast computes a cast of a constant locally, as PostgreSQL's planner
// folds it, so that the remote sees only the resulting constant. It fails
// if the argument is not a constant or the cast fails (the remote is then
// left to fail the same way) or needs the current time ('now'::date).
func foldCast(c *nodes.Cast) (*nodes.Const, bool) {
	k, ok := c.Arg.(*nodes.Const)
	if !ok {
		return nil, false
	}
	if k.Value == nil {
		return &nodes.Const{T: c.T}, true
	}
	v, err := types.Cast(k.Value, k.T, c.T, c.Explicit)
	if err != nil {
		return nil, false
	}
	return &nodes.Const{T: c.T, Value: v}, true
}

// inList prints x [NOT] IN (...) as postgres_fdw prints the
// ScalarArrayOpExpr PostgreSQL makes of it: "= ANY" over an array
// constant when every element is a constant of one type, else over an
// ARRAY[...] constructor; NOT IN is "<> ALL".
func (p *printer) inList(x *nodes.InList) {
	p.WriteByte('(')
	lit, elemType, isLit := arrayLiteral(x.List)
	if c, ok := liftableCast(x.Arg); ok && isLit && elemType.ID == c.T.ID {
		// As for a binary operator's operand (see operand).
		p.expr(c.Arg)
	} else {
		p.expr(x.Arg)
	}
	if x.Not {
		p.WriteString(" <> ALL (")
	} else {
		p.WriteString(" = ANY (")
	}
	if isLit {
		p.WriteString(lit)
	} else {
		p.WriteString("ARRAY[")
		p.exprList(x.List, ", ")
		p.WriteByte(']')
	}
	p.WriteString("))")
}

// arrayLiteral writes a list of constants of one type as an array
// constant, '{1,2,NULL}'::integer[], quoting elements as array_out does.
// It also returns the element type. Casts of constants count as the
// constants they fold to.
func arrayLiteral(list []nodes.Expr) (string, types.T, bool) {
	var elemType types.T
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range list {
		c, ok := e.(*nodes.Const)
		if cast, isCast := e.(*nodes.Cast); isCast {
			c, ok = foldCast(cast)
		}
		if !ok || c.T.ID == types.Unknown || i > 0 && c.T.Base() != elemType {
			return "", types.T{}, false
		}
		elemType = c.T.Base()
		if i > 0 {
			b.WriteByte(',')
		}
		if c.Value == nil {
			b.WriteString("NULL")
			continue
		}
		b.WriteString(arrayElement(types.Format(c.T, c.Value)))
	}
	b.WriteByte('}')
	return QuoteLiteral(b.String()) + "::" + elemType.String() + "[]", elemType, true
}

// arrayElement quotes an array element when array_in would otherwise read
// it differently: empty, NULL, or containing braces, quotes, commas,
// backslashes or white space (which array_in trims).
func arrayElement(s string) string {
	needsQuotes := s == "" || strings.EqualFold(s, "NULL") || strings.ContainsAny(s, "{}\",\\ \t\n\r\v\f")
	if !needsQuotes {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// agg prints an aggregate call as postgres_fdw's deparseAggref does.
func (p *printer) agg(a *nodes.AggCall) {
	p.WriteString(QuoteIdent(a.Name))
	p.WriteByte('(')
	if a.Star {
		p.WriteByte('*')
	} else {
		if a.Distinct {
			p.WriteString("DISTINCT ")
		}
		p.exprList(a.Args, ", ")
		p.sortKeys(" ORDER BY ", a.OrderBy)
	}
	p.WriteByte(')')
	if a.Filter != nil {
		p.WriteString(" FILTER (WHERE ")
		p.expr(a.Filter)
		p.WriteByte(')')
	}
}

// sortKeys prints prefix and the sort keys, each with explicit direction
// and NULLS placement. Keys that read no column are left out: ordering by
// a constant changes nothing, and a bare integer would be taken for an
// output column position.
func (p *printer) sortKeys(prefix string, keys []nodes.SortKey) {
	first := true
	for _, k := range keys {
		if isConstant(k.Expr) {
			continue
		}
		if first {
			p.WriteString(prefix)
			first = false
		} else {
			p.WriteString(", ")
		}
		p.expr(k.Expr)
		if k.Desc {
			p.WriteString(" DESC")
		} else {
			p.WriteString(" ASC")
		}
		if k.NullsFirst {
			p.WriteString(" NULLS FIRST")
		} else {
			p.WriteString(" NULLS LAST")
		}
	}
}

// isConstant reports whether e reads no column.
func isConstant(e nodes.Expr) bool {
	constant := true
	nodes.WalkExpr(e, func(x nodes.Expr) {
		if _, ok := x.(*nodes.ColumnRef); ok {
			constant = false
		}
	})
	return constant
}

func hasTypmod(t types.T) bool { return t.Len >= 0 || t.Precision > 0 }

// checkExpr returns nil if e is shippable, else an error naming the first
// construct that is not.
func checkExpr(e nodes.Expr) error {
	switch x := e.(type) {
	case *nodes.Const:
		return checkConst(x)
	case *nodes.Param:
		return checkConst(&nodes.Const{T: x.T}) // sent as its type's text
	case *nodes.ColumnRef:
		return nil
	case *nodes.OpExpr:
		switch {
		case x.Right == nil:
			return notShippable("operator %s without operand", x.Op)
		case x.Left == nil && !prefixOps[x.Op]:
			return notShippable("prefix operator %s", x.Op)
		case x.Left != nil && !binaryOps[x.Op]:
			return notShippable("operator %s", x.Op)
		case x.Left != nil:
			if err := checkExpr(x.Left); err != nil {
				return err
			}
		}
		return checkExpr(x.Right)
	case *nodes.FuncExpr:
		argTypes := make([]types.T, len(x.Args))
		for i, a := range x.Args {
			argTypes[i] = a.Type()
		}
		if !funcs.Shippable(x.Name, argTypes) {
			// Not immutable (date_trunc of timestamptz reads TimeZone), or
			// not PostgreSQL's.
			return notShippable("function %s(%s)", x.Name, typeList(argTypes))
		}
		return checkList(x.Args)
	case *nodes.BoolExpr:
		if x.Op == nodes.Not && len(x.Args) != 1 || len(x.Args) == 0 {
			return notShippable("boolean expression with %d arguments", len(x.Args))
		}
		return checkList(x.Args)
	case *nodes.NullTest:
		return checkExpr(x.Arg)
	case *nodes.DistinctExpr:
		return checkList([]nodes.Expr{x.Left, x.Right})
	case *nodes.InList:
		if len(x.List) == 0 {
			return notShippable("empty IN list")
		}
		if err := checkExpr(x.Arg); err != nil {
			return err
		}
		return checkList(x.List)
	case *nodes.CaseExpr:
		if len(x.Whens) == 0 {
			return notShippable("CASE without WHEN")
		}
		for _, w := range x.Whens {
			if err := checkList([]nodes.Expr{w.Cond, w.Result}); err != nil {
				return err
			}
		}
		if x.Else != nil {
			return checkExpr(x.Else)
		}
		return nil
	case *nodes.Cast:
		if k, ok := foldCast(x); ok {
			// Only the folded constant is sent: the cast's volatility does
			// not matter.
			return checkConst(k)
		}
		if err := checkCast(x); err != nil {
			return err
		}
		return checkExpr(x.Arg)
	case *nodes.CoalesceExpr:
		if len(x.Args) == 0 {
			return notShippable("COALESCE without arguments")
		}
		return checkList(x.Args)
	case *nodes.NullIfExpr:
		return checkList([]nodes.Expr{x.Left, x.Right})
	case *nodes.MinMaxExpr:
		if len(x.Args) == 0 {
			return notShippable("GREATEST/LEAST without arguments")
		}
		return checkList(x.Args)
	case nil:
		return notShippable("missing expression")
	}
	return notShippable("expression %T", e)
}

func checkList(es []nodes.Expr) error {
	for _, e := range es {
		if err := checkExpr(e); err != nil {
			return err
		}
	}
	return nil
}

// checkConst refuses string values the remote cannot receive in query
// text: NUL bytes and invalid UTF-8.
func checkConst(c *nodes.Const) error {
	s, ok := c.Value.(string)
	if !ok {
		return nil
	}
	if strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) {
		return notShippable("string constant with a NUL byte or invalid UTF-8")
	}
	return nil
}

// checkCast accepts the casts PostgreSQL has that are immutable.
func checkCast(c *nodes.Cast) error {
	from, to := c.Arg.Type(), c.T
	switch {
	case !types.CanCast(from, to, types.CastExplicit):
		return notShippable("cast from %s to %s", from, to)
	case !c.Explicit && to.IsString() && hasTypmod(to) && from != to:
		// Implicit coercion to varchar(n)/char(n) fails on overflow where
		// the only spelling the remote has, ::, truncates.
		return notShippable("implicit coercion to %s", to)
	case !immutableCast(from, to):
		return notShippable("cast from %s to %s (it depends on TimeZone or DateStyle)", from, to)
	}
	return nil
}

// immutableCast reports whether PostgreSQL's cast from -> to is immutable.
// The stable ones are date/time input and output (DateStyle, TimeZone)
// and conversions to and from timestamp with time zone (TimeZone).
func immutableCast(from, to types.T) bool {
	fromText := from.IsString() || from.ID == types.Unknown
	switch {
	case from.ID == to.ID:
		return true
	case from.IsDatetime() && to.IsString(), fromText && to.IsDatetime():
		return false
	case from.ID == types.TimestampTZ, to.ID == types.TimestampTZ:
		return false
	}
	return true
}

// checkAgg accepts built-in aggregates over shippable expressions.
func checkAgg(a *nodes.AggCall) error {
	if a == nil {
		return notShippable("missing aggregate")
	}
	if agg := funcs.Aggregate(a.Name); agg == nil || !agg.Remote {
		return notShippable("aggregate %s", a.Name)
	}
	if a.Star {
		if a.Name != "count" || len(a.Args) > 0 || a.Distinct || len(a.OrderBy) > 0 {
			return notShippable("aggregate %s(*)", a.Name)
		}
	} else if len(a.Args) == 0 {
		return notShippable("aggregate %s without arguments", a.Name)
	}
	if err := checkList(a.Args); err != nil {
		return err
	}
	for _, k := range a.OrderBy {
		if err := checkExpr(k.Expr); err != nil {
			return err
		}
	}
	if a.Filter != nil {
		return checkExpr(a.Filter)
	}
	return nil
}

func notShippable(format string, args ...any) error {
	return pgerr.Internal("remote: cannot push down "+format, args...)
}

// binaryOps are the built-in binary operators pgfed's planner produces;
// on the operand types it gives them they are all immutable.
var binaryOps = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "%": true,
	"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true,
	"||": true, "~~": true, "!~~": true, "~~*": true, "!~~*": true,
	"^": true, "&": true, "|": true, "#": true, "<<": true, ">>": true,
}

// prefixOps are the built-in prefix operators pgfed's planner produces.
var prefixOps = map[string]bool{"-": true, "+": true, "@": true, "~": true, "|/": true, "||/": true}

// quotedKeywords are PostgreSQL 15's keywords that quote_identifier
// quotes: the reserved, col_name and type_func_name ones (in that order,
// as pg_get_keywords() lists them). Unreserved keywords are plain
// identifiers.
var quotedKeywords = setOf(strings.Fields(`
	all analyse analyze and any array as asc asymmetric both case cast check
	collate column constraint create current_catalog current_date
	current_role current_time current_timestamp current_user default
	deferrable desc distinct do else end except false fetch for foreign from
	grant group having in initially intersect into lateral leading limit
	localtime localtimestamp not null offset on only or order placing primary
	references returning select session_user some symmetric table then to
	trailing true union unique user using variadic when where window with

	between bigint bit boolean char character coalesce dec decimal exists
	extract float greatest grouping inout int integer interval least national
	nchar none normalize nullif numeric out overlay position precision real
	row setof smallint substring time timestamp treat trim values varchar
	xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces
	xmlparse xmlpi xmlroot xmlserialize xmltable

	authorization binary collation concurrently cross current_schema freeze
	full ilike inner is isnull join left like natural notnull outer overlaps
	right similar tablesample verbose
`)...)

func setOf(words ...string) map[string]bool {
	set := make(map[string]bool, len(words))
	for _, w := range words {
		set[w] = true
	}
	return set
}

func typeList(ts []types.T) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return strings.Join(parts, ", ")
}

// AggOver prints the aggregate call a as remote SQL in which column
// reference i is the SQL text cols[i], as ExprOver does: the aggregate of
// a pushed-down join's rows, e.g. sum(r1.amount). It fails if a is not
// ShippableAgg.
func AggOver(a *nodes.AggCall, cols []string) (string, error) {
	if err := checkAgg(a); err != nil {
		return "", err
	}
	p := printer{cols: cols, rawCols: true}
	p.agg(a)
	return p.result()
}

// SortKeyOver prints one ORDER BY item over cols, "r1.c1 ASC NULLS LAST"
// as postgres_fdw's appendOrderByClause does. A key that reads no column
// gives "": ordering by a constant changes nothing, and a bare integer
// would be taken for an output column position.
func SortKeyOver(k nodes.SortKey, cols []string) (string, error) {
	if isConstant(k.Expr) {
		return "", nil
	}
	if err := checkExpr(k.Expr); err != nil {
		return "", err
	}
	p := printer{cols: cols, rawCols: true}
	p.sortKeys("", []nodes.SortKey{k})
	return p.result()
}

// LimitSQL prints LIMIT and OFFSET as postgres_fdw's appendLimitClause
// does, " LIMIT 10::bigint OFFSET 5::bigint"; either may be nil. It fails
// unless both are constants.
func LimitSQL(count, offset nodes.Expr) (string, error) {
	p := printer{}
	for _, c := range []struct {
		word string
		e    nodes.Expr
	}{{" LIMIT ", count}, {" OFFSET ", offset}} {
		if c.e == nil {
			continue
		}
		k, ok := c.e.(*nodes.Const)
		if !ok {
			return "", notShippable("%snot a constant", c.word)
		}
		if err := checkConst(k); err != nil {
			return "", err
		}
		p.WriteString(c.word)
		p.expr(k)
	}
	return p.result()
}

// UpperSQL is the remote query of a pushed-down join with what was pushed
// above it: "SELECT cols FROM from WHERE ... GROUP BY 1, 2 HAVING ...
// ORDER BY ... LIMIT ...", GROUP BY by position as postgres_fdw writes it
// (the SELECT list starts with the grouping expressions).
func UpperSQL(j *nodes.RemoteJoin) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	if len(j.Cols) == 0 {
		b.WriteString("NULL")
	}
	b.WriteString(strings.Join(j.Cols, ", "))
	b.WriteString(" FROM ")
	b.WriteString(j.From)
	clause := func(word string, conds []string) {
		for i, c := range conds {
			if i == 0 {
				b.WriteString(word)
			} else {
				b.WriteString(" AND ")
			}
			b.WriteString("(" + c + ")")
		}
	}
	clause(" WHERE ", j.Where)
	for i := 0; i < j.GroupBy; i++ {
		if i == 0 {
			b.WriteString(" GROUP BY ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(i + 1))
	}
	clause(" HAVING ", j.Having)
	if len(j.OrderBy) > 0 {
		b.WriteString(" ORDER BY ")
		b.WriteString(strings.Join(j.OrderBy, ", "))
	}
	b.WriteString(j.Limit)
	return b.String()
}

// A Param is printed as a mark (NUL, its ID, NUL: no SQL text holds a
// NUL) that BindParams numbers.
func paramMark(id int) string { return "\x00" + strconv.Itoa(id) + "\x00" }

// BindParams numbers the Params in sql $1, $2 ... in order of first
// appearance (a Param used twice is one $n) and returns the query and
// the Params' IDs in $n order.
func BindParams(sql string) (string, []int) {
	if !strings.Contains(sql, "\x00") {
		return sql, nil
	}
	var b strings.Builder
	var ids []int
	num := map[int]int{}
	for {
		i := strings.IndexByte(sql, 0)
		if i < 0 {
			b.WriteString(sql)
			return b.String(), ids
		}
		j := i + 1 + strings.IndexByte(sql[i+1:], 0)
		id, _ := strconv.Atoi(sql[i+1 : j])
		n, ok := num[id]
		if !ok {
			ids = append(ids, id)
			n = len(ids)
			num[id] = n
		}
		b.WriteString(sql[:i])
		b.WriteString("$" + strconv.Itoa(n))
		sql = sql[j+1:]
	}
}
