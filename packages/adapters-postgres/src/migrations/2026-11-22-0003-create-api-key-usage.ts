import { sql, type Kysely, type Migration } from 'kysely'

/**
 * Creates `api_key_usage`: per API key and operation, how many calls and when the last one was.
 * `key_id` is text and has no foreign key, because keys of API_KEYS (`env-1`, …) have no row in
 * `api_keys`. Frozen: never edit.
 */
export const createApiKeyUsage: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration must not follow today's schema types
  up: async (db: Kysely<any>) => {
    await db.schema
      .createTable('api_key_usage')
      .addColumn('key_id', 'text', (col) => col.notNull())
      .addColumn('operation', 'text', (col) => col.notNull())
      .addColumn('calls', 'bigint', (col) => col.notNull())
      .addColumn('last_called_at', 'timestamptz', (col) => col.notNull())
      .addPrimaryKeyConstraint('api_key_usage_pkey', ['key_id', 'operation'])
      .addCheckConstraint('api_key_usage_calls_positive', sql`calls > 0`)
      .execute()
  },
}
