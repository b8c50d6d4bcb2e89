import type { Sample } from './failover-load.js'

/** When writes and /readyz came back after `from`: the later of the first 201 and /readyz's last turn to 200. */
const settledAt = (samples: ReadonlyArray<Sample>, from: number): number | undefined => {
  const created = samples.filter(
    (s) => (s.kind === 'create' || s.kind === 'keyed') && s.status === 201 && s.endedAt! >= from,
  )
  const ready = samples.filter((s) => s.kind === 'ready').sort((a, b) => a.startedAt - b.startedAt)
  const turned = ready[ready.findLastIndex((s) => s.status !== 200) + 1]
  if (created.length === 0 || turned === undefined) return undefined
  return Math.max(from, turned.endedAt!, Math.min(...created.map((s) => s.endedAt!)))
}

/**
 * Waits until the load has had a 201 after `from` and /readyz has answered nothing but 200 for
 * `marginMs` since, or until `deadline` if it never does (the checks then say what was missing).
 */
export const waitUntilSettled = async (
  samples: ReadonlyArray<Sample>,
  from: number,
  marginMs: number,
  deadline: number,
): Promise<void> => {
  for (;;) {
    const at = settledAt(samples, from)
    if (Date.now() >= Math.min(deadline, at === undefined ? deadline : at + marginMs)) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
