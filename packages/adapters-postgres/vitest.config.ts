import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Finds PostgreSQL (TEST_DATABASE_URL, testcontainers, the local server) and migrates a
    // template; with none, the run fails: a PostgreSQL test never skips.
    globalSetup: ['./test/global-setup.ts'],
    // vitest runs files one at a time on 2 cores by default: 2 at once, as apps/api does with 3.
    maxWorkers: 2,
    hookTimeout: 30_000,
    testTimeout: 30_000,
  },
})
