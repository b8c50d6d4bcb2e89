import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import pg from 'pg'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { connectToTarget, targetedClient } from '../src/runner/connect-to-target.js'
import { parseConnectionTargets } from '../src/runner/connection-targets.js'
import { describeTargets } from '../src/runner/describe-targets.js'
import { isUnavailableError } from '../src/runner/store-errors.js'

// The server of the global setup (TEST_DATABASE_URL, else one it found or started): a run without one fails.
const server = new URL(inject('postgres').url)
const live = { host: server.hostname, port: Number(server.port || 5432) }
const userInfo = server.password ? `${server.username}:${server.password}` : server.username

// What a forwarder in front of the server does: pass bytes on; make each session read-only (as a standby's is)
// or break its startup, by adding `options` to the startup packet; answer 57P03 (starting up); or say nothing.
type Mode = 'plain' | 'read-only' | 'bad-setting' | 'starting-up' | 'silent'
const STARTUP_OPTIONS = { 'read-only': '-c default_transaction_read_only=on', 'bad-setting': '-c no_such=1' }
const closers: Array<() => void> = []
const clients: Array<pg.Client | pg.Pool> = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.end().catch(() => {})))
  closers.splice(0).forEach((close) => close())
})

const forwarder = async (mode: Mode) => {
  const sockets = new Set<Socket>()
  const hold = (socket: Socket) => (sockets.add(socket), socket.on('error', () => socket.destroy()))
  const relay = createServer((client) => {
    hold(client).resume()
    if (mode === 'silent') return
    if (mode === 'starting-up') return void client.end(STARTING_UP)
    const upstream = hold(connect(live.port, live.host))
    let startup: Buffer | undefined = Buffer.alloc(0)
    client.on('data', (chunk: Buffer) => {
      if (startup === undefined) return void upstream.write(chunk)
      startup = Buffer.concat([startup, chunk])
      if (startup.length < 4 || startup.length < startup.readInt32BE(0)) return
      const options = mode === 'plain' ? undefined : STARTUP_OPTIONS[mode]
      upstream.write(options === undefined ? startup : withOption(startup, options))
      startup = undefined
    })
    upstream.on('data', (chunk: Buffer) => client.write(chunk))
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  const seen = { connections: 0 }
  relay.on('connection', () => seen.connections++)
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve))
  closers.push(() => (relay.close(), sockets.forEach((s) => s.destroy())))
  return { port: (relay.address() as AddressInfo).port, seen }
}

// A protocol message: its type (none for the startup packet), its length, its body.
const framed = (type: string, body: Buffer): Buffer => {
  const head = Buffer.alloc(type.length + 4)
  head.write(type)
  head.writeInt32BE(body.length + 4, type.length)
  return Buffer.concat([head, body])
}
const withOption = (startup: Buffer, value: string) =>
  framed('', Buffer.concat([startup.subarray(4, -1), Buffer.from(`options\0${value}\0\0`)]))
const STARTING_UP = framed(
  'E',
  Buffer.from('SFATAL\0VFATAL\0C57P03\0Mthe database system is starting up\0\0'),
)

const deadPort = async () => {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as AddressInfo
  return new Promise<number>((resolve) => probe.close(() => resolve(port)))
}

const targets = (hosts: ReadonlyArray<string | number>, query = '') => {
  const list = hosts.map((h) => (typeof h === 'number' ? `127.0.0.1:${h}` : h)).join(',')
  const uri = `postgres://${userInfo}@${list}${server.pathname}?${query}`
  return parseConnectionTargets(uri, { defaultTargetSessionAttrs: 'read-write' })
}
const open = async (t: ReturnType<typeof targets>) => {
  const client = await connectToTarget(t)
  clients.push(client)
  return client
}
// The port a new client reached, the client closed at once: a test that opens fifty keeps none of them open
// (the server's max_connections is shared with every package's tests running beside it).
const portReached = async (t: ReturnType<typeof targets>) => {
  const client = await connectToTarget(t)
  const { port } = client
  await client.end()
  return port
}
const answer = async (c: pg.Client | pg.Pool, text: string) => Object.values((await c.query(text)).rows[0])[0]
const failure = (p: Promise<unknown>) => p.then(() => new Error('connected')).catch((e: Error) => e)
const liveHost = `${live.host}:${live.port}`

it('describeTargets: user, hosts, database and rules, never the password', () => {
  const uri = 'postgres://app:hunter2@n1,[::1]:5433/pets?connect_timeout=2&sslmode=require'
  expect(describeTargets(parseConnectionTargets(uri, { defaultTargetSessionAttrs: 'any' }))).toBe(
    'app@n1:5432,[::1]:5433/pets target_session_attrs=any load_balance_hosts=disable connect_timeout=2s tls=verify',
  )
})

