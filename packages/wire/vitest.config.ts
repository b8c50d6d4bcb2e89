import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // CI runs every package's tests at once on two cores: a test may wait its turn for seconds.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
