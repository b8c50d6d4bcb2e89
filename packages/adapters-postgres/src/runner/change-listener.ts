import { randomBytes } from 'node:crypto'
import type pg from 'pg'
import { endWithin } from './broken-connections.js'
import { connectionConfig } from './connection-config.js'
import { BACKEND_PID, startupKeyIsNotTheServers } from './pooler.js'
import { asError } from './as-error.js'
import { orWhenLate } from './or-when-late.js'

/** Where and how the dedicated LISTEN connection connects. */
export type ListenOptions = {
  /** A session outside the pool: PostgreSQL itself or a pooler in session mode, never in transaction mode. */
  readonly connectionString: string
  /** Its name in the host's configuration, for the message that refuses it; `listen.connectionString` unless given. */
  readonly connectionStringName?: string | undefined
  /** Shown in pg_stat_activity; `api-keys-listener` unless given. */
  readonly applicationName?: string | undefined
  /** How long to wait for the connection, and for each of its statements; 5000 ms unless given. */
  readonly timeoutMs?: number | undefined
  /** The first wait before connecting again; doubled after each failure up to `reconnectMaxMs`. 250 ms unless given. */
  readonly reconnectMinMs?: number | undefined
  /** The longest wait before connecting again; 10 000 ms unless given. */
  readonly reconnectMaxMs?: number | undefined
  /**
   * How often the connection is checked with `SELECT 1`, to notice a network that died silently (the
   * keepalives of a proxy or NAT in between may still answer): a change made elsewhere then goes unheard for at
   * most this plus `timeoutMs` before the store asks the database instead. 5000 ms unless given.
   */
  readonly heartbeatMs?: number | undefined
}

/** What the listener does with its connection. */
export type ListenHooks = {
  readonly channel: string
  /** Sends a notification through another connection (the pool), to prove that this one hears it. */
  readonly notifyElsewhere: (channel: string, payload: string) => Promise<void>
  /**
   * Runs once LISTEN holds and is proved, given a query on the LISTEN connection itself (for what must hold
   * exactly as long as it does); the connection is up only when it resolves.
   */
  readonly ready: (onListenConnection: (text: string) => Promise<ReadonlyArray<unknown>>) => Promise<void>
  /**
   * A notification on `channel` arrived, with its payload and this connection's backend pid; `drop` ends this
   * connection (and connects again) if what it triggers fails.
   */
  readonly notified: (drop: (error: Error) => void, heard: { payload: string; listenerPid: number }) => void
  readonly up: () => void
  readonly down: () => void
  readonly onError: (error: Error) => void
}

/** A LISTEN connection that keeps itself up until closed. */
export type ChangeListener = {
  /** Connects; resolves once the first attempt has ended, up or not. Never rejects. */
  readonly start: () => Promise<void>
  readonly close: () => Promise<void>
}

/** LISTEN through this connection does not hear what other sessions NOTIFY; connecting again will not help. */
export class ListenUnheardError extends Error {
  override readonly name = 'ListenUnheardError'
}

/**
 * Keeps a dedicated `pg.Client` LISTENing on `hooks.channel`. Each connection LISTENs, proves it hears a
 * NOTIFY sent through the pool (else a ListenUnheardError, for good), runs `ready`, and only then is up; a
 * broken one connects again after a jittered backoff. Errors go to `onError`, never thrown.
 */
