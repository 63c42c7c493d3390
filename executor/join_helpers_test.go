package executor

// Shared helpers of the join tests: rows of two small tables, a
// reference join over Go values, plans over fake children, and a drain
// that checks batch sizes.

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/go-cmp/cmp"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// The outer rows are (ok1 bigint, ok2 text, ov bigint), the inner rows
// (ik1 bigint, ik2 text, iw bigint); a pair is the six columns in order.
var (
	outerFields = []nodes.Field{field("ok1", types.Int8T), field("ok2", types.TextT), field("ov", types.Int8T)}
	innerFields = []nodes.Field{field("ik1", types.Int8T), field("ik2", types.TextT), field("iw", types.Int8T)}
	joinTypes   = []nodes.JoinType{nodes.JoinInner, nodes.JoinLeft, nodes.JoinRight, nodes.JoinFull, nodes.JoinSemi, nodes.JoinAnti}
	// hashJoinTypes adds the types only a hash join runs.
	hashJoinTypes = append(append([]nodes.JoinType(nil), joinTypes...), nodes.JoinRightSemi, nodes.JoinRightAnti)
)

// keyChoice is which columns (0: the bigint, 1: the text) a join is on.
type keyChoice struct {
	name string
	cols []int
}

var keyChoices = []keyChoice{{"int", []int{0}}, {"text", []int{1}}, {"int+text", []int{0, 1}}}

// randomRows makes n rows: keys in [0, keys) (and their text "k<n>"),
// about one in ten NULL, values in [0, 10), some NULL.
func randomRows(r *rand.Rand, n, keys int) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		var k1, k2, v any
		if r.Intn(10) > 0 {
			k1 = int64(r.Intn(keys))
		}
		if r.Intn(10) > 0 {
			k2 = fmt.Sprintf("k%d", r.Intn(keys)%7)
		}
		if r.Intn(8) > 0 {
			v = int64(r.Intn(10))
		}
		rows[i] = []any{k1, k2, v}
	}
	return rows
}

// rowBatches cuts rows of (bigint, text, bigint) into batches of size.
func rowBatches(mem memory.Allocator, fs []nodes.Field, rows [][]any, size int) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	for lo := 0; lo < len(rows); lo += size {
		part := rows[lo:min(lo+size, len(rows))]
		cols := make([][]any, 3)
		for _, row := range part {
			for c := range cols {
				cols[c] = append(cols[c], row[c])
			}
		}
		out = append(out, exectest.NewBatch(mem,
			exectest.Int64s(fs[0].Name, cols[0]...), exectest.Strings(fs[1].Name, cols[1]...), exectest.Int64s(fs[2].Name, cols[2]...)))
	}
	return out
}

// ltFilter is the JoinFilter ov < iw, and ltGo its reference.
func ltFilter() nodes.Expr { return cmpOp("<", col(2, types.Int8T), col(5, types.Int8T)) }

func ltGo(o, i []any) bool {
	return o[2] != nil && i[2] != nil && o[2].(int64) < i[2].(int64)
}

// refJoin joins rows the slow way: keys compare with = (NULL matches
// nothing), then filter (nil: none) decides.
func refJoin(typ nodes.JoinType, outer, inner [][]any, keys []int, filter func(o, i []any) bool) [][]any {
	var out [][]any
	innerHit := make([]bool, len(inner))
	nulls := []any{nil, nil, nil}
	for _, o := range outer {
		hit := false
		for n, i := range inner {
			eq := true
			for _, k := range keys {
				if o[k] == nil || i[k] == nil || o[k] != i[k] {
					eq = false
				}
			}
			if !eq || (filter != nil && !filter(o, i)) {
				continue
			}
			hit, innerHit[n] = true, true
			if !typ.OwnRowsAreOuter() && !typ.OwnRowsAreInner() {
				out = append(out, append(append([]any(nil), o...), i...))
			}
		}
		switch {
		case typ == nodes.JoinSemi && hit, typ == nodes.JoinAnti && !hit:
			out = append(out, o)
		case (typ == nodes.JoinLeft || typ == nodes.JoinFull) && !hit:
			out = append(out, append(append([]any(nil), o...), nulls...))
		}
	}
	for n, i := range inner {
		switch {
		case (typ == nodes.JoinRight || typ == nodes.JoinFull) && !innerHit[n]:
			out = append(out, append(append([]any(nil), nulls...), i...))
		case typ == nodes.JoinRightSemi && innerHit[n], typ == nodes.JoinRightAnti && !innerHit[n]:
			out = append(out, i)
		}
	}
	return out
}

