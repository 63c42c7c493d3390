package engine

import (
	"context"

	"github.com/pgfed/pgfed/commands"
	"github.com/pgfed/pgfed/executor"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/remote"
)

// connector gives a session's foreign scans, commands and postgres_fdw's
// functions the session's remote connections, found through the catalog
// at execution.
type connector struct{ s *Session }

var _ executor.RemoteConnector = connector{}

// Conn returns the session's connection slot to a server under a user
// mapping; its first use in a transaction opens the remote transaction.
func (c connector) Conn(ctx context.Context, server, mappingKey string, slot int) (*remote.Conn, error) {
	cat := c.s.eng.catalog
	srv := cat.Server(server)
	if srv == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", server)
	}
	m := cat.MappingFor(server, commands.SessionUser)
	if m == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "user mapping not found for %q", commands.SessionUser)
	}
	return c.s.remoteManager().Conn(ctx, remote.ConnSpec{Key: mappingKey, Server: server, Options: srv.Options, User: m.Options, Slot: slot})
}

// Connections lists the session's remote connections
// (postgres_fdw_get_connections()).
func (c connector) Connections() []remote.ConnInfo {
	if c.s.remote == nil {
		return nil
	}
	return c.s.remote.Connections()
}

// Disconnect closes the session's connections to a server
// (postgres_fdw_disconnect(name)); an unknown server is an error.
func (c connector) Disconnect(server string) (bool, error) {
	if c.s.eng.catalog.Server(server) == nil {
		return false, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", server)
	}
	if c.s.remote == nil {
		return false, nil
	}
	return c.s.remote.Disconnect(server), nil
}

// DisconnectAll closes all the session's remote connections
// (postgres_fdw_disconnect_all()).
func (c connector) DisconnectAll() bool {
	if c.s.remote == nil {
		return false
	}
	return c.s.remote.DisconnectAll()
}
