import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { startTestService } from './support/test-service.js'

// The end-to-end fuzzer's CI smoke (bench/fuzz/README.md, "The CI smoke"): a fixed master seed played on the
// built service for a few seconds, judged as a run judges it.
type Failure = { seed: number; kind: string; detail: string; case: string }
type Smoke = {
  master: number
  cases: number
  requests: number
  answers: number
  failures: Array<Failure>
  excused: Record<string, number>
  stillOpen: number
  suspects: Array<number>
  ms: number
}
type SmokeModule = {
  SMOKE: { master: number; seconds: number; drainMs: number }
  playSmoke: (options: {
    port: number
    alive?: () => boolean
    seconds?: number
    drainMs?: number
  }) => Promise<Smoke>
}
type ServiceModule = {
  RUN_ENV: Record<string, string>
  MEMORY_API_KEYS: string
  ENV_KEYS: Array<string>
  seedPets: (port: number, key: string) => Promise<void>
}
type LogModule = {
  checkLogText: (
    text: string,
    err: string,
    keys: Array<string>,
  ) => { leaks: number; leakSamples: Array<string> }
}
const fuzz = (file: string) => import(new URL(`../bench/fuzz/${file}`, import.meta.url).href)
const { SMOKE, playSmoke } = (await fuzz('smoke.mjs')) as SmokeModule
const { RUN_ENV, MEMORY_API_KEYS, ENV_KEYS, seedPets } = (await fuzz('service.mjs')) as ServiceModule
const { checkLogText } = (await fuzz('log-check.mjs')) as LogModule

const replay = (seed: number) =>
  `replay: node bench/fuzz/run.mjs serve --port 7611 & node bench/fuzz/run.mjs replay --port 7611 --seed ${seed}`

/** What the smoke found, one line each, with the seed and what to run to see it again. */
const problemsOf = (smoke: Smoke): Array<string> => [
  ...smoke.failures.map(
    (f) =>
      `master ${smoke.master}, seed ${f.seed}: ${f.kind}: ${f.detail}\n  case: ${f.case}\n  ${replay(f.seed)}`,
  ),
  ...(smoke.stillOpen > 0
    ? [
        `master ${smoke.master}: ${smoke.stillOpen} cases still open ${SMOKE.drainMs / 1000} s after the last began`,
      ]
    : []),
]

describe('the end-to-end fuzzer, a short seeded run on the built service (memory)', () => {
  it(`finds nothing wrong in master seed ${SMOKE.master}'s cases: the process lives, no 5xx but 501, every answer parses strictly, no hang, standard error empty, no key in the log`, async () => {
    const svc = await startTestService({
      mode: 'child',
      env: { ...RUN_ENV, API_KEYS: MEMORY_API_KEYS, SHUTDOWN_DELAY_MS: '0' },
    })
    let stdout = ''
    let stderr = ''
    svc.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    svc.child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    let ended: number | null | undefined
    void svc.exited.then((code) => (ended = code))
    const port = Number(new URL(svc.url).port)
    let smoke: Smoke
    let endedByItself: number | null | undefined
    let exit: number | null | undefined
    try {
      await seedPets(port, ENV_KEYS[0]!)
      smoke = await playSmoke({ port, alive: () => ended === undefined })
    } finally {
      endedByItself = ended
      exit = await svc.stop()
    }
    const problems = [
      ...(endedByItself === undefined
        ? []
        : [
            `master ${smoke.master}: the service ended by itself (exit ${endedByItself}) with these cases open:\n  ` +
              smoke.suspects.map(replay).join('\n  '),
          ]),
      ...(endedByItself === undefined && exit !== 0 ? [`exit ${exit} on SIGTERM, not 0`] : []),
      ...problemsOf(smoke),
      ...(stderr === '' ? [] : [`standard error: ${stderr.slice(0, 2000)}`]),
      ...checkLogText(stdout, '', ENV_KEYS).leakSamples.map((line) => `a key in the log: ${line}`),
    ]
    expect(problems).toEqual([])
    // Played: not a run that stopped at once.
    expect(smoke.cases).toBeGreaterThan(100)
  }, 45_000)

  it('fails naming the seed, the case and what was wrong: a service that answers 500', async () => {
    const server = createServer((_req, res) => {
      res.statusCode = 500
      res.end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const port = (server.address() as AddressInfo).port
      const smoke = await playSmoke({ port, seconds: 1, drainMs: 0 })
      const first = problemsOf(smoke).find((line) => line.includes(': status-500: '))
      expect(first).toMatch(/^master \d+, seed \d+: status-500: .*\n {2}case: \S+ \/.*\n {2}replay: /)
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }, 30_000)
})
