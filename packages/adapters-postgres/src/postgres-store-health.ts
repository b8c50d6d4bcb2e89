import { storeUnavailable, type StoreHealth, type StoreUnavailable } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import { sql, type Kysely } from 'kysely'

/** How long the health check waits for PostgreSQL. */
export type PostgresStoreHealthOptions = {
  /** 1000 ms unless given; far shorter than the pool's own timeouts, as a probe must be. */
  readonly timeoutMs?: number
}

/**
 * The health of PostgreSQL: `SELECT 1` through the service's own pool (so an exhausted pool counts
 * as unhealthy too), given up after `timeoutMs`.
 */
export const createPostgresStoreHealth = <DB>(
  db: Kysely<DB>,
  options: PostgresStoreHealthOptions = {},
): StoreHealth => {
  const timeoutMs = options.timeoutMs ?? 1000
  return {
    check: () => async () => {
      let timer: NodeJS.Timeout | undefined
      const timedOut = new Promise<E.Either<StoreUnavailable, void>>((resolve) => {
        timer = setTimeout(
          () =>
            resolve(E.left(storeUnavailable(new Error(`PostgreSQL did not answer within ${timeoutMs} ms`)))),
          timeoutMs,
        )
      })
      // The query may end after the timeout; its outcome is then ignored.
      const answered = sql`SELECT 1`.execute(db).then(
        (): E.Either<StoreUnavailable, void> => E.right(undefined),
        // Whatever keeps SELECT 1 from answering makes the store unfit for traffic.
        (error: unknown) => E.left(storeUnavailable(error)),
      )
      try {
        return await Promise.race([answered, timedOut])
      } finally {
        clearTimeout(timer)
      }
    },
  }
}
