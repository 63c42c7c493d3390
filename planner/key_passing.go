package planner

// Key passing, beyond postgres_fdw: a hash join whose build side is
// small and whose probe side is a large foreign scan sends the build
// side's distinct keys to the server, `WHERE key = ANY ($1::integer[])`,
// so that only the rows that can match cross the network (a semi join
// reduction; DuckDB and DataFusion do the same with dynamic filters).
// The hash join builds its table first and passes the keys when it
// starts the probe side; a build that spilled passes none and the scan
// runs its unfiltered query (KeyFilter.Unfiltered).
//
// When: pgfed.pushdown and pgfed.pass_join_keys are on; the join drops
// probe rows without a match (inner, right, semi: the build side is the
// preserved one of a right join); the probe side is a plain Foreign Scan
// (no pushed aggregate, ORDER BY, LIMIT, join or row locks) of a table
// column of a type the array literal carries exactly; and the estimates
// say the build side has at most maxPassedKeys rows and a quarter of the
// probe side's at most.

import (
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/remote"
	"github.com/pgfed/pgfed/types"
)

// maxPassedKeys bounds the keys one query sends.
const maxPassedKeys = 10000

// keyArrayType is the remote array element type a key of type t is sent
// as; "" when it is not passed.
func keyArrayType(t types.T) string {
	switch t.ID {
	case types.Int2:
		return "smallint"
	case types.Int4:
		return "integer"
	case types.Int8:
		return "bigint"
	case types.Numeric:
		return "numeric"
	case types.Text, types.Varchar:
		return "text"
	case types.Date:
		return "date"
	}
	return ""
}

// passKeys arranges key passing for hj when it pays (see above).
func (ja *joinAnalysis) passKeys(hj *nodes.HashJoin) {
	set := ja.pc.settings()
	if !ja.pc.pushdown() || !set.Bool("pgfed.pass_join_keys") {
		return
	}
	switch hj.Type {
	case nodes.JoinInner, nodes.JoinRight, nodes.JoinSemi, nodes.JoinRightSemi, nodes.JoinRightAnti:
	default:
		return
	}
	fs, ok := hj.Outer.(*nodes.ForeignScan)
	if !ok || fs.Grouped || fs.Limit != nil || len(fs.OrderBy) > 0 || fs.ForUpdate || fs.Join != nil || fs.KeyFilter != nil || len(fs.Params) > 0 {
		return
	}
	build := hj.Inner.Child.Base().Rows
	if build > maxPassedKeys || build*4 > fs.Rows {
		return
	}
	for k, key := range hj.OuterKeys {
		col, ok := fetchedColumn(fs, key)
		elem := keyArrayType(key.Type())
		if !ok || elem == "" || hj.InnerKeys[k].Type() != key.Type() {
			continue
		}
		id := ja.pc.params
		ja.pc.params++
		cond := "((" + remote.QuoteIdent(fs.Table.RemoteColumn(col)) + " = ANY ($1::" + elem + "[])))"
		cp := *fs
		cp.KeyFilter = &nodes.KeyFilter{Param: id, Unfiltered: fs.RemoteSQL}
		if len(fs.RemoteConds) > 0 {
			cp.RemoteSQL = fs.RemoteSQL + " AND " + cond
		} else {
			cp.RemoteSQL = fs.RemoteSQL + " WHERE " + cond
		}
		hj.Outer = &cp
		hj.PassKeys = &nodes.PassKeys{Key: k, Param: id}
		return
	}
}

// fetchedColumn is the table column a key reads when it is a plain
// column of the scan's rows.
func fetchedColumn(fs *nodes.ForeignScan, key nodes.Expr) (int, bool) {
	cr, ok := key.(*nodes.ColumnRef)
	if !ok || cr.Index >= len(fs.Out) {
		return 0, false
	}
	pos := cr.Index
	if fs.Targets != nil {
		own, ok := fs.Targets[pos].(*nodes.ColumnRef)
		if !ok {
			return 0, false
		}
		pos = own.Index
	}
	if pos >= len(fs.Columns) || fs.Columns[pos] < 0 {
		return 0, false
	}
	return fs.Columns[pos], true
}
