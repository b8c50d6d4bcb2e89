// JSON bodies for POST /v1/pets: a valid NewPet, then mutated (types, fields, numbers, names, nesting, encodings).
// Bodies are binary strings (one character per byte), so that invalid UTF-8 can be written as it is.
import { Buffer } from 'node:buffer'

export const utf8 = (s) => Buffer.from(s, 'utf8').toString('latin1')

const NAMES = ['Rex', 'Tom', 'Bella', 'Ñandú', '猫', '🐕 Dog', 'a b', "O'Hara", 'x'.repeat(40)]
const STATUSES = ['available', 'pending', 'sold']

export const validNewPet = (r) => {
  const pet = {
    name: r.pick(NAMES),
    categoryId: r.weighted([
      [1, 4],
      [r.int(2, 99), 3],
      [r.int(1, 2 ** 53 - 1), 1],
    ]),
  }
  if (r.chance(0.6)) pet.status = r.pick(STATUSES)
  return pet
}

const NUMBER_TEXTS = [
  '0',
  '-1',
  '1.0',
  '1e2',
  '1E+2',
  '1.5e1',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '1e400',
  '-0',
  '0.5',
  '00',
  '01',
  '"1"',
  '0.99999999999999999',
  '9007199254740990.5',
  '1e-400',
  '-9007199254740991',
  '1.',
  '.5',
  '+1',
  '0x10',
  'NaN',
  'Infinity',
  '-Infinity',
  '1_000',
  '\xd9\xa1',
  '3.0',
  '100e-2',
  '2e0',
]
const longDigits = (r) => r.pick(['1', '0', '9']) + r.pick(['0', '9', '5']).repeat(r.size(70000))
const NAME_TEXTS = [
  '""',
  '" "',
  '"\\t\\n"',
  '"\\u0000"',
  '"a\\u0000b"',
  '"\\ud800"',
  '"\\udc00x"',
  '"\\ud83d\\ude00"',
  '"\\uFFFD"',
  '"\\/"',
  '"\\x41"',
  '"\\u12"',
  '"\\uZZZZ"',
  '"\\"',
  '"\\\\"',
  '"\u202eevil"',
  '"e\u0301"',
  'null',
  'true',
  '1',
  '[]',
  '{}',
  '["Rex"]',
  '{"first":"Rex"}',
  '"\\u00e9"',
  '"\uFEFF"',
].map(utf8)
const RAW_BYTES = [
  '\xff',
  '\xc0\xaf',
  '\xe2\x82',
  '\xed\xa0\x80',
  '\xf4\x90\x80\x80',
  '\x80',
  '\xfe\xff',
  '\x00',
  '\x1b[31m',
  '\x7f',
]

const nameText = (r) =>
  r.weighted([
    [() => r.pick(NAME_TEXTS), 5],
    [() => JSON.stringify('x'.repeat(r.pick([254, 255, 256, 257]))), 2],
    [() => JSON.stringify('😀'.repeat(r.pick([127, 128, 254, 255, 256]))), 2],
    [() => `"${r.pick(['Rex', ''])}${r.pick(RAW_BYTES)}${r.pick(['', 'x'])}"`, 3],
    [() => JSON.stringify(r.bytes(r.int(1, 40), 1, 0x7e)), 2],
    [() => JSON.stringify('n'.repeat(r.size(70000))), 1],
    [() => `"${'\\\\'.repeat(r.size(20000))}"`, 1],
    [
      () =>
        utf8(
          JSON.stringify(
            String.fromCodePoint(
              ...Array.from({ length: r.int(1, 30) }, () => r.int(0x80, 0x10ffff)).map((c) =>
                c >= 0xd800 && c < 0xe000 ? 0x41 : c,
              ),
            ),
          ),
        ),
      2,
    ],
  ])()

const nested = (depth, open, close, inner) => open.repeat(depth) + inner + close.repeat(depth)

/** Text of a member's value, mutated. */
const valueText = (r, field) =>
  r.weighted([
    [() => (field === 'categoryId' ? r.pick(NUMBER_TEXTS) : nameText(r)), 6],
    [() => (field === 'categoryId' ? longDigits(r) : r.pick(NUMBER_TEXTS)), 1],
    [
      () =>
        r.pick([
          'null',
          'true',
          'false',
          '[]',
          '{}',
          '"available"',
          '"sold "',
          '"AVAILABLE"',
          '""',
          '[1]',
          '{"a":1}',
        ]),
      3,
    ],
    [() => nested(r.pick([30, 31, 32, 33, 200]), '[', ']', '1'), 1],
    [() => nested(r.pick([31, 32, 33]), '{"a":', '}', '1'), 1],
  ])()

const member = (name, text) => `${JSON.stringify(name)}:${text}`

