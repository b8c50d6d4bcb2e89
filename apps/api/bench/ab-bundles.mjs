// Two bundles of the service side by side over HTTP, driven by wrk: GET /v1/pets?limit=20 and POST /v1/pets on
// the memory store, each at its shipped log level (info) to /dev/null. For what the bundle itself does (its
// build: scripts/bundle.mjs, its edits: scripts/lazy-requires.mjs), where adapters-http's ab-requests.mjs takes
// that package's dist. Both run for the whole run, each in a process of its own; each round loads A then B, or
// B then A in the next, for each kind. It prints, per side and kind, the server's CPU time per request (from
// /proc/PID/stat: the figure a shared machine disturbs least) and wrk's requests per second, the median of the
// rounds with their range, and B against A as the median of the rounds' own ratios. Not a test. Build, then:
//   node apps/api/bench/ab-bundles.mjs --a=/tmp/before/dist/bin/animal-store.mjs [--b=this checkout's]
// Options: --rounds=6, --seconds=4 per load, --connections=16, --port=18510 (A; B the next), --steady=1 (each
// service on CPU 0, wrk on CPU 1, V8's seeds fixed); the rounds and the report are adapters-http's bench/wrk-ab.mjs.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { setTimeout } from 'node:timers'
import {
  BODY,
  compareSides,
  option,
  STEADY_NODE_FLAGS,
  steadyServer,
} from '../../../packages/adapters-http/bench/wrk-ab.mjs'

const KEY = 'bench-key-0123456789abcdef0123456789'
// utime + stime of a process, in clock ticks (USER_HZ, 100 on Linux): 10,000 µs each.
const cpuUs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

const startService = async (bundle, port) => {
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    STORAGE: 'memory',
    API_KEYS: `bench:${KEY}`,
  }
  const child = spawn(process.execPath, [...STEADY_NODE_FLAGS, bundle], { env, stdio: 'ignore' })
  await steadyServer(child.pid)
  for (;;) {
    const up = await globalThis.fetch(`http://127.0.0.1:${port}/healthz`).then(
      (res) => res.ok,
      () => false,
    )
    if (up) break
    await new Promise((done) => setTimeout(done, 50))
  }
  // 100 pets, so that a list 20 has a page to answer.
  for (let i = 0; i < 100; i++)
    await globalThis.fetch(`http://127.0.0.1:${port}/v1/pets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
      body: BODY,
    })
  return { port, cpuUs: () => cpuUs(child.pid), stop: () => child.kill() }
}

const port = Number(option('port', 18510))
const labels = {
  A: resolve(option('a', '')),
  B: resolve(option('b', new URL('../dist/bin/animal-store.mjs', import.meta.url).pathname)),
}
const servers = { A: await startService(labels.A, port), B: await startService(labels.B, port + 1) }
await compareSides({ labels, servers, key: KEY, kinds: ['list 20', 'create'] })
