package main

import (
	"os"
	"slices"
	"testing"
)

// TestMain lets the test binary be the proxy's child process, as
// pgfedbench is when the async suite starts its proxies.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == childProxyArg {
		os.Exit(runChildProxy(os.Args[2], os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// TestProcessProxy: a proxy in a child process forwards, delays by at
// least what it is told, counts bytes, and ends when closed.
func TestProcessProxy(t *testing.T) {
	srv := startTestServer(t, echo)
	p, err := startProcessProxy(srv.addr())
	if err != nil {
		t.Fatal(err)
	}
	p.SetDelay(testDelay)
	c := dial(t, p.Addr())
	rtts := roundTrips(t, c, 5)
	if best, lo := slices.Min(rtts), 2*testDelay; best < lo {
		t.Errorf("best round trip %v, want at least %v", best, lo)
	}
	if got, want := settled(p.BytesToClient), int64(5*len("ping")); got != want {
		t.Errorf("BytesToClient = %d, want %d", got, want)
	}
	if _, err := p.request("nonsense"); err == nil {
		t.Error("an unknown command is not an error")
	}
	c.Close()
	if err := p.Close(); err != nil {
		t.Errorf("child exit: %v", err)
	}
}
