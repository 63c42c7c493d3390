package pgfed_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/pgfed/pgfed/pgtest"
)

// TestMain checks that no test leaves a goroutine behind and stops the
// throwaway PostgreSQL clusters the tests started.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(pgtest.WrapMain(m))
}
