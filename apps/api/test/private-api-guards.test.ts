import { execFile } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, constants, openSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { pino } from 'pino'
import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { LineBuffer } from '../src/log/line-buffer.js'
import { requestLineWriter } from '../src/log/request-line.js'
import { tallyCounter, tallyHistogram } from '../src/request-metrics.js'

// Guards of what the service's hand-made pieces assume of pino, sonic-boom, prom-client and node beyond
// their documented APIs (ARCHITECTURE.md, "Made by hand, on purpose"): each fails naming the version.

const require = createRequire(import.meta.url)
const versionOf = (name: string, from = require) =>
  `${name} ${(from(`${name}/package.json`) as { version: string }).version}`
const PINO = versionOf('pino')
// sonic-boom is pino's, not ours: found from where pino is.
const fromPino = createRequire(require.resolve('pino'))
const SONIC_BOOM = versionOf('sonic-boom', fromPino)
const PROM = versionOf('prom-client')
const NODE = `node ${process.version}`

// What a script run under plain node prints on `stream` (stdout or stderr), its other output piped too.
const outputOf = (args: ReadonlyArray<string>, stream: 'stdout' | 'stderr') =>
  new Promise<string>((resolve, reject) =>
    execFile(process.execPath, [...args], { timeout: 20_000 }, (error, stdout, stderr) =>
      error === null ? resolve(stream === 'stdout' ? stdout : stderr) : reject(error),
    ),
  )

const devNull = () => openSync('/dev/null', 'w')
const opened: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const close of opened.splice(0)) await close()
})

describe(`pino's non-public symbols, read by request-line.ts and logger.ts (${PINO})`, () => {
  const fields = pino.symbols as unknown as Record<string, unknown>

  it('names the stream and the bindings by symbols', () => {
    for (const name of ['streamSym', 'chindingsSym'])
      expect(
        typeof fields[name],
        `${PINO}: pino.symbols.${name} is no longer a symbol; request-line.ts and flushLogs read it`,
      ).toBe('symbol')
  })

  it('keeps the destination under streamSym and the bindings as JSON text under chindingsSym', () => {
    const destination = { write: () => {} }
    const logger = pino({ base: { service: 'animal-store', pid: 7 } }, destination).child({ a: 1 })
    const held = logger as unknown as Record<symbol, unknown>
    expect(
      held[pino.symbols.streamSym],
      `${PINO}: logger[pino.symbols.streamSym] is no longer the destination; flushLogs (logger.ts) finds LineBuffer there`,
    ).toBe(destination)
    expect(
      held[pino.symbols.chindingsSym],
      `${PINO}: logger[pino.symbols.chindingsSym] is no longer the bindings as ',"key":value' text; request-line.ts splices it into each line`,
    ).toBe(',"service":"animal-store","pid":7,"a":1')
  })

  it("lets request-line.ts write request lines on the service's own destination", () => {
    const fd = devNull()
    const buffer = new LineBuffer(fd, 4096, 60_000)
    opened.push(() => (buffer.end(), closeSync(fd)))
    expect(
      requestLineWriter(pino({}, buffer)),
      `${PINO}: requestLineWriter no longer finds LineBuffer and the bindings through pino's symbols, so every ` +
        'request line goes through logger.info again — re-measure (ARCHITECTURE.md, "Made by hand, on purpose", row "request line")',
    ).toBeTypeOf('function')
  })
})

