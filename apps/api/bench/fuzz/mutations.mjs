// Mutations of a valid request: its line, its headers, its framing, its key. Each sets flags the checks read:
// `protocol` (the head may be refused by the parser), `ambiguous` (the server may see another number of requests
// than we wrote, so later answers are not matched to requests), `truncated` (it can never complete: answered by a
// time limit or the close, if at all).
import { Buffer } from 'node:buffer'
import { utf8 } from './bodies.mjs'

const METHODS = [
  'GET',
  'POST',
  'HEAD',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'TRACE',
  'CONNECT',
  'get',
  'Get',
  'FOO',
  'PURGE',
  'M-SEARCH',
  'PRI',
  'SEARCH',
  'QUERY',
  'LINK',
  'ACL',
  'MKCOL',
  'PROPFIND',
  '',
  'G\x00ET',
  'GET GET',
  '(GET)',
  'G\xc9T',
  'GE\tT',
  'CONNECTX',
  'HEADX',
  'X'.repeat(300),
  'constructor',
  '__proto__',
  'toString',
]
const PATHS = [
  '/v1/pets',
  '/v1/pets/',
  '/v1/PETS',
  '/V1/pets',
  '/v1//pets',
  '//v1/pets',
  '/v1/./pets',
  '/v1/../v1/pets',
  '/v1/pets/.',
  '/v1/pets/..',
  '/v1/%70ets',
  '/v1%2Fpets',
  '/v1/pets%2F1',
  '/v1/pets/%31',
  '/v1/pets/1%00',
  '/v1/pets/%',
  '/v1/pets/%zz',
  '/v1/pets/%C0%AF',
  '/v1/pets/0',
  '/v1/pets/-1',
  '/v1/pets/01',
  '/v1/pets/1.0',
  '/v1/pets/1e3',
  '/v1/pets/9007199254740992',
  '/v1/pets/99999999999999999999999',
  '/v1/pets/+1',
  '/v1/pets/ 1',
  '/v1/pets/１',
  '/v1/pets/constructor',
  '/v1/pets/__proto__',
  '/v1/store/orders/',
  '/v1/store/orders/1',
  '/v1/store',
  '/v1',
  '/v1/',
  '/',
  '/healthz/',
  '/HEALTHZ',
  '/metrics?x=1',
  '/openapi.json/',
  '/docs/',
  '/docs/assets/5.35.0/../../../package.json',
  '/docs/assets/%2e%2e/x',
  '/docs/assets/5.35.0/',
  '/docs/assets/0/swagger-ui.css',
  '/docs/init.js?x',
  '/__proto__',
  '/constructor',
  '/toString',
  '/v1/__proto__',
  '/v1/pets#frag',
  '/v1/pets?#',
  '/v1/pets/1/',
  '/v1/pets/1/x',
  '/.env',
  '/../../etc/passwd',
  '/v1/pets;x=1',
  '/v1/pets/1;1',
  '/%2e%2e/v1/pets',
  '/v1/%2e/pets',
  '/v1/pets/\u00e9',
  '/v1/pets/\xff',
  '/v1/pets/\x7f',
  '/v1/pets/a b',
  '/v1/pets\t',
]
const QUERIES = [
  'limit=',
  'limit=0',
  'limit=101',
  'limit=-1',
  'limit=1e1',
  'limit=+5',
  'limit=05',
  'limit=5.0',
  'limit=%35',
  'limit=5&limit=5',
  'limit=99999999999999999999',
  'limit',
  'limit=1%00',
  'status=AVAILABLE',
  'status=sold%20',
  'status=',
  'status=available&status=sold',
  'after=-1',
  'after=9007199254740992',
  'after=1.5',
  'after=',
  'x=1',
  '=',
  '&&&',
  '?',
  'limit=5#x',
  '%',
  '%zz=1',
  'limit=%E2%82%AC',
  'status=\xc3\xa9',
  'status=\xff',
  'a=\x00',
  '__proto__=1',
  'constructor=1',
  'limit=5;status=sold',
  'limit=5+',
  'LIMIT=5',
  'limit[]=5',
  'after=0x10',
  'after=00000000000000000000000000001',
  'status=pending&limit=100&after=0',
]

// Bytes node's parser refuses in a target: controls, white space, DEL and bytes over 0x7f.
// eslint-disable-next-line no-control-regex
const CONTROL_OR_HIGH = /[\s\x00-\x1f\x7f-\xff]/
// eslint-disable-next-line no-control-regex
const CONTROL_SPACE_OR_HIGH = /[\x00-\x20\x7f-\xff]/

