package engine

// The transaction's catalog changes (DDL): reverted, newest first, if the
// transaction (or the savepoint they followed) rolls back; finished when
// it commits.

import (
	"context"

	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/xact"
)

type ddlLog struct {
	changes []storage.Change
	marks   []int
}

var (
	_ xact.Callback    = (*ddlLog)(nil)
	_ xact.SubCallback = (*ddlLog)(nil)
)

func (l *ddlLog) record(c storage.Change) { l.changes = append(l.changes, c) }

// revert undoes the changes from position from on, newest first.
func (l *ddlLog) revert(from int) {
	for i := len(l.changes) - 1; i >= from; i-- {
		l.changes[i].Revert()
	}
	l.changes = l.changes[:from]
}

func (l *ddlLog) OnXact(ctx context.Context, ev xact.Event) error {
	switch ev {
	case xact.Commit:
		for _, c := range l.changes {
			c.Finish()
		}
		l.changes = l.changes[:0]
	case xact.Abort:
		l.revert(0)
	default:
		return nil
	}
	l.marks = l.marks[:0]
	return nil
}

func (l *ddlLog) OnSubXact(ctx context.Context, ev xact.SubEvent, depth int) error {
	switch ev {
	case xact.StartSub:
		l.marks = append(l.marks, len(l.changes))
	case xact.AbortSub:
		l.revert(l.marks[depth-1])
		l.marks = l.marks[:depth-1]
	case xact.CommitSub:
		l.marks = l.marks[:depth-1]
	}
	return nil
}
