package engine

// Utility statements (PostgreSQL's tcop/utility.c): everything but
// queries goes to package commands.

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/commands"
	"github.com/pgfed/pgfed/pgerr"
)

func (s *Session) utility(ctx context.Context, stmt *pg.Node) (*commands.Result, error) {
	env := s.Env()
	switch x := stmt.Node.(type) {
	case *pg.Node_ExplainStmt:
		return commands.Explain(ctx, env, x.ExplainStmt)
	case *pg.Node_VariableSetStmt:
		return commands.Set(env, x.VariableSetStmt)
	case *pg.Node_VariableShowStmt:
		return commands.Show(env, x.VariableShowStmt)
	case *pg.Node_CreateSchemaStmt:
		return commands.CreateSchema(env, x.CreateSchemaStmt)
	case *pg.Node_CreateStmt:
		return commands.CreateTable(env, x.CreateStmt)
	case *pg.Node_CreateTableAsStmt:
		return commands.CreateTableAs(ctx, env, x.CreateTableAsStmt)
	case *pg.Node_DropStmt:
		return commands.Drop(env, x.DropStmt)
	case *pg.Node_TruncateStmt:
		return commands.Truncate(ctx, env, x.TruncateStmt)
	case *pg.Node_CopyStmt:
		return commands.Copy(ctx, env, x.CopyStmt)
	case *pg.Node_VacuumStmt:
		if x.VacuumStmt.IsVacuumcmd && s.block != noBlock {
			return nil, pgerr.New(pgerr.ActiveSQLTransaction, "VACUUM cannot run inside a transaction block")
		}
		return commands.Vacuum(env, x.VacuumStmt)
	case *pg.Node_CreateForeignServerStmt:
		return commands.CreateServer(env, x.CreateForeignServerStmt)
	case *pg.Node_AlterForeignServerStmt:
		return commands.AlterServer(env, x.AlterForeignServerStmt)
	case *pg.Node_AlterTableStmt:
		if x.AlterTableStmt.Objtype == pg.ObjectType_OBJECT_FOREIGN_TABLE {
			return commands.AlterForeignTable(env, x.AlterTableStmt)
		}
	case *pg.Node_CreateUserMappingStmt:
		return commands.CreateUserMapping(env, x.CreateUserMappingStmt)
	case *pg.Node_AlterUserMappingStmt:
		return commands.AlterUserMapping(env, x.AlterUserMappingStmt)
	case *pg.Node_DropUserMappingStmt:
		return commands.DropUserMapping(env, x.DropUserMappingStmt)
	case *pg.Node_CreateForeignTableStmt:
		return commands.CreateForeignTable(env, x.CreateForeignTableStmt)
	case *pg.Node_ImportForeignSchemaStmt:
		return commands.ImportForeignSchema(ctx, env, x.ImportForeignSchemaStmt)
	case *pg.Node_CreateExtensionStmt:
		// postgres_fdw is built in; accept the statement users paste.
		if x.CreateExtensionStmt.Extname != "postgres_fdw" {
			return nil, pgerr.New(pgerr.UndefinedFile, "extension %q is not available", x.CreateExtensionStmt.Extname)
		}
		return &commands.Result{Tag: "CREATE EXTENSION"}, nil
	}
	return nil, pgerr.NotSupported(statementName(stmt))
}