export const createChangeListener = (options: ListenOptions, hooks: ListenHooks): ChangeListener => {
  const timeoutMs = options.timeoutMs ?? 5000
  const minMs = options.reconnectMinMs ?? 250
  const maxMs = Math.max(minMs, options.reconnectMaxMs ?? 10_000)
  const heartbeatMs = options.heartbeatMs ?? 5000
  let current: pg.Client | undefined
  let failures = 0
  let reconnect: NodeJS.Timeout | undefined
  let heartbeat: NodeJS.Timeout | undefined
  let started: Promise<void> | undefined
  let closed = false

  const lost = (client: pg.Client, error: Error): Promise<void> => {
    if (client !== current) return Promise.resolve() // an earlier connection, already replaced
    current = undefined
    clearInterval(heartbeat)
    hooks.down()
    const ended = endWithin(client, Math.min(timeoutMs, 1000))
    if (closed) return ended
    hooks.onError(error)
    if (error instanceof ListenUnheardError) return ended
    // Full backoff with jitter, so that many processes do not all come back at the same instant.
    const cap = Math.min(maxMs, minMs * 2 ** failures++)
    reconnect = setTimeout(() => void connect(), cap / 2 + (Math.random() * cap) / 2)
    reconnect.unref()
    return ended
  }

  // Before any LISTEN: through a transaction pooler it would stay on whichever server connection
  // ran it, for other clients to inherit. Found as the pool finds a pooler (pooler.ts).
  const refuseAPooler = async (client: pg.Client) => {
    const { rows } = await client.query<{ pid: number }>(BACKEND_PID)
    const pid = rows[0]?.pid
    if (pid === undefined || startupKeyIsNotTheServers(client, pid))
      throw new ListenUnheardError(
        'The LISTEN connection (listen.connectionString) goes through a transaction pooler (PgBouncer in ' +
          'transaction mode?): its backend pid is not the one the startup gave. LISTEN there never hears ' +
          'anything, and would stay on a server connection that other clients get. No LISTEN was sent. ' +
          'Set it to a direct connection to the same database (DATABASE_DIRECT_URL). ' +
          'Until then every API key is looked up in the database.',
      )
    return pid
  }

  const prove = async (client: pg.Client) => {
    const channel = `api_keys_probe_${randomBytes(8).toString('hex')}`
    const payload = randomBytes(8).toString('hex')
    let hear = () => {}
    const heard = new Promise<void>((resolve) => (hear = resolve))
    const listener = (message: pg.Notification) => {
      if (message.channel === channel && message.payload === payload) hear()
    }
    client.on('notification', listener)
    try {
      await client.query(`LISTEN ${channel}`)
      await hooks.notifyElsewhere(channel, payload)
      const wasHeard = await orWhenLate(
        heard.then(() => true),
        timeoutMs,
        () => false,
      )
      if (!wasHeard && client === current)
        throw new ListenUnheardError(
          `The LISTEN connection (listen.connectionString) did not hear, within ${timeoutMs} ms, a NOTIFY sent through the pool. ` +
            'It probably goes through a transaction pooler (PgBouncer in transaction mode), where LISTEN never hears anything, ' +
            'or to another database. Set it to a direct connection to the same database (DATABASE_DIRECT_URL). ' +
            'Until then every API key is looked up in the database.',
        )
      await client.query(`UNLISTEN ${channel}`)
    } finally {
      client.off('notification', listener)
    }
  }

  const connection = connectionConfig(
    options.connectionString,
    undefined,
    options.connectionStringName ?? 'listen.connectionString',
  )
  const connect = async (): Promise<void> => {
    if (closed) return
    const client = new connection.Client({
      application_name: options.applicationName ?? 'api-keys-listener',
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
      // As the pool's: a silent path is noticed within about 15 s even while idle, besides the heartbeat.
      keepAlive: true,
      keepAliveInitialDelayMillis: 5000,
      ...connection.settings,
    })
    current = client
    client.on('error', (error) => void lost(client, error))
    client.on('end', () => void lost(client, new Error('The LISTEN connection for API keys ended')))
    let listenerPid = 0
    client.on('notification', ({ channel, payload = '' }) => {
      if (client === current && channel === hooks.channel)
        hooks.notified((error) => void lost(client, error), { payload, listenerPid })
    })
    try {
      await client.connect()
      listenerPid = await refuseAPooler(client)
      await client.query(`LISTEN ${hooks.channel}`)
      await prove(client)
      if (client !== current) return
      await hooks.ready(async (text) => (await client.query(text)).rows)
      if (client !== current) return
      failures = 0
      // A beat while the last one waits (up to timeoutMs) is skipped: pg queues it, a use pg@9 refuses.
      let beating = false
      const beaten = () => void (beating = false)
      heartbeat = setInterval(() => {
        if (beating) return
        beating = true
        void client.query('SELECT 1').then(beaten, (error: unknown) => lost(client, asError(error)))
      }, heartbeatMs)
      heartbeat.unref()
      hooks.up()
    } catch (error) {
      await lost(client, asError(error))
    }
  }

  return {
    start: () => (started ??= connect()),
    close: async () => {
      closed = true
      clearTimeout(reconnect)
      if (current !== undefined) await lost(current, new Error('closed'))
    },
  }
}
