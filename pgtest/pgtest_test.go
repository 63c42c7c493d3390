package pgtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(signalChildEnv) != "" {
		runSignalChild()
		return
	}
	goleak.VerifyTestMain(WrapMain(m))
}

// startOrSkip starts a private cluster, skipping like Shared does when the
// binaries are missing.
func startOrSkip(t *testing.T, opts Options) *Cluster {
	t.Helper()
	c, err := Start(context.Background(), opts)
	if errors.Is(err, ErrNotInstalled) && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestStartQueryStop(t *testing.T) {
	c := startOrSkip(t, Options{})
	ctx := context.Background()

	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, name := range []string{"TimeZone", "fsync", "synchronous_commit", "full_page_writes",
		"max_connections", "server_encoding", "lc_collate", "lc_messages", "listen_addresses"} {
		var value string
		if err := conn.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&value); err != nil {
			t.Fatal(err)
		}
		settings[name] = value
	}
	want := map[string]string{
		"TimeZone": "UTC", "fsync": "off", "synchronous_commit": "off", "full_page_writes": "off",
		"max_connections": "100", "server_encoding": "UTF8", "lc_collate": "C", "lc_messages": "C",
		"listen_addresses": "127.0.0.1",
	}
	for name, value := range want {
		if settings[name] != value {
			t.Errorf("%s = %q, want %q", name, settings[name], value)
		}
	}
	var sum int
	if err := conn.QueryRow(ctx, "SELECT sum(g)::int FROM generate_series(1, 10) g").Scan(&sum); err != nil || sum != 55 {
		t.Errorf("sum = %d, %v; want 55", sum, err)
	}

	// Keep the connection open across Stop: an immediate shutdown must take
	// the backend serving it down too.
	processes := clusterProcesses(t, c)
	if len(processes) < 2 {
		t.Errorf("expected a postmaster and backends, found processes %v", processes)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	_ = conn.Close(ctx)
	for _, pid := range processes {
		if processAlive(pid) {
			t.Errorf("process %d of the cluster still runs after Stop", pid)
		}
	}
	if _, err := os.Stat(c.rootDir); !os.IsNotExist(err) {
		t.Errorf("cluster directory %s still exists after Stop (stat: %v)", c.rootDir, err)
	}
	if err := c.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	for _, registered := range registeredClusters() {
		if registered == c {
			t.Errorf("stopped cluster is still registered")
		}
	}
}

func TestStartNWithOptions(t *testing.T) {
	if _, err := findBinDir(""); err != nil && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	opts := Options{
		Settings:                map[string]string{"work_mem": "8MB", "max_connections": "20"},
		MaxPreparedTransactions: 5,
	}
	clusters, err := StartN(context.Background(), 2, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, c := range clusters {
			if err := c.Stop(); err != nil {
				t.Error(err)
			}
		}
	}()
	if clusters[0].Port() == clusters[1].Port() {
		t.Fatalf("both clusters use port %d", clusters[0].Port())
	}
	ctx := context.Background()
	for _, c := range clusters {
		conn, err := pgx.Connect(ctx, c.DSN("postgres"))
		if err != nil {
			t.Fatal(err)
		}
		var workMem, maxConnections, maxPrepared string
		err = conn.QueryRow(ctx, "SELECT current_setting('work_mem'), current_setting('max_connections'), current_setting('max_prepared_transactions')").
			Scan(&workMem, &maxConnections, &maxPrepared)
		_ = conn.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if workMem != "8MB" || maxConnections != "20" || maxPrepared != "5" {
			t.Errorf("port %d: work_mem=%s max_connections=%s max_prepared_transactions=%s; want 8MB, 20 (option overrides default), 5",
				c.Port(), workMem, maxConnections, maxPrepared)
		}
	}
}

func TestSharedAndCreateDatabase(t *testing.T) {
	c := Shared(t)
	if again := Shared(t); again != c {
		t.Fatal("Shared returned a different cluster on the second call")
	}
	ctx := context.Background()
	// Mixed case and a dash need quoting; the counter keeps -count=N runs,
	// which share the cluster, from colliding.
	databaseCounter++
	name := fmt.Sprintf("Mixed Case-db %d", databaseCounter)
	if err := c.CreateDatabase(ctx, name); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, c.DSN(name))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var current string
	if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&current); err != nil {
		t.Fatal(err)
	}
	if current != name {
		t.Errorf("current_database() = %q, want %q", current, name)
	}
}

var databaseCounter int

