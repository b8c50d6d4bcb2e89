// Starts the built service (the bundle) on memory or on a fresh PostgreSQL database, seeds the same pets on
// both, and reads what the process holds (RSS, descriptors) and what /metrics says.
import { Buffer } from 'node:buffer'
import { spawn, execFileSync } from 'node:child_process'
import { openSync, readFileSync, readdirSync } from 'node:fs'
import { request } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'

const BIN = new URL('../../dist/bin/animal-store.mjs', import.meta.url).pathname
export const ENV_KEYS = ['fzk1'.padEnd(40, 'A'), 'fzk2'.padEnd(40, 'B'), 'fzk3'.padEnd(40, 'C')]
export const SEEDED_PETS = 50

const call = (port, method, path, { key, body } = {}) =>
  new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          ...(key && { authorization: `Bearer ${key}` }),
          ...(body && { 'content-type': 'application/json' }),
        },
        agent: false,
      },
      (res) => {
        const parts = []
        res.on('data', (d) => parts.push(d))
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(parts).toString() }),
        )
      },
    )
    req.on('error', reject)
    req.end(body)
  })
export { call }

/** What a run sets of the service's environment besides its port and storage: short waits, JSON lines. */
export const RUN_ENV = {
  HOST: '127.0.0.1',
  LOG_FORMAT: 'json',
  PUBLIC_BASE_URL: 'https://api.example.com/v1',
  HEADERS_TIMEOUT_MS: '2000',
  KEEP_ALIVE_TIMEOUT_MS: '1000',
}
/** API_KEYS of a run on memory: the three keys of ENV_KEYS. */
export const MEMORY_API_KEYS = ENV_KEYS.map((k, i) => `fz${i + 1}:${k}`).join(',')

/** Seeds the SEEDED_PETS pets every run's cases count on (ids 1 to 50), with `key`. */
export const seedPets = async (port, key) => {
  for (let i = 1; i <= SEEDED_PETS; i++) {
    const res = await call(port, 'POST', '/v1/pets', {
      key,
      body: JSON.stringify({
        name: `Seed ${i}`,
        categoryId: i,
        status: ['available', 'pending', 'sold'][i % 3],
      }),
    })
    if (res.status !== 201 || JSON.parse(res.body).id !== i)
      throw new Error(`seeding pet ${i}: ${res.status} ${res.body}`)
  }
}

export const startService = async ({ store, port, out, database }) => {
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: String(port),
    ...RUN_ENV,
    ...(process.env.FUZZ_NODE_DEBUG && { NODE_DEBUG: process.env.FUZZ_NODE_DEBUG }),
    ...(process.env.FUZZ_NODE_OPTIONS && { NODE_OPTIONS: process.env.FUZZ_NODE_OPTIONS }),
  }
  let keys = ENV_KEYS
  if (store === 'postgres') {
    const url = `postgres://postgres@127.0.0.1:5432/${database}`
    execFileSync('dropdb', ['-h', '127.0.0.1', '-U', 'postgres', '--if-exists', database])
    execFileSync('createdb', ['-h', '127.0.0.1', '-U', 'postgres', database])
    Object.assign(env, { DATABASE_URL: url })
    execFileSync('node', [BIN, 'migrate'], { env, stdio: ['ignore', 'ignore', 'inherit'] })
    const created = execFileSync('node', [BIN, 'keys', 'create', '--name', 'fz-stored'], {
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).toString()
    const stored = created.match(/\S{32,}/)?.[0]
    if (!stored) throw new Error(`no key in: ${created}`)
    keys = [ENV_KEYS[0], ENV_KEYS[1], stored]
    env.API_KEYS = `fz1:${ENV_KEYS[0]},fz2:${ENV_KEYS[1]}`
  } else env.API_KEYS = MEMORY_API_KEYS
  const stdout = openSync(`${out}/service.log`, 'w')
  const stderr = openSync(`${out}/service.err`, 'w')
  const child = spawn('node', [BIN], { env, stdio: ['ignore', stdout, stderr] })
  const exit = new Promise((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  )
  // Whatever ends this process (a bug of the fuzzer's own included) ends the service it started.
  process.on('exit', () => child.kill('SIGTERM'))
  for (let i = 0; i < 100; i++) {
    try {
      if ((await call(port, 'GET', '/healthz')).status === 200) break
    } catch {
      // not listening yet
    }
    await sleep(100)
  }
  await seedPets(port, keys[0])
  return { child, exit, keys, pid: child.pid }
}

export const processFigures = (pid) => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    return {
      rssKiB: Number(status.match(/VmRSS:\s+(\d+)/)[1]),
      fds: readdirSync(`/proc/${pid}/fd`).length,
      at: Date.now(),
    }
  } catch {
    return { gone: true, at: Date.now() }
  }
}

const METRIC_LINE =
  /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*",?)*\})? (-?[0-9.]+(e[+-]?[0-9]+)?|[+-]?Inf|NaN)( -?[0-9]+)?$/

/** /metrics, its lines checked against the text format, and the figures the report uses. */
export const scrape = async (port) => {
  const res = await call(port, 'GET', '/metrics')
  const lines = res.body.split('\n').filter((l) => l && !l.startsWith('#'))
  const bad = lines.filter((l) => !METRIC_LINE.test(l))
  const sum = (name, filter = () => true) =>
    lines
      .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
      .filter(filter)
      .reduce((s, l) => s + Number(l.split(' ').at(-1)), 0)
  return {
    status: res.status,
    bytes: res.body.length,
    badLines: bad.slice(0, 5),
    badCount: bad.length,
    requests: sum('http_requests_total'),
    aborted: sum('http_requests_aborted_total'),
    status5xx: sum('http_requests_total', (l) => /status="5/.test(l) && !/status="501"/.test(l)),
    openFds: sum('process_open_fds'),
    heapUsed: sum('nodejs_heap_size_used_bytes'),
    handles: sum('nodejs_active_handles_total'),
    series: lines.length,
  }
}
