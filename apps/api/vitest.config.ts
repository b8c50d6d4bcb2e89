import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/global-setup.ts'],
    // Fails a test file whose service processes logged an API key.
    setupFiles: ['./test/support/no-key-in-logs.ts'],
    // vitest runs files one at a time on 2 cores by default; these mostly wait on child processes and
    // PostgreSQL: 3 at once took `pnpm test` from 9 to 5 minutes (README, "Two commands").
    maxWorkers: 3,
    hookTimeout: 30_000,
    testTimeout: 30_000,
  },
})
