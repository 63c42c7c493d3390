//go:build !unix

package main

import (
	"bufio"
	"os"
)

// Without a portable terminal check, such systems get the non-interactive
// REPL; liner itself would work, but isTerminal cannot tell.

func isTerminal(f *os.File) bool { return false }

func terminalWidth(f *os.File) int { return 0 }

func newStdinReader() *bufio.Reader { return bufio.NewReader(os.Stdin) }
