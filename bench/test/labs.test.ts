import { findTestServer, type TestServer } from '@pets/adapters-postgres/testing'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VARIANTS } from '../src/ablation/variants.js'
import { LAB_DEFAULTS, LABS, runLab } from '../src/labs.js'
import { anchorsOf } from '../src/markdown.js'
import { parseOptions, smokeOptions, type BenchOptions, type Command } from '../src/options.js'
import { startRun } from '../src/run-header.js'

const outOf = (lab: string | undefined) => (lab === undefined ? 'RESULTS.md' : `labs/${lab}.md`)
const parse = (...argv: ReadonlyArray<string>) => parseOptions(argv, {}, outOf, LAB_DEFAULTS) as Command

describe('the command line of pnpm bench and pnpm bench:<lab>', () => {
  it('runs the targets without a name, and writes RESULTS.md', () => {
    expect(parse().lab).toBeUndefined()
    expect(parse().options.out).toBe('RESULTS.md')
    expect(parse().options.rounds).toBe(5)
  })

  it('runs a lab by name, with its defaults, and writes labs/<name>.md', () => {
    expect(parse('write-ceiling').lab).toBe('write-ceiling')
    expect(parse('write-ceiling').options.out).toBe('labs/write-ceiling.md')
    expect(parse('write-ceiling').options.rounds).toBe(3)
    expect(parse('scale').options.scaleSizes).toEqual([1000, 100_000, 1_000_000])
    expect(parse('flood', '--rounds', '2').options.rounds).toBe(2)
  })

  it('writes nothing in a smoke run unless told where', () => {
    expect(parse('--smoke').options.out).toBeUndefined()
    expect(parse('ablation', '--smoke').options.rounds).toBe(1)
    expect(parse('ablation', '--smoke', '--out', 'x.md').options.out).toBe('x.md')
  })

  it('has a script bench:<name> in the root package.json for every lab, and none other', () => {
    const root = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>
    }
    const labs = Object.entries(root.scripts).filter(([name]) => name.startsWith('bench:'))
    expect(labs.map(([name]) => name.slice('bench:'.length))).toEqual(Object.keys(LABS))
    for (const [name, script] of labs)
      expect(script).toBe(`${root.scripts['bench']} ${name.slice('bench:'.length)}`)
  })

  it('refuses a lab it does not know, and a second name', () => {
    expect(() => parse('nothing')).toThrow(/unknown lab or argument: nothing/)
    expect(() => parse('flood', 'scale')).toThrow(/unknown lab/)
    expect(parseOptions(['--help'], {}, outOf, LAB_DEFAULTS)).toMatch(/bench:LAB .*flood, pgbouncer/s)
  })
})

// The labs of `pnpm bench:<lab> --smoke` that no other test runs, so that they cannot rot (flood
// and pgbouncer have tests of their own): every step once, with 0.5 s of load per run. Not churn:
// a soak, 20 s even as a smoke run, kept out of CI; run it by hand (`pnpm bench:churn --smoke`).
describe('pnpm bench:<lab> --smoke', () => {
  let server: TestServer
  let options: BenchOptions

  beforeAll(async () => {
    server = await findTestServer()
    options = {
      ...smokeOptions(process.env),
      adminUrl: server.url,
      databaseName: `pets_bench_smoke_${randomBytes(4).toString('hex')}`,
    }
  })
  afterAll(async () => {
    await server?.stop()
  })

  const run = (lab: string, adjust: (o: BenchOptions) => BenchOptions = (o) => o) =>
    runLab(LABS[lab]!, adjust(LABS[lab]!.defaults(options)), startRun(`pnpm bench:${lab} --smoke`), () => {})

  it('ablation: every variant, list 20 and create, in CPU µs and bytes per request', async () => {
    const markdown = await run('ablation')
    expect(markdown).toMatch(/^# Lab: what each piece of a request costs \(smoke run/)
    expect(markdown).toContain('| load generator | not used |')
    for (const variant of VARIANTS) expect(markdown).toContain(`| ${variant} |`)
  })

  it('write-ceiling: one instance against two at three numbers of connections', async () => {
    const markdown = await run('write-ceiling')
    expect(anchorsOf(markdown)).toEqual(
      expect.arrayContaining([
        'write-ceiling-inserts-per-second-on-one-database',
        '2-connections-in-all',
        '8-connections-in-all',
        '16-connections-in-all',
      ]),
    )
    expect(markdown).toMatch(/\| 2 \| 2 × 4 \| [\d,]+ \|/)
  })

  it('scale: the latencies at each size, and the plans in full', async () => {
    const markdown = await run('scale')
    expect(markdown).toContain('## Scale: PostgreSQL with more pets')
    expect(markdown).toContain('### Plans at 10,000 pets')
    expect(markdown).toMatch(/Index (Only )?Scan using pets_pkey/)
  })

  it('profiles: a profile of the service under each scenario', async () => {
    const markdown = await run('profiles', (o) => ({ ...o, modes: ['memory'] }))
    expect(markdown).toContain('| PostgreSQL | not used |')
    for (const title of ['list 20', 'list 100, status=sold', 'create', 'get by id'])
      expect(markdown).toContain(`### memory, ${title}`)
  })
})
