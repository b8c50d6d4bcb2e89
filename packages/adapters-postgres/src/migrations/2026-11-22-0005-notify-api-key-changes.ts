import { sql, type Kysely, type Migration } from 'kysely'

/**
 * Notifies `api_keys_changed` (payload: the key's id, empty for TRUNCATE) on every change of `api_keys` that
 * can change who authenticates; writes of `last_used_at` alone notify nobody. Frozen: never edit.
 */
export const notifyApiKeyChanges: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration must not follow today's schema types
  up: async (db: Kysely<any>) => {
    // NEW is null in a DELETE trigger, OLD in an INSERT trigger. pg_notify sends at commit, and
    // only once per transaction for the same payload.
    await sql`
      CREATE FUNCTION api_keys_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_LEVEL = 'STATEMENT' THEN
          PERFORM pg_notify('api_keys_changed', '');
        ELSIF TG_OP = 'DELETE' THEN
          PERFORM pg_notify('api_keys_changed', OLD.id::text);
        ELSE
          PERFORM pg_notify('api_keys_changed', NEW.id::text);
        END IF;
        RETURN NULL;
      END
      $$`.execute(db)
    await sql`
      CREATE TRIGGER api_keys_notify_change
      AFTER INSERT OR DELETE OR UPDATE OF revoked_at, digest, name ON api_keys
      FOR EACH ROW EXECUTE FUNCTION api_keys_notify_change()`.execute(db)
    await sql`
      CREATE TRIGGER api_keys_notify_truncate
      AFTER TRUNCATE ON api_keys
      FOR EACH STATEMENT EXECUTE FUNCTION api_keys_notify_change()`.execute(db)
  },
}
