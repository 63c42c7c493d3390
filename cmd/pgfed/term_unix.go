//go:build unix

package main

import (
	"bufio"
	"os"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether f is a terminal: only terminals have a window
// size.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	return err == nil
}

// terminalWidth is f's width in columns, or 0 when f is not a terminal.
func terminalWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}

func newStdinReader() *bufio.Reader { return bufio.NewReader(os.Stdin) }
