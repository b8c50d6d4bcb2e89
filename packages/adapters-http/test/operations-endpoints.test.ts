import { storeUnavailable } from '@pets/domain'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { afterEach, describe, expect, it } from 'vitest'
import { appOptions, KEY, serve } from './serve.js'

describe('the operations endpoints outside /v1', () => {
  const open: Array<{ close: () => Promise<void> }> = []
  const start = async (options = appOptions()) => {
    const app = await serve(options)
    open.push(app)
    return app
  }
  afterEach(async () => {
    await Promise.all(open.splice(0).map((app) => app.close()))
  })

  it('/readyz answers 200 without a key when the host says ready, and when it says nothing', async () => {
    const ready = await start(appOptions({ operations: { ready: () => TE.right(undefined) } }))
    const res = await ready.fetch('/readyz')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ready' })
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect((await (await start()).fetch('/readyz')).status).toBe(200)
  })

  it('/readyz answers 503 unavailable with Retry-After when the store is down, or the instance drains', async () => {
    for (const problem of [
      storeUnavailable(new Error('connect ECONNREFUSED db:5432')),
      { _tag: 'ShuttingDown' as const },
    ]) {
      const app = await start(appOptions({ operations: { ready: () => TE.left(problem) } }))
      const res = await app.fetch('/readyz')
      expect(res.status).toBe(503)
      expect(res.headers.get('retry-after')).toBe('5')
      const body = (await res.json()) as { code: string; message: string }
      expect(body).toMatchObject({ code: 'unavailable', status: 503 })
      expect(body.message).not.toContain('ECONNREFUSED')
    }
  })

  it('/metrics serves what the host gives, with its media type, and is 404 without metrics', async () => {
    const app = await start(
      appOptions({
        operations: { metrics: async () => ({ contentType: 'text/plain; version=0.0.4', body: 'up 1\n' }) },
      }),
    )
    const res = await app.fetch('/metrics')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4')
    expect(await res.text()).toBe('up 1\n')
    expect((await (await start()).fetch('/metrics')).status).toBe(404)
  })

  it('answers 405 with Allow for other methods on /healthz, /readyz and /metrics', async () => {
    const app = await start(
      appOptions({ operations: { metrics: async () => ({ contentType: 'text/plain', body: '' }) } }),
    )
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const res = await app.fetch(path, { method: 'POST', headers: { Authorization: `Bearer ${KEY}` } })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('GET, HEAD')
    }
  })

  it('answers HEAD on /healthz and /readyz with the status and no body', async () => {
    const app = await start()
    for (const path of ['/healthz', '/readyz']) {
      const res = await app.fetch(path, { method: 'HEAD' })
      expect(res.status).toBe(200)
      expect(await res.text()).toBe('')
    }
  })
})
