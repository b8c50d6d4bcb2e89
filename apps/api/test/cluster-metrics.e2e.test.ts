import { pollUntil } from '@pets/domain/testing'
import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { get, lines, startTwoWorkers } from './support/cluster-service.js'

// The sum of every series of `name` on a page of the text format: `name{…} v` and `name v` lines.
const total = (page: string, name: string): number =>
  page
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0)

// The limit prom-client's process_max_fds reads: the soft "Max open files" of /proc/<pid>/limits.
const maxFds = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/limits`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'))!
  return Number(line.split(/ {2,}/)[1])
}

const scrape = async (url: string) => {
  const page = await get(url, '/metrics')
  expect(page.status).toBe(200)
  return {
    at: performance.now(),
    requests: total(page.body, 'http_requests_total'),
    durations: total(page.body, 'http_request_duration_seconds_count'),
    cpuSeconds: total(page.body, 'process_cpu_seconds_total'),
    maxFds: total(page.body, 'process_max_fds'),
  }
}

// Two workers that both served requests (so that each has counted some and spent CPU time a new worker
// has not), closed after the test; `workers` are the pids of the request lines so far.
const twoBusyWorkers = async (clusters: Array<() => Promise<void>>) => {
  const { svc, close } = await startTwoWorkers()
  clusters.push(close)
  const workers = () => new Set(lines(svc, 'request').map((l) => l['pid'] as number))
  for (let round = 0; round < 25; round++)
    await Promise.all(Array.from({ length: 8 }, () => get(svc.url, '/v1/pets')))
  await pollUntil('request lines from both workers', () => workers().size === 2, 5_000)
  return { svc, workers }
}

// The primary collects the workers' metrics at most once a second (cluster-metrics.ts): a scrape
// this long after the last one is answered by a collection of its own, not by the last page.
const COLLECTION_MS = 1_100

describe("WEB_CONCURRENCY: the cluster's metrics when a worker dies", () => {
  const clusters: Array<() => Promise<void>> = []
  afterEach(async () => void (await Promise.all(clusters.splice(0).map((close) => close()))))

  it('keeps the counters of a killed worker, so that no counter goes down, and does not sum per-process limits', async () => {
    const { svc, workers } = await twoBusyWorkers(clusters)

    const before = await scrape(svc.url)
    expect(before.requests).toBeGreaterThanOrEqual(200)
    // One process's limit, as each worker has: not the two workers' added up.
    const [victim, survivor] = [...workers()] as [number, number]
    expect.soft(before.maxFds).toBe(maxFds(survivor))

    process.kill(victim, 'SIGKILL')
    await expect.poll(() => lines(svc, 'listening').length, { timeout: 20_000 }).toBe(3)
    await sleep(Math.max(0, before.at + COLLECTION_MS - performance.now()))
    for (let i = 0; i < 6; i++) expect((await get(svc.url, '/v1/pets')).status).toBe(200)

    const after = await scrape(svc.url)
    const figures = JSON.stringify({ before, after })
    // Soft: a run names every defect at once.
    // What the victim had counted by the last collection stays in the sum, and the six since are added.
    expect.soft(after.requests, figures).toBeGreaterThanOrEqual(before.requests + 6)
    expect.soft(after.durations, figures).toBeGreaterThanOrEqual(before.durations + 6)
    expect.soft(after.cpuSeconds, figures).toBeGreaterThanOrEqual(before.cpuSeconds)
    expect.soft(after.maxFds, figures).toBe(maxFds(survivor))
  })
})

// Whether a GET of /healthz on a connection of its own gets no answer within 500 ms.
const unanswered = (url: string) =>
  new Promise<boolean>((resolve) => {
    const req = request(`${url}/healthz`, { agent: false }, (res) => {
      res.resume()
      resolve(false)
    })
    req.setTimeout(500, () => {
      req.destroy()
      resolve(true)
    })
    req.on('error', () => resolve(false))
    req.end()
  })

describe("WEB_CONCURRENCY: the cluster's metrics when a worker is stuck", () => {
  const clusters: Array<() => Promise<void>> = []
  afterEach(async () => void (await Promise.all(clusters.splice(0).map((close) => close()))))

  it("serves the page of the workers that answer, with the stuck one's last figures, and says so", async () => {
    const { svc, workers } = await twoBusyWorkers(clusters)
    const before = await scrape(svc.url)
    const [stuck] = [...workers()] as [number]
    // A worker whose event loop no longer turns (a loop without end, a debugger's pause): it takes
    // no new connection from the primary's round robin, but it cannot send its metrics either.
    process.kill(stuck, 'SIGSTOP')
    try {
      // The round robin hands the stuck worker one connection more, which waits: this one, not the scrape's.
      await pollUntil('a connection handed to the stuck worker', () => unanswered(svc.url), 10_000)
      await sleep(Math.max(0, before.at + COLLECTION_MS - performance.now()))
      const started = performance.now()
      const after = await scrape(svc.url)
      // Within the time a worker waits for the primary's page, not a 500 once it has run out.
      expect(performance.now() - started).toBeLessThan(4_500)
      const figures = JSON.stringify({ before, after })
      expect.soft(after.requests, figures).toBeGreaterThanOrEqual(before.requests)
      expect.soft(after.durations, figures).toBeGreaterThanOrEqual(before.durations)
      // The primary writes its lines in batches, 100 ms apart at most.
      const late = () => lines(svc, 'workers late with their metrics: their last figures are shown')
      await expect.poll(() => late().map((l) => l['workers']), { timeout: 2_000 }).toContainEqual([stuck])
      expect(late().every((l) => l['level'] === 40)).toBe(true)
    } finally {
      process.kill(stuck, 'SIGCONT')
    }
  }, 30_000)
})
