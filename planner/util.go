package planner

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v6"
)

func fmtType(v any) string { return fmt.Sprintf("%T", v) }

// anyParseNode reports whether match holds for a node of the expression
// parse tree n, looking through AND / OR / NOT, operators, casts,
// function arguments and IS [NOT] NULL; opaque, when set, decides for a
// node of any other kind (a conservative caller counts it as found).
func anyParseNode(n *pg.Node, match, opaque func(*pg.Node) bool) bool {
	if n == nil {
		return false
	}
	if match(n) {
		return true
	}
	any := func(ns ...*pg.Node) bool {
		for _, a := range ns {
			if anyParseNode(a, match, opaque) {
				return true
			}
		}
		return false
	}
	switch x := n.Node.(type) {
	case *pg.Node_BoolExpr:
		return any(x.BoolExpr.Args...)
	case *pg.Node_AExpr:
		return any(x.AExpr.Lexpr, x.AExpr.Rexpr)
	case *pg.Node_TypeCast:
		return any(x.TypeCast.Arg)
	case *pg.Node_FuncCall:
		return any(x.FuncCall.Args...)
	case *pg.Node_NullTest:
		return any(x.NullTest.Arg)
	}
	return opaque != nil && opaque(n)
}
