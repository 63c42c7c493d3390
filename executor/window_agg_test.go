package executor

// Tests of the WindowAgg operator (window_agg.go, window_frame.go,
// window_funcs.go) over plans built by hand. Each table case states the
// PostgreSQL 15 query it mirrors; TestWindowCasesOnPostgres runs those
// queries on a server (WINDOW_PG_DSN, e.g. "host=/tmp/pgplay port=5499
// user=postgres dbname=rdb") and checks that the expectations are what
// PostgreSQL answers.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// The input of most cases: wt(id bigint, p bigint, o bigint, v integer,
// s text), with NULLs in the partition key p, the order key o and the
// arguments v and s.
var (
	wID = col(0, types.Int8T)
	wP  = col(1, types.Int8T)
	wO  = col(2, types.Int8T)
	wV  = col(3, types.Int4T)
	wS  = col(4, types.TextT)
)

var winRows = [][]any{
	{1, 1, 1, 10, "a"},
	{2, 1, 1, nil, "b"},
	{3, 1, 2, 5, "c"},
	{4, 1, 4, -3, nil},
	{5, 1, nil, 7, "e"},
	{6, 1, nil, 8, "f"},
	{7, 2, 3, 1, "g"},
	{8, 2, 3, 2, "h"},
	{9, 2, 3, 3, "i"},
	{10, nil, 1, 4, "j"},
	{11, nil, 5, nil, "k"},
	{12, nil, nil, 6, "l"},
	{13, 3, 7, 2, "m"},
	{14, 4, 0, 0, "n"},
	{15, 4, 2, 9, "o"},
	{16, 4, 4, 9, "p"},
	{17, 4, 5, 1, "q"},
	{18, 4, 6, nil, "r"},
	{19, 4, 9, 4, "s"},
}

const winTableSQL = `CREATE TEMP TABLE wt (id bigint, p bigint, o bigint, v integer, s text)`

// winBatchSizes is how the sorted input is cut into batches (cycled):
// partitions span batches and batches hold several partitions.
var winBatchSizes = []int{2, 6, 1, 3, 4}

// Plan builders.

func wfn(name string, t types.T, args ...nodes.Expr) *nodes.WindowFunc {
	return &nodes.WindowFunc{Name: name, Args: args, T: t}
}

func wagg(name string, t types.T, args ...nodes.Expr) *nodes.WindowFunc {
	call := &nodes.AggCall{Name: name, Args: args, T: t, Star: name == "count" && len(args) == 0}
	return &nodes.WindowFunc{Name: name, Agg: call, T: t}
}

func wfilter(f *nodes.WindowFunc, cond nodes.Expr) *nodes.WindowFunc {
	f.Agg.Filter = cond
	return f
}

func wrows(s, e nodes.FrameBound, ex ...nodes.FrameExclude) nodes.WindowFrame {
	return wframe(nodes.FrameRows, s, e, ex...)
}

func wframe(mode nodes.FrameMode, s, e nodes.FrameBound, ex ...nodes.FrameExclude) nodes.WindowFrame {
	f := nodes.WindowFrame{Mode: mode, Start: s, End: e}
	if len(ex) > 0 {
		f.Exclude = ex[0]
	}
	return f
}

var (
	wUnbPrec = nodes.FrameBound{Kind: nodes.BoundUnboundedPreceding}
	wUnbFoll = nodes.FrameBound{Kind: nodes.BoundUnboundedFollowing}
	wCur     = nodes.FrameBound{Kind: nodes.BoundCurrentRow}
)

func wPrec(off nodes.Expr) nodes.FrameBound {
	return nodes.FrameBound{Kind: nodes.BoundPreceding, Offset: off}
}

func wFoll(off nodes.Expr) nodes.FrameBound {
	return nodes.FrameBound{Kind: nodes.BoundFollowing, Offset: off}
}

func wAsc(e nodes.Expr) nodes.SortKey { return nodes.SortKey{Expr: e} }
func wDesc(e nodes.Expr) nodes.SortKey {
	return nodes.SortKey{Expr: e, Desc: true, NullsFirst: true}
}

// windowOver builds a WindowAgg over a stub child with the given columns.
func windowOver(child *nodes.Result, part []nodes.Expr, order []nodes.SortKey, frame nodes.WindowFrame, funcs ...*nodes.WindowFunc) *nodes.WindowAgg {
	w := &nodes.WindowAgg{Child: child, PartitionBy: part, OrderBy: order, Frame: frame, Funcs: funcs}
	w.Out = append([]nodes.Field(nil), child.Out...)
	for _, f := range funcs {
		w.Out = append(w.Out, field(f.Name, f.T))
	}
	return w
}

// winSortRows orders rows as the planner's Sort below the WindowAgg would:
// by the partition keys (ascending, NULLs last), then the order keys,
// then by column 0 (the id) so that the order of peers is fixed.
func winSortRows(rows [][]any, part []nodes.Expr, order []nodes.SortKey) [][]any {
	out := append([][]any(nil), rows...)
	keys := make([]nodes.SortKey, 0, len(part)+len(order)+1)
	for _, p := range part {
		keys = append(keys, nodes.SortKey{Expr: p})
	}
	keys = append(keys, order...)
	keys = append(keys, nodes.SortKey{Expr: col(0, types.Int8T)})
	sort.SliceStable(out, func(i, j int) bool {
		for _, k := range keys {
			c := k.Expr.(*nodes.ColumnRef)
			a, b := out[i][c.Index], out[j][c.Index]
			r := compareDatums(c.T, winDatum(a), winDatum(b), k.NullsFirst)
			if k.Desc && a != nil && b != nil {
				r = -r
			}
			if r != 0 {
				return r < 0
			}
		}
		return false
	})
	return out
}

func winDatum(v any) any {
	if x, ok := v.(int); ok {
		return int64(x)
	}
	return v
}

// winBatches cuts rows (datums) into batches of columns of the given
// types, sizes cycled.
func winBatches(mem memory.Allocator, rows [][]any, fields []nodes.Field) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	schema := schemaOf(fields)
	for lo, i := 0, 0; lo < len(rows); i++ {
		hi := min(len(rows), lo+winBatchSizes[i%len(winBatchSizes)])
		cols := make([]arrow.Array, len(fields))
		for c, f := range fields {
			b := array.NewBuilder(mem, f.T.ArrowType())
			for _, r := range rows[lo:hi] {
				appendDatum(b, f.T, winDatum(r[c]))
			}
			cols[c] = b.NewArray()
			b.Release()
		}
		out = append(out, makeBatch(schema, cols, hi-lo))
		lo = hi
	}
	return out
}

// winDataset is a case's input: its columns, rows (datums) and the SQL
// that makes the same table in PostgreSQL.
type winDataset struct {
	fields []nodes.Field
	rows   [][]any
	sql    []string
}

func (d *winDataset) stub() *nodes.Result { return stub(d.fields...) }

var wtData = &winDataset{
	fields: []nodes.Field{field("id", types.Int8T), field("p", types.Int8T), field("o", types.Int8T), field("v", types.Int4T), field("s", types.TextT)},
	rows:   winRows,
	sql:    []string{winTableSQL},
}

// wr holds one column of each type RANGE offsets work on, with their
// edge values (infinities, NaN, the integer limits, NULL).
var (
	rID = col(0, types.Int8T)
	rI2 = col(1, types.Int2T)
	rI8 = col(2, types.Int8T)
	rF8 = col(3, types.Float8T)
	rF4 = col(4, types.Float4T)
	rN  = col(5, types.NumericT)
	rD  = col(6, types.DateT)
	rTS = col(7, types.TimestampT)
	rIV = col(8, types.IntervalT)
)

var wrText = [][]any{
	{"1", "1", "-9223372036854775808", "-Infinity", "-1.5", "1.0", "2024-01-01", "2024-01-01 00:00", "1 day"},
	{"2", "1", "-9223372036854775800", "-1.5", "0", "1.00", "2024-01-02", "2024-01-01 12:00", "1 day 12:00"},
	{"3", "2", "0", "0", "0.25", "1.5", "2024-01-31", "2024-01-02 00:00", "2 days"},
	{"4", "3", "1", "-0", "0.25", "2.25", "2024-02-29", "2024-01-31 00:00", "1 mon"},
	{"5", "5", "9223372036854775000", "2.5", "1.5", "10", "2024-03-01", "2024-02-29 23:59:59", "30 days"},
	{"6", "32767", "9223372036854775807", "Infinity", "Infinity", "NaN", "infinity", "infinity", "-1 day"},
	{"7", nil, nil, "NaN", nil, nil, nil, nil, nil},
	{"8", "-32768", "2", nil, "NaN", "-3", "2023-12-31", "2023-12-31 23:00", "0"},
	{"9", "4", "3", "1", "-Infinity", "-Infinity", "-infinity", "-infinity", "-2 days"},
	{"10", "4", nil, "1", "1.25", "Infinity", "2024-01-02", "2024-01-01 12:00", "36 hours"},
}

