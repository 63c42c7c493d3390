#!/usr/bin/env bash
# Runs pgfed's whole test suite: installs what the tests need when it is
# missing (PostgreSQL 15's server binaries, a C compiler for cgo and -race),
# then runs go test over every package. Extra arguments go to go test, e.g.
#   scripts/test.sh -run TestCorpusOnPostgres -v
#
# PostgreSQL 15 exactly: the SQL corpus is recorded from 15, and the tests
# (package pgtest) use no other major version. Installing needs apt-get and
# root (directly, or through sudo); where that is not possible the script
# says what to install and stops.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

pg_major=15

need() {
	echo "test.sh: $*" >&2
	exit 1
}

# Runs a command as root: directly when we are root, else through sudo.
as_root() {
	if [[ $(id -u) -eq 0 ]]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		need "installing needs root, and there is no sudo: run as root, or install the packages yourself: $*"
	fi
}

apt_updated=false
apt_install() {
	if ! command -v apt-get >/dev/null; then
		need "$* missing and no apt-get to install it with; install it with your system's package manager"
	fi
	if [[ $apt_updated == false ]]; then
		as_root env DEBIAN_FRONTEND=noninteractive apt-get update
		apt_updated=true
	fi
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "$@"
}

# The places pgtest looks for PostgreSQL 15: Debian's per-version
# directory, or pg_config's bindir if its server is 15.
have_postgres_15() {
	[[ -x /usr/lib/postgresql/$pg_major/bin/postgres && -x /usr/lib/postgresql/$pg_major/bin/initdb ]] && return 0
	local bindir
	bindir=$(pg_config --bindir 2>/dev/null) || return 1
	[[ -x $bindir/postgres && -x $bindir/initdb ]] || return 1
	[[ $("$bindir/postgres" --version) =~ \(PostgreSQL\)\ $pg_major\. ]]
}

if ! have_postgres_15; then
	echo "test.sh: installing PostgreSQL $pg_major's server binaries" >&2
	# Debian's server package includes the contrib modules, postgres_fdw among them.
	if ! apt_install "postgresql-$pg_major"; then
		need "could not install postgresql-$pg_major: this system's repositories may not carry PostgreSQL $pg_major (add the PGDG apt repository, https://wiki.postgresql.org/wiki/Apt, and run again)"
	fi
fi
if ! command -v gcc >/dev/null && ! command -v cc >/dev/null; then
	echo "test.sh: installing gcc (cgo: pg_query_go is PostgreSQL's parser in C; -race)" >&2
	apt_install gcc
fi

go test -race -count=1 -timeout 20m ./... "$@"
# The fuzz target's seeds ran above. Fuzzing itself needs a build of its
# own (coverage-instrumented: pg_query's C parser compiles again, about
# four minutes of a 2-core machine), so it runs only when asked:
#   PGFED_FUZZTIME=20s scripts/test.sh
if [[ $# -eq 0 && -n ${PGFED_FUZZTIME:-} ]]; then
	go test -run '^$' -fuzz '^FuzzStatements$' -fuzztime "$PGFED_FUZZTIME" .
fi
