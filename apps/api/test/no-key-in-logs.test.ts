import { describe, expect, it } from 'vitest'
import { containsKey } from './support/no-key-in-logs.js'

// The check every test file runs on its services' logs: it must find a key wherever it is logged,
// and must not take a short test key inside another token (a generated key printed on purpose
// once contained "k2", and a run failed on it) for a leak.
describe('containsKey', () => {
  it.each([
    ['k2', 'k2', true],
    ['{"authorization":"Bearer k2"}', 'k2', true],
    ['key=k2&x=1', 'k2', true],
    ['a k1b k1', 'k1', true],
    ['  gk2-pAe4pYvpbAKaf3UNpRugMXPi7BYfEAB-EPKm1O0', 'gk2-pAe4pYvpbAKaf3UNpRugMXPi7BYfEAB-EPKm1O0', true],
    // A key inside another token is that token, not a leak.
    ['  gk2-pAe4pYvpbAKaf3UNpRugMXPi7BYfEAB-EPKm1O0', 'k2', false],
    ['"reqId":"x-k1_9"', 'k1', false],
    ['no keys here', 'k1', false],
    ['k10 and ak1', 'k1', false],
  ])('%j holds %j as a token: %s', (line, secret, holds) => {
    expect(containsKey(line, secret)).toBe(holds)
  })
})
