import { defineConfig } from 'vitest/config'

/**
 * What the tests of every package share; a package's vitest.config.ts is this, or this merged with its own
 * settings (mergeConfig). apps/api, bench and tests/pack have configurations of their own.
 */
export const sharedTestConfig = defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Every file of a worker shares the modules it loaded (koa, pg, io-ts, the sources): loaded once, not
    // once per file. No test here uses `vi.mock`, which needs a file's own modules (apps/api isolates its one).
    isolate: false,
    // CI runs every package's tests at once on two cores: a test may wait its turn for seconds.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