describe(`the destination contract flushLogs reads, which line-buffer.ts keeps (${SONIC_BOOM})`, () => {
  const asyncBoom = async () => {
    const boom = pino.destination({ dest: '/dev/null', sync: false, minLength: 0 })
    await once(boom, 'ready')
    opened.push(() => (boom.end(), once(boom, 'close').then(() => {})))
    return boom as unknown as { _writing: unknown; destroyed: unknown; flushSync: unknown } & typeof boom
  }

  it("has _writing, destroyed and flushSync, and 'drain' once a write is done", async () => {
    const boom = await asyncBoom()
    const hint = 'flushLogs (logger.ts) reads it, and line-buffer.ts copies the contract'
    expect(typeof boom._writing, `${SONIC_BOOM}: _writing is no longer a boolean; ${hint}`).toBe('boolean')
    expect(typeof boom.destroyed, `${SONIC_BOOM}: destroyed is no longer a boolean; ${hint}`).toBe('boolean')
    expect(typeof boom.flushSync, `${SONIC_BOOM}: flushSync is no longer a function; ${hint}`).toBe(
      'function',
    )
    const drained = new Promise<void>((resolve) => boom.once('drain', () => resolve()))
    boom.write('a line\n')
    expect(boom._writing, `${SONIC_BOOM}: _writing is not true while a write is under way; ${hint}`).toBe(
      true,
    )
    await drained
    expect(boom._writing, `${SONIC_BOOM}: _writing is still true after 'drain'; ${hint}`).toBe(false)
  })

  it('still measures the whole chunk it fills on every write (the reason line-buffer.ts exists)', async () => {
    const boom = await asyncBoom()
    boom.write('first\n')
    const measured: Array<number> = []
    const original = Buffer.byteLength.bind(Buffer)
    const byteLength = vi.spyOn(Buffer, 'byteLength').mockImplementation((value, encoding) => {
      measured.push(typeof value === 'string' ? value.length : 0)
      return original(value, encoding)
    })
    for (let i = 0; i < 10; i++) boom.write('a line\n')
    byteLength.mockRestore()
    expect(
      Math.max(...measured),
      `${SONIC_BOOM}: write() no longer measures the whole chunk it is filling; the cost line-buffer.ts avoids may ` +
        'be gone — re-measure it against pino.destination (ARCHITECTURE.md, "Made by hand, on purpose", row "line buffer")',
    ).toBeGreaterThan('a line\n'.length * 5)
  })
})

describe(`prom-client's reading of a metric, which request-metrics.ts registers by cast (${PROM})`, () => {
  const hint = 'request-metrics.ts registers plain objects as metrics'

  it('keeps the key order of its own Counter and Histogram, which the tallies copy', async () => {
    const registers: Array<Registry> = []
    const counter = new Counter({ name: 'c_total', help: 'h', registers })
    const histogram = new Histogram({ name: 'h_seconds', help: 'h', buckets: [1], registers })
    counter.inc()
    histogram.observe(0.5)
    expect(Object.keys(await counter.get()), `${PROM}: Counter.get() has other keys; ${hint}`).toEqual([
      'help',
      'name',
      'type',
      'values',
      'aggregator',
    ])
    expect(Object.keys(await histogram.get()), `${PROM}: Histogram.get() has other keys; ${hint}`).toEqual([
      'name',
      'help',
      'type',
      'values',
      'aggregator',
    ])
  })

  it("reads a registered object through get() and reset(), and sums it by its 'aggregator'", async () => {
    const registry = new Registry()
    let read = 0
    tallyCounter(registry, 'c_total', 'A count.', () => void (read += 1))({ route: 'r' }).inc()
    tallyHistogram(registry, 'h_seconds', 'A time.', [1])({ route: 'r' }).observe(0.5)
    expect(
      await registry.metrics(),
      `${PROM}: Registry.metrics() no longer reads a metric's get(); ${hint}`,
    ).toContain('c_total{route="r"} 1')
    expect(read, `${PROM}: Registry.metrics() no longer calls get() once per read; ${hint}`).toBe(1)
    const json = await registry.getMetricsAsJSON()
    const summed = await AggregatorRegistry.aggregate([json, json]).getMetricsAsJSON()
    expect(
      summed.find((m) => m.name === 'c_total')?.values[0]?.value,
      `${PROM}: AggregatorRegistry no longer sums by the metric's 'aggregator'; ${hint}`,
    ).toBe(2)
    registry.resetMetrics()
    expect(
      await registry.metrics(),
      `${PROM}: Registry.resetMetrics() no longer calls reset(); ${hint}`,
    ).not.toContain('c_total{')
  })
})

