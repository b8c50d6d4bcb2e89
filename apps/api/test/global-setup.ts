import { provideTestDatabase, type TestDatabase } from '@pets/adapters-postgres/testing'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: TestDatabase
  }
}

// Finds PostgreSQL (TEST_DATABASE_URL, testcontainers, the local server) and migrates a template
// that each PostgreSQL-backed test service clones; with none, the run fails: it never skips.
export default async function setup(project: TestProject) {
  const { teardown, ...database } = await provideTestDatabase({ log: (line) => console.log(line) })
  project.provide('postgres', database)
  return teardown
}
