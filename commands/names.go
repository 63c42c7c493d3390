package commands

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// CommandName names what a statement does as PostgreSQL's
// CreateCommandName does ("CREATE TABLE", "DROP SCHEMA"), for messages
// such as "cannot execute CREATE TABLE in a read-only transaction".
func CommandName(stmt *pg.Node) string {
	switch x := stmt.Node.(type) {
	case *pg.Node_SelectStmt:
		return "SELECT"
	case *pg.Node_InsertStmt:
		return "INSERT"
	case *pg.Node_UpdateStmt:
		return "UPDATE"
	case *pg.Node_DeleteStmt:
		return "DELETE"
	case *pg.Node_CreateStmt:
		return "CREATE TABLE"
	case *pg.Node_CreateForeignTableStmt:
		return "CREATE FOREIGN TABLE"
	case *pg.Node_CreateTableAsStmt:
		return "CREATE TABLE AS"
	case *pg.Node_CreateSchemaStmt:
		return "CREATE SCHEMA"
	case *pg.Node_DropStmt:
		return "DROP " + strings.ReplaceAll(strings.TrimPrefix(x.DropStmt.RemoveType.String(), "OBJECT_"), "_", " ")
	case *pg.Node_TruncateStmt:
		return "TRUNCATE TABLE"
	case *pg.Node_CopyStmt:
		if x.CopyStmt.IsFrom {
			return "COPY FROM"
		}
		return "COPY"
	case *pg.Node_CreateForeignServerStmt:
		return "CREATE SERVER"
	case *pg.Node_AlterForeignServerStmt:
		return "ALTER SERVER"
	case *pg.Node_AlterTableStmt:
		if x.AlterTableStmt.Objtype == pg.ObjectType_OBJECT_FOREIGN_TABLE {
			return "ALTER FOREIGN TABLE"
		}
		return "ALTER TABLE"
	case *pg.Node_CreateUserMappingStmt:
		return "CREATE USER MAPPING"
	case *pg.Node_AlterUserMappingStmt:
		return "ALTER USER MAPPING"
	case *pg.Node_DropUserMappingStmt:
		return "DROP USER MAPPING"
	case *pg.Node_ImportForeignSchemaStmt:
		return "IMPORT FOREIGN SCHEMA"
	case *pg.Node_CreateExtensionStmt:
		return "CREATE EXTENSION"
	case *pg.Node_ExplainStmt:
		return "EXPLAIN"
	case *pg.Node_VariableSetStmt:
		return "SET"
	case *pg.Node_VariableShowStmt:
		return "SHOW"
	}
	return "???"
}
