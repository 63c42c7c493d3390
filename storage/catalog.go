package storage

import (
	"sort"
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

// CreateSchema adds a schema; ifNotExists turns a duplicate into a no-op
// reported by the boolean.
func (c *Catalog) CreateSchema(name string, ifNotExists bool) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.schemas[name]; ok {
		if ifNotExists {
			return false, nil
		}
		return false, pgerr.New(pgerr.DuplicateSchema, "schema %q already exists", name)
	}
	c.schemas[name] = map[string]*Table{}
	return true, nil
}

// DropSchema removes an empty schema (or, with cascade, its tables too).
func (c *Catalog) DropSchema(name string, cascade bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.schemas[name]
	if !ok {
		return pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", name)
	}
	if len(s) > 0 && !cascade {
		return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop schema %s because other objects depend on it", name)
	}
	for _, t := range s {
		t.release()
	}
	delete(c.schemas, name)
	return nil
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

// AddTable registers t (and links it to its parent when it is a partition).
func (c *Catalog) AddTable(t *Table) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.schemas[t.Schema]
	if !ok {
		return pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", t.Schema)
	}
	if _, dup := s[t.Name]; dup {
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", t.Name)
	}
	if c.lastOID < firstOID {
		c.lastOID = firstOID - 1
	}
	c.lastOID++
	t.OID = c.lastOID
	s[t.Name] = t
	if t.Parent != nil {
		t.Parent.addPartition(t)
	}
	return nil
}

// DropTable removes t and, for a partitioned table, all its partitions.
func (c *Catalog) DropTable(t *Table) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLocked(t)
	if t.Parent != nil {
		t.Parent.removePartition(t)
	}
}

func (c *Catalog) dropLocked(t *Table) {
	for _, p := range t.Partitions() {
		c.dropLocked(p)
	}
	delete(c.schemas[t.Schema], t.Name)
	t.release()
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
