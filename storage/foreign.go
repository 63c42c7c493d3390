package storage

// Foreign servers, user mappings and foreign tables: the catalog side of
// postgres_fdw-compatible remote tables. Options are kept as given (after
// validation by the DDL layer); secrets (passwords) live only in user
// mappings and are never printed by anything that lists them.

import (
	"sort"

	"github.com/pgfed/pgfed/pgerr"
)

// Server is a foreign server (CREATE SERVER ... FOREIGN DATA WRAPPER).
type Server struct {
	Name    string
	Wrapper string
	Options map[string]string
}

// UserMapping maps a local user (or PUBLIC, stored as "public") to the
// options used to connect to a server as that user.
type UserMapping struct {
	Server  string
	User    string
	Options map[string]string
}

// ForeignTable is what makes a Table foreign: its server and the
// table-level and per-column options.
type ForeignTable struct {
	Server        string
	Options       map[string]string
	ColumnOptions []map[string]string // one per column (nil entries allowed)
}

// RemoteName returns the remote schema and table name of a foreign table
// (schema_name, table_name options; defaults are the local names).
func (t *Table) RemoteName() (schema, name string) {
	schema, name = t.Schema, t.Name
	if v, ok := t.Foreign.Options["schema_name"]; ok {
		schema = v
	}
	if v, ok := t.Foreign.Options["table_name"]; ok {
		name = v
	}
	return schema, name
}

// RemoteColumn returns the remote name of column i (column_name option).
func (t *Table) RemoteColumn(i int) string {
	if i < len(t.Foreign.ColumnOptions) {
		if v, ok := t.Foreign.ColumnOptions[i]["column_name"]; ok {
			return v
		}
	}
	return t.Columns[i].Name
}

// RemoteColumns are the remote names of all of t's columns.
func (t *Table) RemoteColumns() []string {
	names := make([]string, len(t.Columns))
	for i := range names {
		names[i] = t.RemoteColumn(i)
	}
	return names
}

type foreignCatalog struct {
	servers  map[string]*Server
	mappings map[string]map[string]*UserMapping // server -> user -> mapping
}

func (c *Catalog) fc() *foreignCatalog {
	if c.foreign == nil {
		c.foreign = &foreignCatalog{servers: map[string]*Server{}, mappings: map[string]map[string]*UserMapping{}}
	}
	return c.foreign
}

// AddServer registers a server.
func (c *Catalog) AddServer(s *Server) (Change, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.fc()
	if _, dup := f.servers[s.Name]; dup {
		return Change{}, pgerr.New(pgerr.DuplicateObject, "server %q already exists", s.Name)
	}
	f.servers[s.Name] = s
	return Change{Revert: func() {
		c.mu.Lock()
		delete(f.servers, s.Name)
		c.mu.Unlock()
	}, Finish: func() {}}, nil
}

// Server returns a server by name, or nil.
func (c *Catalog) Server(name string) *Server {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.fc().servers[name]
}

// Servers lists the servers by name.
func (c *Catalog) Servers() []*Server {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []*Server
	for _, s := range c.fc().servers {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ReplaceServer swaps a server's definition (ALTER SERVER).
func (c *Catalog) ReplaceServer(s *Server) Change {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.fc()
	old := f.servers[s.Name]
	f.servers[s.Name] = s
	return Change{Revert: func() {
		c.mu.Lock()
		f.servers[s.Name] = old
		c.mu.Unlock()
	}, Finish: func() {}}
}

// SetForeignOptions gives foreign table t new options (ALTER FOREIGN
// TABLE ... OPTIONS): statements planned from then on see them.
func (c *Catalog) SetForeignOptions(t *Table, f *ForeignTable) Change {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := t.Foreign
	t.Foreign = f
	return Change{Revert: func() {
		c.mu.Lock()
		t.Foreign = old
		c.mu.Unlock()
	}, Finish: func() {}}
}

// DropServer removes a server; with cascade also its user mappings and
// foreign tables, else it fails if any depend on it.
func (c *Catalog) DropServer(name string, cascade bool) (Change, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.fc()
	var tables []*Table
	for _, s := range c.schemas {
		for _, t := range s {
			if t.Foreign != nil && t.Foreign.Server == name {
				tables = append(tables, t)
			}
		}
	}
	if !cascade && (len(tables) > 0 || len(f.mappings[name]) > 0) {
		return Change{}, pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop server %s because other objects depend on it", name).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	var removed [][]*Table
	for _, t := range tables {
		r := c.removeLocked(t)
		c.unlinkLocked(r)
		removed = append(removed, r)
	}
	srv, mappings := f.servers[name], f.mappings[name]
	delete(f.mappings, name)
	delete(f.servers, name)
	return Change{Revert: func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		f.servers[name] = srv
		if mappings != nil {
			f.mappings[name] = mappings
		}
		for _, r := range removed {
			c.linkLocked(r)
		}
	}, Finish: func() {
		for _, r := range removed {
			releaseTables(r)
		}
	}}, nil
}

// SetUserMapping adds or replaces a user mapping.
func (c *Catalog) SetUserMapping(m *UserMapping) Change {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.fc()
	if f.mappings[m.Server] == nil {
		f.mappings[m.Server] = map[string]*UserMapping{}
	}
	old := f.mappings[m.Server][m.User]
	f.mappings[m.Server][m.User] = m
	return Change{Revert: func() { c.restoreMapping(m.Server, m.User, old) }, Finish: func() {}}
}

// restoreMapping puts back a server's mapping for user (nil: none).
func (c *Catalog) restoreMapping(server, user string, m *UserMapping) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.fc()
	if m == nil {
		delete(f.mappings[server], user)
		return
	}
	if f.mappings[server] == nil {
		f.mappings[server] = map[string]*UserMapping{}
	}
	f.mappings[server][user] = m
}

// UserMapping returns the exact mapping of user on server, or nil.
func (c *Catalog) UserMapping(server, user string) *UserMapping {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.fc().mappings[server][user]
}

// DropUserMapping removes a mapping; it reports whether it existed.
func (c *Catalog) DropUserMapping(server, user string) (bool, Change) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.fc().mappings[server][user]
	if !ok {
		return false, noChange()
	}
	delete(c.fc().mappings[server], user)
	return true, Change{Revert: func() { c.restoreMapping(server, user, m) }, Finish: func() {}}
}

// UserMappings lists all mappings, by server then user.
func (c *Catalog) UserMappings() []*UserMapping {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []*UserMapping
	for _, ms := range c.fc().mappings {
		for _, m := range ms {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Server != out[j].Server {
			return out[i].Server < out[j].Server
		}
		return out[i].User < out[j].User
	})
	return out
}

// MappingFor finds the mapping that applies to user on server: the
// user's own, else PUBLIC's.
func (c *Catalog) MappingFor(server, user string) *UserMapping {
	if m := c.UserMapping(server, user); m != nil {
		return m
	}
	return c.UserMapping(server, "public")
}
