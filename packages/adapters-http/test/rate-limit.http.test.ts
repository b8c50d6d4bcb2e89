import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTokenBucketRateLimiter } from '../src/index.js'
import { BEARER, errorBodyOf, KEYS, memoryApp, serveApp, type ServedApp } from './support/memory-app.js'

describe('rate limits per API key (in-process, in memory)', () => {
  let ms = 0
  let served: ServedApp
  beforeEach(async () => {
    ms = 0
    const rateLimiter = createTokenBucketRateLimiter({ perSecond: 2, burst: 3, now: () => ms })
    served = await serveApp(memoryApp({ rateLimiter }).options)
  })
  afterEach(async () => {
    await served.close()
  })
  const list = (key: string = KEYS[0]) =>
    served.send({ path: '/v1/pets', headers: { Authorization: `Bearer ${key}` } })

  it('serves the burst with RateLimit headers, then answers 429 rate_limited with Retry-After', async () => {
    const served3 = [await list(), await list(), await list()]
    expect(served3.map((a) => a.status)).toEqual([200, 200, 200])
    expect(served3.map((a) => a.headers['ratelimit'])).toEqual([
      '"default";r=2;t=1',
      '"default";r=1;t=1',
      '"default";r=0;t=1',
    ])
    expect(served3[0]!.headers['ratelimit-policy']).toBe('"default";q=3;w=2')
    const refused = await list()
    expect(refused.status).toBe(429)
    expect(errorBodyOf(refused)).toMatchObject({ code: 'rate_limited', status: 429 })
    expect(refused.headers['retry-after']).toBe('1')
    expect(refused.headers['ratelimit']).toBe('"default";r=0;t=1')
    expect(refused.headers['ratelimit-policy']).toBe('"default";q=3;w=2')
  })

  it('serves again once the window has passed', async () => {
    for (let i = 0; i < 4; i++) await list()
    expect((await list()).status).toBe(429)
    ms += 500
    expect((await list()).status).toBe(200)
    expect((await list()).status).toBe(429)
    ms += 1_500
    expect((await list()).status).toBe(200)
  })

  it('counts every operation and unknown path of a key, and each key apart', async () => {
    const answers = [
      await served.post('{"name":"Rex","categoryId":1}'),
      await served.send({ path: '/v1/nothing', headers: { Authorization: BEARER } }),
      await served.send({ path: '/v1/pets/1', headers: { Authorization: BEARER } }),
    ]
    expect(answers.map((a) => a.status)).toEqual([201, 404, 200])
    expect((await list()).status).toBe(429)
    expect((await list(KEYS[1])).status).toBe(200)
  })

  it('answers 429 to the deprecated getPet with its deprecation headers, as its every answer after authentication', async () => {
    for (let i = 0; i < 3; i++) await list()
    const refused = await served.send({ path: '/v1/pets/1', headers: { Authorization: BEARER } })
    expect(refused.status).toBe(429)
    expect(refused.headers['deprecation']).toBe('@1767225600')
    expect(refused.headers['sunset']).toBe('Thu, 05 Dec 2030 00:00:00 GMT')
    expect(refused.headers['link']).toBe('<https://api.example.com/v1/pets>; rel="successor-version"')
    // Not on another operation's 429, nor on a 401 (routing comes after authentication).
    expect((await list()).headers['deprecation']).toBeUndefined()
    const stranger = await served.send({ path: '/v1/pets/1' })
    expect(stranger.status).toBe(401)
    expect(stranger.headers['deprecation']).toBeUndefined()
  })

  it('refuses an over-limit POST before reading its body, adding nothing', async () => {
    for (let i = 0; i < 3; i++) await list()
    const refused = await served.post('not even JSON', { 'Content-Type': 'text/plain' })
    expect(refused.status).toBe(429)
  })

  it('answers 401 without RateLimit headers and without spending a token', async () => {
    for (let i = 0; i < 5; i++) {
      const answer = await served.send({ path: '/v1/pets', headers: { Authorization: 'Bearer nope' } })
      expect(answer.status).toBe(401)
      expect(answer.headers['ratelimit']).toBeUndefined()
    }
    expect((await list()).headers['ratelimit']).toBe('"default";r=2;t=1')
  })

  it('adds no RateLimit headers outside /v1', async () => {
    expect((await served.send({ path: '/healthz' })).headers['ratelimit']).toBeUndefined()
  })
})