describe('connectToTarget', () => {
  it('passes a dead port and connects to the live server after it', async () => {
    const dead = await deadPort()
    const client = await open(targets([dead, liveHost]))
    expect([client.host, client.port]).toEqual([live.host, live.port])
    expect(await answer(client, 'SELECT 1')).toBe(1)
    const [a, b] = [await deadPort(), await deadPort()]
    expect((await failure(open(targets([a, b])))).message).toBe(
      `no host accepted writes: 127.0.0.1:${a} ECONNREFUSED; 127.0.0.1:${b} ECONNREFUSED`,
    )
  })

  it('read-write passes a read-only host; with no writable one, says why each was refused', async () => {
    const [readOnly, plain, dead] = [await forwarder('read-only'), await forwarder('plain'), await deadPort()]
    const client = await open(targets([readOnly.port, plain.port]))
    expect(client.port).toBe(plain.port)
    expect(await answer(client, 'SHOW transaction_read_only')).toBe('off')
    expect((await failure(open(targets([readOnly.port, dead])))).message).toBe(
      `no host accepted writes: 127.0.0.1:${readOnly.port} read-only; 127.0.0.1:${dead} ECONNREFUSED`,
    )
  })

  it('read-only takes the read-only host', async () => {
    const [plain, readOnly] = [await forwarder('plain'), await forwarder('read-only')]
    const client = await open(targets([plain.port, readOnly.port], 'target_session_attrs=read-only'))
    expect(await answer(client, 'SHOW transaction_read_only')).toBe('on')
  })

  it('primary takes the local server (not in recovery); standby refuses it; prefer-standby falls back to the first', async () => {
    expect((await open(targets([liveHost], 'target_session_attrs=primary'))).port).toBe(live.port)
    expect((await failure(open(targets([liveHost], 'target_session_attrs=standby')))).message).toBe(
      `no host is a standby: ${liveHost} not in hot standby`,
    )
    const [first, second] = [await forwarder('plain'), await forwarder('plain')]
    const client = await open(targets([first.port, second.port], 'target_session_attrs=prefer-standby'))
    expect([client.port, first.seen.connections, second.seen.connections]).toEqual([first.port, 2, 1])
  })

  it('moves on after 57P03 (starting up), and stops at any other error from a server, as libpq', async () => {
    const [startingUp, broken] = [await forwarder('starting-up'), await forwarder('bad-setting')]
    expect((await open(targets([startingUp.port, liveHost]))).port).toBe(live.port)
    const error = await failure(open(targets([broken.port, liveHost])))
    expect(error.message).toMatch(new RegExp(`^no host accepted writes: 127.0.0.1:${broken.port} 42704 `))
    expect(error.message).not.toContain(liveHost)
  })

  it('with load_balance_hosts=random, tries the hosts in a new order each time', async () => {
    const relays = [await forwarder('plain'), await forwarder('plain'), await forwarder('plain')]
    const ports = relays.map((r) => r.port)
    const firsts = new Set<number>()
    for (let i = 0; i < 40; i++) firsts.add(await portReached(targets(ports, 'load_balance_hosts=random')))
    expect([...firsts].sort()).toEqual([...ports].sort())
    const fixed = new Set<number>()
    for (let i = 0; i < 10; i++) fixed.add(await portReached(targets(ports)))
    expect([...fixed]).toEqual([ports[0]])
  })

  it('connect_timeout bounds a host that takes the connection and never answers', async () => {
    const silent = await forwarder('silent')
    const started = Date.now()
    expect((await open(targets([silent.port, liveHost], 'connect_timeout=1'))).port).toBe(live.port)
    expect(Date.now() - started).toBeGreaterThanOrEqual(950)
    expect(Date.now() - started).toBeLessThan(3000)
    expect((await failure(open(targets([silent.port, silent.port], 'connect_timeout=1')))).message).toBe(
      `no host accepted writes: 127.0.0.1:${silent.port} timeout expired; 127.0.0.1:${silent.port} timeout expired`,
    )
    // One host fails as pg alone would, with pg's own error: a 503 (unavailable.ts), as before this module.
    const alone = await failure(open(targets([silent.port], 'connect_timeout=1')))
    expect(alone.message).toBe('timeout expired')
    expect(isUnavailableError(alone)).toBe(true)
  })
})

describe('targetedClient in a pg.Pool', () => {
  const pool = (t: ReturnType<typeof targets>, settings: pg.PoolConfig = {}) => {
    const made = new pg.Pool({ ...t.base, max: 2, ...settings, Client: targetedClient(t) })
    clients.push(made)
    return made
  }

  it('connects each new client to a writable host: a probe, then the client itself', async () => {
    const [readOnly, plain] = [await forwarder('read-only'), await forwarder('plain')]
    const p = pool(targets([readOnly.port, plain.port, liveHost]), { password: 'kept' })
    const client = await p.connect()
    expect([client.port, client.password]).toEqual([plain.port, 'kept'])
    expect(await answer(client, 'SHOW transaction_read_only')).toBe('off')
    client.release()
    expect([readOnly.seen.connections, plain.seen.connections]).toEqual([1, 2])
    expect(await answer(pool(targets([liveHost])), 'SELECT 2')).toBe(2)
  })

  it('fails a query with why each host was refused', async () => {
    const [readOnly, dead] = [await forwarder('read-only'), await deadPort()]
    expect((await failure(pool(targets([readOnly.port, dead])).query('SELECT 1'))).message).toBe(
      `no host accepted writes: 127.0.0.1:${readOnly.port} read-only; 127.0.0.1:${dead} ECONNREFUSED`,
    )
  })

  it("the pool's connectionTimeoutMillis bounds the whole walk", async () => {
    const [a, b, c] = [(await forwarder('silent')).port, (await forwarder('silent')).port, await deadPort()]
    const started = Date.now()
    const t = targets([a, b, c], 'connect_timeout=1')
    const error = await failure(pool(t, { connectionTimeoutMillis: 1500 }).query('SELECT 1'))
    expect(Date.now() - started).toBeLessThan(2500)
    // Two timers of 1500 ms race: the walk's own, and pg-pool's, which wraps the walk's error as its cause.
    const walked = error.message.startsWith('no host') ? error : (error.cause as Error)
    if (walked !== error) expect(error.message).toBe('Connection terminated due to connection timeout')
    expect(walked.message).toBe(
      `no host accepted writes: 127.0.0.1:${a} timeout expired; 127.0.0.1:${b} timeout expired; ` +
        'connectionTimeoutMillis (1500 ms) spent',
    )
  })
})
