package main

// DuckDB in the TPC-H suite: bench/duckdb is a Go module of its own (the
// main module does not depend on DuckDB's cgo library), built here with
// go build and run as a child process that loads the same COPY files and
// runs the queries it is sent (see bench/duckdb/main.go for the
// protocol). When it cannot be built or started, the suite runs without
// it and says why.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// DuckDB child requests and replies, as bench/duckdb/main.go has them.
type duckTable struct {
	Name string `json:"name"`
	DDL  string `json:"ddl"`
	File string `json:"file"`
}

type duckRequest struct {
	Op        string      `json:"op"`
	Tables    []duckTable `json:"tables,omitempty"`
	SQL       string      `json:"sql,omitempty"`
	Threads   int         `json:"threads,omitempty"`
	Values    bool        `json:"values,omitempty"`
	TimeoutMS int64       `json:"timeout_ms,omitempty"`
}

type duckColumn struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type duckLoaded struct {
	Table string  `json:"table"`
	Rows  int64   `json:"rows"`
	MS    float64 `json:"ms"`
}

type duckReply struct {
	Error   string       `json:"error,omitempty"`
	Version string       `json:"version,omitempty"`
	Loaded  []duckLoaded `json:"loaded,omitempty"`
	MS      float64      `json:"ms"`
	Rows    int64        `json:"rows"`
	Columns []duckColumn `json:"columns,omitempty"`
	Values  [][]*string  `json:"values,omitempty"`
}

// duckModuleDir is bench/duckdb relative to the repository's root.
const duckModuleDir = "bench/duckdb"

// duckBuildTimeout bounds go build of the child: the first build
// downloads DuckDB's bindings (a prebuilt static library in a Go module).
const duckBuildTimeout = 15 * time.Minute

// findDuckModule looks for bench/duckdb/go.mod in the working directory
// and its parents.
func findDuckModule() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		cand := filepath.Join(dir, duckModuleDir)
		if _, err := os.Stat(filepath.Join(cand, "go.mod")); err == nil {
			return cand, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("%s/go.mod not found in the working directory or its parents (run from the repository, or give -duckdb PATH)", duckModuleDir)
		}
		dir = parent
	}
}

// buildDuckChild builds the child into dir and returns its path.
func buildDuckChild(ctx context.Context, dir string) (string, error) {
	mod, err := findDuckModule()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "pgfedbench-duckdb")
	ctx, cancel := context.WithTimeout(ctx, duckBuildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build in %s failed: %v: %s", mod, err, lastLines(out.String(), 8))
	}
	return bin, nil
}

// lastLines returns the last n lines of s, joined by " | ".
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// duckChild is a running bench/duckdb process.
type duckChild struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *lockedBuffer
	mu     sync.Mutex
	dead   error // set once the child failed; every later call returns it
}

// lockedBuffer collects the child's stderr for error messages.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 64<<10 {
		l.b.Reset()
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startDuckChild(bin string) (*duckChild, error) {
	c := &duckChild{cmd: exec.Command(bin), stderr: &lockedBuffer{}}
	c.cmd.Stderr = c.stderr
	in, err := c.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	c.in, c.out = in, bufio.NewReaderSize(out, 1<<20)
	return c, nil
}

// call sends one request and reads its reply. The child answers every
// request (a query's own timeout_ms bounds it); ctx's end kills it.
func (c *duckChild) call(ctx context.Context, req duckRequest) (duckReply, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var rep duckReply
	if c.dead != nil {
		return rep, c.dead
	}
	line, err := json.Marshal(req)
	if err != nil {
		return rep, err
	}
	type result struct {
		line []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		if _, err := c.in.Write(append(line, '\n')); err != nil {
			done <- result{nil, err}
			return
		}
		l, err := c.out.ReadBytes('\n')
		done <- result{l, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			c.dead = fmt.Errorf("DuckDB child: %v%s", r.err, c.stderrTail())
			c.kill()
			return rep, c.dead
		}
		if err := json.Unmarshal(r.line, &rep); err != nil {
			c.dead = fmt.Errorf("DuckDB child: bad reply %q: %v", lastLines(string(r.line), 1), err)
			c.kill()
			return rep, c.dead
		}
	case <-ctx.Done():
		c.dead = fmt.Errorf("DuckDB child: %w", ctx.Err())
		c.kill()
		<-done
		return rep, c.dead
	}
	if rep.Error != "" {
		return rep, errors.New(rep.Error)
	}
	return rep, nil
}

func (c *duckChild) stderrTail() string {
	if s := strings.TrimSpace(c.stderr.String()); s != "" {
		return "; stderr: " + lastLines(s, 5)
	}
	return ""
}

func (c *duckChild) kill() {
	if c.cmd.Process != nil {
		_ = c.cmd.Process.Kill()
	}
}

// close asks the child to quit and waits for it, killing it after a few
// seconds.
func (c *duckChild) close() {
	c.mu.Lock()
	if c.dead == nil {
		line, _ := json.Marshal(duckRequest{Op: "quit"})
		_, _ = c.in.Write(append(line, '\n'))
	}
	_ = c.in.Close()
	c.mu.Unlock()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		c.kill()
		<-done
	}
}

// duckResult converts a reply's values to a result.
func duckResult(rep duckReply) *tpchResult {
	r := &tpchResult{Rows: rep.Values}
	for _, c := range rep.Columns {
		r.Columns = append(r.Columns, c.Name)
		r.Kinds = append(r.Kinds, kindOfDuckDB(c.Type))
	}
	if r.Rows == nil {
		r.Rows = [][]*string{}
	}
	return r
}
