package main

// The spill suite's machinery: pgfed in a child process (pgfedbench
// started again with spillChildArg) driven by JSON lines on its stdin and
// stdout, PostgreSQL's throwaway cluster and the connections of its
// cells, and the reading of a process's memory from /proc.
//
// The child protocol, one JSON object a line:
//
//	child:  ready reply (load time, memory before and after the load)
//	parent: {"op":"exec","sql":...}         child: {} or {"error":...}
//	parent: {"op":"lines","sql":...}        child: {"lines":[first column of each row]}
//	parent: {"op":"run","sql":...}          child: {"ms":...,"rows":...,"first":"row 1 as text"}
//	parent: {"op":"reset_peak"}             child: {"mem":{...},"peak_reset":true}
//	parent: {"op":"memory"}                 child: {"mem":{...}}
//	parent: {"op":"cancel","sql":...,"mode":"cancel"|"statement_timeout","after_ms":...}
//	                                        child: {"cancel":{...}}
//	parent closes stdin                     child: exits

import (
	"bufio"
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/pgtest"
)

// spillChildArg, as the first argument, makes pgfedbench the spill
// suite's pgfed process; the second argument is its spillChildConfig as
// JSON.
const spillChildArg = "-spill-child"

// spillChildConfig is what a child loads before it says it is ready.
type spillChildConfig struct {
	// Setup runs first, before the memory before the load is read
	// (session settings).
	Setup []string `json:"setup,omitempty"`
	// Load creates and fills the tables.
	Load []string `json:"load,omitempty"`
	// FileDirs are pgfed.WithFileAccess's directories.
	FileDirs []string `json:"file_dirs,omitempty"`
}

// childRequest is one command to the child.
type childRequest struct {
	Op      string  `json:"op"`
	SQL     string  `json:"sql,omitempty"`
	Mode    string  `json:"mode,omitempty"`     // cancel: cancelByContext or cancelByTimeout
	AfterMS float64 `json:"after_ms,omitempty"` // cancel: when
}

// childReply is the child's answer to a command, or its ready message.
type childReply struct {
	Error string `json:"error,omitempty"`
	Code  string `json:"code,omitempty"` // SQLSTATE of Error
	// Ready message.
	LoadMS float64     `json:"load_ms,omitempty"`
	Before *procMemory `json:"before_load,omitempty"`
	After  *procMemory `json:"after_load,omitempty"`
	// run.
	MS    float64 `json:"ms,omitempty"`
	Rows  int64   `json:"rows,omitempty"`
	First string  `json:"first,omitempty"`
	// lines.
	Lines []string `json:"lines,omitempty"`
	// reset_peak, memory.
	Mem       *procMemory `json:"mem,omitempty"`
	PeakReset bool        `json:"peak_reset,omitempty"`
	// cancel.
	Cancel *cancelResult `json:"cancel,omitempty"`
}

// procMemory is a process's memory as /proc/PID/status gives it, in kB.
type procMemory struct {
	VmRSS    int64 `json:"vm_rss_kb"`
	VmHWM    int64 `json:"vm_hwm_kb"` // peak of VmRSS
	RssAnon  int64 `json:"rss_anon_kb"`
	RssFile  int64 `json:"rss_file_kb"`
	RssShmem int64 `json:"rss_shmem_kb"`
}

// readProcMemory reads /proc/PID/status ("self" for this process).
func readProcMemory(pid string) (procMemory, error) {
	data, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return procMemory{}, err
	}
	return parseProcStatus(string(data))
}

// parseProcStatus picks the memory lines of a /proc/PID/status.
func parseProcStatus(status string) (procMemory, error) {
	var m procMemory
	fields := map[string]*int64{"VmRSS": &m.VmRSS, "VmHWM": &m.VmHWM, "RssAnon": &m.RssAnon, "RssFile": &m.RssFile, "RssShmem": &m.RssShmem}
	found := 0
	for _, line := range strings.Split(status, "\n") {
		name, rest, ok := strings.Cut(line, ":")
		p := fields[name]
		if !ok || p == nil {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return m, fmt.Errorf("/proc status: unexpected %q", line)
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return m, fmt.Errorf("/proc status: %q: %v", line, err)
		}
		*p = v
		found++
	}
	if found < 2 || m.VmHWM == 0 {
		return m, fmt.Errorf("/proc status: no VmRSS and VmHWM")
	}
	return m, nil
}