var wrData = func() *winDataset {
	d := &winDataset{fields: []nodes.Field{field("id", types.Int8T), field("i2", types.Int2T), field("i8", types.Int8T),
		field("f8", types.Float8T), field("f4", types.Float4T), field("n", types.NumericT), field("d", types.DateT),
		field("ts", types.TimestampT), field("iv", types.IntervalT)}}
	d.sql = []string{`CREATE TEMP TABLE wr (id bigint, i2 smallint, wI8 bigint, wF8 float8, f4 real, n numeric, d date, ts timestamp, iv interval)`}
	for _, r := range wrText {
		row := make([]any, len(r))
		lits := make([]string, len(r))
		for c, v := range r {
			lits[c] = "NULL"
			if v == nil {
				continue
			}
			datum, err := types.Parse(d.fields[c].T, v.(string))
			if err != nil {
				panic(err)
			}
			row[c] = datum
			lits[c] = "'" + v.(string) + "'"
		}
		d.rows = append(d.rows, row)
		d.sql = append(d.sql, "INSERT INTO wr VALUES ("+strings.Join(lits, ", ")+")")
	}
	return d
}()

func wLit(t types.T, text string) *nodes.Const {
	v, err := types.Parse(t, text)
	if err != nil {
		panic(err)
	}
	return lit(v, t)
}

// buildWindowOver builds p with fake as the operator of stub s.
func buildWindowOver(t testing.TB, p nodes.Plan, ec *ExecContext, s *nodes.Result, fake Operator) Operator {
	t.Helper()
	root, err := Build(p, ec)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	placed := false
	var walk func(slot *Operator)
	walk = func(slot *Operator) {
		switch o := (*slot).(type) {
		case *resultOp:
			if o.plan == s {
				*slot, placed = fake, true
			}
		case *windowAgg:
			walk(&o.child)
		case *instrumented:
			walk(&o.Operator)
		default:
			for _, c := range childSlots(o) {
				walk(c)
			}
		}
	}
	walk(&root)
	if !placed {
		t.Fatal("stub not found")
	}
	return root
}

// winDrain runs op and returns its rows and the size of each batch.
func winDrain(ctx context.Context, op Operator) (rows [][]any, sizes []int, err error) {
	defer func() {
		if cerr := op.Close(); err == nil {
			err = cerr
		}
	}()
	if err := op.Open(ctx); err != nil {
		return nil, nil, err
	}
	for {
		b, err := op.Next(ctx)
		if err == io.EOF {
			return rows, sizes, nil
		}
		if err != nil {
			return rows, sizes, err
		}
		sizes = append(sizes, int(b.NumRows()))
		rows = append(rows, exectest.Rows(b)...)
		b.Release()
	}
}

// winCase is a WindowAgg over wt: its functions' results per row, with
// the row's id first (rows in input order).
type winCase struct {
	name  string
	data  *winDataset // nil: wt
	part  []nodes.Expr
	order []nodes.SortKey
	frame nodes.WindowFrame
	funcs []*nodes.WindowFunc
	// sql is the PostgreSQL query of the case: its select list after
	// the id (sqlFuncs) and its window (sqlWindow).
	sqlFuncs  string
	sqlWindow string
	want      [][]any
	wantCode  string
	wantMsg   string
}

func wDefault() nodes.WindowFrame { return nodes.DefaultFrame }

var (
	wI8 = types.Int8T
	wI4 = types.Int4T
	wF8 = types.Float8T
	wTx = types.TextT
	wNm = types.NumericT
	wBo = types.BoolT
)

func wGT(l nodes.Expr, v int64) nodes.Expr { return cmpOp(">", l, lit(v, l.Type())) }

