// What counting an answered request costs in-process (ARCHITECTURE.md, "Made by hand, on purpose", row "metrics
// shortcuts"): the service's observe (service-metrics.ts of this build's dist: series found once, counted at the
// end of the turn into request-metrics.ts's tallies), against the same two metrics on prom-client's own Counter
// and Histogram, their labels given on every call, as the library is used. A round counts REQUESTS requests of
// a few routes and statuses with each, in bursts of BURST a turn of the event loop, the order alternating; it
// prints each way's CPU time per request (this process's), the median of the rounds and their range, and
// checks that both pages count the same. Not a test: it asserts nothing. Build first (pnpm build), then:
//   node apps/api/bench/request-metrics.mjs [--rounds=7] [--requests=200000] [--burst=500]
import { setImmediate } from 'node:timers'
import { Counter, Histogram, Registry } from 'prom-client'
import { answered } from '../test/support/observed-request.mjs'

const { createServiceMetrics } = await import(new URL('../dist/service-metrics.js', import.meta.url).href)

const option = (name, fallback) =>
  Number(process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback)
const ROUNDS = option('rounds', 7)
const REQUESTS = option('requests', 200_000)
const BURST = option('burst', 500)
const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

// The requests of a burst: a mix of routes, methods and statuses, as the API's traffic has.
const KINDS = [
  ['GET', '/v1/pets', 200],
  ['GET', '/v1/pets/{petId}', 200],
  ['GET', '/v1/pets/{petId}', 404],
  ['POST', '/v1/pets', 201],
  ['GET', '/v1/pets', 401],
]
const burst = Array.from({ length: BURST }, (_, i) => {
  const [method, route, status] = KINDS[i % KINDS.length]
  return { ...answered(method, route, status), durationMs: 0.2 + (i % 7) }
})

// prom-client as documented: the labels given with each inc and observe.
const withPromClient = () => {
  const registry = new Registry()
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'Requests answered.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  })
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer.',
    labelNames: ['method', 'route'],
    buckets: BUCKETS,
    registers: [registry],
  })
  const observe = ({ method, route, status, durationMs }) => {
    requests.inc({ method, route: route ?? 'none', status: String(status) })
    duration.observe({ method, route: route ?? 'none' }, durationMs / 1000)
  }
  return { registry, observe }
}

const WAYS = {
  'prom-client labels per call': withPromClient,
  'series found once (shipped)': () => createServiceMetrics({ deprecatedOperations: [] }),
}

const turn = () => new Promise((resolve) => setImmediate(resolve))

// CPU µs per request of one way, and the count its page says.
const perRequest = async (make) => {
  const { registry, observe } = make()
  const started = process.cpuUsage()
  for (let counted = 0; counted < REQUESTS; counted += BURST) {
    for (const request of burst) observe(request)
    await turn()
  }
  const { user, system } = process.cpuUsage(started)
  const json = await registry.getMetricsAsJSON()
  const total = json.find((m) => m.name === 'http_requests_total').values.reduce((sum, v) => sum + v.value, 0)
  return { us: (user + system) / REQUESTS, total }
}

const names = Object.keys(WAYS)
const results = Object.fromEntries(names.map((name) => [name, []]))
for (const name of names) await perRequest(WAYS[name])
for (let round = 0; round < ROUNDS; round++)
  for (const name of round % 2 === 0 ? names : [...names].reverse()) {
    const { us, total } = await perRequest(WAYS[name])
    if (total !== REQUESTS) throw new Error(`${name} counted ${total} requests of ${REQUESTS}`)
    results[name].push(us)
  }
const sorted = (values) => [...values].sort((a, b) => a - b)
console.log(
  `CPU µs per request counted, ${REQUESTS.toLocaleString('en')} in bursts of ${BURST}, ${ROUNDS} rounds`,
)
console.log('| way | median | range |')
console.log('|---|---|---|')
for (const name of names) {
  const values = sorted(results[name])
  const median = values[Math.floor(values.length / 2)]
  console.log(`| ${name} | ${median.toFixed(3)} | ${values[0].toFixed(3)}–${values.at(-1).toFixed(3)} |`)
}
process.exit(0)
