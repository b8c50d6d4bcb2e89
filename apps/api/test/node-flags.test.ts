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

// The highest peak of three runs. On node 24 (whose V8 ignores --heap-growing-percent) a run now and then
// peaks far below the others, with the flag or without (seen on a quiet machine, eight runs each: 27 MB
// among 130–134 set from inside, 96 and 98 among 131–136 without and on the command line), and on a busy
// machine two runs in three did so once (CI: a median of 90 MB on the command line against 132 without,
// read as a bound). The lows are the collector's timing, never the flag; no run peaks far above what the
// setting allows (node 20: 71–81 MB with the flag, 128–152 without): the highest is what the flags do.
const highestPeak = async (nodeFlags: ReadonlyArray<string>, setFlags: ReadonlyArray<string>) =>
  Math.max(
    await peakOldSpace(nodeFlags, setFlags),
    await peakOldSpace(nodeFlags, setFlags),
    await peakOldSpace(nodeFlags, setFlags),
  )

describe('the V8 flags, set by the process itself', () => {
  it(
    'bound the growth of the old generation exactly where they do on the command line',
    // Nine runs of the workload, one after another: 8 s alone, 17 s in a CI pass, past 30 s on a machine
    // doing more besides.
    { timeout: 90_000 },
    async () => {
      const none = await highestPeak([], [])
      const inside = await highestPeak([], V8_FLAGS)
      const commandLine = await highestPeak(V8_FLAGS, [])
      // Node 20's V8 bounds it with the flag (about half the peak without); node 24's ignores it (the same
      // peak with it and without). Set from inside, the flags do what they do on the command line.
      const bounds = commandLine < none * 0.8
      // Node 20's and 22's V8 honour it (README, "How node is started"): there, a V8 that stopped is news.
      if (Number(process.versions.node.split('.')[0]) < 24)
        expect(
          bounds,
          `node ${process.version} (V8 ${process.versions.v8}) no longer bounds the old generation with ` +
            `${V8_FLAGS.join(' ')} (peaks ${none} without, ${commandLine} on the command line): node-flags.ts ` +
            'sets a flag that does nothing here; find V8\'s new way or drop it (ARCHITECTURE.md, row "V8 flags")',
        ).toBe(true)
      if (bounds)
        expect(inside, `node ${process.version}: peaks ${none}, ${inside}, ${commandLine}`).toBeLessThan(
          none * 0.8,
        )
      else
        expect(inside, `node ${process.version}: peaks ${none}, ${inside}, ${commandLine}`).toBeGreaterThan(
          none * 0.5,
        )
    },
  )
})
