import { describe, expect, it } from 'vitest'
import { LABS, runLab } from '../src/labs.js'
import { smokeOptions } from '../src/options.js'
import { countSpans } from '../src/otlp-sink.js'
import { startRun } from '../src/run-header.js'

// A length-delimited protobuf field: its tag, its length, its bytes.
const field = (number: number, ...inner: ReadonlyArray<Uint8Array>): Uint8Array => {
  const body = Buffer.concat(inner)
  return Buffer.concat([Buffer.from([(number << 3) | 2, body.length]), body])
}
const span = (name: string) => field(2, field(5, Buffer.from(name)), Buffer.from([0x30, 2]))

describe('the OTLP sink of bench:tracing', () => {
  it('counts the spans of an export without decoding them, past the fields it skips', () => {
    const scope = field(1, field(1, Buffer.from('@pets/adapters-http')))
    const request = Buffer.concat([
      field(1, field(1, field(1)), field(2, scope, span('a'), span('b')), field(2, span('c'))),
      field(1, field(2, span('d')), Buffer.from([0x1a, 0])),
    ])
    expect(countSpans(request)).toBe(4)
    expect(countSpans(new Uint8Array())).toBe(0)
  })
})

describe('pnpm bench:tracing --smoke', () => {
  it('drives the service with tracing off, all sampled and 10 % sampled, and counts what was exported', async () => {
    const lab = LABS['tracing']!
    const options = { ...lab.defaults(smokeOptions(process.env)), modes: ['memory' as const] }
    const markdown = await runLab(lab, options, startRun('pnpm bench:tracing --smoke'), () => {})
    expect(markdown).toContain('### Off: the no-op path')
    expect(markdown).toContain('### Tracing in memory, list 20')
    const exported = (variant: string) => {
      const row = markdown.split('\n').find((line) => line.startsWith(`| ${variant} |`)) ?? ''
      return Number(/\(([\d.]+)\) \|$/.exec(row)?.[1])
    }
    // Every request of the sampled service is a span at the receiver, and about one in ten of the other.
    expect(exported('on, every request sampled')).toBeGreaterThanOrEqual(0.99)
    expect(exported('on, 10 % sampled')).toBeGreaterThan(0.03)
    expect(exported('on, 10 % sampled')).toBeLessThan(0.2)
  })
})
