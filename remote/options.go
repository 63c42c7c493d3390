package remote

// Connection options: which names are libpq's (the rest of a server's
// options are postgres_fdw's own, such as fetch_size), and how they turn
// into a pgx configuration.

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// optionUse is how connConfig treats a libpq keyword.
type optionUse uint8

const (
	// passed on to pgx's conninfo parser, which implements it as libpq does
	useParser optionUse = iota
	// implemented here, after parsing (secrets, hostaddr, keepalives,
	// TLS versions)
	useHere
	// accepted and without effect, as they are for libpq in practice:
	// sslcompression (servers no longer compress), gsslib (Windows only)
	useIgnored
	// not implemented by pgx: only the values in harmless (libpq's
	// default behaviour) are accepted, anything else fails to connect
	// rather than silently connecting differently than asked
	useUnsupported
)

type connOption struct {
	name string
	use  optionUse
	// userMappingOnly marks the role and its secrets, which postgres_fdw
	// accepts only in user mappings, never in server options (which every
	// user can read).
	userMappingOnly bool
	harmless        []string
}

// libpqOptions are libpq's connection keywords as postgres_fdw accepts
// them, in libpq's order (which postgres_fdw's hints list): PostgreSQL
// 15's, then later ones pgx implements; without the ones postgres_fdw
// overrides (client_encoding, fallback_application_name) or hides (the
// debug option replication). This list is the connection code's own: it
// says how connConfig uses each, and ValidateOption accepts exactly these.
var libpqOptions = []connOption{
	{name: "service", use: useParser},
	{name: "passfile", use: useParser},
	{name: "channel_binding", use: useParser},
	{name: "connect_timeout", use: useParser},
	{name: "dbname", use: useParser},
	{name: "host", use: useParser},
	{name: "hostaddr", use: useHere},
	{name: "port", use: useParser},
	{name: "options", use: useParser},
	{name: "application_name", use: useParser},
	{name: "keepalives", use: useHere},
	{name: "keepalives_idle", use: useHere},
	{name: "keepalives_interval", use: useHere},
	{name: "keepalives_count", use: useHere},
	{name: "tcp_user_timeout", use: useUnsupported, harmless: []string{"0"}},
	{name: "sslmode", use: useParser},
	{name: "sslcompression", use: useIgnored},
	{name: "sslcert", use: useParser},
	{name: "sslkey", use: useParser},
	{name: "sslrootcert", use: useParser},
	{name: "sslcrl", use: useUnsupported, harmless: []string{""}},
	{name: "sslcrldir", use: useUnsupported, harmless: []string{""}},
	{name: "sslsni", use: useParser},
	{name: "requirepeer", use: useUnsupported, harmless: []string{""}},
	{name: "ssl_min_protocol_version", use: useHere},
	{name: "ssl_max_protocol_version", use: useHere},
	{name: "gssencmode", use: useUnsupported, harmless: []string{"disable", "prefer"}},
	{name: "krbsrvname", use: useParser},
	{name: "gsslib", use: useIgnored},
	{name: "target_session_attrs", use: useParser},
	// Later libpq versions'.
	{name: "require_auth", use: useParser},
	{name: "sslcertmode", use: useParser},
	{name: "sslnegotiation", use: useParser},
	{name: "load_balance_hosts", use: useUnsupported, harmless: []string{"disable"}},
	// The role and its secrets: user mappings only.
	{name: "user", use: useParser, userMappingOnly: true},
	{name: "password", use: useHere, userMappingOnly: true},
	{name: "sslpassword", use: useHere, userMappingOnly: true},
}

// connOptions indexes libpqOptions by name.
var connOptions = func() map[string]connOption {
	m := make(map[string]connOption, len(libpqOptions))
	for _, o := range libpqOptions {
		m[o.name] = o
	}
	return m
}()

// IsConnOption reports whether name is a libpq connection option, valid
// in a foreign server's or a user mapping's OPTIONS, as opposed to
// postgres_fdw's own options (fetch_size, async_capable, ...), which the
// connection ignores.
func IsConnOption(name string) bool {
	_, ok := connOptions[name]
	return ok
}

