import { isUnavailableError } from '@pets/adapters-postgres'
import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/lib/Either.js'
import { loadConfig, type StorageConfig } from '../src/config.js'
import { operationalFailure, type FailureContext } from '../src/operational-failure.js'

// Errors shaped as node, libuv and pg make them (the fields the classification reads, and their messages).
const systemError = (message: string, fields: Record<string, unknown>) =>
  Object.assign(new Error(message), fields)
const refused = (port: number) =>
  systemError(`connect ECONNREFUSED 127.0.0.1:${port}`, {
    code: 'ECONNREFUSED',
    errno: -111,
    syscall: 'connect',
    address: '127.0.0.1',
    port,
  })
const notFound = (hostname: string) =>
  systemError(`getaddrinfo ENOTFOUND ${hostname}`, {
    code: 'ENOTFOUND',
    errno: -3008,
    syscall: 'getaddrinfo',
    hostname,
  })
const inUse = (address: string, port: number) =>
  systemError(`listen EADDRINUSE: address already in use ${address}:${port}`, {
    code: 'EADDRINUSE',
    errno: -98,
    syscall: 'listen',
    address,
    port,
  })
const fromPostgres = (message: string, code: string) =>
  Object.assign(new Error(message), { name: 'error', severity: 'FATAL', code })

// The storage configuration loadConfig makes of DATABASE_URL (and DATABASE_DIRECT_URL).
const postgres = (url: string, directUrl?: string): StorageConfig => {
  const loaded = loadConfig({
    DATABASE_URL: url,
    ...(directUrl === undefined ? {} : { DATABASE_DIRECT_URL: directUrl }),
  })
  if (E.isLeft(loaded)) throw new Error(loaded.left.join('; '))
  return loaded.right.storage
}
const DATABASE = postgres('postgres://postgres:hunter2@127.0.0.1:5999/animals')
const context = (command: string, config: Partial<FailureContext['config']> = {}): FailureContext => ({
  command,
  config: { host: '127.0.0.1', port: 3000, storage: DATABASE, ...config },
  isUnavailableError,
})
const lineOf = (error: unknown, of: FailureContext) => operationalFailure(error, of)?.line

