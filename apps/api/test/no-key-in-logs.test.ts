import { describe, expect, it } from 'vitest'
import { containsKey } from './support/no-key-in-logs.js'

// The check every test file runs on its services' logs: it must find a key wherever it is logged,
// and must not take a short test key inside another token (a generated key printed on purpose
// once contained "k2", and a run failed on it) for a leak.
describe('containsKey', () => {
  it.each([
    ['k2', 'k2'],
    ['{"authorization":"Bearer k2"}', 'k2'],
    ['key=k2&x=1', 'k2'],
    ['a k1b k1', 'k1'],
    ['  gk2-pAe4pYvpbAKaf3UNpRugMXPi7BYfEAB-EPKm1O0', 'gk2-pAe4pYvpbAKaf3UNpRugMXPi7BYfEAB-EPKm1O0'],
  ])('finds a key logged as a token: %j', (line, secret) => {
    expect(containsKey(line, secret)).toBe(true)
  })

  it.each([
    ['  gk2-pAe4pYvpbAKaf3UNpRugMXPi7BYfEAB-EPKm1O0', 'k2'],
    ['"reqId":"x-k1_9"', 'k1'],
    ['no keys here', 'k1'],
    ['k10 and ak1', 'k1'],
  ])('does not take a key inside another token for a leak: %j', (line, secret) => {
    expect(containsKey(line, secret)).toBe(false)
  })
})
