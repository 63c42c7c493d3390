package nodes

import (
	"fmt"
	"strings"

	"github.com/pgfed/pgfed/types"
)

// Expr is a resolved, typed scalar expression.
type Expr interface {
	// Type is the expression's result type.
	Type() types.T
	// String prints the expression as PostgreSQL's EXPLAIN does.
	String() string
}

// Compile-time checks that every expression kind implements Expr.
var (
	_ Expr = (*Const)(nil)
	_ Expr = (*ColumnRef)(nil)
	_ Expr = (*OpExpr)(nil)
	_ Expr = (*FuncExpr)(nil)
	_ Expr = (*BoolExpr)(nil)
	_ Expr = (*NullTest)(nil)
	_ Expr = (*DistinctExpr)(nil)
	_ Expr = (*InList)(nil)
	_ Expr = (*CaseExpr)(nil)
	_ Expr = (*Cast)(nil)
	_ Expr = (*CoalesceExpr)(nil)
	_ Expr = (*NullIfExpr)(nil)
	_ Expr = (*MinMaxExpr)(nil)
)

// Const is a constant; Value follows the datum convention of package types
// (nil = NULL).
type Const struct {
	Value any
	T     types.T
}

func (c *Const) Type() types.T { return c.T }
func (c *Const) String() string {
	if c.Value == nil {
		return "NULL::" + c.T.String()
	}
	s := types.Format(c.T, c.Value)
	switch c.T.ID {
	case types.Int4:
		if c.Value.(int64) >= 0 {
			return s
		}
		return "'" + s + "'::integer"
	case types.Int8:
		// A literal that fits integer compares with bigint directly in
		// PostgreSQL (cross-type operators), so it prints bare there.
		if v := c.Value.(int64); v >= 0 && v <= 2147483647 {
			return s
		}
	case types.Numeric:
		// get_const_expr prints a numeric bare only when it reads back as
		// numeric (a digit first, a point or exponent in it): 0.05, but
		// '24'::numeric.
		if s[0] >= '0' && s[0] <= '9' && strings.ContainsAny(s, ".eE") {
			return s
		}
	case types.Bool:
		if c.Value.(bool) {
			return "true"
		}
		return "false"
	}
	// A constant carries its base type; a length or precision is applied by
	// a coercion around it (varchar(10) defaults print 'x'::character varying).
	return "'" + strings.ReplaceAll(s, "'", "''") + "'::" + c.T.Base().String()
}

// ColumnRef reads column Index of the evaluating node's input.
type ColumnRef struct {
	Index int
	Name  string // for EXPLAIN
	T     types.T
	// Raw marks Name as the printed expression the column stands for
	// (an aggregate or group key computed below), shown unquoted.
	Raw bool
}

func (c *ColumnRef) Type() types.T { return c.T }
func (c *ColumnRef) String() string {
	if c.Raw {
		return c.Name
	}
	return quoteIdentIfNeeded(c.Name)
}

// OpExpr is a binary (or, with Left nil, prefix unary) operator: arithmetic
// + - * / %, comparisons = <> < <= > >=, || and the LIKE family
// ~~ !~~ ~~* !~~*. Operands already have the operator's input types.
type OpExpr struct {
	Op          string
	Left, Right Expr
	T           types.T
}

func (o *OpExpr) Type() types.T { return o.T }
func (o *OpExpr) String() string {
	if o.Left == nil {
		return "(" + o.Op + " " + o.Right.String() + ")"
	}
	return "(" + o.Left.String() + " " + o.Op + " " + o.Right.String() + ")"
}

// FuncExpr calls a built-in scalar function by name; Args already have the
// function's parameter types.
type FuncExpr struct {
	Name string
	Args []Expr
	T    types.T
}

func (f *FuncExpr) Type() types.T { return f.T }
func (f *FuncExpr) String() string {
	return f.Name + "(" + joinExprs(f.Args, ", ") + ")"
}

// BoolOp is AND, OR or NOT.
type BoolOp uint8

const (
	And BoolOp = iota
	Or
	Not
)

