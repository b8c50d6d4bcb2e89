import { existsSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { giveToPostgres } from './processes.js'

// Debian's PostgreSQL 15, whose pg_auto_failover package these tests use (bootstrap.sh setup-tests).
const PG_BINDIR = '/usr/lib/postgresql/15/bin'
const NEEDED = [
  '/usr/bin/pg_autoctl',
  `${PG_BINDIR}/pg_ctl`,
  '/usr/share/postgresql/15/extension/pgautofailover.control',
]

/** How to get what the formation needs, for the message of a test that cannot start one. */
export const HOW_TO_INSTALL_AUTO_FAILOVER =
  "Install Debian's pg_auto_failover for PostgreSQL 15: apt-get install -y postgresql-15-auto-failover " +
  '(bash scripts/bootstrap.sh setup-tests does it). The tests start a formation themselves, on free ports, ' +
  'as the postgres user when run as root.'

/** Throws, saying how to install it, when pg_auto_failover or PostgreSQL 15 is missing. */
export const assertInstalled = (): void => {
  const missing = NEEDED.filter((path) => !existsSync(path))
  if (missing.length > 0)
    throw new Error(
      `pg_auto_failover is not installed (missing ${missing.join(', ')}).\n${HOW_TO_INSTALL_AUTO_FAILOVER}`,
    )
}

/** A fresh directory for one formation, owned by the postgres user, with a directory for its sockets. */
export const makeFormationDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'pets-failover-'))
  mkdirSync(join(dir, 'sock'))
  giveToPostgres(dir)
  giveToPostgres(join(dir, 'sock'))
  return dir
}

/**
 * What every pg_autoctl of a formation runs with: PostgreSQL 15 first on PATH, and its
 * configuration, state and sockets in `dir` rather than the postgres user's home or /var/run.
 */
export const autoctlEnvironment = (dir: string): NodeJS.ProcessEnv => ({
  PATH: `${PG_BINDIR}:${process.env.PATH ?? '/usr/bin:/bin'}`,
  HOME: dir,
  XDG_CONFIG_HOME: join(dir, 'config'),
  XDG_DATA_HOME: join(dir, 'share'),
  XDG_RUNTIME_DIR: join(dir, 'run'),
  // pg_autoctl passes it to postgres as -k (the socket directory); PGHOST finds it again.
  PG_REGRESS_SOCK_DIR: join(dir, 'sock'),
  PGHOST: join(dir, 'sock'),
  // initdb takes the encoding from the locale: under C its databases would keep SQL_ASCII, which the
  // service refuses (requireUtf8Database). Debian always has C.UTF-8.
  LC_ALL: 'C.UTF-8',
})
