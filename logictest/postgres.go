package logictest

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// PostgresDB adapts a pgx connection to DB. Statements go through the
// simple query protocol, in which PostgreSQL sends every value in its text
// output format, and the values are kept as the raw bytes received: what a
// file expects is exactly what PostgreSQL prints, with no Go type in
// between.
//
// It uses the connection's PgConn directly rather than pgx's
// QueryExecModeSimpleProtocol, because the latter interpolates client-side
// arguments and so rejects SQL that contains $1 (PREPARE ... AS SELECT $1)
// when no arguments are given.
func PostgresDB(conn *pgx.Conn) DB {
	return postgresDB{conn: conn}
}

type postgresDB struct {
	conn *pgx.Conn
}

func (db postgresDB) Query(ctx context.Context, sql string) ([]string, [][]*string, error) {
	results := db.conn.PgConn().Exec(ctx, sql)
	var columns []string
	var rows [][]*string
	resultSets := 0
	for results.NextResult() {
		resultSets++
		reader := results.ResultReader()
		// A command without result set sends no RowDescription, which
		// leaves the field descriptions nil.
		if fields := reader.FieldDescriptions(); fields != nil {
			columns = make([]string, len(fields))
			for i, field := range fields {
				columns[i] = field.Name
			}
		}
		for reader.NextRow() {
			// The row's buffers are reused by the next row: copy them.
			row := make([]*string, len(reader.Values()))
			for i, raw := range reader.Values() {
				if raw != nil {
					value := string(raw)
					row[i] = &value
				}
			}
			rows = append(rows, row)
		}
		if _, err := reader.Close(); err != nil {
			_ = results.Close()
			return nil, nil, err
		}
	}
	if err := results.Close(); err != nil {
		return nil, nil, err
	}
	if resultSets > 1 {
		return nil, nil, fmt.Errorf("logictest: the SQL holds %d statements; write one statement per record", resultSets)
	}
	return columns, rows, nil
}

// PostgresSQLState returns the SQLSTATE of a PostgreSQL error, or "" if err
// is not one (e.g. a network error).
func PostgresSQLState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// PostgresMessage returns the primary message of a PostgreSQL error, as
// psql shows it after "ERROR:  ", or err.Error() if err is not one.
func PostgresMessage(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Message
	}
	return err.Error()
}

// PostgresEngine describes PostgreSQL under the engine name "postgres".
func PostgresEngine() Engine {
	return Engine{Name: "postgres", SQLState: PostgresSQLState, Message: PostgresMessage}
}