// settleMemory collects garbage and returns the freed memory to the
// operating system, so that RSS is the live data.
func settleMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}

// resetPeak sets this process's VmHWM back to its VmRSS (Linux's
// clear_refs 5, since 4.0).
func resetPeak() error {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// runSpillChild is the child's main: it opens pgfed, runs the setup,
// loads the data, says so, then answers commands until stdin ends.
func runSpillChild(configJSON string, in io.Reader, out io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "pgfedbench spill child: %v\n", err)
		_ = json.NewEncoder(out).Encode(childReply{Error: err.Error(), Code: pgfed.ErrorCode(err)})
		return 1
	}
	var cfg spillChildConfig
	if err := json.Unmarshal([]byte(configJSON), &cfg); err != nil {
		return fail(err)
	}
	var opts []pgfed.Option
	if len(cfg.FileDirs) > 0 {
		opts = append(opts, pgfed.WithFileAccess(cfg.FileDirs...))
	}
	db, err := pgfed.Open(opts...)
	if err != nil {
		return fail(err)
	}
	defer db.Close()
	c := &childServer{s: db.Session()}
	ctx := context.Background()
	if _, err := execAll(ctx, c.exec, cfg.Setup); err != nil {
		return fail(err)
	}
	settleMemory()
	before, err := readProcMemory("self")
	if err != nil {
		return fail(err)
	}
	d, err := execAll(ctx, c.exec, cfg.Load)
	if err != nil {
		return fail(err)
	}
	settleMemory()
	after, err := readProcMemory("self")
	if err != nil {
		return fail(err)
	}
	enc := json.NewEncoder(out)
	if err := enc.Encode(childReply{LoadMS: ms(d), Before: &before, After: &after}); err != nil {
		return 1
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	for sc.Scan() {
		var req childRequest
		var reply childReply
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			reply.Error = err.Error()
		} else {
			reply = c.serve(ctx, req)
		}
		if err := enc.Encode(reply); err != nil {
			return 1
		}
	}
	return 0
}

// childServer runs the child's commands on its session.
type childServer struct {
	s *pgfed.Session
}

func (c *childServer) exec(ctx context.Context, sql string) error {
	_, err := c.s.Exec(ctx, sql)
	return err
}

func (c *childServer) serve(ctx context.Context, req childRequest) childReply {
	var r childReply
	var err error
	switch req.Op {
	case "exec":
		err = c.exec(ctx, req.SQL)
	case "lines":
		r.Lines, err = fedLines(ctx, c.s, req.SQL)
	case "run":
		// As in measure: the previous run's garbage is not this one's.
		runtime.GC()
		start := time.Now()
		r.Rows, r.First, err = c.read(ctx, req.SQL)
		r.MS = ms(time.Since(start))
	case "reset_peak":
		settleMemory()
		r.PeakReset = resetPeak() == nil
		var m procMemory
		m, err = readProcMemory("self")
		r.Mem = &m
	case "memory":
		var m procMemory
		m, err = readProcMemory("self")
		r.Mem = &m
	case "cancel":
		res := c.cancel(ctx, req)
		r.Cancel = &res
	default:
		err = fmt.Errorf("unknown op %q", req.Op)
	}
	if err != nil {
		r.Error, r.Code = err.Error(), pgfed.ErrorCode(err)
	}
	return r
}

// read runs sql and reads its whole result, returning the number of rows
// and the first row as text (columns separated by spaces).
func (c *childServer) read(ctx context.Context, sql string) (int64, string, error) {
	rows, err := c.s.Query(ctx, sql)
	if err != nil {
		return 0, "", err
	}
	defer rows.Close()
	var n int64
	var first string
	for rows.Next() {
		if n == 0 {
			first = fedRowText(rows)
		}
		n++
	}
	return n, first, rows.Err()
}

func fedRowText(rows *pgfed.Rows) string {
	vals := make([]string, len(rows.Columns()))
	for i := range vals {
		v, ok := rows.Text(i)
		if !ok {
			v = "NULL"
		}
		vals[i] = v
	}
	return strings.Join(vals, " ")
}

