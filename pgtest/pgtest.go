// Package pgtest starts throwaway PostgreSQL clusters for tests.
//
// A cluster is a fresh initdb'ed data directory served by a postgres process
// on a free port of 127.0.0.1, tuned for speed over durability (fsync off),
// with the C locale, UTF8 encoding and TimeZone UTC so that output is the
// same on every machine. Tests that only need "a PostgreSQL" should use
// Shared and call RunMain from TestMain:
//
//	func TestMain(m *testing.M) { pgtest.RunMain(m) }
//
//	func TestSomething(t *testing.T) {
//		cluster := pgtest.Shared(t)
//		conn, err := pgx.Connect(ctx, cluster.DSN("postgres"))
//		...
//	}
//
// When the tests run as root, the server runs as the "postgres" OS user,
// because PostgreSQL refuses to run as root.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/sync/errgroup"
)

// Options adjusts a cluster. The zero value gives the defaults described in
// the package comment.
type Options struct {
	// Settings are extra server settings, passed as -c name=value after the
	// defaults, so they can also override them (e.g. "max_connections").
	Settings map[string]string
	// MaxPreparedTransactions sets max_prepared_transactions; 0 keeps
	// PostgreSQL's default, which disables PREPARE TRANSACTION.
	MaxPreparedTransactions int
	// BinDir is the directory holding initdb, pg_ctl and postgres, of any
	// version; empty means PostgreSQL 15's (MajorVersion):
	// /usr/lib/postgresql/15/bin, else pg_config --bindir if it is 15's.
	BinDir string
}

// Cluster is a running throwaway PostgreSQL server. Its superuser is
// "postgres", authenticated without password (trust).
type Cluster struct {
	binDir    string
	rootDir   string // holds dataDir, socketDir and the server log; removed by Stop
	dataDir   string
	socketDir string
	logPath   string
	port      int
	runAs     *syscall.Credential // nil: run as the current user

	// lifecycle is held while the cluster starts and while it stops, so a
	// Stop from the signal handler cannot see a half-written Cluster;
	// cancelStart makes such a Stop abort a start in progress instead of
	// waiting for it.
	lifecycle   sync.Mutex
	cancelStart context.CancelFunc

	server     *exec.Cmd
	serverDone chan struct{} // closed once the postmaster has exited and been reaped
	logFile    *os.File

	stopOnce sync.Once
	stopErr  error
}

// superuser is the role initdb creates and DSN connects as.
const superuser = "postgres"

// defaultStartTimeout bounds initdb plus startup when ctx has no deadline.
const defaultStartTimeout = 2 * time.Minute

// portAttempts is how often Start retries after losing the race for a free
// port to another process between choosing it and the server binding it.
const portAttempts = 5

// Start creates and starts a new cluster. The caller must Stop it; Start
// also registers it so that RunMain and SIGINT/SIGTERM stop it. The error
// wraps ErrNotInstalled when no server binaries are found.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if _, hasDeadline := ctx.Deadline(); !hasDeadline {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultStartTimeout)
		defer cancel()
	}
	binDir, err := findBinDir(opts.BinDir)
	if err != nil {
		return nil, err
	}
	runAs, err := serverCredential()
	if err != nil {
		return nil, err
	}
	rootDir, err := os.MkdirTemp(clusterTempDir(runAs != nil), "pgtest-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	startCtx, cancelStart := context.WithCancel(ctx)
	defer cancelStart()
	c := &Cluster{
		binDir:      binDir,
		rootDir:     rootDir,
		dataDir:     filepath.Join(rootDir, "data"),
		socketDir:   filepath.Join(rootDir, "sock"),
		logPath:     filepath.Join(rootDir, "server.log"),
		runAs:       runAs,
		cancelStart: cancelStart,
	}
	// Registering before anything runs lets a signal arriving during
	// startup clean up the directory too.
	register(c)
	c.lifecycle.Lock()
	err = c.initAndStart(startCtx, opts)
	c.lifecycle.Unlock()
	if err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

// StartN starts n clusters concurrently. If any fails, the ones that started
// are stopped and the first error is returned.
func StartN(ctx context.Context, n int, opts Options) ([]*Cluster, error) {
	clusters := make([]*Cluster, n)
	group, groupCtx := errgroup.WithContext(ctx)
	for i := range clusters {
		group.Go(func() error {
			c, err := Start(groupCtx, opts)
			clusters[i] = c
			return err
		})
	}
	if err := group.Wait(); err != nil {
		for _, c := range clusters {
			if c != nil {
				_ = c.Stop()
			}
		}
		return nil, err
	}
	return clusters, nil
}

// DSN returns a pgx connection URL for database dbname as the superuser.
func (c *Cluster) DSN(dbname string) string {
	dsn := url.URL{
		Scheme:   "postgres",
		User:     url.User(superuser),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)),
		Path:     "/" + dbname,
		RawQuery: "sslmode=disable",
	}
	return dsn.String()
}

