// Two builds of this package side by side over HTTP, driven by wrk (Debian's `wrk`): GET
// /v1/pets?limit=20, POST /v1/pets and the pages of a walk (`after` new on each) on the in-memory
// store, no log. Not a test: it asserts nothing and no test runner picks it up. Build each side
// first, then run it, for instance:
//   node packages/adapters-http/bench/ab-requests.mjs --a=/tmp/before/dist --b=packages/adapters-http/dist
// (`--b` is this package's dist unless given). Both servers run for the whole run, each in a child
// process, so that its CPU time is its own; the rounds and the report are wrk-ab.mjs's.
// Options: --rounds=6, --seconds=4 per load, --connections=16, --kinds=list 20,create,pages (all),
// --edges=1 to serve both as apps/api does (inOrder, answerEveryRequest: serve-memory-app.mjs), where
// without it the app's callback alone is measured and the connection edges are not on the path; --edges=b
// to serve B alone so (A is B's build unless --a is given): what the edges cost together. --steady=1 puts the
// servers on CPU 0 and wrk on CPU 1, with V8's seeds fixed (wrk-ab.mjs: a run's own bias, about ±4 % without).
import { resolve } from 'node:path'
import { forkMemoryApp, serveMemoryApp } from './serve-memory-app.mjs'
import { compareSides, option } from './wrk-ab.mjs'

const KEY = 'k'.repeat(40)

const serve = (dist, edges) => serveMemoryApp({ dist, key: KEY, seeded: 100, edges: edges === 'edges' })

const startServer = (dist, side) => {
  const edges = option('edges', '')
  return forkMemoryApp(
    import.meta.url,
    dist,
    edges === '' || (edges === 'b' && side === 'A') ? [] : ['edges'],
  )
}

const compare = async () => {
  const b = resolve(option('b', new URL('../dist', import.meta.url).pathname))
  const a = option('edges', '') === 'b' ? resolve(option('a', b)) : resolve(option('a', ''))
  const labels = option('edges', '') === 'b' ? { A: `${a} (no edges)`, B: `${b} (edges)` } : { A: a, B: b }
  const servers = { A: await startServer(a, 'A'), B: await startServer(b, 'B') }
  await compareSides({ labels, servers, key: KEY })
}

if (process.argv[2] === 'serve') await serve(process.argv[3], process.argv[4])
else await compare()
