import { sql, type Kysely, type Migration } from 'kysely'

/**
 * Creates `create_pet_once`: an idempotent addition in one statement (the key's lock tried, the record read,
 * the pet and its record written, inside the server), so no lock is held while waiting for a client. `p_at`
 * NULL dates by `now()`; `p_lock_timeout_ms` holds for the transaction only (a pooler drops the session's).
 * Answers `outcome` (`created`, `replayed`, `reused`, `in_use`) and, unless `in_use`, the pet. Each statement
 * of a VOLATILE function takes a new snapshot, so the record is read after the lock. Frozen: never edit.
 */
export const createPetOnce: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration must not follow today's schema types
  up: async (db: Kysely<any>) => {
    await sql`
      CREATE FUNCTION create_pet_once(
        p_owner text, p_key text, p_fingerprint text,
        p_name text, p_category_id bigint, p_status text,
        p_at timestamptz, p_window_ms bigint, p_lock_timeout_ms integer,
        OUT outcome text, OUT o_id bigint, OUT o_name text, OUT o_category_id bigint, OUT o_status text)
      LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        v_at timestamptz := coalesce(p_at, now());
        v_fingerprint text;
      BEGIN
        IF p_lock_timeout_ms IS NOT NULL THEN
          PERFORM set_config('lock_timeout', p_lock_timeout_ms::text, true);
        END IF;
        -- A read-only transaction (a standby, default_transaction_read_only during a failover) may
        -- not take the lock on a standby and can write nothing anywhere: a replay is still answered.
        IF current_setting('transaction_read_only')::boolean THEN
          SELECT r.fingerprint, p.id, p.name, p.category_id, p.status
            INTO v_fingerprint, o_id, o_name, o_category_id, o_status
            FROM idempotency_records r JOIN pets p ON p.id = r.pet_id
            WHERE r.api_key_id = p_owner AND r.idempotency_key = p_key
              AND r.created_at >= v_at - p_window_ms * interval '1 millisecond';
          IF NOT FOUND THEN
            RAISE EXCEPTION 'cannot add a pet: the database accepts no writes now (transaction_read_only is on)'
              USING ERRCODE = 'read_only_sql_transaction';
          END IF;
          outcome := CASE WHEN v_fingerprint = p_fingerprint THEN 'replayed' ELSE 'reused' END;
          IF outcome = 'reused' THEN
            o_id := NULL; o_name := NULL; o_category_id := NULL; o_status := NULL;
          END IF;
          RETURN;
        END IF;
        -- Tried, never waited for: a repeat while the first runs is refused at once. An
        -- idempotency key is printable ASCII, so the first line break ends it.
        IF NOT pg_try_advisory_xact_lock(
          hashtextextended('pets.idempotency' || chr(10) || p_key || chr(10) || p_owner, 0)) THEN
          outcome := 'in_use';
          RETURN;
        END IF;
        SELECT r.fingerprint, p.id, p.name, p.category_id, p.status
          INTO v_fingerprint, o_id, o_name, o_category_id, o_status
          FROM idempotency_records r JOIN pets p ON p.id = r.pet_id
          WHERE r.api_key_id = p_owner AND r.idempotency_key = p_key
            AND r.created_at >= v_at - p_window_ms * interval '1 millisecond';
        IF FOUND THEN
          IF v_fingerprint = p_fingerprint THEN
            outcome := 'replayed';
          ELSE
            outcome := 'reused';
            o_id := NULL; o_name := NULL; o_category_id := NULL; o_status := NULL;
          END IF;
          RETURN;
        END IF;
        -- CONTRACT: ids become visible in id order (exactly-once paging). The same lock as every
        -- insert of pets: taken before the id, held to the commit, never across a round trip.
        PERFORM pg_advisory_xact_lock(4242000002);
        INSERT INTO pets (name, category_id, status) VALUES (p_name, p_category_id, p_status)
          RETURNING id, name, category_id, status INTO o_id, o_name, o_category_id, o_status;
        -- An expired record of this key may still be there: the per-key lock makes replacing it safe.
        INSERT INTO idempotency_records AS r (api_key_id, idempotency_key, fingerprint, pet_id, created_at)
          VALUES (p_owner, p_key, p_fingerprint, o_id, v_at)
          ON CONFLICT (api_key_id, idempotency_key) DO UPDATE
            SET fingerprint = excluded.fingerprint, pet_id = excluded.pet_id, created_at = excluded.created_at;
        outcome := 'created';
      END
      $$`.execute(db)
  },
}
