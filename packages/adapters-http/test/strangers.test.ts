import type { Authenticator } from '@pets/domain'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { createServer, type ServerResponse } from 'node:http'
import { connect as connectHttp2, createServer as createHttp2Server } from 'node:http2'
import { connect, type AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UNKNOWN_NAMED } from '@pets/domain'
import {
  answerEveryRequest,
  APP_ANSWERS_EVERY_REQUEST,
  createHttpApp,
  createTokenBucketRateLimiter,
  DOCS_PATH,
  inOrder,
  type ObservedRequest,
} from '../src/index.js'
import { raw, recordingLogger } from './serve.js'
import {
  BEARER,
  errorBodyOf,
  KEYS,
  memoryApp,
  memoryAppServedForAll,
  serveApp,
  type ServedApp,
} from './support/memory-app.js'
import { SWAGGER_UI_VERSION } from './support/swagger-ui-version.js'

describe('what a caller without a key, or a careless one, can make the service do', () => {
  const held = memoryAppServedForAll()

  it.each(['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'])(
    'answers 404 for the docs asset named %s: inherited names are no assets',
    async (name) => {
      for (const path of [
        `${DOCS_PATH}/assets/${SWAGGER_UI_VERSION}/${name}`,
        `${DOCS_PATH}/${name}`,
        `/${name}`,
      ]) {
        const answer = await held.served.send({ path })
        expect(answer.status).toBe(404)
        expect(errorBodyOf(answer).code).toBe('not_found')
      }
    },
  )

  it.each(['/docs/', '/healthz/', '/Docs', '/openapi.json/'])(
    'answers 404 at %s: paths outside /v1 are exact too',
    async (path) => {
      const answer = await held.served.send({ path })
      expect(answer.status).toBe(404)
      expect(errorBodyOf(answer).code).toBe('not_found')
    },
  )

  it.each([
    ['401 (no key)', { 'Content-Type': 'application/json' }],
    ['415 (not JSON)', { Authorization: BEARER, 'Content-Type': 'text/plain' }],
  ])('closes the connection after a %s that leaves the body unread', async (_, headers) => {
    const answer = await held.served.send({
      method: 'POST',
      path: '/v1/pets',
      headers: { ...headers, 'Content-Length': '1000' },
      body: 'x'.repeat(1000),
    })
    expect([401, 415]).toContain(answer.status)
    expect(answer.headers.connection).toBe('close')
  })

  it('closes the connection after a 413 for a declared length over the limit, without reading it', async () => {
    const answer = await raw(
      held.served.port,
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ' +
        `${BEARER}\r\nContent-Type: application/json\r\nContent-Length: 70000\r\n\r\n{"name":`,
    )
    expect(answer).toMatch(/^HTTP\/1\.1 413 /)
    expect(answer.toLowerCase()).toContain('connection: close')
  })

  const postRaw = (headers: string, body: string) =>
    raw(
      held.served.port,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${headers}\r\n${body}`,
    )
  const chunked = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n0\r\n\r\n`
  const A_PET = '{"name":"Rex","categoryId":1}'

  const petCount = async () =>
    (
      JSON.parse(
        (
          await held.served.send({
            method: 'GET',
            path: '/v1/pets?limit=100',
            headers: { Authorization: BEARER },
          })
        ).text,
      ) as Array<unknown>
    ).length

  it('answers 501 to a transfer coding other than chunked alone, which it would otherwise take as the body', async () => {
    const before = await petCount()
    for (const codings of [
      'Transfer-Encoding: gzip, chunked\r\n',
      'Transfer-Encoding: foo, chunked\r\n',
      'Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n',
    ]) {
      const answer = await postRaw(`Authorization: ${BEARER}\r\n${codings}`, chunked(A_PET))
      expect(answer, codings).toMatch(/^HTTP\/1\.1 501 /)
      expect(bodyOf(answer)).toEqual({
        code: 'not_implemented',
        message: expect.stringMatching(
          /^Transfer-Encoding "[^"]+" is not supported; send the body with Content-Length, or chunked alone\.$/,
        ),
        status: 501,
      })
      // Without a key, 401 as ever.
      expect(await postRaw(codings, chunked(A_PET))).toMatch(/^HTTP\/1\.1 401 /)
    }
    expect(await petCount()).toBe(before)
    const plain = await postRaw(
      `Authorization: ${BEARER}\r\nTransfer-Encoding: Chunked\r\nConnection: close\r\n`,
      chunked(A_PET),
    )
    expect(plain).toMatch(/^HTTP\/1\.1 201 /)
  })

  it('refuses Authorization on two lines (401 invalid_request, whichever holds the key) and Content-Type on two (415)', async () => {
    const get = (headers: string) =>
      raw(held.served.port, `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`)
    for (const keys of [
      `Authorization: ${BEARER}\r\nAuthorization: Bearer nope\r\n`,
      `Authorization: Bearer nope\r\nauthorization: ${BEARER}\r\n`,
      `Authorization: ${BEARER}\r\nAuthorization: ${BEARER}\r\n`,
    ]) {
      const answer = await get(keys)
      expect(answer, keys).toMatch(/^HTTP\/1\.1 401 /)
      expect(headOf(answer)).toContain(
        'www-authenticate: bearer realm="animal-store", error="invalid_request"',
      )
      expect(bodyOf(answer)).toMatchObject({
        message: 'Send one Authorization header: a request with several is refused.',
      })
    }
    expect(await get(`Authorization: ${BEARER}\r\nDate: x\r\n`)).toMatch(/^HTTP\/1\.1 200 /)
    const types = await postRaw(
      `Authorization: ${BEARER}\r\nContent-Type: text/plain\r\nContent-Length: ${A_PET.length}\r\nConnection: close\r\n`,
      A_PET,
    )
    expect(types).toMatch(/^HTTP\/1\.1 415 /)
    expect(bodyOf(types)).toMatchObject({
      message: 'Send one Content-Type header: a request with several is refused.',
    })
  })

  // RFC 9110 section 11.4: the credentials follow the scheme after one or more spaces (SP), never a tab.
  it.each(['Bearer\t', 'bearer\t\t', 'Bearer \t', 'Bearer\t '])(
    'answers the key after %j 401 invalid_request, saying that a tab does not separate it from the scheme',
    async (scheme) => {
      const answer = await raw(
        held.served.port,
        `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${scheme}${KEYS[0]}\r\nConnection: close\r\n\r\n`,
      )
      expect(answer).toMatch(/^HTTP\/1\.1 401 /)
      expect(headOf(answer)).toContain(
        'www-authenticate: bearer realm="animal-store", error="invalid_request"',
      )
      expect(bodyOf(answer)).toEqual({
        code: 'unauthorized',
        message:
          'Separate "Bearer" from the API key with spaces, not tabs: send "Authorization: Bearer <API key>".',
        status: 401,
      })
    },
  )

  it('answers 415 to a content coding, saying that it accepts identity; identity itself is served', async () => {
    const headers = (coding: string) =>
      `Authorization: ${BEARER}\r\nContent-Encoding: ${coding}\r\nContent-Length: ${A_PET.length}\r\nConnection: close\r\n`
    const gzip = await postRaw(headers('gzip'), A_PET)
    expect(gzip).toMatch(/^HTTP\/1\.1 415 /)
    expect(headOf(gzip)).toContain('\r\naccept-encoding: identity\r\n')
    expect(bodyOf(gzip)).toMatchObject({
      message: 'Content-Encoding "gzip" is not supported; send the body uncompressed.',
    })
    expect(await postRaw(headers('identity'), A_PET)).toMatch(/^HTTP\/1\.1 201 /)
  })

  it('reads every header line of a head within 16 KiB, also past the 2,000 node keeps by default', async () => {
    // 2,000 empty lines (8 KB): node's maxHeadersCount dropped every line after them without a word.
    const padding = 'a:\r\n'.repeat(2_000)
    const before = await petCount()
    const hosts = await raw(
      held.served.port,
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\n${padding}Host: y\r\n\r\n`,
    )
    expect(hosts).toMatch(/^HTTP\/1\.1 400 /)
    expect(bodyOf(hosts)).toMatchObject({ message: 'A request must carry one Host header, not several.' })
    const keys = await raw(
      held.served.port,
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\n${padding}Authorization: Bearer nope\r\nConnection: close\r\n\r\n`,
    )
    expect(keys).toMatch(/^HTTP\/1\.1 401 /)
    expect(headOf(keys)).toContain('error="invalid_request"')
    const types = await postRaw(
      `Authorization: ${BEARER}\r\n${padding}Content-Type: text/plain\r\nContent-Length: ${A_PET.length}\r\nConnection: close\r\n`,
      A_PET,
    )
    expect(types).toMatch(/^HTTP\/1\.1 415 /)
    const gzip = await postRaw(
      `Authorization: ${BEARER}\r\n${padding}Content-Encoding: gzip\r\nContent-Length: ${A_PET.length}\r\nConnection: close\r\n`,
      A_PET,
    )
    expect(gzip).toMatch(/^HTTP\/1\.1 415 /)
    const codings = await postRaw(
      `Authorization: ${BEARER}\r\n${padding}Transfer-Encoding: gzip, chunked\r\nConnection: close\r\n`,
      chunked(A_PET),
    )
    expect(codings).toMatch(/^HTTP\/1\.1 501 /)
    const onceKeys = await postRaw(
      `Authorization: ${BEARER}\r\nIdempotency-Key: a\r\n${padding}Idempotency-Key: b\r\nContent-Length: ${A_PET.length}\r\nConnection: close\r\n`,
      A_PET,
    )
    expect(onceKeys).toMatch(/^HTTP\/1\.1 400 /)
    expect(await petCount()).toBe(before)
    // Such a head, its headers each once, is served.
    const served = await postRaw(
      `Authorization: ${BEARER}\r\n${padding}Content-Length: ${A_PET.length}\r\nConnection: close\r\n`,
      A_PET,
    )
    expect(served).toMatch(/^HTTP\/1\.1 201 /)
  })

  it('keeps the connection of a request whose body it read', async () => {
    const answer = await held.served.post('{"name":"Rex","categoryId":1}')
    expect(answer.status).toBe(201)
    expect(answer.headers.connection).not.toBe('close')
  })

  // What node:http would answer itself with a bare status line, or not at all, gets the app's answer.
  const headOf = (answer: string) => answer.slice(0, answer.indexOf('\r\n\r\n')).toLowerCase()
  const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown

  // Sends the request `text` gives for no key and for one (an Authorization line, or ''): each must be answered
  // 400 validation_failed saying `message`, before authentication, then closed. The answers, in that order.
  const refusedWithAndWithoutKey = async (text: (key: string) => string, message: string) => {
    const answers: Array<string> = []
    for (const key of ['', `Authorization: ${BEARER}\r\n`]) {
      const answer = await raw(held.served.port, text(key))
      expect(answer).toMatch(/^HTTP\/1\.1 400 /)
      expect(headOf(answer)).toContain('connection: close')
      expect(bodyOf(answer)).toEqual({ code: 'validation_failed', message, status: 400 })
      answers.push(answer)
    }
    return answers
  }

  it('answers an HTTP/1.1 request without Host 400 with an Error body and a request id, then closes', async () => {
    const answers = await refusedWithAndWithoutKey(
      (key) => `GET /v1/pets HTTP/1.1\r\n${key}\r\n`,
      'An HTTP/1.1 request must carry a Host header.',
    )
    for (const answer of answers) expect(headOf(answer)).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/)
  })

  it.each(['a b', '[::1', 'ü', 'a/b', 'a@b', 'x:abc', 'x:1:2', '%zz', '[]'])(
    'answers the Host %j, which is no host, 400 before authentication, then closes',
    async (host) => {
      const answer = await raw(
        held.served.port,
        `GET /v1/pets HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${BEARER}\r\n\r\n`,
      )
      expect(answer).toMatch(/^HTTP\/1\.1 400 /)
      expect(bodyOf(answer)).toMatchObject({
        message: 'The Host header must be a host name or address, with a port if any.',
      })
    },
  )

  it.each(['', 'x', 'api.example.com:443', '127.0.0.1:3000', '[::1]:3000', '[fe80::1]', 'a-b_c~d%20e', 'x:'])(
    'serves the Host %j',
    async (host) => {
      const answer = await raw(
        held.served.port,
        `GET /v1/pets HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${BEARER}\r\nConnection: close\r\n\r\n`,
      )
      expect(answer).toMatch(/^HTTP\/1\.1 200 /)
    },
  )

  it('answers a request with two Host lines 400 before authentication, whatever their case, then closes', async () => {
    for (const hosts of ['Host: x\r\nHost: y\r\n', 'Host: x\r\nhOST: x\r\n'])
      await refusedWithAndWithoutKey(
        (key) => `GET /v1/pets HTTP/1.1\r\n${hosts}${key}\r\n`,
        'A request must carry one Host header, not several.',
      )
    // One Host, among headers of four letters that are not it, is served.
    const one = await raw(
      held.served.port,
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nFrom: a@b\r\nDate: x\r\nAuthorization: ${BEARER}\r\nConnection: close\r\n\r\n`,
    )
    expect(one).toMatch(/^HTTP\/1\.1 200 /)
  })

  it.each(['http://[%]/v1/pets', 'http://[%]/healthz', 'http://a:b/v1/pets', 'http://x:8o/healthz'])(
    'answers a target that is no URL (%s) 400 with an Error body, not a 500',
    async (target) => {
      const answer = await raw(
        held.served.port,
        `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      )
      expect(answer).toMatch(/^HTTP\/1\.1 400 /)
      expect(headOf(answer)).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/)
      expect(bodyOf(answer)).toEqual({
        code: 'validation_failed',
        message: 'The request target is not a valid URL.',
        status: 400,
      })
    },
  )

  it.each([
    ['http://x/v1/pets?limit=abc', 400],
    ['HTTP://user:pw@x:8080/v1/pets?limit=abc#f', 400],
    ['http://[::1]/v1/pets?limit=abc', 400],
    ['http://x/v1/pets?limit=1', 200],
    // An origin-form path that begins with `//` is that path (url.parse read `/:b/v1/pets` and warned).
    ['//u@a:b/v1/pets?limit=abc', 404],
  ])('routes %s by its path and query alone: %d', async (target, status) => {
    const answer = await raw(
      held.served.port,
      `GET ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\nConnection: close\r\n\r\n`,
    )
    expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `))
    if (status === 400) expect(JSON.stringify(bodyOf(answer))).toContain('limit')
  })

  // llhttp lets HTTP/0.9 and HTTP/2.0 through (and refuses 1.2 or 3.0): no such request is HTTP/1.x, which is all
  // this server speaks, and an HTTP/2 client begins with its preface, never with such a line.
  it.each(['2.0', '0.9', '1.2', '3.0'])(
    'answers a request line of HTTP/%s 400 before authentication, saying which versions it speaks, then closes',
    async (version) => {
      await refusedWithAndWithoutKey(
        (key) => `GET /v1/pets HTTP/${version}\r\nHost: x\r\n${key}\r\n`,
        'The request line must end in HTTP/1.1 (or HTTP/1.0): no other version is served here.',
      )
    },
  )

  // node's parser refuses a method it does not know before its version: the head, read here, says which it is.
  it.each(['2.0', '0.9', '1.2', '3.0'])(
    'answers a method node does not know on a request line of HTTP/%s with the same words, then closes',
    async (version) => {
      const answer = await raw(held.served.port, `FOO /v1/pets HTTP/${version}\r\nHost: x\r\n\r\n`)
      expect(answer).toMatch(/^HTTP\/1\.1 400 /)
      expect(headOf(answer)).toContain('connection: close')
      expect(bodyOf(answer)).toEqual({
        code: 'validation_failed',
        message: 'The request line must end in HTTP/1.1 (or HTTP/1.0): no other version is served here.',
        status: 400,
      })
    },
  )

  // llhttp refuses PRI without the rest of HTTP/2's preface as a bad version, whatever its line says.
  it.each(['PRI /v1/pets HTTP/1.1', 'PRI * HTTP/1.0', 'FOO /v1/pets HTTX/1.1', 'FOO /v1/pets HTTP/10.0'])(
    'answers %j 400 as not valid HTTP/1.1, not as a version it does not speak',
    async (line) => {
      const answer = await raw(held.served.port, `${line}\r\nHost: x\r\n\r\n`)
      expect(answer).toMatch(/^HTTP\/1\.1 400 /)
      expect(bodyOf(answer)).toEqual({
        code: 'validation_failed',
        message: 'The request is not valid HTTP/1.1.',
        status: 400,
      })
    },
  )

  // What the refusal above is for comes through node:http's parser alone: a host that serves the app with
  // node:http2 (its compatibility API) hands it HTTP/2 requests, which are served as any.
  it('serves a request that came over HTTP/2 (node:http2), with a key and without', async () => {
    const server = createHttp2Server(createHttpApp(memoryApp().options).callback())
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const session = connectHttp2(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
    const status = (headers: Record<string, string>) =>
      new Promise<unknown>((resolve) => {
        const stream = session.request({ ':path': '/v1/pets', ...headers })
        stream.on('response', (head) => resolve(head[':status']))
        stream.on('error', (error) => resolve(error.message))
        stream.resume()
        stream.end()
      })
    try {
      expect([await status({ authorization: BEARER }), await status({})]).toEqual([200, 401])
    } finally {
      session.close()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('serves an HTTP/1.0 request without Host: that version has none to carry', async () => {
    const answer = await raw(held.served.port, 'GET /v1/pets HTTP/1.0\r\n\r\n')
    expect(answer).toMatch(/^HTTP\/1\.1 401 /)
  })

  it('ignores an Expect it does not know (no bare 417): 401 without a key, 201 with one', async () => {
    const post = (key: string) =>
      raw(
        held.served.port,
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n${key}Content-Type: application/json\r\n` +
          'Content-Length: 29\r\nConnection: close\r\n\r\n{"name":"Rex","categoryId":1}',
      )
    const stranger = await post('')
    expect(stranger).toMatch(/^HTTP\/1\.1 401 /)
    expect(bodyOf(stranger)).toMatchObject({ code: 'unauthorized', status: 401 })
    expect(await post(`Authorization: ${BEARER}\r\n`)).toMatch(/^HTTP\/1\.1 201 /)
  })

  it.each([
    ['/v1/pets', '', 401, 'unauthorized'],
    ['/v1/pets', `Authorization: ${BEARER}\r\n`, 405, 'method_not_allowed'],
    ['/v1/nowhere', `Authorization: ${BEARER}\r\n`, 404, 'not_found'],
    ['example.com:443', '', 404, 'not_found'],
  ])(
    'answers CONNECT %s (%s) %i with an Error body, then closes the connection',
    async (target, key, status, code) => {
      const answer = await raw(held.served.port, `CONNECT ${target} HTTP/1.1\r\nHost: x\r\n${key}\r\n`)
      expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `))
      expect(headOf(answer)).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/)
      expect(headOf(answer)).toContain('connection: close')
      if (status === 405) expect(headOf(answer)).toContain('allow: get, head, post')
      expect(bodyOf(answer)).toMatchObject({ code, status })
      // The server goes on serving.
      expect((await held.served.send({ path: '/v1/pets', headers: { Authorization: BEARER } })).status).toBe(
        200,
      )
    },
  )

  it('answers a CONNECT pipelined behind a request after that answer, and goes on serving', async () => {
    // node hands the CONNECT over while the GET's answer still holds the socket: answering it there threw
    // ERR_HTTP_SOCKET_ASSIGNED out of node's parser, and the process ended (found by bench/fuzz).
    const answer = await raw(
      held.served.port,
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\n\r\n` +
        'CONNECT example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n',
    )
    expect([...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1])).toEqual(['200', '404'])
    const connectAnswer = answer.slice(answer.lastIndexOf('HTTP/1.1 '))
    expect(headOf(connectAnswer)).toContain('connection: close')
    expect(bodyOf(connectAnswer)).toMatchObject({ code: 'not_found', status: 404 })
    expect((await held.served.send({ path: '/v1/pets', headers: { Authorization: BEARER } })).status).toBe(
      200,
    )
  })

  it.each([
    ['FOO /v1/pets', '', 401, 'unauthorized'],
    // The start of a method node knows: its parser stops at the space.
    ['GE /v1/pets', '', 401, 'unauthorized'],
    ['P /v1/pets', `Authorization: ${BEARER}\r\n`, 405, 'method_not_allowed'],
    ['PURGEX /v1/pets', `Authorization: ${BEARER}\r\n`, 405, 'method_not_allowed'],
    ["M!#$%&'*+-.^_`|~9 /v1/pets/7", `authorization: ${BEARER}\r\n`, 405, 'method_not_allowed'],
    ['FOO /v1/nowhere', `Authorization: ${BEARER}\r\n`, 404, 'not_found'],
    ['FOO /healthz', '', 405, 'method_not_allowed'],
    ['FOO /v1/pets', `Authorization: ${BEARER}\r\nAuthorization: ${BEARER}\r\n`, 401, 'unauthorized'],
  ])(
    'answers %s (%s), a method node does not know, %i as any method the app does not serve, then closes',
    async (line, key, status, code) => {
      const answer = await raw(
        held.served.port,
        `${line} HTTP/1.1\r\nHost: x\r\n${key}Content-Length: 0\r\n\r\n`,
      )
      expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `))
      expect(headOf(answer)).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/)
      expect(headOf(answer)).toContain('connection: close')
      if (status === 401) expect(headOf(answer)).toContain('www-authenticate: bearer')
      if (line.includes('/v1/pets/')) expect(headOf(answer)).toContain('allow: get, head\r\n')
      else if (status === 405) expect(headOf(answer)).toMatch(/allow: get, head(, post)?\r\n/)
      expect(bodyOf(answer)).toMatchObject({ code, status })
    },
  )

  it('reads the head of a method node does not know as node would: the request id, no Host, HTTP/1.0', async () => {
    const id = await raw(held.served.port, 'FOO /v1/pets HTTP/1.1\r\nHost: x\r\nX-Request-Id: mine-1\r\n\r\n')
    expect(headOf(id)).toContain('\r\nx-request-id: mine-1\r\n')
    const noHost = await raw(held.served.port, 'FOO /v1/pets HTTP/1.1\r\n\r\n')
    expect(bodyOf(noHost)).toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('Host'),
    })
    expect(await raw(held.served.port, 'FOO /v1/pets HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 401 /)
  })

  it('answers a body that ends early with 400, never 500', async () => {
    const answer = await raw(
      held.served.port,
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ' +
        `${BEARER}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"Rex"`,
      { endAfterWrite: true },
    )
    // The client half-closed: the answer may still reach it, and is never a server error.
    if (answer !== '') expect(answer).toMatch(/^HTTP\/1\.1 400 /)
  })
})

// Writes a whole request on a new connection, then, once `served` says the service has it, closes
// it (`destroy`) or half-closes it (`end`), as a client that gives up waiting does.
const sendAndLeave = (port: number, text: string, how: 'destroy' | 'end', served: Promise<void>) =>
  new Promise<void>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(text)
      void served.then(() => {
        if (how === 'destroy') socket.destroy()
        else socket.end()
        resolve()
      })
    })
    socket.on('error', () => {})
  })

/**
 * A request held in the service until its client has gone: `arrived` once the service has it,
 * `hold()` (awaited where the service would wait for a store) resolves once node has closed its
 * answer because the client left. For the next request this process serves.
 */
const holdUntilClientGone = () => {
  let arrive = () => {}
  const arrived = new Promise<void>((resolve) => (arrive = resolve))
  const gone = new Promise<void>((resolve) => {
    const onStart = (message: unknown) => {
      unsubscribe('http.server.request.start', onStart)
      ;(message as { response: ServerResponse }).response.once('close', () => resolve())
    }
    subscribe('http.server.request.start', onStart)
  })
  return {
    arrived,
    hold: () => {
      arrive()
      return gone
    },
  }
}

describe('a client that goes away', () => {
  const post = (body: string) =>
    'POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ' +
    `${BEARER}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`

  it.each(['destroy', 'end'] as const)(
    'is logged at info as aborted and counted so, never as a 500, when it leaves (%s) while its key is checked',
    async (how) => {
      const logger = recordingLogger()
      const seen: Array<ObservedRequest> = []
      const app = memoryApp()
      const { authenticator } = app.options
      // A store that takes its time, as PostgreSQL under load does: until the client has gone.
      const request = holdUntilClientGone()
      const slow: Authenticator = {
        authenticate: (key) => async () => {
          await request.hold()
          return authenticator.authenticate(key)()
        },
      }
      const served = await serveApp({
        ...app.options,
        authenticator: slow,
        logger,
        operations: { observe: (request) => void seen.push(request) },
      })
      try {
        await sendAndLeave(served.port, post('{"name":"Rex","categoryId":1}'), how, request.arrived)
        await expect.poll(() => seen.length, { timeout: 5_000 }).toBe(1)
        expect(seen[0]).toMatchObject({ aborted: true, route: '/v1/pets', operation: 'createPet' })
        expect(seen[0]!.status).toBeLessThan(500)
        expect(logger.lines.map((l) => [l.level, l.message])).toEqual([['info', 'request']])
        expect(logger.lines[0]!.fields['aborted']).toBe(true)
        expect(app.added()).toBe(0)
      } finally {
        await served.close()
      }
    },
  )

  it('turns even an error thrown meanwhile into a line at info, not a 500 at error', async () => {
    const logger = recordingLogger()
    const seen: Array<ObservedRequest> = []
    const { options } = memoryApp()
    const request = holdUntilClientGone()
    const served = await serveApp({
      ...options,
      useCases: {
        ...options.useCases,
        listPets: () => async () => {
          await request.hold()
          throw new Error('the stream is gone')
        },
      },
      logger,
      operations: { observe: (request) => void seen.push(request) },
    })
    try {
      await sendAndLeave(
        served.port,
        `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\n\r\n`,
        'destroy',
        request.arrived,
      )
      await expect.poll(() => seen.length, { timeout: 5_000 }).toBe(1)
      expect(seen[0]!.aborted).toBe(true)
      // No answer went out, and the line says so: never a 500.
      expect(seen[0]!.status).toBe(499)
      expect(logger.lines.map((l) => [l.level, l.message])).toEqual([
        ['info', 'request failed after its client went away'],
        ['info', 'request'],
      ])
    } finally {
      await served.close()
    }
  })

  it('is not what a client that stays sees: its lines say aborted: false', async () => {
    const logger = recordingLogger()
    const served = await serveApp({ ...memoryApp().options, logger })
    try {
      expect((await served.send({ path: '/v1/pets', headers: { Authorization: BEARER } })).status).toBe(200)
      expect(logger.lines[0]?.fields['aborted']).toBe(false)
    } finally {
      await served.close()
    }
  })
})

// A keyed creation of Rex as raw bytes, with `headers` (each ending in CRLF) before its length.
const CREATE_BODY = '{"name":"Rex","categoryId":1}'
const creation = (headers = '') =>
  `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\nContent-Type: application/json\r\n` +
  `${headers}Content-Length: ${CREATE_BODY.length}\r\n\r\n${CREATE_BODY}`

// An app whose log lines and observed requests a test reads.
/** Waits until the observer has seen as many requests as `expected`, then compares their methods and statuses. */
const expectObserved = async (
  seen: ReadonlyArray<ObservedRequest>,
  expected: ReadonlyArray<readonly [string, number]>,
) => {
  await expect.poll(() => seen.length).toBe(expected.length)
  expect(seen.map((r) => [r.method, r.status])).toEqual(expected)
}

const observedApp = async () => {
  const logger = recordingLogger()
  const seen: Array<ObservedRequest> = []
  const served = await serveApp({
    ...memoryApp().options,
    logger,
    operations: { observe: (request) => void seen.push(request) },
  })
  return { logger, seen, served }
}

describe("requests node's parser refuses", () => {
  it('are answered 400 by the app, logged and counted like any request, with the id of their answer', async () => {
    const { logger, seen, served } = await observedApp()
    try {
      const sent = [
        // A method node does not know, with a head that is not HTTP/1.1 either (a folded line).
        'FOO /v1/pets HTTP/1.1\r\nHost: x\r\nX-A: a\r\n folded\r\n\r\n',
        `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
        'HEAD /docs HTTP/1.2\r\nHost: x\r\n\r\n',
      ]
      const answers = []
      for (const request of sent) answers.push(await raw(served.port, request))
      for (const answer of answers) {
        expect(answer).toMatch(/^HTTP\/1\.1 400 /)
        expect(answer.toLowerCase()).toContain('\r\nconnection: close\r\n')
        expect(answer).toMatch(/\r\nDate: /)
      }
      // HEAD has no body; the others say why.
      expect(answers[2]!.endsWith('\r\n\r\n')).toBe(true)
      expect(JSON.parse(answers[1]!.slice(answers[1]!.indexOf('\r\n\r\n') + 4))).toMatchObject({
        code: 'validation_failed',
        message: 'The request line and headers must be at most 16 KiB together.',
      })
      await expect.poll(() => seen.length).toBe(3)
      expect(seen.map((r) => [r.method, r.status, r.route, r.path])).toEqual([
        ['_OTHER', 400, null, '/v1/pets'],
        ['GET', 400, null, '/healthz'],
        ['HEAD', 400, null, '/docs'],
      ])
      const ids = answers.map((answer) => /\r\nX-Request-Id: ([^\r]+)\r\n/i.exec(answer)![1])
      expect(logger.lines.filter((l) => l.message === 'request').map((l) => l.fields['requestId'])).toEqual(
        ids,
      )
    } finally {
      await served.close()
    }
  })
})

