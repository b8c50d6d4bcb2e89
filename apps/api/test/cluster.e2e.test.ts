import { openFreshDatabase, type FreshDatabase } from '@pets/adapters-postgres/testing'
import { pollUntil } from '@pets/domain/testing'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { createServer, type AddressInfo } from 'node:net'
import { afterEach, describe, expect, inject, it } from 'vitest'
import {
  answerOf,
  CLUSTER_KEY as KEY,
  get,
  lines,
  startTwoWorkers as startCluster,
} from './support/cluster-service.js'
import { logLinesOf } from './support/log-lines.js'
import { runBin } from './support/run-bin.js'

// The CPU time a process has used so far, in ms: utime and stime of /proc/<pid>/stat, in clock
// ticks of 10 ms (USER_HZ is 100 on Linux). The name, field 2, may hold spaces: split after it.
const cpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

// `connections` loops, each asking for `path` again as soon as its last answer came, for `ms`.
const flood = async (url: string, path: string, connections: number, ms: number) => {
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  const pages = new Set<string>()
  const statuses = new Map<number, number>()
  const until = Date.now() + ms
  const ask = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(`${url}${path}`, { agent }, (res) => {
        const hash = createHash('sha1')
        res.on('data', (chunk: Buffer) => hash.update(chunk))
        res.on('end', () => {
          statuses.set(res.statusCode ?? 0, (statuses.get(res.statusCode ?? 0) ?? 0) + 1)
          if (res.statusCode === 200) pages.add(hash.digest('hex'))
          resolve()
        })
      })
      req.on('error', reject)
      req.end()
    })
  const started = performance.now()
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) await ask()
    }),
  )
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  return { seconds, pages: pages.size, statuses: Object.fromEntries(statuses) as Record<number, number> }
}