// Port returns the TCP port the server listens on (on 127.0.0.1).
func (c *Cluster) Port() int { return c.port }

// SocketDir returns the directory of the server's unix socket, for clients
// such as psql (-h DIR).
func (c *Cluster) SocketDir() string { return c.socketDir }

// DataDir returns the cluster's data directory.
func (c *Cluster) DataDir() string { return c.dataDir }

// LogPath returns the server log file; it is removed by Stop.
func (c *Cluster) LogPath() string { return c.logPath }

// BinDir returns the directory of the PostgreSQL binaries in use.
func (c *Cluster) BinDir() string { return c.binDir }

// CreateDatabase creates database name (quoted as an identifier, so any
// spelling is kept as is).
func (c *Cluster) CreateDatabase(ctx context.Context, name string) error {
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return fmt.Errorf("pgtest: create database %q: %w", name, err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("pgtest: create database %q: %w", name, err)
	}
	return nil
}

// Stop shuts the server down at once (pg_ctl stop -m immediate: no
// checkpoint, nothing is worth keeping) and removes all its files. It is
// idempotent and safe to call concurrently; later calls return the first
// call's result.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		c.cancelStart()
		c.lifecycle.Lock()
		c.stopErr = c.shutDownAndRemove()
		c.lifecycle.Unlock()
		unregister(c)
	})
	return c.stopErr
}

func (c *Cluster) shutDownAndRemove() error {
	var errs []error
	if c.server != nil && !c.serverExited() {
		if err := c.stopServer(); err != nil {
			errs = append(errs, err)
		}
	}
	if c.logFile != nil {
		_ = c.logFile.Close()
	}
	if err := os.RemoveAll(c.rootDir); err != nil {
		errs = append(errs, fmt.Errorf("pgtest: remove %s: %w", c.rootDir, err))
	}
	return errors.Join(errs...)
}

// stopServer asks pg_ctl for an immediate shutdown and waits for the
// postmaster to exit; the postmaster itself waits for its backends. If that
// does not work out, the whole process group is killed.
func (c *Cluster) stopServer() error {
	const (
		pgCtlTimeout = 30 * time.Second
		exitTimeout  = 10 * time.Second
	)
	ctx, cancel := context.WithTimeout(context.Background(), pgCtlTimeout)
	defer cancel()
	pgCtl := c.command(ctx, "pg_ctl", "stop", "-D", c.dataDir, "-m", "immediate", "-w",
		"-t", strconv.Itoa(int(pgCtlTimeout/time.Second)))
	pgCtlOutput, pgCtlErr := pgCtl.CombinedOutput()

	select {
	case <-c.serverDone:
		return nil
	case <-time.After(exitTimeout):
	}
	// The server was started with Setpgid, so its process group holds the
	// postmaster and all its backends and nothing else.
	_ = syscall.Kill(-c.server.Process.Pid, syscall.SIGKILL)
	select {
	case <-c.serverDone:
	case <-time.After(exitTimeout):
		return fmt.Errorf("pgtest: postgres (pid %d) did not exit after SIGKILL", c.server.Process.Pid)
	}
	if pgCtlErr != nil {
		return fmt.Errorf("pgtest: pg_ctl stop: %w: %s (server killed instead)", pgCtlErr, bytesTrim(pgCtlOutput))
	}
	return fmt.Errorf("pgtest: postgres did not exit after pg_ctl stop (server killed instead)")
}

func (c *Cluster) serverExited() bool {
	select {
	case <-c.serverDone:
		return true
	default:
		return false
	}
}

