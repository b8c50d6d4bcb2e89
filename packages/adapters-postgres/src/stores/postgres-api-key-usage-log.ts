import { mergeCalls, type ApiKeyUsageLog, type OperationCalls } from '@pets/domain'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { sql, type Kysely } from 'kysely'
import {
  type ApiKeyUsageTable,
  type Database,
  type KyselyOf,
  withOurTables,
  type PostgresAdapterOptions,
  readAs,
  reportAs,
  tryStore,
} from '../runner/index.js'

const toCalls = (raw: string): number => {
  const n = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN
  if (Number.isSafeInteger(n)) return n
  throw new Error(
    `api_key_usage.calls holds ${JSON.stringify(raw)}, more than 2^53 - 1 (Number.isSafeInteger fails)`,
  )
}

const toEntry = (row: ApiKeyUsageTable): OperationCalls => ({
  keyId: row.key_id,
  operation: row.operation,
  calls: toCalls(row.calls),
  lastCalledAt: row.last_called_at,
})

/**
 * A usage log on PostgreSQL, shared by every instance on the database: a batch is one upsert
 * statement that adds to the counts already there, so instances never overwrite each other.
 */
export const createPostgresApiKeyUsageLog = <DB extends Database>(
  yours: KyselyOf<DB>,
  options: Pick<PostgresAdapterOptions, 'onUnavailable' | 'onServed'> = {},
): ApiKeyUsageLog => usageLogOn(withOurTables(yours), options)

const usageLogOn = (
  db: Kysely<Database>,
  options: Pick<PostgresAdapterOptions, 'onUnavailable' | 'onServed'>,
): ApiKeyUsageLog => ({
  add: (entries) => {
    // One row per key and operation (ON CONFLICT may not touch a row twice in one statement), in
    // one order everywhere, so two instances that write the same rows at once never deadlock.
    const rows = mergeCalls(entries)
    if (rows.length === 0) return TE.right(undefined)
    return pipe(
      tryStore(
        () =>
          db
            .insertInto('api_key_usage')
            .values(
              rows.map((r) => ({
                key_id: r.keyId,
                operation: r.operation,
                calls: String(r.calls),
                last_called_at: r.lastCalledAt,
              })),
            )
            .onConflict((oc) =>
              oc.columns(['key_id', 'operation']).doUpdateSet({
                calls: sql`api_key_usage.calls + excluded.calls`,
                last_called_at: sql`greatest(api_key_usage.last_called_at, excluded.last_called_at)`,
              }),
            )
            .execute(),
        reportAs(options, 'usageLog.add', db),
      ),
      TE.map(() => undefined),
    )
  },
  list: () =>
    pipe(
      tryStore(
        () =>
          db
            .selectFrom('api_key_usage')
            .selectAll()
            // Byte order, as the port promises, whatever the database's collation is.
            .orderBy(sql`key_id collate "C"`)
            .orderBy(sql`operation collate "C"`)
            .execute(),
        readAs(options, 'usageLog.list', db),
      ),
      TE.map((rows) => rows.map(toEntry)),
    ),
})
