import { decodeNewPet } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { Context } from 'koa'
import { createHash } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { expect } from 'vitest'
import { bearerKey } from '../src/authenticate.js'
import { admitUrlLength } from '../src/bound-url.js'
import { addressBucketOf, clientAddressFinder } from '../src/client-address.js'
import { decodeListPetsQuery, decodePetId } from '../src/codecs.js'
import { asksToUpgrade, isHostValue, sentMoreThanOnce } from '../src/header-lines.js'
import { idempotencyKeyOf } from '../src/idempotency-key-header.js'
import { MAX_JSON_DEPTH, outlineJson } from '../src/body/json-depth.js'
import { memberIsSafeInteger } from '../src/body/integer-text.js'
import { parseQuery } from '../src/parse-query.js'
import { readRefusedHead, requestLineVersion } from '../src/connection/refused-head.js'
import { MAX_BODY_BYTES } from '../src/body/read-json-body.js'
import { requestFingerprint } from '../src/request-fingerprint.js'
import { requestIdOf } from '../src/request-id.js'
import { targetOf } from '../src/request-target.js'
import { compileRoutes } from '../src/routes/dispatch.js'
import { ROUTES } from '../src/routes/route-table.js'
import { describeLinearTime, type Hostile, jsonBody, parsed, stringCases } from './support/linear-time.js'

// The exact value of a JSON number, with BigInts: the oracle of memberIsSafeInteger.
const denotesSafeInteger = (token: string): boolean => {
  const [, , whole = '', fraction = '', exponent = '0'] = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(
    token,
  )!
  const digits = BigInt(whole + fraction)
  const power = BigInt(exponent) - BigInt(fraction.length)
  const max = BigInt(Number.MAX_SAFE_INTEGER)
  if (power >= 0n) return digits * 10n ** power <= max
  const divisor = 10n ** -power
  return digits % divisor === 0n && digits / divisor <= max
}

const categoryIdIs = (token: string) => `{"name":"x","categoryId":${token}}`
const JSON_TEXTS: ReadonlyArray<readonly [string, string, (run: string) => string]> = [
  ["zeros in a number's fraction, then a digit (issue 25)", '0', (run) => categoryIdIs(`1.${run}1`)],
  ["zeros ending a number's fraction", '0', (run) => categoryIdIs(`-7.${run}`)],
  ["zeros starting a number's fraction", '0', (run) => categoryIdIs(`0.${run}5e3`)],
  ["digits of a number's whole part", '7', (run) => categoryIdIs(`7${run}`)],
  ["digits of a number's whole part, then a fraction", '3', (run) => categoryIdIs(`3${run}.0`)],
  ["zeros in a number's exponent", '0', (run) => categoryIdIs(`5e-${run}1`)],
  ['zeros leading a positive exponent', '0', (run) => categoryIdIs(`5e+${run}2`)],
  ['zeros leading an exponent that cancels a fraction', '0', (run) => categoryIdIs(`2.5e${run}1`)],
  ['white space between tokens', ' ', (run) => `{"name":"x",${run}"categoryId":1.0}`],
  ['white space after a number', ' ', (run) => `{"categoryId":1.5${run},"x":2}`],
  ['numbers, minus signs, points and e in a string', '-1.5e-0', (run) => `{"name":"${run}","categoryId":1}`],
  ['escaped backslashes in a string', '\\\\', (run) => `{"name":"${run}","categoryId":2.5}`],
  ['escaped quotes in a string', '\\"', (run) => `{"name":"${run}","categoryId":2}`],
  ['backslashes before escaped quotes in a string', '\\\\\\"', (run) => `{"name":"${run}","categoryId":2}`],
  ['numbers in an array', '1.0,', (run) => `{"x":[${run}2e0],"categoryId":1}`],
  ['numbers with fractions in an array', '0.5,', (run) => `{"x":[${run}0],"categoryId":0.5}`],
  ['nested objects with the same member', '{"categoryId":0.5},', (run) => `{"x":[${run}{}],"categoryId":1}`],
  ['members whose keys have escapes', '"k\\u0041":1,', (run) => `{${run}"categoryId":2}`],
  ['the member again and again', '"categoryId":0.5,', (run) => `{${run}"categoryId":3}`],
]
// The oracle of a body's categoryId: JSON.parse says whether it is a number, its last token in the text
// (the top-level one, in these texts) what number exactly.
const categoryIdIsSafe = (text: string) => {
  if (typeof (JSON.parse(text) as Record<string, unknown>)['categoryId'] !== 'number') return undefined
  const tokens = [...text.matchAll(/"categoryId":(-?[0-9][0-9.eE+-]*)/g)]
  return denotesSafeInteger(tokens.at(-1)![1]!)
}

