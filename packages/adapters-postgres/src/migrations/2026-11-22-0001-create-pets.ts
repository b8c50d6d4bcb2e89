import { sql, type Kysely, type Migration } from 'kysely'

/** Creates `pets`, with an index that serves the status-filtered listing. Frozen: never edit. */
export const createPets: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration must not follow today's schema types
  up: async (db: Kysely<any>) => {
    await db.schema
      .createTable('pets')
      .addColumn('id', 'bigint', (col) => col.primaryKey().generatedAlwaysAsIdentity())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('category_id', 'bigint', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
      // char_length counts code points, as the contract does.
      .addCheckConstraint('pets_name_length', sql`char_length(name) BETWEEN 1 AND 255`)
      .addCheckConstraint('pets_category_id_range', sql`category_id BETWEEN 1 AND 9007199254740991`)
      .addCheckConstraint('pets_status_known', sql`status IN ('available', 'pending', 'sold')`)
      .execute()
    // Serves `WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3`; the primary key serves the rest.
    await db.schema.createIndex('pets_status_id_idx').on('pets').columns(['status', 'id']).execute()
  },
}
