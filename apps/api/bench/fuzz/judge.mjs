// What a played case found (findings) and its signature: its answers as they must be on every store.
import { checkAnswer, checkMatched, signature } from './checks.mjs'
import { header } from './response-parser.mjs'
import { serialize } from './requests.mjs'

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const TARGET = /^[\x21-\x7e]+$/
const VERSION = /^HTTP\/[0-9]\.[0-9]$/
const EMPTY_LINES = /^(\r\n)*$/

/**
 * Whether a request's line is one per RFC 9112 (section 3: method SP request-target SP HTTP-version CRLF,
 * after empty lines at most, section 2.2): only then can the service know its method when node's parser
 * refuses it (a tab or a NUL before it, a tab between its words, a bare LF at its end: no request line).
 */
export const validRequestLine = (q) =>
  EMPTY_LINES.test(q.lead) &&
  TOKEN.test(q.method) &&
  q.sp1 === ' ' &&
  TARGET.test(q.target) &&
  q.sp2 === ' ' &&
  VERSION.test(q.version) &&
  q.eol === '\r\n'

// Where the i-th request's bytes begin on the wire.
const startOf = (c, i) =>
  c.preface.length + c.requests.slice(0, i).reduce((n, q) => n + serialize(q).length, 0)

// Whether the i-th request's line went out whole: a client that stalls or resets may stop inside it.
const lineSent = (c, i) => {
  const q = c.requests[i]
  return (
    startOf(c, i) + `${q.lead}${q.method}${q.sp1}${q.target}${q.sp2}${q.version}${q.eol}`.length <=
    c.plan.stopAt
  )
}

// Whether the i-th request went out first, whole, in one packet (no cut inside it). Else node's refusal may
// carry a packet its line does not begin, or none (a head that never ended): known and left (README).
const aloneInFirstPacket = (c, i) => {
  const end = startOf(c, i) + serialize(c.requests[i]).length
  return c.preface === '' && i === 0 && end <= c.plan.stopAt && !c.plan.cuts.some((cut) => cut < end)
}

/** Everything found about one played case. */
export const judge = (c, state) => {
  const findings = []
  const add = (kind, detail) => findings.push({ kind, detail: String(detail ?? '').slice(0, 400) })
  const { parser } = state
  const last = parser.responses.at(-1)
  const left = /connection closed inside a response \((\d+) bytes left\)/.exec(parser.error ?? '')
  if (c.preface.startsWith('PRI * HTTP/2.0')) {
    // HTTP/2's own refusal (documented): frames, no HTTP/1.1 to parse.
  } else if (
    left &&
    last?.status === 400 &&
    parser.finals - 1 < state.mapped &&
    c.requests[parser.finals - 1]?.method === 'HEAD' &&
    header(last, 'content-length') === left[1]
  ) {
    // The Error body of a 400 for a refused HEAD, read as bodiless: a finding only when its line is a request
    // line and went out whole; else the service cannot know the method, and a body is what any other gets.
    const i = parser.finals - 1
    if (validRequestLine(c.requests[i]) && lineSent(c, i))
      add(
        aloneInFirstPacket(c, i) ? 'head-refusal-body' : 'head-refusal-body-split',
        `a HEAD refused by the parser answered with its ${left[1]}-byte Error body`,
      )
  } else if (parser.error) add('bad-http', parser.error)
  if (state.hang) add('hang', `${state.hang} ms without a byte or a close`)
  if (state.lateClose) add('late-close', state.lateClose)
  let finals = 0
  let closedBefore = false
  const sigs = []
  for (const r of parser.responses) {
    if (r.status < 200) {
      const req = finals < state.mapped ? c.requests[finals] : undefined
      if (r.status !== 100) add('interim', r.status)
      else if (req && !req.expect) add('unasked-100', `${req.method} ${req.target.slice(0, 60)}`)
      continue
    }
    const req = finals < state.mapped ? c.requests[finals] : undefined
    if (closedBefore) add('answer-after-close', r.status)
    for (const f of checkAnswer(r, req))
      add(f.kind, `${f.detail} [${req ? `${req.kind} ${req.tags.join('+')}` : 'unmatched'}]`)
    if (req) for (const f of checkMatched(r, req, c.plan.timing)) add(f.kind, f.detail)
    if (/(^|,)\s*close\s*(,|$)/i.test(r.headers.find(([k]) => k === 'connection')?.[1] ?? ''))
      closedBefore = true
    sigs.push(signature(r, req))
    finals++
  }
  // Valid requests only, none that leaves a body unread, none after a closing answer: each is answered.
  const valid = c.requests.every(
    (q) =>
      q.tags.length === 0 &&
      !q.protocol &&
      !q.ambiguous &&
      !q.truncated &&
      (q.method === 'POST' || q.body === ''),
  )
  const closedEarly = parser.responses
    .slice(0, -1)
    .some((r) => /close/i.test(r.headers.find(([k]) => k === 'connection')?.[1] ?? ''))
  if (
    valid &&
    !c.preface &&
    c.requests.length <= 32 &&
    c.plan.end === 'wait' &&
    !c.plan.timing &&
    !closedEarly &&
    finals < c.requests.length
  )
    add('unanswered', `${finals} answers to ${c.requests.length} valid requests`)
  if (!c.preface && !c.requests.some((q) => q.ambiguous) && finals > c.requests.length)
    add('extra-answers', `${finals} answers to ${c.requests.length} requests`)
  const timing = c.plan.timing || c.requests.some((q) => q.truncated)
  const sig = `${timing ? '~' : ''}${sigs.join(' | ')}${timing ? '' : ` | ${state.closeKind}`}`
  return { findings, sig, finals }
}

// Cases whose answers may differ by store without either being wrong: a pipeline deeper than MAX_PIPELINED (32),
// closed or not as the store is fast; bytes node's parser refuses (or may read otherwise) behind a request, or in
// the body of one that does not read it, which end the connection after the answer under way, so that what came
// between is answered or not as the store is fast (README, "Hostile input"); those a timing mark (~) says are.
export const raceable = (c) =>
  c.requests.length > 32 ||
  // A body the handler does not read (any but a create's): its answer closes the connection if it went out
  // before the body was whole, and keeps it otherwise.
  c.requests.some(
    (q, i) => q.method !== 'POST' && (q.body !== '' || q.framing === 'chunked') && i < c.requests.length - 1,
  ) ||
  (c.requests.some((q) => q.protocol || q.ambiguous) &&
    (c.requests.length > 1 || c.requests[0].method !== 'POST'))
