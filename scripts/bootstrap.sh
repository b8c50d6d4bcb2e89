#!/usr/bin/env bash
# Sets up this checkout on a fresh machine, then runs the service or every test.
#   bash scripts/bootstrap.sh start   install what is needed, build, and run the service
#   bash scripts/bootstrap.sh test    install what is needed, reach PostgreSQL, run every test
#   bash scripts/bootstrap.sh setup-tests   the same without running them (CI runs `pnpm test` next)
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=10.34.9
export TURBO_TELEMETRY_DISABLED=1

say() { printf '[bootstrap] %s\n' "$*" >&2; }

ensure_pnpm() {
  if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version 2>/dev/null)" = "$PNPM_VERSION" ]; then return; fi
  # corepack cannot fetch pnpm on these machines; npm can.
  say "installing pnpm $PNPM_VERSION with npm"
  npm install -g "pnpm@$PNPM_VERSION" --no-fund --no-audit >&2
}

# The PostgreSQL tests find a server through TEST_DATABASE_URL, Docker, or the local server on
# 127.0.0.1:5432; this starts the local one when it is installed and down.
ensure_postgres() {
  if [ -n "${TEST_DATABASE_URL:-}" ]; then return; fi
  if command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h "${PGHOST:-127.0.0.1}" -p "${PGPORT:-5432}"; then return; fi
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    for version in $(ls /etc/postgresql); do
      say "starting the local PostgreSQL $version cluster"
      pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
    done
    for _ in $(seq 1 30); do
      pg_isready -q -h "${PGHOST:-127.0.0.1}" -p "${PGPORT:-5432}" && return
      sleep 1
    done
  fi
  say "no PostgreSQL answers on ${PGHOST:-127.0.0.1}:${PGPORT:-5432}; the PostgreSQL tests will say how to provide one"
}

# Installs a Debian package for the tests that need it, as root or through a password-less sudo:
# apt_install PACKAGE WHAT-FOR ELSE. Without either, or without apt-get, or when apt-get fails, it says
# so (ELSE: what to do instead) and goes on: the tests that need the package fail, saying how to get it.
apt_install() {
  local package=$1 what_for=$2 otherwise=$3 sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; else
      say "cannot install $package (not root, no sudo): run 'apt-get update && apt-get install -y $package' as root"
      return
    fi
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    say "cannot install $package: no apt-get here; $otherwise"
    return
  fi
  say "installing Debian's $package for $what_for"
  $sudo apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$package" >&2 ||
    say "installing $package failed; $otherwise"
}

# The docs page is tested in Debian's Chromium (playwright-core drives it and never downloads a
# browser); the test fails, saying how to install it, when /usr/bin/chromium is missing.
ensure_chromium() {
  [ -x /usr/bin/chromium ] ||
    apt_install chromium 'the browser test' 'install a chromium at /usr/bin/chromium'
}

# The PgBouncer tests start Debian's pgbouncer (transaction mode, a free port) in front of the test
# PostgreSQL, unless TEST_PGBOUNCER_URL names one; they fail, saying how to install it, without it.
# Where systemd runs, the package starts a system-wide PgBouncer; the tests start their own.
ensure_pgbouncer() {
  [ -n "${TEST_PGBOUNCER_URL:-}" ] || [ -x /usr/sbin/pgbouncer ] ||
    apt_install pgbouncer 'the tests through a transaction pooler' \
      'install pgbouncer at /usr/sbin/pgbouncer or set TEST_PGBOUNCER_URL'
}

# The failover tests start a pg_auto_failover formation (a monitor and two nodes, Debian's
# pg_autoctl 2.x for PostgreSQL 15, free ports); they fail, saying how to install it, without it.
ensure_auto_failover() {
  { command -v pg_autoctl >/dev/null 2>&1 && [ -f /usr/share/postgresql/15/extension/pgautofailover.control ]; } ||
    apt_install postgresql-15-auto-failover 'the failover tests' \
      'install pg_autoctl and the pgautofailover extension for PostgreSQL 15'
}

command="${1:-}"
case "$command" in
  start)
    ensure_pnpm
    # Standard output is the service's log alone (JSON lines): what installs and builds goes to stderr, and
    # pnpm -s prints no banner of its own.
    pnpm install --frozen-lockfile >&2
    exec pnpm -s start
    ;;
  test | setup-tests)
    ensure_pnpm
    pnpm install --frozen-lockfile
    ensure_postgres
    ensure_chromium
    ensure_pgbouncer
    ensure_auto_failover
    # setup-tests stops here: .ci/run then runs `pnpm test` itself, as the README says.
    if [ "$command" = test ]; then exec pnpm test; fi
    ;;
  *)
    echo "usage: bash scripts/bootstrap.sh start|test|setup-tests" >&2
    exit 2
    ;;
esac
