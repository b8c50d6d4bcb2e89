import { sql, type Kysely, type Migration } from 'kysely'

/**
 * Creates `idempotency_records`: one row per pet added with an Idempotency-Key, written in the
 * pet's own transaction, removed after 24 hours by the service. Frozen: never edit.
 */
export const createIdempotencyRecords: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration must not follow today's schema types
  up: async (db: Kysely<any>) => {
    await db.schema
      .createTable('idempotency_records')
      .addColumn('api_key_id', 'text', (col) => col.notNull())
      .addColumn('idempotency_key', 'text', (col) => col.notNull())
      .addColumn('fingerprint', 'text', (col) => col.notNull())
      .addColumn('pet_id', 'bigint', (col) => col.notNull().references('pets.id'))
      .addColumn('created_at', 'timestamptz', (col) => col.notNull())
      .addPrimaryKeyConstraint('idempotency_records_pkey', ['api_key_id', 'idempotency_key'])
      // CONTRACT: 1 to 255 printable ASCII characters.
      .addCheckConstraint(
        'idempotency_records_key_printable',
        sql`char_length(idempotency_key) BETWEEN 1 AND 255 AND idempotency_key ~ '^[ -~]+$'`,
      )
      .execute()
    // Serves the removal of expired records.
    await db.schema
      .createIndex('idempotency_records_created_at_idx')
      .on('idempotency_records')
      .column('created_at')
      .execute()
  },
}
