package main

// delayProxy is an in-process TCP proxy that adds a fixed one-way latency
// between its clients and one target server, in both directions, the way
// a network link with that latency would.
//
// Each direction of each connection has a reader and a writer goroutine
// joined by a queue of timestamped chunks: the reader stamps every chunk
// it reads with the time it is due (when it was read plus the delay) and
// queues it at once; the writer sends each chunk when its time comes.
// Many chunks are in flight at a time, so throughput is not limited by the
// delay: a request/response exchange takes twice the delay longer than
// without the proxy, and a long transfer about the delay longer, not one
// delay per chunk.
//
// A direction ends when its source reaches end of file (the writer passes
// the end on with a half-close once the queued chunks are out) or fails
// (then both sides of the connection are closed). Close closes the
// listener and every connection and waits for every goroutine.

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// proxyChunkSize is the most one read takes from a socket.
	proxyChunkSize = 64 << 10
	// proxyQueueLen is how many chunks may wait in one direction; when
	// the queue is full the reader stops reading, and TCP flow control
	// slows the sender down.
	proxyQueueLen = 1024
	// proxyRetryAccept is how long the proxy waits after a failed Accept
	// (out of file descriptors, say) before trying again.
	proxyRetryAccept = 10 * time.Millisecond
)

// delayProxy forwards connections made to its address to target.
type delayProxy struct {
	target string
	ln     net.Listener
	delay  atomic.Int64 // one-way latency in nanoseconds

	// toServer and toClient count the bytes forwarded each way.
	toServer atomic.Int64
	toClient atomic.Int64

	// ctx is cancelled by Close, which aborts dials in progress.
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	conns  map[net.Conn]struct{} // both sides of every open connection
	closed bool
	wg     sync.WaitGroup // the accept loop and one per connection
}

// delayedChunk is bytes read from one side, to be written to the other
// no earlier than due.
type delayedChunk struct {
	data []byte
	due  time.Time
}

// startDelayProxy listens on a free port of 127.0.0.1 and forwards every
// connection to target (host:port) with the given one-way delay.
func startDelayProxy(target string, delay time.Duration) (*delayProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &delayProxy{target: target, ln: ln, conns: map[net.Conn]struct{}{}}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.SetDelay(delay)
	p.wg.Add(1)
	go p.acceptLoop()
	return p, nil
}

// Addr is the proxy's address, host:port.
func (p *delayProxy) Addr() string { return p.ln.Addr().String() }

// Port is the proxy's port on 127.0.0.1.
func (p *delayProxy) Port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// SetDelay changes the one-way latency. It applies to chunks read from
// then on; chunks already queued keep the time they were given, and still
// leave in the order they came.
func (p *delayProxy) SetDelay(d time.Duration) { p.delay.Store(int64(d)) }

// Delay is the current one-way latency.
func (p *delayProxy) Delay() time.Duration { return time.Duration(p.delay.Load()) }

// BytesToClient is the number of bytes forwarded from the target to the
// clients so far.
func (p *delayProxy) BytesToClient() int64 { return p.toClient.Load() }

// BytesToServer is the number of bytes forwarded from the clients to the
// target so far.
func (p *delayProxy) BytesToServer() int64 { return p.toServer.Load() }

// Close stops accepting, closes every connection, and returns once every
// goroutine of the proxy has ended.
func (p *delayProxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	conns := make([]net.Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()

	p.cancel()
	err := p.ln.Close()
	for _, c := range conns {
		_ = c.Close()
	}
	p.wg.Wait()
	return err
}

func (p *delayProxy) acceptLoop() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			time.Sleep(proxyRetryAccept)
			continue
		}
		p.wg.Add(1)
		go p.serve(client)
	}
}

// serve connects client to the target and forwards both ways until both
// directions have ended.
func (p *delayProxy) serve(client net.Conn) {
	defer p.wg.Done()
	var d net.Dialer
	server, err := d.DialContext(p.ctx, "tcp", p.target)
	if err != nil {
		_ = client.Close()
		return
	}
	if !p.track(client, server) {
		return
	}
	defer p.untrack(client, server)

	done := make(chan struct{})
	go func() {
		defer close(done)
		p.forward(server, client, &p.toServer)
	}()
	p.forward(client, server, &p.toClient)
	<-done
}

// track registers a new connection's two sides, so that Close can close
// them; if the proxy is closing already it closes them and returns false.
func (p *delayProxy) track(client, server net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = client.Close()
		_ = server.Close()
		return false
	}
	p.conns[client] = struct{}{}
	p.conns[server] = struct{}{}
	return true
}

// untrack closes a finished connection's two sides and forgets them.
func (p *delayProxy) untrack(client, server net.Conn) {
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, server)
	p.mu.Unlock()
	_ = client.Close()
	_ = server.Close()
}

// forward copies src to dst, each chunk delayed by the proxy's latency,
// counting the bytes in count. The reader runs on a goroutine of its own;
// forward returns once both it and the reader are done.
func (p *delayProxy) forward(dst, src net.Conn, count *atomic.Int64) {
	queue := make(chan delayedChunk, proxyQueueLen)
	// readErr is written before queue is closed and read after.
	var readErr error
	go func() {
		defer close(queue)
		buf := make([]byte, proxyChunkSize)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				chunk := delayedChunk{data: append([]byte(nil), buf[:n]...), due: time.Now().Add(p.Delay())}
				queue <- chunk
			}
			if err != nil {
				readErr = err
				return
			}
		}
	}()

	for chunk := range queue {
		if wait := time.Until(chunk.due); wait > 0 {
			time.Sleep(wait)
		}
		if _, err := dst.Write(chunk.data); err != nil {
			// The receiving side is gone: the connection is broken. Closing
			// src stops the reader; drain the queue so that it is not left
			// blocked on a full one.
			_ = src.Close()
			_ = dst.Close()
			for range queue {
			}
			return
		}
		count.Add(int64(len(chunk.data)))
	}

	if errors.Is(readErr, io.EOF) {
		// An orderly end: pass it on once everything before it is out,
		// while the other direction goes on.
		if tcp, ok := dst.(*net.TCPConn); ok {
			_ = tcp.CloseWrite()
			return
		}
	}
	_ = dst.Close()
	_ = src.Close()
}
