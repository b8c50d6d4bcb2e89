import * as TE from 'fp-ts/lib/TaskEither.js'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOperationsApp } from '../src/index.js'
import { BEARER } from './support/memory-app.js'

describe('createOperationsApp: the operator endpoints on a listener of their own', () => {
  let url: string
  let close: () => Promise<void>
  beforeAll(async () => {
    const app = createOperationsApp({
      operations: {
        ready: () => TE.right(undefined),
        metrics: async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body: 'up 1\n' }),
      },
    })
    const server = createServer(app.callback())
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    close = () => new Promise((resolve) => server.close(() => resolve()))
  })
  afterAll(() => close())

  it('serves /metrics, /healthz and /readyz', async () => {
    const metrics = await fetch(`${url}/metrics`)
    expect(metrics.status).toBe(200)
    expect(await metrics.text()).toBe('up 1\n')
    expect((await fetch(`${url}/healthz`)).status).toBe(200)
    expect((await fetch(`${url}/readyz`)).status).toBe(200)
  })

  it('answers everything else with an Error body: no operation, document or docs there', async () => {
    for (const path of ['/v1/pets', '/openapi.json', '/docs', '/metrics/constructor']) {
      const res = await fetch(`${url}${path}`, { headers: { Authorization: BEARER } })
      expect(res.status).toBe(404)
      expect(await res.json()).toMatchObject({ code: 'not_found', status: 404 })
    }
    const posted = await fetch(`${url}/metrics`, { method: 'POST' })
    expect(posted.status).toBe(405)
    expect(posted.headers.get('x-request-id')).toBeTruthy()
  })
})
