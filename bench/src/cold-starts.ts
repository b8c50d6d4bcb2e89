import { IDLE_MS, launch } from './launch.js'
import { median } from './load.js'
import { mib } from './memory.js'
import type { ModeFigures } from './run-mode.js'
import { baselineSpecs, serviceSpec, type Mode, type Shared } from './servers.js'

/** Cold start (spawn to the first 200 from /healthz) and idle memory of fresh processes of one server. */
export type ColdStarts = {
  readonly mode: Mode
  readonly name: string
  readonly samplesMs: ReadonlyArray<number>
  readonly medianMs: number
  readonly idleRssBytes: number
}

/**
 * The cold starts of a mode's servers: their first starts in the mode (from runMode),
 * then fresh processes, one at a time, started and stopped again until each has `count`.
 */
export const measureColdStarts = async (
  mode: ModeFigures,
  count: number,
  shared: Shared,
  log: (line: string) => void,
): Promise<ReadonlyArray<ColdStarts>> => {
  const results: Array<ColdStarts> = []
  for (const spec of [serviceSpec(shared), ...baselineSpecs(mode.mode, shared)]) {
    const first = mode.servers.find((s) => s.name === spec.name)
    const samplesMs = first === undefined ? [] : [first.coldStartMs]
    const idle = first === undefined ? [] : [first.idleRssBytes]
    while (samplesMs.length < count) {
      const server = await launch(spec, IDLE_MS)
      samplesMs.push(server.coldStartMs)
      idle.push(server.idleRssBytes)
      await server.stop()
    }
    const result = {
      mode: mode.mode,
      name: spec.name,
      samplesMs,
      medianMs: median(samplesMs),
      idleRssBytes: median(idle),
    }
    log(
      `${mode.mode}: cold start of ${spec.name}: median ${result.medianMs.toFixed(0)} ms, idle RSS ${mib(result.idleRssBytes)} MiB`,
    )
    results.push(result)
  }
  return results
}