describe('a head too large, in the packet of a HEAD answered before it', () => {
  it('is answered 400 with its Error body, and logged as its own, not as that HEAD', async () => {
    const { seen, served } = await observedApp()
    try {
      const pad = Array.from({ length: 2000 }, (_, i) => `X-Same: ${i}\r\n`).join('')
      const answer = await raw(
        served.port,
        `HEAD /v1/store/orders HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\n\r\n` +
          `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${pad}\r\n`,
      )
      // The refused request stood for the packet's first line, the HEAD answered before it: its 400 said
      // Content-Length: 115 and sent no body, and its line said HEAD /v1/store/orders (found by bench/fuzz). It
      // is read behind the HEAD's head (head-starts.ts): a GET, with its Error body, logged as GET /v1/pets.
      expect([...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1])).toEqual(['501', '400'])
      const refusal = answer.slice(answer.indexOf('HTTP/1.1 400 '))
      const length = Number(/\r\ncontent-length: (\d+)\r\n/i.exec(refusal)?.[1])
      const body = refusal.slice(refusal.indexOf('\r\n\r\n') + 4)
      expect(Buffer.byteLength(body)).toBe(length)
      expect(JSON.parse(body)).toMatchObject({
        code: 'validation_failed',
        message: 'The request line and headers must be at most 16 KiB together.',
      })
      await expect.poll(() => seen.length).toBe(2)
      expect(seen.map((r) => [r.method, r.status, r.path])).toEqual([
        ['HEAD', 501, null],
        ['GET', 400, '/v1/pets'],
      ])
    } finally {
      await served.close()
    }
  })
})

