import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Packing, and installing from the registry into an empty project, take tens of seconds.
    hookTimeout: 180_000,
    testTimeout: 60_000,
  },
})
