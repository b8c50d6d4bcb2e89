import { afterAll, expect } from 'vitest'
import { forgetEarlierFiles, spawnedLogs } from './child-service.js'

/** Characters a key is made of (CONTRACT: keys are opaque tokens; generated ones are base64url). */
const KEY_CHAR = /[A-Za-z0-9_-]/

/**
 * Whether `line` holds `secret` as a whole token: a short test key such as `k2` inside a longer
 * token (a generated key printed on purpose, a request id) is another token, not a leak.
 */
export const containsKey = (line: string, secret: string): boolean => {
  for (let at = line.indexOf(secret); at !== -1; at = line.indexOf(secret, at + 1)) {
    const before = line[at - 1]
    const after = line[at + secret.length]
    if ((before === undefined || !KEY_CHAR.test(before)) && (after === undefined || !KEY_CHAR.test(after)))
      return true
  }
  return false
}

// CONTRACT: keys are secrets, never logged. Every test file checks every line of every service
// process it started, once they are all done. A setup file runs before each test file, also where the files
// share their modules: what the files before this one started is not this one's.
forgetEarlierFiles()
afterAll(() => {
  const { lines, secrets } = spawnedLogs()
  const leaks = lines.filter((line) => secrets.some((secret) => containsKey(line, secret)))
  expect(leaks, 'log lines that contain an API key').toEqual([])
})
