import { migrateToLatest } from '@pets/adapters-postgres'
import { openFreshDatabase } from '@pets/adapters-postgres/testing'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, inject, it } from 'vitest'
import { UsageError } from '../src/commands/usage.js'
import { loadConfig } from '../src/config.js'
import { createLogger } from '../src/log/logger.js'
import { prepareDatabase } from '../src/prepare-database.js'
import { memoryLog } from './support/memory-log.js'

// What `serve` does before it listens, with MIGRATE_ON_START=false.
const prepare = async (databaseUrl: string, env: Record<string, string> = {}) => {
  const config = loadConfig({
    API_KEYS: 'a-key',
    DATABASE_URL: databaseUrl,
    MIGRATE_ON_START: 'false',
    ...env,
  })
  if (E.isLeft(config)) throw new Error(config.left.join('; '))
  const log = memoryLog()
  const late = await prepareDatabase(config.right, createLogger(config.right, log.stream))
  late.giveUp?.()
  return log.text()
}

describe('starting with MIGRATE_ON_START=false', () => {
  it('refuses a database whose schema is behind the code, naming what did not run and what to do', async () => {
    const empty = await openFreshDatabase(inject('postgres'), { empty: true })
    try {
      const refused = prepare(empty.url)
      await expect(refused).rejects.toBeInstanceOf(UsageError)
      await expect(refused).rejects.toThrow(
        /schema is not up to date \(MIGRATE_ON_START=false; not run: 2026-11-22-0001-create-pets, .*\): run "animal-store migrate" first/,
      )
      await migrateToLatest(empty)
      await expect(prepare(empty.url)).resolves.toBeDefined()
    } finally {
      await empty.close()
    }
  })

  it('starts when the database cannot be reached, saying the schema was not checked (it answers 503 meanwhile)', async () => {
    const lines = await prepare('postgres://postgres@127.0.0.1:1/nowhere', {
      DATABASE_CONNECT_TIMEOUT_MS: '200',
    })
    expect(lines).toContain(
      'migrations: the database did not answer, so its schema was not checked; it will be once it answers',
    )
  })
})
