package pgfed

import (
	"context"

	"github.com/pgfed/pgfed/commands"
	"github.com/pgfed/pgfed/engine"
)

// Session runs statements one after another, like a connection; it is not
// safe for concurrent use.
type Session struct{ s *engine.Session }

// Exec runs every statement in sql (see Run) and returns the last
// command tag.
func (s *Session) Exec(ctx context.Context, sql string) (string, error) { return s.s.Exec(ctx, sql) }

// Run runs every statement in sql as PostgreSQL's simple query protocol
// does: several statements are one implicit transaction (all or nothing,
// unless BEGIN, COMMIT or ROLLBACK in sql say otherwise), and fn reads
// each statement's result before the next statement runs. The first error
// (a statement's, or fn's) ends the query.
func (s *Session) Run(ctx context.Context, sql string, fn func(*Rows) error) error {
	return s.s.Run(ctx, sql, func(p *engine.Portal) error { return fn(newRows(p)) })
}

// Query runs exactly one statement and returns its result stream. A query
// runs as its rows are read; INSERT, UPDATE and DELETE without RETURNING
// run to completion before Query returns. Close the Rows before the next
// statement (a new statement closes them).
func (s *Session) Query(ctx context.Context, sql string) (*Rows, error) {
	p, err := s.s.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	return newRows(p), nil
}

// SetCopyHandler sets the streams for COPY FROM STDIN / TO STDOUT.
func (s *Session) SetCopyHandler(h CopyHandler) { s.s.SetCopyHandler(h) }

// SetNoticeHandler sets the function that receives NOTICEs.
func (s *Session) SetNoticeHandler(fn func(*Notice)) { s.s.SetNoticeHandler(fn) }

// Close ends the session.
func (s *Session) Close() error {
	s.s.Close()
	return nil
}

// ListRelations lists the relations of the search path's schemas, as \d does.
func (s *Session) ListRelations() ([]RelationInfo, error) { return commands.ListRelations(s.s.Env()) }

// DescribeRelation describes one relation, as \d NAME does.
func (s *Session) DescribeRelation(name string) (*RelationDesc, error) {
	return commands.DescribeRelation(s.s.Env(), name)
}

// ListServers lists the foreign servers (\des).
func (s *Session) ListServers() ([]ServerInfo, error) { return commands.ListServers(s.s.Env()) }

// ListUserMappings lists the user mappings (\deu), without passwords.
func (s *Session) ListUserMappings() ([]UserMappingInfo, error) {
	return commands.ListUserMappings(s.s.Env())
}

// ListForeignTables lists the foreign tables of the search path (\det).
func (s *Session) ListForeignTables() ([]ForeignTableInfo, error) {
	return commands.ListForeignTables(s.s.Env())
}

// RemoteConnections lists the session's remote connections, with their
// round-trip counts (postgres_fdw_get_connections() and more).
func (s *Session) RemoteConnections() []RemoteConnection { return s.s.RemoteConnections() }
