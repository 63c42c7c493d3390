package xact

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pgfed/pgfed/pgerr"
)

// logCallback logs every call it gets; failAt makes one event fail.
type logCallback struct {
	name   string
	log    *[]string
	failAt string
}

func (c *logCallback) OnXact(ctx context.Context, ev Event) error {
	*c.log = append(*c.log, c.name+" "+ev.String())
	if ev.String() == c.failAt {
		return pgerr.New("08006", "%s failed at %s", c.name, ev)
	}
	return nil
}

func (c *logCallback) OnSubXact(ctx context.Context, ev SubEvent, depth int) error {
	*c.log = append(*c.log, fmt.Sprintf("%s %s %d", c.name, ev, depth))
	if ev.String() == c.failAt {
		return pgerr.New("08006", "%s failed at %s", c.name, ev)
	}
	return nil
}

// plainCallback does not follow subtransactions.
type plainCallback struct{ log *[]string }

func (c plainCallback) OnXact(ctx context.Context, ev Event) error {
	*c.log = append(*c.log, "plain "+ev.String())
	return nil
}

func TestTransaction(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		failAt  string // for callback "b"
		run     func(*Transaction) error
		want    string
		wantErr string // SQLSTATE
	}{
		{"commit", "", func(x *Transaction) error { return x.Commit(ctx) },
			"a PreCommit, b PreCommit, plain PreCommit, a Commit, b Commit, plain Commit", ""},
		{"abort", "", func(x *Transaction) error { return x.Abort(ctx) },
			"a Abort, b Abort, plain Abort", ""},
		// A failing PreCommit stops the commit: everyone aborts, also the
		// callbacks that already pre-committed, and the error is returned.
		{"pre-commit fails", "PreCommit", func(x *Transaction) error { return x.Commit(ctx) },
			"a PreCommit, b PreCommit, a Abort, b Abort, plain Abort", "08006"},
		// Abort runs every callback even if one fails.
		{"abort fails", "Abort", func(x *Transaction) error { return x.Abort(ctx) },
			"a Abort, b Abort, plain Abort", "08006"},
		{"savepoints", "", func(x *Transaction) error {
			if _, err := x.StartSub(ctx); err != nil {
				return err
			}
			if d, err := x.StartSub(ctx); err != nil || d != 2 {
				return fmt.Errorf("depth %d, %v", d, err)
			}
			if err := x.AbortSub(ctx); err != nil {
				return err
			}
			if err := x.CommitSub(ctx); err != nil {
				return err
			}
			return x.Commit(ctx)
		}, "a StartSub 1, b StartSub 1, a StartSub 2, b StartSub 2, a AbortSub 2, b AbortSub 2, a CommitSub 1, b CommitSub 1, " +
			"a PreCommit, b PreCommit, plain PreCommit, a Commit, b Commit, plain Commit", ""},
		{"subtransaction callback fails", "StartSub", func(x *Transaction) error {
			_, err := x.StartSub(ctx)
			return err
		}, "a StartSub 1, b StartSub 1", "08006"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var log []string
			var x Transaction
			x.Register(&logCallback{name: "a", log: &log})
			x.Register(&logCallback{name: "b", log: &log, failAt: tc.failAt})
			x.Register(plainCallback{log: &log})
			if !x.Begin() || x.Begin() {
				t.Fatal("Begin: want true for a new transaction, false inside one")
			}
			err := tc.run(&x)
			if got := strings.Join(log, ", "); got != tc.want {
				t.Errorf("calls:\n %s\nwant\n %s", got, tc.want)
			}
			if pgerr.Code(err) != tc.wantErr && !(err == nil && tc.wantErr == "") {
				t.Errorf("error %v (%s), want %q", err, pgerr.Code(err), tc.wantErr)
			}
		})
	}
}

func TestTransactionBoundaries(t *testing.T) {
	ctx := context.Background()
	var log []string
	var x Transaction
	// Outside a transaction nothing runs.
	x.Register(&logCallback{name: "a", log: &log})
	if err := x.Commit(ctx); err != nil || len(log) != 0 {
		t.Errorf("commit without a transaction: %v, %q", err, log)
	}
	if _, err := x.StartSub(ctx); pgerr.Code(err) != pgerr.NoActiveSQLTransaction {
		t.Errorf("savepoint without a transaction: %v", err)
	}
	x.Begin()
	if err := x.CommitSub(ctx); pgerr.Code(err) != pgerr.InternalError {
		t.Errorf("release without a savepoint: %v", err)
	}
	// A callback registered mid-transaction takes part in its end.
	x.Register(&logCallback{name: "late", log: &log})
	if err := x.Abort(ctx); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(log, ", "); got != "a Abort, late Abort" {
		t.Errorf("calls %q", got)
	}
	if x.Active() || x.Number() != 1 {
		t.Errorf("after abort: active %v, number %d", x.Active(), x.Number())
	}
}