// Cancel modes.
const (
	cancelByContext = "cancel"            // pgfed: the query's context; PostgreSQL: a cancel request
	cancelByTimeout = "statement_timeout" // SET statement_timeout
)

// cancelResult is how a query of the cancel table ended.
type cancelResult struct {
	Mode string `json:"mode"`
	// ElapsedMS is from the query's start to its return; DelayMS from
	// the cancel (or the timeout's expiry) to the return, when the query
	// was still running then.
	ElapsedMS float64 `json:"elapsed_ms"`
	DelayMS   float64 `json:"delay_ms"`
	// Completed says the query returned before the cancel.
	Completed bool   `json:"completed,omitempty"`
	Code      string `json:"sqlstate,omitempty"`
	Error     string `json:"error,omitempty"`
	// Killed says the query had not returned cancelGuard after the
	// cancel: pgfed's child was killed, PostgreSQL's connection closed.
	Killed bool `json:"killed,omitempty"`
}

// cancelled says the query was stopped as it should be: 57014 after the
// cancel.
func (r *cancelResult) cancelled() bool {
	return r != nil && !r.Completed && !r.Killed && r.Code == pgerr.QueryCanceled
}

// cancel runs req.SQL and stops it after req.AfterMS, by its context or
// by statement_timeout.
func (c *childServer) cancel(ctx context.Context, req childRequest) cancelResult {
	after := time.Duration(req.AfterMS * float64(time.Millisecond))
	res := cancelResult{Mode: req.Mode}
	settleMemory()
	qctx := ctx
	var mu sync.Mutex
	var cancelledAt time.Time
	if req.Mode == cancelByTimeout {
		if err := c.exec(ctx, fmt.Sprintf("SET statement_timeout = %d", after.Milliseconds())); err != nil {
			res.Error, res.Code = err.Error(), pgfed.ErrorCode(err)
			return res
		}
		defer func() { _ = c.exec(ctx, "SET statement_timeout = 0") }()
	} else {
		var cancel context.CancelFunc
		qctx, cancel = context.WithCancel(ctx)
		defer cancel()
		t := time.AfterFunc(after, func() {
			mu.Lock()
			cancelledAt = time.Now()
			mu.Unlock()
			cancel()
		})
		defer t.Stop()
	}
	start := time.Now()
	_, _, err := c.read(qctx, req.SQL)
	end := time.Now()
	mu.Lock()
	at := cancelledAt
	mu.Unlock()
	if req.Mode == cancelByTimeout {
		at = start.Add(after)
	}
	res.fill(start, at, end, err, pgfed.ErrorCode(err))
	return res
}

// fill sets the times and the outcome: the query ran from start to end;
// at is when it was cancelled (zero: never).
func (r *cancelResult) fill(start, at, end time.Time, err error, code string) {
	r.ElapsedMS = ms(end.Sub(start))
	if at.IsZero() || end.Before(at) {
		r.Completed = true
	} else {
		r.DelayMS = ms(end.Sub(at))
	}
	if err != nil {
		r.Error, r.Code = firstLine(err.Error()), code
	}
}

// spillChild is the parent's handle on a child.
type spillChild struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	replies chan childReply // closed when the child's stdout ends
	ready   childReply
	dead    bool // killed, or its output ended: it answers no more
}

// errChildGone is a call to a child that died or was killed.
var errChildGone = errors.New("pgfed child process gone")

// startSpillChild starts a child and waits until it has loaded its
// data.
func startSpillChild(ctx context.Context, cfg spillChildConfig) (*spillChild, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cfgJSON, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, spillChildArg, string(cfgJSON))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &spillChild{cmd: cmd, in: in, replies: make(chan childReply)}
	go func() {
		defer close(c.replies)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64*1024), 64<<20)
		for sc.Scan() {
			var r childReply
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				r = childReply{Error: fmt.Sprintf("bad reply %q: %v", sc.Text(), err)}
			}
			c.replies <- r
		}
	}()
	select {
	case r, ok := <-c.replies:
		switch {
		case !ok:
			c.kill()
			return nil, fmt.Errorf("pgfed child exited before loading its data")
		case r.Error != "":
			c.kill()
			return nil, fmt.Errorf("pgfed child: %s", r.Error)
		}
		c.ready = r
		return c, nil
	case <-ctx.Done():
		c.kill()
		return nil, ctx.Err()
	}
}

