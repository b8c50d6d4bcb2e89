import {
  describeTarget,
  formatHostPort,
  parseConnectionTargets,
} from '@pets/adapters-postgres/connection-string'
import { NO_TLS, pgConnectionSqlstate } from '@pets/adapters-postgres/connection-failures'
import { getSystemErrorMap } from 'node:util'
import type { StandardOutputError } from './commands/standard-output.js'
import type { AppConfig } from './config.js'

/** What was running when an error ended the process: the command, and the configuration it read. */
export type FailureContext = {
  /** The command as typed, such as `migrate` or `keys list`; `serve` for the service. */
  readonly command: string
  readonly config: Pick<AppConfig, 'host' | 'port' | 'metricsPort' | 'storage'>
  /**
   * Whether an error means PostgreSQL cannot serve now: `isUnavailableError` of @pets/adapters-postgres,
   * given by the caller so that this module does not load pg.
   */
  readonly isUnavailableError?: (error: unknown) => boolean
}

/** A failure of the surroundings that the operator can fix (a database, a port, a file), not a bug. */
export type OperationalFailure = {
  /** What failed and why, naming the variable or option to look at; never a password. */
  readonly line: string
  /**
   * The error's code: a system error's name (ECONNREFUSED) or PostgreSQL's SQLSTATE (3D000); for pg's own
   * failures of a connection, which have none, the SQLSTATE of class 08 that stands for it (08001, 08004, 08006).
   */
  readonly code?: string
  /** The error's own message, for the log. */
  readonly message: string
}

type Fields = {
  readonly code?: unknown
  readonly errno?: unknown
  readonly syscall?: unknown
  readonly address?: unknown
  readonly port?: unknown
  readonly hostname?: unknown
  readonly path?: unknown
  readonly message?: unknown
  readonly cause?: unknown
  readonly errors?: unknown
}

// The error, then what it wraps (`cause`, an AggregateError's `errors`): the first that says what failed wins.
const chain = (error: unknown, depth = 0): ReadonlyArray<Fields> => {
  if (typeof error !== 'object' || error === null || depth > 8) return []
  const fields = error as Fields
  const inner = [fields.cause, ...(Array.isArray(fields.errors) ? (fields.errors as Array<unknown>) : [])]
  return [fields, ...inner.flatMap((e) => chain(e, depth + 1))]
}

const codeOf = (f: Fields) => (typeof f.code === 'string' ? f.code : undefined)
const messageOf = (f: Fields) => (typeof f.message === 'string' ? f.message : 'no message')
// As adapters-postgres writes a host in its messages: `[::1]:5432`.
const hostPort = (host: string, port: unknown) => formatHostPort({ host, port: Number(port) })

// The error's code; for pg's own failures of a connection, which have none, the SQLSTATE that stands for it.
const codeOrSqlstate = (f: Fields) => codeOf(f) ?? pgConnectionSqlstate(f.message)

// Node's messages repeat the syscall and the address; libuv's words for the errno say only why.
const why = (f: Fields): string => {
  const system = typeof f.errno === 'number' ? getSystemErrorMap().get(f.errno)?.[1] : undefined
  const reason =
    f.syscall === 'getaddrinfo'
      ? `the host name ${String(f.hostname)} cannot be resolved`
      : (system ?? messageOf(f))
  const code = codeOrSqlstate(f)
  return code === undefined ? reason : `${reason} (${code})`
}

const failure = (context: Pick<FailureContext, 'command'>, what: string, f: Fields): OperationalFailure => {
  const code = codeOrSqlstate(f)
  return {
    line: `${context.command}: ${what}: ${why(f)}`,
    ...(code === undefined ? {} : { code }),
    message: messageOf(f),
  }
}

type Database = { readonly variable: string; readonly target: string; readonly hosts: ReadonlyArray<string> }

// The session's database, as with-database.ts picks it, described as the 'storage: PostgreSQL' line does:
// user, hosts, database; never the password.
const databaseOf = ({ storage }: FailureContext['config']): Database | undefined => {
  if (storage.kind !== 'postgres') return undefined
  const variable = storage.directUrl === undefined ? 'DATABASE_URL' : 'DATABASE_DIRECT_URL'
  try {
    const targets = parseConnectionTargets(storage.directUrl ?? storage.url, {
      defaultTargetSessionAttrs: 'any',
    })
    return { variable, target: describeTarget(targets), hosts: targets.hosts.map((h) => h.host) }
  } catch {
    return { variable, target: 'the database', hosts: [] }
  }
}

