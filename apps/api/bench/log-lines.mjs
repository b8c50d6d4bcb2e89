// What a request's log line costs in-process, by the three ways the service could write it (ARCHITECTURE.md,
// "Made by hand, on purpose", rows "line buffer" and "request line"): pino's info(record, 'request') to
// sonic-boom (pino.destination, asynchronous, as pino ships it), the same to LineBuffer, and the shipped way,
// request-line.ts's template to LineBuffer. Each through createLogger and httpLoggerOf of this build's dist,
// with the service's options (base fields, redaction), to /dev/null. A round writes LINES lines with each, in
// bursts of BURST a turn of the event loop (a server answers many requests a turn), the order of the three
// rotating from round to round; it prints each way's CPU time per line (this process's, all threads), the
// median of the rounds and their range. Not a test: it asserts nothing. Build first (pnpm build), then:
//   node apps/api/bench/log-lines.mjs [--rounds=7] [--lines=100000] [--burst=500]
import { openSync } from 'node:fs'
import { setImmediate } from 'node:timers'
import { pino } from 'pino'
import { answered } from '../test/support/observed-request.mjs'

const dist = new URL('../dist/', import.meta.url)
const { createLogger, httpLoggerOf, flushLogs, LOG_BUFFER_BYTES, LOG_FLUSH_INTERVAL_MS } = await import(
  new URL('logger.js', dist).href
)
const { LineBuffer } = await import(new URL('line-buffer.js', dist).href)

const option = (name, fallback) =>
  Number(process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback)
const ROUNDS = option('rounds', 7)
const LINES = option('lines', 100_000)
const BURST = option('burst', 500)

const CONFIG = { logLevel: 'info', logFormat: 'json' }
const devNull = () => openSync('/dev/null', 'w')
const record = (i) => ({
  ...answered('GET', '/v1/pets', 200),
  requestId: `0b6f2c1e-7d3a-4f8e-9c2b-${String(i).padStart(12, '0')}`,
  apiKeyId: 'env-3f2a9c1d7e4b',
  path: '/v1/pets?limit=20',
})

// Each way: a logger on a fresh destination, and how one line is written through it.
const WAYS = {
  'pino info -> sonic-boom': () => {
    const boom = pino.destination({ dest: devNull(), sync: false, minLength: LOG_BUFFER_BYTES })
    const logger = createLogger(CONFIG, boom)
    const http = httpLoggerOf(logger)
    return { logger, line: (r) => http.info(r, 'request') }
  },
  'pino info -> LineBuffer': () => {
    const logger = createLogger(CONFIG, new LineBuffer(devNull(), LOG_BUFFER_BYTES, LOG_FLUSH_INTERVAL_MS))
    const http = httpLoggerOf(logger)
    return { logger, line: (r) => http.info(r, 'request') }
  },
  'template -> LineBuffer (shipped)': () => {
    const logger = createLogger(CONFIG, new LineBuffer(devNull(), LOG_BUFFER_BYTES, LOG_FLUSH_INTERVAL_MS))
    const http = httpLoggerOf(logger)
    if (http.request === undefined) throw new Error('request-line.ts found no LineBuffer: nothing to measure')
    return { logger, line: (r) => http.request(r) }
  },
}

const turn = () => new Promise((resolve) => setImmediate(resolve))

// CPU µs per line of one way: LINES lines in bursts, then every line written (flushLogs).
const perLine = async (make) => {
  const { logger, line } = make()
  const records = Array.from({ length: BURST }, (_, i) => record(i))
  const started = process.cpuUsage()
  for (let written = 0; written < LINES; written += BURST) {
    for (const r of records) line(r)
    await turn()
  }
  await flushLogs(logger)
  const { user, system } = process.cpuUsage(started)
  return (user + system) / LINES
}

const names = Object.keys(WAYS)
const results = Object.fromEntries(names.map((name) => [name, []]))
// A first round each, not counted: compiled before it is timed.
for (const name of names) await perLine(WAYS[name])
for (let round = 0; round < ROUNDS; round++) {
  const order = names.map((_, i) => names[(i + round) % names.length])
  for (const name of order) results[name].push(await perLine(WAYS[name]))
}
const sorted = (values) => [...values].sort((a, b) => a - b)
const median = (values) => sorted(values)[Math.floor(values.length / 2)]
console.log(`CPU µs per line, ${LINES.toLocaleString('en')} lines in bursts of ${BURST}, ${ROUNDS} rounds`)
console.log('| way | median | range |')
console.log('|---|---|---|')
for (const name of names) {
  const values = sorted(results[name])
  console.log(
    `| ${name} | ${median(values).toFixed(2)} | ${values[0].toFixed(2)}–${values.at(-1).toFixed(2)} |`,
  )
}
process.exit(0)
