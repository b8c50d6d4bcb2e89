import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_URL_BYTES } from '../src/index.js'
import { MAX_JSON_DEPTH } from '../src/body/json-depth.js'
import { BEARER, errorBodyOf, memoryApp, serveApp, type ServedApp } from './support/memory-app.js'
import { watching } from './support/watch-calls.js'

/** Writes `head`, then each of `drips` after `everyMs`, and resolves with all it read once the server closes. */
const dribble = (port: number, head: string, drips: ReadonlyArray<string>, everyMs: number) =>
  new Promise<{ received: string; closed: boolean }>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let received = ''
    let i = 0
    const timer = setInterval(() => {
      if (i < drips.length && !socket.destroyed) socket.write(drips[i++]!)
    }, everyMs)
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()))
    socket.on('error', () => {})
    socket.on('close', () => {
      clearInterval(timer)
      resolve({ received, closed: true })
    })
    socket.write(head)
  })

describe('hardening (in-process, in memory)', () => {
  let app: ReturnType<typeof memoryApp>
  let served: ServedApp
  beforeAll(async () => {
    app = memoryApp({ bodyTimeoutMs: 300 })
    served = await serveApp(app.options)
  })
  afterAll(async () => {
    await served.close()
  })

  describe('keys that reach a prototype', () => {
    it.each([
      '{"name":"Rex","categoryId":1,"__proto__":{"status":"sold"}}',
      '{"name":"Rex","categoryId":1,"constructor":{"prototype":{"polluted":true}}}',
      '{"name":"Rex","categoryId":1,"prototype":{}}',
      '{"name":{"__proto__":{"polluted":true}},"categoryId":1}',
      '[[[{"a":[{"__proto__":{"polluted":true}}]}]]]',
    ])('refuses %s with 400 naming the key, adding nothing and polluting nothing', async (json) => {
      const before = app.added()
      const answer = await served.post(json)
      expect(answer.status).toBe(400)
      expect(errorBodyOf(answer).message).toMatch(/"(__proto__|constructor|prototype)"/)
      expect(app.added()).toBe(before)
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
      expect(({} as Record<string, unknown>)['status']).toBeUndefined()
    })

    it('finds such a key at the deepest nesting a body may have', async () => {
      const deep = `${'['.repeat(MAX_JSON_DEPTH - 1)}{"__proto__":1}${']'.repeat(MAX_JSON_DEPTH - 1)}`
      const answer = await served.post(deep)
      expect(answer.status).toBe(400)
      expect(errorBodyOf(answer).message).toContain('"__proto__"')
    })

    it('still accepts names that merely contain those words', async () => {
      const answer = await served.post('{"name":"__proto__ constructor prototype","categoryId":1}')
      expect(answer.status).toBe(201)
    })

    it('looks for them in a body of thousands of members and objects without a pair made for each', async () => {
      // A backslash (in the name) sends a body to the walk. Object.entries made a [key, value] pair of every
      // member of every object: 1.6 times the JSON.parse of 5,000 members, 0.6 with each key read once.
      const objects = Array.from({ length: 3_000 }, (_, i) => `"k${i}":{}`).join(',')
      const body = `{"name":"Rex\\n","categoryId":1,"tags":[${'{},'.repeat(3_000)}{"__proto__":1}],${objects}}`
      let pairs = 0
      let message = ''
      await watching(
        Object,
        'entries',
        (_, entries) => (pairs += (entries as ReadonlyArray<unknown>).length),
        async () => (message = errorBodyOf(await served.post(body)).message),
      )
      expect(message).toMatch(
        /^Invalid request: the body must not contain the key "__proto__", at any depth; tags is not a field .*; 2981 more are unknown too\.$/,
      )
      expect(pairs).toBeLessThan(100)
    })
  })

  describe('bodies that nest deep', () => {
    const nested = (depth: number) =>
      `{"name":"Rex","categoryId":1,"x":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`

    it.each([
      ['30,000 arrays', `${'['.repeat(30_000)}${']'.repeat(30_000)}`],
      ['30,000 objects', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`],
      ['one level too many', nested(MAX_JSON_DEPTH + 1)],
      ['a body that ends inside its nesting', '['.repeat(40_000)],
    ])('refuses %s with 400 saying how deep a body may nest, adding nothing', async (_, json) => {
      const before = app.added()
      const answer = await served.post(json)
      expect(answer.status).toBe(400)
      expect(errorBodyOf(answer)).toMatchObject({
        code: 'validation_failed',
        message: `The request body nests arrays or objects more than ${MAX_JSON_DEPTH} levels deep.`,
      })
      expect(app.added()).toBe(before)
    })

    it('reads a body at the deepest nesting allowed, and names the field that has no place in it', async () => {
      const answer = await served.post(nested(MAX_JSON_DEPTH))
      expect(answer.status).toBe(400)
      expect(errorBodyOf(answer).message).toContain('x is not a field of a new pet')
    })

    it('counts no bracket inside a string, escaped quotes or not', async () => {
      // In JSON: an escaped backslash, an escaped quote, 120 brackets and braces, the two again.
      const name = `\\\\\\"${'[{'.repeat(60)}\\\\\\"`
      const answer = await served.post(`{"name":"${name}","categoryId":1}`)
      expect(answer.status).toBe(201)
      expect((JSON.parse(answer.text) as { name: string }).name).toBe(JSON.parse(`"${name}"`))
    })
  })

  describe('response headers', () => {
    it.each([
      ['a success under /v1', { path: '/v1/pets', headers: { Authorization: BEARER } }, 200],
      ['a 401', { path: '/v1/pets' }, 401],
      ['a 404 under /v1', { path: '/v1/nothing', headers: { Authorization: BEARER } }, 404],
      ['a 404 outside /v1', { path: '/nothing' }, 404],
      ['/healthz', { path: '/healthz' }, 200],
    ])('sends nosniff and no-store, and no X-Powered-By, on %s', async (_, request, status) => {
      const answer = await served.send(request)
      expect(answer.status).toBe(status)
      expect(answer.headers['x-content-type-options']).toBe('nosniff')
      expect(answer.headers['cache-control']).toBe('no-store')
      expect(answer.headers['x-powered-by']).toBeUndefined()
    })

    it('sends them on a 500 too', async () => {
      const { options } = memoryApp()
      const broken = await serveApp({
        ...options,
        useCases: {
          ...options.useCases,
          listPets: () => () => Promise.reject(new Error('a defect')),
        },
      })
      try {
        const answer = await broken.send({ path: '/v1/pets', headers: { Authorization: BEARER } })
        expect(answer.status).toBe(500)
        expect(answer.headers['x-content-type-options']).toBe('nosniff')
        expect(answer.headers['cache-control']).toBe('no-store')
      } finally {
        await broken.close()
      }
    })

    it("keeps a deprecated operation's Deprecation, Sunset and successor Link on its 500", async () => {
      const { options } = memoryApp()
      const broken = await serveApp({
        ...options,
        useCases: { ...options.useCases, getPet: () => () => Promise.reject(new Error('a defect')) },
      })
      try {
        const answer = await broken.send({ path: '/v1/pets/1', headers: { Authorization: BEARER } })
        expect(answer.status).toBe(500)
        expect(answer.headers['deprecation']).toBe('@1767225600')
        expect(answer.headers['sunset']).toBe('Thu, 05 Dec 2030 00:00:00 GMT')
        expect(answer.headers['link']).toMatch(/; rel="successor-version"$/)
        expect(answer.headers['x-request-id']).toBeDefined()
      } finally {
        await broken.close()
      }
    })
  })

  describe('URL length', () => {
    const longQuery = (bytes: number) =>
      `/v1/pets?limit=1&x=${'a'.repeat(bytes - '/v1/pets?limit=1&x='.length)}`

    it(`reads a URL of ${MAX_URL_BYTES} bytes`, async () => {
      const answer = await served.send({ path: longQuery(MAX_URL_BYTES), headers: { Authorization: BEARER } })
      // Its unknown parameter is what gets refused, by name.
      expect(answer.status).toBe(400)
      expect(errorBodyOf(answer).message).toContain('x is not a parameter')
    })

    it(`answers 400 validation_failed for a URL over ${MAX_URL_BYTES} bytes, after authentication`, async () => {
      const path = longQuery(MAX_URL_BYTES + 1)
      const answer = await served.send({ path, headers: { Authorization: BEARER } })
      expect(answer.status).toBe(400)
      expect(errorBodyOf(answer)).toMatchObject({ code: 'validation_failed' })
      expect(errorBodyOf(answer).message).toContain(`at most ${MAX_URL_BYTES} bytes`)
      expect((await served.send({ path })).status).toBe(401)
    })

    // CONTRACT: 401; 404 / 405 / 501; 415; 413; 400. A long URL is a 400: what comes before it wins.
    it.each([
      ['an unknown path', 'GET', '/v1/nowhere', {}, 404],
      ['another method', 'DELETE', '/v1/pets', {}, 405],
      ['the orders', 'GET', '/v1/store/orders', {}, 501],
      ['a body not JSON', 'POST', '/v1/pets', { 'Content-Type': 'text/plain' }, 415],
      [
        'a body over 64 KiB',
        'POST',
        '/v1/pets',
        { 'Content-Type': 'application/json', 'Content-Length': '70000' },
        413,
      ],
    ] as const)(
      'answers %s before a URL over the limit: %s %s … is %i',
      async (_, method, base, headers, status) => {
        const path = `${base}?x=${'a'.repeat(MAX_URL_BYTES)}`
        const answer = await served.send({ method, path, headers: { Authorization: BEARER, ...headers } })
        expect(answer.status).toBe(status)
      },
    )

    it('answers 400 with an Error body when the request line and headers pass 16 KiB', async () => {
      const answer = await served.send({
        path: '/v1/pets',
        headers: { Authorization: BEARER, 'X-Filler': 'x'.repeat(17 * 1024) },
      })
      expect(answer.status).toBe(400)
      expect(errorBodyOf(answer)).toMatchObject({ code: 'validation_failed' })
      expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
      expect(answer.headers['connection']).toBe('close')
      // RFC 9110 6.6.1: a 4xx of an origin server with a clock carries Date.
      expect(Date.parse(answer.headers['date'] as string)).toBeGreaterThan(Date.now() - 60_000)
    })

    it('answers a body that breaks the parser with the request id its own answer and log line carry', async () => {
      const { received } = await dribble(
        served.port,
        'POST /v1/pets HTTP/1.1\r\nHost: x\r\nX-Request-Id: mine-123\r\n' +
          `Authorization: ${BEARER}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n` +
          '5\r\n{"nam\r\nZZ\r\n',
        [],
        1000,
      )
      expect(received).toMatch(/^HTTP\/1\.1 400 /)
      expect(received).toContain('\r\nX-Request-Id: mine-123\r\n')
      expect(received).toMatch(/\r\nDate: [A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT\r\n/)
    })

    it('answers 400 with an Error body to a request that is not HTTP', async () => {
      const { received } = await dribble(served.port, 'HELLO /v1/pets NOPE\r\n\r\n', [], 1000)
      expect(received).toMatch(/^HTTP\/1\.1 400 /)
      const body = received.slice(received.indexOf('\r\n\r\n') + 4)
      expect(JSON.parse(body)).toMatchObject({ code: 'validation_failed', status: 400 })
    })
  })

  describe('slow bodies', () => {
    it('answers 400 and closes the connection when a body arrives too slowly', async () => {
      const body = '{"name":"Rex","categoryId":1}'
      const head =
        `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${BEARER}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
      const before = app.added()
      // One byte every 100 ms: the whole body would take about 3 s, the limit is 0.3 s.
      const { received, closed } = await dribble(served.port, head, [...body], 100)
      expect(closed).toBe(true)
      expect(received).toMatch(/^HTTP\/1\.1 400 /)
      expect(received).toMatch(/\r\nconnection: close\r\n/i)
      const answer = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)) as { message: string }
      expect(answer.message).toContain('did not arrive within 0.3 s')
      expect(app.added()).toBe(before)
    })

    it('still serves a body that arrives in time, in pieces', async () => {
      const body = '{"name":"Rex","categoryId":1}'
      const head =
        `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${BEARER}\r\nConnection: close\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
      const { received } = await dribble(served.port, head, [body.slice(0, 10), body.slice(10)], 50)
      expect(received).toMatch(/^HTTP\/1\.1 201 /)
    })
  })
})
