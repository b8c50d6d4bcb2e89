#!/usr/bin/env node
import { generateApiKey } from '@pets/adapters-memory'
import * as E from 'fp-ts/lib/Either.js'
import { keysCommand, KEYS_USAGE } from './commands/keys.js'
import { migrateCommand } from './commands/migrate.js'
import { UsageError } from './commands/with-database.js'
import { loadConfig, type AppConfig } from './config.js'
import { createService, type AnimalStoreService } from './create-service.js'
import { createLogger } from './logger.js'
import { startServer } from './start-server.js'

const USAGE = `Usage:
animal-store [serve]                   run the service (configured by environment variables: see the README)
animal-store migrate                   bring the PostgreSQL schema up to date
${KEYS_USAGE}`

const print = (line: string) => process.stdout.write(`${line}\n`)
const fail = (lines: ReadonlyArray<string>): never => {
  process.stderr.write(`animal-store: ${lines.length === 1 ? lines[0] : `\n${lines.map((l) => `  - ${l}`).join('\n')}`}\n`)
  process.exit(2)
}

// CONTRACT: production needs at least one API key, from API_KEYS or the database.
const requireActiveKey = async (service: AnimalStoreService) => {
  const records = await service.apiKeys.list()()
  if (E.isRight(records) && records.right.some((r) => r.revokedAt === null)) return
  await service.close()
  throw new UsageError(
    E.isLeft(records)
      ? 'cannot start: PostgreSQL cannot be reached to look for API keys'
      : 'cannot start: APP_ENV=production needs at least one API key: set API_KEYS, or create one with "animal-store keys create --name NAME"',
  )
}

const serve = async (loaded: AppConfig) => {
  let config = loaded
  if (config.generateApiKey) {
    const key = generateApiKey()
    config = { ...config, apiKeys: [key] }
    // Printed once, on purpose, and never logged: development only, when API_KEYS is unset.
    print(`No API_KEYS set: this development run accepts the generated key\n  ${key}`)
  }
  const logger = createLogger(config)
  if (config.storage.kind === 'memory')
    logger.warn('storage: in memory; every pet is lost when this process ends (set DATABASE_URL to keep them)')
  const running = await startServer(config, async (resolved) => {
    const service = await createService(resolved, { logger })
    if (config.env === 'production' && config.apiKeys.length === 0) await requireActiveKey(service)
    return service
  })
  logger.info({ url: running.url, env: config.env, publicBaseUrl: running.publicBaseUrl }, 'listening')

  let stopping = false
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting at once')
      process.exit(1)
    }
    stopping = true
    logger.info({ signal }, 'shutting down')
    running.stop().then(
      (outcome) => {
        logger.info({ outcome }, 'stopped')
        process.exit(outcome === 'clean' ? 0 : 1)
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
}

const main = async (argv: ReadonlyArray<string>) => {
  const [command = 'serve', ...rest] = argv
  if (command === '--help' || command === '-h' || command === 'help') return print(USAGE)
  const config = loadConfig(process.env)
  if (E.isLeft(config)) return fail(['cannot start:', ...config.left])
  if (command === 'serve' && rest.length === 0) return serve(config.right)
  if (command === 'migrate' && rest.length === 0) return migrateCommand(config.right, print)
  if (command === 'keys') return keysCommand(config.right, rest, print)
  return fail([`unknown command "${argv.join(' ')}"`, USAGE])
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) return fail([error.message])
  createLogger({ logLevel: 'error', logFormat: 'json' }).fatal({ err: error }, 'stopped on an error')
  process.exit(1)
})