const numbers: ReadonlyArray<Hostile> = JSON_TEXTS.map(([where, unit, text]) => ({
  where,
  unit,
  call: (run) => {
    const body = text(run)
    return () => memberIsSafeInteger(body, 'categoryId')
  },
  answer: (run) => categoryIdIsSafe(text(run)),
}))

const notJson = E.left({ _tag: 'MalformedRequest', reason: 'The request body is not valid JSON.' })
const notUtf8 = E.left({ _tag: 'UnsupportedMediaType', reason: 'The request body must be encoded as UTF-8.' })
const A_PET = '{"name":"x","categoryId":1}'
// Two of the texts above repeat a member, which readJsonBody refuses:
// repeated-member.linear-time.property.test.ts sends those.
const REPEAT_A_MEMBER = ['members whose keys have escapes', 'the member again and again']
const bodies: ReadonlyArray<Hostile> = [
  ...JSON_TEXTS.filter(([where]) => !REPEAT_A_MEMBER.includes(where)).map(([where, unit, text]) => ({
    where,
    unit,
    call: (run: string) => jsonBody('application/json', text(run)),
    answer: (run: string) => parsed(text(run)),
  })),
  ...[' ', '0', '\\', '"'].map((unit) => ({
    where: 'a body that is no JSON',
    unit,
    call: (run: string) => jsonBody('application/json', `{"categoryId":1.${run}`),
    answer: () => notJson,
  })),
  {
    where: 'white space between Content-Type parameters',
    unit: ' ',
    call: (run) => jsonBody(`application/json;${run}charset=utf-8;${run}`, A_PET),
    answer: () => parsed(A_PET),
  },
  ...['"', '-', '0', '\\', 'e', '.'].map((unit) => ({
    where: 'a Content-Type charset',
    unit,
    call: (run: string) => jsonBody(`application/json; charset="${run}"`, A_PET),
    answer: () => notUtf8,
  })),
]

// The query of a listing: parsed as Koa would (URLSearchParams), and decoded or refused.
const koaQuery = (querystring: string) => {
  const searchParams = new URLSearchParams(querystring)
  const query: Record<string, string | Array<string>> = {}
  for (const key of searchParams.keys()) {
    const values = searchParams.getAll(key)
    query[key] = values.length <= 1 ? values[0]! : values
  }
  return query
}
const listingQuery = (querystring: string) => {
  const query = parseQuery(querystring)
  return { query: { ...query }, decoded: E.isRight(decodeListPetsQuery(query)) }
}
const QUERIES: ReadonlyArray<readonly [string, string, (run: string) => string]> = [
  ['a decimal value', '0', (run) => `limit=${run}101`],
  ['a decimal value', '9', (run) => `limit=${run}99`],
  ['a query value', '-', (run) => `after=${run}1`],
  ['a query value', '.', (run) => `limit=1${run}`],
  ['a query value', 'e', (run) => `status=${run}`],
  ['a query value', '\\', (run) => `status=sold${run}`],
  ['a query value', '"', (run) => `limit=${run}`],
  ['a query value', ' ', (run) => `limit=5${run}`],
  ['a query value, encoded', '+', (run) => `limit=5${run}`],
  ['a query value, encoded', '%30', (run) => `limit=${run}`],
  ['a query value, badly encoded', '%', (run) => `after=${run}`],
  ['empty pairs around a query', '&', (run) => `${run}limit=5${run}`],
  ['a query without names', '=', (run) => `${run}&limit=5`],
]
const queries: ReadonlyArray<Hostile> = QUERIES.map(([where, unit, querystring]) => ({
  where,
  unit,
  call: (run) => {
    const text = querystring(run)
    return () => listingQuery(text)
  },
  answer: (run) => {
    const query = koaQuery(querystring(run))
    const keys = Object.keys(query)
    const single = keys.length === 1 && keys[0] === 'limit' && typeof query['limit'] === 'string'
    // Only `limit=5` among these decodes: every other value is no decimal of at most 20 digits.
    return { query, decoded: single && query['limit'] === '5' }
  },
}))

