// Package pgerr defines pgfed's error type: a PostgreSQL-style error with a
// SQLSTATE code, so that every error a user sees reads like PostgreSQL's
// (ERROR:  message, DETAIL, HINT, CONTEXT, cursor position) and tools can
// branch on the code.
//
// Contract: every error that leaves the engine through the public API is an
// *Error (or wraps one); anything else is converted to XX000 at the statement
// boundary by Wrap.
package pgerr
