import { FIRST_201_WITHIN_MS } from './check-answers.js'
import type { Sample } from './failover-load.js'
import type { WritableAgain } from './write-probe.js'

/** What /readyz showed: when it turned 503 and back to 200 for good. */
export type ReadinessFigures = {
  /** From the moment no node took writes to the first 503 of /readyz. */
  readonly ready503AfterMs: number | undefined
  /** /readyz answers that count (see checkReadiness) inside the span without a writer: `503s/all`. */
  readonly ready503: string
  /** From the new primary's first write to /readyz answering 200 for good. */
  readonly ready200AfterMs: number | undefined
}

const CHECK_MARGIN_MS = 250

/**
 * Checks /readyz: 503 while no node takes writes, 200 for good within FIRST_201_WITHIN_MS (and
 * `sharedForMs`) of the new primary's first write. The service shares a 200 for up to `sharedForMs` (READY_CHECK_EVERY_MS),
 * so only probes sent that long (and CHECK_MARGIN_MS) after the last writer went count.
 */
export const checkReadiness = (
  samples: ReadonlyArray<Sample>,
  writable: WritableAgain,
  sharedForMs: number,
) => {
  const problems: Array<string> = []
  const ready = samples.filter((s) => s.kind === 'ready').sort((a, b) => a.startedAt - b.startedAt)
  // Plus a margin: the service's own check may have been answered just before the test's write
  // probes (every 50 ms) saw the last writer go, and it takes time itself.
  const from = writable.noWriterFrom + sharedForMs + CHECK_MARGIN_MS
  const inside = ready.filter((s) => s.startedAt >= from && s.endedAt! <= writable.noWriterUntil)
  const not503 = inside.filter((s) => s.status !== 503)
  if (not503.length > 0)
    problems.push(
      `/readyz answered ${not503.map((s) => `${s.status ?? s.error} (sent ${s.startedAt - writable.at} ms)`).join(', ')} while no node took writes`,
    )
  if (inside.length === 0 && writable.noWriterUntil - from >= 500)
    problems.push('no /readyz probe fell inside the span without a writer')
  const first503 = ready.find((s) => s.startedAt >= writable.noWriterFrom && s.status === 503)
  const lastNot200 = ready.findLastIndex((s) => s.status !== 200)
  const settled = ready[lastNot200 + 1]
  const ready200 = settled === undefined ? undefined : Math.max(0, settled.endedAt! - writable.at)
  // A 200 comes from a check up to `sharedForMs` old: the writes' bound plus that (CI once saw 3,120 ms).
  if (ready200 === undefined || ready200 > FIRST_201_WITHIN_MS + sharedForMs)
    problems.push(`/readyz answered 200 for good ${ready200 ?? 'never'} ms after the new primary took writes`)
  const figures: ReadinessFigures = {
    ready503AfterMs: first503 === undefined ? undefined : first503.endedAt! - writable.noWriterFrom,
    ready503: `${inside.length - not503.length}/${inside.length}`,
    ready200AfterMs: ready200,
  }
  return { figures, problems }
}
