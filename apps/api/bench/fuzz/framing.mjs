// Mutations of how a body is framed: Content-Length forms and conflicts, Transfer-Encoding forms, chunk sizes,
// extensions, trailers and terminators, bodies where none is expected. Sets the flags of mutations.mjs.

const flag = (req, tag, { protocol = true, ambiguous = false, truncated = false } = {}) => {
  req.tags.push(tag)
  if (protocol) req.protocol = true
  if (ambiguous) req.ambiguous = true
  if (truncated) req.truncated = true
}

const splitSizes = (r, n) => {
  const sizes = []
  let left = n
  while (left > 0) {
    const s = Math.min(
      left,
      r.weighted([
        [1, 2],
        [r.int(1, 16), 3],
        [r.int(1, 4096), 2],
        [left, 2],
      ]),
    )
    sizes.push(s)
    left -= s
  }
  return sizes
}

export const FRAMINGS = {
  // Chunked, well formed but for odd yet valid forms.
  chunked: (r, req) => {
    req.framing = 'chunked'
    req.chunks = { sizes: splitSizes(r, req.body.length) }
    if (r.chance(0.3))
      req.chunks.sizeText = (n) =>
        r.pick([n.toString(16).toUpperCase(), `000${n.toString(16)}`, n.toString(16)])
    // White space around an extension is BWS in RFC 9112, which llhttp refuses: such a request is refused.
    if (r.chance(0.3)) {
      const ext = r.pick([
        ';a',
        ';a=b',
        ';a="q\\"x"',
        ' ;a=b',
        `;${'e'.repeat(r.size(20000))}`,
        ';a=b;c=d',
        ';a=b ',
        '; a = b',
      ])
      req.chunks.ext = () => ext
      if (/\s/.test(ext)) req.protocol = true
    }
    if (r.chance(0.3)) {
      req.chunks.trailers = r.pick([
        'X-T: 1\r\n',
        'Content-Length: 5\r\n',
        'Authorization: Bearer fzkbadtrailer\r\n',
        `X-Big: ${'t'.repeat(r.size(20000))}\r\n`,
        'X-T: 1\r\nX-T: 2\r\n',
        'Host: x\r\n',
      ])
      // llhttp refuses a Content-Length among trailers, and trailers past its 16 KiB.
      if (/^Content-Length|^X-Big/.test(req.chunks.trailers)) req.protocol = true
    }
    if (r.chance(0.1)) req.chunks.last = r.pick(['00', '000000', '0;x=y'])
    flag(req, 'framing:chunked', { protocol: false })
  },
  // Chunked coding that is not valid.
  badChunked: (r, req) => {
    req.framing = 'chunked'
    req.chunks = { sizes: splitSizes(r, req.body.length) }
    const op = r.int(0, 9)
    if (op === 0)
      req.chunks.sizeText = (n) =>
        r.pick([
          `0x${n.toString(16)}`,
          `-${n}`,
          ` ${n.toString(16)}`,
          `${n.toString(16)} `,
          'ffffffffffffffffff',
          '',
          'g',
          `${n.toString(16)}\t`,
          '+1',
        ])
    else if (op === 1) req.chunks.sizeText = (n) => (n + r.int(1, 5)).toString(16)
    else if (op === 2) req.chunks.sizeText = (n) => Math.max(0, n - r.int(1, 3)).toString(16)
    else if (op === 3)
      req.chunks.ext = () => r.pick([';', ';=b', ';a=', ';a="unterminated', ';a\x00', ';a=b\x7f', '\x00'])
    else if (op === 4) req.chunks.dataEnd = r.pick(['\n', '', '\r', 'xx\r\n'])
    else if (op === 5) req.chunks.noLast = true
    else if (op === 6) req.chunks.end = r.pick(['', '\n', 'X\r\n'])
    else if (op === 7)
      req.chunks.trailers = r.pick(['NoColon\r\n', ' X: folded\r\n', 'X\x00: 1\r\n', ': x\r\n'])
    else if (op === 8) req.chunks.last = r.pick(['0x0', '-0', ' 0', 'x'])
    else req.chunks.sizeText = () => '1'.padStart(r.pick([17, 40, 200]), '0')
    // Which of these node refuses, and where it then thinks the next request begins, is for the run to see.
    flag(req, `framing:badChunked${op}`, { ambiguous: true, truncated: op === 1 || op === 5 || op === 6 })
  },
  teForms: (r, req) => {
    req.framing = 'chunked'
    req.headers.push([
      'Transfer-Encoding',
      r.pick([
        'Chunked',
        ' chunked',
        'chunked, chunked',
        'gzip, chunked',
        'chunked, gzip',
        'identity',
        'x',
        'chunked;q=1',
        'CHUNKED',
        'chunked\t',
        'identity, chunked',
        '\xc3\xa9chunked',
      ]),
    ])
    if (r.chance(0.3)) req.headers.push(['Transfer-Encoding', r.pick(['chunked', 'gzip'])])
    flag(req, 'framing:teForms', { ambiguous: true })
  },
  teAndLength: (r, req) => {
    req.framing = 'chunked'
    req.headers.push(['Content-Length', String(r.pick([req.body.length, 0, 5, req.body.length + 10]))])
    flag(req, 'framing:teAndLength', { ambiguous: true })
  },
  lengthForms: (r, req) => {
    const n = req.body.length
    req.headers.push([
      'Content-Length',
      r.pick([
        `+${n}`,
        ` ${n}`,
        `0${n}`,
        `${n}, ${n}`,
        `${n},${n + 1}`,
        '-1',
        `0x${n.toString(16)}`,
        '1e2',
        '99999999999999999999',
        '',
        `${n} `,
        `${n}.0`,
        `${n}\x00`,
      ]),
    ])
    if (r.chance(0.2)) req.headers.push(['Content-Length', String(n)])
    flag(req, 'framing:lengthForms', { ambiguous: true })
  },
  twoLengths: (r, req) => {
    const n = req.body.length
    req.headers.push(['Content-Length', String(n)], ['Content-Length', String(r.pick([n, n + 1, 0]))])
    flag(req, 'framing:twoLengths', { ambiguous: true })
  },
  shortLength: (r, req) => {
    req.headers.push(['Content-Length', String(Math.max(0, req.body.length - r.int(1, 10)))])
    flag(req, 'framing:shortLength', { ambiguous: true, protocol: false })
  },
  longLength: (r, req) => {
    req.headers.push(['Content-Length', String(req.body.length + r.pick([1, 10, 100000, 2 ** 31]))])
    flag(req, 'framing:longLength', { truncated: true, ambiguous: true, protocol: false })
  },
  noLength: (r, req) => {
    req.framing = 'none'
    flag(req, 'framing:noLength', { ambiguous: req.body.length > 0, protocol: false })
  },
  bodyOnGet: (r, req) => {
    if (req.body === '') req.body = r.pick(['{}', 'x', '{"name":"Rex","categoryId":1}', ' '.repeat(70000)])
    if (req.framing === 'none') req.framing = r.pick(['length', 'chunked'])
    flag(req, 'framing:bodyOnGet', { protocol: false })
  },
}

export const mutateFraming = (r, req) => {
  const op = r.weighted([
    ['chunked', 8],
    ['badChunked', 4],
    ['teForms', 2],
    ['teAndLength', 1],
    ['lengthForms', 2],
    ['twoLengths', 1],
    ['shortLength', 1],
    ['longLength', 0.7],
    ['noLength', 1],
    ['bodyOnGet', req.method === 'POST' ? 0 : 3],
  ])
  FRAMINGS[op](r, req)
}