// ownFields are a join's own columns.
func ownFields(typ nodes.JoinType) []nodes.Field {
	if typ.OwnRowsAreOuter() {
		return outerFields
	}
	if typ.OwnRowsAreInner() {
		return innerFields
	}
	return append(append([]nodes.Field(nil), outerFields...), innerFields...)
}

// hashJoinPlan joins two stubs on keys.
func hashJoinPlan(typ nodes.JoinType, keys []int, filter nodes.Expr) (*nodes.HashJoin, *nodes.Result, *nodes.Result) {
	o, i := stub(outerFields...), stub(innerFields...)
	hj := &nodes.HashJoin{Type: typ, Outer: o, Inner: &nodes.Hash{Child: i}, JoinFilter: filter}
	hj.Inner.Out = innerFields
	for _, k := range keys {
		hj.OuterKeys = append(hj.OuterKeys, col(k, outerFields[k].T))
		hj.InnerKeys = append(hj.InnerKeys, col(k, innerFields[k].T))
	}
	hj.Out = ownFields(typ)
	return hj, o, i
}

// joinRun is how a join test runs its plan.
type joinRun struct {
	batchSize int // ExecContext.BatchSize
	inSize    int // rows per input batch
	debug     bool
	workMem   int64
}

func (r joinRun) String() string {
	return fmt.Sprintf("batch=%d/in=%d/debug=%v/work_mem=%d", r.batchSize, r.inSize, r.debug, r.workMem)
}

func (r joinRun) context(t *testing.T, dir string) *ExecContext {
	return &ExecContext{BatchSize: r.batchSize, DebugSpill: r.debug, WorkMem: r.workMem, HashMemMultiplier: 1, TempDir: dir}
}

// runJoin builds p over fakes giving outer and inner rows, drains it
// (checking batch sizes) and returns its rows.
func runJoin(t *testing.T, p nodes.Plan, ec *ExecContext, mem memory.Allocator, run joinRun,
	o, i *nodes.Result, outer, inner [][]any) ([][]any, error) {
	t.Helper()
	of := exectest.New(nil, "outer", exectest.Batches(rowBatches(mem, outerFields, outer, run.inSize)...)...)
	inf := exectest.New(nil, "inner", exectest.Batches(rowBatches(mem, innerFields, inner, run.inSize)...)...)
	op := buildWithFakes(t, p, ec, map[*nodes.Result]Operator{o: of, i: inf})
	rows, err := drainChecked(t, op, ec.BatchSize)
	wantNoViolations(t, of, inf)
	return rows, err
}

// drainChecked runs op to its end, checking that every batch has between
// 1 and size rows.
func drainChecked(t *testing.T, op Operator, size int) (rows [][]any, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout*4)
	defer cancel()
	defer func() {
		if cerr := op.Close(); err == nil {
			err = cerr
		}
	}()
	if err := op.Open(ctx); err != nil {
		return nil, err
	}
	for {
		b, err := op.Next(ctx)
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		if n := int(b.NumRows()); n == 0 || n > size {
			t.Errorf("a batch of %d rows (batch size %d)", n, size)
		}
		rows = append(rows, exectest.Rows(b)...)
		b.Release()
	}
}

// sameRows fails unless got and want hold the same rows, in any order.
func sameRows(t *testing.T, what string, got, want [][]any) {
	t.Helper()
	g, w := rowStrings(got), rowStrings(want)
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s: %d rows, want %d (-want +got):\n%s", what, len(got), len(want), truncate(diff, 3000))
	}
}

func rowStrings(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprint(r...)
	}
	sort.Strings(out)
	return out
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// noTempFiles fails if dir holds files.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d temporary files left", len(entries))
	}
}
