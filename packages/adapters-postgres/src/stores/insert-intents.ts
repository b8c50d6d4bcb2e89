import type { Pet } from '@pets/domain'
import type { RunPrepared, Statement } from '../runner/index.js'
import { toPet } from './to-pet-id.js'

// CONTRACT: walking `next` links sees every pet exactly once, also while pets are added. Each insert first
// commits an intent ("every id I draw is at least `lowest_id`") and clears it with its pets; a listing
// returns only ids below the lowest intent (ARCHITECTURE.md, "How writes keep paging exactly-once").

// Intents are committed asynchronously: visible at once, no WAL flush waited for. A crash may lose
// one, but only with every insert after it (their commits flush the WAL past it).
const ASYNC = `(SELECT set_config('synchronous_commit', 'off', true)) AS async`

/** Registers intent `$2` in slot `$1` for `$3` ms: an update in place of the slot's row, never a new row. */
export const REGISTER_INTENT: Statement<unknown> = {
  text: `INSERT INTO pet_insert_intents AS i (slot, intent, lowest_id, expires_at)
    SELECT $1::uuid, $2::uuid,
      coalesce(pg_sequence_last_value(pg_get_serial_sequence('pets', 'id')::regclass), 0) + 1,
      clock_timestamp() + $3::integer * interval '1 millisecond'
    FROM ${ASYNC}
    ON CONFLICT (slot) DO UPDATE
      SET intent = excluded.intent, lowest_id = excluded.lowest_id, expires_at = excluded.expires_at
    RETURNING lowest_id`,
  // A column of its own: behind a pooler, the settings sent in front of it answer rows too.
  columns: ['lowest_id'],
  decode: () => undefined,
}

/**
 * SQL that claims intent `$4` of slot `$3` for the batch `$2` and registers `$5` for `$6` ms, for the slot's
 * next insert: above every id this batch draws (the sequence's last value, plus the batch, plus one).
 */
export const CLAIM_AND_RENEW = `UPDATE pet_insert_intents SET intent = $5::uuid,
      lowest_id = coalesce(pg_sequence_last_value(pg_get_serial_sequence('pets', 'id')::regclass), 0)
        + jsonb_array_length($2::jsonb) + 1,
      expires_at = clock_timestamp() + $6::integer * interval '1 millisecond'
    WHERE slot = $3::uuid AND intent = $4::uuid AND expires_at > clock_timestamp()
    RETURNING 1`

/** Clears the intent `$2` of slot `$1`: registered for an insert that did not come. */
export const RELEASE_INTENT: Statement<unknown> = {
  text: `UPDATE pet_insert_intents SET intent = NULL, lowest_id = NULL FROM ${ASYNC}
    WHERE slot = $1::uuid AND intent = $2::uuid RETURNING slot`,
  columns: ['slot'],
  decode: () => undefined,
}

// Clears intents that expired unclaimed (a stalled or dead writer); one being claimed is locked: skipped.
const SWEEP_INTENTS: Statement<unknown> = {
  text: `UPDATE pet_insert_intents SET intent = NULL, lowest_id = NULL FROM ${ASYNC} WHERE slot IN (
      SELECT slot FROM pet_insert_intents WHERE intent IS NOT NULL AND expires_at < clock_timestamp()
      FOR UPDATE SKIP LOCKED)
    RETURNING slot`,
  columns: ['slot'],
  decode: () => undefined,
}

/** The marker of a page cut short by an insert under way: the lowest intent, and whether it expired. */
type Cut = { readonly cut: 'running' | 'expired' }
type ListRow = Pet | Cut

/**
 * A page of pets (status `$1` or all when null, ids above `$2`, `$3` rows at most) below the horizon, and a
 * marker row when a matching pet lies above it: `list_pets` of migration 0011, whose queries PL/pgSQL plans
 * once a connection, directly and behind a pooler alike (ARCHITECTURE.md, "A listing keeps one plan").
 */
const LIST_PETS: Statement<ListRow> = {
  summary: 'SELECT pets',
  text: 'SELECT o_id, o_name, o_category_id, o_status FROM list_pets($1, $2, $3)',
  columns: ['o_id', 'o_name', 'o_category_id', 'o_status'],
  decode: (fields) => (fields[1] === null ? { cut: fields[3] as Cut['cut'] } : toPet(fields)),
}

const waitedTooLong = (ms: number) =>
  Object.assign(new Error(`pets being inserted did not commit within ${ms} ms: the listing gave up`), {
    code: '55P03',
  })

/**
 * Lists a page (status or null for all, after, limit); when inserts under way cut it short, sweeps expired
 * intents if any, waits, and reads again, so a pet whose creation was answered is in the next listing. Past
 * `lifetimeMs` and a margin: 55P03.
 */
export const listBelowHorizon = (
  run: RunPrepared,
  values: readonly [status: string | null, after: string, limit: string],
  lifetimeMs: number,
  done: (error: Error | undefined, pets: Array<Pet>) => void,
): void => {
  const limit = Number(values[2])
  const giveUpAt = performance.now() + lifetimeMs + 250
  let delayMs = 1
  const attempt = () =>
    run(LIST_PETS, values, (error, rows) => {
      if (error !== undefined) return done(error, [])
      const at = rows.findIndex((row) => 'cut' in row)
      if (at === -1) return done(undefined, rows as Array<Pet>)
      const cut = (rows.splice(at, 1)[0] as Cut).cut
      if (rows.length >= limit) return done(undefined, rows as Array<Pet>)
      if (performance.now() > giveUpAt) return done(waitedTooLong(lifetimeMs), [])
      const again = () => setTimeout(attempt, (delayMs = Math.min(delayMs * 2, 16)))
      if (cut === 'running') return again()
      run(SWEEP_INTENTS, [], (failure) => (failure === undefined ? again() : done(failure, [])))
    })
  attempt()
}