// IsUserMappingOnlyOption reports whether the connection option name
// belongs in a user mapping and never in server options, as postgres_fdw
// requires for user, password and sslpassword. The other connection
// options belong in server options; sslcert and sslkey may also be in a
// user mapping, whose values then win.
func IsUserMappingOnlyOption(name string) bool { return connOptions[name].userMappingOnly }

// defaultApplicationName is the remote application_name unless an option
// sets one (postgres_fdw's fallback_application_name).
const defaultApplicationName = "pgfed"

// cleanupTimeout bounds the wait for a cancelled command and for the
// abort of a remote transaction, as postgres_fdw's
// CONNECTION_CLEANUP_TIMEOUT; a connection that does not answer by then
// is closed.
const cleanupTimeout = 30 * time.Second

// connConfig builds the pgx configuration for spec: server options first,
// then the user mapping's, which win where both set one (sslcert, sslkey),
// as in postgres_fdw. Secrets never enter the conninfo string, so that no
// parse error can show them. Errors describe a bad option value; they are
// reported as the connection failure's DETAIL.
func connConfig(spec ConnSpec) (*pgconn.Config, error) {
	opts := map[string]string{}
	for _, src := range []map[string]string{spec.Options, spec.User} {
		for k, v := range src {
			if IsConnOption(k) {
				opts[k] = v
			}
		}
	}
	if _, ok := opts["application_name"]; !ok {
		opts["application_name"] = defaultApplicationName
	}
	addrOf, err := splitHostaddr(opts)
	if err != nil {
		return nil, err
	}

	names := make([]string, 0, len(opts))
	for k := range opts {
		names = append(names, k)
	}
	sort.Strings(names)
	var conninfo strings.Builder
	for _, k := range names {
		v := opts[k]
		switch opt := connOptions[k]; opt.use {
		case useParser:
			appendConninfo(&conninfo, k, v)
		case useUnsupported:
			if !slices.Contains(opt.harmless, v) {
				return nil, fmt.Errorf("connection option \"%s\" is not supported", k)
			}
		}
	}
	// Remote text is decoded as UTF-8 whatever the remote database's
	// encoding; postgres_fdw likewise asks for the local encoding.
	appendConninfo(&conninfo, "client_encoding", "UTF8")

	var parseOpts pgconn.ParseConfigOptions
	if pw, ok := opts["sslpassword"]; ok {
		parseOpts.GetSSLPassword = func(context.Context) string { return pw }
	}
	cfg, err := pgconn.ParseConfigWithOptions(conninfo.String(), parseOpts)
	if err != nil {
		return nil, err
	}
	if pw, ok := opts["password"]; ok {
		cfg.Password = pw
	}
	if addrOf != nil {
		resolve := cfg.LookupFunc
		cfg.LookupFunc = func(ctx context.Context, host string) ([]string, error) {
			if addr, ok := addrOf[host]; ok {
				return []string{addr}, nil
			}
			return resolve(ctx, host)
		}
	}
	if err := applyKeepalives(cfg, opts); err != nil {
		return nil, err
	}
	if err := applyTLSVersions(cfg, opts); err != nil {
		return nil, err
	}
	// A cancelled context sends the server a cancel request and waits for
	// the command to end, so the connection survives; only a server that
	// does not answer within cleanupTimeout gets its socket closed.
	cfg.BuildContextWatcherHandler = func(pg *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pg, DeadlineDelay: cleanupTimeout}
	}
	return cfg, nil
}

