import { storeRefusesWrites, storeUnavailable, type StoreHealth, type StoreUnavailable } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import { sql, type Kysely } from 'kysely'
import { orWhenLate } from '../runner/index.js'

/** How long the health check waits for PostgreSQL, and whom it tells when writes stop or resume. */
export type PostgresStoreHealthOptions = {
  /** 1000 ms unless given; far shorter than the pool's own timeouts, as a probe must be. */
  readonly timeoutMs?: number | undefined
  /** Told when the database starts or stops refusing writes (a standby, a failover); `reason` says why. */
  readonly onWritableChange?: ((writable: boolean, reason: string) => void) | undefined
}

/** The database answers, but refuses writes: every write would be a 503. */
export class DatabaseRefusesWritesError extends Error {
  override readonly name = 'DatabaseRefusesWritesError'
}

type Answer = { readonly in_recovery: boolean; readonly read_only: string }

const refusal = ({ in_recovery, read_only }: Answer): string | undefined => {
  if (in_recovery) return 'PostgreSQL refuses writes: it is a standby in recovery (pg_is_in_recovery())'
  if (read_only === 'on')
    return 'PostgreSQL refuses writes: transactions are read-only (default_transaction_read_only is on)'
  return undefined
}

/**
 * The health of PostgreSQL: one query through the service's own pool (an exhausted pool is unhealthy too),
 * within `timeoutMs`; unhealthy too when it refuses writes, since every write would then be a 503.
 */
export const createPostgresStoreHealth = <DB>(
  db: Kysely<DB>,
  options: PostgresStoreHealthOptions = {},
): StoreHealth => {
  const timeoutMs = options.timeoutMs ?? 1000
  let writable: boolean | undefined
  const noteWritable = (now: boolean, reason: string) => {
    const before = writable
    writable = now
    if (before === now || (before === undefined && now)) return
    try {
      options.onWritableChange?.(now, reason)
    } catch {
      // a probe must answer whatever its listener does
    }
  }
  return {
    check: () => async () => {
      // The query may end after the timeout; its outcome is then ignored.
      const answered = sql<Answer>`SELECT pg_is_in_recovery() AS in_recovery,
        current_setting('transaction_read_only') AS read_only`
        .execute(db)
        .then(
          ({ rows }): E.Either<StoreUnavailable, void> => {
            const refused = rows[0] === undefined ? undefined : refusal(rows[0])
            noteWritable(refused === undefined, refused ?? 'PostgreSQL accepts writes again')
            return refused === undefined
              ? E.right(undefined)
              : E.left(storeRefusesWrites(new DatabaseRefusesWritesError(refused)))
          },
          // Whatever keeps the query from answering makes the store unfit for traffic.
          (error: unknown) => E.left(storeUnavailable(error)),
        )
      return orWhenLate(answered, timeoutMs, () =>
        E.left(storeUnavailable(new Error(`PostgreSQL did not answer within ${timeoutMs} ms`))),
      )
    },
  }
}
