/**
 * Timeouts for a second pool on a test database, as openFreshDatabase gives the first: 10 s, so a
 * machine busy with other tests fails no test that is not about time.
 */
export const patient = {
  connectionTimeoutMs: 10_000,
  statementTimeoutMs: 10_000,
  lockTimeoutMs: 10_000,
} as const