describe('a database that cannot be reached, refuses the login or does not exist', () => {
  it('is one line naming the command, the target, the variable and the code, never the password', () => {
    const failure = operationalFailure(refused(5999), context('migrate'))
    expect(failure).toEqual({
      line:
        'migrate: PostgreSQL at postgres@127.0.0.1:5999/animals (DATABASE_URL) cannot be reached: ' +
        'connection refused (ECONNREFUSED)',
      code: 'ECONNREFUSED',
      message: 'connect ECONNREFUSED 127.0.0.1:5999',
    })
    expect(JSON.stringify(failure)).not.toContain('hunter2')
  })

  it('names DATABASE_DIRECT_URL when it is set: the commands and the migrations at start go there', () => {
    const storage = postgres(
      'postgres://app@pgbouncer:6432/animals',
      'postgres://owner:pw@[::1]:5432/animals',
    )
    expect(lineOf(refused(5432), context('keys list', { storage }))).toBe(
      'keys list: PostgreSQL at owner@[::1]:5432/animals (DATABASE_DIRECT_URL) cannot be reached: ' +
        'connection refused (ECONNREFUSED)',
    )
  })

  it('says what PostgreSQL refused: the role, the password, the database', () => {
    expect(lineOf(fromPostgres('role "nosuchrole" does not exist', '28000'), context('keys list'))).toBe(
      'keys list: PostgreSQL at postgres@127.0.0.1:5999/animals (DATABASE_URL) refused the connection: ' +
        'role "nosuchrole" does not exist (28000)',
    )
    expect(
      lineOf(fromPostgres('password authentication failed for user "postgres"', '28P01'), context('migrate')),
    ).toMatch(/refused the connection: password authentication failed for user "postgres" \(28P01\)$/)
    expect(lineOf(fromPostgres('database "nosuchdb" does not exist', '3D000'), context('serve'))).toBe(
      'serve: PostgreSQL at postgres@127.0.0.1:5999/animals (DATABASE_URL) refused the connection: ' +
        'database "nosuchdb" does not exist (3D000)',
    )
    expect(
      lineOf(fromPostgres('permission denied for database "animals"', '42501'), context('migrate')),
    ).toMatch(/refused the connection: permission denied for database "animals" \(42501\)$/)
  })

  it("reads a host name that does not resolve, a missing socket, and pg's own timeouts (no code of pg's)", () => {
    const storage = postgres('postgres://postgres@db.invalid/animals')
    expect(lineOf(notFound('db.invalid'), context('migrate', { storage }))).toBe(
      'migrate: PostgreSQL at postgres@db.invalid:5432/animals (DATABASE_URL) cannot be reached: ' +
        'the host name db.invalid cannot be resolved (ENOTFOUND)',
    )
    const socket = systemError('connect ENOENT /run/none/.s.PGSQL.5432', {
      code: 'ENOENT',
      errno: -2,
      syscall: 'connect',
    })
    expect(lineOf(socket, context('migrate'))).toMatch(
      /cannot be reached: no such file or directory \(ENOENT\)$/,
    )
    const timeout = new Error('Connection terminated unexpectedly')
    expect(lineOf(timeout, context('migrate'))).toMatch(
      /\(DATABASE_URL\) cannot be reached: Connection terminated unexpectedly \(08006\)$/,
    )
    // Without adapters-postgres' word for it, a message alone proves nothing.
    const { command, config } = context('migrate')
    expect(operationalFailure(timeout, { command, config })).toBeUndefined()
  })

  it('says when TLS that sslmode asks for is refused, or its certificate fails the check', () => {
    expect(lineOf(new Error('The server does not support SSL connections'), context('migrate'))).toBe(
      'migrate: PostgreSQL at postgres@127.0.0.1:5999/animals (DATABASE_URL) refused TLS (sslmode): ' +
        'The server does not support SSL connections (08004)',
    )
    const certificate = (message: string, code: string) => Object.assign(new Error(message), { code })
    for (const [message, code] of [
      ['self-signed certificate in certificate chain', 'SELF_SIGNED_CERT_IN_CHAIN'],
      ['certificate has expired', 'CERT_HAS_EXPIRED'],
      ['unable to verify the first certificate', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'],
      ["Hostname/IP does not match certificate's altnames", 'ERR_TLS_CERT_ALTNAME_INVALID'],
    ])
      expect(lineOf(certificate(message!, code!), context('keys list'))).toBe(
        `keys list: PostgreSQL at postgres@127.0.0.1:5999/animals (DATABASE_URL) failed the TLS check (sslmode): ${message} (${code})`,
      )
    // Another code, or the words in another message, are no TLS failure.
    expect(lineOf(certificate('no such thing', 'EPROTO_OTHER'), context('migrate'))).toBeUndefined()
    expect(
      lineOf(new Error('The server does not support SSL connections!'), context('migrate')),
    ).toBeUndefined()
  })

  it('is found under the errors that wrap it: a cause, an AggregateError', () => {
    const wrapped = new Error('PostgreSQL cannot be reached; check DATABASE_URL and try again', {
      cause: refused(5999),
    })
    expect(operationalFailure(wrapped, context('keys list'))?.code).toBe('ECONNREFUSED')
    const both = new AggregateError([refused(5999), refused(5998)], 'connect ECONNREFUSED')
    expect(lineOf(both, context('migrate'))).toMatch(
      /cannot be reached: connection refused \(ECONNREFUSED\)$/,
    )
  })
})

describe('an address the service cannot listen on', () => {
  const memory = { storage: { kind: 'memory' } as const }

  it('names HOST and PORT, or METRICS_PORT when that listener failed', () => {
    expect(lineOf(inUse('127.0.0.1', 3000), context('serve', memory))).toBe(
      'serve: cannot listen on 127.0.0.1:3000 (HOST, PORT): address already in use (EADDRINUSE)',
    )
    expect(lineOf(inUse('::1', 9464), context('serve', { ...memory, host: '::1', metricsPort: 9464 }))).toBe(
      'serve: cannot listen on [::1]:9464 (HOST, METRICS_PORT): address already in use (EADDRINUSE)',
    )
    const unavailable = systemError('listen EADDRNOTAVAIL: address not available 192.0.2.1:3000', {
      code: 'EADDRNOTAVAIL',
      errno: -99,
      syscall: 'listen',
      address: '192.0.2.1',
      port: 3000,
    })
    expect(lineOf(unavailable, context('serve', { ...memory, host: '192.0.2.1' }))).toBe(
      'serve: cannot listen on 192.0.2.1:3000 (HOST, PORT): address not available (EADDRNOTAVAIL)',
    )
  })

  it('names HOST for a host name that does not resolve, and DATABASE_URL too when it names the same host', () => {
    expect(lineOf(notFound('api.invalid'), context('serve', { ...memory, host: 'api.invalid' }))).toBe(
      'serve: cannot listen on api.invalid:3000 (HOST, PORT): the host name api.invalid cannot be resolved (ENOTFOUND)',
    )
    const storage = postgres('postgres://postgres@shared.invalid/animals')
    expect(lineOf(notFound('shared.invalid'), context('serve', { host: 'shared.invalid', storage }))).toBe(
      'serve: cannot start (HOST and DATABASE_URL name shared.invalid): the host name shared.invalid cannot be ' +
        'resolved (ENOTFOUND)',
    )
  })

  it('is no failure of a command, which never listens', () => {
    expect(operationalFailure(inUse('127.0.0.1', 3000), context('migrate'))).toBeUndefined()
  })
})

describe('a file the openapi command cannot write', () => {
  it('names --out, the path and the code', () => {
    const missing = systemError("ENOENT: no such file or directory, open '/nonexistent/x.json'", {
      code: 'ENOENT',
      errno: -2,
      syscall: 'open',
      path: '/nonexistent/x.json',
    })
    expect(operationalFailure(missing, context('openapi'))).toEqual({
      line: 'openapi: cannot write /nonexistent/x.json (--out): no such file or directory (ENOENT)',
      code: 'ENOENT',
      message: "ENOENT: no such file or directory, open '/nonexistent/x.json'",
    })
  })

  it('opens no database: an error of one there is unexpected', () => {
    expect(operationalFailure(refused(5999), context('openapi'))).toBeUndefined()
  })
})

describe('anything else', () => {
  it('is a bug, left to the fatal line with its stack', () => {
    for (const error of [
      new TypeError("Cannot read properties of undefined (reading 'id')"),
      fromPostgres('relation "pets" does not exist', '42P01'),
      fromPostgres('duplicate key value violates unique constraint "pets_pkey"', '23505'),
      'a string',
      undefined,
    ])
      expect(operationalFailure(error, context('migrate'))).toBeUndefined()
  })

  it('stops following causes that loop', () => {
    const looping: Error & { cause?: unknown } = new Error('loop')
    looping.cause = looping
    expect(operationalFailure(looping, context('migrate'))).toBeUndefined()
  })
})
