package commands

// Server-side files for COPY. PostgreSQL lets only superusers (and the
// pg_read_server_files / pg_write_server_files roles) name files; an
// embedded engine has no roles, so file access is off unless the
// embedder names the directories COPY may use (pgfed.WithFileAccess; the
// REPL allows the user's own files, as psql's \copy does). Paths must be
// absolute, and are checked after symbolic links are resolved. COPY TO
// writes a temporary file next to the target and renames it into place
// when the COPY succeeds, so a failed or killed COPY never leaves a torn
// file behind.

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pgfed/pgfed/pgerr"
)

// FileAccess is the directories under which COPY may read and write
// files; none means no file access.
type FileAccess struct {
	Dirs []string
}

// resolve checks path for COPY FROM (write false) or TO, and returns the
// file to use, with symbolic links resolved.
func (fa *FileAccess) resolve(path string, write bool) (string, error) {
	dir := "from"
	if write {
		dir = "to"
	}
	if fa == nil || len(fa.Dirs) == 0 {
		return "", pgerr.New(pgerr.InsufficientPrivilege, "permission denied to COPY %s a file", dir).
			WithHint("Anyone can COPY to stdout or from stdin. An embedding program allows files with pgfed.WithFileAccess.")
	}
	if !filepath.IsAbs(path) {
		return "", pgerr.New(pgerr.InvalidName, "relative path not allowed for COPY %s file", dir)
	}
	real := realPath(filepath.Clean(path))
	for _, d := range fa.Dirs {
		rel, err := filepath.Rel(realPath(filepath.Clean(d)), real)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return real, nil
		}
	}
	return "", pgerr.New(pgerr.InsufficientPrivilege, "permission denied to COPY %s file \"%s\"", dir, path).
		WithHint("COPY may use files under: %s.", strings.Join(fa.Dirs, ", "))
}

// realPath resolves the symbolic links of p, or of its directory when p
// does not exist yet.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(d, filepath.Base(p))
	}
	return p
}

// openRead opens a file for COPY FROM.
func (fa *FileAccess) openRead(path string) (*os.File, error) {
	real, err := fa.resolve(path, false)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, pgerr.New(pgerr.UndefinedFile, "could not open file %q for reading: %s", path, strerror(err)).
			WithHint("COPY FROM instructs the PostgreSQL server process to read a file. You may want a client-side facility such as psql's \\copy.")
	}
	return f, nil
}

// atomicFile is COPY TO's output file: written under a temporary name and
// renamed into place by finish(true), removed by finish(false).
type atomicFile struct {
	f          *os.File
	path, real string
}

func (fa *FileAccess) create(path string) (*atomicFile, error) {
	real, err := fa.resolve(path, true)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(real), "."+filepath.Base(real)+".pgfed-*")
	if err != nil {
		return nil, pgerr.New(pgerr.UndefinedFile, "could not open file %q for writing: %s", path, strerror(err)).
			WithHint("COPY TO instructs the PostgreSQL server process to write a file. You may want a client-side facility such as psql's \\copy.")
	}
	return &atomicFile{f: f, path: path, real: real}, nil
}

func (a *atomicFile) Write(p []byte) (int, error) { return a.f.Write(p) }

// finish puts the file in place (ok) or throws it away.
func (a *atomicFile) finish(ok bool) error {
	name := a.f.Name()
	if !ok {
		a.f.Close()
		os.Remove(name)
		return nil
	}
	err := a.f.Chmod(0o644)
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, a.real)
	}
	if err != nil {
		os.Remove(name)
		return pgerr.New(pgerr.IOError, "could not write file %q: %s", a.path, strerror(err))
	}
	return nil
}

var _ io.Writer = (*atomicFile)(nil)
