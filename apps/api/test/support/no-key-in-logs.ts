import { afterAll, expect } from 'vitest'
import { spawnedLogs } from './child-service.js'

// CONTRACT: keys are secrets, never logged. Every test file checks every line of every service
// process it started, once they are all done.
afterAll(() => {
  const { lines, secrets } = spawnedLogs()
  const leaks = lines.filter((line) => secrets.some((secret) => line.includes(secret)))
  expect(leaks, 'log lines that contain an API key').toEqual([])
})