var winCases = []winCase{
	{
		name: "ranking", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)}, frame: wDefault(),
		funcs: []*nodes.WindowFunc{wfn("row_number", wI8), wfn("rank", wI8), wfn("dense_rank", wI8),
			wfn("percent_rank", wF8), wfn("cume_dist", wF8), wfn("ntile", wI4, lit(int64(3), wI4))},
		sqlFuncs:  "row_number() OVER w, rank() OVER w, dense_rank() OVER w, percent_rank() OVER w, cume_dist() OVER w, ntile(3) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o",
	},
	{
		// The count is read from the current row until it is not NULL.
		name: "ntile with more buckets than rows and per-row counts", part: []nodes.Expr{wP}, order: []nodes.SortKey{wDesc(wO)}, frame: wDefault(),
		funcs:     []*nodes.WindowFunc{wfn("ntile", wI4, lit(int64(5), wI4)), wfn("ntile", wI4, &nodes.Cast{Arg: op("+", wO, int8Lit(1), wI8), T: wI4})},
		sqlFuncs:  "ntile(5) OVER w, ntile((o + 1)::int) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o DESC",
	},
	{
		name: "lag and lead", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)}, frame: wDefault(),
		funcs: []*nodes.WindowFunc{wfn("lag", wI4, wV), wfn("lead", wI4, wV, lit(int64(2), wI4)),
			wfn("lag", wTx, wS, lit(int64(1), wI4), lit("zz", wTx)), wfn("lead", wI4, wV, lit(int64(-1), wI4)),
			wfn("lag", wI4, wV, lit(nil, wI4)), wfn("lead", wI8, wO, &nodes.Cast{Arg: wV, T: wI4}, wID)},
		sqlFuncs:  "lag(v) OVER w, lead(v, 2) OVER w, lag(s, 1, 'zz') OVER w, lead(v, -1) OVER w, lag(v, NULL) OVER w, lead(o, v, id) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o",
	},
	{
		name: "no ORDER BY: every row is a peer", part: []nodes.Expr{wP}, frame: wDefault(),
		funcs: []*nodes.WindowFunc{wfn("rank", wI8), wfn("cume_dist", wF8), wagg("sum", wI8, wV), wagg("count", wI8),
			wfn("first_value", wTx, wS), wfn("last_value", wTx, wS), wfn("row_number", wI8)},
		sqlFuncs:  "rank() OVER w, cume_dist() OVER w, sum(v) OVER w, count(*) OVER w, first_value(s) OVER w, last_value(s) OVER w, row_number() OVER w",
		sqlWindow: "PARTITION BY p",
	},
	{
		name: "one partition, no ORDER BY", frame: wDefault(),
		funcs:     []*nodes.WindowFunc{wagg("count", wI8), wagg("sum", wI8, wV), wagg("min", wTx, wS), wagg("max", wI8, wO), wagg("count", wI8, wV)},
		sqlFuncs:  "count(*) OVER w, sum(v) OVER w, min(s) OVER w, max(o) OVER w, count(v) OVER w",
		sqlWindow: "",
	},
	{
		name: "default frame reaches the last peer", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)}, frame: wDefault(),
		funcs: []*nodes.WindowFunc{wagg("sum", wI8, wV), wagg("count", wI8, wV), wagg("count", wI8), wagg("avg", wNm, wV),
			wagg("min", wTx, wS), wagg("max", wI4, wV), wfn("first_value", wI4, wV), wfn("last_value", wI4, wV), wfn("nth_value", wTx, wS, lit(int64(2), wI4))},
		sqlFuncs:  "sum(v) OVER w, count(v) OVER w, count(*) OVER w, avg(v) OVER w, min(s) OVER w, max(v) OVER w, first_value(v) OVER w, last_value(v) OVER w, nth_value(s, 2) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o",
	},
	{
		name: "ROWS 1 PRECEDING AND 1 FOLLOWING", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame: wrows(wPrec(int8Lit(1)), wFoll(int8Lit(1))),
		funcs: []*nodes.WindowFunc{wagg("sum", wI8, wV), wagg("count", wI8), wfn("first_value", wTx, wS), wfn("last_value", wTx, wS),
			wfn("nth_value", wI4, wV, lit(int64(2), wI4)), wagg("string_agg", wTx, wS, lit(",", wTx))},
		sqlFuncs:  "sum(v) OVER w, count(*) OVER w, first_value(s) OVER w, last_value(s) OVER w, nth_value(v, 2) OVER w, string_agg(s, ',') OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
	},
	{
		name: "ROWS 2 PRECEDING AND 1 PRECEDING: empty frames first", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame:     wrows(wPrec(int8Lit(2)), wPrec(int8Lit(1))),
		funcs:     []*nodes.WindowFunc{wagg("sum", wI8, wV), wagg("count", wI8), wfn("first_value", wI4, wV), wagg("max", wTx, wS)},
		sqlFuncs:  "sum(v) OVER w, count(*) OVER w, first_value(v) OVER w, max(s) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING",
	},
	{
		name: "ROWS 1 FOLLOWING AND 3 FOLLOWING", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame:     wrows(wFoll(int8Lit(1)), wFoll(int8Lit(3))),
		funcs:     []*nodes.WindowFunc{wagg("sum", wI8, wV), wagg("count", wI8, wV), wfn("last_value", wTx, wS), wagg("avg", wNm, wV)},
		sqlFuncs:  "sum(v) OVER w, count(v) OVER w, last_value(s) OVER w, avg(v) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING",
	},
	{
		name: "ROWS CURRENT ROW AND UNBOUNDED FOLLOWING", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame:     wrows(wCur, wUnbFoll),
		funcs:     []*nodes.WindowFunc{wagg("sum", wI8, wV), wagg("min", wI4, wV), wfn("last_value", wTx, wS), wfn("nth_value", wTx, wS, lit(int64(3), wI4))},
		sqlFuncs:  "sum(v) OVER w, min(v) OVER w, last_value(s) OVER w, nth_value(s, 3) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
	},
	{
		name: "ROWS UNBOUNDED PRECEDING AND 1 FOLLOWING: incremental", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame:     wrows(wUnbPrec, wFoll(int8Lit(1))),
		funcs:     []*nodes.WindowFunc{wagg("sum", wI8, wV), wagg("string_agg", wTx, wS, lit("", wTx)), wagg("max", wI4, wV)},
		sqlFuncs:  "sum(v) OVER w, string_agg(s, '') OVER w, max(v) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING",
	},
	{
		name: "ROWS UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame:     wrows(wUnbPrec, wUnbFoll),
		funcs:     []*nodes.WindowFunc{wagg("sum", wI8, wV), wfn("first_value", wTx, wS), wfn("last_value", wTx, wS), wfn("nth_value", wI8, wO, lit(int64(4), wI4))},
		sqlFuncs:  "sum(v) OVER w, first_value(s) OVER w, last_value(s) OVER w, nth_value(o, 4) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
	},
	{
		name: "GROUPS 1 PRECEDING AND CURRENT ROW", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame:     wframe(nodes.FrameGroups, wPrec(int8Lit(1)), wCur),
		funcs:     []*nodes.WindowFunc{wagg("sum", wI8, wV), wagg("count", wI8), wfn("first_value", wTx, wS), wfn("last_value", wTx, wS)},
		sqlFuncs:  "sum(v) OVER w, count(*) OVER w, first_value(s) OVER w, last_value(s) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW",
	},
	{
		name: "GROUPS 1 FOLLOWING AND 2 FOLLOWING", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame:     wframe(nodes.FrameGroups, wFoll(int8Lit(1)), wFoll(int8Lit(2))),
		funcs:     []*nodes.WindowFunc{wagg("sum", wI8, wV), wagg("count", wI8), wfn("first_value", wTx, wS), wfn("last_value", wTx, wS)},
		sqlFuncs:  "sum(v) OVER w, count(*) OVER w, first_value(s) OVER w, last_value(s) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o GROUPS BETWEEN 1 FOLLOWING AND 2 FOLLOWING",
	},
	{
		name: "GROUPS UNBOUNDED PRECEDING AND 0 PRECEDING", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame:     wframe(nodes.FrameGroups, wUnbPrec, wPrec(int8Lit(0))),
		funcs:     []*nodes.WindowFunc{wagg("count", wI8), wagg("max", wTx, wS)},
		sqlFuncs:  "count(*) OVER w, max(s) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o GROUPS BETWEEN UNBOUNDED PRECEDING AND 0 PRECEDING",
	},
	{
		name: "RANGE 1 PRECEDING AND 1 FOLLOWING with NULL keys", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame: wframe(nodes.FrameRange, wPrec(int8Lit(1)), wFoll(int8Lit(1))),
		funcs: []*nodes.WindowFunc{wagg("sum", wI8, wV), wagg("count", wI8), wfn("first_value", wI8, wO), wfn("last_value", wI8, wO),
			wfn("first_value", wTx, wS)},
		sqlFuncs:  "sum(v) OVER w, count(*) OVER w, first_value(o) OVER w, last_value(o) OVER w, first_value(s) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING",
	},
	{
		name: "RANGE 2 PRECEDING AND CURRENT ROW, DESC NULLS FIRST", part: []nodes.Expr{wP}, order: []nodes.SortKey{wDesc(wO)},
		frame:     wframe(nodes.FrameRange, wPrec(int8Lit(2)), wCur),
		funcs:     []*nodes.WindowFunc{wagg("count", wI8), wfn("first_value", wI8, wO), wfn("last_value", wI8, wO), wagg("sum", wI8, wV)},
		sqlFuncs:  "count(*) OVER w, first_value(o) OVER w, last_value(o) OVER w, sum(v) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o DESC RANGE BETWEEN 2 PRECEDING AND CURRENT ROW",
	},
	{
		name: "RANGE CURRENT ROW AND 1 FOLLOWING, NULLS FIRST", part: []nodes.Expr{wP},
		order:     []nodes.SortKey{{Expr: wO, NullsFirst: true}},
		frame:     wframe(nodes.FrameRange, wCur, wFoll(int8Lit(1))),
		funcs:     []*nodes.WindowFunc{wagg("count", wI8), wfn("first_value", wI8, wO), wfn("last_value", wI8, wO)},
		sqlFuncs:  "count(*) OVER w, first_value(o) OVER w, last_value(o) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o NULLS FIRST RANGE BETWEEN CURRENT ROW AND 1 FOLLOWING",
	},
	{
		name: "RANGE 1 FOLLOWING AND 3 FOLLOWING, DESC NULLS LAST", part: []nodes.Expr{wP},
		order:     []nodes.SortKey{{Expr: wO, Desc: true}},
		frame:     wframe(nodes.FrameRange, wFoll(int8Lit(1)), wFoll(int8Lit(3))),
		funcs:     []*nodes.WindowFunc{wagg("count", wI8), wfn("first_value", wI8, wO), wfn("last_value", wI8, wO), wagg("sum", wI8, wV)},
		sqlFuncs:  "count(*) OVER w, first_value(o) OVER w, last_value(o) OVER w, sum(v) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o DESC NULLS LAST RANGE BETWEEN 1 FOLLOWING AND 3 FOLLOWING",
	},
	{
		name: "RANGE UNBOUNDED PRECEDING AND 2 PRECEDING", order: []nodes.SortKey{wAsc(wO)},
		frame:     wframe(nodes.FrameRange, wUnbPrec, wPrec(int8Lit(2))),
		funcs:     []*nodes.WindowFunc{wagg("count", wI8), wagg("sum", wI8, wV), wfn("last_value", wI8, wO)},
		sqlFuncs:  "count(*) OVER w, sum(v) OVER w, last_value(o) OVER w",
		sqlWindow: "ORDER BY o RANGE BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING",
	},
	{
		name: "EXCLUDE CURRENT ROW over the whole partition", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame: wrows(wUnbPrec, wUnbFoll, nodes.ExcludeCurrentRow),
		funcs: []*nodes.WindowFunc{wagg("sum", wI8, wV), wagg("count", wI8), wfn("first_value", wTx, wS), wfn("last_value", wTx, wS),
			wfn("nth_value", wTx, wS, lit(int64(2), wI4))},
		sqlFuncs:  "sum(v) OVER w, count(*) OVER w, first_value(s) OVER w, last_value(s) OVER w, nth_value(s, 2) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE CURRENT ROW",
	},
	{
		name: "EXCLUDE GROUP under the default frame", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame:     wframe(nodes.FrameRange, wUnbPrec, wCur, nodes.ExcludeGroup),
		funcs:     []*nodes.WindowFunc{wagg("sum", wI8, wV), wagg("count", wI8), wfn("first_value", wTx, wS), wfn("last_value", wTx, wS)},
		sqlFuncs:  "sum(v) OVER w, count(*) OVER w, first_value(s) OVER w, last_value(s) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE GROUP",
	},
	{
		name: "EXCLUDE TIES over GROUPS 1 PRECEDING AND 1 FOLLOWING", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame: wframe(nodes.FrameGroups, wPrec(int8Lit(1)), wFoll(int8Lit(1)), nodes.ExcludeTies),
		funcs: []*nodes.WindowFunc{wagg("sum", wI8, wV), wagg("count", wI8), wfn("first_value", wTx, wS), wfn("last_value", wTx, wS),
			wfn("nth_value", wTx, wS, lit(int64(2), wI4)), wagg("string_agg", wTx, wS, lit(",", wTx))},
		sqlFuncs:  "sum(v) OVER w, count(*) OVER w, first_value(s) OVER w, last_value(s) OVER w, nth_value(s, 2) OVER w, string_agg(s, ',') OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE TIES",
	},
	{
		// PostgreSQL's WinGetFuncArgInFrame adjusts for exclusion without
		// looking at whether the current row is in the frame.
		name: "EXCLUDE TIES when the current row is outside the frame", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame: wrows(wFoll(int8Lit(1)), wFoll(int8Lit(3)), nodes.ExcludeTies),
		funcs: []*nodes.WindowFunc{wfn("nth_value", wTx, wS, lit(int64(1), wI4)), wfn("nth_value", wTx, wS, lit(int64(2), wI4)),
			wfn("first_value", wTx, wS), wfn("last_value", wTx, wS), wagg("string_agg", wTx, wS, lit(",", wTx))},
		sqlFuncs:  "nth_value(s, 1) OVER w, nth_value(s, 2) OVER w, first_value(s) OVER w, last_value(s) OVER w, string_agg(s, ',') OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING EXCLUDE TIES",
	},
	{
		name: "EXCLUDE GROUP and TIES without ORDER BY", part: []nodes.Expr{wP},
		frame:     wframe(nodes.FrameRange, wUnbPrec, wUnbFoll, nodes.ExcludeTies),
		funcs:     []*nodes.WindowFunc{wagg("count", wI8), wfn("first_value", wTx, wS), wfn("last_value", wTx, wS), wagg("sum", wI8, wV)},
		sqlFuncs:  "count(*) OVER w, first_value(s) OVER w, last_value(s) OVER w, sum(v) OVER w",
		sqlWindow: "PARTITION BY p RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE TIES",
	},
	{
		name: "EXCLUDE CURRENT ROW with a sliding ROWS frame", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame:     wrows(wPrec(int8Lit(1)), wFoll(int8Lit(2)), nodes.ExcludeCurrentRow),
		funcs:     []*nodes.WindowFunc{wagg("sum", wI8, wV), wfn("first_value", wTx, wS), wfn("last_value", wTx, wS), wfn("nth_value", wTx, wS, lit(int64(2), wI4))},
		sqlFuncs:  "sum(v) OVER w, first_value(s) OVER w, last_value(s) OVER w, nth_value(s, 2) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW",
	},
	{
		name: "FILTER", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)}, frame: wDefault(),
		funcs: []*nodes.WindowFunc{wfilter(wagg("count", wI8), wGT(wV, 2)), wfilter(wagg("sum", wI8, wV), wGT(wO, 1)),
			wfilter(wagg("string_agg", wTx, wS, lit(";", wTx)), wGT(wV, 0)), wfilter(wagg("max", wI8, wO), wGT(wV, 100))},
		sqlFuncs:  "count(*) FILTER (WHERE v > 2) OVER w, sum(v) FILTER (WHERE o > 1) OVER w, string_agg(s, ';') FILTER (WHERE v > 0) OVER w, max(o) FILTER (WHERE v > 100) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o",
	},
	{
		name: "bool_and, bool_or, stddev, variance", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)}, frame: wDefault(),
		funcs: []*nodes.WindowFunc{wagg("bool_and", wBo, wGT(wV, 0)), wagg("bool_or", wBo, wGT(wV, 7)), wagg("stddev", wNm, wV),
			wagg("var_pop", wNm, wV), wagg("avg", wF8, &nodes.Cast{Arg: wV, T: wF8}), wagg("sum", wF8, &nodes.Cast{Arg: wV, T: wF8})},
		sqlFuncs:  "bool_and(v > 0) OVER w, bool_or(v > 7) OVER w, stddev(v) OVER w, var_pop(v) OVER w, avg(v::float8) OVER w, sum(v::float8) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o",
	},
	{
		name: "nth_value with per-row n", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame:     wrows(wUnbPrec, wUnbFoll),
		funcs:     []*nodes.WindowFunc{wfn("nth_value", wTx, wS, &nodes.Cast{Arg: op("+", wO, int8Lit(1), wI8), T: wI4})},
		sqlFuncs:  "nth_value(s, (o + 1)::int) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
	},
	{
		name: "ntile 0", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)}, frame: wDefault(),
		funcs:    []*nodes.WindowFunc{wfn("ntile", wI4, lit(int64(0), wI4))},
		sqlFuncs: "ntile(0) OVER w", sqlWindow: "PARTITION BY p ORDER BY o",
		wantCode: "22014", wantMsg: "argument of ntile must be greater than zero",
	},
	{
		name: "nth_value 0", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)}, frame: wDefault(),
		funcs:    []*nodes.WindowFunc{wfn("nth_value", wI4, wV, lit(int64(0), wI4))},
		sqlFuncs: "nth_value(v, 0) OVER w", sqlWindow: "PARTITION BY p ORDER BY o",
		wantCode: "22016", wantMsg: "argument of nth_value must be greater than zero",
	},
	{
		name: "negative ROWS offset", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame:    wrows(wPrec(int8Lit(-1)), wCur),
		funcs:    []*nodes.WindowFunc{wagg("sum", wI8, wV)},
		sqlFuncs: "sum(v) OVER w", sqlWindow: "PARTITION BY p ORDER BY o ROWS BETWEEN -1 PRECEDING AND CURRENT ROW",
		wantCode: "22013", wantMsg: "frame starting offset must not be negative",
	},
	{
		name: "negative GROUPS end offset", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame:    wframe(nodes.FrameGroups, wCur, wFoll(int8Lit(-2))),
		funcs:    []*nodes.WindowFunc{wagg("sum", wI8, wV)},
		sqlFuncs: "sum(v) OVER w", sqlWindow: "PARTITION BY p ORDER BY o GROUPS BETWEEN CURRENT ROW AND -2 FOLLOWING",
		wantCode: "22013", wantMsg: "frame ending offset must not be negative",
	},
	{
		name: "NULL frame offsets", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame:    wrows(wPrec(lit(nil, wI8)), wCur),
		funcs:    []*nodes.WindowFunc{wagg("sum", wI8, wV)},
		sqlFuncs: "sum(v) OVER w", sqlWindow: "PARTITION BY p ORDER BY o ROWS BETWEEN NULL PRECEDING AND CURRENT ROW",
		wantCode: "22004", wantMsg: "frame starting offset must not be null",
	},
	{
		name: "NULL RANGE end offset", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame:    wframe(nodes.FrameRange, wCur, wFoll(lit(nil, wI8))),
		funcs:    []*nodes.WindowFunc{wfn("row_number", wI8)},
		sqlFuncs: "row_number() OVER w", sqlWindow: "PARTITION BY p ORDER BY o RANGE BETWEEN CURRENT ROW AND NULL FOLLOWING",
		wantCode: "22004", wantMsg: "frame ending offset must not be null",
	},
	{
		// in_range raises it, even when no function reads the frame.
		name: "negative RANGE offset", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame:    wframe(nodes.FrameRange, wPrec(int8Lit(-1)), wCur),
		funcs:    []*nodes.WindowFunc{wfn("row_number", wI8)},
		sqlFuncs: "row_number() OVER w", sqlWindow: "PARTITION BY p ORDER BY o RANGE BETWEEN -1 PRECEDING AND CURRENT ROW",
		wantCode: "22013", wantMsg: "invalid preceding or following size in window function",
	},
	{
		name: "RANGE over smallint", data: wrData, order: []nodes.SortKey{{Expr: rI2}},
		frame:     wframe(nodes.FrameRange, wPrec(wLit(types.Int2T, "1")), wFoll(wLit(types.Int2T, "1"))),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY i2 RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING",
	},
	{
		name: "RANGE over smallint DESC", data: wrData, order: []nodes.SortKey{{Expr: rI2, Desc: true, NullsFirst: true}},
		frame:     wframe(nodes.FrameRange, wCur, wFoll(wLit(types.Int2T, "2"))),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY i2 DESC RANGE BETWEEN CURRENT ROW AND 2 FOLLOWING",
	},
	{
		name: "RANGE over bigint at its limits", data: wrData, order: []nodes.SortKey{{Expr: rI8}},
		frame:     wframe(nodes.FrameRange, wPrec(wLit(types.Int8T, "100")), wFoll(wLit(types.Int8T, "9223372036854775807"))),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY wI8 RANGE BETWEEN 100 PRECEDING AND 9223372036854775807 FOLLOWING",
	},
	{
		name: "RANGE over bigint DESC at its limits", data: wrData, order: []nodes.SortKey{{Expr: rI8, Desc: true, NullsFirst: true}},
		frame:     wframe(nodes.FrameRange, wPrec(wLit(types.Int8T, "9223372036854775807")), wFoll(wLit(types.Int8T, "10"))),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY wI8 DESC RANGE BETWEEN 9223372036854775807 PRECEDING AND 10 FOLLOWING",
	},
	{
		name: "RANGE over float8 with infinities and NaN", data: wrData, order: []nodes.SortKey{{Expr: rF8}},
		frame:     wframe(nodes.FrameRange, wPrec(wLit(types.Float8T, "1")), wFoll(wLit(types.Float8T, "1"))),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY wF8 RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING",
	},
	{
		name: "RANGE over float8, Infinity PRECEDING", data: wrData, order: []nodes.SortKey{{Expr: rF8}},
		frame:     wframe(nodes.FrameRange, wPrec(wLit(types.Float8T, "Infinity")), wCur),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY wF8 RANGE BETWEEN 'Infinity' PRECEDING AND CURRENT ROW",
	},
	{
		name: "RANGE over float8 DESC NULLS LAST, Infinity FOLLOWING", data: wrData, order: []nodes.SortKey{{Expr: rF8, Desc: true}},
		frame:     wframe(nodes.FrameRange, wPrec(wLit(types.Float8T, "2")), wFoll(wLit(types.Float8T, "Infinity"))),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY wF8 DESC NULLS LAST RANGE BETWEEN 2 PRECEDING AND 'Infinity' FOLLOWING",
	},
	{
		name: "RANGE over real", data: wrData, order: []nodes.SortKey{{Expr: rF4}},
		frame:     wframe(nodes.FrameRange, wPrec(wLit(types.Float4T, "0.25")), wFoll(wLit(types.Float4T, "1"))),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY f4 RANGE BETWEEN 0.25 PRECEDING AND 1 FOLLOWING",
	},
	{
		name: "RANGE over numeric", data: wrData, order: []nodes.SortKey{{Expr: rN}},
		frame:     wframe(nodes.FrameRange, wPrec(wLit(types.NumericT, "0.5")), wFoll(wLit(types.NumericT, "0.5"))),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY n RANGE BETWEEN 0.5 PRECEDING AND 0.5 FOLLOWING",
	},
	{
		name: "RANGE over numeric, Infinity PRECEDING", data: wrData, order: []nodes.SortKey{{Expr: rN}},
		frame:     wframe(nodes.FrameRange, wPrec(wLit(types.NumericT, "Infinity")), wPrec(wLit(types.NumericT, "1"))),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY n RANGE BETWEEN 'Infinity' PRECEDING AND 1 PRECEDING",
	},
	{
		name: "RANGE over numeric DESC, Infinity FOLLOWING", data: wrData, order: []nodes.SortKey{{Expr: rN, Desc: true, NullsFirst: true}},
		frame:     wframe(nodes.FrameRange, wCur, wFoll(wLit(types.NumericT, "Infinity"))),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY n DESC RANGE BETWEEN CURRENT ROW AND 'Infinity' FOLLOWING",
	},
	{
		name: "RANGE over date", data: wrData, order: []nodes.SortKey{{Expr: rD}},
		frame:     wframe(nodes.FrameRange, wPrec(wLit(types.IntervalT, "1 day")), wFoll(wLit(types.IntervalT, "1 mon"))),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY d RANGE BETWEEN '1 day' PRECEDING AND '1 mon' FOLLOWING",
	},
	{
		name: "RANGE over date DESC", data: wrData, order: []nodes.SortKey{{Expr: rD, Desc: true, NullsFirst: true}},
		frame:     wframe(nodes.FrameRange, wPrec(wLit(types.IntervalT, "1 day")), wCur),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY d DESC RANGE BETWEEN '1 day' PRECEDING AND CURRENT ROW",
	},
	{
		name: "RANGE over timestamp", data: wrData, order: []nodes.SortKey{{Expr: rTS}},
		frame:     wframe(nodes.FrameRange, wPrec(wLit(types.IntervalT, "12 hours")), wFoll(wLit(types.IntervalT, "1 day"))),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY ts RANGE BETWEEN '12 hours' PRECEDING AND '1 day' FOLLOWING",
	},
	{
		name: "RANGE over timestamp DESC NULLS LAST", data: wrData, order: []nodes.SortKey{{Expr: rTS, Desc: true}},
		frame:     wframe(nodes.FrameRange, wCur, wFoll(wLit(types.IntervalT, "30 days"))),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY ts DESC NULLS LAST RANGE BETWEEN CURRENT ROW AND '30 days' FOLLOWING",
	},
	{
		name: "RANGE over interval", data: wrData, order: []nodes.SortKey{{Expr: rIV}},
		frame:     wframe(nodes.FrameRange, wPrec(wLit(types.IntervalT, "1 day")), wFoll(wLit(types.IntervalT, "1 day"))),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY iv RANGE BETWEEN '1 day' PRECEDING AND '1 day' FOLLOWING",
	},
	{
		name: "negative float8 RANGE offset", data: wrData, order: []nodes.SortKey{wAsc(rF8)},
		frame:     wframe(nodes.FrameRange, wPrec(wLit(types.Float8T, "-1")), wCur),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY wF8 RANGE BETWEEN '-1' PRECEDING AND CURRENT ROW",
		wantCode:  "22013", wantMsg: "invalid preceding or following size in window function",
	},
	{
		name: "NaN float8 RANGE offset", data: wrData, order: []nodes.SortKey{wAsc(rF8)},
		frame:     wframe(nodes.FrameRange, wPrec(wLit(types.Float8T, "NaN")), wCur),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY wF8 RANGE BETWEEN 'NaN' PRECEDING AND CURRENT ROW",
		wantCode:  "22013", wantMsg: "invalid preceding or following size in window function",
	},
	{
		name: "NaN numeric RANGE offset", data: wrData, order: []nodes.SortKey{wAsc(rN)},
		frame:     wframe(nodes.FrameRange, wPrec(wLit(types.NumericT, "NaN")), wCur),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY n RANGE BETWEEN 'NaN' PRECEDING AND CURRENT ROW",
		wantCode:  "22013", wantMsg: "invalid preceding or following size in window function",
	},
	{
		name: "negative interval RANGE offset", data: wrData, order: []nodes.SortKey{wAsc(rTS)},
		frame:     wframe(nodes.FrameRange, wPrec(wLit(types.IntervalT, "-1 day")), wCur),
		funcs:     winRangeFuncs(),
		sqlFuncs:  winRangeSQL,
		sqlWindow: "ORDER BY ts RANGE BETWEEN '-1 day' PRECEDING AND CURRENT ROW",
		wantCode:  "22013", wantMsg: "invalid preceding or following size in window function",
	},
	{
		name: "aggregates and values of every type", data: wrData, order: []nodes.SortKey{wAsc(rID)},
		frame: wrows(wPrec(int8Lit(1)), wFoll(int8Lit(1))),
		funcs: []*nodes.WindowFunc{wagg("min", wF8, rF8), wagg("max", types.Float4T, rF4), wagg("sum", types.Float4T, rF4),
			wagg("avg", wF8, rF8), wagg("min", types.DateT, rD), wagg("max", types.TimestampT, rTS), wagg("max", types.Int2T, rI2),
			wagg("min", types.IntervalT, rIV), wagg("sum", wNm, rN), wagg("avg", wNm, rN), wagg("sum", types.IntervalT, rIV),
			wagg("avg", types.IntervalT, rIV), wagg("stddev_samp", wF8, rF8), wagg("max", wNm, rN), wagg("avg", wNm, rI8)},
		sqlFuncs: "min(wF8) OVER w, max(f4) OVER w, sum(f4) OVER w, avg(wF8) OVER w, min(d) OVER w, max(ts) OVER w, max(i2) OVER w, " +
			"min(iv) OVER w, sum(n) OVER w, avg(n) OVER w, sum(iv) OVER w, avg(iv) OVER w, stddev_samp(wF8) OVER w, max(n) OVER w, avg(wI8) OVER w",
		sqlWindow: "ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
	},
	{
		name: "lag, lead, first, last and nth values of every type", data: wrData, order: []nodes.SortKey{wAsc(rID)}, frame: wDefault(),
		funcs: []*nodes.WindowFunc{wfn("lag", types.DateT, rD), wfn("lead", types.TimestampT, rTS), wfn("first_value", types.IntervalT, rIV),
			wfn("last_value", types.Float4T, rF4), wfn("nth_value", types.Int2T, rI2, lit(int64(2), wI4)), wfn("lag", wF8, rF8, lit(int64(2), wI4), wLit(wF8, "-1")),
			wfn("lead", wNm, rN, lit(int64(1), wI4), wLit(wNm, "0.0")), wfn("last_value", wBo, cmpOp("<", rF8, wLit(wF8, "1"))),
			wagg("min", wF8, rF8)},
		sqlFuncs: "lag(d) OVER w, lead(ts) OVER w, first_value(iv) OVER w, last_value(f4) OVER w, nth_value(i2, 2) OVER w, " +
			"lag(wF8, 2, -1) OVER w, lead(n, 1, 0.0) OVER w, last_value(wF8 < 1) OVER w, min(wF8) OVER w",
		sqlWindow: "ORDER BY id",
	},
	{
		name: "sliding frames take rows out: ROWS 2 PRECEDING AND 2 FOLLOWING", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame: wrows(wPrec(int8Lit(2)), wFoll(int8Lit(2))),
		funcs: []*nodes.WindowFunc{wfilter(wagg("count", wI8), wGT(wV, 2)), wagg("sum", wI8, wV), wagg("avg", wNm, wV),
			wagg("bool_and", wBo, wGT(wV, 0)), wagg("bool_or", wBo, wGT(wV, 5)), wagg("count", wI8, wS), wagg("sum", wNm, wO)},
		sqlFuncs:  "count(*) FILTER (WHERE v > 2) OVER w, sum(v) OVER w, avg(v) OVER w, bool_and(v > 0) OVER w, bool_or(v > 5) OVER w, count(s) OVER w, sum(o) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING",
	},
	{
		name: "sliding frames take rows out: CURRENT ROW AND UNBOUNDED FOLLOWING", order: []nodes.SortKey{wAsc(wO)},
		frame:     wrows(wCur, wUnbFoll),
		funcs:     []*nodes.WindowFunc{wagg("sum", wI8, wV), wagg("count", wI8), wagg("avg", wNm, wO), wagg("bool_or", wBo, wGT(wV, 8))},
		sqlFuncs:  "sum(v) OVER w, count(*) OVER w, avg(o) OVER w, bool_or(v > 8) OVER w",
		sqlWindow: "ORDER BY o ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
	},
	{
		name: "sliding frames take rows out: GROUPS and RANGE", part: []nodes.Expr{wP}, order: []nodes.SortKey{wAsc(wO)},
		frame:     wframe(nodes.FrameGroups, wPrec(int8Lit(1)), wFoll(int8Lit(1))),
		funcs:     []*nodes.WindowFunc{wagg("sum", wI8, wV), wagg("count", wI8, wV), wagg("bool_and", wBo, wGT(wV, 1))},
		sqlFuncs:  "sum(v) OVER w, count(v) OVER w, bool_and(v > 1) OVER w",
		sqlWindow: "PARTITION BY p ORDER BY o GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
	},
	{
		name: "sliding RANGE frame taking rows out", order: []nodes.SortKey{wAsc(wO)},
		frame:     wframe(nodes.FrameRange, wPrec(int8Lit(2)), wFoll(int8Lit(1))),
		funcs:     []*nodes.WindowFunc{wagg("sum", wI8, wV), wagg("count", wI8), wagg("avg", wNm, wV)},
		sqlFuncs:  "sum(v) OVER w, count(*) OVER w, avg(v) OVER w",
		sqlWindow: "ORDER BY o RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING",
	},
}

