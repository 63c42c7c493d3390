package commands

// IMPORT FOREIGN SCHEMA: read a remote schema's tables and columns from
// the remote catalog and create matching foreign tables, as postgres_fdw
// does (columns get column_name options; NOT NULL is imported; partitions
// only when named in LIMIT TO). Remote types pgfed does not have are
// imported as text, with a NOTICE.

import (
	"context"
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/planner"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

const importCatalogSQL = `
SELECT c.relname, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull::text, c.relispartition::text
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE n.nspname = $1 AND c.relkind IN ('r', 'v', 'f', 'm', 'p')
ORDER BY c.relname, a.attnum`

func ImportForeignSchema(ctx context.Context, env *Env, st *pg.ImportForeignSchemaStmt) (*Result, error) {
	srv := env.Catalog.Server(st.ServerName)
	if srv == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", st.ServerName)
	}
	if !env.Catalog.HasSchema(st.LocalSchema) {
		return nil, pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", st.LocalSchema)
	}
	m := env.Catalog.MappingFor(srv.Name, SessionUser)
	if m == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "user mapping not found for %q", SessionUser)
	}
	importNotNull := true
	for _, n := range st.Options {
		d := n.GetDefElem()
		switch d.Defname {
		case "import_not_null":
			v, err := defBool(d)
			if err != nil {
				return nil, err
			}
			importNotNull = v
		case "import_default", "import_collate", "import_generated":
		default:
			return nil, pgerr.New(pgerr.FDWInvalidOptionName, "invalid option %q", d.Defname)
		}
	}
	conn, err := env.Remote.Conn(ctx, srv.Name, srv.Name+"/"+m.User, 0)
	if err != nil {
		return nil, err
	}
	exists, err := conn.QueryText(ctx, "SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1", st.RemoteSchema)
	if err != nil {
		return nil, err
	}
	if len(exists) == 0 {
		return nil, pgerr.New("HV00L", "schema %q is not present on foreign server %q", st.RemoteSchema, srv.Name)
	}
	cat, err := conn.QueryText(ctx, importCatalogSQL, st.RemoteSchema)
	if err != nil {
		return nil, err
	}
	listed := map[string]bool{}
	for _, n := range st.TableList {
		listed[n.GetRangeVar().Relname] = true
	}
	type column struct {
		name, typ string
		notNull   bool
	}
	var order []string
	tables := map[string][]column{}
	for _, r := range cat {
		rel, isPart := *r[0], *r[4] == "true"
		switch st.ListType {
		case pg.ImportForeignSchemaType_FDW_IMPORT_SCHEMA_LIMIT_TO:
			if !listed[rel] {
				continue
			}
		case pg.ImportForeignSchemaType_FDW_IMPORT_SCHEMA_EXCEPT:
			if listed[rel] || isPart {
				continue
			}
		default:
			if isPart {
				continue
			}
		}
		if _, seen := tables[rel]; !seen {
			order = append(order, rel)
		}
		tables[rel] = append(tables[rel], column{name: *r[1], typ: *r[2], notNull: *r[3] == "true"})
	}
	// Check everything first, so that a failure creates nothing.
	var created []*storage.Table
	for _, rel := range order {
		if env.Catalog.Lookup(st.LocalSchema, rel) != nil {
			return nil, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", rel)
		}
		var cols []storage.Column
		var colOpts []map[string]string
		for _, c := range tables[rel] {
			t, ok := importType(c.typ)
			if !ok {
				env.noticef(pgerr.SuccessfulCompletion, "column %q of foreign table %q has remote type %s, imported as text", c.name, rel, c.typ)
				t = types.TextT
			}
			cols = append(cols, storage.Column{Name: c.name, Type: t, NotNull: c.notNull && importNotNull})
			colOpts = append(colOpts, map[string]string{"column_name": c.name})
		}
		t := storage.NewTable(st.LocalSchema, rel, cols)
		t.Kind = storage.KindForeign
		t.Foreign = &storage.ForeignTable{Server: srv.Name, Options: map[string]string{"schema_name": st.RemoteSchema, "table_name": rel}, ColumnOptions: colOpts}
		created = append(created, t)
	}
	for _, t := range created {
		c, err := env.Catalog.AddTable(t)
		if err != nil {
			return nil, err
		}
		env.Changed(c)
	}
	return tag("IMPORT FOREIGN SCHEMA")
}

// importType maps a remote format_type() spelling to a pgfed type.
func importType(formatted string) (types.T, bool) {
	tree, err := planner.Parse(fmt.Sprintf("SELECT NULL::%s", formatted))
	if err != nil {
		return types.T{}, false
	}
	tc := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val.GetTypeCast()
	if tc == nil {
		return types.T{}, false
	}
	t, err := planner.TypeFromName(tc.TypeName)
	return t, err == nil
}
