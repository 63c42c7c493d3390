package pgfed_test

// BenchmarkCopyFrom: COPY FROM STDIN of TPC-H lineitem rows (integers,
// numeric(15,2), char(n), dates, varchar(44)), in the text format the
// TPC-H generator writes and as CSV with the comment quoted, reporting
// rows/s and MB/s of input. Each iteration loads a fresh table and
// commits it, the whole path of a bulk load.
//
//	go test . -run '^$' -bench BenchmarkCopyFrom -benchtime 5x

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/bench/tpch"
)

// copyBenchOrders drives the lineitem rows loaded: about 4 lines per
// order, so some 200,000 rows.
const copyBenchOrders = 50_000

var copyBenchData = sync.OnceValues(func() (text, csv []byte) {
	g, err := tpch.New(1, 19920101)
	if err != nil {
		panic(err)
	}
	text, _ = g.AppendCopy(nil, tpch.LineItem, 0, copyBenchOrders)
	return text, textToCSV(text)
})

// textToCSV rewrites the generator's COPY text (no escapes, no NULLs) as
// CSV with commas, quoting the last field (the comment) always and any
// other field that needs it.
func textToCSV(text []byte) []byte {
	out := make([]byte, 0, len(text)+len(text)/8)
	for line := range bytes.Lines(text) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		fields := bytes.Split(line, []byte("\t"))
		for i, f := range fields {
			if i > 0 {
				out = append(out, ',')
			}
			if i == len(fields)-1 || bytes.ContainsAny(f, ",\"") {
				out = append(out, '"')
				out = append(out, bytes.ReplaceAll(f, []byte(`"`), []byte(`""`))...)
				out = append(out, '"')
			} else {
				out = append(out, f...)
			}
		}
		out = append(out, '\n')
	}
	return out
}

func BenchmarkCopyFrom(b *testing.B) {
	text, csv := copyBenchData()
	for _, bc := range []struct {
		name, copy string
		data       []byte
	}{
		{"text", "COPY lineitem FROM STDIN", text},
		{"csv", "COPY lineitem FROM STDIN (FORMAT csv)", csv},
	} {
		b.Run(bc.name, func(b *testing.B) {
			benchCopy(b, bc.copy, bc.data)
		})
	}
}

func benchCopy(b *testing.B, copySQL string, data []byte) {
	ctx := context.Background()
	db, err := pgfed.Open()
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := db.NewSession()
	rows := int64(bytes.Count(data, []byte("\n")))
	b.SetBytes(int64(len(data)))
	cpu := processCPU()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		if _, err := s.Exec(ctx, "DROP TABLE IF EXISTS lineitem; "+tpch.CreateTable(tpch.LineItem)); err != nil {
			b.Fatal(err)
		}
		s.SetCopyHandler(&copyStreams{in: bytes.NewReader(data)})
		b.StartTimer()
		tag, err := s.Exec(ctx, copySQL)
		if err != nil {
			b.Fatal(err)
		}
		if want := fmt.Sprintf("COPY %d", rows); tag != want {
			b.Fatalf("tag %q, want %q", tag, want)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	// CPU time (all goroutines, the table's setup included) is steadier
	// than elapsed time on a shared machine.
	b.ReportMetric((processCPU()-cpu).Seconds()*1000/float64(b.N), "cpu-ms/op")
}

// processCPU is the CPU time the process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
