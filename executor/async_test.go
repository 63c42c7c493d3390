package executor

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/pgerr"
	"go.uber.org/goleak"
)

// fakeAsync is an async-capable child on a named resource (a fake remote
// connection). Each FetchAsync runs the fake's next step and is logged as
// Name+".Fetch"; the resource records how many fetches ran on it at once.
type fakeAsync struct {
	*exectest.Op
	res *fakeResource
}

type fakeResource struct {
	mu                sync.Mutex
	inFlight, maxSeen int
}

var _ AsyncCapable = (*fakeAsync)(nil)

func (f *fakeAsync) AsyncResource() any { return f.res }

func (f *fakeAsync) FetchAsync(ctx context.Context) (arrow.RecordBatch, bool, error) {
	f.res.mu.Lock()
	f.res.inFlight++
	f.res.maxSeen = max(f.res.maxSeen, f.res.inFlight)
	f.res.mu.Unlock()
	defer func() {
		f.res.mu.Lock()
		f.res.inFlight--
		f.res.mu.Unlock()
	}()
	f.Log.Add(f.Name + ".Fetch")
	b, err := f.Op.Next(ctx)
	if err == io.EOF {
		return nil, true, nil
	}
	return b, false, err
}

// newAsyncAppend is an Append over the given async children.
func newAsyncAppend(kids ...*fakeAsync) *appendOp {
	a := &appendOp{ec: &ExecContext{}, async: make([]bool, len(kids))}
	for i, k := range kids {
		a.kids = append(a.kids, k)
		a.async[i] = true
	}
	return a
}

func asyncKid(log *exectest.Log, name string, res *fakeResource, steps ...exectest.Step) *fakeAsync {
	return &fakeAsync{Op: exectest.New(log, name, steps...), res: res}
}

// TestAsyncSharedResource checks that children on one resource are
// fetched one request at a time, taking turns, and that every row comes
// out once.
func TestAsyncSharedResource(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	mem := checkedAlloc(t)
	log := &exectest.Log{}
	conn := &fakeResource{}
	a := asyncKid(log, "a", conn, intBatches(mem, []any{1}, []any{2}, []any{3})...)
	b := asyncKid(log, "b", conn, intBatches(mem, []any{10}, []any{20}, []any{30})...)
	rows, err := run(t, newAsyncAppend(a, b))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sortedInts(rows), []int64{1, 2, 3, 10, 20, 30}; !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	if conn.maxSeen != 1 {
		t.Errorf("%d fetches ran on one connection at once, want 1", conn.maxSeen)
	}
	var fetches []string
	for _, c := range log.Calls() {
		if c == "a.Fetch" || c == "b.Fetch" {
			fetches = append(fetches, c)
		}
	}
	// Four tokens each, handed out interleaved: the scans take turns.
	want := []string{"a.Fetch", "b.Fetch", "a.Fetch", "b.Fetch", "a.Fetch", "b.Fetch", "a.Fetch", "b.Fetch"}
	if !slices.Equal(fetches, want) {
		t.Errorf("fetch order %q, want %q", fetches, want)
	}
	wantNoViolations(t, a.Op, b.Op)
}

// TestAsyncSeparateResources checks that children on different resources
// fetch at the same time: a's first fetch waits until b has fetched,
// which would never happen if one goroutine served both.
func TestAsyncSeparateResources(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	mem := checkedAlloc(t)
	log := &exectest.Log{}
	gate := exectest.NewGate()
	a := asyncKid(log, "a", &fakeResource{}, exectest.Step{Pending: gate, Batch: exectest.NewBatch(mem, exectest.Int64s("a", 1))})
	b := asyncKid(log, "b", &fakeResource{}, intBatches(mem, []any{2})...)
	app := newAsyncAppend(a, b)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := app.Open(ctx); err != nil {
		t.Fatal(err)
	}
	first, err := app.Next(ctx) // b's row: a is still waiting at its gate
	if err != nil {
		t.Fatal(err)
	}
	if v := first.Column(0).(*array.Int64).Value(0); v != 2 {
		t.Errorf("first row %d, want b's 2", v)
	}
	first.Release()
	gate.Release()
	rest, err := exectest.Drain(ctx, app)
	if err != nil {
		t.Fatal(err)
	}
	if got := sortedInts(rest); !slices.Equal(got, []int64{1}) {
		t.Errorf("rest %v, want [1]", got)
	}
	app.Close()
	wantNoViolations(t, a.Op, b.Op)
}

