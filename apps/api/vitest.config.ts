import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/global-setup.ts'],
    // Fails a test file whose service processes logged an API key.
    setupFiles: ['./test/support/no-key-in-logs.ts'],
    hookTimeout: 30_000,
    testTimeout: 30_000,
  },
})
