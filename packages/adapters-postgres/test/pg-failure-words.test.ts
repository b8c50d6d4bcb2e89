import { createRequire } from 'node:module'
import { createServer, connect, type Server, type Socket } from 'node:net'
import pg from 'pg'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { pgConnectionSqlstate } from '../src/runner/pg-connection-failures.js'
import { classifyStoreError } from '../src/runner/store-errors.js'

// pg-connection-failures.ts knows pg's failures of a connection by their words alone (they carry no code): a
// guard that each failure, made for real, still has words it knows. ARCHITECTURE.md, "Made by hand, on purpose".
const PG = `pg ${(createRequire(import.meta.url)('pg/package.json') as { version: string }).version}`
const server = new URL(inject('postgres').url)

const opened: Array<() => unknown> = []
afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((close) => close()))
})

// A TCP server on a free port of 127.0.0.1, each connection handed to `take`; closed after the test.
const listen = async (take: (socket: Socket) => void): Promise<number> => {
  const sockets = new Set<Socket>()
  const tcp: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
    take(socket)
  })
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve))
  opened.push(() => {
    for (const socket of sockets) socket.destroy()
    return new Promise((resolve) => tcp.close(resolve))
  })
  return (tcp.address() as { port: number }).port
}

// The error `act` fails with, which it must.
const failureOf = async (act: () => Promise<unknown>): Promise<Error> => {
  const outcome = await act().then(
    () => undefined,
    (error: unknown) => error as Error,
  )
  if (outcome === undefined) throw new Error('expected a failure, and it succeeded')
  return outcome
}

const expectCode = (error: Error, code: string, what: string) =>
  expect(
    pgConnectionSqlstate(error.message),
    `${PG} reports ${what} as "${error.message}", which pg-connection-failures.ts does not know: ` +
      'teach it these words (the store would take the failure for a bug: a 500, not a 503)',
  ).toBe(code)

const client = (config: pg.ClientConfig) => {
  const made = new pg.Client({ user: 'postgres', database: 'postgres', ...config })
  made.on('error', () => {})
  opened.push(() => made.end())
  return made
}

describe(`pg's words for a connection that fails (${PG}), as pg-connection-failures.ts reads them`, () => {
  it('a socket that closes under a statement, and the statements asked of that client after', async () => {
    // A forwarder to the real server, cut once the statement is sent.
    const cut: Array<() => void> = []
    const port = await listen((socket) => {
      const upstream = connect(Number(server.port || 5432), server.hostname)
      upstream.on('error', () => {})
      socket.pipe(upstream).pipe(socket)
      cut.push(() => (upstream.destroy(), socket.destroy()))
    })
    const lost = client({ host: '127.0.0.1', port })
    await lost.connect()
    const sleeping = failureOf(() => lost.query('SELECT pg_sleep(5)'))
    await new Promise((resolve) => setTimeout(resolve, 100))
    for (const end of cut) end()
    expectCode(await sleeping, '08006', 'a socket closed under a statement')
    expectCode(await failureOf(() => lost.query('SELECT 1')), '08006', 'a statement on a broken client')
  })

  it('a client that was ended', async () => {
    const ended = client({ host: server.hostname, port: Number(server.port || 5432) })
    await ended.connect()
    await ended.end()
    expectCode(await failureOf(() => ended.query('SELECT 1')), '08006', 'a statement on an ended client')
  })

  it('a statement that outlives query_timeout', async () => {
    const slow = client({ host: server.hostname, port: Number(server.port || 5432), query_timeout: 50 })
    await slow.connect()
    expectCode(await failureOf(() => slow.query('SELECT pg_sleep(2)')), '08006', 'a query_timeout')
  })

  it('a server that says nothing within the connect timeout, to a client and through a pool', async () => {
    const port = await listen(() => {})
    const silent = { host: '127.0.0.1', port, connectionTimeoutMillis: 100 }
    expectCode(await failureOf(() => client(silent).connect()), '08001', "a client's connect timeout")
    const pool = new pg.Pool({ ...silent, user: 'postgres' })
    opened.push(() => pool.end())
    expectCode(await failureOf(() => pool.connect()), '08001', "a pool's connect timeout")
  })

  it('a pool with no connection free within the connect timeout', async () => {
    const host = { host: server.hostname, port: Number(server.port || 5432), user: 'postgres' }
    const pool = new pg.Pool({ ...host, database: 'postgres', max: 1, connectionTimeoutMillis: 100 })
    opened.push(() => pool.end())
    const held = await pool.connect()
    opened.unshift(() => held.release())
    expectCode(await failureOf(() => pool.connect()), '08001', 'a pool without a free connection')
  })

  it('a server without TLS, asked for it', async () => {
    // PostgreSQL's answer to an SSLRequest when it has no TLS: the single byte N.
    const port = await listen((socket) => socket.once('data', () => socket.write('N')))
    const tls = client({ host: '127.0.0.1', port, ssl: { rejectUnauthorized: false } })
    expectCode(await failureOf(() => tls.connect()), '08004', 'a server without TLS')
  })
})

describe(`pg-pool's words for a pool that was ended (${PG}'s), as store-errors.ts reads them`, () => {
  it('a statement asked of a pool being closed (a shutdown) is the store unavailable, not a bug', async () => {
    const pool = new pg.Pool({ host: server.hostname, port: Number(server.port || 5432), user: 'postgres' })
    await pool.end()
    const error = await failureOf(() => pool.query('SELECT 1'))
    expect(
      classifyStoreError(error),
      `pg-pool of ${PG} reports a statement on an ended pool as "${error.message}", which store-errors.ts's ` +
        'POOL_ENDED does not know: teach it these words (a request during a shutdown would be a 500, not a 503)',
    ).toBe('unavailable')
  })
})
