import Koa, { type Context } from 'koa'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LeanKoa } from '../src/lean-koa.js'

// What one middleware does to the answer; the same on Koa and on LeanKoa.
const CASES: ReadonlyArray<readonly [string, string, (ctx: Context) => void | Promise<void>]> = [
  ['a string', 'GET', (ctx) => void (ctx.body = '{"a":1}')],
  ['a Buffer with a status', 'GET', (ctx) => void ((ctx.status = 201), (ctx.body = Buffer.from('bytes')))],
  ['a string to HEAD', 'HEAD', (ctx) => void (ctx.body = 'not sent')],
  ['a body with 204', 'GET', (ctx) => void ((ctx.body = 'x'), (ctx.status = 204))],
  ['a body with 304', 'GET', (ctx) => void ((ctx.body = 'x'), (ctx.status = 304))],
  ['nothing at all', 'GET', () => {}],
  ['a status without a body', 'GET', (ctx) => void (ctx.status = 503)],
  ['an explicit null body', 'GET', (ctx) => void ((ctx.status = 200), (ctx.body = null))],
  ['a stream', 'GET', (ctx) => void (ctx.body = Readable.from(['a', 'b', 'c']))],
  ['an object', 'GET', (ctx) => void (ctx.body = { as: 'json' })],
  ['respond = false', 'GET', (ctx) => void ((ctx.respond = false), ctx.res.end('raw'))],
  [
    'an error thrown',
    'GET',
    () => {
      throw new Error('a defect')
    },
  ],
  [
    'an error with a status',
    'GET',
    (ctx) => {
      ctx.throw(418, 'short and stout')
    },
  ],
  [
    'headers and a string',
    'GET',
    (ctx) => void (ctx.set('X-Kind', 'lean'), (ctx.type = 'text/plain'), (ctx.body = 'text')),
  ],
]

type Answer = { status: number; headers: Record<string, unknown>; body: string }

const ask = (server: Server, method: string, path: string) =>
  new Promise<Answer>((resolve, reject) => {
    const { port } = server.address() as AddressInfo
    const req = request({ port, method, path, host: '127.0.0.1' }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => {
        const { date: _date, ...headers } = res.headers
        resolve({ status: res.statusCode ?? 0, headers, body })
      })
    })
    req.on('error', reject)
    req.end()
  })

const serve = (app: Koa) =>
  new Promise<Server>((resolve) => {
    app.silent = true
    app.use(async (ctx) => {
      const [, , act] = CASES[Number(ctx.path.slice(1))]!
      await act(ctx)
    })
    const server = createServer(app.callback()).listen(0, '127.0.0.1', () => resolve(server))
  })

describe('LeanKoa', () => {
  let koa: Server
  let lean: Server
  beforeAll(async () => {
    koa = await serve(new Koa())
    lean = await serve(new LeanKoa())
  })
  afterAll(() => {
    koa.close()
    lean.close()
  })

  it.each(CASES.map(([name, method], i) => [name, method, i] as const))(
    'answers %s (%s) exactly as Koa does',
    async (_name, method, i) => {
      const expected = await ask(koa, method, `/${i}`)
      expect(await ask(lean, method, `/${i}`)).toEqual(expected)
    },
  )

  it('is a Koa application: it mounts middleware and gives it a Koa context', async () => {
    const app = new LeanKoa()
    expect(app).toBeInstanceOf(Koa)
    app.use(async (ctx, next) => {
      ctx.set('X-Outer', String(ctx instanceof Object && typeof ctx.throw === 'function'))
      await next()
    })
    app.use((ctx) => void (ctx.body = 'inner'))
    const server = await new Promise<Server>((resolve) => {
      const s = createServer(app.callback()).listen(0, '127.0.0.1', () => resolve(s))
    })
    try {
      const answer = await ask(server, 'GET', '/')
      expect(answer).toMatchObject({ status: 200, body: 'inner', headers: { 'x-outer': 'true' } })
    } finally {
      server.close()
    }
  })
})
