import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { LaunchSpec } from './launch.js'

/** Where the data lives: the process's memory, or PostgreSQL. */
export type Mode = 'memory' | 'postgres'

/** The built service, as `pnpm start` and a container run it. */
export const SERVICE_MAIN = join(dirname(createRequire(import.meta.url).resolve('@pets/api')), 'main.js')

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

/** The service, at the log level it ships with (LOG_LEVEL unset: info). */
export const serviceSpec = (shared: Shared, nodeFlags: ReadonlyArray<string> = []): LaunchSpec => ({
  name: 'service',
  script: SERVICE_MAIN,
  env: envOf(shared),
  nodeFlags,
})

/** The baselines of a mode: node:http, then Fastify, each on the same store as the service. */
export const baselineSpecs = (mode: Mode, shared: Shared): ReadonlyArray<LaunchSpec> => {
  const suffix = mode === 'postgres' ? '+pg' : ''
  return [
    { name: `node:http${suffix}`, script: baseline('plain-http.js'), env: envOf(shared) },
    { name: `fastify${suffix}`, script: baseline('fastify-app.js'), env: envOf(shared) },
  ]
}