/** A NewPet body as JSON text with zero or more mutations; tags name what was done. */
export const petBody = (r, tags) => {
  const pet = validNewPet(r)
  let members = Object.entries(pet).map(([k, v]) =>
    member(k, typeof v === 'string' ? utf8(JSON.stringify(v)) : String(v)),
  )
  const ops = r.chance(0.45) ? 0 : r.int(1, 3)
  let wrap = (s) => s
  for (let i = 0; i < ops; i++) {
    const op = r.weighted([
      ['value', 10],
      ['drop', 3],
      ['unknown', 3],
      ['twice', 2],
      ['proto', 2],
      ['many', 1],
      ['deep', 1],
      ['top', 3],
      ['text', 4],
      ['bom', 2],
      ['size', 1],
      ['flip', 3],
      ['space', 1],
      ['order', 1],
    ])
    tags.push(`body:${op}`)
    if (op === 'value') {
      const field = r.pick(['name', 'categoryId', 'status'])
      const at = members.findIndex((m) => m.startsWith(`"${field}"`))
      const text =
        field === 'status'
          ? r.pick(['"Available"', '"sold "', '""', 'null', '1', '"pending"', '"x"', '"\\u0073old"'])
          : valueText(r, field)
      if (at >= 0) members[at] = member(field, text)
      else members.push(member(field, text))
    } else if (op === 'drop') members.splice(r.int(0, Math.max(0, members.length - 1)), 1)
    else if (op === 'unknown')
      members.push(
        member(
          r.pick([
            'id',
            'extra',
            '',
            'Name',
            'category_id',
            'tags',
            'x'.repeat(r.size(5000)),
            'naïve',
            '\u0000',
          ]),
          r.pick(['1', '"a"', 'null', '{}']),
        ),
      )
    else if (op === 'twice') members.push(r.pick(members) ?? member('name', '"A"'))
    else if (op === 'proto') {
      const key = r.pick(['__proto__', 'constructor', 'prototype', '__pro\\u0074o__'])
      members.push(r.chance(0.5) ? `"${key}":{"isAdmin":true}` : member('name', `{"${key}":{}}`))
    } else if (op === 'many')
      for (let j = r.size(6000); j > 0; j--) members.push(member(r.chance(0.5) ? `k${j}` : String(j), '0'))
    else if (op === 'deep')
      members.push(
        member(
          'deep',
          nested(r.pick([30, 31, 32, 33, 1000, 20000]), r.pick(['[', '{"a":']), '', '1').replace(/$/, ''),
        ),
      )
    else if (op === 'top') {
      const text = r.pick([
        'null',
        '[]',
        '"str"',
        '1',
        'true',
        '[{"name":"Rex","categoryId":1}]',
        '',
        ' ',
        '{}',
        '{"name":"Rex","categoryId":1}{}',
        '{,}',
        '{"a"}',
        '{"a":}',
        "{'name':'Rex'}",
      ])
      wrap = () => text
    } else if (op === 'text') {
      const t = r.pick(['trailing-comma', 'comment', 'garbage', 'cut', 'nan', 'lead', 'multi'])
      const prev = wrap
      wrap = (s) => {
        s = prev(s)
        if (t === 'trailing-comma') return s.replace(/}$/, ',}')
        if (t === 'comment') return `/* c */${s}`
        if (t === 'garbage') return s + r.pick(['x', '\x00', ']', '}', '\xff', ' 1'])
        if (t === 'cut') return s.slice(0, r.int(0, Math.max(0, s.length - 1)))
        if (t === 'nan') return s.replace(/:\s*[0-9]+/, ':NaN')
        if (t === 'lead') return r.pick(['\x00', ")]}'\n", '\t\r\n ']) + s
        return `${s}\n${s}`
      }
    } else if (op === 'bom') {
      const prev = wrap
      const bom = r.pick(['\xef\xbb\xbf', '\xfe\xff', '\xff\xfe', '\xef\xbb\xbf\xef\xbb\xbf'])
      wrap = (s) => bom + prev(s)
    } else if (op === 'size') {
      const target = r.pick([65535, 65536, 65537, 70000, 1 << 20])
      const prev = wrap
      wrap = (s) => {
        s = prev(s)
        return s.length < target ? s.replace(/}$/, ' '.repeat(target - s.length) + '}') : s
      }
    } else if (op === 'flip') {
      const prev = wrap
      const n = r.int(1, 3)
      wrap = (s) => {
        s = prev(s)
        for (let j = 0; j < n && s.length; j++) {
          const at = r.int(0, s.length - 1)
          s = s.slice(0, at) + String.fromCharCode(r.int(0, 255)) + s.slice(at + 1)
        }
        return s
      }
    } else if (op === 'space') {
      const prev = wrap
      const ws = r.pick([' ', '\t', '\n', '\r', '\u00a0', '\xc2\xa0', '\x0b', '\x0c'])
      wrap = (s) => prev(s).replace(/[:,]/g, (c) => c + ws.repeat(r.int(1, 3)))
    } else if (op === 'order') members.reverse()
  }
  return wrap(`{${members.join(',')}}`)
}
