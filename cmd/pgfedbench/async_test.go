package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseLatencies(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []time.Duration
	}{
		{"0,1ms", []time.Duration{0, time.Millisecond}},
		{" 500us , 2 ", []time.Duration{500 * time.Microsecond, 2 * time.Millisecond}},
		{"0.5", []time.Duration{500 * time.Microsecond}},
		{"1ms,", []time.Duration{time.Millisecond}},
	} {
		got, err := parseLatencies(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("parseLatencies(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", " , ", "fast", "-1ms"} {
		if got, err := parseLatencies(in); err == nil {
			t.Errorf("parseLatencies(%q) = %v, want an error", in, got)
		}
	}
}

func TestAsyncTargets(t *testing.T) {
	byName := map[string]asyncWorkload{}
	for _, w := range asyncWorkloads {
		byName[w.name] = w
	}
	for _, tc := range []struct {
		workload string
		latency  time.Duration
		ratio    float64 // sync/async
		want     string  // "" for no target, else PASS or FAIL
	}{
		{asyncT0, 0, 1.02, "PASS"},
		{asyncT0, 0, 0.98, "PASS"},
		{asyncT0, time.Millisecond, 1.05, "FAIL"}, // async faster than noise allows: not the same work
		{asyncPL, time.Millisecond, 0.95, "FAIL"},
		{asyncPF0, 0, 0.98, "PASS"},
		{asyncPF0, time.Millisecond, 0.9, "FAIL"},
		{asyncPF0M, 0, 1.0, "PASS"},
		{asyncPF0M, time.Millisecond, 2.9, "FAIL"},
		{asyncPF0M, time.Millisecond, 3.1, "PASS"},
		{asyncPF1, 0, 1.5, ""},
		{asyncPF1, 500 * time.Microsecond, 1.5, ""},
		{asyncPF1, time.Millisecond, 3.4, "FAIL"},
		{asyncPF1, 2 * time.Millisecond, 3.6, "PASS"},
		{asyncPF1F, time.Millisecond, 3.4, "FAIL"},
		{asyncPF1F, time.Millisecond, 3.6, "PASS"},
	} {
		target := asyncTargetFor(byName[tc.workload], tc.latency)
		got := ""
		if target != nil {
			got = "FAIL"
			if target.pass(tc.ratio) {
				got = "PASS"
			}
		}
		if got != tc.want {
			t.Errorf("%s at %v, sync/async %.2f: %q, want %q", tc.workload, tc.latency, tc.ratio, got, tc.want)
		}
	}
}

func TestAnalyzeProblems(t *testing.T) {
	async := []string{
		"Aggregate (actual rows=1 loops=1)",
		"  ->  Append (actual rows=4000 loops=1)",
		"        Async Rows: 4000",
		"        Sync Rows: 0",
		"        ->  Async Foreign Scan on pf1_1 (actual rows=1000 loops=1)",
		"              Async Rows: 1000",
	}
	// What the qual wrapper produced: an async plan run synchronously.
	hidden := []string{
		"Aggregate (actual rows=1 loops=1)",
		"  ->  Append (actual rows=4000 loops=1)",
		"        ->  Async Foreign Scan on pf1_1 (actual rows=1000 loops=1)",
		"              Rows Removed by Filter: 0",
	}
	sync := []string{"Aggregate (actual rows=1 loops=1)", "  ->  Append (actual rows=4000 loops=1)", "        ->  Foreign Scan on pf1_1 (actual rows=1000 loops=1)"}
	for _, tc := range []struct {
		name  string
		lines []string
		async bool
		want  string
	}{
		{"async", async, true, ""},
		{"hidden async", hidden, true, "did not run asynchronously"},
		{"sync", sync, false, ""},
		{"async rows with async off", async, false, "counted 4000 async rows"},
		{"no append", []string{"Foreign Scan (actual rows=1 loops=1)"}, true, "no Append"},
	} {
		got := analyzeProblems(tc.lines, tc.async)
		if tc.want == "" && len(got) > 0 || tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestPlanProblems(t *testing.T) {
	asyncPlan := []string{
		"Aggregate",
		"  ->  Append",
		"        ->  Async Foreign Scan on public.pf1_1",
		"              Remote SQL: SELECT a FROM public.t_1",
		"        ->  Async Foreign Scan on public.pf1_2",
		"              Remote SQL: SELECT a FROM public.t_2",
	}
	syncPlan := []string{
		"Aggregate",
		"  ->  Append",
		"        ->  Foreign Scan on public.pf1_1",
		"              Remote SQL: SELECT a FROM public.t_1",
	}
	pushed := []string{
		"Foreign Scan",
		"  Relations: Aggregate on (public.pf1_1)",
		"  Remote SQL: SELECT sum(a) FROM public.t_1",
	}
	for _, tc := range []struct {
		name  string
		lines []string
		async bool
		want  []string // a substring of each problem, in order
	}{
		{"async plan, async on", asyncPlan, true, nil},
		{"sync plan, async off", syncPlan, false, nil},
		{"sync plan, async on", syncPlan, true, []string{"no Async Foreign Scan"}},
		{"async plan, async off", asyncPlan, false, []string{"2 Async Foreign Scans"}},
		{"pushed aggregate", pushed, false, []string{"Relations: Aggregate on", "SELECT sum(a)"}},
	} {
		got := planProblems(tc.lines, tc.async)
		ok := len(got) == len(tc.want)
		for i := 0; ok && i < len(got); i++ {
			ok = strings.Contains(got[i], tc.want[i])
		}
		if !ok {
			t.Errorf("%s: problems %q, want ones containing %q", tc.name, got, tc.want)
		}
	}
}

func TestPairedRatio(t *testing.T) {
	for _, tc := range []struct {
		a, b []float64
		want float64
	}{
		{[]float64{10}, []float64{5}, 2},
		// Load moved both contenders from run to run: the medians of the
		// runs would give 200/150, the pairs say they are even.
		{[]float64{100, 200, 300}, []float64{100, 200, 150}, 1},
		{[]float64{1, 2, 3, 4}, []float64{1, 1, 1, 1}, 2.5},
	} {
		if got := pairedRatio(tc.a, tc.b); got != tc.want {
			t.Errorf("pairedRatio(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
