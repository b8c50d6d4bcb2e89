import { openFreshDatabase, type FreshDatabase } from '@pets/adapters-postgres/testing'
import * as E from 'fp-ts/lib/Either.js'
import { Writable } from 'node:stream'
import { inject } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { createService, type AnimalStoreService } from '../../src/create-service.js'
import { createLogger } from '../../src/logger.js'
import { startServer, type RunningServer } from '../../src/start-server.js'

/** The keys every in-process service accepts (ids, by their place in API_KEYS: env-1 and env-2). */
export const KEYS = ['in-process-key-one', 'in-process-key-two'] as const

export type InProcessOptions = {
  /** `postgres`: a fresh database of its own, cloned from the migrated template. */
  readonly storage?: 'memory' | 'postgres'
  readonly env?: Readonly<Record<string, string>>
  /** Changes the service before it serves, such as adding middleware in front of its app. */
  readonly adjust?: (service: AnimalStoreService) => void
}

/** A service started in this process with its log lines kept, to look at logs, metrics and shutdown. */
export type InProcessService = {
  readonly url: string
  readonly running: RunningServer
  readonly service: AnimalStoreService
  readonly database: FreshDatabase | undefined
  /** Every log line so far, parsed. */
  readonly logs: () => Array<Record<string, unknown>>
  /** The raw text of the log. */
  readonly logText: () => string
  readonly get: (path: string, key?: string) => Promise<Response>
  readonly close: () => Promise<void>
}

/** Starts the service in this process, with JSON logs at info kept in memory. */
export const startInProcess = async (options: InProcessOptions = {}): Promise<InProcessService> => {
  const database = options.storage === 'postgres' ? await openFreshDatabase(inject('postgres')) : undefined
  const config = loadConfig({
    API_KEYS: KEYS.join(','),
    PORT: '0',
    LOG_LEVEL: 'info',
    ...(database === undefined ? {} : { DATABASE_URL: database.url, MIGRATE_ON_START: 'false' }),
    ...options.env,
  })
  if (E.isLeft(config)) throw new Error(`bad test configuration: ${config.left.join('; ')}`)
  let text = ''
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString()
      done()
    },
  })
  const running = await startServer(config.right, async (resolved) => {
    const service = await createService(resolved, { logger: createLogger(resolved, stream) })
    options.adjust?.(service)
    return service
  })
  return {
    url: running.url,
    running,
    service: running.service,
    database,
    logs: () =>
      text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    logText: () => text,
    get: (path, key) =>
      fetch(
        `${running.url}${path}`,
        key === undefined ? {} : { headers: { Authorization: `Bearer ${key}` } },
      ),
    close: async () => {
      await running.stop()
      await database?.close()
    },
  }
}
