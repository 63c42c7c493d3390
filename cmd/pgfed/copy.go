package main

import (
	"context"
	"errors"
	"io"

	"github.com/pgfed/pgfed"
)

// copyHandler gives the engine the REPL's streams for COPY: data for
// FROM STDIN comes from the input the statement came from (the file, the
// piped input or the terminal), and TO STDOUT writes to the output stream.
type copyHandler struct{ r *repl }

var _ pgfed.CopyHandler = copyHandler{}

func (h copyHandler) CopyIn() (io.Reader, error) {
	r := h.r
	src := r.src
	if src == nil {
		return nil, errors.New("COPY FROM STDIN is not possible here")
	}
	if src.copyFrom != nil {
		src = src.copyFrom
	}
	if src.interactive() && !r.opts.quiet {
		r.println("Enter data to be copied followed by a newline.")
		r.println("End with a backslash and a period on a line by itself, or an EOF signal.")
		r.out.Flush()
	}
	r.copyIn = &copyReader{r: r, src: src}
	return r.copyIn, nil
}

func (h copyHandler) CopyOut() (io.Writer, error) {
	// psql does not print the COPY tag when the data went to the query
	// output, where it would read as data.
	h.r.copiedOut = true
	return h.r.out, nil
}

// copyReader returns the input lines that follow a COPY FROM STDIN
// statement, newline-terminated, up to a line holding only `\.` (which it
// swallows) or the end of the input.
type copyReader struct {
	r       *repl
	src     *source
	pending []byte
	done    bool
	err     error
}

func (c *copyReader) Read(p []byte) (int, error) {
	for len(c.pending) == 0 {
		if c.done {
			return 0, c.err
		}
		c.nextLine()
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// nextLine reads one data line into pending, or ends the data.
func (c *copyReader) nextLine() {
	prompt := ""
	if c.src.interactive() {
		prompt = ">> "
	}
	line, err := c.src.readLine(prompt)
	switch {
	case errors.Is(err, errInterrupted):
		// Ctrl-C while typing data cancels the COPY.
		c.r.cancelStatement()
		c.done, c.err = true, context.Canceled
	case err == io.EOF:
		c.done, c.err = true, io.EOF
	case err != nil:
		c.done, c.err = true, err
	case line == `\.` || line == "\\.\r":
		c.done, c.err = true, io.EOF
	default:
		c.pending = append(append(c.pending[:0], line...), '\n')
	}
}

// finishCopyIn reads and drops whatever COPY data the engine left unread,
// for instance after an error in the data, so that it is not run as SQL.
func (r *repl) finishCopyIn() {
	c := r.copyIn
	r.copyIn = nil
	if c == nil {
		return
	}
	c.pending = nil
	for !c.done {
		c.nextLine()
		c.pending = nil
	}
}
