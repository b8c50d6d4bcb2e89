import * as E from 'fp-ts/lib/Either.js'
import cluster from 'node:cluster'
import { StandardOutputError, standardOutput, type Output } from './commands/standard-output.js'
import { KEYS_USAGE, OPENAPI_USAGE, UsageError } from './commands/usage.js'
import { loadConfig, namesOwnHost, type AppConfig } from './config.js'
import { printGeneratedKey } from './generated-key.js'
import { createLogger, exitAfterFlush, exitOnUncaughtErrors, flushLogs, type Logger } from './log/logger.js'
import { applyV8Flags } from './node-flags.js'
import {
  operationalFailure,
  outputFailure,
  type FailureContext,
  type OperationalFailure,
} from './operational-failure.js'
import { runPrimary } from './cluster/run-primary.js'
import { serve } from './serve.js'
import { apiVersion } from './version.js'

// The commands' lines, as `--help` prints them below "Usage:" and a mistyped command below its message.
const COMMANDS = `animal-store [serve]                   run the service (configured by environment variables: see the README)
animal-store migrate                   bring the PostgreSQL schema up to date
${OPENAPI_USAGE}
${KEYS_USAGE}
animal-store version                   print the version of this release (also --version)`
const USAGE = `Usage:\n${COMMANDS}`

// One line, or a heading line and its items below it: `animal-store: cannot start:` then `  - PORT …`
// (a command's heading is `animal-store: keys list: cannot run:`).
const fail = ([heading, ...items]: ReadonlyArray<string>): never => {
  process.stderr.write(`animal-store: ${heading}\n${items.map((item) => `  - ${item}\n`).join('')}`)
  process.exit(2)
}

// The service's logger, once there is one: its buffer is flushed before the process ends.
let serviceLogger: Logger | undefined
// What runs, once the configuration is read: an error that ends it may be a failure of its surroundings.
let running: Omit<FailureContext, 'isUnavailableError'> | undefined

const serveCommand = async (loaded: AppConfig) => {
  let config = loaded
  let workerEnv: Record<string, string> = {}
  let unprinted: string | undefined
  if (config.generateApiKey && cluster.isPrimary) {
    // Printed once, on purpose, and never logged: development only, when API_KEYS is unset.
    const generated = printGeneratedKey()
    config = { ...config, apiKeys: [generated.key] }
    // Every worker accepts the one key the primary printed.
    workerEnv = { API_KEYS: generated.key }
    unprinted = generated.unprinted
  }
  const logger = createLogger(config)
  serviceLogger = logger
  exitOnUncaughtErrors(logger)
  // The service runs on: nobody can use its key, and the operator learns why.
  if (unprinted !== undefined)
    logger.warn(
      { code: unprinted },
      'API keys: no API_KEYS set, and the key generated for this run could not be printed on standard ' +
        'error; set API_KEYS',
    )
  // CONTRACT: APP_ENV chooses the environment; NODE_ENV=production, which images set, does not.
  if (config.unheededNodeEnv !== undefined)
    logger.warn(
      `NODE_ENV=${config.unheededNodeEnv}, but APP_ENV is unset: this runs as ${config.env}, since APP_ENV chooses ` +
        `the environment; set APP_ENV=${config.unheededNodeEnv} for its rules`,
    )
  if (config.storage.kind === 'memory')
    logger.warn(
      'storage: in memory; every pet is lost when this process ends (set DATABASE_URL to keep them)',
    )
  // Outside development nothing generates a key, and the in-memory store has none stored to issue.
  if (config.storage.kind === 'memory' && config.apiKeys.length === 0)
    logger.warn(
      'API keys: none: API_KEYS is unset and the in-memory store keeps no stored keys, so every request ' +
        'under /v1 is answered 401; set API_KEYS',
    )
  // CONTRACT: each environment has its own public base URL; this one's default is where clients elsewhere
  // cannot reach it.
  if (namesOwnHost(config))
    logger.warn(
      `PUBLIC_BASE_URL is not set in ${config.env}: Location, Link and the OpenAPI servers name this ` +
        'host and port (http://HOST:PORT/v1); set it to where clients reach /v1',
    )
  if (config.webConcurrency === 1) await serve(config, logger, 'single')
  else if (cluster.isPrimary) await runPrimary(config, logger, workerEnv)
  else await serve(config, logger, 'worker')
}

const isHelp = (arg: string) => arg === '--help' || arg === '-h' || arg === 'help'