const ANY_UNIT = ['0', ' ', '7', '-', '.', 'e', '\\', '"']
// The key as the Bearer scheme gives it: past `Bearer` and its spaces, unless nothing is left.
const keyAfterScheme = (header: string) => {
  if (header.slice(0, 7).toLowerCase() !== 'bearer ') return undefined
  const key = header.slice(7).replace(/^ */, '')
  return key === '' ? undefined : key
}
const authorization = [
  ...stringCases('spaces after the scheme', [' '], (run) => `Bearer ${run}key`, bearerKey, keyAfterScheme),
  ...stringCases('a key', ANY_UNIT, (run) => `Bearer ${run}`, bearerKey, keyAfterScheme),
  ...stringCases('before the scheme', [' ', 'Bearer '], (run) => `${run}Bearer k`, bearerKey, keyAfterScheme),
  ...stringCases(
    'another scheme',
    ['0', ' '],
    (run) => `Basic ${run}`,
    bearerKey,
    () => undefined,
  ),
]

const idempotencyKey = (value: string) =>
  idempotencyKeyOf({ req: { headers: { 'idempotency-key': value } } } as unknown as Context)
const idempotencyKeys = stringCases(
  'an Idempotency-Key',
  ANY_UNIT,
  (run) => `k${run}k`,
  idempotencyKey,
  (key) =>
    key.length <= 255
      ? E.right(O.some(key))
      : E.left({
          field: 'Idempotency-Key',
          problem: `must be at most 255 characters long (it has ${key.length})`,
        }),
)

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const requestIds = stringCases(
  'an X-Request-Id',
  ANY_UNIT,
  (run) => `r${run}`,
  requestIdOf,
  (id) => (id.length <= 128 && !id.includes(' ') ? id : expect.stringMatching(UUID)),
)

