package executor

// Temporary files for operators that spill (external merge sort, hash
// aggregate partitions). A spill file holds Arrow batches of one schema
// in the Arrow IPC stream format (arrow-go's ipc package: it already
// writes and reads every type pgfed stores, slices included). The file is
// unlinked the moment it is created, so whatever way the statement ends,
// cancel, error, panic or a killed process, nothing is left on disk once
// its descriptor closes.

import (
	"bufio"
	"io"
	"os"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/pgfed/pgfed/pgerr"
)

type spillFile struct {
	f      *os.File
	buf    *bufio.Writer
	w      *ipc.Writer
	schema *arrow.Schema
	bytes  int64 // written so far
	rows   int64
	// coalesce holds small batches (pending) until they make one IPC
	// message: a hash join's partitions receive a piece of every batch
	// it splits. (An aggregate's partitions are read back as written, so
	// that its table grows a batch of new groups at a time no larger than
	// it was written.)
	coalesce     bool
	pending      []arrow.RecordBatch
	pendingRows  int64
	pendingBytes int64
}

// A batch of fewer than spillMinRows rows waits to be written with the
// next ones, until they make spillMinRows rows or spillMaxPending bytes:
// an IPC message costs its metadata (flatbuffers, and arrays rebuilt when
// read) whatever its rows, which for the 16 partitions of a split batch
// of a few thousand rows would cost more than the rows themselves.
const (
	spillMinRows    = 8192
	spillMaxPending = 256 << 10
)

// coalescedMessages counts the messages written from several pending
// pieces (tests check that partition files coalesce).
var coalescedMessages atomic.Int64

// countingWriter counts what reaches the file.
type countingWriter struct {
	w io.Writer
	n *int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	*c.n += int64(n)
	return n, err
}

// newSpillFile creates an unlinked temporary file in dir ("" for the
// system's temporary directory).
func newSpillFile(dir string, schema *arrow.Schema) (*spillFile, error) {
	f, err := os.CreateTemp(dir, "pgfed_tmp_*")
	if err != nil {
		return nil, tempFileError("create", err)
	}
	os.Remove(f.Name())
	s := &spillFile{f: f, schema: schema}
	s.buf = bufio.NewWriterSize(countingWriter{f, &s.bytes}, 1<<16)
	s.w = ipc.NewWriter(s.buf, ipc.WithSchema(schema), ipc.WithAllocator(alloc))
	return s, nil
}

func tempFileError(op string, err error) error {
	return pgerr.New(pgerr.IOError, "could not %s temporary file: %s", op, pgerr.Strerror(err))
}

func (s *spillFile) write(b arrow.RecordBatch) error {
	if b.NumRows() == 0 {
		return nil
	}
	s.rows += b.NumRows()
	if !b.Schema().Equal(s.schema) {
		// The same columns under other names (the branches of a UNION):
		// the file has one schema.
		b = array.NewRecordBatch(s.schema, b.Columns(), b.NumRows())
		defer b.Release()
	}
	if !s.coalesce || b.NumRows() >= spillMinRows && len(s.pending) == 0 {
		return s.writeMessage(b)
	}
	b.Retain()
	s.pending = append(s.pending, b)
	s.pendingRows += b.NumRows()
	s.pendingBytes += batchBytes(b)
	if s.pendingRows >= spillMinRows || s.pendingBytes >= spillMaxPending {
		return s.flushPending()
	}
	return nil
}

// flushPending writes the pending batches as one message.
func (s *spillFile) flushPending() error {
	if len(s.pending) == 0 {
		return nil
	}
	if len(s.pending) > 1 {
		coalescedMessages.Add(1)
	}
	b, err := concatBatches(s.pending)
	s.releasePending()
	if err != nil {
		return err
	}
	defer b.Release()
	return s.writeMessage(b)
}

func (s *spillFile) releasePending() {
	releaseBatches(s.pending)
	s.pending, s.pendingRows, s.pendingBytes = nil, 0, 0
}

func (s *spillFile) writeMessage(b arrow.RecordBatch) error {
	if err := s.w.Write(b); err != nil {
		return tempFileError("write to", err)
	}
	return nil
}

// finish ends writing; the file's bytes are then final.
func (s *spillFile) finish() error {
	if s.w == nil {
		return nil
	}
	err := s.flushPending()
	if err == nil {
		err = s.w.Close()
	}
	if err == nil {
		err = s.buf.Flush()
	}
	s.w = nil
	if err != nil {
		return tempFileError("write to", err)
	}
	return nil
}

// reader ends writing and returns a reader of the batches from the start.
func (s *spillFile) reader() (*spillReader, error) {
	if err := s.finish(); err != nil {
		return nil, err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, tempFileError("seek in", err)
	}
	r, err := ipc.NewReader(bufio.NewReaderSize(s.f, 1<<16), ipc.WithAllocator(alloc), ipc.WithSchema(s.schema))
	if err != nil {
		return nil, tempFileError("read", err)
	}
	return &spillReader{r: r}, nil
}

func (s *spillFile) close() {
	s.releasePending()
	s.f.Close()
}

type spillReader struct{ r *ipc.Reader }

// next returns the next batch, which the caller owns, or io.EOF.
func (r *spillReader) next() (arrow.RecordBatch, error) {
	if !r.r.Next() {
		if err := r.r.Err(); err != nil && err != io.EOF {
			return nil, tempFileError("read", err)
		}
		return nil, io.EOF
	}
	b := r.r.RecordBatch()
	b.Retain()
	return b, nil
}

func (r *spillReader) close() { r.r.Release() }
