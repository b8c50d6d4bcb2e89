import { defineConfig } from 'vitest/config'

export default defineConfig({
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
