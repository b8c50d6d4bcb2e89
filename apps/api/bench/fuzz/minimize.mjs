// Shrinks a case that ends the service process: `node minimize.mjs SEED [--store memory] [--port P] [--tries N]`.
// Replays the case's bytes (as its plan cuts and ends them) on a fresh service until the process dies, then drops
// requests one at a time while it still dies within N tries, and prints what is left.
import { setTimeout } from 'node:timers'
import { Buffer } from 'node:buffer'
import { connect } from 'node:net'
import { parseArgs } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { mkdirSync } from 'node:fs'
import { buildCase } from './case.mjs'
import { serialize } from './requests.mjs'
import { startService } from './service.mjs'

const { positionals, values: opt } = parseArgs({
  allowPositionals: true,
  options: {
    store: { type: 'string', default: 'memory' },
    port: { type: 'string', default: '7612' },
    tries: { type: 'string', default: '20' },
    out: { type: 'string', default: '/tmp/hfuzz/minimize' },
    database: { type: 'string', default: 'hfuzz_min' },
  },
})
const port = Number(opt.port)
mkdirSync(opt.out, { recursive: true })
let service
let dead = false
const fresh = async () => {
  service = await startService({ store: opt.store, port, out: opt.out, database: opt.database })
  dead = false
  service.exit.then(() => (dead = true))
}

// Writes the pieces as one go (no pause), then ends as the plan says.
const play = (pieces, end) =>
  new Promise((resolve) => {
    const s = connect({ port, host: '127.0.0.1', noDelay: true }, () => {
      for (const p of pieces) s.write(Buffer.from(p, 'latin1'))
      if (end === 'reset') s.resetAndDestroy()
      else if (end === 'halfClose') s.end()
      setTimeout(() => s.destroy(), 3000).unref()
    })
    s.on('error', () => {})
    s.on('close', resolve)
  })

const kills = async (pieces, end) => {
  for (let i = 0; i < Number(opt.tries); i++) {
    await play(pieces, end)
    await sleep(100)
    if (dead) {
      await fresh()
      return true
    }
  }
  return false
}

const seed = Number(positionals[0])
await fresh()
const c = buildCase(seed, { port, keys: service.keys, seededPets: 50 })
const cutAt = c.plan.cuts[0]
// The requests' bytes, cut in two where the plan first cut them (as a share of the whole), then ended as it ends.
const piecesOf = (requests) => {
  const wire = c.preface + requests.map(serialize).join('')
  const stop = Math.round((c.plan.stopAt / c.wire.length) * wire.length)
  const at = cutAt === undefined ? stop : Math.round((cutAt / c.wire.length) * wire.length)
  return [wire.slice(0, Math.min(at, stop)), wire.slice(Math.min(at, stop), stop)]
}
let requests = c.requests
const killedOnce = await kills(piecesOf(requests), c.plan.end)
console.log('whole case kills:', killedOnce)
if (killedOnce)
  for (let i = requests.length - 1; i >= 0 && requests.length > 1; i--) {
    const fewer = requests.filter((_, j) => j !== i)
    if (await kills(piecesOf(fewer), c.plan.end)) {
      requests = fewer
      console.log(`without request ${i}: still kills (${requests.length} left)`)
    }
  }
const left = JSON.stringify(piecesOf(requests))
console.log(
  'left:',
  left.length > 4000 ? `${left.slice(0, 4000)}…(${left.length} characters)` : left,
  c.plan.end,
)
service.child.kill('SIGTERM')
