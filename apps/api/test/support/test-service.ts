import { openFreshDatabase, type TestPgBouncer } from '@pets/adapters-postgres/testing'
import { aClock } from '@pets/domain/testing'
import * as E from 'fp-ts/lib/Either.js'
import { inject } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { createService, type AnimalStoreService } from '../../src/create-service.js'
import { createLogger } from '../../src/log/logger.js'
import { startServer } from '../../src/start-server.js'
import { checkedFetch, unwatchService } from './checked-fetch.js'
import { startChild, type ChildService, type ChildServiceOptions } from './child-service.js'
import { memoryLog } from './memory-log.js'

export { MAIN, rememberSecret, type ChildService, type ChildServiceOptions } from './child-service.js'

/** The two API keys every in-process service accepts: ids env-1 and env-2, by their place in API_KEYS. */
export const TEST_KEYS = ['test-key-one', 'test-key-two'] as const

/** A service in this process: the default `mode`. */
export type TestServiceOptions = {
  readonly mode?: 'in-process'
  /** `postgres`: a fresh database of its own, cloned from the migrated template. */
  readonly storage?: 'memory' | 'postgres'
  /** Environment variables on top of the test defaults (API_KEYS, PORT=0, LOG_LEVEL=info). */
  readonly env?: Readonly<Record<string, string>>
  /** Where the test clock starts; it stands still until `clock.set`. */
  readonly clockNow?: string
  /**
   * With `postgres`: DATABASE_URL through this PgBouncer (transaction mode), DATABASE_DIRECT_URL
   * the database itself.
   */
  readonly pgbouncer?: TestPgBouncer
  /** Changes the service before it serves, such as adding middleware in front of its app. */
  readonly adjust?: (service: AnimalStoreService) => void
}

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` })

const startInProcess = async (options: TestServiceOptions) => {
  const database = options.storage === 'postgres' ? await openFreshDatabase(inject('postgres')) : undefined
  const config = loadConfig({
    API_KEYS: TEST_KEYS.join(','),
    PORT: '0',
    LOG_LEVEL: 'info',
    ...(database === undefined ? {} : { DATABASE_URL: database.url, MIGRATE_ON_START: 'false' }),
    ...(database === undefined || options.pgbouncer === undefined
      ? {}
      : { DATABASE_URL: options.pgbouncer.through(database.url), DATABASE_DIRECT_URL: database.url }),
    ...options.env,
  })
  if (E.isLeft(config)) throw new Error(`bad test configuration: ${config.left.join('; ')}`)
  const clock = aClock(options.clockNow ?? '2026-11-22T12:00:00Z')
  const log = memoryLog()
  const running = await startServer(config.right, async (resolved) => {
    const service = await createService(resolved, { clock, logger: createLogger(resolved, log.stream) })
    options.adjust?.(service)
    return service
  })
  const url = running.url
  return {
    /** Where the server listens, such as http://127.0.0.1:40123. */
    url,
    /** What the service writes in Location and Link headers. */
    publicBaseUrl: running.publicBaseUrl,
    clock,
    running,
    service: running.service,
    /** The fresh database of a PostgreSQL-backed service. */
    database,
    /** Every log line so far, parsed. */
    logs: () =>
      log
        .text()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    /** The raw text of the log. */
    logText: log.text,
    /** A plain fetch of `path`, with `key` as bearer credential when given. */
    get: (path: string, key?: string) =>
      fetch(`${url}${path}`, key === undefined ? {} : { headers: bearer(key) }),
    /** fetch against the server: `request('/v1/pets', { headers })`; the answer must conform to the document. */
    request: (path: string, init: RequestInit = {}) => checkedFetch(`${url}${path}`, init),
    /** The same, with the first test key as bearer credential. */
    authed: (path: string, init: RequestInit = {}) =>
      checkedFetch(`${url}${path}`, {
        ...init,
        headers: { ...bearer(TEST_KEYS[0]), ...(init.headers as Record<string, string>) },
      }),
    /** Stops the server as a SIGTERM would, then drops its database; resolves with the outcome. */
    close: async () => {
      unwatchService(url)
      const outcome = await running.stop()
      await database?.close()
      return outcome
    },
  }
}

/** A service started in this process, on a free port, with a clock the test controls. */
export type TestService = Awaited<ReturnType<typeof startInProcess>>

/**
 * Starts the service for a test: in this process (the default: its logs in memory, a clock the
 * test moves, answers of `request` and `authed` checked against the OpenAPI document it serves),
 * or with `mode: 'child'` as the built bundle in a process of its own, configured by `env` alone.
 * Either way it listens on a free port at `url`, `get` fetches from it, and `close` stops it.
 */
export function startTestService(options?: TestServiceOptions): Promise<TestService>
export function startTestService(options: ChildServiceOptions): Promise<ChildService>
export function startTestService(
  options: TestServiceOptions | ChildServiceOptions = {},
): Promise<TestService | ChildService> {
  return options.mode === 'child' ? startChild(options) : startInProcess(options)
}
