package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// contender is one way of running a workload: an engine and a client API.
type contender struct {
	label string
	read  reader
}

// timing summarizes the timed runs of one contender.
type timing struct {
	MedianMS float64   `json:"median_ms"`
	MinMS    float64   `json:"min_ms"`
	RunsMS   []float64 `json:"runs_ms"`
}

func newTiming(ds []time.Duration) timing {
	t := timing{RunsMS: make([]float64, len(ds))}
	for i, d := range ds {
		t.RunsMS[i] = ms(d)
	}
	sorted := slices.Clone(t.RunsMS)
	slices.Sort(sorted)
	t.MinMS = sorted[0]
	if m := len(sorted) / 2; len(sorted)%2 == 1 {
		t.MedianMS = sorted[m]
	} else {
		t.MedianMS = (sorted[m-1] + sorted[m]) / 2
	}
	return t
}

// measure runs every contender once to warm up (pgx prepares the
// statement, caches and the branch predictor fill), checks that they all
// read the same number of rows, then times runs rounds in which each
// contender runs once. Taking turns rather than running one contender
// runs times and then the next spreads any background load evenly.
func measure(ctx context.Context, runs int, cs []contender) ([]timing, int64, error) {
	rows := int64(-1)
	for _, c := range cs {
		n, err := c.read(ctx)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", c.label, err)
		}
		if rows >= 0 && n != rows {
			return nil, 0, fmt.Errorf("%s read %d rows, %s read %d", c.label, n, cs[0].label, rows)
		}
		rows = n
	}
	durations := make([][]time.Duration, len(cs))
	for range runs {
		for i, c := range cs {
			// Collect the previous runs' garbage now, so that no contender
			// pays for another's; a contender's own garbage it pays for.
			runtime.GC()
			start := time.Now()
			_, err := c.read(ctx)
			elapsed := time.Since(start)
			if err != nil {
				return nil, 0, fmt.Errorf("%s: %w", c.label, err)
			}
			durations[i] = append(durations[i], elapsed)
		}
	}
	timings := make([]timing, len(cs))
	for i, ds := range durations {
		timings[i] = newTiming(ds)
	}
	return timings, rows, nil
}

// profileTime is the least time a profiled workload runs: at pprof's 100
// samples a second, this gives a few hundred samples even for the short
// queries.
const profileTime = 2 * time.Second

// profile runs read under the CPU profiler, at least minRuns times and for
// at least profileTime, and writes the profile to path. It is separate
// from the timed runs, so that profiling overhead never shows in the table
// and the profile holds pgfed alone, not the pgx client sharing the
// process.
func profile(ctx context.Context, path string, minRuns int, read reader) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return err
	}
	start := time.Now()
	for i := 0; i < minRuns || time.Since(start) < profileTime; i++ {
		if _, err = read(ctx); err != nil {
			break
		}
	}
	pprof.StopCPUProfile()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// sumInt64 is the floor for sum(b): the plainest Go loop over a slice.
func sumInt64(xs []int64) int64 {
	var s int64
	for _, x := range xs {
		s += x
	}
	return s
}

// loopInt64 is the []int64 baseline as a reader; it "reads" len(xs) rows.
func loopInt64(xs []int64) reader {
	return func(context.Context) (int64, error) {
		sinkInt = sumInt64(xs)
		return int64(len(xs)), nil
	}
}

// loopArrow sums column 0 of batches (integer or bigint), the same loop
// over the values as pgfed stores them; it "reads" one row per value.
func loopArrow(batches []arrow.RecordBatch) reader {
	return func(context.Context) (int64, error) {
		var s, n int64
		for _, b := range batches {
			col := b.Column(0)
			// A loop that checks validity per value would be a different
			// baseline; the benchmark's data has no NULLs, and should it
			// ever, the loop refuses rather than sum them silently.
			if col.NullN() > 0 {
				return 0, fmt.Errorf("arrow loop: column has %d NULLs", col.NullN())
			}
			switch c := col.(type) {
			case *array.Int32:
				for _, v := range c.Int32Values() {
					s += int64(v)
				}
			case *array.Int64:
				s += sumInt64(c.Int64Values())
			default:
				return 0, fmt.Errorf("arrow loop: column is %s, not an integer", col.DataType())
			}
			n += int64(col.Len())
		}
		sinkInt = s
		return n, nil
	}
}
