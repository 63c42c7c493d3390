package commands

// Cutting COPY FROM's input into chunks of records. The splitter reads
// the input a large buffer at a time and copies whole records (lines,
// or in CSV lines joined while a quoted field is open) into a chunk, as
// many as one batch holds; the fields are split and converted later
// (copy_parse.go), possibly by another goroutine, so the splitter does
// little per byte: bytes.IndexByte finds the line ends, bytes.Count the
// quotes. A record is stored without its newline and with a CR before
// it removed; the lines of a multi-line CSV record are joined with LF.
// The chunk keeps the records' text until the batch is stored, for the
// CONTEXT of constraint errors.

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/pgfed/pgfed/executor"
	"github.com/pgfed/pgfed/pgerr"
)

// maxCopyLine is the longest line COPY reads: PostgreSQL's string buffer
// limit (1 GB - 1).
const maxCopyLine = 1<<30 - 1

// copyReadSize is how much input one read asks for.
const copyReadSize = 1 << 20

// chunkBytes is the text a chunk takes before it is full (records are
// never cut, so one long line may make it larger).
const chunkBytes = 16 << 20

// copyChunk is a run of input records.
type copyChunk struct {
	data []byte // the records' text, back to back; parsing appends unescaped values after them
	ends []int  // where each record's text ends in data
	// firstLine is the input line number of the first record.
	firstLine int
	// err, if set, is how the input failed after the records: errLine
	// is its line, errRaw the text of the record read so far (for an
	// unterminated quoted field: a read error shows no text).
	err     error
	errLine int
	errRaw  string
}

func (ch *copyChunk) records() int { return len(ch.ends) }

// record returns the text of record i.
func (ch *copyChunk) record(i int) []byte {
	start := 0
	if i > 0 {
		start = ch.ends[i-1]
	}
	return ch.data[start:ch.ends[i]]
}

func (ch *copyChunk) reset() {
	ch.data, ch.ends, ch.err, ch.errRaw = ch.data[:0], ch.ends[:0], nil, ""
}

// errUnterminatedCSV marks the input ending inside a quoted CSV field.
var errUnterminatedCSV = errors.New("unterminated CSV quoted field")

// copySplitter reads records from COPY input.
type copySplitter struct {
	ctx           context.Context
	in            io.Reader
	csv           bool
	quote, escape byte
	buf           []byte
	r, w          int  // the unread input is buf[r:w]
	eof           bool // in has no more
	done          bool // the input ended (EOF, end marker or error)
	line          int  // records read so far
}

func newCopySplitter(ctx context.Context, in io.Reader, o copyOptions) *copySplitter {
	return &copySplitter{ctx: ctx, in: in, csv: o.csv, quote: o.quote, escape: o.escape, buf: make([]byte, copyReadSize)}
}

// fill reads more input after the unread bytes, moving them to the
// buffer's start first.
func (s *copySplitter) fill() error {
	if s.ctx.Err() != nil {
		return executor.CtxError(s.ctx)
	}
	if s.r > 0 {
		s.w = copy(s.buf, s.buf[s.r:s.w])
		s.r = 0
	}
	// A reader that returns nothing again and again is broken (bufio
	// gives up so too).
	for range 100 {
		n, err := s.in.Read(s.buf[s.w:])
		s.w += n
		if err == io.EOF {
			s.eof = true
			return nil
		}
		if err != nil {
			return pgerr.New(pgerr.IOError, "could not read COPY data: %v", err)
		}
		if n > 0 {
			return nil
		}
	}
	return pgerr.New(pgerr.IOError, "could not read COPY data: %v", io.ErrNoProgress)
}

