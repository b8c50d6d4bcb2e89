import { createMemoryPetRepository } from '@pets/adapters-memory'
import { listPets, type Pet } from '@pets/domain'
import { describe, expect, it } from 'vitest'
import { createHttpApp, inOrder } from '../src/index.js'
import { LINGER_BYTES } from '../src/connection/linger.js'
import { fetchOf } from '../src/testing/index.js'
import { appOptions, KEY, recordingLogger } from './serve.js'

const AUTH = { Authorization: `Bearer ${KEY}` }
const JSON_TYPE = { 'Content-Type': 'application/json' }
const BASE = 'https://api.example.com'

describe('fetchOf: the HTTP API in-process, without a socket', () => {
  it('creates a pet: 201 with its Location and body, the JSON body sent as a string', async () => {
    const fetch = fetchOf(createHttpApp(appOptions()))
    const res = await fetch(`${BASE}/v1/pets`, {
      method: 'POST',
      headers: { ...AUTH, ...JSON_TYPE },
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    })
    expect(res.status).toBe(201)
    expect(res.headers.get('location')).toBe('https://api.example.com/v1/pets/1')
    expect(res.url).toBe(`${BASE}/v1/pets`)
    expect(await res.json()).toEqual({ id: 1, name: 'Rex', categoryId: 1, status: 'available' })
  })

  it('takes a body of bytes, and resolves a path alone against http://localhost', async () => {
    const fetch = fetchOf(createHttpApp(appOptions()))
    const bytes = new TextEncoder().encode('{"name":"Tom","categoryId":2}')
    const res = await fetch('/v1/pets', { method: 'POST', headers: { ...AUTH, ...JSON_TYPE }, body: bytes })
    expect(res.status).toBe(201)
    expect(res.url).toBe('http://localhost/v1/pets')
  })

  it('lists with a Link to the next page', async () => {
    const fetch = fetchOf(createHttpApp(appOptions()))
    for (const name of ['A', 'B', 'C'])
      await fetch(`${BASE}/v1/pets`, {
        method: 'POST',
        headers: { ...AUTH, ...JSON_TYPE },
        body: JSON.stringify({ name, categoryId: 1 }),
      })
    const res = await fetch(`${BASE}/v1/pets?limit=2`, { headers: AUTH })
    expect(res.status).toBe(200)
    expect(res.headers.get('link')).toBe('<https://api.example.com/v1/pets?limit=2&after=2>; rel="next"')
    expect(((await res.json()) as Array<Pet>).map((p) => p.name)).toEqual(['A', 'B'])
    // CONTRACT: the Link names the status when the request had one.
    const available = await fetch(`${BASE}/v1/pets?status=available&limit=1&after=1`, { headers: AUTH })
    expect(available.headers.get('link')).toBe(
      '<https://api.example.com/v1/pets?limit=1&status=available&after=2>; rel="next"',
    )
  })

  it('answers 401 with its challenge, and 400 with the Error body naming the field', async () => {
    const fetch = fetchOf(createHttpApp(appOptions()))
    const refused = await fetch(`${BASE}/v1/pets`)
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/)
    const bad = await fetch(`${BASE}/v1/pets`, {
      method: 'POST',
      headers: { ...AUTH, ...JSON_TYPE },
      body: JSON.stringify({ name: 'Rex', categoryId: 'one' }),
    })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ code: 'validation_failed', message: /categoryId/ })
  })

  it('answers HEAD with the headers of GET and no body', async () => {
    const fetch = fetchOf(createHttpApp(appOptions()))
    const res = await fetch(`${BASE}/v1/pets`, { method: 'HEAD', headers: AUTH })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.body).toBeNull()
  })

  it('sends the Host of the URL, whatever the headers say, as fetch does', async () => {
    const fetch = fetchOf((req, res) => res.end(req.headers.host))
    expect(await (await fetch('http://pets.test/x', { headers: { Host: 'elsewhere' } })).text()).toBe(
      'pets.test',
    )
    expect(await (await fetch('http://pets.test:8080/x')).text()).toBe('pets.test:8080')
  })

  it('gives each repeated header line to the Response', async () => {
    const fetch = fetchOf((_, res) => {
      res.setHeader('Set-Cookie', ['a=1', 'b=2'])
      res.setHeader('Link', ['<https://a.test>; rel="a"', '<https://b.test>; rel="b"'])
      res.end()
    })
    const res = await fetch('http://pets.test/')
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2'])
    expect(res.headers.get('link')).toBe('<https://a.test>; rel="a", <https://b.test>; rel="b"')
  })

  it.each([101, 103, 199])(
    'rejects an answer %i, a 1xx status, with a TypeError naming it',
    async (status) => {
      const fetch = fetchOf((_, res) => {
        res.statusCode = status
        res.end()
      })
      const error = await fetch('http://pets.test/').catch((e: unknown) => e)
      expect(error).toBeInstanceOf(TypeError)
      expect(error).toMatchObject({
        message: `fetchOf: the app answered ${status}, a 1xx status, which no Response can carry`,
      })
    },
  )

  it('rejects at once with an AbortError for a signal aborted before, and the app sees nothing', async () => {
    let served = 0
    const fetch = fetchOf((_, res) => {
      served += 1
      res.end()
    })
    const error = await fetch(`${BASE}/v1/pets`, { signal: AbortSignal.abort() }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DOMException)
    expect(error).toMatchObject({ name: 'AbortError' })
    // A listener dispatched anyway has been called by now.
    await new Promise((resolve) => setImmediate(resolve))
    expect(served).toBe(0)
  })

  it('rejects with the signal reason when aborted under way, and the app logs its client gone', async () => {
    const logger = recordingLogger()
    let release = () => {}
    let started = () => {}
    const listing = new Promise<void>((resolve) => (started = resolve))
    const pets = createMemoryPetRepository()
    const options = appOptions({ logger })
    const app = createHttpApp({
      ...options,
      useCases: {
        ...options.useCases,
        listPets: (q) => () =>
          new Promise((resolve) => {
            started()
            release = () => void listPets({ pets })(q)().then(resolve)
          }),
      },
    })
    const controller = new AbortController()
    const answer = fetchOf(app)(`${BASE}/v1/pets`, { headers: AUTH, signal: controller.signal })
    await listing
    controller.abort()
    await expect(answer).rejects.toMatchObject({ name: 'AbortError' })
    release()
    await expect.poll(() => logger.lines.length).toBe(1)
    expect(logger.lines[0]?.fields).toMatchObject({ aborted: true, status: 499 })
  })

  it('sends any method, as fetch does: one the app does not serve gets its 405', async () => {
    const res = await fetchOf(createHttpApp(appOptions()))(`${BASE}/v1/pets`, {
      method: 'BREW',
      headers: AUTH,
    })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toContain('GET')
  })

  it('closes the answer of a body left unread past the linger bounds, without a crash', async () => {
    const fetch = fetchOf(createHttpApp(appOptions()))
    const res = await fetch(`${BASE}/v1/pets`, {
      method: 'POST',
      headers: JSON_TYPE,
      body: 'x'.repeat(LINGER_BYTES + 1),
    })
    expect(res.status).toBe(401)
    expect(res.headers.get('connection')).toBe('close')
  })

  it('gives the app a client address: 127.0.0.1, or the one asked for', async () => {
    const seen: Array<string> = []
    const operations = { observe: (r: { clientAddress: string }) => void seen.push(r.clientAddress) }
    await fetchOf(createHttpApp(appOptions({ operations })))(`${BASE}/healthz`)
    await fetchOf(createHttpApp(appOptions({ operations })), { remoteAddress: '203.0.113.9' })(
      `${BASE}/healthz`,
    )
    expect(seen).toEqual(['127.0.0.1', '203.0.113.9'])
  })

  it('serves through a request listener, such as the pipelining guard in front of the app', async () => {
    const fetch = fetchOf(inOrder(createHttpApp(appOptions()).callback()))
    expect((await fetch(`${BASE}/v1/pets`, { headers: AUTH })).status).toBe(200)
  })
})
