import type { ApiKeyId, ApiKeyOwner } from '@pets/domain'
import { sql, type Kysely } from 'kysely'
import { createApiKeyIndex, type ActiveApiKey } from './api-key-index.js'
import { asError, createChangeListener, type Database, type ListenOptions } from '../runner/index.js'
import { answerHeard, API_KEYS_CHANNEL, HEARD_QUESTION, holdKeyListenerLock } from './key-changes-heard.js'

/** The active keys of this process in memory, kept current by LISTEN/NOTIFY. */
export type ApiKeyCache = {
  /** True while the index may be trusted: LISTEN holds, and every change heard of is loaded. */
  readonly serving: () => boolean
  /** The owner of an active key by its digest; ask only while `serving()`. */
  readonly find: (digest: string) => ApiKeyOwner | undefined
  /** Tells the index at once of a key this process added. */
  readonly added: (key: ActiveApiKey) => void
  /** Tells the index at once of a key this process revoked. */
  readonly revoked: (id: ApiKeyId) => void
  readonly start: () => Promise<void>
  readonly close: () => Promise<void>
}

/**
 * The cache; nothing runs before `start`: LISTEN, hold KEY_LISTENER_LOCK, check migration 0005's trigger,
 * load active keys, serve. A notification makes the index stale until a reload begun after it ends; a reload
 * that overlapped a local change runs again, and one that fails ends the connection, which reconnects and reloads.
 */
export const createApiKeyCache = (
  db: Kysely<Database>,
  listen: ListenOptions,
  onError: (error: Error) => void,
  onListening?: () => void,
): ApiKeyCache => {
  const index = createApiKeyIndex()
  let listening = false
  let fresh = false
  let wanted = false // a reload is due
  let changes = 0 // of the index by this process
  let reloading: Promise<void> | undefined

  const loadActive = () =>
    db.selectFrom('api_keys').select(['id', 'name', 'digest']).where('revoked_at', 'is', null).execute()

  const drain = async () => {
    try {
      while (wanted) {
        wanted = false
        const before = changes
        const keys = await loadActive()
        if (changes !== before) {
          wanted = true
          continue
        }
        index.replace(keys)
        fresh = !wanted
      }
    } finally {
      reloading = undefined
    }
  }
  const reload = (): Promise<void> => {
    wanted = true
    fresh = false
    return (reloading ??= drain())
  }

  // Without the trigger (migration 0005 not run yet), no change would ever be heard.
  const requireTrigger = async () => {
    const { rows } = await sql<{ found: boolean }>`
      SELECT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = to_regclass('api_keys')
        AND tgname = 'api_keys_notify_change' AND tgenabled <> 'D') AS found`.execute(db)
    if (rows[0]?.found !== true)
      throw new Error(
        'api_keys has no enabled trigger api_keys_notify_change (migration 2026-11-22-0005 has not run), so ' +
          'changes of keys would go unheard. Until it has, every API key is looked up in the database.',
      )
  }

  const listener = createChangeListener(listen, {
    channel: API_KEYS_CHANNEL,
    notifyElsewhere: async (channel, payload) => {
      await sql`SELECT pg_notify(${channel}, ${payload})`.execute(db)
    },
    ready: async (onListenConnection) => {
      // Before any key is loaded: `keys revoke` counts this store from now on, whatever its connection's name.
      await holdKeyListenerLock(onListenConnection)
      await requireTrigger()
      await reload()
    },
    notified: (drop, { payload, listenerPid }) => {
      // A question (`keys revoke`'s), no change: every change before it was heard, and unserved since.
      if (payload.startsWith(HEARD_QUESTION))
        return void answerHeard(db, payload.slice(HEARD_QUESTION.length), listenerPid)
      void reload().catch((error: unknown) => drop(asError(error)))
    },
    up: () => {
      listening = true
      onListening?.()
    },
    down: () => {
      listening = false
      fresh = false
    },
    onError,
  })

  return {
    serving: () => listening && fresh,
    find: index.find,
    added: (key) => {
      changes++
      index.add(key)
    },
    revoked: (id) => {
      changes++
      index.remove(id)
    },
    start: listener.start,
    close: listener.close,
  }
}
