import { afterEach, describe, expect, it } from 'vitest'
import { startTestService, type ChildService } from './support/test-service.js'

// Real time against a real process: Retry-After promises a token after that many seconds.
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// The built service as a real process, configured from its environment.
describe('rate limits of the built service (RATE_LIMIT_PER_SECOND, RATE_LIMIT_BURST)', () => {
  const started: Array<ChildService> = []
  afterEach(async () => {
    await Promise.all(started.splice(0).map((svc) => svc.stop()))
  })

  it(
    'answers a burst over the limit with 429 and the headers of the draft, then serves again',
    { timeout: 60_000 },
    async () => {
      const svc = await startTestService({
        mode: 'child',
        env: { API_KEYS: 'k1,k2', RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '3' },
        timeoutMs: 30_000,
      })
      started.push(svc)
      const list = (key = 'k1') =>
        fetch(`${svc.url}/v1/pets`, { headers: { Authorization: `Bearer ${key}` } })
      // At once, so that no token comes back in between: three are served, two refused.
      const answers = await Promise.all([1, 2, 3, 4, 5].map(() => list()))
      expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 429, 429])
      for (const answer of answers) {
        expect(answer.headers.get('ratelimit-policy')).toBe('"default";q=3;w=3')
        expect(answer.headers.get('ratelimit')).toMatch(/^"default";r=[0-2];t=1$/)
      }
      const refused = answers.find((a) => a.status === 429)!
      expect(refused.headers.get('retry-after')).toBe('1')
      expect(refused.headers.get('ratelimit')).toBe('"default";r=0;t=1')
      expect(await refused.json()).toMatchObject({ code: 'rate_limited', status: 429 })
      // Another key has a bucket of its own.
      expect((await list('k2')).status).toBe(200)

      await pause(Number(refused.headers.get('retry-after')) * 1000)
      expect((await list()).status).toBe(200)
    },
  )

  it(
    'limits nothing when RATE_LIMIT_PER_SECOND is unset, and sends no RateLimit headers',
    { timeout: 60_000 },
    async () => {
      const svc = await startTestService({ mode: 'child', env: { API_KEYS: 'k1' }, timeoutMs: 30_000 })
      started.push(svc)
      for (let i = 0; i < 30; i++) {
        const answer = await fetch(`${svc.url}/v1/pets`, { headers: { Authorization: 'Bearer k1' } })
        expect(answer.status).toBe(200)
        expect(answer.headers.get('ratelimit')).toBeNull()
      }
    },
  )
})