// next fills ch with the following records, at most max; it returns
// false (with ch empty) once the input has ended.
func (s *copySplitter) next(ch *copyChunk, max int) bool {
	ch.reset()
	ch.firstLine = s.line + 1
	for !s.done && len(ch.ends) < max && len(ch.data) < chunkBytes {
		start := len(ch.data)
		end, err := s.readRecord(ch)
		switch {
		case err == io.EOF:
			s.done = true
		case err != nil:
			s.done = true
			s.line++
			ch.err, ch.errLine = err, s.line
			if err == errUnterminatedCSV {
				ch.errRaw = string(bytes.TrimSuffix(ch.data[start:], []byte("\n")))
				ch.err = pgerr.New(pgerr.BadCopyFileFormat, "unterminated CSV quoted field")
			}
			ch.data = ch.data[:start]
		default:
			s.line++
			ch.ends = append(ch.ends, end)
		}
	}
	return len(ch.ends) > 0 || ch.err != nil
}

// readRecord appends the next record to ch.data and returns where it
// ends; io.EOF at the end of the input or at the end marker (\. alone
// on a line), which appends nothing.
func (s *copySplitter) readRecord(ch *copyChunk) (int, error) {
	start := len(ch.data)
	inQuote := false
	for {
		lineStart := len(ch.data)
		more, err := s.readLine(ch)
		if err != nil {
			return 0, err
		}
		if !more {
			if lineStart == start {
				return 0, io.EOF
			}
			// The input ends inside a quoted field.
			return 0, errUnterminatedCSV
		}
		line := ch.data[lineStart:]
		if lineStart == start && len(line) == 2 && line[0] == '\\' && line[1] == '.' {
			ch.data = ch.data[:start]
			return 0, io.EOF
		}
		if !s.csv {
			return len(ch.data), nil
		}
		inQuote = s.csvQuoteOpen(line, inQuote)
		if !inQuote {
			return len(ch.data), nil
		}
		ch.data = append(ch.data, '\n')
	}
}

// readLine appends the next line (without its CR LF) to ch.data; false
// at the end of the input.
func (s *copySplitter) readLine(ch *copyChunk) (bool, error) {
	lineStart := len(ch.data)
	got := false
	for {
		if s.r == s.w && !s.eof {
			if err := s.fill(); err != nil {
				return false, err
			}
		}
		if s.r == s.w && s.eof {
			trimCR(ch, lineStart)
			return got, nil
		}
		got = true
		piece := s.buf[s.r:s.w]
		i := bytes.IndexByte(piece, '\n')
		if i >= 0 {
			piece = piece[:i+1]
		}
		if have := len(ch.data) - lineStart; have+len(piece) > maxCopyLine {
			return false, pgerr.New(pgerr.ProgramLimitExceeded, "out of memory").
				WithDetail("Cannot enlarge string buffer containing %d bytes by %d more bytes.", have, len(piece))
		}
		if i >= 0 {
			ch.data = append(ch.data, piece[:i]...)
			s.r += i + 1
			trimCR(ch, lineStart)
			return true, nil
		}
		ch.data = append(ch.data, piece...)
		s.r = s.w
	}
}

// trimCR drops a CR ending the line that starts at lineStart.
func trimCR(ch *copyChunk, lineStart int) {
	if n := len(ch.data); n > lineStart && ch.data[n-1] == '\r' {
		ch.data = ch.data[:n-1]
	}
}

// csvQuoteOpen tells whether a quoted field is still open after line,
// given whether one was open before it. With the escape character the
// quote (the default), each quote toggles: a doubled quote inside quotes
// is two toggles.
func (s *copySplitter) csvQuoteOpen(line []byte, inQuote bool) bool {
	if s.escape == s.quote {
		return inQuote != (bytes.Count(line, []byte{s.quote})%2 == 1)
	}
	if !inQuote && bytes.IndexByte(line, s.quote) < 0 {
		return false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case inQuote && c == s.escape && i+1 < len(line) && (line[i+1] == s.quote || line[i+1] == s.escape):
			i++
		case c == s.quote:
			inQuote = !inQuote
		}
	}
	return inQuote
}

// maxChunkRecords is how many records a chunk holds: a batch.
const maxChunkRecords = executor.DefaultBatchSize