describe('a body that breaks the parser, behind a HEAD in the same packet', () => {
  it("is answered 400 with its Error body whole: the answer is the POST's, not the HEAD's", async () => {
    const { served } = await observedApp()
    try {
      const answer = await raw(
        served.port,
        'HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n' +
          `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\nContent-Type: application/json\r\n` +
          'Transfer-Encoding: chunked\r\n\r\n2\r\n{}\n0\r\n\r\n',
      )
      // The 400 said Content-Length: 88 and sent no body (it looked for HEAD at the start of the packet), so a
      // client read a cut answer (found by bench/fuzz).
      const refusal = answer.slice(answer.indexOf('HTTP/1.1 400 '))
      const length = Number(/\r\ncontent-length: (\d+)\r\n/i.exec(refusal)?.[1])
      const body = refusal.slice(refusal.indexOf('\r\n\r\n') + 4)
      expect(Buffer.byteLength(body)).toBe(length)
      expect(JSON.parse(body)).toMatchObject({ code: 'validation_failed', status: 400 })
    } finally {
      await served.close()
    }
  })
})

describe('a body that ends early, its client half-closed', () => {
  it("is logged and counted as the 400 that node's parser refusal made, with that answer's id, not as gone", async () => {
    const { logger, seen, served } = await observedApp()
    try {
      const answer = await raw(
        served.port,
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"Rex"',
        { endAfterWrite: true },
      )
      expect(answer).toMatch(/^HTTP\/1\.1 400 /)
      const id = /\r\nX-Request-Id: ([^\r]+)\r\n/i.exec(answer)![1]
      await expect.poll(() => seen.length).toBe(1)
      expect(seen[0]).toMatchObject({ requestId: id, status: 400, aborted: false, route: '/v1/pets' })
      const line = logger.lines.find((l) => l.message === 'request')
      expect(line?.fields).toMatchObject({ requestId: id, status: 400, aborted: false })
    } finally {
      await served.close()
    }
  })
})