const admitted = (url: string) => {
  const ctx = { originalUrl: url, status: 404, set: () => undefined } as unknown as Context
  return { admitted: admitUrlLength(ctx), status: ctx.status }
}
// The oracle of a Host value: RFC 3986's uri-host and port, as a regex over test inputs.
const HOST_VALUE =
  /^(\[[0-9A-Za-z\-._~!$&'()*+,;=:]+\]|(?:[0-9A-Za-z\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*)(:[0-9]*)?$/
const hosts = stringCases(
  'a Host value',
  ['a', '%41', '[', ':', '1', '%'],
  (run) => `x${run}`,
  isHostValue,
  (value) => HOST_VALUE.test(value),
)

// A head's lines as node hands them over (rawHeaders), one name a line, and the headers it joins.
const headLines = (names: ReadonlyArray<string>) =>
  ({ rawHeaders: names.flatMap((name) => [name, 'v']) }) as unknown as IncomingMessage
const headerLines: ReadonlyArray<Hostile> = [
  // Names as long as `host`, which sentMoreThanOnce compares: then one Host line, or two.
  ...[['Hosx'], ['HOSX', 'x-a']].map((names) => ({
    where: 'header lines before a Host sent once, then twice',
    unit: `${names.join(',')},`,
    call: (run: string) => {
      const lines = run.split(',').filter((name) => name !== '')
      const once = headLines([...lines, 'Host'])
      const twice = headLines([...lines, 'Host', 'host'])
      return () => [sentMoreThanOnce(once, 'host'), sentMoreThanOnce(twice, 'host')]
    },
    answer: () => [false, true],
  })),
  ...stringCases(
    'a Connection header that may ask to upgrade',
    ['upgrad', 'U', ' ,'],
    (run) => `${run}upgrade`,
    (connection) => asksToUpgrade({ headers: { connection, upgrade: 'h2c' } } as unknown as IncomingMessage),
    () => true,
  ),
]

const urls = stringCases(
  'a request target',
  ['0', '%', '/'],
  (run) => `/v1/pets?limit=${run}`,
  admitted,
  (url) =>
    Buffer.byteLength(url) <= 4096 ? { admitted: true, status: 404 } : { admitted: false, status: 400 },
)

// The path and query a log line and a span show of a target: origin-form, absolute-form, authority-form.
const TARGETS: ReadonlyArray<readonly [string, (run: string) => string, (run: string) => object]> = [
  ['/', (run) => `http://host${run}?q#f`, (run) => ({ path: run, query: 'q' })],
  ['@', (run) => `${run}host:443`, () => ({ path: 'host:443', query: undefined })],
  ['?', (run) => `/p${run}`, (run) => ({ path: '/p', query: run.slice(1) })],
  ['#', (run) => `/p?q${run}`, () => ({ path: '/p', query: 'q' })],
  [':', (run) => `x${run}`, (run) => ({ path: `x${run}`, query: undefined })],
]
const targets = TARGETS.flatMap(([unit, input, answer]) =>
  stringCases("a request target's path and query", [unit], input, targetOf, (_, run) => answer(run)),
)

// The head of a request refused for its method, read without node's 16 KiB bound so that the long run is read.
const refusedHead = (text: string) => readRefusedHead(Buffer.from(text, 'latin1'), Number.POSITIVE_INFINITY)
const refusedHeads = [
  ...stringCases(
    "a refused head's target",
    ['a', '%', '/'],
    (run) => `FOO /${run} HTTP/1.1\r\nHost: x\r\n\r\n`,
    refusedHead,
    (text) => expect.objectContaining({ target: text.slice(4, text.indexOf(' HTTP/')) }),
  ),
  ...stringCases(
    "a refused head's header value",
    ['a', ' ', '\t', ':'],
    (run) => `FOO / HTTP/1.1\r\nX-A: v${run}v\r\n\r\n`,
    refusedHead,
    (text) => expect.objectContaining({ rawHeaders: ['X-A', text.slice(21, -4)] }),
  ),
  ...stringCases(
    "a refused head's lines",
    ['X-A: a\r\n', 'Cookie: c\r\n', 'Host: h\r\n'],
    (run) => `FOO / HTTP/1.1\r\n${run}\r\n`,
    refusedHead,
    (text) =>
      expect.objectContaining({
        rawHeaders: text
          .slice(16, -4)
          .split('\r\n')
          .flatMap((line) => line.split(': ')),
      }),
  ),
  ...stringCases(
    "a refused head's request line, for its version",
    [' ', 'a', '\r'],
    (run) => `FOO /${run} HTTP/2.0\r\nHost: x\r\n\r\n`,
    (text) => requestLineVersion(Buffer.from(text, 'latin1')),
    // The version when the line has three words and its end is within the 16 KiB a head may have.
    (text, run) => (run.startsWith(' ') || text.indexOf('\r\n') > 16 * 1024 - 2 ? undefined : 'HTTP/2.0'),
  ),
  ...stringCases(
    'a refused head without its end',
    [' ', 'F', '\r\n'],
    (run) => `FOO${run}`,
    refusedHead,
    () => undefined,
  ),
]

const match = compileRoutes('/v1', ROUTES, (operationId) => operationId)
const routed = (path: string) => {
  const found = match(path)
  const [param] = found?.params ?? []
  return {
    operation: found?.route.methods.get('GET')?.handle,
    petId: param === undefined ? undefined : E.isRight(decodePetId(param)),
  }
}
// A petId of digits, not all zeros, decodes, whatever zeros lead it (1 to 20 digits after them).
const petPath = (decoded: string) => ({
  operation: 'getPet',
  petId: /^[0-9]+$/.test(decoded) && /^0*[1-9][0-9]{0,19}$/.test(decoded),
})
const paths = [
  ...stringCases(
    'a petId',
    ['0', '-', '.', 'e', '"', '%'],
    (run) => `/v1/pets/${run}1`,
    routed,
    (path) => petPath(path.slice(9)),
  ),
  ...stringCases(
    'a petId, encoded',
    ['%30'],
    (run) => `/v1/pets/${run}7`,
    routed,
    (_path, run) => petPath(`${'0'.repeat(run.length / 3)}7`),
  ),
  ...stringCases(
    'slashes in a path',
    ['/'],
    (run) => `/v1${run}pets`,
    routed,
    (_path, run) =>
      run.length === 1
        ? { operation: 'listPets', petId: undefined }
        : { operation: undefined, petId: undefined },
  ),
]

const PEER = '10.0.0.1'
// Behind two proxies, trusted by number or by network: the address left of the second one's.
const clientBehind = (trusted: number | ReadonlyArray<string>) => {
  const clientAddressOf = clientAddressFinder(trusted)
  return (header: string) =>
    clientAddressOf({
      socket: { remoteAddress: PEER },
      headers: { 'x-forwarded-for': `${header}, 10.0.0.2` },
    } as unknown as IncomingMessage)
}
const clients = [2, ['10.0.0.0/8']].flatMap((trusted) => [
  ...stringCases(
    'X-Forwarded-For, between entries',
    [',', ' '],
    (run) => `203.0.113.9${run}`,
    clientBehind(trusted),
    () => '203.0.113.9',
  ),
  ...stringCases(
    'X-Forwarded-For, in an entry',
    ['0', ':', '.', '[', '%', '"'],
    (run) => `${run}x`,
    clientBehind(trusted),
    () => PEER,
  ),
])
clients.push(
  ...stringCases(
    'an IPv6 group',
    ['0'],
    (run) => `2001:db8:${run}1::`,
    addressBucketOf,
    () => '2001:db8:1:0::/64',
  ),
  ...stringCases(
    'an IPv6 zone',
    ANY_UNIT,
    (run) => `fe80::1%${run}`,
    addressBucketOf,
    () => 'fe80:0:0:0::/64',
  ),
)

const pets = [
  ...stringCases(
    'a name, decoded',
    [' ', '0', '\\', '"'],
    (run) => run,
    (name) => E.isRight(decodeNewPet({ name, categoryId: 1 })),
    (name) => name.trim() !== '' && name.length <= 255,
  ),
  ...stringCases(
    'a name, fingerprinted',
    ['\\', '"', ' '],
    (run) => `x${run}`,
    (name) => requestFingerprint({ name, categoryId: 1 }),
    (name) =>
      createHash('sha256')
        .update(JSON.stringify({ categoryId: 1, name }))
        .digest('hex'),
  ),
]

const tooDeep = E.left({
  _tag: 'MalformedRequest',
  reason: `The request body nests arrays or objects more than ${MAX_JSON_DEPTH} levels deep.`,
})
const deeperThanAllowed = (text: string) => outlineJson(text, MAX_JSON_DEPTH).tooDeep
const depths = [
  ...stringCases(
    'brackets, braces and escapes in a string',
    ['[', '{', '\\\\', '\\"', '[\\"{'],
    (run) => `{"a":"${run}"}`,
    deeperThanAllowed,
    () => false,
  ),
  ...stringCases(
    'backslashes before a quote',
    ['\\'],
    (run) => `[["${run}"]]`,
    deeperThanAllowed,
    () => false,
  ),
  ...stringCases(
    'quotes',
    ['"'],
    (run) => run,
    deeperThanAllowed,
    () => false,
  ),
  ...stringCases(
    'arrays and objects side by side',
    ['[],', '{},'],
    (run) => `[${run}1]`,
    deeperThanAllowed,
    () => false,
  ),
  ...stringCases(
    'arrays and objects inside one another',
    ['[', '{"a":'],
    (run) => run,
    deeperThanAllowed,
    (_, run) => run.length / (run.startsWith('[') ? 1 : 5) > MAX_JSON_DEPTH,
  ),
  {
    where: 'a body of arrays inside one another',
    unit: '[',
    call: (run: string) => jsonBody('application/json', `${run}${']'.repeat(run.length)}`),
    answer: (run: string) => {
      const text = `${run}${']'.repeat(run.length)}`
      return run.length > MAX_JSON_DEPTH && Buffer.byteLength(text) <= MAX_BODY_BYTES ? tooDeep : parsed(text)
    },
  },
]

const DECODERS: ReadonlyArray<readonly [string, ReadonlyArray<Hostile>]> = [
  ['memberIsSafeInteger (integer-text.ts)', numbers],
  ['readJsonBody (read-json-body.ts)', bodies],
  ['outlineJson (json-depth.ts) and readJsonBody', depths],
  ['parseQuery and decodeListPetsQuery (parse-query.ts, codecs.ts)', queries],
  ['bearerKey (authenticate.ts)', authorization],
  ['idempotencyKeyOf (idempotency-key-header.ts)', idempotencyKeys],
  ['requestIdOf (request-id.ts)', requestIds],
  ['admitUrlLength (bound-url.ts)', urls],
  ['targetOf (request-target.ts)', targets],
  ['isHostValue (header-lines.ts)', hosts],
  ['sentMoreThanOnce and asksToUpgrade (header-lines.ts)', headerLines],
  ['readRefusedHead and requestLineVersion (refused-head.ts)', refusedHeads],
  ['compileRoutes and decodePetId (dispatch.ts, codecs.ts)', paths],
  ['clientAddressFinder and addressBucketOf (client-address.ts)', clients],
  ['decodeNewPet and requestFingerprint (createPet)', pets],
]

describeLinearTime(DECODERS)
