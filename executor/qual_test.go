package executor

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// TestQualCopiesOnlyOutputColumns: a filter whose targets are plain
// columns copies the passing rows of those columns only (a filter on a
// text column that outputs two integers copies no text), in the targets'
// order, repeats included; other targets take the general path.
func TestQualCopiesOnlyOutputColumns(t *testing.T) {
	const n = 1000
	ids, texts, ks := make([]any, n), make([]any, n), make([]any, n)
	for i := range n {
		ids[i], ks[i] = int64(i), int64(i%7)
		texts[i] = "comment " + itoa(i%10)
	}
	schema := schemaOf([]nodes.Field{field("id", types.Int8T), field("c", types.TextT), field("k", types.Int8T)})
	batch := func() arrow.RecordBatch {
		return makeBatch(schema, []arrow.Array{arrayOfDatums(types.Int8T, ids), arrayOfDatums(types.TextT, texts), arrayOfDatums(types.Int8T, ks)}, n)
	}
	notLike := cmpOp("!~~", col(1, types.TextT), lit("%1", types.TextT))
	for _, tc := range []struct {
		targets []nodes.Expr
		plain   bool
	}{
		{[]nodes.Expr{col(2, types.Int8T), col(0, types.Int8T), col(2, types.Int8T)}, true},
		{[]nodes.Expr{col(2, types.Int8T), op("+", col(0, types.Int8T), int8Lit(0), types.Int8T), col(2, types.Int8T)}, false},
	} {
		out := []nodes.Field{field("k", types.Int8T), field("id", types.Int8T), field("k2", types.Int8T)}
		q, err := newQual(&nodes.PlanBase{Filter: notLike, Targets: tc.targets, Out: out}, &ExecContext{BatchSize: n})
		if err != nil {
			t.Fatal(err)
		}
		if (q.columns != nil) != tc.plain {
			t.Fatalf("targets %v: plain-column path %v", tc.targets, q.columns != nil)
		}
		got, err := q.apply(batch())
		if err != nil {
			t.Fatal(err)
		}
		if got.NumCols() != 3 || got.NumRows() != n-n/10 {
			t.Fatalf("%d columns, %d rows", got.NumCols(), got.NumRows())
		}
		for r := range int(got.NumRows()) {
			id := types.DatumAt(got.Column(1), types.Int8T, r).(int64)
			k := types.DatumAt(got.Column(0), types.Int8T, r).(int64)
			if id%10 == 1 || k != id%7 || types.DatumAt(got.Column(2), types.Int8T, r).(int64) != k {
				t.Fatalf("row %d: id %d, k %d", r, id, k)
			}
		}
		got.Release()
	}
}