// Only `serve` listens. A name that does not resolve fails in getaddrinfo, before any listen.
const listenFailure = (f: Fields, context: FailureContext, database: Database | undefined) => {
  const { host, port, metricsPort } = context.config
  if (context.command !== 'serve') return undefined
  if (f.syscall === 'getaddrinfo' && f.hostname === host)
    return database?.hosts.includes(host) === true
      ? failure(context, `cannot start (HOST and ${database.variable} name ${host})`, f)
      : failure(context, `cannot listen on ${hostPort(host, port)} (HOST, PORT)`, f)
  if ((f.syscall !== 'listen' && f.syscall !== 'bind') || codeOf(f) === undefined) return undefined
  const onMetrics = metricsPort !== undefined && metricsPort !== port && f.port === metricsPort
  const where = hostPort(typeof f.address === 'string' ? f.address : host, f.port ?? port)
  return failure(context, `cannot listen on ${where} (HOST, ${onMetrics ? 'METRICS_PORT' : 'PORT'})`, f)
}

// Class 28: the role, its password or pg_hba.conf; 3D000: no such database; 42501: a role without the right
// to connect (or, in a command, to what it reads): each the operator's to grant, none a bug of ours.
export const refusesSession = (code: string | undefined) =>
  code?.startsWith('28') === true || code === '3D000' || code === '42501'

// TLS that sslmode asks for and the server cannot give: pg's words when the server answers "no TLS" (the
// e2e test against a server without TLS guards them), and Node's codes for a certificate that fails the
// check (OpenSSL's verify results, ERR_TLS_CERT_ALTNAME_INVALID for a name that does not match).
const CERTIFICATE =
  /^(ERR_TLS_|ERR_SSL_)|CERT|^UNABLE_TO_(GET_ISSUER|VERIFY_LEAF|DECRYPT|DECODE)|^HOSTNAME_MISMATCH$|^INVALID_CA$/
const tlsRefused = (f: Fields) =>
  f.message === NO_TLS
    ? 'refused TLS'
    : CERTIFICATE.test(codeOf(f) ?? '')
      ? 'failed the TLS check'
      : undefined

const databaseFailure = (f: Fields, context: FailureContext, database: Database | undefined) => {
  if (database === undefined || context.command === 'openapi') return undefined
  const subject = `PostgreSQL at ${database.target} (${database.variable})`
  if (refusesSession(codeOf(f))) return failure(context, `${subject} refused the connection`, f)
  const tls = tlsRefused(f)
  if (tls !== undefined) return failure(context, `${subject} ${tls} (sslmode)`, f)
  if (f.syscall === 'connect' || f.syscall === 'getaddrinfo')
    return failure(context, `${subject} cannot be reached`, f)
  // pg's own timeouts carry no code; adapters-postgres knows their messages, and which SQLSTATEs mean "not now".
  // Asked of this error alone: a wrapper of one of them is described by what it wraps, further down the chain.
  if (context.isUnavailableError?.({ code: f.code, message: f.message }) === true)
    return failure(context, `${subject} ${codeOf(f) === undefined ? 'cannot be reached' : 'cannot serve'}`, f)
  return undefined
}

const fileFailure = (f: Fields, context: FailureContext) =>
  context.command === 'openapi' && typeof f.path === 'string' && codeOf(f) !== undefined
    ? failure(context, `cannot write ${f.path} (--out)`, f)
    : undefined

/** The operator's line for a command whose standard output did not take its lines, and what that cost. */
export const outputFailure = (error: StandardOutputError, command: string): OperationalFailure => {
  const { line, ...rest } = failure({ command }, error.message, error.cause)
  return { line: error.consequence === undefined ? line : `${line}; ${error.consequence}`, ...rest }
}

/**
 * The operator's line for an error that ended a command or the service's start, when it is a failure of its
 * surroundings: a database that cannot be reached, refuses the login or does not exist; an address that
 * cannot be bound; a file that cannot be written. Undefined for anything else, which is a bug.
 */
export const operationalFailure = (
  error: unknown,
  context: FailureContext,
): OperationalFailure | undefined => {
  const database = databaseOf(context.config)
  for (const f of chain(error)) {
    const found =
      listenFailure(f, context, database) ?? databaseFailure(f, context, database) ?? fileFailure(f, context)
    if (found !== undefined) return found
  }
  return undefined
}
