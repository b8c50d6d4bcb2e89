// The advisory locks this adapter takes, in one place: any fixed int8 will do, as long as nothing
// else on the database takes the same one. The migrations' SQL (0006 to 0008) repeats PET_INSERT_LOCK
// as a literal, frozen with them.

/** Session lock of one migration run at a time (migrate-to-latest.ts). */
export const MIGRATION_LOCK = 4_242_000_001
/** Transaction lock of the old id ordering: intent inserts take it shared, others (and 0006, 0007) alone. */
export const PET_INSERT_LOCK = 4_242_000_002
/** Transaction lock of the instance whose turn it is to remove expired idempotency records. */
export const CLEANUP_LOCK = 4_242_000_003
/**
 * Session lock, taken shared, that the LISTEN connection of every key store holds while it listens: `keys
 * revoke` finds them by it in pg_locks (key-changes-heard.ts). Two int4 keys (pg_locks: classid, objid,
 * objsubid 2), a key space apart from the int8 ones above and the transaction locks hashed from idempotency keys.
 */
export const KEY_LISTENER_LOCK = [4242, 4] as const
