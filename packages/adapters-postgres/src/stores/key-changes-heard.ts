import { randomUUID } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import { createChangeListener, type Database, type ListenOptions } from '../runner/index.js'
import { KEY_LISTENER_LOCK } from './advisory-locks.js'

/** The channel that migration 2026-11-22-0005 notifies on every change of `api_keys`. */
export const API_KEYS_CHANNEL = 'api_keys_changed'

/**
 * How a notification on `api_keys_changed` asks the key stores listening to say that they heard it: `heard?`,
 * a space and a token. PostgreSQL delivers the notifications of transactions in the order they committed, so
 * a store that heard the question had heard every change committed before it was asked, and from each of those
 * on answered nothing from its index in memory until it had read the keys again.
 */
export const HEARD_QUESTION = 'heard? '

/** The channel of the answers: the question's token, a space, and the pid of the store's LISTEN connection. */
export const API_KEYS_HEARD_CHANNEL = 'api_keys_heard'

/** What the LISTEN connection of a storage's key store shows in pg_stat_activity (`animal-store-api-keys`). */
export const keyListenerName = (applicationName: string): string => `${applicationName}-api-keys`

/** Answers a question heard by the LISTEN connection `listenerPid`, through the pool. */
export const answerHeard = (db: Kysely<Database>, token: string, listenerPid: number): Promise<void> =>
  sql`SELECT pg_notify(${API_KEYS_HEARD_CHANNEL}, ${`${token} ${listenerPid}`})`.execute(db).then(
    () => {},
    // Only the asker misses it, and says so.
    () => {},
  )

const [CLASS, OBJECT] = KEY_LISTENER_LOCK

/**
 * Takes KEY_LISTENER_LOCK shared on a key store's LISTEN connection, once it LISTENs and before the store
 * loads any key: held as long as that session lives, gone with it (a crash, a pid used again), whatever the
 * connection's name. Never waits; throws if a session holds it alone (no store of ours does).
 */
export const holdKeyListenerLock = async (
  onListenConnection: (text: string) => Promise<ReadonlyArray<unknown>>,
): Promise<void> => {
  const [row] = await onListenConnection(`SELECT pg_try_advisory_lock_shared(${CLASS}, ${OBJECT}) AS held`)
  if ((row as { held?: unknown } | undefined)?.held !== true)
    throw new Error(
      `Another session holds advisory lock (${CLASS}, ${OBJECT}) alone, which key stores hold shared while they ` +
        'listen, so that "keys revoke" finds them. Until it lets go, every API key is looked up in the database.',
    )
}

// Releases before the lock named their key stores' LISTEN connections `animal-store-api-keys` and nothing else.
const EARLIER_RELEASES = keyListenerName('animal-store')

/**
 * The backend pids of the LISTEN connections of every key store listening on this database now, whatever
 * their names: the sessions holding KEY_LISTENER_LOCK shared (pg_locks shows them to every role; one holding it
 * alone is none of ours), and those named as earlier releases named theirs.
 */
export const keyListenerPids = async (db: Kysely<Database>): Promise<ReadonlyArray<number>> => {
  const { rows } = await sql<{ pid: number }>`
    SELECT pid FROM pg_locks
    WHERE locktype = 'advisory' AND granted AND mode = 'ShareLock'
      AND classid = ${sql.lit(CLASS)} AND objid = ${sql.lit(OBJECT)} AND objsubid = 2 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND pid <> pg_backend_pid()
    UNION
    SELECT pid FROM pg_stat_activity
    WHERE datname = current_database() AND application_name = ${EARLIER_RELEASES} AND pid <> pg_backend_pid()
    ORDER BY pid`.execute(db)
  return rows.map((row) => Number(row.pid))
}

/** A LISTEN connection for the stores' answers. */
export type KeyChangesHeard = {
  /** Why it could not listen (a transaction pooler, no connection), or undefined while it listens. */
  readonly notListening: () => Error | undefined
  /**
   * Asks every key store listening whether it heard the changes committed so far; resolves with the pids
   * among `pids` that answered, once all have or `withinMs` has passed.
   */
  readonly ask: (pids: ReadonlyArray<number>, withinMs: number) => Promise<Set<number>>
  readonly close: () => Promise<void>
}

/**
 * LISTENs on API_KEYS_HEARD_CHANNEL through `listen` (a session: PostgreSQL itself, not a transaction pooler);
 * resolves once the first attempt has ended, listening or not.
 */
export const listenForKeyChangesHeard = async (
  db: Kysely<Database>,
  listen: ListenOptions,
): Promise<KeyChangesHeard> => {
  const answers = new Map<string, Set<number>>()
  let wake = () => {}
  let failure: Error | undefined = new Error('the LISTEN connection is not up yet')
  const notify = async (channel: string, payload: string) => {
    await sql`SELECT pg_notify(${channel}, ${payload})`.execute(db)
  }
  const listener = createChangeListener(listen, {
    channel: API_KEYS_HEARD_CHANNEL,
    notifyElsewhere: notify,
    ready: async () => {},
    notified: (_drop, { payload }) => {
      const [token = '', pid = ''] = payload.split(' ')
      answers.get(token)?.add(Number(pid))
      wake()
    },
    up: () => void (failure = undefined),
    down: () => {},
    onError: (error) => void (failure = error),
  })
  await listener.start()
  return {
    notListening: () => failure,
    ask: async (pids, withinMs) => {
      const token = randomUUID()
      const heard = new Set<number>()
      answers.set(token, heard)
      const giveUpAt = Date.now() + withinMs
      await notify(API_KEYS_CHANNEL, `${HEARD_QUESTION}${token}`)
      const among = () => new Set(pids.filter((pid) => heard.has(pid)))
      while (among().size < pids.length && Date.now() < giveUpAt) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, giveUpAt - Date.now())
          wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
      }
      answers.delete(token)
      return among()
    },
    close: listener.close,
  }
}
