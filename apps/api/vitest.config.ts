import { defineConfig } from 'vitest/config'

// Files that need a module graph of their own: `vi.mock` replaces a module for the file that asks, and
// only while modules are loaded anew for each file (vitest's `isolate`).
const ISOLATED = ['test/line-buffer.test.ts']

export default defineConfig({
  test: {
    // Fails a test file whose service processes logged an API key.
    setupFiles: ['./test/support/no-key-in-logs.ts'],
    // vitest runs files one at a time on 2 cores by default; these mostly wait on child processes and
    // PostgreSQL: 3 at once took `pnpm test` from 9 to 5 minutes (README, "Two commands").
    maxWorkers: 3,
    hookTimeout: 30_000,
    testTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'api',
          include: ['test/**/*.test.ts'],
          exclude: ISOLATED,
          globalSetup: ['./test/global-setup.ts'],
          // The files share each worker's modules (koa, pg, the service's sources), loaded once, not once
          // per file: the package's tests took 266 s of the machine's CPU isolated, 212 s shared (alone).
          isolate: false,
        },
      },
      { extends: true, test: { name: 'api (isolated)', include: ISOLATED } },
    ],
  },
})