// winRangeFuncs are the functions of the RANGE cases over wr.
func winRangeFuncs() []*nodes.WindowFunc {
	return []*nodes.WindowFunc{wagg("count", wI8), wfn("first_value", wI8, rID), wfn("last_value", wI8, rID), wagg("sum", wNm, rID)}
}

const winRangeSQL = "count(*) OVER w, first_value(id) OVER w, last_value(id) OVER w, sum(id) OVER w"

// winExpected is where TestWindowCases takes each case's want from;
// kept apart from the case list so that the rows stay readable.
var winExpected = map[string][][]any{}

func TestWindowCases(t *testing.T) {
	for _, tc := range winCases {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == nil {
				want = winExpected[tc.name]
			}
			for _, batchSize := range []int{DefaultBatchSize, 3} {
				got, err := runWinCase(t, tc, batchSize)
				if tc.wantCode != "" {
					wantPgErr(t, err, tc.wantCode, tc.wantMsg)
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if want == nil {
					t.Fatalf("no expectation; got\n%s", winGoRows(got))
				}
				if diff := cmp.Diff(want, got, cmpopts.EquateNaNs()); diff != "" {
					t.Errorf("batch size %d: results (-want +got):\n%s\ngot:\n%s", batchSize, diff, winGoRows(got))
				}
			}
		})
	}
}

