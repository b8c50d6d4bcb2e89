import type { ObservedRequest } from '@pets/adapters-http'
import fc from 'fast-check'
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LineBuffer } from '../src/log/line-buffer.js'
import { createLogger, httpLoggerOf } from '../src/log/logger.js'

const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null })
const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length })
const anyRequest: fc.Arbitrary<ObservedRequest> = fc.record({
  requestId: fc.string({ unit: 'binary' }),
  // Both ids of a sampled request, or both keys there and undefined (no line shows them).
  traceId: fc.option(hex(32), { nil: undefined }),
  spanId: fc.option(hex(16), { nil: undefined }),
  method: fc.constantFrom('GET', 'POST', 'DELETE', 'M-SEARCH'),
  route: nullable(fc.constantFrom('/v1/pets', '/v1/pets/{petId}', '/healthz')),
  operation: nullable(fc.constantFrom('listPets', 'createPet', 'getPet')),
  status: fc.integer({ min: 100, max: 599 }),
  durationMs: fc.double({ min: 0, max: 1e6, noNaN: true }),
  apiKeyId: nullable(fc.string({ unit: 'binary' })),
  clientAddress: fc.string(),
  // A path is what a stranger sent: any characters, quotes, controls and lone surrogates too.
  path: nullable(fc.string({ unit: 'binary' })),
  aborted: fc.boolean(),
  // A request the shutdown cut, or the key there and undefined (no line shows it).
  outcome: fc.option(fc.constant('cut' as const), { nil: undefined }),
  // What the store said of a call it could not serve, or the key there and undefined (no line shows it).
  store: fc.option(
    fc.record({
      operation: fc.constantFrom('pets.add', 'pets.list', 'creations.addOnce'),
      sqlstate: nullable(fc.constantFrom('57P01', '53300', '25006')),
      retried: fc.boolean(),
      // A server's message may quote anything: quotes, controls, lone surrogates.
      cause: nullable(fc.string({ unit: 'binary' })),
    }),
    { nil: undefined },
  ),
})

// Both lines of one record, written to a file through the service's own destination.
const linesOf = (write: (http: ReturnType<typeof httpLoggerOf>) => void) => {
  const dir = mkdtempSync(join(tmpdir(), 'request-line-'))
  try {
    const file = join(dir, 'log')
    const buffer = new LineBuffer(openSync(file, 'w'), 1 << 20, 60_000)
    write(httpLoggerOf(createLogger({ logLevel: 'info', logFormat: 'json' }, buffer)))
    buffer.flushSync()
    buffer.end()
    return readFileSync(file, 'utf8').split('\n').slice(0, -1)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
const withoutTime = (line: string) => line.replace(/^\{"level":30,"time":\d+,/, '{"level":30,')

describe('the line of an answered request', () => {
  it('is the line pino writes for the same record, byte for byte but the time', () => {
    fc.assert(
      fc.property(anyRequest, (request) => {
        const lines = linesOf((http) => {
          expect(http.request).toBeDefined()
          http.request!(request)
          http.info(request, 'request')
        })
        expect(lines).toHaveLength(2)
        expect(withoutTime(lines[0]!)).toBe(withoutTime(lines[1]!))
        // An undefined id is no key of the line.
        expect(JSON.parse(lines[0]!)).toMatchObject({
          ...(JSON.parse(JSON.stringify(request)) as object),
          level: 30,
          msg: 'request',
          pid: process.pid,
        })
      }),
      { numRuns: 300 },
    )
  })

  it('is left to pino where lines do not go to the service destination (pretty, or a caller stream)', () => {
    const logger = createLogger({ logLevel: 'info', logFormat: 'pretty' })
    expect(httpLoggerOf(logger).request).toBeUndefined()
  })
})
