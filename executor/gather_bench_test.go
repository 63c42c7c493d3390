package executor

// What the tuple queue design buys: rows/s of a plain scan read directly,
// through a Gather (one worker, the leader not participating, so that
// every row crosses the queue), and through a naive queue that sends one
// row per channel operation, as a first tuple queue would.
//
//	go test -run XXX -bench Queue ./executor

import (
	"context"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/nodes"
)

const benchQueueRows = 4 << 20

func benchQueueTable() *nodes.SeqScan {
	mem := memory.NewGoAllocator()
	var batches []arrow.RecordBatch
	for off := 0; off < benchQueueRows; off += DefaultBatchSize {
		a, b := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
		for i := off; i < off+DefaultBatchSize; i++ {
			a.Append(int64(i % 1000))
			b.Append(int64(i))
		}
		cols := []arrow.Array{a.NewArray(), b.NewArray()}
		schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "b", Type: arrow.PrimitiveTypes.Int64}}, nil)
		batches = append(batches, array.NewRecordBatch(schema, cols, DefaultBatchSize))
		cols[0].Release()
		cols[1].Release()
	}
	return scanAB(newTable("q", batches...))
}

// drainRows runs op to its end and returns the rows it gave.
func drainRows(b *testing.B, op Operator) int64 {
	ctx := context.Background()
	if err := op.Open(ctx); err != nil {
		b.Fatal(err)
	}
	var n int64
	for {
		batch, err := op.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		n += batch.NumRows()
		batch.Release()
	}
	if err := op.Close(); err != nil {
		b.Fatal(err)
	}
	return n
}

func reportRows(b *testing.B, rows int64) {
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
}

func BenchmarkQueueSerial(b *testing.B) {
	scan := benchQueueTable()
	var rows int64
	for b.Loop() {
		op, err := Build(scan, &ExecContext{})
		if err != nil {
			b.Fatal(err)
		}
		rows = drainRows(b, op)
	}
	reportRows(b, rows)
}

func BenchmarkQueueGather(b *testing.B) {
	scan := benchQueueTable()
	ps := *scan
	ps.Parallel = true
	g := &nodes.Gather{Child: &ps, Workers: 1}
	g.Out = scan.Out
	var rows int64
	for b.Loop() {
		op, err := Build(g, &ExecContext{Workers: &WorkerPool{}, MaxParallelWorkers: 8})
		if err != nil {
			b.Fatal(err)
		}
		rows = drainRows(b, op)
	}
	reportRows(b, rows)
}

func BenchmarkQueueNaivePerRow(b *testing.B) {
	scan := benchQueueTable()
	var rows int64
	for b.Loop() {
		child, err := Build(scan, &ExecContext{})
		if err != nil {
			b.Fatal(err)
		}
		rows = drainRows(b, &naiveQueue{child: child, batchSize: DefaultBatchSize})
	}
	reportRows(b, rows)
}

// naiveQueue runs its child in a goroutine that sends one row per
// channel operation; the reader builds batches again from the rows.
type naiveQueue struct {
	child     Operator
	batchSize int
	rows      chan [2]int64
	done      chan error
	cancel    context.CancelFunc
	schema    *arrow.Schema
}

func (q *naiveQueue) Open(ctx context.Context) error {
	q.rows, q.done = make(chan [2]int64, 1024), make(chan error, 1)
	ctx, q.cancel = context.WithCancel(ctx)
	go func() {
		defer close(q.rows)
		err := Drain(ctx, q.child, func(b arrow.RecordBatch) error {
			q.schema = b.Schema()
			a, c := valuesOf[int64](b.Column(0)), valuesOf[int64](b.Column(1))
			for i := range a {
				select {
				case q.rows <- [2]int64{a[i], c[i]}:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		})
		q.done <- err
	}()
	return nil
}

func (q *naiveQueue) Next(ctx context.Context) (arrow.RecordBatch, error) {
	a, c := array.NewInt64Builder(alloc), array.NewInt64Builder(alloc)
	defer a.Release()
	defer c.Release()
	n := 0
	for row := range q.rows {
		a.Append(row[0])
		c.Append(row[1])
		if n++; n == q.batchSize {
			break
		}
	}
	if n == 0 {
		if err := <-q.done; err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	cols := []arrow.Array{a.NewArray(), c.NewArray()}
	return makeBatch(q.schema, cols, n), nil
}

func (q *naiveQueue) Close() error {
	q.cancel()
	for range q.rows {
	}
	return nil
}
