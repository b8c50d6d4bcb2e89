// What every answer must be (the contract, RFC 9110/9112 as a strict client reads them), what a valid request
// must get, and a signature of the answers that the same case must give on every store.
import { TextDecoder } from 'node:util'
import { EXPECTED } from './requests.mjs'
import { header, headers } from './response-parser.mjs'

const CODES = {
  400: 'validation_failed',
  401: 'unauthorized',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'idempotency_key_in_use',
  410: 'gone',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'idempotency_key_reused',
  429: 'rate_limited',
  500: 'internal_error',
  501: 'not_implemented',
  503: 'unavailable',
}
// What must never reach a client: a stack, a file of the service, an engine's or a driver's own message.
const LEAKS = [
  /\n\s+at \S/,
  /\bat [\w.<>]+ \(/,
  /node_modules/,
  /\/work\//,
  /file:\/\//,
  /\.[cm]?[jt]s:\d+/,
  /\b(Syntax|Type|Reference|Range)Error\b/,
  /Unexpected (token|end|non-whitespace)/,
  /JSON at position/,
  /\bECONN[A-Z]+\b/,
  /\bEPIPE\b/,
  /duplicate key/,
  /violates/,
  /relation "/,
  /syntax error at/,
  /\[object Object\]/,
  /\bundefined\b/,
  /\bNaN\b/,
  /\bHPE_[A-Z_]+/,
  /kysely|pg-pool|koa/i,
]
const VISIBLE_ID = /^[\x21-\x7e]{1,128}$/
const decoder = new TextDecoder('utf-8', { fatal: true })
const isAsset = (r) =>
  /^(text\/(css|html|javascript)|application\/javascript|image\/)/.test(header(r, 'content-type') ?? '')

const leaksIn = (text) => LEAKS.find((re) => re.test(text))

/** Findings about one final answer, whatever request it answers. */
export const checkAnswer = (r, req) => {
  const out = []
  const add = (kind, detail) => out.push({ kind, detail })
  const s = r.status
  if (
    s >= 500 &&
    !(
      s === 501 &&
      (!req ||
        req.kind.startsWith('orders') ||
        req.tags.some((t) => t.startsWith('framing:te')) ||
        req.tags.includes('header:encoding'))
    )
  )
    add(`status-${s}`, r.reason)
  if ([410, 429, 503].includes(s)) add(`status-${s}`, 'no clock, rate limit or outage was set up')
  if (!header(r, 'date')) add('no-date', s)
  const id = headers(r, 'x-request-id')
  if (id.length !== 1 || !VISIBLE_ID.test(id[0])) add('request-id', JSON.stringify(id))
  if (header(r, 'x-content-type-options') !== 'nosniff') add('no-nosniff', s)
  if (header(r, 'x-powered-by') || header(r, 'server'))
    add('server-header', header(r, 'x-powered-by') ?? header(r, 'server'))
  if (headers(r, 'content-type').length > 1) add('content-type-twice', s)
  const type = header(r, 'content-type') ?? ''
  if (r.body.length > 0 && !type) add('body-without-type', s)
  const headText = r.rawHead.replace(/^x-request-id:.*$/gim, '')
  const leak = leaksIn(headText)
  if (leak) add('leak-head', String(leak))
  let json
  if (/^application\/([a-z+]*\+)?json/.test(type) && r.body.length > 0) {
    try {
      json = JSON.parse(decoder.decode(r.body))
    } catch (e) {
      add('bad-json', String(e.message).slice(0, 80))
    }
  }
  if (!isAsset(r) && !(req?.kind === 'openapi' || req?.kind === 'metrics')) {
    const bodyLeak = leaksIn(r.body.toString('latin1'))
    if (bodyLeak) add('leak-body', `${bodyLeak} in ${r.body.toString('latin1').slice(0, 160)}`)
  }
  if (s >= 400 && req?.method !== 'HEAD') {
    const keys = json && typeof json === 'object' ? Object.keys(json).sort().join(',') : ''
    if (keys !== 'code,message,status') add('error-shape', keys || r.body.toString('latin1').slice(0, 80))
    else {
      if (json.status !== s) add('error-status', `${json.status} in a ${s}`)
      if (json.code !== CODES[s]) add('error-code', `${json.code} in a ${s}`)
      if (typeof json.message !== 'string' || json.message.length === 0)
        add('error-message', typeof json.message)
      else if (json.message.length > 4000) add('error-message-long', json.message.length)
    }
  }
  if (s === 401 && !/^Bearer realm="animal-store"/.test(header(r, 'www-authenticate') ?? ''))
    add('401-challenge', header(r, 'www-authenticate'))
  if (s === 405 && !header(r, 'allow')) add('405-allow', '')
  if (s === 201 && json) {
    const keys = Object.keys(json).sort().join(',')
    if (keys !== 'categoryId,id,name,status' || !Number.isSafeInteger(json.id)) add('pet-shape', keys)
    if (!header(r, 'location')) add('201-location', '')
  }
  return out
}

const cleanKey = (req) => req.keyState === 'valid'
const untouched = (req) => req.tags.length === 0 && !req.protocol && !req.ambiguous && !req.truncated

/** Findings that need the request an answer is matched to. */
export const checkMatched = (r, req, timing) => {
  const out = []
  const add = (kind, detail) => out.push({ kind, detail })
  if (untouched(req) && cleanKey(req) && !timing && !EXPECTED[req.kind].includes(r.status))
    add(
      'valid-refused',
      `${req.kind} ${req.method} ${req.target.slice(0, 80)}: ${r.status} ${r.body.toString('latin1').slice(0, 160)}`,
    )
  const v1 = req.target.startsWith('/v1')
  if (!cleanKey(req) && v1 && r.status < 300)
    add('auth-bypass', `${req.keyState} ${req.method} ${req.target.slice(0, 80)}: ${r.status}`)
  const onlyKey = req.tags.every((t) => t.startsWith('auth:') || t.startsWith('body:'))
  if (
    (req.keyState === 'none' || req.keyState === 'invalid') &&
    onlyKey &&
    !timing &&
    !req.protocol &&
    !req.ambiguous &&
    !req.truncated &&
    v1 &&
    r.status !== 401
  )
    add('auth-order', `${req.keyState} ${req.method} ${req.target.slice(0, 80)}: ${r.status}`)
  const sent = req.headers.filter((h) => typeof h !== 'string' && /^x-request-id$/i.test(h[0]))
  // A request node's parser refused has no headers read: its answer has an id of its own.
  const refused =
    r.status === 400 &&
    /not valid HTTP\/1\.1|16 KiB|did not arrive in time|must end in HTTP/.test(r.body.toString('latin1'))
  if (
    !refused &&
    !timing &&
    !req.protocol &&
    !req.ambiguous &&
    !req.truncated &&
    sent.length === 1 &&
    VISIBLE_ID.test(sent[0][1]) &&
    header(r, 'x-request-id') !== sent[0][1]
  )
    add('request-id-echo', `${sent[0][1]} -> ${header(r, 'x-request-id')}`)
  return out
}

const VOLATILE = new Set([
  'date',
  'x-request-id',
  'keep-alive',
  'etag',
  'last-modified',
  'content-length',
  'link',
  'location',
])

/** The answer as it must be on every store: status, code, message, header names (pet ids taken out). */
export const signature = (r, req) => {
  let body = ''
  if (r.status >= 400 && r.body.length) {
    try {
      const j = JSON.parse(r.body.toString('utf8'))
      body = `${j.code}:${j.message}`
    } catch {
      body = 'non-json'
    }
  } else if (r.status === 201) body = r.body.toString('utf8').replace(/"id":\d+/, '"id":N')
  const names = [...new Set(r.headers.map(([k]) => k).filter((k) => !VOLATILE.has(k)))].sort().join(',')
  const kind = req?.kind === 'getPet' || req?.kind === 'getMissing' ? 'pet' : ''
  return `${r.status}${kind}[${names}]${body}`
}
