import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import type { Context } from 'koa'
import { IncomingMessage } from 'node:http'
import { Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { MAX_BODY_BYTES, readJsonBody } from '../../src/body/read-json-body.js'

// A run of RUN characters is timed against one GROWTH times as long (32 KiB: a body with it stays
// within 64 KiB). Linear code takes about GROWTH times as long, quadratic code GROWTH² (64) times:
// the bound leaves linear code three times its due, for a busy CI machine, and still fails
// quadratic code by a factor of nearly three.
const RUN = 4_096
const GROWTH = 8
const MAX_GROWTH = 3 * GROWTH
const ROUNDS = 7
const CLEARLY_LINEAR = 1.5 * GROWTH
// Each timing repeats a call for at least this long, so that the timer's grain is no part of it.
const LEAST_TIMED_MS = 0.25
// A long run decoded within this is fast whatever its growth: on a busy machine a call of 1 ms
// measured 34 times its short run's once (CI), while a quadratic pass over 32 Ki characters (half a
// billion steps) takes hundreds of ms.
const FAST_ENOUGH_MS = 20

/** A long run of one unit in one place of what a client sends, and what the decoder must make of it. */
export type Hostile = {
  readonly where: string
  readonly unit: string
  /** The decoder's call on the input holding `run`, made ready: only the call itself is timed. */
  readonly call: (run: string) => () => unknown
  /** The answer to the input holding `run` (a matcher, where the answer is fresh each time). */
  readonly answer: (run: string) => unknown
}

const SOCKET = new Socket()
// A request as node:http hands it over once its body has arrived.
const requestWith = (headers: Record<string, string>, body: Buffer): Context => {
  const req = new IncomingMessage(SOCKET)
  req.headers = { ...headers, 'content-length': String(body.length) }
  req.push(body)
  req.push(null)
  req.complete = true
  return { req, request: {}, set: () => undefined } as unknown as Context
}

/** readJsonBody's call on a request with this Content-Type and body, made ready. */
export const jsonBody = (contentType: string, text: string): (() => unknown) => {
  const bytes = Buffer.from(text)
  return () => readJsonBody(requestWith({ 'content-type': contentType }, bytes))
}

/**
 * What readJsonBody answers to a body that it takes: its value, its text and where its top-level member
 * names open (as many numbers as the members of a text that gives no name twice), unless it is too large.
 */
export const parsed = (text: string) => {
  if (Buffer.byteLength(text) > MAX_BODY_BYTES)
    return E.left({ _tag: 'PayloadTooLarge', limit: MAX_BODY_BYTES })
  const value = JSON.parse(text) as unknown
  const members =
    typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value).length : 0
  return E.right({ value, text, names: Array.from({ length: members }, (): unknown => expect.any(Number)) })
}

/** The cases of a decoder of one string: the input around each unit's run, and the answer to it. */
export const stringCases = (
  where: string,
  units: ReadonlyArray<string>,
  input: (run: string) => string,
  decode: (input: string) => unknown,
  answer: (input: string, run: string) => unknown,
): ReadonlyArray<Hostile> =>
  units.map((unit) => ({
    where,
    unit,
    call: (run) => {
      const text = input(run)
      return () => decode(text)
    },
    answer: (run) => answer(input(run), run),
  }))

// Milliseconds of this process's CPU per call, over `times` calls: CPU time, not the clock's, so that
// the turns a busy machine gives other processes are no part of it (CI once timed a 2.7 ms call at 23 ms
// by the clock, 63 times its short run, whose calls were short enough to fit between two such turns).
const timePerCall = async (call: () => unknown, times: number): Promise<number> => {
  const started = process.cpuUsage()
  for (let i = 0; i < times; i++) {
    const answer = call()
    if (answer instanceof Promise) await answer
  }
  const { user, system } = process.cpuUsage(started)
  return (user + system) / 1000 / times
}

// About `length` characters of `unit`, repeated.
const runOf = (unit: string, length: number) => unit.repeat(Math.max(1, Math.round(length / unit.length)))

// How much longer a call takes on the long run than on the short one: the least time of each over
// interleaved rounds (a busy machine only ever adds time, in caches and cores shared), until the growth is clearly linear or
// ROUNDS are done.
const growthOf = async ({ unit, call }: Hostile): Promise<{ growth: number; longMs: number }> => {
  const short = call(runOf(unit, RUN))
  const long = call(runOf(unit, RUN * GROWTH))
  // Timed once compiled, not while the interpreter runs it.
  await timePerCall(short, 3)
  await timePerCall(long, 1)
  let times = 1
  while ((await timePerCall(short, times)) * times < LEAST_TIMED_MS) times *= 2
  let shortMs = Number.POSITIVE_INFINITY
  let longMs = Number.POSITIVE_INFINITY
  for (let round = 1; round <= ROUNDS; round++) {
    shortMs = Math.min(shortMs, await timePerCall(short, times))
    longMs = Math.min(longMs, await timePerCall(long, times))
    if (round >= 3 && longMs / shortMs <= CLEARLY_LINEAR) break
  }
  return { growth: longMs / shortMs, longMs }
}

/** The cases whose long run takes more than MAX_GROWTH times their short one's, and more than FAST_ENOUGH_MS. */
export const slowCases = async (cases: ReadonlyArray<Hostile>): Promise<ReadonlyArray<string>> => {
  const slow: Array<string> = []
  for (const hostile of cases) {
    const { growth, longMs } = await growthOf(hostile)
    if (growth > MAX_GROWTH && longMs > FAST_ENOUGH_MS)
      slow.push(
        `${hostile.where}, ${JSON.stringify(hostile.unit)}: ${growth.toFixed(1)} times as long (${longMs.toFixed(2)} ms)`,
      )
  }
  return slow
}

/** For each decoder, with its cases: it answers right on runs of any length, in time linear in the run. */
export const describeLinearTime = (decoders: ReadonlyArray<readonly [string, ReadonlyArray<Hostile>]>) =>
  describe.each(decoders)('%s, on long runs of what a client may send', (_decoder, cases) => {
    it('answers right, whatever the run', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.nat({ max: cases.length - 1 }),
          fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 60_000 })),
          async (index, length) => {
            const { where, unit, call, answer } = cases[index]!
            const run = runOf(unit, length)
            const what = `${where}, ${run.length / unit.length} × ${JSON.stringify(unit)}`
            expect(await call(run)(), what).toEqual(answer(run))
          },
        ),
        { numRuns: 10 * cases.length },
      )
    })

    it(`takes time linear in the run: at most ${MAX_GROWTH} times as long for ${GROWTH} times the run`, async () => {
      expect(await slowCases(cases)).toEqual([])
    })
  })
