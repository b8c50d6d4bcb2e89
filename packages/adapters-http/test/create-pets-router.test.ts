import Router from '@koa/router'
import Koa from 'koa'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createPetsRouter } from '../src/index.js'
import { appOptions, KEY } from './serve.js'

const AUTH = { Authorization: `Bearer ${KEY}` }

// A host app: its own middleware first, then `mount`, then a 404 of its own.
const host = async (mount: Koa.Middleware) => {
  const app = new Koa()
  app.use(mount)
  app.use((ctx) => {
    ctx.status = 404
    ctx.body = 'the host'
  })
  const server = createServer(app.callback())
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    fetch: (path: string, init: RequestInit = {}) => fetch(`http://127.0.0.1:${port}${path}`, init),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

describe('createPetsRouter in a host app', () => {
  const opened: Array<{ close: () => Promise<void> }> = []
  afterEach(async () => {
    for (const app of opened.splice(0)) await app.close()
  })
  const options = appOptions({ prefix: '/animals/v1', publicBaseUrl: 'https://x.example/animals/v1' })

  it('mounts with app.use, as router.routes() does: authentication first, then 404, 405, operations', async () => {
    const app = await host(createPetsRouter(options))
    opened.push(app)
    expect((await app.fetch('/animals/v1/nothing')).status).toBe(401)
    expect((await app.fetch('/animals/v1/nothing', { headers: AUTH })).status).toBe(404)
    const put = await app.fetch('/animals/v1/pets', { method: 'PUT', headers: AUTH })
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, HEAD, POST'])
    expect(await (await app.fetch('/animals/v1/pets', { headers: AUTH })).json()).toEqual([])
    // Outside the prefix, as written: the host's next middleware.
    for (const path of ['/elsewhere', '/animals/v1x', '/ANIMALS/v1/pets'])
      expect(await (await app.fetch(path)).text()).toBe('the host')
  })

  it('carries its @koa/router Router: routes named by operation id, each authenticating first', async () => {
    const { router } = createPetsRouter(options)
    expect(router).toBeInstanceOf(Router)
    expect(router.url('getPet', { petId: 7 })).toBe('/animals/v1/pets/7')
    const app = await host(router.routes() as Koa.Middleware)
    opened.push(app)
    // Its routes match without regard to case; each one authenticates first all the same.
    for (const path of ['/animals/v1/pets', '/ANIMALS/V1/PETS', '/animals/v1/pets/1'])
      expect((await app.fetch(path)).status).toBe(401)
    expect((await app.fetch('/ANIMALS/V1/PETS', { headers: AUTH })).status).toBe(200)
    // Mounted alone, as any Koa router: what no route matched goes on to the host.
    for (const path of ['/animals/v1/nothing', '/elsewhere'])
      expect(await (await app.fetch(path)).text()).toBe('the host')
  })
})