// TestAsyncChildErrorAndCancel checks that a child's error ends the Append
// with it while another child waits on the network, and that closing
// early or cancelling stops every fetcher and closes every child.
func TestAsyncChildErrorAndCancel(t *testing.T) {
	boom := pgerr.New("22012", "division by zero")
	cases := []struct {
		name   string
		stop   func(cancel context.CancelFunc) // after the first batch
		failB  bool
		wantEr string
	}{
		{name: "error", failB: true, wantEr: "22012"},
		{name: "close early", stop: func(context.CancelFunc) {}},
		{name: "cancel", stop: func(cancel context.CancelFunc) { cancel() }, wantEr: "57014"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			mem := checkedAlloc(t)
			log := &exectest.Log{}
			gate := exectest.NewGate() // never released: a waits on the network
			shared := &fakeResource{}
			a := asyncKid(log, "a", &fakeResource{}, exectest.Step{Pending: gate, Batch: exectest.NewBatch(mem, exectest.Int64s("a", 1))})
			bSteps := intBatches(mem, []any{2}, []any{3})
			if tc.failB {
				bSteps = append(bSteps, exectest.Step{Err: boom})
			}
			b := asyncKid(log, "b", shared, bSteps...)
			c := asyncKid(log, "c", shared, intBatches(mem, []any{4}, []any{5})...)
			app := newAsyncAppend(a, b, c)
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			if err := app.Open(ctx); err != nil {
				t.Fatal(err)
			}
			var err error
			if tc.stop != nil {
				var first arrow.RecordBatch
				if first, err = app.Next(ctx); err != nil {
					t.Fatal(err)
				}
				first.Release()
				tc.stop(cancel)
				if tc.wantEr != "" {
					_, err = exectest.Drain(ctx, app)
				}
			} else {
				_, err = exectest.Drain(ctx, app)
			}
			if tc.wantEr == "" && err != nil {
				t.Fatalf("error %v", err)
			}
			var pe *pgerr.Error
			if tc.wantEr != "" && (!errors.As(err, &pe) || pe.Code != tc.wantEr) {
				t.Fatalf("error %v, want SQLSTATE %s", err, tc.wantEr)
			}
			// Stopped early without an error, Close lets the request in
			// flight finish (it would be a remote FETCH whose cancel
			// aborts the remote transaction); after an error or a cancel
			// it cancels it.
			var released atomic.Bool
			if tc.wantEr == "" {
				<-gate.Reached() // a's request is in flight
				go func() {
					time.Sleep(20 * time.Millisecond)
					released.Store(true)
					gate.Release()
				}()
			}
			done := make(chan struct{})
			go func() { app.Close(); close(done) }()
			select {
			case <-done:
			case <-time.After(testTimeout):
				t.Fatal("Close did not return: a fetcher was not cancelled")
			}
			if tc.wantEr == "" && !released.Load() {
				t.Error("Close returned before the request in flight finished")
			}
			wantNoViolations(t, a.Op, b.Op, c.Op)
		})
	}
}

// fakeCombining is a fakeAsync whose requests can go out together: a
// combined request is logged as "together(a,b)", then each fetch.
type fakeCombining struct{ *fakeAsync }

var _ asyncCombiner = fakeCombining{}

func (f fakeCombining) fetchTogether(ctx context.Context, ops []AsyncCapable) []asyncResult {
	names := make([]string, len(ops))
	for j, op := range ops {
		names[j] = op.(fakeCombining).Name
	}
	f.Log.Add("together(" + strings.Join(names, ",") + ")")
	out := make([]asyncResult, len(ops))
	for j, op := range ops {
		out[j].batch, out[j].eof, out[j].err = op.FetchAsync(ctx)
	}
	return out
}

// TestAsyncCombinedRequests checks that every child of a connection that
// holds a token is served by each combined request, and that ended
// children drop out.
func TestAsyncCombinedRequests(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	mem := checkedAlloc(t)
	log := &exectest.Log{}
	conn := &fakeResource{}
	a := fakeCombining{asyncKid(log, "a", conn, intBatches(mem, []any{1}, []any{2}, []any{3})...)}
	b := fakeCombining{asyncKid(log, "b", conn, intBatches(mem, []any{10})...)}
	c := fakeCombining{asyncKid(log, "c", conn, intBatches(mem, []any{20}, []any{21})...)}
	app := &appendOp{ec: &ExecContext{}, kids: []Operator{a, b, c}, async: []bool{true, true, true}}
	rows, err := run(t, app)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sortedInts(rows), []int64{1, 2, 3, 10, 20, 21}; !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	var rounds []string
	for _, call := range log.Calls() {
		if strings.HasPrefix(call, "together") || strings.HasSuffix(call, ".Fetch") {
			rounds = append(rounds, call)
		}
	}
	want := []string{
		"together(a,b,c)", "a.Fetch", "b.Fetch", "c.Fetch",
		"together(a,b,c)", "a.Fetch", "b.Fetch", "c.Fetch", // b ends
		"together(a,c)", "a.Fetch", "c.Fetch", // c ends
		"a.Fetch", // a alone: a plain request; a ends
	}
	if !slices.Equal(rounds, want) {
		t.Errorf("requests %q, want %q", rounds, want)
	}
	wantNoViolations(t, a.Op, b.Op, c.Op)
}