// appendConninfo appends key='value' to a conninfo string, with libpq's
// quoting.
func appendConninfo(b *strings.Builder, key, value string) {
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(key)
	b.WriteString("='")
	for i := 0; i < len(value); i++ {
		if value[i] == '\'' || value[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(value[i])
	}
	b.WriteByte('\'')
}

// splitHostaddr implements libpq's hostaddr, the numeric address to
// connect to without name resolution. pgx has no such option, so: without
// host, the addresses become the hosts (libpq then names the server by
// its address too); with host, which still names the server for TLS
// verification and the password file, it returns the address of each host
// name (both lists are comma-separated and paired by position) for a
// lookup function to answer with.
func splitHostaddr(opts map[string]string) (map[string]string, error) {
	hostaddr := opts["hostaddr"]
	delete(opts, "hostaddr")
	if hostaddr == "" {
		return nil, nil
	}
	addrs := strings.Split(hostaddr, ",")
	for i, a := range addrs {
		addrs[i] = strings.TrimSpace(a)
		if net.ParseIP(addrs[i]) == nil {
			return nil, fmt.Errorf("could not parse network address \"%s\"", a)
		}
	}
	if opts["host"] == "" {
		opts["host"] = strings.Join(addrs, ",")
		return nil, nil
	}
	hosts := strings.Split(opts["host"], ",")
	if len(hosts) != len(addrs) {
		return nil, fmt.Errorf("could not match %d host names to %d hostaddr values", len(hosts), len(addrs))
	}
	addrOf := make(map[string]string, len(hosts))
	for i, h := range hosts {
		addrOf[strings.TrimSpace(h)] = addrs[i]
	}
	return addrOf, nil
}

// applyKeepalives implements libpq's TCP keepalive options (seconds; an
// option left out keeps the operating system's default). Without any of
// them pgx's own dialer stays, which also enables keepalives.
func applyKeepalives(cfg *pgconn.Config, opts map[string]string) error {
	ka := net.KeepAliveConfig{Enable: true, Idle: -1, Interval: -1, Count: -1}
	given := false
	for _, o := range []struct {
		name string
		set  func(int)
	}{
		{"keepalives", func(n int) { ka.Enable = n != 0 }},
		{"keepalives_idle", func(n int) { ka.Idle = time.Duration(n) * time.Second }},
		{"keepalives_interval", func(n int) { ka.Interval = time.Duration(n) * time.Second }},
		{"keepalives_count", func(n int) { ka.Count = n }},
	} {
		v, ok := opts[o.name]
		if !ok || v == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return fmt.Errorf("invalid integer value \"%s\" for connection option \"%s\"", v, o.name)
		}
		// libpq treats 0 as "use the system default"
		if n > 0 || o.name == "keepalives" {
			o.set(n)
		}
		given = true
	}
	if !given {
		return nil
	}
	dialer := &net.Dialer{Timeout: cfg.ConnectTimeout, KeepAliveConfig: ka}
	if !ka.Enable {
		dialer.KeepAlive = -1
	}
	cfg.DialFunc = dialer.DialContext
	return nil
}

// applyTLSVersions implements ssl_min_protocol_version and
// ssl_max_protocol_version on every TLS configuration pgx derived from
// sslmode (the fallbacks of sslmode=prefer included).
func applyTLSVersions(cfg *pgconn.Config, opts map[string]string) error {
	var minVersion, maxVersion uint16
	for _, o := range []struct {
		name string
		dst  *uint16
	}{{"ssl_min_protocol_version", &minVersion}, {"ssl_max_protocol_version", &maxVersion}} {
		v := opts[o.name]
		if v == "" {
			continue
		}
		version, ok := tlsVersions[v]
		if !ok {
			return fmt.Errorf("invalid %s value: \"%s\"", o.name, v)
		}
		*o.dst = version
	}
	if minVersion == 0 && maxVersion == 0 {
		return nil
	}
	if minVersion != 0 && maxVersion != 0 && minVersion > maxVersion {
		return fmt.Errorf("invalid SSL protocol version range")
	}
	apply := func(t *tls.Config) {
		if t == nil {
			return
		}
		if minVersion != 0 {
			t.MinVersion = minVersion
		}
		if maxVersion != 0 {
			t.MaxVersion = maxVersion
		}
	}
	apply(cfg.TLSConfig)
	for _, fb := range cfg.Fallbacks {
		apply(fb.TLSConfig)
	}
	return nil
}

// tlsVersions are libpq's spellings of the TLS protocol versions.
var tlsVersions = map[string]uint16{
	"TLSv1":   tls.VersionTLS10,
	"TLSv1.1": tls.VersionTLS11,
	"TLSv1.2": tls.VersionTLS12,
	"TLSv1.3": tls.VersionTLS13,
}
