#!/usr/bin/env node
import * as E from 'fp-ts/lib/Either.js'
import { generateApiKey } from '@pets/adapters-memory'
import { loadConfig, type AppConfig } from './config.js'
import { createService } from './create-service.js'
import { createLogger } from './logger.js'
import { startServer } from './start-server.js'

const usage = `Usage: animal-store [serve]

Runs the animal store service, configured by environment variables (see the README).`

const fail = (lines: ReadonlyArray<string>): never => {
  process.stderr.write(`animal-store: cannot start:\n${lines.map((l) => `  - ${l}`).join('\n')}\n`)
  process.exit(2)
}

const serve = async (loaded: AppConfig) => {
  let config = loaded
  if (config.generateApiKey) {
    const key = generateApiKey()
    config = { ...config, apiKeys: [key] }
    // Printed once, on purpose, and never logged: development only, when API_KEYS is unset.
    process.stdout.write(`No API_KEYS set: this development run accepts the generated key\n  ${key}\n`)
  }
  const logger = createLogger(config)
  if (config.storage.kind === 'memory')
    logger.warn(
      'storage: in memory; every pet is lost when this process ends (set DATABASE_URL to keep them)',
    )
  const running = await startServer(config, (resolved) => createService(resolved, { logger }))
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
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${usage}\n`)
    return
  }
  const config = loadConfig(process.env)
  if (E.isLeft(config)) return fail(config.left)
  if (command === 'serve' && rest.length === 0) return serve(config.right)
  return fail([`unknown command "${[command, ...rest].join(' ')}"`, usage])
}

main(process.argv.slice(2)).catch((error: unknown) => {
  createLogger({ logLevel: 'error', logFormat: 'json' }).fatal(
    { err: error },
    'the service stopped on an error',
  )
  process.exit(1)
})
