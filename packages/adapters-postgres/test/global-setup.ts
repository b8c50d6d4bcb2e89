import type { TestProject } from 'vitest/node'
import { provideTestDatabase, type TestDatabase } from '../src/testing/index.js'

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: TestDatabase
  }
}

export default async function setup(project: TestProject) {
  const { teardown, ...database } = await provideTestDatabase({ log: (line) => console.log(line) })
  project.provide('postgres', database)
  return teardown
}
