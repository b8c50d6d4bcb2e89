import pg from 'pg'
import type { ConnectionTargets, HostPort, TargetSessionAttrs } from './connection-targets.js'

/** `n1:5432`, `[::1]:5434`, `/run/postgresql:5432`: a host as messages and logs write it. */
export const formatHostPort = ({ host, port }: HostPort): string =>
  host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`

/** One line for a log: the user, the hosts, the database and the rules; never the password or a key. */
export const describeTargets = (targets: ConnectionTargets): string => {
  const { base, connectTimeoutMs } = targets
  const unverified = typeof base.ssl === 'object' && base.ssl.rejectUnauthorized === false
  const rules = [
    `target_session_attrs=${targets.targetSessionAttrs}`,
    `load_balance_hosts=${targets.loadBalanceHosts}`,
    ...(connectTimeoutMs === undefined ? [] : [`connect_timeout=${connectTimeoutMs / 1000}s`]),
    `tls=${base.ssl === undefined ? 'unset' : !base.ssl ? 'off' : unverified ? 'no-verify' : 'verify'}`,
  ]
  const who = base.user === undefined ? '' : `${base.user}@`
  return `${who}${targets.hosts.map(formatHostPort).join(',')}/${base.database ?? ''} ${rules.join(' ')}`
}

/**
 * Opens a pg.Client on the first host of `targets` whose session fits, walking them as libpq does; `config`
 * is pg's other settings (targets.base unless given; its connectionTimeoutMillis bounds the whole walk).
 */
export const connectToTarget = (targets: ConnectionTargets, config = targets.base): Promise<pg.Client> =>
  walk(targets, config, (attempt) => openOn(config, attempt))

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
      // From here a failure ends the walk: this client cannot connect a second time.
      const started = Date.now()
      this.host = attempt.host.host
      this.port = attempt.host.port
      try {
        await super.connect()
      } catch (error) {
        return { reason: reasonOf(error), final: true }
      }
      const why = await sessionRefusal(this, attempt.wanted, left(attempt.budgetMs, started))
      if (why === undefined) return { value: this }
      close(this)
      return { reason: attempt.last ? why : `${why} (after a probe accepted it)`, final: true }
    }
  }

type Wanted = Exclude<TargetSessionAttrs, 'prefer-standby'>
type Attempt = {
  readonly host: HostPort
  readonly wanted: Wanted
  readonly budgetMs?: number
  readonly last: boolean
}
type Outcome<T> = { readonly value: T } | { readonly reason: string; readonly final: boolean }
type Open<T> = (attempt: Attempt) => Promise<Outcome<T>>
type Callback = (error: Error | null, client?: pg.Client) => void

const HEADLINES = {
  ...{ any: 'no host accepted the connection', 'prefer-standby': 'no host accepted the connection' },
  ...{ 'read-write': 'no host accepted writes', 'read-only': 'no host gave a read-only session' },
  ...{ primary: 'no host is a primary', standby: 'no host is a standby' },
} satisfies Record<TargetSessionAttrs, string>

// libpq's walk: hosts in order (shuffled for load_balance_hosts=random), each within connect_timeout; for
// prefer-standby, a second pass takes any host. An error from the server itself (a wrong password, an unknown
// database) ends it, as in libpq, but 57P03 (starting up, shutting down) moves on to the next host.
const walk = async <T>(targets: ConnectionTargets, config: pg.ClientConfig, open: Open<T>): Promise<T> => {
  const started = Date.now()
  const overallMs = settingsOf(config).connectionTimeoutMillis || undefined
  const order = targets.loadBalanceHosts === 'random' ? shuffled(targets.hosts) : targets.hosts
  const attrs = targets.targetSessionAttrs
  const passes: ReadonlyArray<Wanted> = attrs === 'prefer-standby' ? ['standby', 'any'] : [attrs]
  const refusals: Array<string> = []
  const refused = () => new Error(`${HEADLINES[attrs]}: ${refusals.join('; ')}`)
  for (const [pass, wanted] of passes.entries()) {
    for (const [index, host] of order.entries()) {
      const overallLeft = left(overallMs, started) ?? Infinity
      if (overallLeft <= 0) refusals.push(`connectionTimeoutMillis (${overallMs} ms) spent`)
      if (overallLeft <= 0) throw refused()
      const budgetMs = Math.min(targets.connectTimeoutMs ?? Infinity, overallLeft)
      const last = pass === passes.length - 1 && index === order.length - 1
      const outcome = await open({ host, wanted, last, ...(Number.isFinite(budgetMs) && { budgetMs }) })
      if ('value' in outcome) return outcome.value
      refusals.push(`${formatHostPort(host)} ${outcome.reason}`)
      if (outcome.final) throw refused()
    }
  }
  throw refused()
}

// A fresh client on the attempt's host, connected and checked within its budget; else why not.
const openOn = async (config: pg.ClientConfig, attempt: Attempt): Promise<Outcome<pg.Client>> => {
  const started = Date.now()
  const client = new pg.Client(onHost(config, attempt.host, attempt.budgetMs))
  client.on('error', ignore)
  try {
    await client.connect()
  } catch (error) {
    return { reason: reasonOf(error), final: error instanceof pg.DatabaseError && error.code !== '57P03' }
  }
  const why = await sessionRefusal(client, attempt.wanted, left(attempt.budgetMs, started))
  if (why === undefined) client.off('error', ignore)
  if (why === undefined) return { value: client }
  close(client)
  return { reason: why, final: false }
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

const left = (budgetMs: number | undefined, since: number) =>
  budgetMs === undefined ? undefined : budgetMs - (Date.now() - since)

const within = <T>(promise: Promise<T>, ms: number | undefined): Promise<T> =>
  ms === undefined
    ? promise
    : new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('timeout expired')), Math.max(ms, 1))
        promise.then(resolve, reject).finally(() => clearTimeout(timer))
      })

const shuffled = <T>(items: ReadonlyArray<T>): Array<T> => {
  const copy = [...items]
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[copy[i], copy[j]] = [copy[j] as T, copy[i] as T]
  }
  return copy
}

const ignore = () => {}

// On a hung check, end() destroys the socket (pg ends a client with a query under way that way).
const close = (client: pg.Client) => void client.end().catch(ignore)
