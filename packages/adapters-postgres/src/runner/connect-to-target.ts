import pg from 'pg'
import type { ConnectionTargets, HostPort } from './connection-targets.js'
import { left, sessionError, walk, type Attempt, type Outcome, type Wanted } from './walk-hosts.js'
import { orWhenLate } from './or-when-late.js'

/**
 * Opens a pg.Client on the first host of `targets` whose session fits, walking them as libpq does; `config`
 * is pg's other settings (targets.base unless given; its connectionTimeoutMillis bounds the whole walk).
 */
export const connectToTarget = (targets: ConnectionTargets, config = targets.base): Promise<pg.Client> =>
  walk(targets, settingsOf(config), (attempt) => openOn(config, attempt))

/**
 * A pg.Client class for `new pg.Pool({ ...targets.base, …, Client: targetedClient(targets) })`: each new
 * connection goes to a host of `targets` whose session fits. pg's Client connects once (a second connect() is
 * refused), so a short-lived probe finds the host and this client then connects there and checks again: two
 * sessions per new connection, one when the host is the last to try (a single host). A password function
 * is called with the first host's parameters.
 */
export const targetedClient = (targets: ConnectionTargets): typeof pg.Client =>
  class TargetedClient extends pg.Client {
    readonly #config: pg.ClientConfig

    constructor(config: string | pg.ClientConfig = {}) {
      super(onHost(settingsOf(config), targets.hosts[0], targets.connectTimeoutMs))
      this.#config = settingsOf(config)
    }

    override connect(): Promise<pg.Client>
    override connect(callback: Callback): void
    override connect(callback?: Callback): Promise<pg.Client> | void {
      const connected = walk(targets, this.#config, (attempt) => this.#open(attempt))
      if (callback === undefined) return connected
      connected.then((client) => callback(null, client), callback)
    }

    async #open(attempt: Attempt): Promise<Outcome<pg.Client>> {
      if (!attempt.last) {
        const probe = await openOn(this.#config, attempt)
        if (!('value' in probe)) return probe
        close(probe.value)
      }
      // From here a failure ends the walk: this client cannot connect a second time. Until the pool has it
      // (and listens), an error of its socket (a server shutting down) must not go unheard.
      this.on('error', ignore)
      const started = Date.now()
      this.host = attempt.host.host
      this.port = attempt.host.port
      try {
        await super.connect()
      } catch (error) {
        return { reason: reasonOf(error), final: true, error }
      }
      const why = await sessionRefusal(this, attempt.wanted, left(attempt.budgetMs, started))
      if (why === undefined) {
        this.off('error', ignore)
        return { value: this }
      }
      close(this)
      const reason = attempt.last ? why : `${why} (after a probe accepted it)`
      return { reason, final: true, error: sessionError(reason, attempt.wanted) }
    }
  }

type Callback = (error: Error | null, client?: pg.Client) => void

// A fresh client on the attempt's host, connected and checked within its budget; else why not.
const openOn = async (config: pg.ClientConfig, attempt: Attempt): Promise<Outcome<pg.Client>> => {
  const started = Date.now()
  const client = new pg.Client(onHost(config, attempt.host, attempt.budgetMs))
  client.on('error', ignore)
  try {
    await client.connect()
  } catch (error) {
    const final = error instanceof pg.DatabaseError && error.code !== '57P03'
    return { reason: reasonOf(error), final, error }
  }
  const why = await sessionRefusal(client, attempt.wanted, left(attempt.budgetMs, started))
  if (why === undefined) client.off('error', ignore)
  if (why === undefined) return { value: client }
  close(client)
  return { reason: why, final: false, error: sessionError(why, attempt.wanted) }
}

// Why the session does not fit `wanted`, by libpq's checks (SHOW transaction_read_only, pg_is_in_recovery());
// undefined when it fits. A check that fails or outlasts `budgetMs` refuses too.
const sessionRefusal = async (client: pg.Client, wanted: Wanted, budgetMs: number | undefined) => {
  if (wanted === 'any') return undefined
  const writes = wanted === 'read-write' || wanted === 'read-only'
  const text = writes ? 'SHOW transaction_read_only' : 'SELECT pg_catalog.pg_is_in_recovery()::text AS x'
  let on: boolean
  try {
    const { rows } = await within(client.query<[string]>({ text, rowMode: 'array' }), budgetMs)
    on = ['on', 'true'].includes(String(rows[0]?.[0]))
  } catch (error) {
    return `check failed: ${reasonOf(error)}`
  }
  if (on === (wanted === 'read-only' || wanted === 'standby')) return undefined
  if (writes) return on ? 'read-only' : 'not read-only'
  return on ? 'in hot standby' : 'not in hot standby'
}

// pg-pool hides the password from enumeration: a spread of its options alone would drop it.
const onHost = (config: pg.ClientConfig, host: HostPort | undefined, timeoutMs: number | undefined) => ({
  ...config,
  password: config.password,
  host: host?.host,
  port: host?.port,
  connectionTimeoutMillis: timeoutMs ?? config.connectionTimeoutMillis ?? 0,
})

const settingsOf = (config: string | pg.ClientConfig): pg.ClientConfig => {
  if (typeof config === 'string' || config.connectionString !== undefined || config.host !== undefined) {
    throw new Error('pg takes the settings of targets.base here: no connection string, no host')
  }
  return config
}

const reasonOf = (error: unknown): string => {
  if (error instanceof pg.DatabaseError) return `${error.code ?? ''} ${error.message}`.trim()
  const code = (error as { code?: unknown } | undefined)?.code // ECONNREFUSED…, also on an AggregateError
  return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error)
}

const within = <T>(promise: Promise<T>, ms: number | undefined): Promise<T> =>
  ms === undefined
    ? promise
    : orWhenLate(promise, Math.max(ms, 1), () => {
        throw new Error('timeout expired')
      })

const ignore = () => {}

// On a hung check, end() destroys the socket (pg ends a client with a query under way that way).
const close = (client: pg.Client) => void client.end().catch(ignore)
