import { openFreshDatabase, type FreshDatabase } from '@pets/adapters-postgres/testing'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { startTestService } from './support/test-service.js'

// Preloaded into the service with NODE_OPTIONS: every file its module loader loads is appended to
// LOADED_LOG, and at exit every CommonJS file in require.cache (pino-pretty and swagger-ui-dist
// are found at run time, outside the bundle) and every module of node's own it loaded.
const dir = mkdtempSync(join(tmpdir(), 'lazy-loading-'))
const hooks = join(dir, 'hooks.mjs')
writeFileSync(
  join(dir, 'loader.mjs'),
  `import { appendFileSync } from 'node:fs'
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(process.env.LOADED_LOG, url + '\\n')
  return next(url, context)
}`,
)
writeFileSync(
  hooks,
  `import { register, createRequire } from 'node:module'
import { appendFileSync } from 'node:fs'
register(${JSON.stringify(`file://${join(dir, 'loader.mjs')}`)})
const require = createRequire(import.meta.url)
process.on('exit', () => {
  for (const file of Object.keys(require.cache)) appendFileSync(process.env.LOADED_LOG, 'file://' + file + '\\n')
  for (const entry of process.moduleLoadList)
    if (entry.startsWith('NativeModule ')) appendFileSync(process.env.LOADED_LOG, 'node:' + entry.slice(13) + '\\n')
})`,
)

const KEY = 'lazy-loading-e2e-key'

// What node loads of its own for a bare `import 'node:http'`: node 24 fills an ES module's
// namespace of `node:http` with every export, and its lazy WebSocket getters load tls and zlib.
const loadedByBareHttp = (name: string): boolean =>
  execFileSync(
    process.execPath,
    ['--input-type=module', '-e', "import 'node:http'; console.log(process.moduleLoadList.join('\\n'))"],
    { encoding: 'utf8' },
  )
    .split('\n')
    .includes(`NativeModule ${name}`)

/** Runs the shipped service, makes `requests`, stops it; the text of every file it loaded. */
const loadedBy = async (env: Record<string, string>, requests: ReadonlyArray<string>) => {
  const log = join(dir, `loaded-${Math.random().toString(36).slice(2)}.txt`)
  writeFileSync(log, '')
  const svc = await startTestService({
    mode: 'child',
    env: {
      API_KEYS: KEY,
      NODE_OPTIONS: `--import=${hooks}`,
      LOADED_LOG: log,
      ...env,
    },
  })
  for (const path of requests)
    expect((await fetch(`${svc.url}${path}`, { headers: { Authorization: `Bearer ${KEY}` } })).status).toBe(
      200,
    )
  expect(await svc.stop()).toBe(0)
  const lines = new Set(
    readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l !== ''),
  )
  const files = [...lines].filter((l) => l.startsWith('file:'))
  return {
    files,
    builtin: (name: string) => lines.has(`node:${name}`),
    // What the files hold: the bundle's chunks say which packages they carry only in their code.
    holds: (text: string) => files.some((url) => readFileSync(fileURLToPath(url), 'utf8').includes(text)),
    loaded: (pkg: string) => files.some((url) => url.includes(`/node_modules/${pkg}/`)),
  }
}

// Text found only in the code of pg (its SASL authentication), of kysely (the table its migrator
// keeps) and of the OpenTelemetry SDK (its span queue; @opentelemetry/api, the no-op, is no SDK).
const PG = 'SCRAM-SHA-256'
const KYSELY = 'kysely_migration_lock'
const OTEL_SDK = 'maxQueueSize reached, dropping spans'

describe('what the shipped service loads, by storage', () => {
  const databases: Array<FreshDatabase> = []
  afterAll(async () => {
    await Promise.all(databases.map((db) => db.close()))
  })

  it('in memory, never loads pg, kysely, swagger-ui-dist or pino-pretty', async () => {
    const memory = await loadedBy({}, ['/v1/pets', '/healthz', '/openapi.json'])
    expect(memory.files.length).toBeGreaterThan(0)
    expect(memory.holds(PG)).toBe(false)
    expect(memory.holds(KYSELY)).toBe(false)
    expect(memory.loaded('swagger-ui-dist')).toBe(false)
    expect(memory.loaded('pino-pretty')).toBe(false)
    expect(memory.holds(OTEL_SDK)).toBe(false)
    // Required on first use only (scripts/lazy-requires.mjs): tls by prom-client's Pushgateway,
    // zlib by it and by Koa's destroy, neither of which the service calls; so no more than node
    // itself loads for `node:http` (nothing on node 20).
    expect(memory.builtin('http')).toBe(true)
    expect(memory.builtin('tls')).toBe(loadedByBareHttp('tls'))
    expect(memory.builtin('zlib')).toBe(loadedByBareHttp('zlib'))
  })

  it('loads swagger-ui-dist once the docs are asked for, and pg and kysely on PostgreSQL (the probes work)', async () => {
    const docs = await loadedBy({}, ['/docs'])
    expect(docs.loaded('swagger-ui-dist')).toBe(true)
    const database = await openFreshDatabase(inject('postgres'))
    databases.push(database)
    const postgres = await loadedBy({ DATABASE_URL: database.url }, ['/v1/pets'])
    expect(postgres.holds(PG)).toBe(true)
    expect(postgres.holds(KYSELY)).toBe(true)
  })

  it('loads the OpenTelemetry SDK only when OTEL_* asks for tracing (and OTEL_SDK_DISABLED does not)', async () => {
    // Nothing listens on port 9 of loopback: spans are lost, requests are not.
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }
    expect((await loadedBy(endpoint, ['/v1/pets'])).holds(OTEL_SDK)).toBe(true)
    expect((await loadedBy({ ...endpoint, OTEL_SDK_DISABLED: 'true' }, ['/v1/pets'])).holds(OTEL_SDK)).toBe(
      false,
    )
    expect((await loadedBy({ OTEL_SERVICE_NAME: 'named, not traced' }, ['/v1/pets'])).holds(OTEL_SDK)).toBe(
      false,
    )
  })
})
