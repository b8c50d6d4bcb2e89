import type { ApiKeyOwner, ApiKeyStore, KeyLookup } from '@pets/domain'
import { apiKeyDigest, generateApiKey } from '@pets/wire/api-key-secret'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { createApiKeyCache } from './api-key-cache.js'
import {
  type Database,
  type KyselyOf,
  withOurTables,
  type ListenOptions,
  type OnServed,
  type OnUnavailable,
  readAs,
  reportAs,
  tryStore,
} from '../runner/index.js'
import { isKeyId, recordColumns, toRecord } from './api-key-records.js'
import { createLastUsedWriter } from './last-used-writer.js'

/** Options of the PostgreSQL key store. */
export type PostgresApiKeyStoreOptions = {
  /** The clock that dates issues, revocations and uses; the machine's unless given. */
  readonly now?: (() => Date) | undefined
  /** Where to LISTEN for changes of `api_keys`, so that `start` can serve stored keys from memory. */
  readonly listen?: ListenOptions | undefined
  /**
   * Told of background failures: the LISTEN connection's (a ListenUnheardError when it cannot hear at all), and
   * a write of last_used_at (a LastUsedNotWrittenError, its cause the database's error); silent unless given.
   */
  readonly onError?: ((error: Error) => void) | undefined
  /** Told each time the LISTEN connection holds (again) and keys are checked in memory; silent unless given. */
  readonly onListening?: (() => void) | undefined
  /** How long after a use last_used_at is written, batched with other uses; 1000 ms unless given. */
  readonly lastUsedFlushMs?: number | undefined
  /** Told once of each call answered StoreUnavailable, with its operation and SQLSTATE. */
  readonly onUnavailable?: OnUnavailable | undefined
  /** Told of each call PostgreSQL served. */
  readonly onServed?: OnServed | undefined
}

/** The key store, and what runs in its background. */
export type PostgresApiKeyStore = ApiKeyStore & {
  /**
   * With `listen`: LISTENs, loads the active keys, then serves them from memory. Resolves once the first
   * attempt ended (it then retries in the background), never rejects; without `listen`, does nothing.
   */
  readonly start: () => Promise<void>
  /** Ends the LISTEN connection and writes the last uses; call it before closing the pool. */
  readonly close: () => Promise<void>
  /** Whether authentication is answered from memory right now (else by a query). */
  readonly servingFromMemory: () => boolean
  /** The stored keys by digest, for a storage's authenticator: from the index, else a query. */
  readonly byDigest: KeyLookup
}

/**
 * API keys on PostgreSQL, kept as SHA-256 digests. Started with `listen`, it authenticates from an index in
 * memory kept current by LISTEN/NOTIFY, else by a query. A request never writes: last_used_at is written in
 * the background, at most once a minute per key.
 */
export const createPostgresApiKeyStore = <DB extends Database>(
  yours: KyselyOf<DB>,
  options: PostgresApiKeyStoreOptions = {},
): PostgresApiKeyStore => {
  const db = withOurTables(yours)
  const now = options.now ?? (() => new Date())
  // Called from timers and socket events: a callback that throws must not end the process.
  const onError = (error: Error) => {
    try {
      options.onError?.(error)
    } catch {
      // nothing better to do with it
    }
  }
  const lastUsed = createLastUsedWriter(db, {
    onError,
    ...(options.lastUsedFlushMs === undefined ? {} : { flushAfterMs: options.lastUsedFlushMs }),
  })
  const onListening = () => {
    try {
      options.onListening?.()
    } catch {
      // nothing better to do with it
    }
  }
  const cache =
    options.listen === undefined ? undefined : createApiKeyCache(db, options.listen, onError, onListening)
  let closing: Promise<void> | undefined

  // Looked up by digest, which tells a timing attacker nothing about the key.
  const lookUp = (digest: string) =>
    tryStore(
      () =>
        db
          .selectFrom('api_keys')
          .select(['id', 'name'])
          .where('digest', '=', digest)
          .where('revoked_at', 'is', null)
          .executeTakeFirst(),
      readAs(options, 'apiKeys.authenticate', db),
    )

  const fromIndex = (digest: string): O.Option<ApiKeyOwner> | undefined => {
    if (cache?.serving() !== true) return undefined
    const owner = cache.find(digest)
    if (owner !== undefined) lastUsed.record(owner.keyId, now())
    return O.fromNullable(owner)
  }

  const byDigest: KeyLookup = {
    fromMemory: fromIndex,
    lookUp: (digest) =>
      pipe(
        lookUp(digest),
        TE.map((row): O.Option<ApiKeyOwner> => {
          if (row === undefined) return O.none
          lastUsed.record(row.id, now())
          return O.some({ keyId: row.id, name: row.name })
        }),
      ),
  }

  return {
    // The lookup's task is made when the port is called, so that it reads the caller's context then (its
    // statement's span is a child of the request, whatever context manager the host has); run only when
    // the index does not answer.
    authenticate: (apiKey) => {
      const digest = apiKeyDigest(apiKey)
      const lookUp = byDigest.lookUp(digest)
      return () => {
        const known = fromIndex(digest)
        return known === undefined ? lookUp() : Promise.resolve(E.right(known))
      }
    },
    byDigest,
    issue: (name) =>
      tryStore(
        async () => {
          const key = generateApiKey()
          const digest = apiKeyDigest(key)
          const row = await db
            .insertInto('api_keys')
            .values({ name, digest, created_at: now() })
            .returning(recordColumns)
            .executeTakeFirstOrThrow()
          cache?.added({ id: row.id, name: row.name, digest })
          return { key, record: toRecord(row) }
        },
        reportAs(options, 'apiKeys.issue', db),
      ),
    list: () =>
      pipe(
        // The uses recorded so far are written first, so that the list shows them.
        TE.fromTask(lastUsed.flush),
        TE.chain(() =>
          tryStore(
            () => db.selectFrom('api_keys').select(recordColumns).orderBy('id').execute(),
            readAs(options, 'apiKeys.list', db),
          ),
        ),
        TE.map((rows) => rows.map(toRecord)),
      ),
    revoke: (id) =>
      isKeyId(id)
        ? pipe(
            tryStore(
              () =>
                db
                  .updateTable('api_keys')
                  .set({ revoked_at: now() })
                  .where('id', '=', id)
                  .where('revoked_at', 'is', null)
                  .returning(recordColumns)
                  .executeTakeFirst(),
              reportAs(options, 'apiKeys.revoke', db),
            ),
            TE.map((row) => {
              // Revoked now or before: either way, no longer a key of the index.
              cache?.revoked(id)
              return pipe(O.fromNullable(row), O.map(toRecord))
            }),
          )
        : TE.right(O.none),
    fromMemory: (apiKey) => fromIndex(apiKeyDigest(apiKey)),
    start: () => (closing === undefined ? (cache?.start() ?? Promise.resolve()) : Promise.resolve()),
    close: () =>
      (closing ??= (async () => {
        await cache?.close()
        await lastUsed.close()
      })()),
    servingFromMemory: () => closing === undefined && cache?.serving() === true,
  }
}