describe(`node's cluster messages about a connection, which handed-connections.ts reads (${NODE})`, () => {
  type Sent = { message: Record<string, unknown>; handle: string; closedByNode?: boolean }
  type Seen = { sent?: Array<Sent>; heard?: Array<Record<string, unknown>>; error?: string }
  const HINT =
    'handed-connections.ts no longer finds the connections a dead worker never took, and the primary keeps ' +
    'each open for ever: read lib/internal/cluster/round_robin_handle.js (handoff) and follow it, or delete ' +
    'handed-connections.ts if node now closes them itself (cluster-handoff.e2e.test.ts says which)'

  it("hands a connection over with { cmd: 'NODE_CLUSTER', act: 'newconn', seq } and its handle, hears the ack, then closes its copy", async () => {
    const script = fileURLToPath(new URL('./support/cluster-handover.mjs', import.meta.url))
    const seen = JSON.parse(await outputOf([script], 'stdout')) as Seen
    expect(seen.error, `${NODE}: a request to a worker of the cluster failed`).toBeUndefined()
    const handover = seen.sent?.find((s) => s.message['act'] === 'newconn')
    expect(
      handover !== undefined && typeof handover.message['seq'] === 'number' && handover.handle === 'function',
      `${NODE}: the primary no longer hands a connection to a worker as { cmd: 'NODE_CLUSTER', act: 'newconn', ` +
        `seq } with a closable handle through worker.process.send (it sent ${JSON.stringify(seen.sent)}); ${HINT}`,
    ).toBe(true)
    const ack = seen.heard?.find((m) => m['ack'] === handover?.message['seq'])
    expect(
      ack,
      `${NODE}: the worker's answer to a newconn is no longer heard as an 'internalMessage' { cmd: ` +
        `'NODE_CLUSTER', ack: seq } (heard ${JSON.stringify(seen.heard)}); ${HINT}`,
    ).toMatchObject({ cmd: 'NODE_CLUSTER', accepted: true })
    expect(
      handover?.closedByNode,
      `${NODE}: the primary no longer closes its copy of a connection at the worker's ack; the handle ` +
        `handed-connections.ts closes for a dead worker may be one node still uses; ${HINT}`,
    ).toBe(true)
  })
})

describe(`node's standard output on a pipe, which line-chunks.ts writes to at once (${NODE})`, () => {
  // The flags of fd 1 before and after the script makes process.stdout, as /proc/self/fdinfo says them.
  const SCRIPT = [
    "const { readFileSync } = require('node:fs')",
    "const flags = () => readFileSync('/proc/self/fdinfo/1', 'latin1').split('\\n').find((l) => l.startsWith('flags:'))",
    'const before = flags()',
    'process.stdout',
    'process.stderr.write(JSON.stringify({ before, after: flags() }))',
  ].join('\n')
  const nonBlocking = (line: string | undefined) =>
    line !== undefined && (Number.parseInt(line.slice(6).trim(), 8) & constants.O_NONBLOCK) !== 0

  it('is non-blocking (O_NONBLOCK) once process.stdout is made for it', async () => {
    const { before, after } = JSON.parse(await outputOf(['-e', SCRIPT], 'stderr')) as {
      before?: string
      after?: string
    }
    expect(
      nonBlocking(after),
      `${NODE}: a pipe node opens for process.stdout is no longer O_NONBLOCK (fd 1's ${after ?? 'flags unread'}, ` +
        `${before ?? 'unread'} before): line-chunks.ts's writesWithoutWaiting is false, so where the processes of ` +
        'WEB_CONCURRENCY share a pipe LineBuffer writes one 4 KiB chunk a turn, and a worker at 10,000 lines/s ' +
        'fell behind its log (340-420 MiB of RSS and growing in the churn soak) — write the chunks another way, ' +
        'and re-measure (ARCHITECTURE.md, "Made by hand, on purpose", row "line buffer")',
    ).toBe(true)
  })
})