func (c *Cluster) initAndStart(ctx context.Context, opts Options) error {
	if err := os.Mkdir(c.socketDir, 0o700); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if c.runAs != nil {
		// The data directory is created by initdb, running as the server
		// user, inside rootDir; the socket directory must belong to that
		// user too or the server cannot create its socket in it.
		for _, dir := range []string{c.rootDir, c.socketDir} {
			if err := os.Chown(dir, int(c.runAs.Uid), int(c.runAs.Gid)); err != nil {
				return fmt.Errorf("pgtest: %w", err)
			}
		}
	}
	initdb := c.command(ctx, "initdb", "-D", c.dataDir, "-A", "trust", "-U", superuser,
		"--locale=C", "-E", "UTF8",
		"--no-sync") // a throwaway cluster need not survive a power cut
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("pgtest: initdb: %w\n%s", err, bytesTrim(out))
	}
	logFile, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	c.logFile = logFile

	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return err
		}
		c.port = port
		err = c.startServer(ctx, opts)
		if err == nil {
			return nil
		}
		if !errors.Is(err, errPortTaken) || attempt == portAttempts {
			return err
		}
	}
}

// errPortTaken marks a start that failed because someone else bound the
// chosen port first.
var errPortTaken = errors.New("port already in use")

// startServer runs postgres directly rather than through pg_ctl start, so
// that it stays our child: we can reap it, kill its process group, and have
// the kernel stop it if the test binary dies.
func (c *Cluster) startServer(ctx context.Context, opts Options) error {
	args := []string{"-D", c.dataDir}
	for _, setting := range serverSettings(c.port, c.socketDir, opts) {
		args = append(args, "-c", setting)
	}
	logStart, _ := c.logFile.Seek(0, io.SeekCurrent)
	server := c.command(context.Background(), "postgres", args...)
	server.Stdout = c.logFile
	server.Stderr = c.logFile
	// Own process group: a Ctrl-C in the terminal reaches only the test
	// binary, whose signal handler stops the cluster and removes its files.
	server.SysProcAttr.Setpgid = true
	// SIGQUIT is PostgreSQL's immediate shutdown. The kernel sends it when
	// the thread that started the server exits, which for a Go program in
	// practice means when the test binary exits, even after a panic,
	// timeout or SIGKILL.
	server.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	if err := server.Start(); err != nil {
		return fmt.Errorf("pgtest: start postgres: %w", err)
	}
	done := make(chan struct{})
	go func() {
		_ = server.Wait()
		close(done)
	}()
	c.server, c.serverDone = server, done

	if err := c.waitUntilReady(ctx); err != nil {
		if !c.serverExited() {
			_ = syscall.Kill(-server.Process.Pid, syscall.SIGKILL)
			<-done
		}
		log := c.logSince(logStart)
		if strings.Contains(log, "could not bind") || strings.Contains(log, "already in use") {
			return fmt.Errorf("pgtest: port %d: %w", c.port, errPortTaken)
		}
		return fmt.Errorf("pgtest: postgres did not become ready: %w\nserver log:\n%s", err, log)
	}
	return nil
}

// serverSettings lists the -c settings: defaults first, then the options,
// so that options override defaults (the last -c for a name wins).
func serverSettings(port int, socketDir string, opts Options) []string {
	settings := []string{
		"listen_addresses=127.0.0.1",
		"port=" + strconv.Itoa(port),
		"unix_socket_directories=" + socketDir,
		"fsync=off",
		"synchronous_commit=off",
		"full_page_writes=off",
		"max_connections=100",
		"TimeZone=UTC",
		"log_timezone=UTC",
	}
	if opts.MaxPreparedTransactions != 0 {
		settings = append(settings, "max_prepared_transactions="+strconv.Itoa(opts.MaxPreparedTransactions))
	}
	names := make([]string, 0, len(opts.Settings))
	for name := range opts.Settings {
		names = append(names, name)
	}
	sort.Strings(names) // deterministic command lines are easier to debug
	for _, name := range names {
		settings = append(settings, name+"="+opts.Settings[name])
	}
	return settings
}

