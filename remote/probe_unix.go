//go:build unix

package remote

import (
	"errors"
	"net"
	"syscall"
)

// closedByServer reports whether the server has closed an idle
// connection, or said something on it (which, on an idle connection, is
// a FATAL message before closing: the backend was terminated, the server
// is shutting down), without waiting: a peek at the socket that returns
// at once. It cannot see a connection cut off by the network.
func closedByServer(conn net.Conn) bool {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return false // TLS: nothing to peek at cheaply
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	var buf [1]byte
	// Control, not Read: Read takes the descriptor's read lock, which
	// pgx's background reader may hold, blocked in a read of its own,
	// on an idle connection (it starts one around every write and stops
	// it only when a byte arrives): the probe then waited forever. A
	// non-blocking peek needs no lock.
	_ = raw.Control(func(fd uintptr) {
		n, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == nil:
			closed = true // n == 0: the peer closed; n > 0: it said something
			_ = n
		case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EWOULDBLOCK), errors.Is(err, syscall.EINTR):
		default:
			closed = true // ECONNRESET and the like
		}
	})
	return closed
}
