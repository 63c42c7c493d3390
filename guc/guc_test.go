package guc

import (
	"context"
	"testing"
	"time"

	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/xact"
)

func TestTypedValues(t *testing.T) {
	s := New()
	for _, tc := range []struct {
		name, value string
		check       func() bool
	}{
		{"statement_timeout", "1.5s", func() bool { return s.StatementTimeout() == 1500*time.Millisecond }},
		{"max_parallel_workers_per_gather", "4", func() bool { return s.Int("max_parallel_workers_per_gather") == 4 }},
		{"parallel_tuple_cost", "0.5", func() bool { return s.Real("parallel_tuple_cost") == 0.5 }},
		{"enable_seqscan", "no", func() bool { return !s.Bool("enable_seqscan") && s.Get("enable_seqscan") == "off" }},
		{"min_parallel_table_scan_size", "16MB", func() bool { return s.Int("min_parallel_table_scan_size") == 16384 }},
		{"force_parallel_mode", "on", func() bool { return s.Get("debug_parallel_query") == "on" }},
	} {
		if err := s.Set(tc.name, tc.value); err != nil {
			t.Fatalf("SET %s = %s: %v", tc.name, tc.value, err)
		}
		if !tc.check() {
			t.Errorf("SET %s = %s: stored %q", tc.name, tc.value, s.Get(tc.name))
		}
	}
	// Defaults come from the one list of definitions.
	d := New()
	if d.Int("max_parallel_workers_per_gather") != 2 || d.Real("parallel_setup_cost") != 1000 || !d.Bool("enable_async_append") {
		t.Errorf("defaults: %q %q %q", d.Get("max_parallel_workers_per_gather"), d.Get("parallel_setup_cost"), d.Get("enable_async_append"))
	}
	if err := d.Set("no_such_setting", "1"); pgerr.Code(err) != pgerr.UndefinedObject {
		t.Errorf("unknown setting: %v", err)
	}
}

// TestTransactional: SETs follow the transaction they ran in.
func TestTransactional(t *testing.T) {
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	s := New()
	x := &xact.Transaction{}
	s.Follow(x)
	newTxn := func(*Settings) *xact.Transaction {
		x.Begin()
		return x
	}

	// Abort undoes SET and RESET, back to the values before the transaction
	// (a SET outside a transaction is not undone).
	must(s.Set("work_mem", "64MB"))
	x = newTxn(s)
	must(s.Set("work_mem", "1MB"))
	must(s.Set("statement_timeout", "5s"))
	must(s.Reset("work_mem"))
	must(x.Abort(ctx))
	if s.Int("work_mem") != 65536 || s.StatementTimeout() != 0 {
		t.Errorf("after abort: work_mem %q, statement_timeout %v", s.Get("work_mem"), s.StatementTimeout())
	}

	// Commit keeps SET and drops SET LOCAL, unless a later SET overrode it.
	x = newTxn(s)
	must(s.Set("work_mem", "2MB"))
	must(s.SetLocal("statement_timeout", "5s"))
	must(s.SetLocal("search_path", "a"))
	must(s.Set("search_path", "b"))
	must(x.Commit(ctx))
	if s.Int("work_mem") != 2048 || s.StatementTimeout() != 0 || s.Get("search_path") != "b" {
		t.Errorf("after commit: work_mem %q, statement_timeout %v, search_path %q", s.Get("work_mem"), s.StatementTimeout(), s.Get("search_path"))
	}

	// ROLLBACK TO undoes what the subtransaction set, and nothing before.
	x = newTxn(s)
	must(s.Set("work_mem", "3MB"))
	_, err := x.StartSub(ctx)
	must(err)
	must(s.Set("work_mem", "4MB"))
	must(s.Set("enable_sort", "off"))
	must(x.AbortSub(ctx))
	if s.Int("work_mem") != 3072 || !s.Bool("enable_sort") {
		t.Errorf("after ROLLBACK TO: work_mem %q, enable_sort %q", s.Get("work_mem"), s.Get("enable_sort"))
	}
	_, err = x.StartSub(ctx)
	must(err)
	must(s.Set("enable_sort", "off"))
	must(x.CommitSub(ctx))
	must(x.Abort(ctx))
	if s.Int("work_mem") != 2048 || !s.Bool("enable_sort") {
		t.Errorf("after abort: work_mem %q, enable_sort %q", s.Get("work_mem"), s.Get("enable_sort"))
	}

	// RESET ALL inside an aborted transaction is undone too.
	x = newTxn(s)
	s.ResetAll()
	must(x.Abort(ctx))
	if s.Int("work_mem") != 2048 || s.Get("search_path") != "b" {
		t.Errorf("after aborted RESET ALL: work_mem %q, search_path %q", s.Get("work_mem"), s.Get("search_path"))
	}
}
