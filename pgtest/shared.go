package pgtest

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// TestingM is the part of *testing.M that RunMain and WrapMain use; it is
// also what goleak.VerifyTestMain accepts.
type TestingM interface {
	Run() int
}

// RunMain runs the tests, stops every cluster this package started (also
// when tests failed or panicked in a way the testing package recovers from),
// and exits with the tests' status. Call it from TestMain:
//
//	func TestMain(m *testing.M) { pgtest.RunMain(m) }
func RunMain(m *testing.M) {
	os.Exit(WrapMain(m).Run())
}

// WrapMain returns m with a Run that stops every cluster after the tests,
// for TestMains that hand m to something else, such as goleak:
//
//	func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.WrapMain(m)) }
func WrapMain(m TestingM) TestingM {
	return stoppingMain{m}
}

type stoppingMain struct{ tests TestingM }

func (m stoppingMain) Run() int {
	mainWrapped.Store(true)
	defer StopAll()
	return m.tests.Run()
}

// mainWrapped records that the tests run under RunMain/WrapMain, so Shared
// can warn when the shared cluster would be left behind.
var mainWrapped atomic.Bool

// StopAll stops every cluster started by this package that is still running.
func StopAll() {
	for _, c := range registeredClusters() {
		_ = c.Stop()
	}
}

// sharedCluster is the one cluster Shared hands out per test binary.
var sharedCluster struct {
	once    sync.Once
	cluster *Cluster
	err     error
	warning sync.Once
}

// Shared returns the test binary's shared cluster, starting it on first use.
// It allows prepared transactions (two-phase commit tests).
// Tests share it, so each should work in its own database (CreateDatabase)
// and must not Stop it; RunMain stops it after all tests.
//
// If the PostgreSQL binaries are missing, the test is skipped, unless the
// CI environment variable is non-empty: then it fails, so that CI cannot
// pass by silently skipping everything.
func Shared(tb testing.TB) *Cluster {
	tb.Helper()
	sharedCluster.once.Do(func() {
		sharedCluster.cluster, sharedCluster.err = Start(context.Background(), Options{MaxPreparedTransactions: 20})
	})
	if err := sharedCluster.err; err != nil {
		if errors.Is(err, ErrNotInstalled) && os.Getenv("CI") == "" {
			tb.Skipf("skipping: %v (set CI=1 to make this a failure)", err)
		}
		tb.Fatalf("pgtest.Shared: %v", err)
	}
	if !mainWrapped.Load() {
		sharedCluster.warning.Do(func() {
			tb.Logf("pgtest: TestMain does not call pgtest.RunMain(m), so the shared cluster's files in %s will be left behind",
				sharedCluster.cluster.rootDir)
		})
	}
	return sharedCluster.cluster
}

// registry tracks the clusters that are running, so that StopAll and the
// signal handler can stop them. The signal handler is installed only while
// at least one cluster is registered, which keeps goroutine-leak checks
// after StopAll clean.
var registry struct {
	sync.Mutex
	clusters map[*Cluster]struct{}
	watcher  *signalWatcher
}

func register(c *Cluster) {
	registry.Lock()
	defer registry.Unlock()
	if registry.clusters == nil {
		registry.clusters = make(map[*Cluster]struct{})
	}
	registry.clusters[c] = struct{}{}
	if registry.watcher == nil {
		registry.watcher = watchSignals()
	}
}

func unregister(c *Cluster) {
	registry.Lock()
	delete(registry.clusters, c)
	var idleWatcher *signalWatcher
	if len(registry.clusters) == 0 {
		idleWatcher, registry.watcher = registry.watcher, nil
	}
	registry.Unlock()
	if idleWatcher != nil {
		idleWatcher.stop()
	}
}

func registeredClusters() []*Cluster {
	registry.Lock()
	defer registry.Unlock()
	clusters := make([]*Cluster, 0, len(registry.clusters))
	for c := range registry.clusters {
		clusters = append(clusters, c)
	}
	return clusters
}

// signalWatcher stops all clusters when the test binary gets SIGINT or
// SIGTERM (Ctrl-C, go test's own timeout handling, CI cancellation), then
// lets the signal take its usual effect.
type signalWatcher struct {
	signals chan os.Signal
	quit    chan struct{}
	exited  chan struct{}
}

func watchSignals() *signalWatcher {
	w := &signalWatcher{
		signals: make(chan os.Signal, 1),
		quit:    make(chan struct{}),
		exited:  make(chan struct{}),
	}
	for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGTERM} {
		// A signal ignored at startup (nohup, background jobs) stays ignored.
		if !signal.Ignored(sig) {
			signal.Notify(w.signals, sig)
		}
	}
	go w.loop()
	return w
}

func (w *signalWatcher) loop() {
	defer close(w.exited)
	select {
	case <-w.quit:
		return
	case sig := <-w.signals:
		// Detach first, so that the Stop calls below do not try to stop
		// this watcher and wait for itself.
		registry.Lock()
		if registry.watcher == w {
			registry.watcher = nil
		}
		registry.Unlock()
		StopAll()
		signal.Stop(w.signals)
		// With our handler gone the signal has its default effect again:
		// re-raising it ends the process as it would have without us.
		if unixSignal, ok := sig.(syscall.Signal); ok {
			_ = syscall.Kill(os.Getpid(), unixSignal)
		}
	}
}

// stop ends the watcher; it must not be called from the watcher itself.
func (w *signalWatcher) stop() {
	signal.Stop(w.signals)
	close(w.quit)
	<-w.exited
}
