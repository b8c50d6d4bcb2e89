import { launch } from './launch.js'
import { median } from './load.js'
import { mib } from './memory.js'
import { baselineSpecs, serviceSpec, type Shared } from './servers.js'

/** Cold start (spawn to the first 200 from /healthz) and idle memory of fresh processes of one server. */
export type ColdStarts = {
  readonly name: string
  readonly samplesMs: ReadonlyArray<number>
  readonly medianMs: number
  readonly idleRssBytes: number
}

/** Starts each in-memory server `count` times, one process at a time, and stops it again. */
export const measureColdStarts = async (
  count: number,
  shared: Shared,
  log: (line: string) => void,
): Promise<ReadonlyArray<ColdStarts>> => {
  const results: Array<ColdStarts> = []
  for (const spec of [serviceSpec(shared), ...baselineSpecs('memory', shared)]) {
    const samplesMs: Array<number> = []
    const idle: Array<number> = []
    for (let i = 0; i < count; i++) {
      const server = await launch(spec)
      samplesMs.push(server.coldStartMs)
      idle.push(server.idleRssBytes)
      await server.stop()
    }
    const result = { name: spec.name, samplesMs, medianMs: median(samplesMs), idleRssBytes: median(idle) }
    log(
      `cold start of ${spec.name}: median ${result.medianMs.toFixed(0)} ms, idle RSS ${mib(result.idleRssBytes)} MiB`,
    )
    results.push(result)
  }
  return results
}
