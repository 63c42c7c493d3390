package commands

// Catalog introspection for the REPL's \d commands.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/planner"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

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

func kindName(t *storage.Table) string {
	switch t.Kind {
	case storage.KindPartitioned:
		return "partitioned table"
	case storage.KindForeign:
		return "foreign table"
	}
	return "table"
}

// visibleTables are the relations an unqualified name can reach, as
// pg_table_is_visible decides: those of the search path's schemas (the
// session's temporary schema first), less those a table of the same name
// in an earlier schema hides; sorted by schema, then name.
func visibleTables(env *Env) []*storage.Table {
	path := env.Planner().RelationSearchPath()
	seen := map[string]bool{}
	var out []*storage.Table
	for _, s := range path {
		for _, t := range env.Catalog.Tables([]string{s}) {
			if !seen[t.Name] {
				seen[t.Name] = true
				out = append(out, t)
			}
		}
	}
	slices.SortFunc(out, func(a, b *storage.Table) int {
		return cmp.Or(strings.Compare(a.Schema, b.Schema), strings.Compare(a.Name, b.Name))
	})
	return out
}

// ListRelations lists the relations of the search path's schemas, as \d
// does (a temporary table in its pg_temp_N schema).
func ListRelations(env *Env) ([]RelationInfo, error) {
	var out []RelationInfo
	for _, t := range visibleTables(env) {
		out = append(out, RelationInfo{Schema: t.Schema, Name: t.Name, Kind: kindName(t)})
	}
	return out, nil
}

// DescribeRelation describes one relation, as \d NAME does.
func DescribeRelation(env *Env, name string) (*RelationDesc, error) {
	tree, err := planner.Parse("SELECT * FROM " + name)
	if err != nil {
		return nil, pgerr.New(pgerr.UndefinedTable, "Did not find any relation named %q.", name)
	}
	rv := tree.Stmts[0].Stmt.GetSelectStmt().FromClause[0].GetRangeVar()
	if rv == nil {
		return nil, pgerr.New(pgerr.UndefinedTable, "Did not find any relation named %q.", name)
	}
	t, err := env.Planner().ResolveTable(rv)
	if err != nil {
		return nil, pgerr.New(pgerr.UndefinedTable, "Did not find any relation named %q.", name)
	}
	d := &RelationDesc{Schema: t.Schema, Name: t.Name, Kind: kindName(t)}
	for i, c := range t.Columns {
		cd := ColumnDesc{Name: c.Name, Type: c.Type.String(), NotNull: c.NotNull, Default: c.DefaultDisplay}
		if t.Foreign != nil && i < len(t.Foreign.ColumnOptions) {
			cd.FDWOptions = t.Foreign.ColumnOptions[i]
		}
		d.Columns = append(d.Columns, cd)
	}
	if t.Foreign != nil {
		d.Server, d.FDWOptions = t.Foreign.Server, t.Foreign.Options
	}
	if t.PartKey != nil {
		names := make([]string, len(t.PartKey.Columns))
		for i, c := range t.PartKey.Columns {
			names[i] = t.Columns[c].Name
		}
		d.PartitionKey = fmt.Sprintf("%s (%s)", t.PartKey.Strategy, strings.Join(names, ", "))
		for _, p := range t.Partitions() {
			d.Partitions = append(d.Partitions, p.Name+" "+BoundString(t, p.Bound))
		}
	}
	if t.Parent != nil {
		d.PartitionOf = t.Parent.Name
		d.PartitionBound = BoundString(t.Parent, t.Bound)
	}
	return d, nil
}

// BoundString prints a partition bound as PostgreSQL's
// pg_get_expr(relpartbound) does: FOR VALUES FROM (1) TO (10).
func BoundString(parent *storage.Table, b *storage.PartitionBound) string {
	if b.Default {
		return "DEFAULT"
	}
	kts := parent.KeyTypes()
	lit := func(t types.T, v any) string {
		if v == nil {
			return "NULL"
		}
		s := types.Format(t, v)
		if t.IsNumeric() {
			return s
		}
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	switch parent.PartKey.Strategy {
	case storage.Range:
		rng := func(ds []storage.RangeDatum) string {
			parts := make([]string, len(ds))
			for i, d := range ds {
				switch d.Kind {
				case storage.MinValue:
					parts[i] = "MINVALUE"
				case storage.MaxValue:
					parts[i] = "MAXVALUE"
				default:
					parts[i] = lit(kts[i], d.Value)
				}
			}
			return strings.Join(parts, ", ")
		}
		return fmt.Sprintf("FOR VALUES FROM (%s) TO (%s)", rng(b.From), rng(b.To))
	case storage.List:
		parts := make([]string, len(b.In))
		for i, v := range b.In {
			parts[i] = lit(kts[0], v)
		}
		return fmt.Sprintf("FOR VALUES IN (%s)", strings.Join(parts, ", "))
	}
	return fmt.Sprintf("FOR VALUES WITH (modulus %d, remainder %d)", b.Modulus, b.Remainder)
}

// ListServers lists the foreign servers (\des).
func ListServers(env *Env) ([]ServerInfo, error) {
	var out []ServerInfo
	for _, srv := range env.Catalog.Servers() {
		out = append(out, ServerInfo{Name: srv.Name, Wrapper: srv.Wrapper, Options: srv.Options})
	}
	return out, nil
}

// secretOptions are user-mapping options never shown.
var secretOptions = map[string]bool{"password": true, "sslpassword": true}

// ListUserMappings lists the user mappings (\deu), without passwords.
func ListUserMappings(env *Env) ([]UserMappingInfo, error) {
	var out []UserMappingInfo
	for _, m := range env.Catalog.UserMappings() {
		opts := map[string]string{}
		for k, v := range m.Options {
			if !secretOptions[k] {
				opts[k] = v
			}
		}
		out = append(out, UserMappingInfo{Server: m.Server, User: m.User, Options: opts})
	}
	return out, nil
}

// ListForeignTables lists the foreign tables of the search path (\det).
func ListForeignTables(env *Env) ([]ForeignTableInfo, error) {
	var out []ForeignTableInfo
	for _, t := range visibleTables(env) {
		if t.Foreign != nil {
			out = append(out, ForeignTableInfo{Schema: t.Schema, Name: t.Name, Server: t.Foreign.Server, Options: t.Foreign.Options})
		}
	}
	return out, nil
}