const flag = (req, tag, { protocol = false, ambiguous = false, truncated = false } = {}) => {
  req.tags.push(tag)
  if (protocol) req.protocol = true
  if (ambiguous) req.ambiguous = true
  if (truncated) req.truncated = true
}

const pos = (r, s) => r.int(0, s.length)
const insert = (s, at, t) => s.slice(0, at) + t + s.slice(at)
const setHeader = (req, name, value) => {
  const i = req.headers.findIndex((h) => typeof h !== 'string' && h[0].toLowerCase() === name.toLowerCase())
  if (i >= 0) req.headers[i] = [req.headers[i][0], value]
  else req.headers.push([name, value])
}
const removeHeader = (req, name) => {
  req.headers = req.headers.filter((h) => typeof h === 'string' || h[0].toLowerCase() !== name.toLowerCase())
}
const ODD_BYTES = [
  '\x00',
  '\x01',
  '\x7f',
  '\xff',
  '\xc3\xa9',
  '\x0b',
  '\x0c',
  '\t',
  '\r',
  '\n',
  '\x1b',
  '"',
  '\\',
  ',',
  ';',
  ' ',
]

const line = {
  method: (r, req) => {
    req.method = r.pick(METHODS)
    flag(req, 'line:method', { protocol: true })
  },
  path: (r, req) => {
    const q = req.target.indexOf('?')
    req.target = utf8(r.pick(PATHS)) + (q >= 0 && r.chance(0.5) ? req.target.slice(q) : '')
    flag(req, 'line:path', { protocol: CONTROL_OR_HIGH.test(req.target) })
  },
  encode: (r, req) => {
    const path = req.target
    let out = ''
    for (const c of path)
      out +=
        c !== '?' && r.chance(0.3)
          ? `%${c.charCodeAt(0).toString(16).padStart(2, '0')}${r.chance(0.2) ? '' : ''}`
          : c
    req.target = r.chance(0.5) ? out : out.toUpperCase().replace(/^\/V1/, '/v1')
    flag(req, 'line:encode', { protocol: !req.target.startsWith('/') })
  },
  badPercent: (r, req) => {
    req.target = insert(
      req.target,
      r.int(1, req.target.length),
      r.pick(['%', '%g1', '%0', '%00', '%ZZ', '%C0%AF', '%E2%80%AE', '%FF', '%%', '%2', '%u0041']),
    )
    flag(req, 'line:badPercent')
  },
  dots: (r, req) => {
    const segs = ['/./', '/../', '/.', '/%2e%2e/', '/..%2f', '//', '/.../', '/%2e/']
    const at = req.target.indexOf('/', 1)
    req.target = at > 0 ? insert(req.target, at, r.pick(segs).slice(0, -1)) : req.target + r.pick(segs)
    flag(req, 'line:dots')
  },
  query: (r, req) => {
    const base = req.target.split('?')[0]
    const parts = Array.from({ length: r.int(1, 4) }, () => r.pick(QUERIES))
    req.target = `${base}?${parts.join('&')}`
    flag(req, 'line:query', { protocol: CONTROL_SPACE_OR_HIGH.test(req.target) })
  },
  hugeQuery: (r, req) => {
    const n = r.pick([4000, 4090, 4097, 8000, 15000, 16400, 40000])
    const unit = r.pick(['a&', 'limit=5&', 'x=%41&', '%ZZ', 'status=sold&', '&'])
    req.target = `${req.target.split('?')[0]}?${unit.repeat(Math.ceil(n / unit.length)).slice(0, n)}`
    flag(req, 'line:hugeQuery', { protocol: n > 15000 })
  },
  longPath: (r, req) => {
    req.target = `/v1/pets/${r.pick(['1', 'a', '%41', '/']).repeat(r.pick([300, 4100, 9000, 17000]))}`
    flag(req, 'line:longPath', { protocol: req.target.length > 15000 })
  },
  absolute: (r, req, env) => {
    const authority = r.pick([
      `127.0.0.1:${env.port}`,
      'example.com',
      'user:pw@host',
      '[::1]:80',
      'h',
      'x:99999',
      '',
      'a b',
    ])
    req.target = `${r.pick(['http', 'https', 'HTTP', 'ftp', 'ws'])}://${authority}${r.chance(0.9) ? req.target : ''}`
    flag(req, 'line:absolute', { protocol: true })
  },
  asterisk: (r, req) => {
    req.target = '*'
    if (r.chance(0.5)) req.method = 'OPTIONS'
    flag(req, 'line:asterisk', { protocol: true })
  },
  authority: (r, req) => {
    req.target = r.pick(['127.0.0.1:80', 'example.com:443', 'user:pw@host:443', '[::1]:443', 'host'])
    if (r.chance(0.6)) req.method = 'CONNECT'
    flag(req, 'line:authority', { protocol: true })
  },
  oddTarget: (r, req) => {
    req.target = r.pick([
      '',
      ' ',
      '/ /',
      '/\t',
      'v1/pets',
      '?limit=1',
      '#',
      '/\x00',
      '\xff',
      '/v1/pets HTTP/1.1',
      '/v1/pets\r',
    ])
    flag(req, 'line:oddTarget', { protocol: true, ambiguous: /\r/.test(req.target) })
  },
  version: (r, req) => {
    req.version = r.pick([
      'HTTP/1.0',
      'HTTP/1.2',
      'HTTP/2.0',
      'HTTP/0.9',
      'http/1.1',
      'HTTP/1.1 ',
      'HTTP/1',
      'HTTP/11',
      'HTTP/1.1x',
      '',
      'HTTP/1.01',
      'HTTP/01.1',
      'HTTP/3',
      'HTTP/9.9',
      'HTTPS/1.1',
    ])
    flag(req, 'line:version', { protocol: true })
  },
  spaces: (r, req) => {
    ;[req.sp1, req.sp2] = [r.pick([' ', '  ', '\t', ' \t']), r.pick([' ', '  ', '\t'])]
    flag(req, 'line:spaces', { protocol: true })
  },
  lead: (r, req) => {
    req.lead = r.pick(['\r\n', '\r\n\r\n', '\n', ' ', '\t', '\x00', '\r\n'.repeat(20)])
    flag(req, 'line:lead', { protocol: true })
  },
  eol: (r, req) => {
    req.eol = r.pick(['\n', '\r', '\r\r\n', '\n\r'])
    flag(req, 'line:eol', { protocol: true, ambiguous: true })
  },
}

