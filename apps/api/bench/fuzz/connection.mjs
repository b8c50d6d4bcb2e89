// Plays one case over a raw socket and watches the answers: parses them strictly as they come, and reports how
// the connection ended (the server's close, a reset) and how long each step took. `released` resolves once the
// case no longer needs an active slot (its writes are done and its answers are in, or it only waits for the
// server's close); `done` once the connection is closed.
import { clearInterval, setImmediate, setInterval, setTimeout } from 'node:timers'
import { Buffer } from 'node:buffer'
import { connect } from 'node:net'
import { ResponseParser } from './response-parser.mjs'

export const HANG_MS = 40_000 // the request timeout (30 s), node's check of it (1 s), and room to spare
export const CLOSE_AFTER_CLOSE_MS = 6_000 // an answer saying Connection: close: the linger (3 s) and room
export const IDLE_CLOSE_MS = 6_000 // KEEP_ALIVE_TIMEOUT_MS of the run (1 s) and room

export const playCase = (c, port, { host = '127.0.0.1', record = false, hangMs = HANG_MS } = {}) => {
  const { requests, plan } = c
  const mappable = !c.preface
  const mapLimit = mappable ? requests.findIndex((q) => q.ambiguous) : -1
  const mapped = mapLimit < 0 ? (mappable ? requests.length : 0) : mapLimit + 1
  const isHead = (i) => i < mapped && requests[i].method === 'HEAD'
  const expected =
    mappable && mapLimit < 0 && plan.end === 'wait' ? requests.filter((q) => !q.truncated).length : -1
  const parser = new ResponseParser(isHead)
  const state = {
    parser,
    mapped,
    expected,
    closeKind: undefined,
    errors: [],
    raw: record ? [] : undefined,
    start: Date.now(),
    writesDoneAt: undefined,
    lastActivity: Date.now(),
    answerTimes: [],
    closeAnswerAt: undefined,
    lateClose: undefined,
    idleSince: undefined,
  }
  const socket = connect({ port, host, noDelay: true })
  let releaseFn
  const released = new Promise((resolve) => (releaseFn = resolve))
  const release = () => releaseFn?.()
  const done = new Promise((resolve) => {
    socket.on('close', () => {
      state.closedAt = Date.now()
      if (!state.closeKind) state.closeKind = 'fin'
      parser.end()
      clearInterval(watch)
      release()
      resolve(state)
    })
  })
  socket.on('error', (e) => {
    state.errors.push(e.code ?? e.message)
    if (e.code === 'ECONNRESET') state.closeKind = 'reset'
  })
  socket.on('data', (chunk) => {
    state.lastActivity = Date.now()
    state.raw?.push(chunk)
    const before = parser.responses.length
    parser.push(chunk)
    for (const r of parser.responses.slice(before)) {
      if (r.status >= 200) state.answerTimes.push(Date.now() - (state.writesDoneAt ?? state.start))
      if (/(^|,)\s*close\s*(,|$)/i.test(r.headers.find(([k]) => k === 'connection')?.[1] ?? ''))
        state.closeAnswerAt ??= Date.now()
    }
    if (expected >= 0 && parser.finals >= expected && state.writesDoneAt) {
      state.idleSince ??= Date.now()
      release()
    }
  })
  // Hangs and connections kept past what the service documents.
  const watch = setInterval(() => {
    const now = Date.now()
    if (now - state.lastActivity > hangMs) {
      state.hang = now - state.lastActivity
      socket.destroy()
    }
    if (state.closeAnswerAt && now - state.closeAnswerAt > CLOSE_AFTER_CLOSE_MS && !state.lateClose)
      state.lateClose = 'after Connection: close'
    if (state.idleSince && now - state.idleSince > IDLE_CLOSE_MS && !state.lateClose)
      state.lateClose = 'idle keep-alive'
    if (state.writesDoneAt && now - state.writesDoneAt > 3_000) release()
  }, 500)
  const bytes = Buffer.from(c.wire.slice(0, plan.stopAt), 'latin1')
  const pieces = []
  let at = 0
  for (const cut of plan.cuts.filter((x) => x < bytes.length)) {
    pieces.push(bytes.subarray(at, cut))
    at = cut
  }
  pieces.push(bytes.subarray(at))
  const write = (i) => {
    if (socket.destroyed) return
    if (i >= pieces.length) return finishWrites()
    if (pieces[i].length) socket.write(pieces[i])
    state.lastActivity = Date.now()
    const d = plan.delays[i] ?? -1
    if (d < 0) write(i + 1)
    else if (d === 0) setImmediate(() => write(i + 1))
    else setTimeout(() => write(i + 1), d)
  }
  const finishWrites = () => {
    state.writesDoneAt = Date.now()
    if (plan.end === 'halfClose') socket.end()
    if (plan.end === 'reset') {
      state.closeKind = 'client-reset'
      socket.resetAndDestroy()
    }
    if (expected < 0 || plan.end !== 'wait') release()
    else if (parser.finals >= expected) {
      state.idleSince ??= Date.now()
      release()
    }
  }
  socket.once('connect', () => write(0))
  return { released, done }
}