// waitUntilReady polls until the server accepts a connection, the server
// exits, or ctx ends.
func (c *Cluster) waitUntilReady(ctx context.Context) error {
	const pollInterval = 20 * time.Millisecond
	for {
		attemptCtx, cancel := context.WithTimeout(ctx, time.Second)
		conn, err := pgconn.Connect(attemptCtx, c.DSN("postgres"))
		cancel()
		if err == nil {
			return conn.Close(ctx)
		}
		select {
		case <-c.serverDone:
			return fmt.Errorf("postgres exited: %s", c.server.ProcessState)
		case <-ctx.Done():
			return fmt.Errorf("%w (last connection error: %v)", ctx.Err(), err)
		case <-time.After(pollInterval):
		}
	}
}

// logSince returns the server log written after offset, for error messages.
func (c *Cluster) logSince(offset int64) string {
	data, err := os.ReadFile(c.logPath)
	if err != nil || offset > int64(len(data)) {
		return ""
	}
	return bytesTrim(data[offset:])
}

// command prepares a PostgreSQL binary to run as the server user, with a
// minimal environment: inherited PG* variables (PGDATA, PGPORT, PGOPTIONS...)
// would otherwise change what initdb, pg_ctl and postgres do.
func (c *Cluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(c.binDir, name), args...)
	cmd.Dir = c.rootDir // the server user may not be allowed into the caller's directory
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + c.rootDir,
		"LC_ALL=C",
		"TZ=UTC",
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.runAs}
	return cmd
}

// serverCredential returns the identity to run PostgreSQL binaries with: the
// "postgres" user when running as root, else nil (the current user).
func serverCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	account, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("pgtest: running as root needs a \"postgres\" OS user to run the server as: %w", err)
	}
	uid, uidErr := strconv.ParseUint(account.Uid, 10, 32)
	gid, gidErr := strconv.ParseUint(account.Gid, 10, 32)
	if uidErr != nil || gidErr != nil {
		return nil, fmt.Errorf("pgtest: unexpected uid/gid %q/%q for user postgres", account.Uid, account.Gid)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// freePort asks the kernel for a free TCP port on 127.0.0.1. Another process
// may take it before the server binds it; Start retries in that case.
func freePort() (int, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: find a free port: %w", err)
	}
	defer listener.Close()
	return listener.Addr().(*net.TCPAddr).Port, nil
}

// clusterTempDir returns the directory to create clusters in: the temp
// directory, or /tmp when the temp directory's path is so long that the unix
// socket path (DIR/pgtest-NNN/sock/.s.PGSQL.NNNNN) would exceed the 107
// bytes a socket address holds, or when the server runs as another user
// who could not reach it (e.g. a TMPDIR under /root).
func clusterTempDir(runsAsOtherUser bool) string {
	const maxSocketPath = 107
	const socketSuffix = "/pgtest-0123456789/sock/.s.PGSQL.65535"
	dir := os.TempDir()
	if len(dir)+len(socketSuffix) > maxSocketPath {
		return "/tmp"
	}
	if runsAsOtherUser && !traversableByAll(dir) {
		return "/tmp"
	}
	return dir
}

// traversableByAll reports whether every directory on the path to dir can
// be entered by any user.
func traversableByAll(dir string) bool {
	for path := filepath.Clean(dir); ; path = filepath.Dir(path) {
		info, err := os.Stat(path)
		if err != nil || info.Mode().Perm()&0o001 == 0 {
			return false
		}
		if path == filepath.Dir(path) {
			return true
		}
	}
}

func bytesTrim(b []byte) string { return strings.TrimSpace(string(b)) }

// Statements returns the statements the server logged for the backends
// pids, in order, when log_statement = 'all' was in effect for them: the
// simple protocol's "statement: ..." and the extended protocol's
// "execute <name>: ..." lines, without their prefixes.
func (c *Cluster) Statements(pids ...uint32) ([]string, error) {
	data, err := os.ReadFile(c.LogPath())
	if err != nil {
		return nil, err
	}
	tags := make([]string, len(pids))
	for i, pid := range pids {
		tags[i] = fmt.Sprintf("[%d] LOG:  ", pid)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		for _, tag := range tags {
			_, rest, ok := strings.Cut(line, tag)
			if !ok {
				continue
			}
			if s, ok := strings.CutPrefix(rest, "statement: "); ok {
				out = append(out, s)
			} else if s, ok := strings.CutPrefix(rest, "execute "); ok {
				if _, s, ok := strings.Cut(s, ": "); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out, nil
}
