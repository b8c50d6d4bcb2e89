import type { TestProject } from 'vitest/node'
import { provideTestDatabase, type TestDatabase } from './provide-test-database.js'

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: TestDatabase
  }
}

/**
 * A vitest globalSetup (`export default providePostgresToVitest`): finds PostgreSQL
 * (TEST_DATABASE_URL, testcontainers, the local server), migrates a template, and provides it to
 * tests as `inject('postgres')`; with none, the run fails: a PostgreSQL test never skips.
 */
export const providePostgresToVitest = async (project: TestProject) => {
  const { teardown, ...database } = await provideTestDatabase({
    log: (line) => process.stdout.write(`${line}\n`),
  })
  project.provide('postgres', database)
  return teardown
}