describe('WEB_CONCURRENCY: several workers on one port', () => {
  const databases: Array<FreshDatabase> = []
  const clusters: Array<() => Promise<void>> = []
  afterEach(async () => {
    await Promise.all(clusters.splice(0).map((close) => close()))
    await Promise.all(databases.splice(0).map((db) => db.close()))
  })
  const startTwoWorkers = async (env: Record<string, string> = {}) => {
    const { svc, close } = await startCluster(env)
    clusters.push(close)
    return svc
  }

  it('migrates once, spreads requests over the workers, sums their metrics, replaces a dead one, and stops cleanly', async () => {
    const svc = await startTwoWorkers()
    // The primary migrated, alone, before it forked.
    expect(svc.output().match(/migrations: ran/g)).toHaveLength(1)

    for (let i = 0; i < 20; i++) expect((await get(svc.url, '/v1/pets')).status).toBe(200)
    // Each worker writes its request lines in batches, within 100 ms: wait for both to have.
    const workers = () => new Set(lines(svc, 'request').map((l) => l['pid']))
    await pollUntil('request lines from both workers', () => workers().size === 2, 5_000)

    // Whichever worker answers the scrape, it counts the requests of both.
    for (let i = 0; i < 2; i++) {
      const scrape = await get(svc.url, '/metrics')
      expect(scrape.status).toBe(200)
      expect(scrape.body).toMatch(/http_requests_total\{method="GET",route="\/v1\/pets",status="200"\} 20\n/)
    }

    const [victim] = [...workers()]
    process.kill(victim as number, 'SIGKILL')
    await expect.poll(() => lines(svc, 'listening').length, { timeout: 20_000 }).toBe(3)
    expect(lines(svc, 'a worker died; replacing it')).toEqual([
      expect.objectContaining({ worker: victim, signal: 'SIGKILL' }),
    ])
    for (let i = 0; i < 6; i++) expect((await get(svc.url, '/v1/pets')).status).toBe(200)

    expect(await svc.stop('SIGTERM')).toBe(0)
    expect(lines(svc, 'stopped').filter((l) => l['outcome'] === 'clean').length).toBe(3)
    for (const pid of lines(svc, 'listening').map((l) => l['pid'] as number))
      expect(() => process.kill(pid, 0)).toThrow()
  })

  it('takes a SIGTERM that comes again at once (systemd stopping `pnpm start`: the unit and pnpm signal it) as the same stop: its workers drain, exit 0', async () => {
    // Workers still draining when the second signal comes, which killed them before.
    const svc = await startTwoWorkers({ SHUTDOWN_DELAY_MS: '2000' })
    svc.child.kill('SIGTERM')
    // The second comes once the first has been relayed (two sent at once may reach it as one), well within 1 s.
    await pollUntil('a worker drains', async () => (await get(svc.url, '/readyz')).status === 503)
    svc.child.kill('SIGTERM')
    expect(await svc.exited).toBe(0)
    expect(
      lines(
        svc,
        'signal again at once: taken as the same stop (a terminal or a supervisor signalled every process of the group)',
      ),
    ).toEqual([expect.objectContaining({ level: 30, pid: svc.child.pid, signal: 'SIGTERM' })])
    expect(lines(svc, 'stopped').map((l) => l['outcome'])).toEqual(['clean', 'clean', 'clean'])
  })

  it('replaces a worker that a SIGTERM of its own stopped cleanly, saying so at warn: nothing failed', async () => {
    const svc = await startTwoWorkers()
    const [victim] = lines(svc, 'listening').map((l) => l['pid'] as number)
    process.kill(victim!, 'SIGTERM')
    await expect.poll(() => lines(svc, 'listening').length, { timeout: 20_000 }).toBe(3)
    expect(lines(svc, 'a worker stopped, not asked by the primary; replacing it')).toEqual([
      expect.objectContaining({ level: 40, pid: svc.child.pid, worker: victim, code: 0, signal: null }),
    ])
    expect(lines(svc, 'a worker died; replacing it')).toEqual([])
  })

  it('kills a worker that stopped answering (its event loop stuck) and replaces it, saying so at error', async () => {
    const svc = await startTwoWorkers()
    const [stuck] = lines(svc, 'listening').map((l) => l['pid'] as number)
    // A stopped process, as a loop without end: its event loop turns no more.
    process.kill(stuck!, 'SIGSTOP')
    try {
      await expect.poll(() => lines(svc, 'listening').length, { timeout: 20_000 }).toBe(3)
    } finally {
      // Never left stopped when the test fails: the SIGKILL that ends the cluster would not end it.
      if (lines(svc, 'listening').length < 3) process.kill(stuck!, 'SIGCONT')
    }
    expect(lines(svc, 'a worker stopped answering: killing it')).toEqual([
      expect.objectContaining({ level: 50, pid: svc.child.pid, worker: stuck }),
    ])
    expect(lines(svc, 'a worker died; replacing it')).toEqual([
      expect.objectContaining({ worker: stuck, signal: 'SIGKILL' }),
    ])
    // Every connection is served again: none is handed to a worker that never answers.
    for (let i = 0; i < 6; i++) expect((await get(svc.url, '/v1/pets')).status).toBe(200)
  }, 30_000)

  // METRICS_PORT: each worker opened PORT before it failed, and is no started worker for all that.
  for (const variable of ['PORT', 'METRICS_PORT'] as const)
    it(`ends with the workers' code when they cannot start before any listens (${variable} in use), instead of replacing them for ever`, async () => {
      const database = await openFreshDatabase(inject('postgres'))
      databases.push(database)
      const taken = createServer()
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
      const port = (taken.address() as AddressInfo).port
      try {
        const env = { DATABASE_URL: database.url, API_KEYS: KEY, WEB_CONCURRENCY: '2', PORT: '0' }
        // Stopped by a SIGTERM (then exit 0) if it goes on replacing its workers: no cluster outlives the test.
        const result = await runBin([], { ...env, [variable]: String(port) }, undefined, 15_000)
        expect(result.code).toBe(1)
        expect(result.stderr).toContain(
          `cannot listen on 127.0.0.1:${port} (HOST, ${variable}): address already in use (EADDRINUSE)`,
        )
        expect(logLinesOf(result.stdout).filter((l) => l.msg === 'a worker died; replacing it')).toEqual([])
      } finally {
        await new Promise((resolve) => taken.close(resolve))
      }
    })
  it('has each worker answer its requests in flight when its primary is SIGKILLed, then exit, saying why', async () => {
    const svc = await startTwoWorkers()
    const workers = lines(svc, 'listening').map((l) => l['pid'] as number)
    // One connection, kept: a first answer on it shows that a worker holds it.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const headers = { Authorization: `Bearer ${KEY}` }
    const first = request(`${svc.url}/v1/pets`, { agent, headers })
    const listed = answerOf(first)
    first.end()
    expect((await listed).status).toBe(200)
    // A create in flight on that connection: its body half sent when the primary goes. The worker must have
    // begun it first: a connection whose request head it has not read yet is idle, and a stop closes those at
    // once (on a loaded machine the SIGKILL once came first: a reset, no answer). Its 100 Continue, sent when the
    // body is read, says that it has.
    const body = JSON.stringify({ name: 'Orphaned', categoryId: 1 })
    const create = request(`${svc.url}/v1/pets`, {
      agent,
      method: 'POST',
      headers: {
        ...headers,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        Expect: '100-continue',
      },
    })
    const created = answerOf(create)
    create.flushHeaders()
    await new Promise((resolve) => create.once('continue', resolve))
    create.write(body.slice(0, 10))
    await svc.stop('SIGKILL')
    const said = () =>
      lines(svc, 'the primary is gone: finishing the requests in flight, then exiting')
        .filter((l) => l['level'] === 50)
        .map((l) => l['pid'] as number)
        .sort()
    // Node's cluster exits a worker at once when its primary is gone unless told the disconnect was expected
    // (serve.ts): if a Node release stops heeding that, no worker says so and this request gets no answer.
    const heeded = `node ${process.version} still heeds worker.exitedAfterDisconnect set in a prepended 'disconnect' listener`
    await expect.poll(said, { timeout: 10_000, message: heeded }).toEqual([...workers].sort())
    create.end(body.slice(10))
    const got = await created.catch((error: unknown) => ({ error: String(error) }))
    expect(got, heeded).toMatchObject({ status: 201, connection: 'close' })
    expect(JSON.parse((await created).body)).toMatchObject({ name: 'Orphaned' })
    agent.destroy()
    const alive = (pid: number) => {
      try {
        return process.kill(pid, 0)
      } catch {
        return false
      }
    }
    await expect.poll(() => workers.filter(alive), { timeout: 15_000 }).toEqual([])
    expect(lines(svc, 'stopped').map((l) => l['reason'])).toEqual([
      'the primary is gone',
      'the primary is gone',
    ])
  })

  it('collects the metrics of the workers at most once a second, however many scrape at once', async () => {
    const svc = await startTwoWorkers()
    const workers = lines(svc, 'listening').map((l) => l['pid'] as number)
    const cpu = () => workers.reduce((sum, pid) => sum + cpuMs(pid), 0)

    const workersMsPer = async (path: string) => {
      const before = cpu()
      const answers = await flood(svc.url, path, 64, 2_500)
      const took = cpu() - before
      expect(Object.keys(answers.statuses)).toEqual(['200'])
      return { ...answers, msPerAnswer: took / answers.statuses[200]! }
    }
    // Probes first: the same flood without collections, and the workers warm for the scrapes.
    const probes = await workersMsPer('/healthz')
    const scrapes = await workersMsPer('/metrics')
    const figures = JSON.stringify({ probes, scrapes })
    // Each collection makes a page of its own (the scrapes it counts differ), so the pages count
    // the collections: one starts at most once a second, from the first scrape to the last.
    expect(scrapes.pages, figures).toBeLessThanOrEqual(Math.floor(scrapes.seconds) + 1)
    // A scrape costs the workers about what a probe does; collecting for each cost 15 times that.
    expect(scrapes.msPerAnswer, figures).toBeLessThan(4 * probes.msPerAnswer)
  })
})