// BoolExpr is AND / OR over two or more arguments, or NOT over one, with
// three-valued logic.
type BoolExpr struct {
	Op   BoolOp
	Args []Expr
}

func (b *BoolExpr) Type() types.T { return types.BoolT }
func (b *BoolExpr) String() string {
	switch b.Op {
	case Not:
		return "(NOT " + b.Args[0].String() + ")"
	case And:
		return "(" + joinExprs(b.Args, " AND ") + ")"
	default:
		return "(" + joinExprs(b.Args, " OR ") + ")"
	}
}

// NullTest is IS [NOT] NULL.
type NullTest struct {
	Arg   Expr
	IsNot bool
}

func (n *NullTest) Type() types.T { return types.BoolT }
func (n *NullTest) String() string {
	if n.IsNot {
		return "(" + n.Arg.String() + " IS NOT NULL)"
	}
	return "(" + n.Arg.String() + " IS NULL)"
}

// DistinctExpr is IS [NOT] DISTINCT FROM.
type DistinctExpr struct {
	Left, Right Expr
	Not         bool
}

func (d *DistinctExpr) Type() types.T { return types.BoolT }
func (d *DistinctExpr) String() string {
	if d.Not {
		return "(NOT (" + d.Left.String() + " IS DISTINCT FROM " + d.Right.String() + "))"
	}
	return "(" + d.Left.String() + " IS DISTINCT FROM " + d.Right.String() + ")"
}

// InList is x [NOT] IN (list), with SQL's NULL rules.
type InList struct {
	Arg  Expr
	List []Expr
	Not  bool
}

func (in *InList) Type() types.T { return types.BoolT }
func (in *InList) String() string {
	op := "= ANY"
	if in.Not {
		op = "<> ALL"
	}
	parts := make([]string, len(in.List))
	allConst := true
	for i, e := range in.List {
		if c, ok := e.(*Const); ok && c.Value != nil {
			parts[i] = types.Format(c.T, c.Value)
			if parts[i] == "" || strings.EqualFold(parts[i], "null") || strings.ContainsAny(parts[i], " ,\"{}\\") {
				parts[i] = `"` + strings.ReplaceAll(strings.ReplaceAll(parts[i], "\\", "\\\\"), `"`, "\\\"") + `"`
			}
		} else {
			allConst = false
		}
	}
	if allConst {
		return fmt.Sprintf("(%s %s ('{%s}'::%s[]))", in.Arg, op, strings.Join(parts, ","), in.Arg.Type())
	}
	return fmt.Sprintf("(%s %s (ARRAY[%s]))", in.Arg, op, joinExprs(in.List, ", "))
}

// CaseWhen is one WHEN ... THEN ... arm.
type CaseWhen struct {
	Cond, Result Expr
}

// CaseExpr is a searched CASE (simple CASE is rewritten to searched form
// by the planner, comparing Arg = value in each Cond).
type CaseExpr struct {
	Whens []CaseWhen
	Else  Expr // nil = NULL
	T     types.T
}

func (c *CaseExpr) Type() types.T { return c.T }
func (c *CaseExpr) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	for _, w := range c.Whens {
		b.WriteString(" WHEN " + w.Cond.String() + " THEN " + w.Result.String())
	}
	if c.Else != nil {
		b.WriteString(" ELSE " + c.Else.String())
	}
	b.WriteString(" END")
	return b.String()
}

// Cast converts Arg to T. Explicit marks CAST/:: (varchar truncation) vs
// an implicit or assignment coercion.
type Cast struct {
	Arg      Expr
	T        types.T
	Explicit bool
}

func (c *Cast) Type() types.T { return c.T }

// String shows explicit casts; an implicit coercion prints as its argument,
// as PostgreSQL's deparser does (showimplicit off).
func (c *Cast) String() string {
	if !c.Explicit {
		return c.Arg.String()
	}
	return "(" + c.Arg.String() + ")::" + c.T.String()
}

// CoalesceExpr is COALESCE(args).
type CoalesceExpr struct {
	Args []Expr
	T    types.T
}

