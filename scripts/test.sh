#!/usr/bin/env bash
# Runs pgfed's whole test suite: installs what the tests need (PostgreSQL
# server binaries, gcc for cgo and -race) if it is missing, then runs
# go test over every package. Extra arguments go to go test, e.g.
#   scripts/test.sh -run TestCorpusOnPostgres -v
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Runs a command as root, through sudo when we are not root already.
as_root() {
	if [[ $(id -u) -eq 0 ]]; then
		"$@"
	else
		sudo "$@"
	fi
}

apt_updated=false
apt_install() {
	if ! command -v apt-get >/dev/null; then
		echo "test.sh: $* missing and no apt-get to install it with" >&2
		exit 1
	fi
	if [[ $apt_updated == false ]]; then
		as_root env DEBIAN_FRONTEND=noninteractive apt-get update
		apt_updated=true
	fi
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "$@"
}

# The same places pgtest looks: pg_config's bindir, else Debian's
# per-version directories.
have_postgres_server() {
	local bindir
	if bindir=$(pg_config --bindir 2>/dev/null) && [[ -x $bindir/postgres && -x $bindir/initdb ]]; then
		return 0
	fi
	compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null
}

if ! have_postgres_server; then
	echo "test.sh: installing PostgreSQL server binaries" >&2
	apt_install postgresql # Debian's server package includes the contrib modules, postgres_fdw among them
fi
if ! command -v gcc >/dev/null; then
	echo "test.sh: installing gcc (cgo, -race)" >&2
	apt_install gcc
fi

exec go test -race -count=1 -timeout 20m ./... "$@"
