import { defineConfig, mergeConfig } from 'vitest/config'
import { sharedTestConfig } from '../../vitest.shared.js'

export default mergeConfig(
  sharedTestConfig,
  defineConfig({
    test: {
      // Finds PostgreSQL (TEST_DATABASE_URL, testcontainers, the local server) and migrates a
      // template; with none, the run fails: a PostgreSQL test never skips.
      globalSetup: ['./test/global-setup.ts'],
      // vitest runs files one at a time on 2 cores by default: 2 at once, as apps/api does with 3.
      maxWorkers: 2,
    },
  }),
)
