// The lab of ARCHITECTURE.md's row "rate limiter": this package's token bucket (rate-limiter.ts) against the
// library it stands in for, rate-limiter-flexible's RateLimiterMemory (a devDependency for this lab only), in
// alternating rounds: CPU a decision for one busy key and for a flood of new keys (the addresses strangers
// choose), the heap those keys hold, and how many requests each admits in one second across a window's edge.
// Usage: node bench/rate-limiters.mjs [rounds=5]   (after `pnpm build`: it reads dist/)
import { RateLimiterMemory } from 'rate-limiter-flexible'
import { createTokenBucketRateLimiter } from '../dist/index.js'

const ROUNDS = Number(process.argv[2] ?? 5)
const CALLS = 1_000_000
const KEYS = 100_000
// The service's policy in README's example: 10 at once, 5 a second (RATE_LIMIT_PER_SECOND=5).
const POLICY = { perSecond: 5, burst: 10 }

const ours = (options = {}) => {
  const limiter = createTokenBucketRateLimiter({ ...POLICY, ...options })
  return async (key) => limiter.take(key).allowed
}
const theirs = () => {
  // The same quota: `burst` points a window of burst / perSecond seconds.
  const limiter = new RateLimiterMemory({ points: POLICY.burst, duration: POLICY.burst / POLICY.perSecond })
  return (key) =>
    limiter.consume(key).then(
      () => true,
      () => false,
    )
}

const cpuMicros = () => process.cpuUsage().user + process.cpuUsage().system
const gc = () => globalThis.gc?.()

// ns of CPU a decision: one key, always refused after its burst (a client over its limit) or a new key each call.
const kept = []
const perDecision = async (make, keyOf, calls) => {
  const decide = make()
  kept.push(decide) // alive until its heap is read: the keys it holds are what is measured
  gc()
  const heapBefore = process.memoryUsage().heapUsed
  const before = cpuMicros()
  for (let i = 0; i < calls; i++) await decide(keyOf(i))
  const ns = ((cpuMicros() - before) * 1000) / calls
  gc()
  kept.length = 0
  return { ns, heapMiB: (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20 }
}

// Requests admitted in the second after a window's edge to a client that sent one request, waited 1.9 s, then
// sends one every 10 ms: a fixed window (theirs, opened by the first request) lets it spend two windows' points
// in 0.2 s; the bucket, `burst` and what refills. On a clock of the lab's own (rate-limiter-flexible reads
// Date.now: it is moved for it).
const admittedAroundEdge = async (make) => {
  const realNow = Date.now
  let clock = realNow()
  Date.now = () => clock
  try {
    const decide = make({ now: () => clock })
    await decide('client')
    clock += 1_900
    let admitted = 0
    for (let t = 0; t < 1_000; t += 10) {
      if (await decide('client')) admitted++
      clock += 10
    }
    return admitted
  } finally {
    Date.now = realNow
  }
}

const range = (values, digits = 0) =>
  `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`

const rows = { ours: { busy: [], flood: [], heap: [] }, theirs: { busy: [], flood: [], heap: [] } }
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, make] of round % 2 === 0
    ? [
        ['ours', () => ours({ maxKeys: KEYS })],
        ['theirs', theirs],
      ]
    : [
        ['theirs', theirs],
        ['ours', () => ours({ maxKeys: KEYS })],
      ]) {
    rows[name].busy.push((await perDecision(make, () => 'client', CALLS)).ns)
    const flood = await perDecision(make, (i) => `203.0.113.${i}`, KEYS)
    rows[name].flood.push(flood.ns)
    rows[name].heap.push(flood.heapMiB)
  }
}
const edge = { ours: await admittedAroundEdge(ours), theirs: await admittedAroundEdge(theirs) }

console.log(
  `node ${process.version}, ${ROUNDS} alternating rounds, policy ${POLICY.burst} at once, ${POLICY.perSecond}/s`,
)
console.log(
  '| limiter | ns a decision, one key over its limit | ns a decision, a new key each | heap held by 100,000 keys (MiB) | admitted in the 1 s after an edge |',
)
console.log('|---|---:|---:|---:|---:|')
for (const name of ['ours', 'theirs'])
  console.log(
    `| ${name === 'ours' ? 'token bucket (rate-limiter.ts)' : 'rate-limiter-flexible RateLimiterMemory'} | ${range(rows[name].busy)} | ${range(rows[name].flood)} | ${range(rows[name].heap, 1)} | ${edge[name]} |`,
  )
if (globalThis.gc === undefined) console.log('(run with --expose-gc for the heap figures)')
