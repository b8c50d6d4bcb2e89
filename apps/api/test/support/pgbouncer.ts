import {
  startTestPgBouncer,
  type PgBouncerOptions,
  type TestPgBouncer,
} from '@pets/adapters-postgres/testing'
import { afterAll, inject } from 'vitest'

/**
 * A PgBouncer in transaction mode in front of the test PostgreSQL for the tests of this file:
 * started on first use (or TEST_PGBOUNCER_URL), stopped after the file. Without one the tests
 * that use it fail, saying how to provide one; they never skip.
 */
export const usePgBouncer = (options: PgBouncerOptions = {}): (() => Promise<TestPgBouncer>) => {
  let started: Promise<TestPgBouncer> | undefined
  afterAll(async () => {
    await (await started?.catch(() => undefined))?.stop()
  })
  return () => (started ??= startTestPgBouncer(inject('postgres').url, options))
}