// `openapi` opens no database and checks no key: production's requirements of a service are not its own.
const configOf = (command: string, named: string): AppConfig => {
  const config = loadConfig(process.env, {
    stdoutIsTty: process.stdout.isTTY === true,
    describeOnly: command === 'openapi',
  })
  // A command reads the service's variables too, but starts nothing.
  if (E.isLeft(config))
    return fail([command === 'serve' ? 'cannot start:' : `${named}: cannot run:`, ...config.left])
  running = { command: named, config: config.right }
  return config.right
}

// Every command but the service: its lines go to `output`, and each command's module (and the adapters it
// needs) is loaded only when it runs.
const runCommand = async ([command, ...rest]: ReadonlyArray<string>, named: string, output: Output) => {
  if (command === undefined || isHelp(command)) return output.print(USAGE)
  // A command's own help needs neither configuration nor database.
  if (command === 'keys' && rest.some(isHelp)) return output.print(KEYS_USAGE)
  if (command === 'openapi' && rest.some(isHelp)) return output.print(OPENAPI_USAGE)
  if ((command === 'serve' || command === 'migrate') && rest.some(isHelp)) return output.print(USAGE)
  if ((command === 'version' || command === '--version') && rest.length === 0)
    return output.print(apiVersion())
  // Known before the configuration is read: an unknown command is named so, whatever the variables say.
  const known = (command === 'migrate' && rest.length === 0) || command === 'keys' || command === 'openapi'
  if (!known) return fail([`unknown command "${[command, ...rest].join(' ')}"; usage:\n${COMMANDS}`])
  const config = configOf(command, named)
  if (command === 'migrate')
    return (await import('./commands/migrate.js')).migrateCommand(config, output.print)
  if (command === 'keys') return (await import('./commands/keys.js')).keysCommand(config, rest, output)
  return (await import('./commands/openapi.js')).openapiCommand(config, rest, output.print)
}

// The command as the operator's line names it: `serve`, `migrate`, `keys list`.
let named = 'serve'

const main = async (argv: ReadonlyArray<string>) => {
  applyV8Flags()
  const [command = 'serve', ...rest] = argv
  named = command === 'keys' ? `keys ${rest[0] ?? ''}`.trim() : command
  if (command === 'serve' && rest.length === 0) return serveCommand(configOf(command, named))
  // A command is done once its lines are written: one that could not be is a failure of it.
  const output = standardOutput()
  await runCommand(argv, named, output)
  await output.written()
}

// adapters-postgres (and pg) only when the storage is PostgreSQL, which has loaded them already.
const failureOf = async (error: unknown): Promise<OperationalFailure | undefined> =>
  error instanceof StandardOutputError
    ? outputFailure(error, named)
    : running === undefined
      ? undefined
      : operationalFailure(error, {
          ...running,
          ...(running.config.storage.kind === 'postgres'
            ? { isUnavailableError: (await import('@pets/adapters-postgres')).isUnavailableError }
            : {}),
        })

main(process.argv.slice(2)).catch(async (error: unknown) => {
  if (error instanceof StandardOutputError && error.readerGone) process.exit(0)
  const refused = error instanceof UsageError
  if (refused && serviceLogger === undefined) return fail([error.message])
  const failure = refused ? undefined : await failureOf(error)
  // A command's failure of its surroundings is the operator's to fix: one line, no stack (a bug keeps it).
  if (failure !== undefined && serviceLogger === undefined) {
    process.stderr.write(`animal-store: ${failure.line}\n`)
    process.exit(1)
  }
  // The service's lines first, then this one, whatever LOG_LEVEL says.
  if (serviceLogger !== undefined) await flushLogs(serviceLogger)
  const logger = createLogger({ logLevel: 'error', logFormat: 'json' })
  // A start the service refuses (a schema behind or ahead, no session for the migrations): as the late check.
  if (refused) {
    logger.fatal({ reason: error.message }, 'stopped on an error')
    process.stderr.write(`animal-store: ${error.message}\n`)
    return exitAfterFlush(logger, 2)
  }
  if (failure === undefined) logger.fatal({ err: error }, 'stopped on an error')
  else {
    // Operators' pipelines read the service's fatal line: still there, but as plain fields (pino's error
    // serializer would add a stack).
    const { code, message, line } = failure
    logger
      .child({}, { serializers: { err: (fields: unknown) => fields } })
      .fatal(
        { err: { message, ...(code === undefined ? {} : { code }) }, reason: line },
        'stopped on an error',
      )
    process.stderr.write(`animal-store: ${line}\n`)
  }
  exitAfterFlush(logger, 1)
})
