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
	spec, err := c.spec(server)
	if err != nil {
		return nil, err
	}
	spec.Key, spec.Slot = mappingKey, slot
	return c.s.remoteManager().Conn(ctx, spec)
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

// RemoteConnections lists the session's remote connections.
func (s *Session) RemoteConnections() []remote.ConnInfo {
	if s.remote == nil {
		return nil
	}
	return s.remote.Connections()
}

// spec is the ConnSpec of server under the session user's mapping.
func (c connector) spec(server string) (remote.ConnSpec, error) {
	cat := c.s.eng.catalog
	srv := cat.Server(server)
	if srv == nil {
		return remote.ConnSpec{}, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", server)
	}
	m := cat.MappingFor(server, commands.SessionUser)
	if m == nil {
		return remote.ConnSpec{}, pgerr.New(pgerr.UndefinedObject, "user mapping not found for %q", commands.SessionUser)
	}
	return remote.ConnSpec{Key: server + "/" + m.User, Server: server, Options: srv.Options, User: m.Options}, nil
}

// Prepared lists (and with resolve, resolves) pgfed's prepared
// transactions on server, asking their decision servers, which the
// catalog names, how they ended.
func (c connector) Prepared(ctx context.Context, server string, resolve bool) ([]remote.PreparedXact, error) {
	spec, err := c.spec(server)
	if err != nil {
		return nil, err
	}
	return remote.Resolve(ctx, spec, func(name string) (remote.ConnSpec, bool) {
		s, err := c.spec(name)
		return s, err == nil
	}, resolve)
}