func (c *CoalesceExpr) Type() types.T  { return c.T }
func (c *CoalesceExpr) String() string { return "COALESCE(" + joinExprs(c.Args, ", ") + ")" }

// NullIfExpr is NULLIF(a, b).
type NullIfExpr struct {
	Left, Right Expr
	T           types.T
}

func (n *NullIfExpr) Type() types.T { return n.T }
func (n *NullIfExpr) String() string {
	return "NULLIF(" + n.Left.String() + ", " + n.Right.String() + ")"
}

// MinMaxExpr is GREATEST / LEAST (NULLs ignored).
type MinMaxExpr struct {
	Greatest bool
	Args     []Expr
	T        types.T
}

func (m *MinMaxExpr) Type() types.T { return m.T }
func (m *MinMaxExpr) String() string {
	name := "LEAST"
	if m.Greatest {
		name = "GREATEST"
	}
	return name + "(" + joinExprs(m.Args, ", ") + ")"
}

func joinExprs(es []Expr, sep string) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, sep)
}

// quoteIdentIfNeeded quotes an identifier as PostgreSQL's quote_identifier.
func quoteIdentIfNeeded(s string) string {
	if s == "" {
		return `""`
	}
	safe := s[0] >= 'a' && s[0] <= 'z' || s[0] == '_'
	for i := 0; i < len(s) && safe; i++ {
		c := s[i]
		safe = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.'
	}
	if safe {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// QuoteIdent quotes an identifier for display when PostgreSQL would.
func QuoteIdent(s string) string { return quoteIdentIfNeeded(s) }

// ColumnIndexes returns the column of each expression when every one is
// a plain ColumnRef (a projection that only picks columns), else nil.
func ColumnIndexes(exprs []Expr) []int {
	ids := make([]int, len(exprs))
	for i, e := range exprs {
		c, ok := e.(*ColumnRef)
		if !ok {
			return nil
		}
		ids[i] = c.Index
	}
	return ids
}

// ExprContains reports whether e or any expression below it satisfies
// pred (as WalkExpr visits them: not into a SubPlan's plan).
func ExprContains(e Expr, pred func(Expr) bool) bool {
	found := false
	WalkExpr(e, func(x Expr) { found = found || pred(x) })
	return found
}

// WalkExpr calls fn for e and every sub-expression, depth first.
func WalkExpr(e Expr, fn func(Expr)) {
	if e == nil {
		return
	}
	fn(e)
	switch x := e.(type) {
	case *OpExpr:
		WalkExpr(x.Left, fn)
		WalkExpr(x.Right, fn)
	case *FuncExpr:
		for _, a := range x.Args {
			WalkExpr(a, fn)
		}
	case *BoolExpr:
		for _, a := range x.Args {
			WalkExpr(a, fn)
		}
	case *NullTest:
		WalkExpr(x.Arg, fn)
	case *DistinctExpr:
		WalkExpr(x.Left, fn)
		WalkExpr(x.Right, fn)
	case *InList:
		WalkExpr(x.Arg, fn)
		for _, a := range x.List {
			WalkExpr(a, fn)
		}
	case *CaseExpr:
		for _, w := range x.Whens {
			WalkExpr(w.Cond, fn)
			WalkExpr(w.Result, fn)
		}
		WalkExpr(x.Else, fn)
	case *Cast:
		WalkExpr(x.Arg, fn)
	case *CoalesceExpr:
		for _, a := range x.Args {
			WalkExpr(a, fn)
		}
	case *NullIfExpr:
		WalkExpr(x.Left, fn)
		WalkExpr(x.Right, fn)
	case *MinMaxExpr:
		for _, a := range x.Args {
			WalkExpr(a, fn)
		}
	case *SubPlan:
		// Its Args and HashLeft are the outer row's; its Test and
		// HashRight read the subquery's rows, as its Plan does.
		for _, a := range x.Args {
			WalkExpr(a, fn)
		}
		WalkExpr(x.HashLeft, fn)
	}
}
