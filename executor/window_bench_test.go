package executor

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// BenchmarkWindow runs window plans over 1M rows (id, g) in batches of
// 64K: the default frame, one-row partitions, a sliding ROWS frame and a
// RANGE offset frame.
func BenchmarkWindow(b *testing.B) {
	id, g := col(0, types.Int8T), col(1, types.Int8T)
	for _, bc := range []struct {
		name  string
		group int
		part  bool
		frame nodes.WindowFrame
		funcs []*nodes.WindowFunc
	}{
		{"running sum", 0, false, wDefault(), []*nodes.WindowFunc{wagg("sum", wNm, id)}},
		{"row_number rank", 0, false, wDefault(), []*nodes.WindowFunc{wfn("row_number", wI8), wfn("rank", wI8)}},
		{"one-row partitions", 1, true, wDefault(), []*nodes.WindowFunc{wagg("count", wI8), wfn("row_number", wI8)}},
		{"partitions of 1000", 1000, true, wDefault(), []*nodes.WindowFunc{wagg("count", wI8), wagg("max", wI8, id)}},
		{"ROWS 10 PRECEDING", 0, false, wrows(wPrec(int8Lit(10)), wCur), []*nodes.WindowFunc{wagg("sum", wNm, id)}},
		{"RANGE 5 PRECEDING AND 5 FOLLOWING", 0, false, wframe(nodes.FrameRange, wPrec(int8Lit(5)), wFoll(int8Lit(5))), []*nodes.WindowFunc{wagg("count", wI8)}},
		{"lag lead", 0, false, wDefault(), []*nodes.WindowFunc{wfn("lag", wI8, id), wfn("lead", wI8, id, lit(int64(3), wI4))}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			const n = 1 << 20
			group := bc.group
			if group == 0 {
				group = n + 1
			}
			var part []nodes.Expr
			if bc.part {
				part = []nodes.Expr{g}
			}
			s := stub(field("id", types.Int8T), field("g", types.Int8T))
			plan := windowOver(s, part, []nodes.SortKey{wAsc(id)}, bc.frame, bc.funcs...)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				steps := bigWindowInput(memory.DefaultAllocator, n, group, DefaultBatchSize)
				ec := &ExecContext{}
				op := buildWindowOver(b, plan, ec, s, exectest.New(nil, "in", steps...))
				b.StartTimer()
				if _, err := drainN(context.Background(), op, 0); err != nil {
					b.Fatal(err)
				}
				ec.Release()
			}
		})
	}
}
