import type { Sample } from './failover-load.js'
import type { WritableAgain } from './write-probe.js'

/** The bound on the service's first 201, and on /readyz turning 200, after the new primary's first write. */
export const FIRST_201_WITHIN_MS = 3_000

/** What the answers to the load measured; times in ms from the new primary's first write unless said. */
export type AnswerFigures = {
  readonly requests: number
  readonly created: number
  readonly unavailable: number
  /** 500s, other unexpected statuses, and requests that got no answer. */
  readonly failed: number
  /** From the failover's start (switchover asked, primary killed) to the new primary's first write. */
  readonly writableAfterMs: number
  /** How long no node took a write, as the write probes saw it. */
  readonly noWriterMs: number
  readonly first201AfterMs: number | undefined
  readonly last503AfterMs: number | undefined
}

const isWrite = (s: Sample) => s.kind === 'create' || s.kind === 'keyed'
const expected = (s: Sample) => (isWrite(s) ? [201, 503] : [200, 503])

/**
 * Checks the answers to the load: no 500 nor any other unexpected status, none missing, a
 * Retry-After on each 503, and a first 201 within FIRST_201_WITHIN_MS of the new primary's first write.
 */
export const checkAnswers = (samples: ReadonlyArray<Sample>, writable: WritableAgain, eventAt: number) => {
  const problems: Array<string> = []
  const load = samples.filter((s) => s.kind !== 'ready')
  const failed = load.filter((s) => s.status === undefined || !expected(s).includes(s.status))
  for (const s of failed.slice(0, 10))
    problems.push(`${s.kind} ${s.name ?? ''} sent ${s.startedAt - writable.at} ms: ${s.status ?? s.error}`)
  if (failed.length > 10) problems.push(`…and ${failed.length - 10} more requests failed`)
  const unavailable = samples.filter((s) => s.status === 503)
  const noRetryAfter = unavailable.filter((s) => !/^\d+$/.test(s.retryAfter ?? ''))
  if (noRetryAfter.length > 0) problems.push(`${noRetryAfter.length} answers 503 without Retry-After`)
  const createdAfter = load.filter((s) => isWrite(s) && s.status === 201 && s.endedAt! >= writable.at)
  const first201 =
    createdAfter.length === 0 ? undefined : Math.min(...createdAfter.map((s) => s.endedAt!)) - writable.at
  if (first201 === undefined || first201 > FIRST_201_WITHIN_MS)
    problems.push(
      `the first 201 came ${first201 ?? 'never'} ms after the new primary took writes (at most ${FIRST_201_WITHIN_MS})`,
    )
  const writes503 = unavailable.filter((s) => s.kind !== 'ready')
  const figures: AnswerFigures = {
    requests: load.length,
    created: load.filter((s) => isWrite(s) && s.status === 201).length,
    unavailable: writes503.length,
    failed: failed.length,
    writableAfterMs: writable.at - eventAt,
    noWriterMs: writable.noWriterUntil - writable.noWriterFrom,
    first201AfterMs: first201,
    last503AfterMs:
      writes503.length === 0 ? undefined : Math.max(...writes503.map((s) => s.endedAt!)) - writable.at,
  }
  return { figures, problems }
}