// call sends req and waits for the reply, at most timeout (0: no limit)
// and until ctx ends; then the child is killed, as its query may never
// end.
func (c *spillChild) call(ctx context.Context, req childRequest, timeout time.Duration) (childReply, error) {
	if c.dead {
		return childReply{}, errChildGone
	}
	line, err := json.Marshal(req)
	if err != nil {
		return childReply{}, err
	}
	if _, err := c.in.Write(append(line, '\n')); err != nil {
		c.kill()
		return childReply{}, fmt.Errorf("%w: %v", errChildGone, err)
	}
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case r, ok := <-c.replies:
		if !ok {
			c.kill()
			return r, errChildGone
		}
		return r, nil
	case <-expired:
		c.kill()
		return childReply{}, fmt.Errorf("%w: no answer within %v, killed", errChildGone, timeout)
	case <-ctx.Done():
		c.kill()
		return childReply{}, ctx.Err()
	}
}

// do is call for commands whose error reply is an error.
func (c *spillChild) do(ctx context.Context, req childRequest) (childReply, error) {
	r, err := c.call(ctx, req, 0)
	if err == nil && r.Error != "" {
		err = &childError{msg: r.Error, code: r.Code}
	}
	return r, err
}

// childError is an error the child's pgfed returned.
type childError struct{ msg, code string }

func (e *childError) Error() string {
	if e.code != "" && !strings.Contains(e.msg, e.code) {
		return fmt.Sprintf("%s (SQLSTATE %s)", e.msg, e.code)
	}
	return e.msg
}

func (c *spillChild) exec(ctx context.Context, sql string) error {
	_, err := c.do(ctx, childRequest{Op: "exec", SQL: sql})
	return err
}

func (c *spillChild) lines(ctx context.Context, sql string) ([]string, error) {
	r, err := c.do(ctx, childRequest{Op: "lines", SQL: sql})
	return r.Lines, err
}

// kill ends the child at once.
func (c *spillChild) kill() {
	if c == nil {
		return
	}
	c.dead = true
	_ = c.cmd.Process.Kill()
	_ = c.in.Close()
	for range c.replies {
	}
	_ = c.cmd.Wait()
}

// close ends the child by closing its stdin, killing it if it does not
// exit within a few seconds.
func (c *spillChild) close() {
	if c == nil || c.cmd.ProcessState != nil {
		return
	}
	if c.dead {
		return
	}
	c.dead = true
	_ = c.in.Close()
	done := make(chan struct{})
	go func() {
		for range c.replies {
		}
		_ = c.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// spillPostgres is the suite's PostgreSQL: a throwaway cluster on this
// machine (its backends' /proc entries are read) and a connection that
// loads the data.
type spillPostgres struct {
	cluster  *pgtest.Cluster
	dsn      string
	admin    *pgx.Conn
	settings map[string]string
}

// spillServerSettings are the cluster's settings besides shared_buffers:
// room for the loads' WAL without checkpoints in between.
var spillServerSettings = map[string]string{"max_wal_size": "16GB", "checkpoint_timeout": "1h"}

// spillReportedSettings are shown with the results, as a cell's session
// sees them.
var spillReportedSettings = []string{"server_version", "shared_buffers", "max_wal_size", "hash_mem_multiplier", "max_parallel_workers_per_gather", "jit", "work_mem"}

func startSpillPostgres(ctx context.Context, opts options) (_ *spillPostgres, err error) {
	p := &spillPostgres{}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	settings := map[string]string{"shared_buffers": opts.pgShared}
	for k, v := range spillServerSettings {
		settings[k] = v
	}
	if p.cluster, err = pgtest.Start(ctx, pgtest.Options{Settings: settings}); err != nil {
		return nil, err
	}
	p.dsn = p.cluster.DSN("postgres")
	if p.admin, err = pgx.Connect(ctx, p.dsn); err != nil {
		return nil, err
	}
	setup := []string{
		"CREATE SCHEMA " + schemaName,
		"SET search_path = " + schemaName,
		"SET max_parallel_workers_per_gather = 0",
		"SET jit = off",
	}
	if _, err := execAll(ctx, pgxExec(p.admin), setup); err != nil {
		return nil, err
	}
	p.settings = map[string]string{}
	for _, name := range spillReportedSettings {
		var v string
		if err := p.admin.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&v); err != nil {
			return nil, err
		}
		p.settings[name] = v
	}
	if !strings.HasPrefix(p.settings["server_version"], "15") {
		return nil, fmt.Errorf("PostgreSQL 15 is required for the comparison, the server is %s", p.settings["server_version"])
	}
	return p, nil
}

func (p *spillPostgres) close() {
	if p.admin != nil {
		_ = p.admin.Close(context.Background())
	}
	if p.cluster != nil {
		_ = p.cluster.Stop()
	}
}

// connect opens a fresh connection, a backend of its own whose memory
// is the cell's, with the session settings of the suite and work_mem.
func (p *spillPostgres) connect(ctx context.Context, workMem string) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, p.dsn)
	if err != nil {
		return nil, err
	}
	stmts := append([]string{"SET search_path = " + schemaName}, spillSessionSQL(workMem, true)...)
	if _, err := execAll(ctx, pgxExec(conn), stmts); err != nil {
		_ = conn.Close(ctx)
		return nil, err
	}
	return conn, nil
}