// runWinCase runs a case over wt cut into batches; the result rows are
// the id then the functions' values.
func runWinCase(t *testing.T, tc winCase, batchSize int) ([][]any, error) {
	t.Helper()
	exec := checkedAlloc(t)
	data := memory.NewCheckedAllocator(memory.NewGoAllocator())
	ds := tc.data
	if ds == nil {
		ds = wtData
	}
	s := ds.stub()
	plan := windowOver(s, tc.part, tc.order, tc.frame, tc.funcs...)
	ec := &ExecContext{BatchSize: batchSize}
	rows := winSortRows(ds.rows, tc.part, tc.order)
	fake := exectest.New(nil, "input", exectest.Batches(winBatches(data, rows, ds.fields)...)...)
	op := buildWindowOver(t, plan, ec, s, fake)
	out, sizes, err := winDrain(context.Background(), op)
	ec.Release()
	wantNoViolations(t, fake)
	data.AssertSize(t, 0)
	exec.AssertSize(t, 0)
	for _, n := range sizes {
		if n == 0 || n > batchSize {
			t.Errorf("a batch of %d rows (batch size %d)", n, batchSize)
		}
	}
	if err != nil {
		return nil, err
	}
	if len(out) != len(rows) {
		t.Fatalf("%d rows out of %d", len(out), len(rows))
	}
	res := make([][]any, len(out))
	for i, r := range out {
		if r[0] != winDatum(rows[i][0]) {
			t.Fatalf("row %d is id %v, want %v (input order)", i, r[0], rows[i][0])
		}
		res[i] = append([]any{r[0]}, r[len(ds.fields):]...)
		for j, f := range tc.funcs {
			// Dates, timestamps and intervals as their text (as they
			// come from PostgreSQL).
			if v := res[i][j+1]; v != nil && (f.T.IsDatetime() || f.T.ID == types.IntervalType) {
				res[i][j+1] = types.Format(f.T, v)
			}
		}
	}
	return res, nil
}

