import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    hookTimeout: 30_000,
    testTimeout: 120_000,
  },
})
