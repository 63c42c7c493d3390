//go:build !cgo

package planner

// pgfed parses SQL with pg_query_go, PostgreSQL's own parser in C, so it
// needs cgo and a C compiler: without them the build stops here, with this
// name in the error, instead of only "undefined: pg.Parse".
var _ = pgfed_needs_cgo__install_a_C_compiler_such_as_gcc_and_build_with_CGO_ENABLED_1