// winGoRows prints rows as Go literals, for writing expectations.
func winGoRows(rows [][]any) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString("{")
		for i, v := range r {
			if i > 0 {
				b.WriteString(", ")
			}
			switch x := v.(type) {
			case nil:
				b.WriteString("nil")
			case string:
				fmt.Fprintf(&b, "%q", x)
			case float64:
				switch {
				case math.IsInf(x, 1):
					b.WriteString("math.Inf(1)")
				case math.IsInf(x, -1):
					b.WriteString("math.Inf(-1)")
				case math.IsNaN(x):
					b.WriteString("math.NaN()")
				default:
					fmt.Fprintf(&b, "float64(%v)", x)
				}
			case int64:
				fmt.Fprintf(&b, "int64(%d)", x)
			default:
				fmt.Fprintf(&b, "%#v", x)
			}
		}
		b.WriteString("},\n")
	}
	return b.String()
}

// TestWindowCasesOnPostgres checks the cases' expectations against
// PostgreSQL, when WINDOW_PG_DSN names a server.
func TestWindowCasesOnPostgres(t *testing.T) {
	dsn := os.Getenv("WINDOW_PG_DSN")
	if dsn == "" {
		t.Skip("WINDOW_PG_DSN not set")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, winTableSQL); err != nil {
		t.Fatal(err)
	}
	for _, r := range winRows {
		if _, err := conn.Exec(ctx, "INSERT INTO wt VALUES ($1, $2, $3, $4, $5)", r...); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range wrData.sql {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// WINDOW_PG_DUMP names a file to write PostgreSQL's results to, as
	// winExpected's entries.
	var dump *os.File
	if path := os.Getenv("WINDOW_PG_DUMP"); path != "" {
		if dump, err = os.Create(path); err != nil {
			t.Fatal(err)
		}
		defer dump.Close()
	}
	for _, tc := range winCases {
		t.Run(tc.name, func(t *testing.T) {
			sortKeys := []string{}
			if i := strings.Index(tc.sqlWindow, "PARTITION BY "); i >= 0 {
				p := tc.sqlWindow[i+len("PARTITION BY "):]
				for _, kw := range []string{" ORDER", " ROWS", " RANGE", " GROUPS"} {
					if j := strings.Index(p, kw); j >= 0 {
						p = p[:j]
					}
				}
				sortKeys = append(sortKeys, p)
			}
			if i := strings.Index(tc.sqlWindow, "ORDER BY "); i >= 0 {
				o := tc.sqlWindow[i+len("ORDER BY "):]
				for _, kw := range []string{" ROWS", " RANGE", " GROUPS"} {
					if j := strings.Index(o, kw); j >= 0 {
						o = o[:j]
					}
				}
				sortKeys = append(sortKeys, o)
			}
			sortKeys = append(sortKeys, "id")
			table := "wt"
			if tc.data == wrData {
				table = "wr"
			}
			q := fmt.Sprintf("SELECT id, %s FROM (SELECT * FROM %s ORDER BY %s) q WINDOW w AS (%s)",
				tc.sqlFuncs, table, strings.Join(sortKeys, ", "), tc.sqlWindow)
			rows, err := conn.Query(ctx, q, pgx.QueryResultFormats{pgx.TextFormatCode})
			if err != nil {
				t.Fatal(err)
			}
			got, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) ([]any, error) {
				raw := row.RawValues()
				out := make([]any, len(raw))
				for i, v := range raw {
					out[i] = winPGValue(v, row.FieldDescriptions()[i].DataTypeOID)
				}
				return out, nil
			})
			if tc.wantCode != "" {
				var pe interface{ SQLState() string }
				if !errors.As(err, &pe) || pe.SQLState() != tc.wantCode || !strings.Contains(err.Error(), tc.wantMsg) {
					t.Fatalf("PostgreSQL: %v, want %s %s", err, tc.wantCode, tc.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			want := tc.want
			if want == nil {
				want = winExpected[tc.name]
			}
			if dump != nil {
				fmt.Fprintf(dump, "\t%q: {\n%s},\n", tc.name, winGoRows(got))
				return
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("%s\n(-want +PostgreSQL):\n%s\nPostgreSQL:\n%s", q, diff, winGoRows(got))
			}
		})
	}
}

// winPGValue converts a value PostgreSQL sent as text to exectest's
// convention: integers as int64, floats as float64, the rest as text.
func winPGValue(v []byte, oid uint32) any {
	if v == nil {
		return nil
	}
	switch oid {
	case 20, 21, 23:
		n, _ := strconv.ParseInt(string(v), 10, 64)
		return n
	case 700:
		f, _ := strconv.ParseFloat(string(v), 64)
		return float64(float32(f))
	case 701:
		f, _ := strconv.ParseFloat(string(v), 64)
		return f
	case 16:
		return string(v) == "t"
	}
	return string(v)
}

// bigWindowInput is n rows (id, g) with id = 1..n and g = id / groupSize
// (so that partitions by g hold groupSize rows), in batches of batch
// rows.
func bigWindowInput(mem memory.Allocator, n, groupSize, batch int) []exectest.Step {
	var steps []exectest.Step
	for lo := 1; lo <= n; lo += batch {
		var ids, gs []any
		for id := lo; id < lo+batch && id <= n; id++ {
			ids = append(ids, id)
			gs = append(gs, id/groupSize)
		}
		steps = append(steps, exectest.Step{Batch: exectest.NewBatch(mem, exectest.Int64s("id", ids...), exectest.Int64s("g", gs...))})
	}
	return steps
}

// TestWindowBatches: partitions spanning many input batches, batches
// holding many partitions, and output cut at BatchSize rows, with the
// results checked against closed forms.
func TestWindowBatches(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		n, group, batch, out   int
		partition              bool
		frame                  nodes.WindowFrame
		wantSum                func(id, g, first, last int64) any
		wantRowNumber, wantCnt func(id, first, last int64) int64
	}{
		{name: "one partition over many batches, running sum", n: 1000, batch: 37, out: 64, frame: wDefault(),
			wantSum: func(id, g, first, last int64) any { return fmt.Sprint(id * (id + 1) / 2) }},
		{name: "partitions of 7 in batches of 50, whole-partition frame", n: 1000, group: 7, batch: 50, out: 16, partition: true,
			frame: wrows(wUnbPrec, wUnbFoll),
			wantSum: func(id, g, first, last int64) any {
				return fmt.Sprint((first + last) * (last - first + 1) / 2)
			}},
		{name: "partitions of 300 in batches of 64, sliding ROWS", n: 1000, group: 300, batch: 64, out: 100, partition: true,
			frame: wrows(wPrec(int8Lit(2)), wFoll(int8Lit(1))),
			wantSum: func(id, g, first, last int64) any {
				lo, hi := max(first, id-2), min(last, id+1)
				return fmt.Sprint((lo + hi) * (hi - lo + 1) / 2)
			}},
		{name: "partitions of one row", n: 500, group: 1, batch: 128, out: 1000, partition: true, frame: wDefault(),
			wantSum: func(id, g, first, last int64) any { return fmt.Sprint(id) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exec := checkedAlloc(t)
			data := memory.NewCheckedAllocator(memory.NewGoAllocator())
			s := stub(field("id", types.Int8T), field("g", types.Int8T))
			id, g := col(0, types.Int8T), col(1, types.Int8T)
			var part []nodes.Expr
			group := tc.group
			if tc.partition {
				part = []nodes.Expr{g}
			} else {
				group = tc.n + 1
			}
			plan := windowOver(s, part, []nodes.SortKey{wAsc(id)}, tc.frame,
				wfn("row_number", wI8), wagg("sum", wNm, id), wagg("count", wI8), wfn("lag", wI8, id))
			ec := &ExecContext{BatchSize: tc.out}
			fake := exectest.New(nil, "in", bigWindowInput(data, tc.n, group, tc.batch)...)
			op := buildWindowOver(t, plan, ec, s, fake)
			rows, sizes, err := winDrain(context.Background(), op)
			if err != nil {
				t.Fatal(err)
			}
			ec.Release()
			wantNoViolations(t, fake)
			data.AssertSize(t, 0)
			exec.AssertSize(t, 0)
			if len(rows) != tc.n {
				t.Fatalf("%d rows, want %d", len(rows), tc.n)
			}
			for _, n := range sizes {
				if n > tc.out {
					t.Fatalf("batch of %d rows, BatchSize %d", n, tc.out)
				}
			}
			for _, r := range rows {
				id := r[0].(int64)
				first, last := int64(1), int64(tc.n)
				if tc.partition {
					gv := id / int64(group)
					first, last = max(1, gv*int64(group)), min(int64(tc.n), gv*int64(group)+int64(group)-1)
				}
				if want := tc.wantSum(id, 0, first, last); r[3] != want {
					t.Fatalf("row %d: sum %v, want %v", id, r[3], want)
				}
				if rn := id - first + 1; r[2] != rn {
					t.Fatalf("row %d: row_number %v, want %d", id, r[2], rn)
				}
				var lag any
				if id > first {
					lag = id - 1
				}
				if r[5] != lag {
					t.Fatalf("row %d: lag %v, want %v", id, r[5], lag)
				}
			}
		})
	}
}

// winCountdownCtx is a context whose Err turns to Canceled after n calls.
type winCountdownCtx struct {
	context.Context
	left atomic.Int64
}

func (c *winCountdownCtx) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestWindowCancel: a cancel stops the node between input batches and
// inside the computation of one large partition (a sliding frame over
// 200 000 rows recomputes 2e8 rows), with 57014, releasing everything.
func TestWindowCancel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls int64 // Err calls before the cancel
	}{
		{"before the first batch", 0},
		{"between batches", 3},
		{"inside a partition", 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exec := checkedAlloc(t)
			data := memory.NewCheckedAllocator(memory.NewGoAllocator())
			s := stub(field("id", types.Int8T), field("g", types.Int8T))
			id := col(0, types.Int8T)
			plan := windowOver(s, nil, []nodes.SortKey{wAsc(id)}, wrows(wPrec(int8Lit(1000)), wCur), wagg("sum", wNm, id))
			ec := &ExecContext{}
			fake := exectest.New(nil, "in", bigWindowInput(data, 200000, 1, 8192)...)
			op := buildWindowOver(t, plan, ec, s, fake)
			ctx := &winCountdownCtx{Context: context.Background()}
			ctx.left.Store(tc.calls + 1)
			start := time.Now()
			_, err := exectest.Run(ctx, op)
			if got := pgerr.Code(err); got != pgerr.QueryCanceled {
				t.Fatalf("error %v, want 57014", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("cancel took %v", d)
			}
			ec.Release()
			wantNoViolations(t, fake)
			data.AssertSize(t, 0)
			exec.AssertSize(t, 0)
		})
	}
}