const headers = {
  host: (r, req) => {
    const op = r.int(0, 3)
    if (op === 0) removeHeader(req, 'Host')
    else if (op === 1) req.headers.push(['Host', r.pick(['127.0.0.1', 'other', 'example.com'])])
    else
      setHeader(
        req,
        'Host',
        r.pick([
          '',
          'a b',
          'x:99999',
          '[::1]:80',
          'h\xc3\xa9',
          'host/path',
          'user@host',
          'x'.repeat(r.size(17000)),
          '-',
          '.',
          '1.2.3.4.5',
          'host:',
          ':80',
          'h\x00',
        ]),
      )
    flag(req, 'header:host', { protocol: true })
  },
  duplicate: (r, req) => {
    const name = r.pick([
      'Content-Type',
      'Authorization',
      'Idempotency-Key',
      'X-Request-Id',
      'Accept',
      'Expect',
      'Connection',
      'Content-Encoding',
      'Cookie',
    ])
    const existing = req.headers.find(
      (h) => typeof h !== 'string' && h[0].toLowerCase() === name.toLowerCase(),
    )
    req.headers.splice(r.int(0, req.headers.length), 0, [
      r.pick([name, name.toLowerCase(), name.toUpperCase()]),
      existing && r.chance(0.5) ? existing[1] : r.pick(['application/json', 'x', '', 'close']),
    ])
    flag(req, `header:duplicate`, { protocol: true })
  },
  fold: (r, req) => {
    if (req.headers.length === 0) return
    const i = r.int(0, req.headers.length - 1)
    const h = req.headers[i]
    if (typeof h !== 'string')
      req.headers[i] = `${h[0]}: ${h[1].slice(0, 3)}\r\n${r.pick([' ', '\t', '  '])}${h[1].slice(3)}`
    flag(req, 'header:fold', { protocol: true })
  },
  colonSpace: (r, req) => {
    if (req.headers.length === 0) return
    const i = r.int(0, req.headers.length - 1)
    const h = req.headers[i]
    if (typeof h !== 'string')
      req.headers[i] =
        `${r.pick(['', ' ', '\t'])}${h[0]}${r.pick([' ', '\t', '  '])}:${r.pick(['', '  ', '\t'])}${h[1]}${r.pick(['', ' ', '\t', '  '])}`
    flag(req, 'header:colonSpace', { protocol: true })
  },
  oddByte: (r, req) => {
    if (req.headers.length === 0) return
    const i = r.int(0, req.headers.length - 1)
    const h = req.headers[i]
    if (typeof h !== 'string') {
      const inName = r.chance(0.3)
      const b = r.pick(ODD_BYTES)
      req.headers[i] = inName ? [insert(h[0], pos(r, h[0]), b), h[1]] : [h[0], insert(h[1], pos(r, h[1]), b)]
      flag(req, `header:oddByte`, { protocol: true, ambiguous: b === '\r' || b === '\n' })
    }
  },
  huge: (r, req) => {
    const n = r.pick([1000, 8000, 16000, 16300, 17000, 40000])
    req.headers.push([
      r.pick(['X-Big', 'Cookie', 'Referer']),
      r.pick(['a', '%', ' a', '\xc3\xa9']).repeat(n).slice(0, n),
    ])
    flag(req, 'header:huge', { protocol: n >= 16000 })
  },
  many: (r, req) => {
    const n = r.pick([50, 200, 1999, 2001, 3000])
    for (let i = 0; i < n; i++) req.headers.push(r.chance(0.5) ? [`X-H${i}`, 'v'] : ['X-Same', String(i)])
    if (r.chance(0.3)) req.headers.push(['Host', 'second'])
    flag(req, 'header:many', { protocol: true })
  },
  empties: (r, req) => {
    req.headers.splice(
      r.int(0, req.headers.length),
      0,
      r.pick([
        ': x',
        'NoColon',
        ':',
        'X-Empty:',
        'X-Empty: ',
        ' : ',
        'X:\x00',
        '\x00: x',
        'X Y: z',
        'X\xff: y',
      ]),
    )
    flag(req, 'header:empties', { protocol: true })
  },
  contentType: (r, req) => {
    const v = r.pick([
      'application/json; charset=latin1',
      'text/plain',
      'application/JSON',
      'APPLICATION/JSON; CHARSET=UTF-8',
      'application/json;;',
      'application/json; charset="utf-8"',
      'application/json; charset=utf8',
      'application/json; charset=UTF-16',
      'application/json ; charset=utf-8',
      'application/problem+json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      '',
      'application/json; charset',
      'application/json, text/plain',
      'json',
      '*/*',
      'application/json; charset=utf-8; charset=latin1',
      'application/json\x00',
    ])
    if (r.chance(0.15)) removeHeader(req, 'Content-Type')
    else setHeader(req, 'Content-Type', v)
    flag(req, 'header:contentType', { protocol: v.includes('\x00') })
  },
  encoding: (r, req) => {
    setHeader(
      req,
      'Content-Encoding',
      r.pick(['gzip', 'identity', 'br', 'identity, gzip', 'IDENTITY', '', 'x']),
    )
    flag(req, 'header:encoding')
  },
  expect: (r, req) => {
    setHeader(
      req,
      'Expect',
      r.pick(['100-continue', '100-continue', '100-Continue', 'foo', '100-continue, foo', '']),
    )
    req.expect = true
    flag(req, 'header:expect')
  },
  connection: (r, req) => {
    const v = r.pick([
      'close',
      'keep-alive',
      'upgrade',
      'Upgrade',
      'close, keep-alive',
      'TE',
      'keep-alive, upgrade',
      'x',
      '',
      'Keep-Alive',
    ])
    setHeader(req, 'Connection', v)
    if (/upgrade/i.test(v)) req.headers.push(['Upgrade', r.pick(['websocket', 'h2c', 'HTTP/2.0', 'x'])])
    if (r.chance(0.2)) req.headers.push(['HTTP2-Settings', 'AAMAAABkAARAAAAAAAIAAAAA'])
    flag(req, 'header:connection')
  },
  requestId: (r, req) => {
    setHeader(
      req,
      'X-Request-Id',
      r.pick([
        '',
        ' ',
        'x'.repeat(128),
        'x'.repeat(129),
        'a b',
        'é',
        '\xc3\xa9',
        '<script>',
        '"q"',
        'a\tb',
        '${jndi:x}',
        'fz\x7f',
      ]),
    )
    flag(req, 'header:requestId')
  },
  idempotency: (r, req, env) => {
    setHeader(
      req,
      'Idempotency-Key',
      r.pick([
        '',
        ' ',
        `${env.seed} `,
        ` ${env.seed}`,
        `${env.seed}`.padEnd(255, 'k'),
        'k'.repeat(256),
        '\xc3\xa9',
        'a\tb',
        `"${env.seed}"`,
        `fz-${env.seed}-${req.kind}`,
        `fz-${env.seed}-same`,
      ]),
    )
    flag(req, 'header:idempotency')
  },
  forwarded: (r, req) => {
    req.headers.push([
      r.pick(['X-Forwarded-For', 'Forwarded', 'X-Real-IP']),
      r.pick(['1.2.3.4', 'x', '::1, 1.2.3.4', '1.2.3.4, '.repeat(200), '999.1.1.1', 'for=1.2.3.4', '']),
    ])
    flag(req, 'header:forwarded')
  },
  traceparent: (r, req) => {
    req.headers.push([
      r.pick(['traceparent', 'tracestate', 'baggage']),
      r.pick([
        '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        '00-00000000000000000000000000000000-0000000000000000-01',
        'ff-x',
        '',
        'x'.repeat(600),
        'a=b,'.repeat(100),
      ]),
    ])
    flag(req, 'header:traceparent')
  },
  misc: (r, req) => {
    req.headers.push(
      r.pick([
        ['Range', 'bytes=0-1'],
        ['If-None-Match', '*'],
        ['If-Modified-Since', 'x'],
        ['Accept', 'text/html'],
        ['Accept-Encoding', 'gzip'],
        ['TE', 'trailers'],
        ['Max-Forwards', '0'],
        ['Cookie', 'a=b'],
        ['Origin', 'http://evil'],
        ['Proxy-Authorization', 'Basic eA=='],
        ['Keep-Alive', 'timeout=1000'],
        ['Trailer', 'X-T'],
        ['Via', '1.1 x'],
        ['Pragma', 'no-cache'],
        ['Access-Control-Request-Method', 'POST'],
      ]),
    )
    flag(req, 'header:misc')
  },
  nameCase: (r, req) => {
    req.headers = req.headers.map((h) =>
      typeof h === 'string' ? h : [r.pick([h[0].toLowerCase(), h[0].toUpperCase(), h[0]]), h[1]],
    )
    flag(req, 'header:nameCase')
  },
}

