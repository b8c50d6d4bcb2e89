import { execFile } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { V8_FLAGS } from '../src/node-flags.js'

// Keeps 100,000 objects live while making 3 million that live long enough to reach the old
// generation and then die, like a server's requests; prints the largest old space it saw.
const WORKLOAD = `
const v8 = require('node:v8')
for (const flag of JSON.parse(process.env.SET_FLAGS)) v8.setFlagsFromString(flag)
const live = Array.from({ length: 100000 }, (_, i) => ({ i, s: 'live' + i }))
const ring = new Array(200000)
let peak = 0
for (let i = 0; i < 3000000; i++) {
  ring[i % ring.length] = { i, s: 'gone' + i }
  if (i % 20000 === 0) peak = Math.max(peak, v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_size)
}
process.stdout.write(String(live.length > 0 && peak))
`

const peakOldSpace = (nodeFlags: ReadonlyArray<string>, setFlags: ReadonlyArray<string>) =>
  new Promise<number>((resolve, reject) =>
    execFile(
      process.execPath,
      [...nodeFlags, '-e', WORKLOAD],
      { env: { SET_FLAGS: JSON.stringify(setFlags) } },
      (error, stdout) => (error ? reject(error) : resolve(Number(stdout))),
    ),
  )

// The least peak of three runs: on a busy machine the collector's timing (concurrent marking) moves a
// single peak by a third either way; the least is what the flags allow.
const leastPeak = async (nodeFlags: ReadonlyArray<string>, setFlags: ReadonlyArray<string>) =>
  Math.min(
    ...[
      await peakOldSpace(nodeFlags, setFlags),
      await peakOldSpace(nodeFlags, setFlags),
      await peakOldSpace(nodeFlags, setFlags),
    ],
  )

describe('the V8 flags, set by the process itself', () => {
  it(
    'bound the growth of the old generation as they do on the command line',
    { timeout: 30_000 },
    async () => {
      const none = await leastPeak([], [])
      const inside = await leastPeak([], V8_FLAGS)
      const commandLine = await leastPeak(V8_FLAGS, [])
      // Set from inside, the flags do what they do on node's command line.
      expect(inside).toBeLessThan(commandLine * 1.3)
      // Where they bound the old generation at all, they do from inside too: node 20's V8 does;
      // node 24's ignores --heap-growing-percent (the same peak with it and without).
      if (commandLine < none * 0.8) expect(inside).toBeLessThan(none * 0.8)
    },
  )
})
