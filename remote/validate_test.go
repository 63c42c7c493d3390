package remote

import (
	"strings"
	"testing"

	"github.com/pgfed/pgfed/pgerr"
)

// TestValidateOption: messages and SQLSTATEs recorded from PostgreSQL
// 15.18's postgres_fdw.
func TestValidateOption(t *testing.T) {
	tests := []struct {
		ctx         OptionContext
		name, value string
		code, msg   string // "" for valid
	}{
		{ServerOptions, "host", "db1", "", ""},
		// libpq keywords the old list rejected.
		{ServerOptions, "passfile", "/x", "", ""},
		{ServerOptions, "service", "s", "", ""},
		{ServerOptions, "channel_binding", "require", "", ""},
		{ServerOptions, "target_session_attrs", "any", "", ""},
		{ServerOptions, "keepalives_idle", "30", "", ""},
		{ServerOptions, "sslmode", "require", "", ""},
		{ServerOptions, "fetch_size", " 12 ", "", ""},
		{ServerOptions, "batch_size", "1e3", "", ""},
		{ServerOptions, "fdw_tuple_cost", "1e3", "", ""},
		{ServerOptions, "async_capable", "ON", "", ""},
		{ServerOptions, "parallel_commit", "true", "", ""},
		{ServerOptions, "parallel_abort", "0", "", ""},
		{ServerOptions, "bogus", "x", "HV00D", `invalid option "bogus"`},
		{ServerOptions, "user", "x", "HV00D", `invalid option "user"`},
		{ServerOptions, "password", "x", "HV00D", `invalid option "password"`},
		{ServerOptions, "client_encoding", "x", "HV00D", `invalid option "client_encoding"`},
		{ServerOptions, "fetch_size", "x", "22023", `invalid value for integer option "fetch_size": x`},
		{ServerOptions, "fetch_size", "10kB", "22023", `invalid value for integer option "fetch_size": 10kB`},
		{ServerOptions, "fetch_size", "0", "22023", `"fetch_size" must be an integer value greater than zero`},
		{ServerOptions, "async_capable", "maybe", "42601", `async_capable requires a Boolean value`},
		{ServerOptions, "async_capable", "yes", "42601", `async_capable requires a Boolean value`},
		{ServerOptions, "fdw_startup_cost", "x", "22023", `invalid value for floating point option "fdw_startup_cost": x`},
		{ServerOptions, "fdw_startup_cost", "-1", "22023", `"fdw_startup_cost" must be a floating point value greater than or equal to zero`},
		{UserMappingOptions, "user", "app", "", ""},
		{UserMappingOptions, "sslcert", "c", "", ""},
		{UserMappingOptions, "password_required", "yes", "42601", `password_required requires a Boolean value`},
		{UserMappingOptions, "host", "x", "HV00D", `invalid option "host"`},
		{TableOptions, "table_name", "t", "", ""},
		{TableOptions, "parallel_commit", "true", "HV00D", `invalid option "parallel_commit"`},
		{ColumnOptions, "column_name", "c", "", ""},
		{ColumnOptions, "table_name", "c", "HV00D", `invalid option "table_name"`},
	}
	for _, tc := range tests {
		err := ValidateOption(tc.ctx, tc.name, tc.value)
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s '%s' in context %d: %v", tc.name, tc.value, tc.ctx, err)
			}
			continue
		}
		pe, ok := pgerr.As(err)
		if !ok || pe.Code != tc.code || pe.Message != tc.msg {
			t.Errorf("%s '%s' in context %d: %v (%s), want %s %q", tc.name, tc.value, tc.ctx, err, pgerr.Code(err), tc.code, tc.msg)
		}
	}
}

// TestValidOptionsHints: the hints list the options in postgres_fdw's
// order; PostgreSQL 15's lists, with later libpq keywords and pgfed's own
// options added where they belong.
func TestValidOptionsHints(t *testing.T) {
	hint := func(ctx OptionContext) string {
		pe, _ := pgerr.As(ValidateOption(ctx, "bogus", "x"))
		return strings.TrimPrefix(pe.Hint, "Valid options in this context are: ")
	}
	for _, tc := range []struct {
		ctx  OptionContext
		want string
	}{
		{ServerOptions, "service, passfile, channel_binding, connect_timeout, dbname, host, hostaddr, port, options, application_name, keepalives, keepalives_idle, keepalives_interval, keepalives_count, tcp_user_timeout, sslmode, sslcompression, sslcert, sslkey, sslrootcert, sslcrl, sslcrldir, sslsni, requirepeer, ssl_min_protocol_version, ssl_max_protocol_version, gssencmode, krbsrvname, gsslib, target_session_attrs, " +
			"require_auth, sslcertmode, sslnegotiation, load_balance_hosts, " +
			"use_remote_estimate, fdw_startup_cost, fdw_tuple_cost, extensions, updatable, truncatable, fetch_size, batch_size, async_capable, parallel_commit, keep_connections, " +
			"parallel_abort, analyze_sampling, async_connections"},
		{UserMappingOptions, "user, password, sslpassword, password_required, sslcert, sslkey"},
		{TableOptions, "schema_name, table_name, use_remote_estimate, updatable, truncatable, fetch_size, batch_size, async_capable, analyze_sampling"},
		{ColumnOptions, "column_name"},
	} {
		if got := hint(tc.ctx); got != tc.want {
			t.Errorf("context %d:\n got  %s\n want %s", tc.ctx, got, tc.want)
		}
	}
}