// TestWindowEarlyClose: a parent that stops after a batch (LIMIT) leaves
// nothing behind, also with partitions still buffered and results not
// yet handed out.
func TestWindowEarlyClose(t *testing.T) {
	for _, stopAfter := range []int{1, 2, 5} {
		t.Run(fmt.Sprint(stopAfter), func(t *testing.T) {
			exec := checkedAlloc(t)
			data := memory.NewCheckedAllocator(memory.NewGoAllocator())
			s := stub(field("id", types.Int8T), field("g", types.Int8T))
			id, g := col(0, types.Int8T), col(1, types.Int8T)
			plan := windowOver(s, []nodes.Expr{g}, []nodes.SortKey{wAsc(id)}, wrows(wPrec(int8Lit(1)), wFoll(int8Lit(1))),
				wagg("sum", wNm, id), wagg("string_agg", wTx, &nodes.Cast{Arg: id, T: wTx}, lit(",", wTx)), wfn("lead", wI8, id))
			ec := &ExecContext{BatchSize: 10}
			fake := exectest.New(nil, "in", bigWindowInput(data, 300, 45, 16)...)
			op := buildWindowOver(t, plan, ec, s, fake)
			rows, err := drainN(context.Background(), op, stopAfter)
			if err != nil {
				t.Fatal(err)
			}
			if rows == 0 || rows > int64(10*stopAfter) {
				t.Errorf("%d rows from %d batches of at most 10", rows, stopAfter)
			}
			ec.Release()
			wantNoViolations(t, fake)
			data.AssertSize(t, 0)
			exec.AssertSize(t, 0)
		})
	}
	// Closed before Open, and closed after a failed Open.
	s := stub(field("id", types.Int8T))
	plan := windowOver(s, nil, nil, wDefault(), wfn("row_number", wI8))
	op := buildWindowOver(t, plan, &ExecContext{}, s, exectest.New(nil, "in"))
	if err := op.Close(); err != nil {
		t.Fatal(err)
	}
	fake := exectest.New(nil, "in")
	fake.OpenErr = pgerr.New(pgerr.IOError, "boom")
	op = buildWindowOver(t, plan, &ExecContext{}, s, fake)
	if err := op.Open(context.Background()); err == nil {
		t.Fatal("Open succeeded")
	}
	if err := op.Close(); err != nil {
		t.Fatal(err)
	}
	wantNoViolations(t, fake)
}

