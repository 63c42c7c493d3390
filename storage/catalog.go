package storage

import (
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pgfed/pgfed/pgerr"
)

// Catalog holds schemas and their relations.
type Catalog struct {
	mu      sync.RWMutex
	schemas map[string]map[string]*Table
	foreign *foreignCatalog
	lastOID int64
}

// firstOID is the first OID tables get (PostgreSQL's FirstNormalObjectId).
const firstOID = 16384

// NewCatalog returns a catalog with the "public" schema.
func NewCatalog() *Catalog {
	return &Catalog{schemas: map[string]map[string]*Table{"public": {}, "pg_catalog": {}}}
}

// Change is a catalog change's two possible ends: Revert undoes it when
// the transaction that made it aborts (changes are reverted newest
// first), Finish completes it when the transaction commits (a dropped
// table releases its data only then). Other sessions see a change at once:
// the catalog has no versions (yet).
type Change struct {
	Revert func()
	Finish func()
}

func noChange() Change { return Change{Revert: func() {}, Finish: func() {}} }

// CreateSchema adds a schema; ifNotExists turns a duplicate into a no-op
// reported by the boolean.
func (c *Catalog) CreateSchema(name string, ifNotExists bool) (bool, Change, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.schemas[name]; ok {
		if ifNotExists {
			return false, noChange(), nil
		}
		return false, Change{}, pgerr.New(pgerr.DuplicateSchema, "schema %q already exists", name)
	}
	c.schemas[name] = map[string]*Table{}
	return true, Change{Revert: func() {
		c.mu.Lock()
		delete(c.schemas, name)
		c.mu.Unlock()
	}, Finish: func() {}}, nil
}

// DropSchema removes an empty schema (or, with cascade, its tables too).
func (c *Catalog) DropSchema(name string, cascade bool) (Change, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.schemas[name]
	if !ok {
		return Change{}, pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", name)
	}
	if len(s) > 0 && !cascade {
		return Change{}, pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop schema %s because other objects depend on it", name)
	}
	var tables []*Table
	for _, t := range s {
		tables = append(tables, t)
	}
	delete(c.schemas, name)
	return Change{Revert: func() {
		c.mu.Lock()
		c.schemas[name] = s
		c.mu.Unlock()
	}, Finish: func() { releaseTables(tables) }}, nil
}

func releaseTables(ts []*Table) {
	for _, t := range ts {
		t.release()
	}
}

// HasSchema reports whether the schema exists.
func (c *Catalog) HasSchema(name string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	_, ok := c.schemas[name]
	return ok
}

// Lookup finds a table in one schema.
func (c *Catalog) Lookup(schema, name string) *Table {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.schemas[schema][name]
}

// Resolve finds name in the first schema of path that has it.
func (c *Catalog) Resolve(path []string, name string) *Table {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, s := range path {
		if t := c.schemas[s][name]; t != nil {
			return t
		}
	}
	return nil
}

// AddTable registers t (and links it to its parent when it is a
// partition), giving it an OID.
func (c *Catalog) AddTable(t *Table) (Change, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.schemas[t.Schema]
	if !ok {
		return Change{}, pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", t.Schema)
	}
	if _, dup := s[t.Name]; dup {
		return Change{}, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", t.Name)
	}
	if c.lastOID < firstOID {
		c.lastOID = firstOID - 1
	}
	c.lastOID++
	t.OID = c.lastOID
	c.linkLocked([]*Table{t})
	return Change{Revert: func() {
		c.mu.Lock()
		c.unlinkLocked(c.removeLocked(t))
		c.mu.Unlock()
		t.release()
	}, Finish: func() {}}, nil
}

// DropTable removes t and, for a partitioned table, all its partitions.
func (c *Catalog) DropTable(t *Table) Change {
	c.mu.Lock()
	removed := c.removeLocked(t)
	c.unlinkLocked(removed)
	c.mu.Unlock()
	return Change{Revert: func() {
		c.mu.Lock()
		c.linkLocked(removed)
		c.mu.Unlock()
	}, Finish: func() { releaseTables(removed) }}
}

// removeLocked takes t and its partitions out of their schemas and
// returns them, parents first.
func (c *Catalog) removeLocked(t *Table) []*Table {
	out := []*Table{t}
	for _, p := range t.Partitions() {
		out = append(out, c.removeLocked(p)...)
	}
	delete(c.schemas[t.Schema], t.Name)
	return out
}

// unlinkLocked detaches the first of ts (the dropped table) from its
// parent; its own partitions stay linked to it.
func (c *Catalog) unlinkLocked(ts []*Table) {
	if len(ts) > 0 && ts[0].Parent != nil {
		ts[0].Parent.removePartition(ts[0])
	}
}

// linkLocked puts ts (parents first, as removeLocked returns them) back
// into their schemas and the first under its parent.
func (c *Catalog) linkLocked(ts []*Table) {
	for _, t := range ts {
		c.schemas[t.Schema][t.Name] = t
	}
	if len(ts) > 0 && ts[0].Parent != nil {
		ts[0].Parent.addPartition(ts[0])
	}
}

// Tables lists the tables of the given schemas, sorted by schema then name.
func (c *Catalog) Tables(schemas []string) []*Table {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []*Table
	for _, s := range schemas {
		for _, t := range c.schemas[s] {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Schema != out[j].Schema {
			return out[i].Schema < out[j].Schema
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Close releases every table's data.
func (c *Catalog) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.schemas {
		for _, t := range s {
			t.release()
		}
	}
	c.schemas = map[string]map[string]*Table{}
}

// Temporary schemas. Each session that creates a temporary table gets a
// schema of its own, pg_temp_N, as PostgreSQL's namespace.c does (N is
// the smallest number no other session's schema has, where PostgreSQL
// uses the backend's ID). The schema lives in the catalog like any other,
// so that names resolve, \d lists and DDL reverts as for permanent
// tables; only its owner's search path reaches it (see
// planner.Planner.TempSchema), and it goes with its session
// (DropTempSchema). Like every table pgfed keeps, its tables are in
// memory only: the catalog has no data directory to keep them out of.

// TempSchemaPrefix begins the name of every session's temporary schema.
const TempSchemaPrefix = "pg_temp_"

// IsTempSchema reports whether name is a session's temporary schema
// (pg_temp_N; the alias pg_temp is the caller's to resolve).
func IsTempSchema(name string) bool {
	rest, ok := strings.CutPrefix(name, TempSchemaPrefix)
	if !ok || rest == "" {
		return false
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// CreateTempSchema creates a session's temporary schema and returns its
// name. It is not transactional (PostgreSQL keeps the namespace too once
// made): DropTempSchema removes it when the session ends.
func (c *Catalog) CreateTempSchema() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for n := 1; ; n++ {
		name := TempSchemaPrefix + strconv.Itoa(n)
		if _, taken := c.schemas[name]; !taken {
			c.schemas[name] = map[string]*Table{}
			return name
		}
	}
}

// DropTempSchema removes a session's temporary schema with every table in
// it and releases their data at once: the session is over, so there is no
// transaction left to revert it.
func (c *Catalog) DropTempSchema(name string) {
	c.mu.Lock()
	s := c.schemas[name]
	delete(c.schemas, name)
	var tables []*Table
	for _, t := range s {
		tables = append(tables, t)
	}
	c.mu.Unlock()
	releaseTables(tables)
}