func TestMissingBinaries(t *testing.T) {
	registeredBefore := len(registeredClusters())
	_, err := Start(context.Background(), Options{BinDir: t.TempDir()})
	if !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("Start with an empty BinDir: got %v, want ErrNotInstalled", err)
	}
	if registeredAfter := len(registeredClusters()); registeredAfter != registeredBefore {
		t.Errorf("a failed Start changed the registered clusters from %d to %d", registeredBefore, registeredAfter)
	}
}

func TestServerSettingsOrder(t *testing.T) {
	settings := serverSettings(5555, "/s", Options{
		Settings:                map[string]string{"b": "2", "a": "1", "fsync": "on"},
		MaxPreparedTransactions: 3,
	})
	got := strings.Join(settings, " ")
	for _, want := range []string{"port=5555", "TimeZone=UTC", "max_prepared_transactions=3 a=1 b=2 fsync=on"} {
		if !strings.Contains(got, want) {
			t.Errorf("settings %q lack %q", got, want)
		}
	}
	if strings.Index(got, "fsync=off") > strings.Index(got, "fsync=on") {
		t.Errorf("option settings must come after the defaults to override them: %q", got)
	}
}

// signalChildEnv makes the test binary, re-executed by TestSignalStopsClusters,
// start a cluster, report it and wait to be signalled.
const signalChildEnv = "PGTEST_SIGNAL_CHILD"

func runSignalChild() {
	c, err := Start(context.Background(), Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("started", c.server.Process.Pid, c.rootDir)
	time.Sleep(time.Minute)
	os.Exit(3) // not reached when the signal handler works
}

func TestSignalStopsClusters(t *testing.T) {
	if _, err := findBinDir(""); err != nil && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			child := exec.Command(os.Args[0], "-test.run=^$")
			child.Env = append(os.Environ(), signalChildEnv+"=1")
			stdout, err := child.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			child.Stderr = os.Stderr
			if err := child.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil {
				_ = child.Process.Kill()
				_ = child.Wait()
				t.Fatalf("child: %q %v", line, err)
			}
			var pid int
			var rootDir string
			if _, err := fmt.Sscanf(line, "started %d %s", &pid, &rootDir); err != nil {
				_ = child.Process.Kill()
				_ = child.Wait()
				t.Fatalf("child said %q: %v", line, err)
			}
			if err := child.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err = child.Wait()
			var exitErr *exec.ExitError
			if !errors.As(err, &exitErr) {
				t.Fatalf("child exited with %v, want death by %v", err, sig)
			}
			status := exitErr.Sys().(syscall.WaitStatus)
			if !status.Signaled() || status.Signal() != sig {
				t.Errorf("child ended with %v, want death by %v (the signal re-raised)", status, sig)
			}
			if processAlive(pid) {
				t.Errorf("postmaster %d still runs after the test binary got %v", pid, sig)
				_ = syscall.Kill(-pid, syscall.SIGKILL)
			}
			if _, err := os.Stat(rootDir); !os.IsNotExist(err) {
				t.Errorf("cluster directory %s still exists after %v", rootDir, err)
				_ = os.RemoveAll(rootDir)
			}
		})
	}
}

// clusterProcesses returns the postmaster's pid and those of its children.
func clusterProcesses(t *testing.T, c *Cluster) []int {
	t.Helper()
	postmaster := c.server.Process.Pid
	pids := []int{postmaster}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc to inspect processes:", err)
	}
	for _, entry := range entries {
		pid, err := strconv.Atoi(entry.Name())
		if err != nil {
			continue
		}
		if parentPID(pid) == postmaster {
			pids = append(pids, pid)
		}
	}
	return pids
}

// parentPID reads the parent pid from /proc/PID/stat, whose second field (the
// command name, in parentheses) may itself contain spaces.
func parentPID(pid int) int {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	afterName := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	fields := strings.Fields(afterName) // state, ppid, ...
	if len(fields) < 2 {
		return -1
	}
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}

// processAlive reports whether pid exists and is not a zombie waiting to be
// reaped by a parent that is not us.
func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// TestFindsPostgres15: without an explicit BinDir, only PostgreSQL 15's
// binaries are used (the corpus is recorded from 15).
func TestFindsPostgres15(t *testing.T) {
	dir, err := findBinDir("")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	if v, err := serverMajorVersion(dir); err != nil || v != MajorVersion {
		t.Errorf("%s: PostgreSQL %d (%v), want %d", dir, v, err, MajorVersion)
	}
}
