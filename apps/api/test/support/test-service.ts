import { openFreshDatabase, type TestPgBouncer } from '@pets/adapters-postgres/testing'
import { aClock } from '@pets/domain/testing'
import * as E from 'fp-ts/lib/Either.js'
import { loadConfig } from '../../src/config.js'
import { createService } from '../../src/create-service.js'
import { createLogger } from '../../src/logger.js'
import { startServer } from '../../src/start-server.js'
import { checkedFetch, unwatchService, watchService } from './checked-fetch.js'
import { inject } from 'vitest'

/** The two API keys every test service accepts. */
export const TEST_KEYS = ['test-key-one', 'test-key-two'] as const

export type TestServiceOptions = {
  /** `postgres`: a fresh database of its own, cloned from the migrated template. */
  readonly storage?: 'memory' | 'postgres'
  /** Environment variables on top of the test defaults (API_KEYS, PORT=0, LOG_LEVEL=silent). */
  readonly env?: Readonly<Record<string, string>>
  /** Where the test clock starts; it stands still until `clock.set`. */
  readonly clockNow?: string
  /**
   * With `postgres`: DATABASE_URL through this PgBouncer (transaction mode), DATABASE_DIRECT_URL
   * the database itself.
   */
  readonly pgbouncer?: TestPgBouncer
}

/** The service, started in this process on a free port, with a clock the test controls. */
export const startTestService = async (options: TestServiceOptions = {}) => {
  const database = options.storage === 'postgres' ? await openFreshDatabase(inject('postgres')) : undefined
  const config = loadConfig({
    API_KEYS: TEST_KEYS.join(','),
    PORT: '0',
    LOG_LEVEL: 'silent',
    ...(database === undefined ? {} : { DATABASE_URL: database.url, MIGRATE_ON_START: 'false' }),
    ...(database === undefined || options.pgbouncer === undefined
      ? {}
      : { DATABASE_URL: options.pgbouncer.through(database.url), DATABASE_DIRECT_URL: database.url }),
    ...options.env,
  })
  if (E.isLeft(config)) throw new Error(`bad test configuration: ${config.left.join('; ')}`)
  const clock = aClock(options.clockNow ?? '2026-11-22T12:00:00Z')
  const running = await startServer(config.right, (resolved) =>
    createService(resolved, { clock, logger: createLogger(resolved) }),
  )
  const url = running.url
  // Every answer of the test service is checked against the OpenAPI document it serves.
  await watchService(url)
  return {
    /** Where the server listens, such as http://127.0.0.1:40123. */
    url,
    /** What the service writes in Location and Link headers. */
    publicBaseUrl: running.publicBaseUrl,
    clock,
    /** fetch against the server: `request('/v1/pets', { headers })`; the answer must conform to the document. */
    request: (path: string, init: RequestInit = {}) => checkedFetch(`${url}${path}`, init),
    /** The same, with the first test key as bearer credential. */
    authed: (path: string, init: RequestInit = {}) =>
      checkedFetch(`${url}${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${TEST_KEYS[0]}`, ...(init.headers as Record<string, string>) },
      }),
    /** The fresh database of a PostgreSQL-backed service. */
    database,
    close: async () => {
      unwatchService(url)
      const outcome = await running.stop()
      await database?.close()
      return outcome
    },
  }
}

export type TestService = Awaited<ReturnType<typeof startTestService>>
