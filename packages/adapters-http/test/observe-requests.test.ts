import { storeUnavailable, type StoreUnavailable } from '@pets/domain'
import { pollUntil } from '@pets/domain/testing'
import * as E from 'fp-ts/lib/Either.js'
import { connect } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { ObservedRequest } from '../src/index.js'
import { appOptions, KEY, raw, recordingLogger, serve } from './serve.js'
import { serveApp } from './support/memory-app.js'

const AUTH = { Authorization: `Bearer ${KEY}` }

describe('the request log and the request observer', () => {
  const open: Array<{ close: () => Promise<void> }> = []
  afterEach(async () => {
    await Promise.all(open.splice(0).map((app) => app.close()))
  })
  const start = async (options: Parameters<typeof serve>[0]) => {
    const app = await serve(options)
    open.push(app)
    return app
  }

  it('logs one line per request with method, route template, status, duration, request id and key id', async () => {
    const logger = recordingLogger()
    const app = await start(appOptions({ logger }))
    await app.fetch('/v1/pets/7', { headers: { ...AUTH, 'X-Request-Id': 'req-1' } })
    await app.fetch('/v1/pets', { headers: { 'X-Request-Id': 'req-2' } })
    await app.fetch('/healthz', { headers: { 'X-Request-Id': 'req-3' } })
    expect(logger.lines.map((l) => [l.level, l.message])).toEqual([
      ['info', 'request'],
      ['info', 'request'],
      ['info', 'request'],
    ])
    const [getPet, unauthorized, health] = logger.lines.map((l) => l.fields)
    expect(getPet).toEqual({
      requestId: 'req-1',
      method: 'GET',
      route: '/v1/pets/{petId}',
      operation: 'getPet',
      status: 404,
      durationMs: expect.any(Number),
      apiKeyId: 'test-1',
      clientAddress: '127.0.0.1',
      path: null,
      aborted: false,
    })
    expect(unauthorized).toMatchObject({ requestId: 'req-2', route: null, status: 401, apiKeyId: null })
    expect(health).toMatchObject({ requestId: 'req-3', route: '/healthz', operation: null, status: 200 })
  })

  it('names the document, the docs page and its assets by route, as the operations endpoints are', async () => {
    const logger = recordingLogger()
    const app = await start(appOptions({ logger }))
    const page = await (await app.fetch('/docs')).text()
    const asset = /href="(\/docs\/assets\/[^"]+\/swagger-ui\.css)"/.exec(page)![1]!
    await app.fetch('/openapi.json')
    await app.fetch(asset)
    await app.fetch('/docs/init.js')
    expect(logger.lines.map((l) => [l.fields['route'], l.fields['status'], l.fields['path']])).toEqual([
      ['/docs', 200, null],
      ['/openapi.json', 200, null],
      ['/docs/assets/{version}/swagger-ui.css', 200, null],
      ['/docs/init.js', 200, null],
    ])
  })

  it('logs the client address and, when no route matched (a scan, a 401), the path as sent without its query', async () => {
    const logger = recordingLogger()
    const app = await start(appOptions({ logger }))
    await app.fetch('/wp-admin/setup%20config.php?secret=1')
    await app.fetch('/v1/admin/users', { headers: { Authorization: 'Bearer not-a-key' } })
    await app.fetch(`/${'a'.repeat(1000)}`)
    const [scan, unauthorized, long] = logger.lines.map((l) => l.fields)
    expect(scan).toMatchObject({ route: null, status: 404, clientAddress: '127.0.0.1' })
    expect(scan?.['path']).toBe('/wp-admin/setup%20config.php')
    expect(unauthorized).toMatchObject({ route: null, status: 401, path: '/v1/admin/users' })
    expect(long?.['path']).toBe(`/${'a'.repeat(255)}…`)
  })

  it("logs an absolute-form target's path alone: never its scheme, authority and credentials, nor a fragment", async () => {
    const logger = recordingLogger()
    const app = await start(appOptions({ logger }))
    const port = Number(new URL(app.url).port)
    await raw(
      port,
      'GET http://user:s3cret@127.0.0.1/wp-login.php?x=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    )
    await raw(port, 'GET /nowhere#part HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    expect(logger.lines.map((l) => l.fields['path'])).toEqual(['/wp-login.php', '/nowhere'])
    expect(JSON.stringify(logger.lines)).not.toContain('s3cret')
  })

  it("logs a CONNECT's authority-form target as its host and port: never credentials that node let through", async () => {
    const logger = recordingLogger()
    // Served through answerEveryRequest, as apps/api serves: a CONNECT reaches the app (401, 404 or 405).
    const app = await serveApp(appOptions({ logger }))
    open.push(app)
    await raw(app.port, 'CONNECT user:s3cret@example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n')
    await raw(app.port, 'CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\n\r\n')
    expect(logger.lines.map((l) => [l.fields['method'], l.fields['path']])).toEqual([
      ['CONNECT', 'example.com:443'],
      ['CONNECT', '[::1]:443'],
    ])
    expect(JSON.stringify(logger.lines)).not.toContain('s3cret')
  })

  it('takes the client address from X-Forwarded-For only as far as the trusted proxies go', async () => {
    const forwarded = { 'X-Forwarded-For': '203.0.113.9, 198.51.100.7, 192.0.2.1' }
    const seen = async (trustedProxies: number | undefined) => {
      const logger = recordingLogger()
      const app = await start(
        appOptions({ logger, ...(trustedProxies === undefined ? {} : { trustedProxies }) }),
      )
      await app.fetch('/healthz', { headers: forwarded })
      await app.fetch('/healthz', { headers: { 'X-Forwarded-For': 'not an address' } })
      return logger.lines.map((l) => l.fields['clientAddress'])
    }
    expect(await seen(undefined)).toEqual(['127.0.0.1', '127.0.0.1'])
    expect(await seen(1)).toEqual(['192.0.2.1', '127.0.0.1'])
    expect(await seen(2)).toEqual(['198.51.100.7', '127.0.0.1'])
    expect(await seen(5)).toEqual(['203.0.113.9', '127.0.0.1'])
  })

  it('never logs the API key or the Authorization header', async () => {
    const logger = recordingLogger()
    const app = await start(appOptions({ logger }))
    await app.fetch('/v1/pets', { headers: AUTH })
    await app.fetch('/v1/pets', { headers: { Authorization: 'Bearer not-the-key-but-secret' } })
    const logged = JSON.stringify(logger.lines)
    expect(logged).not.toContain(KEY)
    expect(logged).not.toContain('not-the-key-but-secret')
    expect(logged.toLowerCase()).not.toContain('authorization')
  })

  it('answers a use case that throws with 500 internal_error, logged once with the request id, no details', async () => {
    const logger = recordingLogger()
    const options = appOptions({ logger })
    const app = await start({
      ...options,
      useCases: {
        ...options.useCases,
        listPets: () => () => Promise.reject(new Error('a bug at /srv/secret/path.ts:12:3')),
      },
    })
    const res = await app.fetch('/v1/pets', { headers: { ...AUTH, 'X-Request-Id': 'req-500' } })
    expect(res.status).toBe(500)
    expect(res.headers.get('x-request-id')).toBe('req-500')
    const body = await res.text()
    expect(JSON.parse(body)).toEqual({
      code: 'internal_error',
      message: expect.any(String),
      status: 500,
    })
    expect(body).not.toContain('secret')
    const errors = logger.lines.filter((l) => l.level === 'error')
    expect(errors).toHaveLength(1)
    expect(errors[0]?.fields).toMatchObject({ requestId: 'req-500', err: expect.any(Error) })
    expect(logger.lines.filter((l) => l.message === 'request').map((l) => l.fields['status'])).toEqual([500])
  })

  describe('a request whose store cannot serve it', () => {
    const failure = storeUnavailable(new Error('connect ECONNREFUSED'))
    const details = { operation: 'pets.list', sqlstate: null, retried: false }
    // The store fails `answerAfterMs` after the listing reached it (`reached`).
    const failing = (answerAfterMs = 0) => {
      const logger = recordingLogger()
      const options = appOptions({ logger })
      let reachedStore = () => {}
      const reached = new Promise<void>((resolve) => (reachedStore = resolve))
      const listPets = () => () => {
        reachedStore()
        return new Promise<E.Either<StoreUnavailable, never>>((resolve) =>
          setTimeout(() => resolve(E.left({ ...failure, details })), answerAfterMs),
        )
      }
      return { logger, reached, options: { ...options, useCases: { ...options.useCases, listPets } } }
    }

    it('is answered 503, and its request line alone says what the store said and why: no line of its own', async () => {
      const { logger, options } = failing()
      const app = await start(options)
      const res = await app.fetch('/v1/pets', { headers: { ...AUTH, 'X-Request-Id': 'req-503' } })
      expect(res.status).toBe(503)
      await res.text()
      expect(logger.lines.map((l) => [l.level, l.message, l.fields['requestId']])).toEqual([
        ['info', 'request', 'req-503'],
      ])
      // The message of the cause, never its stack: an outage is no bug (the store's own lines tell of it once).
      expect(logger.lines[0]?.fields).toMatchObject({
        status: 503,
        store: { ...details, cause: 'connect ECONNREFUSED' },
      })
    })

    it("is answered 503 through a logger whose methods need their object, as pino's do", async () => {
      class Lines {
        readonly lines: Array<string> = []
        info(_fields: object, message: string) {
          this.lines.push(`info ${message}`)
        }
        error(_fields: object, message: string) {
          this.lines.push(`error ${message}`)
        }
      }
      const logger = new Lines()
      const { options } = failing()
      const app = await start({ ...options, logger })
      const res = await app.fetch('/v1/pets', { headers: AUTH })
      expect(res.status).toBe(503)
      expect(logger.lines).toEqual(['info request'])
    })

    it("leaves the store's failure off the line of /readyz: a probe asked, and its request line says 503", async () => {
      const { logger, options } = failing()
      const app = await start({ ...options, operations: { ready: () => async () => E.left(failure) } })
      expect((await app.fetch('/readyz')).status).toBe(503)
      expect(logger.lines.map((l) => [l.level, l.message, l.fields['status'], l.fields['store']])).toEqual([
        ['info', 'request', 503, undefined],
      ])
    })

    it('says on the line of a request whose client left first why the store did not serve it, and that no 503 went out', async () => {
      const { logger, reached, options } = failing(300)
      const app = await start(options)
      // A client that sends its request and leaves before the answer.
      const socket = connect(Number(new URL(app.url).port), '127.0.0.1')
      socket.on('error', () => {})
      socket.write(
        `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH.Authorization}\r\nX-Request-Id: req-gone\r\n\r\n`,
      )
      // Gone once the listing is under way, 300 ms before the store answers it.
      await reached
      socket.destroy()
      await pollUntil('the request is logged', () => logger.lines.some((l) => l.message === 'request'))
      expect(logger.lines.map((l) => [l.level, l.message, l.fields['requestId']])).toEqual([
        ['info', 'request', 'req-gone'],
      ])
      expect(logger.lines[0]?.fields).toMatchObject({
        status: 499,
        aborted: true,
        store: { ...details, cause: 'connect ECONNREFUSED' },
      })
    })
  })

  it('tells the observer of every request, also when info lines are off', async () => {
    const logger = recordingLogger(false)
    const seen: Array<ObservedRequest> = []
    const app = await start(appOptions({ logger, operations: { observe: (r) => void seen.push(r) } }))
    await app.fetch('/v1/pets', { headers: AUTH })
    await app.fetch('/nowhere')
    expect(logger.lines).toEqual([])
    expect(seen.map((r) => [r.method, r.route, r.operation, r.status, r.apiKeyId])).toEqual([
      ['GET', '/v1/pets', 'listPets', 200, 'test-1'],
      ['GET', null, null, 404, null],
    ])
  })

  it('builds no line at all when info is off and nobody observes', async () => {
    let built = 0
    const logger = {
      ...recordingLogger(false),
      info: () => void built++,
    }
    const app = await start(appOptions({ logger }))
    await app.fetch('/healthz')
    expect(built).toBe(0)
  })

  it('answers the request even when the observer throws, and logs that once', async () => {
    const logger = recordingLogger()
    const app = await start(
      appOptions({
        logger,
        operations: {
          observe: () => {
            throw new Error('metrics bug')
          },
        },
      }),
    )
    expect((await app.fetch('/healthz')).status).toBe(200)
    expect(logger.lines.filter((l) => l.level === 'error').map((l) => l.message)).toEqual([
      'observing a request failed',
    ])
  })
})
