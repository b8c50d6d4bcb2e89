import { sql, type Kysely, type Migration } from 'kysely'

/**
 * Stops the pets' id sequence at 2^53 − 1, the largest id a JSON number carries exactly (CONTRACT: ids are
 * integers from 1 to 9007199254740991). Without it, the insert past it committed and only its answer
 * failed (toPetId refuses the id): a 500 for a pet that was added. Now the insert itself fails, nothing
 * is written, and the log line names the sequence. A sequence already past it (an operator's setval) is
 * refused by name rather than by PostgreSQL's "RESTART value" words. Frozen: never edit.
 */
export const petIdsWithinJson: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration must not follow today's schema types
  up: async (db: Kysely<any>) => {
    await sql`
      DO $$
      DECLARE
        v_ids regclass := pg_get_serial_sequence('pets', 'id')::regclass;
        v_last bigint;
      BEGIN
        EXECUTE format('SELECT last_value FROM %s', v_ids) INTO v_last;
        IF v_last > 9007199254740991 THEN
          RAISE EXCEPTION 'the sequence % of pets.id is at %, past 9007199254740991, the largest id a JSON '
            'number carries exactly: if no pet has an id past it, set it back with SELECT setval(''%'', max(id)) '
            'FROM pets; pets with ids past it cannot be served', v_ids, v_last, v_ids;
        END IF;
        ALTER TABLE pets ALTER COLUMN id SET MAXVALUE 9007199254740991;
      END $$`.execute(db)
  },
}
