import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Fetches what the tarballs need from the registry into npm's cache, with no time limit.
    globalSetup: ['test/global-setup.ts'],
    // Packing, and installing from npm's cache into an empty project, take tens of seconds.
    hookTimeout: 180_000,
    testTimeout: 60_000,
  },
})
