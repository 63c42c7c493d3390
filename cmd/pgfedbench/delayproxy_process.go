package main

// The async suite's delay proxies run in a child process (pgfedbench
// started again with childProxyArg), not in the process under test: an
// in-process proxy's goroutines and timers share pgfed's Go scheduler
// (GOMAXPROCS), so pgfed's own goroutines delayed its packets, and its
// packets pgfed, which PostgreSQL's coordinator, a process of its own,
// did not suffer. The child speaks a line protocol on its stdin/stdout:
//
//	child:  addr HOST:PORT          once started
//	parent: delay NANOSECONDS       child: ok
//	parent: bytes                   child: TO_CLIENT TO_SERVER
//	parent closes stdin             child: closes the proxy and exits

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// childProxyArg, as the first argument, makes pgfedbench a delay proxy.
const childProxyArg = "-delay-proxy-child"

// latencyProxy is a delay proxy, in process or in a child process.
type latencyProxy interface {
	Addr() string
	Port() int
	SetDelay(time.Duration)
	BytesToClient() int64
	Close() error
}

var (
	_ latencyProxy = (*delayProxy)(nil)
	_ latencyProxy = (*processProxy)(nil)
)

// runChildProxy is the child's main: a proxy to target, driven by stdin.
func runChildProxy(target string, in io.Reader, out io.Writer) int {
	p, err := startDelayProxy(target, 0)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pgfedbench delay proxy: %v\n", err)
		return 1
	}
	defer p.Close()
	fmt.Fprintf(out, "addr %s\n", p.Addr())
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		cmd, arg, _ := strings.Cut(sc.Text(), " ")
		switch cmd {
		case "delay":
			ns, err := strconv.ParseInt(arg, 10, 64)
			if err != nil {
				fmt.Fprintf(out, "error %v\n", err)
				continue
			}
			p.SetDelay(time.Duration(ns))
			fmt.Fprintln(out, "ok")
		case "bytes":
			fmt.Fprintf(out, "%d %d\n", p.BytesToClient(), p.BytesToServer())
		default:
			fmt.Fprintf(out, "error unknown command %q\n", cmd)
		}
	}
	return 0
}

// processProxy is a delay proxy running in a child process.
type processProxy struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	addr string
	port int

	mu sync.Mutex // one request at a time
}

// startProcessProxy starts a child pgfedbench proxying to target.
func startProcessProxy(target string) (*processProxy, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, childProxyArg, target)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &processProxy{cmd: cmd, in: in, out: bufio.NewReader(outPipe)}
	line, err := p.out.ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "addr ")
	if err != nil || !ok {
		p.Close()
		return nil, fmt.Errorf("delay proxy process: no address (%q, %v)", line, err)
	}
	_, portText, err := net.SplitHostPort(addr)
	if err != nil {
		p.Close()
		return nil, err
	}
	p.addr = addr
	p.port, _ = strconv.Atoi(portText)
	return p, nil
}

func (p *processProxy) request(line string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := fmt.Fprintln(p.in, line); err != nil {
		return "", err
	}
	reply, err := p.out.ReadString('\n')
	reply = strings.TrimSpace(reply)
	if err == nil && strings.HasPrefix(reply, "error") {
		err = fmt.Errorf("delay proxy process: %s", reply)
	}
	return reply, err
}

func (p *processProxy) Addr() string { return p.addr }
func (p *processProxy) Port() int    { return p.port }

// SetDelay sets the one-way latency; a failing child process shows up as
// errors of the queries through it.
func (p *processProxy) SetDelay(d time.Duration) {
	if _, err := p.request("delay " + strconv.FormatInt(int64(d), 10)); err != nil {
		fmt.Fprintf(os.Stderr, "pgfedbench: %v\n", err)
	}
}

// BytesToClient is the number of bytes sent from the server to clients.
func (p *processProxy) BytesToClient() int64 {
	reply, err := p.request("bytes")
	if err != nil {
		fmt.Fprintf(os.Stderr, "pgfedbench: %v\n", err)
		return 0
	}
	toClient, _, _ := strings.Cut(reply, " ")
	n, _ := strconv.ParseInt(toClient, 10, 64)
	return n
}

// Close ends the child process (closing its stdin) and waits for it.
func (p *processProxy) Close() error {
	_ = p.in.Close()
	return p.cmd.Wait()
}
