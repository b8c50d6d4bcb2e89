import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Every file of a worker shares the modules it loaded (koa, pg, io-ts, the sources): loaded once, not
    // once per file. No test here uses `vi.mock`, which needs a file's own modules (apps/api isolates its one).
    isolate: false,
    // Finds PostgreSQL (TEST_DATABASE_URL, testcontainers, the local server) and migrates a
    // template; with none, the run fails: a PostgreSQL test never skips.
    globalSetup: ['./test/global-setup.ts'],
    // vitest runs files one at a time on 2 cores by default: 2 at once, as apps/api does with 3.
    maxWorkers: 2,
    hookTimeout: 30_000,
    testTimeout: 30_000,
  },
})