// Writes `parts` gapMs apart, and resolves with all it read once the server closes.
const inParts = (port: number, parts: ReadonlyArray<string>, gapMs = 20) =>
  new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1', () =>
      parts.forEach((part, i) => setTimeout(() => socket.writable && socket.write(part), i * gapMs)),
    )
    let text = ''
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
    socket.on('close', () => resolve(text))
    socket.on('error', () => {})
  })

describe('a method node does not know, its head in several packets', () => {
  // Writes the parts `gapMs` apart on one connection, and collects what comes back until it closes.
  const held = memoryAppServedForAll()

  it('is answered once the head has ended, as if it came whole: 405 with a key, 401 without', async () => {
    const withKey = await inParts(held.served.port, [
      'FOO /v1/pets HTTP/1.1\r\nHost: x\r\n',
      `Authorization: ${BEARER}\r\n`,
      '\r\n',
    ])
    expect(withKey).toMatch(/^HTTP\/1\.1 405 /)
    const head = 'FOO /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n'
    const byteByByte = await inParts(held.served.port, [...head], 2)
    expect(byteByByte).toMatch(/^HTTP\/1\.1 401 /)
  })

  it('is answered 400 when its head passes 16 KiB, or is not HTTP/1.1 once ended', async () => {
    const big = await inParts(held.served.port, [
      'FOO /v1/pets HTTP/1.1\r\nHost: x\r\n',
      `X-A: ${'a'.repeat(9_000)}\r\n`,
      `X-B: ${'b'.repeat(9_000)}\r\n`,
    ])
    expect(big).toMatch(/^HTTP\/1\.1 400 /)
    expect(big).toContain('The request line and headers must be at most 16 KiB together.')
    const folded = await inParts(held.served.port, [
      'FOO /v1/pets HTTP/1.1\r\nHost: x\r\n',
      ' folded\r\n\r\n',
    ])
    expect(folded).toContain('The request is not valid HTTP/1.1.')
  })

  it("is answered 400 when the rest of its head does not come within the server's headersTimeout", async () => {
    const handle = inOrder(createHttpApp(memoryApp().options).callback())
    const server = createServer({ headersTimeout: 300, requestTimeout: 1_000 }, handle)
    answerEveryRequest(server, handle)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const started = Date.now()
      const late = await inParts((server.address() as AddressInfo).port, [
        'FOO /v1/pets HTTP/1.1\r\nHost: x\r\n',
      ])
      expect(late).toContain('The request headers did not arrive in time.')
      expect(Date.now() - started).toBeLessThan(3_000)
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})

describe('a HEAD refused by the parser after empty lines', () => {
  // RFC 9112 section 2.2: empty lines before a request line are ignored, as node's parser does; the refused
  // head's first line was the empty one, no method, and the HEAD got its Error body (bench/fuzz, 6 of 120,181
  // cases on memory, master 3003: 2437212499, a bad header line, one packet). A HEAD whose head came in
  // several packets still gets its body (bench/fuzz README, "Known and left").
  it('is answered 400 without a body, and logged as HEAD', async () => {
    const { seen, served } = await observedApp()
    try {
      const text = await inParts(served.port, [
        '\r\n\r\nHEAD /healthz HTTP/1.1\r\nHost: x\r\nBad header\r\n\r\n',
      ])
      expect(text).toMatch(/^HTTP\/1\.1 400 /)
      expect(text.slice(text.indexOf('\r\n\r\n') + 4)).toBe('')
      await expectObserved(seen, [['HEAD', 400]])
    } finally {
      await served.close()
    }
  })
})

describe('a HEAD refused by the parser, its head in several packets', () => {
  // The answers in `text`, each as its status, its Content-Length and the bytes after its head up to the next.
  const answersOf = (text: string) =>
    text
      .split(/(?=HTTP\/1\.1 \d{3} )/)
      .filter((part) => part !== '')
      .map((part) => ({
        status: Number(part.slice(9, 12)),
        length: Number(/\r\ncontent-length: (\d+)\r\n/i.exec(part)?.[1]),
        after: part.slice(part.indexOf('\r\n\r\n') + 4),
      }))
  const HEAD = 'HEAD /healthz HTTP/1.1\r\nHost: x\r\n'

  it.each([
    ['its line in one packet, a bad header line in the next', [HEAD, 'Bad header\r\n\r\n'], 20],
    ['its line cut in two', ['HEAD /hea', 'lthz HTTP/1.1\r\nHost: x\r\n', 'Bad header\r\n\r\n'], 20],
    ['a byte a packet', [...`${HEAD}Bad header\r\n\r\n`], 2],
  ])('is answered 400 without a body, and logged as HEAD (%s)', async (_, parts, gapMs) => {
    const { seen, served } = await observedApp()
    try {
      // Its 400 had its 88-byte Error body: the refusal carried the packet it failed in alone, whose first
      // word is no method (found by bench/fuzz, about 1 case in 430).
      const answers = answersOf(await inParts(served.port, parts, gapMs))
      expect(answers.map((a) => [a.status, a.after])).toEqual([[400, '']])
      expect(answers[0]!.length).toBeGreaterThan(0)
      await expect.poll(() => seen.length).toBe(1)
      expect(seen.map((r) => [r.method, r.status])).toEqual([['HEAD', 400]])
    } finally {
      await served.close()
    }
  })

  it('is answered 400 without a body behind a GET answered from the packet its head began in', async () => {
    const { served } = await observedApp()
    try {
      // The rest of the head goes once the GET's answer has come, so that it is another packet for the server
      // too: sent 20 ms later, a busy CI machine once read both in one go (a head refused in the packet it began
      // in behind an answer under way: that answer closes the connection, and the HEAD gets nothing).
      const answers = answersOf(
        await new Promise<string>((resolve) => {
          const socket = connect(served.port, '127.0.0.1', () =>
            socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n${HEAD}`),
          )
          let text = ''
          socket.on('data', (chunk: Buffer) => {
            text += chunk.toString('latin1')
            if (text.endsWith('{"status":"ok"}')) socket.write('Bad header\r\n\r\n')
          })
          socket.on('close', () => resolve(text))
          socket.on('error', () => {})
        }),
      )
      expect(answers.map((a) => a.status)).toEqual([200, 400])
      expect(answers[1]!.after).toBe('')
    } finally {
      await served.close()
    }
  })

  it.each([
    ['', 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['after empty lines', '\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n\r\n'],
  ])(
    'is answered 400 without a body when its head, too large, began behind a GET %s in its packet',
    async (_, get) => {
      const { seen, served } = await observedApp()
      try {
        // node's refusal carries the packet, whose first line is the GET's: the HEAD is found behind the GET's head
        // (bench/fuzz seed 3706984561 of master 2001 on memory: a GET and a HEAD of too many header lines).
        const lines = Array.from({ length: 3000 }, (_, i) => `X-H${i}: v\r\n`).join('')
        const answers = answersOf(await inParts(served.port, [`${get}${HEAD}${lines}\r\n`]))
        expect(answers.map((a) => [a.status, a.after === ''])).toEqual([
          [200, false],
          [400, true],
        ])
        await expect.poll(() => seen.length).toBe(2)
        expect(seen.map((r) => [r.method, r.status])).toEqual([
          ['GET', 200],
          ['HEAD', 400],
        ])
      } finally {
        await served.close()
      }
    },
  )

  it('is answered 400 without a body when the rest of its head does not come within headersTimeout', async () => {
    const handle = inOrder(createHttpApp(memoryApp().options).callback())
    const server = createServer(
      { headersTimeout: 300, requestTimeout: 1_000, connectionsCheckingInterval: 50 },
      handle,
    )
    answerEveryRequest(server, handle)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const answers = answersOf(await inParts((server.address() as AddressInfo).port, [HEAD]))
      expect(answers.map((a) => [a.status, a.after])).toEqual([[400, '']])
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})

describe('a connection that times out', () => {
  it('is closed without an answer, a line or a count when it never sent a byte; a head begun gets its 400', async () => {
    const seen: Array<ObservedRequest> = []
    const app = memoryApp()
    const handle = inOrder(
      createHttpApp({
        ...app.options,
        operations: { observe: (request) => void seen.push(request) },
      }).callback(),
    )
    // node checks its connections' timeouts every connectionsCheckingInterval (30 s unless given).
    const server = createServer(
      { headersTimeout: 300, requestTimeout: 1_000, connectionsCheckingInterval: 50 },
      handle,
    )
    answerEveryRequest(server, handle)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    try {
      // A browser's preconnect, a balancer's TCP check: nothing sent, nothing asked.
      const idle = await inParts(port, [])
      expect(idle).toBe('')
      expect(seen).toEqual([])
      const begun = await inParts(port, ['GET /healthz HTTP/1.1\r\nHost: x\r\n'])
      expect(begun).toMatch(/^HTTP\/1\.1 400 /)
      expect(begun).toContain('did not arrive in time')
      expect(seen.map((request) => request.status)).toEqual([400])
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})

describe('a request answered whole, then bytes node refuses on its connection', () => {
  // A listing that waits for its key while more bytes come on its connection.
  const slowApp = async () => {
    const app = memoryApp()
    const { authenticator } = app.options
    const slow: Authenticator = {
      authenticate: (key) => () =>
        new Promise((resolve) => setTimeout(() => void authenticator.authenticate(key)().then(resolve), 200)),
    }
    const seen: Array<ObservedRequest> = []
    const served = await serveApp({
      ...app.options,
      authenticator: slow,
      operations: { observe: (request) => void seen.push(request) },
    })
    return { served, seen }
  }
  const exchange = (port: number, first: string, then: string, gapMs: number) =>
    new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        if (gapMs === 0) socket.write(first + then)
        else {
          socket.write(first)
          setTimeout(() => socket.write(then), gapMs)
        }
      })
      let text = ''
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
      socket.on('close', () => resolve(text))
      socket.on('error', () => {})
    })
  const LIST = `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\nX-Request-Id: good\r\n\r\n`

  it.each([
    ['a header line without its colon', 'GET /v1/pets HTTP/1.1\r\nHost x\r\n\r\n', 0],
    ['a header line without its colon, later', 'GET /v1/pets HTTP/1.1\r\nHost x\r\n\r\n', 50],
    // As node's own client sends the body of a DELETE: without a length, so it reads as the next request.
    ['a body without a length', '{"name":"Rex"}', 0],
  ])(
    'answers the request, saying Connection: close, then closes: %s is no request to answer',
    async (_, then, gapMs) => {
      const { served, seen } = await slowApp()
      try {
        const answer = await exchange(served.port, LIST, then, gapMs)
        expect(answer.match(/HTTP\/1\.1 \d{3} /g)).toEqual(['HTTP/1.1 200 '])
        expect(answer.toLowerCase()).toContain('\r\nconnection: close\r\n')
        expect(answer.toLowerCase()).toContain('\r\nx-request-id: good\r\n')
        await expect.poll(() => seen.length).toBe(1)
        expect(seen[0]).toMatchObject({ requestId: 'good', status: 200, aborted: false })
      } finally {
        await served.close()
      }
    },
  )

  // Every request handed over before the refused bytes came before them: each is answered in its turn, the last
  // saying Connection: close (RFC 9112 section 9.3.2 lets a server answer the requests it read, then close).
  // The creation was neither answered nor run under inOrder (the close went on the listing's answer), and run
  // but not answered without it: its pet added, its client left to guess.
  it.each([
    ['in the same packet', 0],
    ['in a later packet', 50],
  ])(
    'answers a creation pipelined between the request under way and bytes that are no request, then closes: %s',
    async (_, gapMs) => {
      const { served, seen } = await slowApp()
      try {
        const answer = await exchange(
          served.port,
          LIST + creation(),
          'GET /v1/pets HTTP/1.1\r\nHost x\r\n\r\n',
          gapMs,
        )
        expect(answer.match(/HTTP\/1\.1 \d{3} /g)).toEqual(['HTTP/1.1 200 ', 'HTTP/1.1 201 '])
        const [listing, created] = answer.toLowerCase().split('http/1.1 201 ')
        expect(listing).toContain('\r\nconnection: keep-alive\r\n')
        expect(created).toContain('\r\nconnection: close\r\n')
        await expectObserved(seen, [
          ['GET', 200],
          ['POST', 201],
        ])
      } finally {
        await served.close()
      }
    },
  )

  it.each([
    ['in the same packet', 0],
    ['in a later packet', 50],
  ])('answers it too without inOrder, where node runs it at once: %s', async (_, gapMs) => {
    const app = memoryApp()
    const { authenticator } = app.options
    const slow: Authenticator = {
      authenticate: (key) => () =>
        new Promise((resolve) => setTimeout(() => void authenticator.authenticate(key)().then(resolve), 200)),
    }
    const handle = createHttpApp({ ...app.options, authenticator: slow }).callback()
    const server = createServer({ maxHeaderSize: 16 * 1024, ...APP_ANSWERS_EVERY_REQUEST }, handle)
    answerEveryRequest(server, handle)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as AddressInfo
      const answer = await exchange(port, LIST + creation(), 'GET /v1/pets HTTP/1.1\r\nHost x\r\n\r\n', gapMs)
      expect(answer.match(/HTTP\/1\.1 \d{3} /g)).toEqual(['HTTP/1.1 200 ', 'HTTP/1.1 201 '])
      expect(answer.toLowerCase().split('http/1.1 201 ')[1]).toContain('\r\nconnection: close\r\n')
      expect(app.added()).toBe(1)
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  it('answers a creation that says Connection: close, pipelined behind, when the client sends more after it', async () => {
    // llhttp refuses what comes after a request that says Connection: close (HPE_CLOSED_CONNECTION: the client
    // may send nothing more, RFC 9112 section 9.6). Refused while the listing was under way, those bytes closed
    // the connection after it, and the creation was never run; a fast store had answered it first (found by
    // bench/fuzz as an answer missing on PostgreSQL, 40 tries of 40).
    const { served, seen } = await slowApp()
    try {
      const answer = await exchange(
        served.port,
        LIST + creation('Connection: close\r\n'),
        `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\n\r\n`,
        0,
      )
      expect(answer.match(/HTTP\/1\.1 \d{3} /g)).toEqual(['HTTP/1.1 200 ', 'HTTP/1.1 201 '])
      expect(answer.slice(0, answer.indexOf('HTTP/1.1 201 ')).toLowerCase()).toContain(
        '\r\nconnection: keep-alive\r\n',
      )
      await expectObserved(seen, [
        ['GET', 200],
        ['POST', 201],
      ])
    } finally {
      await served.close()
    }
  })

  it('answers a method node does not know, pipelined behind a creation, as its own: 201, then 405', async () => {
    const { served, seen } = await slowApp()
    try {
      const answer = await exchange(
        served.port,
        creation(),
        `FOO /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\nX-Request-Id: foo\r\n\r\n`,
        0,
      )
      expect(answer.match(/HTTP\/1\.1 \d{3} /g)).toEqual(['HTTP/1.1 201 ', 'HTTP/1.1 405 '])
      await expectObserved(seen, [
        ['POST', 201],
        ['_OTHER', 405],
      ])
      expect(seen[1]?.requestId).toBe('foo')
    } finally {
      await served.close()
    }
  })
})

describe('a request that asks to upgrade (Connection: upgrade, and an Upgrade), with requests pipelined behind it', () => {
  const held = memoryAppServedForAll()
  const answersIn = (text: string) => text.match(/HTTP\/1\.1 \d{3} /g) ?? []
  const next = creation()

  it.each([
    ['Connection: Upgrade\r\nUpgrade: websocket\r\n', `Authorization: ${BEARER}\r\n`, 200],
    ['Connection: keep-alive, UPGRADE\r\nUpgrade: h2c\r\n', '', 401],
    ['Connection: keep-alive\r\nConnection: upgrade\r\nUpgrade: x\r\n', `Authorization: ${BEARER}\r\n`, 200],
  ])(
    'is answered saying Connection: close, then its connection closes: node drops what follows it in its packet (%j)',
    async (asks, key, status) => {
      const answer = await raw(
        held.served.port,
        `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${key}${asks}\r\n${next}`,
      )
      // The creation behind it was never read: its client, told so, sends it again on another connection.
      expect(answersIn(answer)).toEqual([`HTTP/1.1 ${status} `])
      expect(answer.toLowerCase()).toContain('\r\nconnection: close\r\n')
    },
  )

  it.each(['Connection: upgrade\r\n', 'Upgrade: websocket\r\n', 'Connection: upgrade\r\nUpgrade:\r\n'])(
    'keeps the connection of a request that does not (%j): what follows it is served',
    async (headers) => {
      const answer = await raw(
        held.served.port,
        `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\n${headers}\r\n${next.replace('Content-Type', 'Connection: close\r\nContent-Type')}`,
      )
      expect(answersIn(answer)).toEqual(['HTTP/1.1 200 ', 'HTTP/1.1 201 '])
    },
  )
})

describe('a method node does not know, with a body', () => {
  it('gets the answer of the app alone, though its body comes while the key is looked up', async () => {
    const app = memoryApp()
    const { authenticator } = app.options
    // A store that takes its time, as PostgreSQL may: the body's bytes arrive before the answer.
    const slow: Authenticator = {
      authenticate: (key) => () =>
        new Promise((resolve) => setTimeout(() => void authenticator.authenticate(key)().then(resolve), 300)),
    }
    const served = await serveApp({ ...app.options, authenticator: slow })
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(served.port, '127.0.0.1', () => {
          socket.write(
            `FOO /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\nContent-Length: 10\r\n\r\n`,
          )
          setTimeout(() => socket.write('hello'), 50)
          setTimeout(() => socket.write('world'), 100)
        })
        let text = ''
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
        socket.on('end', () => resolve(text))
        socket.on('error', reject)
      })
      // One answer, the app's: no 400 of node's parser, which refuses the body's bytes too, written before it.
      expect(answer).toMatch(/^HTTP\/1\.1 405 /)
      expect(answer.match(/HTTP\/1\.1 /g)).toHaveLength(1)
    } finally {
      await served.close()
    }
  })
})

describe('a method node does not know, with a large body', () => {
  it('gets its answer whole, never a reset, while the body is still being sent', async () => {
    const served = await serveApp(memoryApp().options)
    try {
      for (let round = 0; round < 5; round++) {
        const body = Buffer.alloc(1024 * 1024, 0x61)
        const answer = await new Promise<string>((resolve, reject) => {
          const socket = connect(served.port, '127.0.0.1', () => {
            socket.write(`FOO /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`)
            socket.write(body)
          })
          let text = ''
          socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
          socket.on('end', () => resolve(text))
          socket.on('error', (error) =>
            reject(new Error(`after ${JSON.stringify(text.slice(0, 20))}: ${error.message}`)),
          )
        })
        expect(answer).toMatch(/^HTTP\/1\.1 401 /)
      }
    } finally {
      await served.close()
    }
  })
})

describe('keys that are not valid, per client address', () => {
  let lookups = 0
  // The same keys, on a store that looks every key up (as PostgreSQL does while its index of keys
  // is down), and on one that answers every key from memory.
  let lookingUp: ServedApp
  let inMemory: ServedApp
  let ms = 0
  beforeAll(async () => {
    const app = memoryApp()
    const { authenticator } = app.options
    const counting: Authenticator = {
      authenticate: (key) => {
        lookups++
        return authenticator.authenticate(key)
      },
    }
    const limiter = () =>
      createTokenBucketRateLimiter({ perSecond: 0.5, burst: 3, maxKeys: 100, now: () => ms })
    // One trusted proxy: the address is the last of X-Forwarded-For, so a test can be many clients.
    lookingUp = await serveApp({
      ...app.options,
      authenticator: counting,
      authFailureLimiter: limiter(),
      trustedProxies: 1,
    })
    inMemory = await serveApp({ ...app.options, authFailureLimiter: limiter(), trustedProxies: 1 })
  })
  afterAll(async () => {
    await lookingUp.close()
    await inMemory.close()
  })
  const sender = (served: () => ServedApp) => (address: string, authorization?: string) =>
    served().send({
      path: '/v1/pets',
      headers: {
        'X-Forwarded-For': `10.9.9.9, ${address}`,
        ...(authorization === undefined ? {} : { Authorization: authorization }),
      },
    })
  const from = sender(() => lookingUp)

  it('answers keys checked in memory at once, 200 or 401, never 429 for what other requests did', async () => {
    const send = sender(() => inMemory)
    for (let i = 0; i < 50; i++) expect((await send('198.51.100.9', `Bearer guess-${i}`)).status).toBe(401)
    expect((await send('198.51.100.9', BEARER)).status).toBe(200)
    expect((await send('198.51.100.9', 'Bearer guess-51')).status).toBe(401)
  })

  it('answers 429 with Retry-After, before any lookup, once an address has spent its failed lookups', async () => {
    lookups = 0
    const guesses = [
      await from('198.51.100.1', 'Bearer guess-1'),
      await from('198.51.100.1', 'Bearer guess-2'),
    ]
    guesses.push(await from('198.51.100.1', 'Bearer guess-3'))
    expect(guesses.map((a) => a.status)).toEqual([401, 401, 401])
    expect(lookups).toBe(3)
    const refused = await from('198.51.100.1', 'Bearer guess-4')
    expect(refused.status).toBe(429)
    expect(errorBodyOf(refused)).toMatchObject({ code: 'rate_limited', status: 429 })
    expect(errorBodyOf(refused).message).toContain('from this address')
    expect(refused.headers['retry-after']).toBe('2')
    // A key that only a lookup can check waits too, valid or not: the limit guards the lookup.
    expect((await from('198.51.100.1', BEARER)).status).toBe(429)
    expect(lookups).toBe(3)
    // Without a key there is nothing to look up: a 401 as ever.
    expect((await from('198.51.100.1')).status).toBe(401)
    // Other addresses are served, and their failures counted apart.
    expect((await from('198.51.100.2', `Bearer ${KEYS[1]}`)).status).toBe(200)
    expect((await from('198.51.100.2', 'Bearer guess-5')).status).toBe(401)
    // A token comes back at the rate: one more guess, looked up, then 429 again.
    ms += 2_000
    expect((await from('198.51.100.1', 'Bearer guess-6')).status).toBe(401)
    expect((await from('198.51.100.1', 'Bearer guess-7')).status).toBe(429)
  })

  it('counts an IPv6 client by its /64, so that changing address within it starts nothing afresh', async () => {
    for (const address of ['2001:db8:7:1::1', '2001:db8:7:1::2', '2001:db8:7:1:ffff::3'])
      expect((await from(address, 'Bearer guess')).status).toBe(401)
    expect((await from('2001:db8:7:1:0:0:0:4', 'Bearer guess')).status).toBe(429)
    expect((await from('2001:db8:7:2::1', 'Bearer guess')).status).toBe(401)
  })
})

describe('what a body can make the service say', () => {
  const held = memoryAppServedForAll()

  it(`names the first ${UNKNOWN_NAMED} unknown fields and counts the rest, so the answer stays small`, async () => {
    const keys = Array.from({ length: 5_000 }, (_, i) => `k${i}`)
    const body = JSON.stringify({
      name: 'Rex',
      categoryId: 1,
      ...Object.fromEntries(keys.map((k) => [k, 1])),
    })
    expect(body.length).toBeLessThan(64 * 1024)
    const answer = await held.served.post(body)
    expect(answer.status).toBe(400)
    const { message } = errorBodyOf(answer)
    expect(message).toContain('k0 is not a field of a new pet')
    expect(message).toContain(`k${UNKNOWN_NAMED - 1} is not`)
    expect(message).not.toContain(`k${UNKNOWN_NAMED} is not`)
    expect(message).toContain(`${5_000 - UNKNOWN_NAMED} more are unknown too`)
    expect(answer.text.length).toBeLessThan(3_000)
  })

  it('cuts an unknown field name of thousands of characters', async () => {
    const answer = await held.served.post(
      JSON.stringify({ name: 'Rex', categoryId: 1, ['x'.repeat(60_000)]: 1 }),
    )
    expect(answer.status).toBe(400)
    expect(answer.text.length).toBeLessThan(500)
  })

  it.each([
    '9007199254740990.5',
    '9007199254740991.4',
    '9007199254740991.00000000001',
    '0.99999999999999999',
    '9007199254740992.0',
    '9007199254740993',
    '1e400',
    '-0',
  ])(
    'refuses a categoryId written %s, though JSON.parse may make an integer in range of it',
    async (text) => {
      // The app is shared by the file's tests: none of them adds, in whatever order they run.
      const before = held.app.added()
      const answer = await held.served.post(`{"name":"Rex","categoryId":${text}}`)
      expect(answer.status, answer.text).toBe(400)
      expect(errorBodyOf(answer).message).toContain('categoryId')
      expect(held.app.added() - before).toBe(0)
    },
  )

  it('names a bad Idempotency-Key along with a body that is no JSON', async () => {
    const answer = await held.served.post('{', { 'Idempotency-Key': 'k'.repeat(300) })
    expect(answer.status).toBe(400)
    expect(errorBodyOf(answer).message).toMatch(
      /^The request body is not valid JSON\. Also, Idempotency-Key .+\.$/,
    )
    expect(errorBodyOf(await held.served.post('{')).message).toBe('The request body is not valid JSON.')
  })

  it('says a URL is too long along with a body that is no JSON, and reads none of its thousands of parameters', async () => {
    // A 16 KiB head holds 2,500 such names, each to parse and refuse; a JSON body's URL is refused unread.
    const path = `/v1/pets?${Array.from({ length: 2_500 }, (_, i) => `p${i}`).join('&')}`
    const answer = await held.served.send({
      method: 'POST',
      path,
      headers: { Authorization: BEARER, 'Content-Type': 'application/json', 'Idempotency-Key': '' },
      body: '{',
    })
    expect(answer.status).toBe(400)
    expect(errorBodyOf(answer).message).toBe(
      `The request body is not valid JSON. Also, the URL must be at most 4096 bytes long (it has ${path.length}); ` +
        'Idempotency-Key must not be empty.',
    )
  })

  it('names a rounded categoryId among the other issues of the body, and no other number', async () => {
    const before = held.app.added()
    const answer = await held.served.post('{"name":"","categoryId":0.99999999999999999,"status":"lost"}', {
      'Idempotency-Key': ' ',
    })
    expect(answer.status, answer.text).toBe(400)
    const { message } = errorBodyOf(answer)
    for (const field of ['name', 'categoryId', 'status', 'Idempotency-Key']) expect(message).toContain(field)
    expect(message).toContain('though it would be rounded to one')
    // An unknown field's fraction is that field's issue, not the category's.
    const other = errorBodyOf(await held.served.post('{"name":"Rex","categoryId":1,"weight":0.5}')).message
    expect(other).toBe(
      'Invalid request: weight is not a field of a new pet (allowed: name, categoryId, status).',
    )
    expect(held.app.added() - before).toBe(0)
  })

  it.each([
    ['3.0', 3],
    ['1e2', 100],
    ['0.1e1', 1],
    ['100000000000000000000e-20', 1],
    ['90071992547409910e-1', 9007199254740991],
  ])('accepts a categoryId written %s: the integer %s, exactly', async (text, value) => {
    const answer = await held.served.post(`{"name":"Rex","categoryId":${text}}`)
    expect(answer.status, answer.text).toBe(201)
    expect(JSON.parse(answer.text)).toMatchObject({ categoryId: value })
  })

  it.each([
    '{"name":"1.5","categoryId":3}',
    '{"name":"1e2 \\" 2.5 \\\\","categoryId":9007199254740991}',
    '{ "categoryId" : 12 , "name" : "-0.5e3", "status" : "sold" }',
    '{"name":"Rex","categoryId":1000000000000000}',
    '{"name":"\\u0031.5","categoryId":7}',
  ])('still accepts %s: numbers inside strings are no numbers', async (body) => {
    const answer = await held.served.post(body)
    expect(answer.status, answer.text).toBe(201)
  })

  it.each([
    '/v1/pets?limit=1e1',
    '/v1/pets?limit=10.0',
    '/v1/pets?after=9007199254740993',
    '/v1/pets?after=1.5',
    '/v1/pets/9007199254740993',
    '/v1/pets/1.0',
    '/v1/pets/1e0',
  ])('refuses an integer parameter that is not one exactly: %s', async (path) => {
    const answer = await held.served.send({ path, headers: { Authorization: BEARER } })
    expect(answer.status).toBe(400)
    expect(errorBodyOf(answer).code).toBe('validation_failed')
  })

  it.each([
    ['/v1/pets/1?foo=bar', 'Invalid request: foo is not a parameter of this operation (allowed: none).'],
    [
      '/v1/pets/x?limit=2&limit=3&=',
      'Invalid request: petId must be an integer from 1 to 9007199254740991; limit is not a parameter of this ' +
        'operation (allowed: none); "" is not a parameter of this operation (allowed: none).',
    ],
    // A second `?` is the start of the first parameter's name, as the URL standard reads a query.
    ['/v1/pets/1??', 'Invalid request: ? is not a parameter of this operation (allowed: none).'],
    ['/v1/pets/1??x=1', 'Invalid request: ?x is not a parameter of this operation (allowed: none).'],
  ])('refuses a query parameter getPet does not take, as listPets refuses one: %s', async (path, message) => {
    const answer = await held.served.send({ path, headers: { Authorization: BEARER } })
    expect(answer.status).toBe(400)
    expect(errorBodyOf(answer).message).toBe(message)
    expect(answer.headers['deprecation']).toBeDefined()
    const { id } = JSON.parse((await held.served.post('{"name":"Rex","categoryId":1}')).text) as {
      id: number
    }
    // An empty query is none.
    expect(
      (await held.served.send({ path: `/v1/pets/${id}?`, headers: { Authorization: BEARER } })).status,
    ).toBe(200)
  })

  it('refuses a parameter of a listing whose name begins with a second ?, rather than read it without', async () => {
    const answer = await held.served.send({
      path: '/v1/pets??status=sold',
      headers: { Authorization: BEARER },
    })
    expect(answer.status).toBe(400)
    expect(errorBodyOf(answer).message).toBe(
      'Invalid request: ?status is not a parameter of this operation (allowed: limit, status, after).',
    )
  })

  it('refuses a query parameter createPet does not take, named with the issues of its body', async () => {
    const post = (path: string, body: string) =>
      held.served.send({
        method: 'POST',
        path,
        headers: { Authorization: BEARER, 'Content-Type': 'application/json' },
        body,
      })
    const unknown = await post('/v1/pets?status=sold', '{"name":"Rex","categoryId":1}')
    expect(unknown.status).toBe(400)
    expect(errorBodyOf(unknown).message).toBe(
      'Invalid request: status is not a parameter of this operation (allowed: none).',
    )
    const both = await post('/v1/pets?dryRun=1', '{"name":"Rex","categoryId":0}')
    expect(errorBodyOf(both).message).toBe(
      'Invalid request: categoryId must be an integer from 1 to 9007199254740991; dryRun is not a parameter ' +
        'of this operation (allowed: none).',
    )
    const noJson = await post('/v1/pets?dryRun=1', '{')
    expect(errorBodyOf(noJson).message).toMatch(
      /^The request body is not valid JSON\..* Also, dryRun is not a parameter of this operation \(allowed: none\)\.$/,
    )
    expect((await post('/v1/pets?', '{"name":"Rex","categoryId":1}')).status).toBe(201)
  })

  it('closes the connection after a 413 for a chunked body that passes the limit as it arrives', async () => {
    // Nine chunks of 8 KiB (0x2000 bytes): over the 64 KiB limit, with no length declared.
    const chunk = `2000\r\n${'x'.repeat(0x2000)}\r\n`
    const answer = await raw(
      held.served.port,
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ' +
        `${BEARER}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n` +
        chunk.repeat(9),
    )
    expect(answer).toMatch(/^HTTP\/1\.1 413 /)
    expect(answer.toLowerCase()).toContain('connection: close')
  })
})
