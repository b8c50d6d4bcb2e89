import { sql, type Kysely, type Migration } from 'kysely'

// The parts that `create_pets_once` (0007) and `create_pets_once_claimed` (0008) share, as this migration
// replaces them: only how a key's busy lock is answered changes.
const DECLARE = `
        v_at timestamptz := coalesce(p_at, now());
        v_read_only boolean := current_setting('transaction_read_only')::boolean;
        v_ids regclass := pg_get_serial_sequence('pets', 'id')::regclass;
        v_locks bigint[] := '{}';
        v_held bigint[] := '{}';
        v_new bigint[] := '{}';
        v_position bigint;
        v_lock bigint;
        v_found record;`

// A key whose lock another transaction (or an earlier element of the batch) holds is looked up like the
// others: a committed record answers it (that holder is a replay, or has committed since), and only a key
// without one is `in_use` (its holder is adding the pet). CONTRACT's 409 is for a retry while the first is
// still running, never for two replays of a finished one.
const LOCK_AND_LOOK_UP = `
        IF p_lock_timeout_ms IS NOT NULL THEN
          PERFORM set_config('lock_timeout', p_lock_timeout_ms::text, true);
        END IF;
        -- The key's lock as create_pet_once names it. An idempotency key is printable ASCII, so the
        -- first line break ends it.
        FOR v_position, v_lock IN
          SELECT e.position,
            hashtextextended('pets.idempotency' || chr(10) || (e.element->>1) || chr(10) || (e.element->>0), 0)
          FROM jsonb_array_elements(p_batch) WITH ORDINALITY AS e(element, position)
          ORDER BY e.position
        LOOP
          -- A read-only transaction (a standby, default_transaction_read_only during a failover) may
          -- not take the lock on a standby: it only reads, and a replay is still answered.
          IF v_read_only THEN
            v_held := v_held || v_position;
          ELSIF NOT v_lock = ANY (v_locks) THEN
            IF pg_try_advisory_xact_lock(v_lock) THEN
              v_held := v_held || v_position;
            END IF;
          END IF;
          v_locks := v_locks || v_lock;
        END LOOP;
        FOR v_found IN
          SELECT e.position, e.position = ANY (v_held) AS held, r.fingerprint = e.element->>2 AS same,
            p.id, p.name, p.category_id, p.status
          FROM jsonb_array_elements(p_batch) WITH ORDINALITY AS e(element, position)
          LEFT JOIN (idempotency_records r JOIN pets p ON p.id = r.pet_id)
            ON r.api_key_id = e.element->>0 AND r.idempotency_key = e.element->>1
            AND r.created_at >= v_at - p_window_ms * interval '1 millisecond'
          ORDER BY e.position
        LOOP
          IF v_found.id IS NULL AND v_found.held AND NOT v_read_only THEN
            v_new := v_new || v_found.position;
            CONTINUE;
          END IF;
          o_position := v_found.position;
          outcome := CASE WHEN v_found.id IS NOT NULL AND v_found.same THEN 'replayed'
            WHEN v_found.id IS NOT NULL THEN 'reused'
            WHEN v_found.held THEN 'read_only' ELSE 'in_use' END;
          IF outcome = 'replayed' THEN
            o_id := v_found.id; o_name := v_found.name;
            o_category_id := v_found.category_id; o_status := v_found.status;
          ELSE
            o_id := NULL; o_name := NULL; o_category_id := NULL; o_status := NULL;
          END IF;
          RETURN NEXT;
        END LOOP;
        IF cardinality(v_new) = 0 THEN
          RETURN;
        END IF;`

const INSERT = `
        -- Ids are drawn first, in position order, so each record names its own pet by construction.
        -- An expired record of a key may still be there: the key's lock makes replacing it safe.
        RETURN QUERY
          WITH fresh AS MATERIALIZED (
            SELECT n.position, p_batch->(n.position::integer - 1) AS element, nextval(v_ids) AS id
            FROM unnest(v_new) AS n(position)
            ORDER BY n.position),
          added AS (
            INSERT INTO pets (id, name, category_id, status) OVERRIDING SYSTEM VALUE
            SELECT f.id, f.element->>3, (f.element->>4)::bigint, f.element->>5 FROM fresh f
            ORDER BY f.id
            RETURNING id, name, category_id, status),
          recorded AS (
            INSERT INTO idempotency_records AS r
              (api_key_id, idempotency_key, fingerprint, pet_id, created_at)
            SELECT f.element->>0, f.element->>1, f.element->>2, f.id, v_at FROM fresh f
            ON CONFLICT (api_key_id, idempotency_key) DO UPDATE
              SET fingerprint = excluded.fingerprint, pet_id = excluded.pet_id,
                created_at = excluded.created_at)
          SELECT f.position, 'created'::text, a.id, a.name, a.category_id, a.status
          FROM fresh f JOIN added a ON a.id = f.id;`

const RETURNS = `RETURNS TABLE (o_position bigint, outcome text,
        o_id bigint, o_name text, o_category_id bigint, o_status text)
      LANGUAGE plpgsql VOLATILE`

const createPetsOnce = `
      CREATE OR REPLACE FUNCTION create_pets_once(
        p_batch jsonb, p_at timestamptz, p_window_ms bigint, p_lock_timeout_ms integer)
      ${RETURNS} AS $$
      DECLARE${DECLARE}
      BEGIN${LOCK_AND_LOOK_UP}
        -- CONTRACT: ids become visible in id order (exactly-once paging). The same lock as every
        -- insert of pets: taken once, before the first id, held to the commit.
        PERFORM pg_advisory_xact_lock(4242000002);${INSERT}
      END
      $$`

const createPetsOnceClaimed = `
      CREATE OR REPLACE FUNCTION create_pets_once_claimed(
        p_slot uuid, p_intent uuid, p_batch jsonb, p_at timestamptz, p_window_ms bigint, p_lock_timeout_ms integer)
      ${RETURNS} AS $$
      DECLARE${DECLARE}
        v_claimed boolean := false;
      BEGIN
        IF NOT v_read_only AND p_intent IS NOT NULL THEN
          UPDATE pet_insert_intents SET intent = NULL, lowest_id = NULL
            WHERE slot = p_slot AND intent = p_intent AND expires_at > clock_timestamp();
          v_claimed := FOUND;
        END IF;${LOCK_AND_LOOK_UP}
        -- CONTRACT: no listing passes an id before it is visible. This batch's intent, registered
        -- and committed before any of its ids was drawn, bounds every listing below those ids until
        -- this transaction ends; it is claimed (cleared with the pets' commit) unless it expired.
        IF NOT v_claimed THEN
          RAISE EXCEPTION 'the insert''s turn expired before it began: its intent % is gone', p_intent
            USING ERRCODE = 'lock_not_available';
        END IF;
        -- Shared: these inserts never wait for each other, only for a previous version's.
        PERFORM pg_advisory_xact_lock_shared(4242000002);${INSERT}
      END
      $$`

/**
 * Replaces `create_pets_once` (0007) and `create_pets_once_claimed` (0008), same signatures, so that
 * replays of a finished key never meet `in_use`: a position whose key lock is busy (a replay in another
 * instance holds it, or an earlier element of the batch) is answered from its committed record, and is
 * `in_use` only when there is none. Everything else as before. Frozen: never edit.
 */
export const replaysBesideBusyKeys: Migration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration must not follow today's schema types
  up: async (db: Kysely<any>) => {
    await sql.raw(createPetsOnce).execute(db)
    await sql.raw(createPetsOnceClaimed).execute(db)
  },
}
