package pgfed

import (
	"github.com/pgfed/pgfed/commands"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/remote"
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

// RemoteConnection describes one of a session's cached remote
// connections: its server, the role it logged in as, whether it is valid
// and in the current transaction, the remote backend's PID, and the
// requests sent on it (each waited for one answer: its round trips).
type RemoteConnection = remote.ConnInfo

// The catalog descriptions behind the REPL's \d, \des, \deu and \det.
type (
	RelationInfo     = commands.RelationInfo
	RelationDesc     = commands.RelationDesc
	ColumnDesc       = commands.ColumnDesc
	ServerInfo       = commands.ServerInfo
	UserMappingInfo  = commands.UserMappingInfo
	ForeignTableInfo = commands.ForeignTableInfo
)