const auth = {
  none: (r, req) => {
    removeHeader(req, 'Authorization')
    req.keyState = 'none'
  },
  invalid: (r, req) => {
    setHeader(req, 'Authorization', `Bearer fzkbad${r.hex(r.pick([8, 32, 40]))}`)
    req.keyState = 'invalid'
  },
  odd: (r, req) => {
    const k = req.key
    // Forms the contract accepts (the scheme in any case, spaces before the key; white space around a field
    // value is no part of it), and forms it refuses.
    if (r.chance(0.35)) {
      setHeader(
        req,
        'Authorization',
        r.pick([
          `bearer ${k}`,
          `BEARER ${k}`,
          `Bearer  ${k}`,
          `Bearer ${k} `,
          ` Bearer ${k}`,
          `bEaReR   ${k}`,
        ]),
      )
      req.keyState = 'valid'
      return
    }
    setHeader(
      req,
      'Authorization',
      r.pick([
        `Bearer\t${k}`,
        'Bearer',
        'Bearer ',
        `Basic ${Buffer.from(`fzk:${k}`).toString('base64')}`,
        `Token ${k}`,
        `Bearer ${k}x`,
        `Bearer ${k.slice(0, -1)}`,
        `Bearer "${k}"`,
        `Bearer fzk${'k'.repeat(r.size(16000))}`,
        `Bearer fzk\xc3\xa9`,
        `Bearer ${k},Bearer ${k}`,
        `${k}`,
        `Bearer fzk\x00`,
        `Bearer fzk%20`,
        `Bearer ${k.toUpperCase()}`,
      ]),
    )
    req.keyState = 'odd'
    if ((req.headers.find((h) => h[0] === 'Authorization')?.[1] ?? '').includes('\x00')) req.protocol = true
  },
  twice: (r, req) => {
    req.headers.push(['Authorization', r.pick([`Bearer ${req.key}`, 'Bearer fzkbad00'])])
    req.keyState = 'odd'
  },
}

export const MUTATIONS = { line, headers, auth }

/** One to three mutations of the line and headers (framing and bodies: framing.mjs, bodies.mjs). */
export const mutateHead = (r, req, env) => {
  const n = r.weighted([
    [1, 6],
    [2, 3],
    [3, 1],
  ])
  for (let i = 0; i < n; i++) {
    const group = r.weighted([
      [line, 4],
      [headers, 6],
    ])
    r.pick(Object.values(group))(r, req, env)
  }
}

export const mutateAuth = (r, req, env) => {
  const op = r.weighted([
    ['none', 4],
    ['invalid', 4],
    ['odd', 3],
    ['twice', 1],
  ])
  auth[op](r, req, env)
  req.tags.push(`auth:${op}`)
}
