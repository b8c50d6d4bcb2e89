import { sql, type Kysely, type Migration } from 'kysely'

/** Creates `api_keys`, which holds each key's SHA-256 digest and never the key. Frozen: never edit. */
export const createApiKeys: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration must not follow today's schema types
  up: async (db: Kysely<any>) => {
    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'bigint', (col) => col.primaryKey().generatedAlwaysAsIdentity())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('digest', 'text', (col) => col.notNull().unique())
      .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
      .addColumn('revoked_at', 'timestamptz')
      .addColumn('last_used_at', 'timestamptz')
      // A digest and nothing else: a plain key that slipped in would not look like this.
      .addCheckConstraint('api_keys_digest_sha256_hex', sql`digest ~ '^[0-9a-f]{64}$'`)
      .execute()
  },
}
