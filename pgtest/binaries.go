package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ErrNotInstalled is returned (wrapped) by Start when no PostgreSQL server
// binaries can be found. Shared turns it into a skip outside CI.
var ErrNotInstalled = errors.New("pgtest: PostgreSQL server binaries (initdb, postgres) not found")

// debianBinDirGlob matches the per-version binary directories of Debian's and
// Ubuntu's postgresql-NN packages, which keep initdb and postgres off PATH.
const debianBinDirGlob = "/usr/lib/postgresql/*/bin"

// findBinDir returns the directory holding initdb, postgres and pg_ctl: the
// explicit one if given, else pg_config's --bindir, else the newest
// /usr/lib/postgresql/NN/bin.
func findBinDir(explicit string) (string, error) {
	if explicit != "" {
		if hasServerBinaries(explicit) {
			return explicit, nil
		}
		return "", fmt.Errorf("%w in %s", ErrNotInstalled, explicit)
	}
	// pg_config may come from libpq-dev alone, without a server next to it,
	// so its answer only counts when the server binaries are really there.
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := strings.TrimSpace(string(out))
		if hasServerBinaries(dir) {
			return dir, nil
		}
	}
	candidates, _ := filepath.Glob(debianBinDirGlob)
	sort.Slice(candidates, func(i, j int) bool {
		return versionOfBinDir(candidates[i]) > versionOfBinDir(candidates[j])
	})
	for _, dir := range candidates {
		if hasServerBinaries(dir) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("%w (looked at pg_config --bindir and %s; on Debian: apt-get install -y postgresql)",
		ErrNotInstalled, debianBinDirGlob)
}

// versionOfBinDir extracts NN from /usr/lib/postgresql/NN/bin so that 9.6
// sorts below 15; unparsable names sort last.
func versionOfBinDir(dir string) float64 {
	version, err := strconv.ParseFloat(filepath.Base(filepath.Dir(dir)), 64)
	if err != nil {
		return -1
	}
	return version
}

func hasServerBinaries(dir string) bool {
	for _, name := range []string{"initdb", "postgres", "pg_ctl"} {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}
