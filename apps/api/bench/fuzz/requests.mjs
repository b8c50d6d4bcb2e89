// Valid requests of every route, and how one is written on the wire. A request is a record that the mutations
// (mutations.mjs) change before serialize() turns it into bytes (a binary string: one character per byte).
import { petBody, utf8 } from './bodies.mjs'

export const STATUSES = ['available', 'pending', 'sold']

/** What a valid request of each kind is answered, when nothing of it was changed and its key is valid. */
export const EXPECTED = {
  list: [200],
  head: [200],
  create: [201],
  getPet: [200],
  getMissing: [404],
  orders: [501],
  ordersHead: [501],
  healthz: [200],
  readyz: [200],
  metrics: [200],
  openapi: [200],
  docs: [200],
  init: [200],
  asset: [200],
}

const listTarget = (r) => {
  const params = []
  if (r.chance(0.5)) params.push(`limit=${r.int(1, 100)}`)
  if (r.chance(0.4)) params.push(`status=${r.pick(STATUSES)}`)
  if (r.chance(0.3))
    params.push(
      `after=${r.weighted([
        [r.int(0, 60), 3],
        [r.int(0, 2 ** 53 - 1), 1],
      ])}`,
    )
  if (r.chance(0.2)) params.reverse()
  return `/v1/pets${params.length ? `?${params.join('&')}` : ''}`
}

const base = {
  list: (r) => ({ method: 'GET', target: listTarget(r) }),
  head: (r) => ({ method: 'HEAD', target: listTarget(r) }),
  create: (r, env, tags) => ({ method: 'POST', target: '/v1/pets', body: petBody(r, tags), json: true }),
  getPet: (r, env) => ({ method: 'GET', target: `/v1/pets/${r.int(1, env.seededPets)}` }),
  getMissing: (r) => ({ method: 'GET', target: `/v1/pets/${r.int(2 ** 50, 2 ** 53 - 1)}` }),
  orders: () => ({ method: 'GET', target: '/v1/store/orders' }),
  ordersHead: () => ({ method: 'HEAD', target: '/v1/store/orders' }),
  healthz: () => ({ method: 'GET', target: '/healthz', open: true }),
  readyz: () => ({ method: 'GET', target: '/readyz', open: true }),
  metrics: () => ({ method: 'GET', target: '/metrics', open: true }),
  openapi: () => ({ method: 'GET', target: '/openapi.json', open: true }),
  docs: () => ({ method: 'GET', target: '/docs', open: true }),
  init: () => ({ method: 'GET', target: '/docs/init.js', open: true }),
  asset: (r) => ({
    method: r.pick(['GET', 'HEAD', 'HEAD', 'HEAD']),
    target: `/docs/assets/5.35.0/${r.pick(['swagger-ui.css', 'favicon-32x32.png', 'swagger-ui-bundle.js'])}`,
    open: true,
  }),
}

const KINDS = [
  ['list', 24],
  ['create', 34],
  ['getPet', 10],
  ['getMissing', 4],
  ['head', 3],
  ['orders', 3],
  ['ordersHead', 1],
  ['healthz', 3],
  ['readyz', 2],
  ['metrics', 0.3],
  ['openapi', 0.5],
  ['docs', 1],
  ['init', 1],
  ['asset', 0.2],
]

/** A fresh valid request of a random kind (or of `kind`); `key` is the Bearer key it carries, if any. */
export const validRequest = (r, env, tags, kind = r.weighted(KINDS)) => {
  const req = {
    kind,
    version: 'HTTP/1.1',
    sp1: ' ',
    sp2: ' ',
    eol: '\r\n',
    lead: '',
    headers: [],
    body: '',
    framing: 'length',
    chunks: undefined,
    ...base[kind](r, env, tags),
  }
  req.headers.push(['Host', `127.0.0.1:${env.port}`])
  const key = r.pick(env.keys)
  req.key = key
  req.headers.push(['Authorization', `Bearer ${key}`])
  if (req.json)
    req.headers.push([
      'Content-Type',
      r.pick(['application/json', 'application/json', 'application/json; charset=utf-8']),
    ])
  if (r.chance(0.2)) req.headers.push(['X-Request-Id', `fz-${env.seed.toString(16)}-${r.hex(6)}`])
  if (req.json && r.chance(0.15))
    req.headers.push(['Idempotency-Key', `fz-${env.seed.toString(16)}-${r.hex(8)}`])
  if (r.chance(0.1)) req.headers.push(['Accept', r.pick(['application/json', '*/*', 'text/html'])])
  if (r.chance(0.1)) req.headers.push(['User-Agent', 'fuzz/1'])
  if (!req.json && r.chance(0.03)) req.body = utf8('{"name":"Rex"}')
  if (req.body === '' && req.method !== 'POST') req.framing = 'none'
  return req
}

const header = (name, value) => `${name}: ${value}`

/** The request's bytes. Framing: 'length' adds Content-Length unless a mutation set one; 'chunked' encodes. */
export const serialize = (req) => {
  const lines = req.headers.map((h) => (typeof h === 'string' ? h : header(h[0], h[1])))
  let body = req.body
  if (
    req.framing === 'length' &&
    !req.headers.some((h) => typeof h !== 'string' && /^content-length$/i.test(h[0]))
  )
    lines.push(header('Content-Length', String(body.length)))
  if (req.framing === 'chunked') {
    if (!req.headers.some((h) => typeof h !== 'string' && /^transfer-encoding$/i.test(h[0])))
      lines.push(header('Transfer-Encoding', 'chunked'))
    body = chunked(body, req.chunks)
  }
  const head = `${req.lead}${req.method}${req.sp1}${req.target}${req.sp2}${req.version}${req.eol}${lines.map((l) => l + req.eol).join('')}${req.eol}`
  return head + body
}

/** Chunked coding of `body` in the pieces `plan` says, with its odd sizes, extensions and trailers. */
const chunked = (body, plan = {}) => {
  const sizes = plan.sizes ?? [body.length]
  let out = ''
  let at = 0
  for (const [i, n] of sizes.entries()) {
    const piece = body.slice(at, at + n)
    at += n
    if (piece.length === 0) continue
    const sizeText = plan.sizeText?.(piece.length, i) ?? piece.length.toString(16)
    out += `${sizeText}${plan.ext?.(i) ?? ''}\r\n${piece}${plan.dataEnd ?? '\r\n'}`
  }
  if (at < body.length) out += `${(body.length - at).toString(16)}\r\n${body.slice(at)}\r\n`
  if (plan.noLast) return out
  return `${out}${plan.last ?? '0'}\r\n${plan.trailers ?? ''}${plan.end ?? '\r\n'}`
}
