// How long the built service takes to be ready, next to bare Koa: each process is spawned, then
// asked for /healthz every 2 ms until it answers 200 (both listen before they can answer). The
// two alternate, N starts each; the medians and their ratio are printed, of the time from spawn to
// that 200 and of the CPU time the process had used by then (all its threads, from
// /proc/PID/task/*/schedstat), which other work on a busy machine disturbs less.
//   node apps/api/bench/start-up.mjs [starts=5] [--store memory|postgres] [--bin FILE]
// On PostgreSQL DATABASE_URL must name a migrated database (`animal-store migrate`).
import { freePort } from '@pets/adapters-postgres/testing'
import { spawn } from 'node:child_process'
import { request } from 'node:http'
import { readdirSync, readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)
const starts = Number(args.find((a) => /^\d+$/.test(a)) ?? 5)
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback)
const store = option('--store', 'memory')
const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const bin = option('--bin', here('../dist/bin/animal-store.mjs'))
// Node's flags as the bin's first line gives them (`#!/usr/bin/env -S node FLAGS`), as running it does.
const nodeFlags = readFileSync(bin, 'utf8').split('\n', 1)[0].split(' ').slice(3)

const servers = [
  {
    name: 'service',
    argv: [...nodeFlags, bin],
    env:
      store === 'memory'
        ? { STORAGE: 'memory', API_KEYS: 'start-up-key' }
        : {
            DATABASE_URL: process.env.DATABASE_URL ?? '',
            API_KEYS: 'start-up-key',
            MIGRATE_ON_START: 'false',
          },
  },
  { name: 'koa', argv: [here('koa-hello.mjs')], env: {} },
]

const status = (url) =>
  new Promise((resolve) => {
    const req = request(url, { agent: false, timeout: 1000 }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', () => resolve(0))
    req.on('timeout', () => req.destroy())
    req.end()
  })

// Nanoseconds on a CPU of every thread of a process so far (the first field of schedstat).
const cpuNs = (pid) =>
  readdirSync(`/proc/${pid}/task`).reduce(
    (sum, task) => sum + Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]),
    0,
  )

/** Milliseconds from spawn to the first 200 of /healthz, and of CPU by then; the process is stopped after. */
const startOnce = async ({ argv, env }) => {
  const port = await freePort()
  const began = performance.now()
  const child = spawn(process.execPath, argv, {
    env: { PATH: process.env.PATH ?? '', ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  let ready
  while (ready === undefined) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}: ${stderr}`)
    if ((await status(`http://127.0.0.1:${port}/healthz`)) === 200)
      ready = { ms: performance.now() - began, cpuMs: cpuNs(child.pid) / 1e6 }
    else await sleep(2)
  }
  child.kill('SIGTERM')
  await exited
  return ready
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}

// One start of each first, unmeasured: the files are then in the page cache for both.
for (const server of servers) await startOnce(server)
const samples = new Map(servers.map((s) => [s.name, []]))
for (let round = 0; round < starts; round++)
  for (const server of round % 2 === 0 ? servers : [...servers].reverse())
    samples.get(server.name).push(await startOnce(server))

const medianOf = (name, key) => median(samples.get(name).map((s) => s[key]))
for (const [name, runs] of samples)
  console.log(
    `${name.padEnd(8)} ready: median ${medianOf(name, 'ms').toFixed(0)} ms ` +
      `(${runs.map((s) => s.ms.toFixed(0)).join(', ')}); CPU: median ${medianOf(name, 'cpuMs').toFixed(0)} ms`,
  )
const ratio = (key) => (medianOf('service', key) / medianOf('koa', key)).toFixed(2)
console.log(
  `service / koa: ${ratio('ms')}x ready, ${ratio('cpuMs')}x CPU (${store} store, ${starts} starts each, alternating)`,
)
