package pgfed

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// Column describes one result column.
type Column struct {
	Name string
	Type types.T
}

// Notice is a non-error message from the engine (PostgreSQL's NOTICE),
// e.g. "table "t" does not exist, skipping".
type Notice = pgerr.Error

// CopyHandler supplies the data streams of COPY ... FROM STDIN and
// COPY ... TO STDOUT. The REPL implements it over its terminal/input file.
type CopyHandler interface {
	// CopyIn is called when COPY FROM STDIN starts; the reader returns
	// io.EOF at the end of the data (psql's "\." line is the caller's to strip).
	CopyIn() (io.Reader, error)
	// CopyOut is called when COPY TO STDOUT starts.
	CopyOut() (io.Writer, error)
}

// RelationInfo is one line of \d.
type RelationInfo struct {
	Schema, Name string
	Kind         string // "table", "partitioned table", "foreign table"
}

// ColumnDesc is one column of \d NAME.
type ColumnDesc struct {
	Name    string
	Type    string // format_type spelling, e.g. "character varying(10)"
	NotNull bool
	Default string // deparsed default expression, "" if none
	// FDWOptions are a foreign table column's options (column_name).
	FDWOptions map[string]string
}

// RelationDesc is what \d NAME shows.
type RelationDesc struct {
	Schema, Name   string
	Kind           string // as RelationInfo.Kind
	Columns        []ColumnDesc
	PartitionKey   string   // e.g. "RANGE (a)" for a partitioned table
	PartitionOf    string   // parent name, for a partition
	PartitionBound string   // e.g. "FOR VALUES FROM (1) TO (10)"
	Partitions     []string // "name FOR VALUES ..." for a partitioned table
	// Server and FDWOptions describe a foreign table.
	Server     string
	FDWOptions map[string]string
}

var _ = arrow.RecordBatch(nil)
var _ = context.Background

// ServerInfo is one line of \des.
type ServerInfo struct {
	Name, Wrapper string
	Options       map[string]string
}

// UserMappingInfo is one line of \deu; Options never include secrets.
type UserMappingInfo struct {
	Server, User string
	Options      map[string]string
}

// ForeignTableInfo is one line of \det.
type ForeignTableInfo struct {
	Schema, Name, Server string
	Options              map[string]string
}
