// The advisory locks this adapter takes, in one place: any fixed int8 will do, as long as nothing
// else on the database takes the same one. The migrations' SQL (0006 to 0008) repeats PET_INSERT_LOCK
// as a literal, frozen with them.

/** Session lock of one migration run at a time (migrate-to-latest.ts). */
export const MIGRATION_LOCK = 4_242_000_001
/** Transaction lock of the old id ordering: intent inserts take it shared, others (and 0006, 0007) alone. */
export const PET_INSERT_LOCK = 4_242_000_002
/** Transaction lock of the instance whose turn it is to remove expired idempotency records. */
export const CLEANUP_LOCK = 4_242_000_003
