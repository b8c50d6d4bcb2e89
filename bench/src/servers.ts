import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { NODE_FLAGS } from '@pets/api'
import type { LaunchSpec } from './launch.js'

/** Where the data lives: the process's memory, or PostgreSQL. */
export type Mode = 'memory' | 'postgres'

/** The built service, as `pnpm start` and a container run it. */
export const SERVICE_MAIN = join(
  dirname(createRequire(import.meta.url).resolve('@pets/api')),
  'bin',
  'animal-store.mjs',
)

// src/ and dist/ are both one level below the package; the baselines run from dist/ (built JS).
const BENCH_ROOT = fileURLToPath(new URL('..', import.meta.url))
const baseline = (file: string) => join(BENCH_ROOT, 'dist', 'baselines', file)

/** What every server is told: the same keys and the same public URL, so the answers are comparable. */
export type Shared = { readonly apiKeys: ReadonlyArray<string>; readonly databaseUrl?: string }

// Any URL will do; the same on every server makes Location and Link headers comparable.
export const PUBLIC_BASE_URL = 'https://api.example.com/v1'

const envOf = (shared: Shared): Record<string, string> => ({
  API_KEYS: shared.apiKeys.join(','),
  PUBLIC_BASE_URL,
  ...(shared.databaseUrl === undefined ? {} : { DATABASE_URL: shared.databaseUrl }),
})

/**
 * The service, at the log level it ships with (LOG_LEVEL unset: info), with the node flags its
 * bin starts node with (NODE_FLAGS), then `nodeFlags`.
 */
export const serviceSpec = (shared: Shared, nodeFlags: ReadonlyArray<string> = []): LaunchSpec => ({
  name: 'service',
  script: SERVICE_MAIN,
  env: envOf(shared),
  nodeFlags: [...NODE_FLAGS, ...nodeFlags],
})

/**
 * The baselines of a mode, each on the same store as the service: node:http, Fastify and bare Koa;
 * on PostgreSQL also Platformatic DB, which answers the listings and create only.
 */
export const baselineSpecs = (mode: Mode, shared: Shared): ReadonlyArray<LaunchSpec> => {
  const suffix = mode === 'postgres' ? '+pg' : ''
  const spec = (name: string, file: string) => ({
    name: `${name}${suffix}`,
    script: baseline(file),
    env: envOf(shared),
  })
  return [
    spec('node:http', 'plain-http.js'),
    spec('fastify', 'fastify-app.js'),
    spec('koa', 'koa-main.js'),
    ...(mode === 'postgres'
      ? [
          {
            ...spec('platformatic-db', 'platformatic-db.js'),
            name: 'platformatic-db',
            answers: ['list-20', 'list-100-status', 'create'],
          },
        ]
      : []),
  ]
}

/** Runs a command of the built service (`node apps/api/dist/main.js …`) on a database; its output. */
export const serviceCommand = async (
  databaseUrl: string,
  ...args: ReadonlyArray<string>
): Promise<string> => {
  const { stdout } = await promisify(execFile)(process.execPath, [SERVICE_MAIN, ...args], {
    // The benchmark's set-up, not a measured request: a connection may take its time (the smoke run in CI,
    // beside every package's tests, once waited more than the default 1 s for one, and `migrate` gave up).
    env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: databaseUrl, DATABASE_CONNECT_TIMEOUT_MS: '10000' },
  })
  return stdout
}

/** Creates a key with the service's own command (`keys create`), stored in PostgreSQL, and returns it. */
export const createStoredKey = async (databaseUrl: string, name: string): Promise<string> => {
  const stdout = await serviceCommand(databaseUrl, 'keys', 'create', '--name', name)
  // "Created key 1 (bench). It is shown this once; keep it safe:", then the key on a line of its own.
  const key = stdout.trim().split('\n').pop()?.trim()
  if (key === undefined || !/^[\x21-\x7E]+$/.test(key))
    throw new Error(`keys create printed no key:\n${stdout}`)
  return key
}
