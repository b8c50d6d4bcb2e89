// The per-address limit on key lookups (maxKeys 100,000, as create-service.ts makes it) fed a million new
// addresses, in process: the longest take, how many took over 1 ms, and the GC's share. HTTP: the dist of
// packages/adapters-http to measure (A/B), this checkout's unless given.
import { performance, PerformanceObserver } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'

const dist =
  process.env.HTTP ?? new URL('../../../../packages/adapters-http/dist/index.js', import.meta.url).href
const { createTokenBucketRateLimiter } = await import(dist)
let gcMs = 0
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration
}).observe({ entryTypes: ['gc'] })
const limiter = createTokenBucketRateLimiter({ perSecond: 1, burst: 20, maxKeys: 100_000 })
let longest = 0
let slow = 0
const started = performance.now()
for (let i = 0; i < 1_000_000; i++) {
  const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:${i >> 24}`
  const at = performance.now()
  limiter.take(address)
  const took = performance.now() - at
  if (took > 1) slow++
  longest = Math.max(longest, took)
}
const total = performance.now() - started
await sleep(50)
console.log(
  `1,000,000 new addresses: ${((total / 1e6) * 1000).toFixed(2)} µs a take, longest ${longest.toFixed(1)} ms, ` +
    `${slow} over 1 ms; GC ${gcMs.toFixed(0)} ms of ${total.toFixed(0)}`,
)
