package remote

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgx/v5"
	"github.com/pgfed/pgfed/types"
)

// BenchmarkFetchTwoInts reads a 1,000,000-row table of two integers
// through a cursor at two fetch sizes, and with a plain pgx rows.Scan loop
// over the same query for comparison; each reports rows/s.
//
//	go test -run '^$' -bench FetchTwoInts -benchtime 5x ./remote
func BenchmarkFetchTwoInts(b *testing.B) {
	const rows = 1_000_000
	const query = "SELECT a, b FROM public.two"
	db := newTestDB(b)
	db.exec(b, fmt.Sprintf("CREATE TABLE two AS SELECT i AS a, -i AS b FROM generate_series(1, %d) AS i", rows))
	db.exec(b, "VACUUM ANALYZE two")
	ctx := context.Background()
	cols := []types.T{types.Int4T, types.Int4T}
	schema := schemaFor(cols)

	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprintf("cursor/fetch=%d", n), func(b *testing.B) {
			m := NewManager(ManagerConfig{})
			defer m.Close()
			iterations := 0
			for b.Loop() {
				c, err := m.Conn(ctx, db.spec)
				if err != nil {
					b.Fatal(err)
				}
				cu, err := c.OpenCursor(ctx, query)
				if err != nil {
					b.Fatal(err)
				}
				total := int64(0)
				for {
					batch, eof, err := cu.Fetch(ctx, n, schema, cols)
					if err != nil {
						b.Fatal(err)
					}
					if batch != nil {
						total += batch.NumRows()
						batch.Release()
					}
					if eof {
						break
					}
				}
				if err := cu.Close(ctx); err != nil {
					b.Fatal(err)
				}
				if err := m.EndTransaction(ctx, true); err != nil {
					b.Fatal(err)
				}
				if total != rows {
					b.Fatalf("read %d rows", total)
				}
				iterations++
			}
			b.ReportMetric(float64(rows*iterations)/b.Elapsed().Seconds(), "rows/s")
		})
	}

	b.Run("pgx-rows.Scan", func(b *testing.B) {
		conn, err := pgx.Connect(ctx, db.cluster.DSN(db.name))
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close(ctx)
		iterations := 0
		for b.Loop() {
			r, err := conn.Query(ctx, query)
			if err != nil {
				b.Fatal(err)
			}
			total := 0
			var x, y int32
			for r.Next() {
				if err := r.Scan(&x, &y); err != nil {
					b.Fatal(err)
				}
				total++
			}
			if err := r.Err(); err != nil {
				b.Fatal(err)
			}
			if total != rows {
				b.Fatalf("read %d rows", total)
			}
			iterations++
		}
		b.ReportMetric(float64(rows*iterations)/b.Elapsed().Seconds(), "rows/s")
	})
}

// BenchmarkDecodeTwoInts measures the decoding alone, without a server:
// 10,000 rows of two binary int4 values into a batch, per op.
func BenchmarkDecodeTwoInts(b *testing.B) {
	const rows = 10000
	cols := []types.T{types.Int4T, types.Int4T}
	schema := schemaFor(cols)
	vals := make([][][]byte, rows)
	for i := range vals {
		vals[i] = [][]byte{binary.BigEndian.AppendUint32(nil, uint32(i)), binary.BigEndian.AppendUint32(nil, uint32(-i))}
	}
	columns := make([]fetchColumn, len(cols))
	for i, t := range cols {
		columns[i], _ = newColumn(oidInt4, t)
	}
	for b.Loop() {
		for i := range columns {
			columns[i].out.reset(rows)
		}
		for _, row := range vals {
			for i := range columns {
				if err := columns[i].dec.decode(row[i]); err != nil {
					b.Fatal(err)
				}
			}
		}
		arrs := make([]arrow.Array, len(columns))
		for i := range columns {
			arrs[i] = columns[i].out.finish(schema.Field(i).Type)
		}
		array.NewRecordBatch(schema, arrs, rows).Release()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
