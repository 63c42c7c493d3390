package planner

// Plan-time partition pruning: a partition is skipped when a conjunct of
// the WHERE clause of the form `key op constant` (op one of = < <= > >=,
// or key IN (constants), or key IS NULL) cannot hold for any row its
// bound admits. Only the first partition-key column is used for range
// bounds with several columns.

import (
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

// keyPred is one usable predicate on a table column.
type keyPred struct {
	col  int    // table column
	op   string // = < <= > >=, "in", "null"
	vals []any
}

func (pc *planCtx) prunePartitions(t *storage.Table, filter nodes.Expr, cols []int) []*storage.Table {
	var preds []keyPred
	if filter != nil && pc.settings().Bool("enable_partition_pruning") {
		preds = collectPreds(filter, cols)
	}
	var out []*storage.Table
	var walk func(p *storage.Table)
	walk = func(p *storage.Table) {
		for _, c := range p.Partitions() {
			if !mayContain(p, c, preds) {
				continue
			}
			if c.Kind == storage.KindPartitioned {
				walk(c)
			} else {
				out = append(out, c)
			}
		}
	}
	walk(t)
	return out
}

func collectPreds(e nodes.Expr, cols []int) []keyPred {
	var out []keyPred
	var conj []nodes.Expr
	if b, ok := e.(*nodes.BoolExpr); ok && b.Op == nodes.And {
		conj = b.Args
	} else {
		conj = []nodes.Expr{e}
	}
	for _, c := range conj {
		switch x := c.(type) {
		case *nodes.OpExpr:
			col, ok1 := x.Left.(*nodes.ColumnRef)
			k, ok2 := x.Right.(*nodes.Const)
			op := x.Op
			if !ok1 || !ok2 {
				col, ok1 = x.Right.(*nodes.ColumnRef)
				k, ok2 = x.Left.(*nodes.Const)
				op = flipOp(op)
			}
			if ok1 && ok2 && k.Value != nil && op != "<>" && op != "" {
				out = append(out, keyPred{col: cols[col.Index], op: op, vals: []any{k.Value}})
			}
		case *nodes.InList:
			col, ok := x.Arg.(*nodes.ColumnRef)
			if !ok || x.Not {
				continue
			}
			var vals []any
			for _, it := range x.List {
				k, ok := it.(*nodes.Const)
				if !ok {
					vals = nil
					break
				}
				if k.Value != nil {
					vals = append(vals, k.Value)
				}
			}
			if vals != nil {
				out = append(out, keyPred{col: cols[col.Index], op: "in", vals: vals})
			}
		case *nodes.NullTest:
			if col, ok := x.Arg.(*nodes.ColumnRef); ok && !x.IsNot {
				out = append(out, keyPred{col: cols[col.Index], op: "null"})
			}
		}
	}
	return out
}

func flipOp(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	case "=":
		return "="
	}
	return ""
}

// mayContain reports whether partition c of parent p can hold rows that
// satisfy every predicate on p's first key column.
func mayContain(p, c *storage.Table, preds []keyPred) bool {
	key := p.PartKey
	keyCol := key.Columns[0]
	kt := p.Columns[keyCol].Type
	b := c.Bound
	for _, pr := range preds {
		if pr.col != keyCol {
			continue
		}
		if b.Default {
			// The default partition takes what no other accepts; keep it
			// unless an equality value is accepted elsewhere.
			if pr.op == "=" && len(key.Columns) == 1 {
				other := p.Route(fullRowWith(p, keyCol, pr.vals[0]))
				if other != nil && other != c && !isUnder(other, c) {
					return false
				}
			}
			continue
		}
		if !boundAdmits(key, kt, b, pr, p) {
			return false
		}
	}
	return true
}

func isUnder(t, anc *storage.Table) bool {
	for x := t; x != nil; x = x.Parent {
		if x == anc {
			return true
		}
	}
	return false
}

func fullRowWith(p *storage.Table, col int, v any) []any {
	row := make([]any, len(p.Columns))
	row[col] = v
	return row
}

func boundAdmits(key *storage.PartitionKey, kt types.T, b *storage.PartitionBound, pr keyPred, p *storage.Table) bool {
	switch key.Strategy {
	case storage.List:
		for _, lv := range b.In {
			if pr.op == "null" {
				if lv == nil {
					return true
				}
				continue
			}
			if lv == nil {
				continue
			}
			for _, v := range pr.vals {
				if cmpOK(types.Compare(kt, lv, v), pr.op) {
					return true
				}
			}
		}
		return false
	case storage.Range:
		if pr.op == "null" {
			return false
		}
		lo, hi := b.From[0], b.To[0]
		for _, v := range pr.vals {
			// rows with key in [lo, hi) (first column only; with several
			// key columns the upper bound is inclusive of its first value).
			multi := len(key.Columns) > 1
			above := func(x any) bool { // exists key >= lo and key op x?
				return true
			}
			_ = above
			cmpLo := rangeCmp(kt, v, lo) // v vs lo
			cmpHi := rangeCmp(kt, v, hi) // v vs hi
			ok := false
			switch pr.op {
			case "=", "in":
				ok = cmpLo >= 0 && (cmpHi < 0 || (multi && cmpHi == 0))
			case "<":
				ok = cmpLo > 0
			case "<=":
				ok = cmpLo >= 0
			case ">":
				ok = cmpHi < 0 || (multi && cmpHi == 0) || hi.Kind == storage.MaxValue
			case ">=":
				ok = cmpHi < 0 || (multi && cmpHi == 0)
			}
			if ok {
				return true
			}
		}
		return false
	case storage.Hash:
		if pr.op != "=" || len(key.Columns) != 1 {
			return true
		}
		row := fullRowWith(p, key.Columns[0], pr.vals[0])
		leaf := p.Route(row)
		return leaf != nil && leaf.Bound == b || (leaf != nil && isUnderBound(leaf, b))
	}
	return true
}

func isUnderBound(t *storage.Table, b *storage.PartitionBound) bool {
	for x := t; x != nil; x = x.Parent {
		if x.Bound == b {
			return true
		}
	}
	return false
}

// rangeCmp compares a value with a range bound datum (MINVALUE is below
// everything, MAXVALUE above).
func rangeCmp(kt types.T, v any, rd storage.RangeDatum) int {
	switch rd.Kind {
	case storage.MinValue:
		return 1
	case storage.MaxValue:
		return -1
	}
	return types.Compare(kt, v, rd.Value)
}

func cmpOK(c int, op string) bool {
	switch op {
	case "=", "in":
		return c == 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return true
}