// spillSessionSQL are the settings of a cell: work_mem, no parallel
// plans, and in PostgreSQL no JIT (hash_mem_multiplier stays at its
// default, 2).
func spillSessionSQL(workMem string, postgres bool) []string {
	stmts := []string{"SET max_parallel_workers_per_gather = 0"}
	if workMem != "" {
		stmts = append(stmts, fmt.Sprintf("SET work_mem = '%s'", workMem))
	}
	if postgres {
		stmts = append(stmts, "SET jit = off")
	}
	return stmts
}

// pgRead runs sql on conn and reads its whole result, returning the
// number of rows and the first row as text.
func pgRead(ctx context.Context, conn *pgx.Conn, sql string) (int64, string, error) {
	if strings.HasPrefix(sql, "COPY") {
		_, err := conn.Exec(ctx, sql)
		return 0, "", err
	}
	rows, err := conn.Query(ctx, sql)
	if err != nil {
		return 0, "", err
	}
	defer rows.Close()
	var n int64
	var first string
	for rows.Next() {
		if n == 0 {
			vals, err := rows.Values()
			if err != nil {
				return 0, "", err
			}
			texts := make([]string, len(vals))
			for i, v := range vals {
				texts[i] = pgValueText(v)
			}
			first = strings.Join(texts, " ")
		}
		n++
	}
	return n, first, rows.Err()
}

// pgValueText prints a value as PostgreSQL's text output would, for the
// types the suite's queries return (bigint, numeric).
func pgValueText(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case driver.Valuer:
		// pgtype.Numeric and friends: their driver value is the text.
		if dv, err := v.Value(); err == nil {
			if s, ok := dv.(string); ok {
				return s
			}
		}
	}
	return fmt.Sprint(v)
}

// memSampler reads a process's /proc status every interval until
// stopped, keeping the largest RssAnon, RssShmem and VmRSS.
type memSampler struct {
	pid     string
	stop    chan struct{}
	done    chan struct{}
	max     procMemory
	samples int
	err     error
}

const memSampleInterval = 5 * time.Millisecond

func startMemSampler(pid string) *memSampler {
	s := &memSampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(memSampleInterval)
		defer t.Stop()
		for {
			m, err := readProcMemory(pid)
			if err != nil {
				s.err = err
				return
			}
			s.samples++
			s.max.VmRSS = max(s.max.VmRSS, m.VmRSS)
			s.max.RssAnon = max(s.max.RssAnon, m.RssAnon)
			s.max.RssShmem = max(s.max.RssShmem, m.RssShmem)
			s.max.RssFile = max(s.max.RssFile, m.RssFile)
			s.max.VmHWM = m.VmHWM
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// finish stops the sampler and returns the largest values seen (VmHWM:
// the last, the kernel's own peak).
func (s *memSampler) finish() (procMemory, int, error) {
	close(s.stop)
	<-s.done
	return s.max, s.samples, s.err
}
