// Preloaded (node --import) into a server whose GC pauses http-scale.mjs reads: every 200 ms, appends a
// line "<epoch ms> <kind> <pause ms>" per collection (perf_hooks 'gc' entries) to the file GC_RECORD.
import { appendFileSync } from 'node:fs'
import { PerformanceObserver, performance } from 'node:perf_hooks'
import { setInterval } from 'node:timers'

const file = process.env.GC_RECORD
if (file !== undefined) {
  let lines = ''
  new PerformanceObserver((entries) => {
    for (const e of entries.getEntries())
      lines += `${(performance.timeOrigin + e.startTime).toFixed(1)} ${e.detail.kind} ${e.duration.toFixed(3)}\n`
  }).observe({ entryTypes: ['gc'] })
  setInterval(() => {
    if (lines !== '') appendFileSync(file, lines)
    lines = ''
  }, 200).unref()
}