// TestWindowChildError: a child's error is the node's, and what was
// buffered is released.
func TestWindowChildError(t *testing.T) {
	exec := checkedAlloc(t)
	data := memory.NewCheckedAllocator(memory.NewGoAllocator())
	s := stub(field("id", types.Int8T), field("g", types.Int8T))
	steps := bigWindowInput(data, 100, 100, 30)
	for _, st := range steps[2:] {
		st.Batch.Release()
	}
	steps = append(steps[:2], exectest.Step{Err: pgerr.New(pgerr.IOError, "disk on fire")})
	plan := windowOver(s, nil, []nodes.SortKey{wAsc(col(0, wI8))}, wDefault(), wagg("count", wI8))
	fake := exectest.New(nil, "in", steps...)
	op := buildWindowOver(t, plan, &ExecContext{}, s, fake)
	_, err := exectest.Run(context.Background(), op)
	wantPgErr(t, err, pgerr.IOError, "disk on fire")
	wantNoViolations(t, fake)
	data.AssertSize(t, 0)
	exec.AssertSize(t, 0)
}

// TestWindowEmptyInput: no rows, no output; frame offsets are still
// checked (PostgreSQL evaluates them on the first call).
func TestWindowEmptyInput(t *testing.T) {
	s := stub(field("id", types.Int8T))
	for _, tc := range []struct {
		frame    nodes.WindowFrame
		wantCode string
	}{
		{wDefault(), ""},
		{wrows(wPrec(int8Lit(-5)), wCur), "22013"},
		{wframe(nodes.FrameRange, wPrec(int8Lit(-5)), wCur), ""}, // in_range never runs
		{wframe(nodes.FrameGroups, wCur, wFoll(lit(nil, wI8))), "22004"},
	} {
		plan := windowOver(s, nil, []nodes.SortKey{wAsc(col(0, wI8))}, tc.frame, wagg("count", wI8), wfn("rank", wI8))
		op := buildWindowOver(t, plan, &ExecContext{}, s, exectest.New(nil, "in"))
		rows, err := exectest.Run(context.Background(), op)
		if got := pgerr.Code(err); got != tc.wantCode && !(tc.wantCode == "" && err == nil) {
			t.Errorf("frame %+v: error %v, want %q", tc.frame, err, tc.wantCode)
		}
		if len(rows) != 0 {
			t.Errorf("%d rows from no input", len(rows))
		}
	}
}

// TestWindowMemoryLimit: the buffered partition counts against the
// statement's memory pool: 53200 when it does not fit.
func TestWindowMemoryLimit(t *testing.T) {
	exec := checkedAlloc(t)
	data := memory.NewCheckedAllocator(memory.NewGoAllocator())
	s := stub(field("id", types.Int8T), field("g", types.Int8T))
	plan := windowOver(s, nil, []nodes.SortKey{wAsc(col(0, wI8))}, wDefault(), wagg("count", wI8))
	pool := NewMemoryPool(64<<10, nil)
	ec := &ExecContext{Memory: pool}
	fake := exectest.New(nil, "in", bigWindowInput(data, 20000, 1, 1000)...)
	op := buildWindowOver(t, plan, ec, s, fake)
	_, err := exectest.Run(context.Background(), op)
	if got := pgerr.Code(err); got != pgerr.OutOfMemory {
		t.Fatalf("error %v, want 53200", err)
	}
	if pool.Used() != 0 {
		t.Errorf("%d bytes still reserved", pool.Used())
	}
	data.AssertSize(t, 0)
	exec.AssertSize(t, 0)

	// Many small partitions fit: only the current one is held.
	data2 := memory.NewCheckedAllocator(memory.NewGoAllocator())
	plan = windowOver(s, []nodes.Expr{col(1, wI8)}, []nodes.SortKey{wAsc(col(0, wI8))}, wDefault(), wagg("count", wI8))
	ec = &ExecContext{Memory: pool, BatchSize: 1000}
	fake = exectest.New(nil, "in", bigWindowInput(data2, 20000, 100, 1000)...)
	op = buildWindowOver(t, plan, ec, s, fake)
	rows, err := exectest.Run(context.Background(), op)
	if err != nil || len(rows) != 20000 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	if pool.Peak() > 64<<10 || pool.Used() != 0 {
		t.Errorf("peak %d, used %d", pool.Peak(), pool.Used())
	}
	data2.AssertSize(t, 0)
}

// TestWindowQualAndInstrumentation: the node applies its own Filter and
// Targets (rank() <= 2, projected), counts the rows its Filter removed,
// and EXPLAIN ANALYZE's wrapper counts what it returned.
func TestWindowQualAndInstrumentation(t *testing.T) {
	s := wtData.stub()
	plan := windowOver(s, []nodes.Expr{wP}, []nodes.SortKey{wAsc(wO)}, wDefault(), wfn("rank", wI8), wagg("sum", wI8, wV))
	rank, sum := col(5, wI8), col(6, wI8)
	plan.Filter = cmpOp("<=", rank, int8Lit(2))
	plan.Targets = []nodes.Expr{wID, op("*", sum, int8Lit(10), wI8)}
	plan.Out = []nodes.Field{field("id", wI8), field("x", wI8)}
	plan.ID, s.ID = 0, 1
	stats := instrument.NewStats(2, false)
	ec := &ExecContext{Stats: stats, BatchSize: 4}
	rows := winSortRows(winRows, plan.PartitionBy, plan.OrderBy)
	op := buildWindowOver(t, plan, ec, s, exectest.New(nil, "in", exectest.Batches(winBatches(memory.DefaultAllocator, rows, wtData.fields)...)...))
	if _, owns := winUnwrap(op).(*windowAgg); !owns {
		t.Fatalf("WindowAgg was wrapped: %T", winUnwrap(op))
	}
	got, err := exectest.Run(context.Background(), op)
	ec.Release()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{int64(1), int64(100)}, {int64(2), int64(100)}, {int64(7), int64(60)}, {int64(8), int64(60)}, {int64(9), int64(60)},
		{int64(13), int64(20)}, {int64(14), int64(0)}, {int64(15), int64(90)}, {int64(10), int64(40)}, {int64(11), int64(40)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if n := stats.Node(0); n.Rows != int64(len(want)) || n.RowsRemovedByFilter != int64(len(winRows)-len(want)) || n.Loops != 1 {
		t.Errorf("stats: rows %d, removed %d, loops %d", n.Rows, n.RowsRemovedByFilter, n.Loops)
	}
}

func winUnwrap(op Operator) Operator {
	if w, ok := op.(*instrumented); ok {
		return w.Operator
	}
	return op
}
