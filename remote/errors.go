package remote

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgfed/pgfed/pgerr"
)

// contextError is what a command interrupted through its context reports:
// the context's cause when it is a *pgerr.Error (a statement_timeout is
// pgerr.Timeout()), else the cancel request's 57014, whatever the remote
// server or the network said in the meantime.
func contextError(ctx context.Context) error {
	if pe, ok := pgerr.As(context.Cause(ctx)); ok {
		return pe
	}
	return pgerr.Canceled()
}

// remoteSQLContext is the CONTEXT line postgres_fdw adds to every error
// of a remote command.
func remoteSQLContext(sql string) string { return "remote SQL command: " + sql }

// commandError converts the error of a remote command into a *pgerr.Error.
// sql is the command to name in CONTEXT (for cursors, postgres_fdw names
// the cursor's query rather than DECLARE or FETCH).
//
//   - the caller's context is done: the context's error (contextError);
//   - an error the server sent: its SQLSTATE, message, DETAIL and HINT,
//     its own CONTEXT lines followed by the remote SQL, as postgres_fdw's
//     pgfdw_report_error does (the position is dropped: it points into
//     the remote SQL, not the user's statement);
//   - the connection failed: 08006 naming the server, with the driver's
//     description as DETAIL.
func commandError(ctx context.Context, err error, server, sql string) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return contextError(ctx)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		e := &pgerr.Error{
			Code:    pgErr.Code,
			Message: pgErr.Message,
			Detail:  pgErr.Detail,
			Hint:    pgErr.Hint,
			Context: remoteSQLContext(sql),
		}
		if pgErr.Where != "" {
			e.Context = pgErr.Where + "\n" + e.Context
		}
		return e
	}
	e := lostError(server)
	e.Detail = err.Error()
	e.Context = remoteSQLContext(sql)
	return e
}

// lostError is postgres_fdw's error for a connection that broke while a
// remote transaction was open: reconnecting would silently give the rest
// of the statement another snapshot, so the statement fails instead.
func lostError(server string) *pgerr.Error {
	return pgerr.New(pgerr.ConnectionFailure, "connection to server \"%s\" was lost", server)
}

// connectError is the 08001 for a server that could not be reached or
// refused the login. The detail comes from pgx, whose messages name the
// address, user and database but never the password.
func connectError(server string, cause error) *pgerr.Error {
	e := pgerr.New(pgerr.SQLClientUnableToEstablish, "could not connect to server \"%s\"", server)
	if cause != nil {
		e.Detail = cause.Error()
	}
	return e
}
