package commands

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/executor"
	"github.com/pgfed/pgfed/guc"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/planner"
	"github.com/pgfed/pgfed/storage"
)

// SessionUser is the user name sessions run as: CURRENT_USER in user
// mappings resolves to it.
const SessionUser = "pgfed"

// CopyHandler supplies the data streams of COPY ... FROM STDIN and
// COPY ... TO STDOUT. The REPL implements it over its terminal/input file.
type CopyHandler interface {
	// CopyIn is called when COPY FROM STDIN starts; the reader returns
	// io.EOF at the end of the data (psql's "\." line is the caller's to strip).
	CopyIn() (io.Reader, error)
	// CopyOut is called when COPY TO STDOUT starts.
	CopyOut() (io.Writer, error)
}

// Env is what a command may use of the session that runs it.
type Env struct {
	Catalog  *storage.Catalog
	Settings *guc.Settings
	// Writes is the transaction's write set.
	Writes *storage.WriteSet
	// Remote gives the session's remote connections.
	Remote executor.RemoteConnector
	// Copy is the session's COPY handler (nil: none).
	Copy CopyHandler
	// Files are the server-side files COPY may use (nil: none).
	Files *FileAccess
	// Notice receives NOTICEs (nil: dropped).
	Notice func(*pgerr.Error)
	// Changed records a catalog change with the transaction, which
	// reverts it if it aborts (and finishes it when it commits).
	Changed func(storage.Change)
	// Temp is the session's temporary schema and its tables' ON COMMIT
	// actions (temptables.go).
	Temp *TempTables
	// Run executes a planned query inside the current statement, calling
	// fn for every result batch, which holds the query's visible columns
	// (q.Columns) and which fn must not keep without retaining; stats,
	// when not nil, receive EXPLAIN ANALYZE's counters.
	Run func(ctx context.Context, q *planner.Query, stats *instrument.Stats, fn func(arrow.RecordBatch) error) error
}

// Planner returns a planner over the session's catalog and settings.
func (e *Env) Planner() *planner.Planner {
	return &planner.Planner{Catalog: e.Catalog, Settings: e.Settings, User: SessionUser, TempSchema: e.Temp.Schema()}
}

// noticef sends a NOTICE with the given SQLSTATE (PostgreSQL sends
// "already exists, skipping" with the duplicate-object code, and "does not
// exist, skipping" with 00000).
func (e *Env) noticef(code, format string, args ...any) {
	if e.Notice != nil {
		e.Notice(&pgerr.Error{Severity: "NOTICE", Code: code, Message: fmt.Sprintf(format, args...)})
	}
}

// Result is what a command returns: its tag, and rows for EXPLAIN and
// SHOW (Columns nil: no result set).
type Result struct {
	Tag     string
	Columns []nodes.Field
	Rows    [][]any
}

func tag(t string) (*Result, error) { return &Result{Tag: t}, nil }
