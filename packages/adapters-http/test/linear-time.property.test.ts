import { decodeNewPet } from '@pets/domain'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { Context } from 'koa'
import { createHash } from 'node:crypto'
import { IncomingMessage } from 'node:http'
import { Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import { describe, expect, it } from 'vitest'
import { bearerKey } from '../src/authenticate.js'
import { admitUrlLength } from '../src/bound-url.js'
import { addressBucketOf, clientAddressFinder } from '../src/client-address.js'
import { decodeListPetsQuery, decodePetId } from '../src/codecs.js'
import { isHostValue } from '../src/header-lines.js'
import { idempotencyKeyOf } from '../src/idempotency-key-header.js'
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../src/json-depth.js'
import { memberIsSafeInteger } from '../src/integer-text.js'
import { parseQuery } from '../src/parse-query.js'
import { readRefusedHead } from '../src/refused-head.js'
import { MAX_BODY_BYTES, readJsonBody } from '../src/read-json-body.js'
import { requestFingerprint } from '../src/request-fingerprint.js'
import { requestIdOf } from '../src/request-id.js'
import { compileRoutes } from '../src/routes/dispatch.js'
import { ROUTES } from '../src/routes/route-table.js'

// A run of RUN characters is timed against one GROWTH times as long (32 KiB: a body with it stays
// within 64 KiB). Linear code takes about GROWTH times as long, quadratic code GROWTH² (64) times:
// the bound leaves linear code three times its due, for a busy CI machine, and still fails
// quadratic code by a factor of nearly three.
const RUN = 4_096
const GROWTH = 8
const MAX_GROWTH = 3 * GROWTH
const ROUNDS = 7
const CLEARLY_LINEAR = 1.5 * GROWTH
// Each timing repeats a call for at least this long, so that the timer's grain is no part of it.
const LEAST_TIMED_MS = 0.25
// A long run decoded within this is fast whatever its growth: on a busy machine a call of 1 ms
// measured 34 times its short run's once (CI), while a quadratic pass over 32 Ki characters (half a
// billion steps) takes hundreds of ms.
const FAST_ENOUGH_MS = 20

/** A long run of one unit in one place of what a client sends, and what the decoder must make of it. */
type Hostile = {
  readonly where: string
  readonly unit: string
  /** The decoder's call on the input holding `run`, made ready: only the call itself is timed. */
  readonly call: (run: string) => () => unknown
  /** The answer to the input holding `run` (a matcher, where the answer is fresh each time). */
  readonly answer: (run: string) => unknown
}

const SOCKET = new Socket()
// A request as node:http hands it over once its body has arrived.
const requestWith = (headers: Record<string, string>, body: Buffer): Context => {
  const req = new IncomingMessage(SOCKET)
  req.headers = { ...headers, 'content-length': String(body.length) }
  req.push(body)
  req.push(null)
  req.complete = true
  return { req, request: {}, set: () => undefined } as unknown as Context
}

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

const jsonBody = (contentType: string, text: string): (() => unknown) => {
  const bytes = Buffer.from(text)
  return () => readJsonBody(requestWith({ 'content-type': contentType }, bytes))
}
const parsed = (text: string) =>
  Buffer.byteLength(text) > MAX_BODY_BYTES
    ? E.left({ _tag: 'PayloadTooLarge', limit: MAX_BODY_BYTES })
    : E.right({ value: JSON.parse(text) as unknown, text })
// The texts above whose run repeats a member of the top-level object, and how many units of the run
// repeat it: a body that gives a member twice is refused.
const REPEATED_MEMBER: Readonly<Record<string, readonly [string, number]>> = {
  'members whose keys have escapes': ['kA', 2],
  'the member again and again': ['categoryId', 1],
}
const refusedOrParsed = (where: string, units: number, text: string) => {
  const [repeated, from] = REPEATED_MEMBER[where] ?? ['', Infinity]
  return units < from || Buffer.byteLength(text) > MAX_BODY_BYTES
    ? parsed(text)
    : E.left({ _tag: 'MalformedRequest', reason: `Invalid request: ${repeated} is given more than once.` })
}
const notJson = E.left({ _tag: 'MalformedRequest', reason: 'The request body is not valid JSON.' })
const notUtf8 = E.left({ _tag: 'UnsupportedMediaType', reason: 'The request body must be encoded as UTF-8.' })
const A_PET = '{"name":"x","categoryId":1}'
const bodies: ReadonlyArray<Hostile> = [
  ...JSON_TEXTS.map(([where, unit, text]) => ({
    where,
    unit,
    call: (run: string) => jsonBody('application/json', text(run)),
    answer: (run: string) => refusedOrParsed(where, run.length / unit.length, text(run)),
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
// The cases of a decoder of one string: the input around each unit's run, and the answer to it.
const stringCases = (
  where: string,
  units: ReadonlyArray<string>,
  input: (run: string) => string,
  decode: (input: string) => unknown,
  answer: (input: string, run: string) => unknown,
): ReadonlyArray<Hostile> =>
  units.map((unit) => ({
    where,
    unit,
    call: (run) => {
      const text = input(run)
      return () => decode(text)
    },
    answer: (run) => answer(input(run), run),
  }))

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

const urls = stringCases(
  'a request target',
  ['0', '%', '/'],
  (run) => `/v1/pets?limit=${run}`,
  admitted,
  (url) =>
    Buffer.byteLength(url) <= 4096 ? { admitted: true, status: 404 } : { admitted: false, status: 400 },
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
const deeperThanAllowed = (text: string) => nestsDeeperThan(text, MAX_JSON_DEPTH)
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
  ['nestsDeeperThan (json-depth.ts) and readJsonBody', depths],
  ['parseQuery and decodeListPetsQuery (parse-query.ts, codecs.ts)', queries],
  ['bearerKey (authenticate.ts)', authorization],
  ['idempotencyKeyOf (idempotency-key-header.ts)', idempotencyKeys],
  ['requestIdOf (request-id.ts)', requestIds],
  ['admitUrlLength (bound-url.ts)', urls],
  ['isHostValue (header-lines.ts)', hosts],
  ['readRefusedHead (refused-head.ts)', refusedHeads],
  ['compileRoutes and decodePetId (dispatch.ts, codecs.ts)', paths],
  ['clientAddressFinder and addressBucketOf (client-address.ts)', clients],
  ['decodeNewPet and requestFingerprint (createPet)', pets],
]

// Milliseconds per call, over `times` calls.
const timePerCall = async (call: () => unknown, times: number): Promise<number> => {
  const started = performance.now()
  for (let i = 0; i < times; i++) {
    const answer = call()
    if (answer instanceof Promise) await answer
  }
  return (performance.now() - started) / times
}

// About `length` characters of `unit`, repeated.
const runOf = (unit: string, length: number) => unit.repeat(Math.max(1, Math.round(length / unit.length)))

// How much longer a call takes on the long run than on the short one: the least time of each over
// interleaved rounds (a busy machine only ever adds time), until the growth is clearly linear or
// ROUNDS are done.
const growthOf = async ({ unit, call }: Hostile): Promise<{ growth: number; longMs: number }> => {
  const short = call(runOf(unit, RUN))
  const long = call(runOf(unit, RUN * GROWTH))
  // Timed once compiled, not while the interpreter runs it.
  await timePerCall(short, 3)
  await timePerCall(long, 1)
  let times = 1
  while ((await timePerCall(short, times)) * times < LEAST_TIMED_MS) times *= 2
  let shortMs = Number.POSITIVE_INFINITY
  let longMs = Number.POSITIVE_INFINITY
  for (let round = 1; round <= ROUNDS; round++) {
    shortMs = Math.min(shortMs, await timePerCall(short, times))
    longMs = Math.min(longMs, await timePerCall(long, times))
    if (round >= 3 && longMs / shortMs <= CLEARLY_LINEAR) break
  }
  return { growth: longMs / shortMs, longMs }
}

describe.each(DECODERS)('%s, on long runs of what a client may send', (_decoder, cases) => {
  it('answers right, whatever the run', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: cases.length - 1 }),
        fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 60_000 })),
        async (index, length) => {
          const { where, unit, call, answer } = cases[index]!
          const run = runOf(unit, length)
          const what = `${where}, ${run.length / unit.length} × ${JSON.stringify(unit)}`
          expect(await call(run)(), what).toEqual(answer(run))
        },
      ),
      { numRuns: 10 * cases.length },
    )
  })

  it(`takes time linear in the run: at most ${MAX_GROWTH} times as long for ${GROWTH} times the run`, async () => {
    const slow: Array<string> = []
    for (const hostile of cases) {
      const { growth, longMs } = await growthOf(hostile)
      if (growth > MAX_GROWTH && longMs > FAST_ENOUGH_MS)
        slow.push(
          `${hostile.where}, ${JSON.stringify(hostile.unit)}: ${growth.toFixed(1)} times as long (${longMs.toFixed(2)} ms)`,
        )
    }
    expect(slow).toEqual([])
  })
})
