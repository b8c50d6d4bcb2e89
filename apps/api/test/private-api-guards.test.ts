import { once } from 'node:events'
import { closeSync, openSync } from 'node:fs'
import { createRequire } from 'node:module'
import { pino } from 'pino'
import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { LineBuffer } from '../src/line-buffer.js'
import { requestLineWriter } from '../src/request-line.js'
import { tallyCounter, tallyHistogram } from '../src/request-metrics.js'

// Guards of what the service's hand-made pieces assume of pino, sonic-boom and prom-client beyond
// their documented APIs (ARCHITECTURE.md, "Made by hand, on purpose"): each fails naming the version.

const require = createRequire(import.meta.url)
const versionOf = (name: string, from = require) =>
  `${name} ${(from(`${name}/package.json`) as { version: string }).version}`
const PINO = versionOf('pino')
// sonic-boom is pino's, not ours: found from where pino is.
const fromPino = createRequire(require.resolve('pino'))
const SONIC_BOOM = versionOf('sonic-boom', fromPino)
const PROM = versionOf('prom-client')

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
