package pgfed

import (
	"github.com/pgfed/pgfed/commands"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// Column describes one result column.
type Column struct {
	Name string
	Type types.T
}

// Error is every error pgfed returns: PostgreSQL's fields (severity,
// SQLSTATE code, message, detail, hint, context, cursor position).
type Error = pgerr.Error

// Notice is a non-error message from the engine (PostgreSQL's NOTICE),
// e.g. "table "t" does not exist, skipping".
type Notice = pgerr.Error

// ErrorCode returns err's SQLSTATE ("XX000" for an error not from pgfed,
// "" for nil).
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	return pgerr.Code(err)
}

// CopyHandler supplies the data streams of COPY ... FROM STDIN and
// COPY ... TO STDOUT (CopyIn and CopyOut).
type CopyHandler = commands.CopyHandler

// The catalog descriptions behind the REPL's \d, \des, \deu and \det.
type (
	RelationInfo     = commands.RelationInfo
	RelationDesc     = commands.RelationDesc
	ColumnDesc       = commands.ColumnDesc
	ServerInfo       = commands.ServerInfo
	UserMappingInfo  = commands.UserMappingInfo
	ForeignTableInfo = commands.ForeignTableInfo
)
