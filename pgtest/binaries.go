package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrNotInstalled is returned (wrapped) by Start when no PostgreSQL server
// binaries can be found. Shared turns it into a skip outside CI.
var ErrNotInstalled = errors.New("pgtest: PostgreSQL server binaries (initdb, postgres) not found")

// MajorVersion is the PostgreSQL major version whose binaries Start looks
// for: pgfed's expectations are recorded from PostgreSQL 15, so another
// version must not be picked up silently.
const MajorVersion = 15

// debianBinDir is where Debian's and Ubuntu's postgresql-15 package keeps
// initdb and postgres (off PATH).
var debianBinDir = fmt.Sprintf("/usr/lib/postgresql/%d/bin", MajorVersion)

// findBinDir returns the directory holding initdb, postgres and pg_ctl:
// the explicit one if given (any version), else PostgreSQL 15's:
// Debian's per-version directory, or pg_config's --bindir when its server
// is 15.
func findBinDir(explicit string) (string, error) {
	if explicit != "" {
		if hasServerBinaries(explicit) {
			return explicit, nil
		}
		return "", fmt.Errorf("%w in %s", ErrNotInstalled, explicit)
	}
	if hasServerBinaries(debianBinDir) {
		return debianBinDir, nil
	}
	// pg_config may come from libpq-dev alone, without a server next to it,
	// so its answer only counts when the server binaries are really there.
	var other string
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := strings.TrimSpace(string(out))
		if hasServerBinaries(dir) {
			v, err := serverMajorVersion(dir)
			if err == nil && v == MajorVersion {
				return dir, nil
			}
			other = fmt.Sprintf("; %s holds PostgreSQL %d, not %d", dir, v, MajorVersion)
		}
	}
	return "", fmt.Errorf("%w (looked at %s and pg_config --bindir%s; on Debian: apt-get install -y postgresql-%d)",
		ErrNotInstalled, debianBinDir, other, MajorVersion)
}

// serverMajorVersion runs postgres --version in dir ("postgres
// (PostgreSQL) 15.18 ...") and returns the major version.
func serverMajorVersion(dir string) (int, error) {
	out, err := exec.Command(filepath.Join(dir, "postgres"), "--version").Output()
	if err != nil {
		return 0, err
	}
	fields := strings.Fields(string(out))
	if len(fields) < 3 {
		return 0, fmt.Errorf("pgtest: unexpected postgres --version output %q", out)
	}
	major, _, _ := strings.Cut(fields[2], ".")
	return strconv.Atoi(major)
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
