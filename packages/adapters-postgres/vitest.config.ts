import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Finds PostgreSQL (TEST_DATABASE_URL, testcontainers, the local server) and migrates a
    // template; with none, the run fails: a PostgreSQL test never skips.
    globalSetup: ['./test/global-setup.ts'],
    hookTimeout: 30_000,
    testTimeout: 30_000,
  },
})
