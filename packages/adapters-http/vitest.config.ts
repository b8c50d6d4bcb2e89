import { defineConfig, mergeConfig } from 'vitest/config'
import { sharedTestConfig } from '../../vitest.shared.js'

export default mergeConfig(
  sharedTestConfig,
  defineConfig({
    // vitest runs files one at a time on 2 cores by default: 2 at once, as apps/api does with 3.
    test: { maxWorkers: 2 },
  }),
)
