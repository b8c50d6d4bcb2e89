// One case: a connection, the requests pipelined on it (each valid, then perhaps mutated), and how its bytes are
// written (in pieces, with pauses, then waiting, half-closing, resetting or stalling). All of it from one seed.
import { prng } from './prng.mjs'
import { serialize, validRequest } from './requests.mjs'
import { mutateAuth, mutateHead } from './mutations.mjs'
import { mutateFraming } from './framing.mjs'

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/

const PREFACES = [
  'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
  '\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03' + '\x00'.repeat(32),
  'GET / HTTP/1.1\r\n\r\n',
  '\r\n\r\n\r\n',
  'SSH-2.0-OpenSSH_9.2\r\n',
]

export const buildCase = (seed, env) => {
  const r = prng(seed)
  const caseEnv = { ...env, seed }
  const preface = r.chance(0.01) ? r.pick(PREFACES) + (r.chance(0.5) ? r.bytes(r.int(0, 64)) : '') : ''
  const count = r.weighted([
    [1, 65],
    [r.int(2, 4), 25],
    [r.int(5, 8), 8],
    [r.int(30, 40), 2],
  ])
  const requests = []
  for (let i = 0; i < count; i++) {
    const tags = []
    const light = count > 8
    const req = validRequest(r, caseEnv, tags, light ? r.pick(['healthz', 'list', 'getPet']) : undefined)
    req.tags = tags
    req.keyState = 'valid'
    if (!light) {
      if (r.chance(0.15)) mutateAuth(r, req, caseEnv)
      if (r.chance(0.35)) mutateHead(r, req, caseEnv)
      if (r.chance(0.15)) mutateFraming(r, req)
    }
    // A control character (but a tab) or DEL in a header value: node's parser refuses the head.
    if (req.headers.some((h) => CONTROL.test(typeof h === 'string' ? h.replace(/\r\n[ \t]/g, '') : h[1])))
      req.protocol = true
    // No HEAD after a request whose framing may be read otherwise: its answer could not be parsed without it.
    if ((preface || requests.some((q) => q.ambiguous)) && req.method === 'HEAD') req.method = 'GET'
    requests.push(req)
  }
  const last = requests[requests.length - 1]
  if (r.chance(0.6) && !last.headers.some((h) => typeof h !== 'string' && /^connection$/i.test(h[0]))) {
    last.headers.push(['Connection', 'close'])
    last.closes = true
  }
  const parts = requests.map(serialize)
  const wire = preface + parts.join('')
  const plan = transport(r, wire.length)
  // A request cut by a stall or a reset never completes: judged as one that is truncated.
  let end = preface.length
  for (const [i, part] of parts.entries()) {
    end += part.length
    if (end > plan.stopAt) requests[i].truncated = requests[i].cut = true
  }
  return { seed, requests, preface, wire, plan }
}

/** Where to cut the bytes, how long to wait between pieces, and how the client ends. */
const transport = (r, length) => {
  const mode = r.weighted([
    ['whole', 50],
    ['few', 30],
    ['many', 10],
    ['bytes', 2],
  ])
  let cuts = []
  if (mode === 'few') cuts = Array.from({ length: r.int(1, 4) }, () => r.int(1, Math.max(1, length - 1)))
  if (mode === 'many') cuts = Array.from({ length: r.int(5, 50) }, () => r.int(1, Math.max(1, length - 1)))
  if (mode === 'bytes' && length < 600) cuts = Array.from({ length: length - 1 }, (_, i) => i + 1)
  cuts = [...new Set(cuts)].sort((a, b) => a - b)
  const delay = r.weighted([
    ['sync', 40],
    ['immediate', 30],
    ['ms', 25],
    ['pause', 5],
  ])
  const delays = cuts.map(() =>
    delay === 'ms' ? r.int(1, 20) : delay === 'immediate' ? 0 : delay === 'sync' ? -1 : -1,
  )
  if (delay === 'pause' && cuts.length)
    delays[r.int(0, cuts.length - 1)] = r.weighted([
      [r.int(100, 900), 4],
      [r.int(1000, 2500), 1],
    ])
  const end = r.weighted([
    ['wait', 78],
    ['halfClose', 15],
    ['reset', 4],
    ['stall', 3],
  ])
  const stopAt = end === 'reset' || end === 'stall' ? r.int(0, length) : length
  // Bytes that take a second or more to arrive may meet the headers' time limit (2 s in a run).
  const slow = delays.reduce((s, d) => s + Math.max(0, d), 0) > 1000
  return { mode, cuts, delays, end, stopAt, timing: delay === 'pause' || end !== 'wait' || slow }
}
