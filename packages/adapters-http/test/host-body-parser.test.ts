import Koa from 'koa'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createPetsRouter } from '../src/index.js'
import { appOptions, KEY } from './serve.js'

// What raw-body and the body parsers built on it do: the whole stream, as one buffer.
const readAll = async (stream: AsyncIterable<Buffer>): Promise<Buffer> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of stream) chunks.push(chunk)
  return Buffer.concat(chunks)
}

// An app that embeds the pets router behind a body parser of its own, as koa-bodyparser or
// @koa/bodyparser do: they spend the request stream and leave rawBody and/or the parsed body.
const hostWithParser = async (keep: 'rawBody' | 'parsed') => {
  const app = new Koa()
  app.use(async (ctx, next) => {
    if (ctx.method === 'POST') {
      const text = (await readAll(ctx.req)).toString('utf8')
      const request = ctx.request as { rawBody?: string; body?: unknown }
      if (keep === 'rawBody') request.rawBody = text
      request.body = text === '' ? {} : (JSON.parse(text) as unknown)
    }
    await next()
  })
  app.use(createPetsRouter(appOptions()))
  const server = createServer(app.callback())
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    post: (body: string, { chunked = false } = {}) =>
      fetch(`http://127.0.0.1:${port}/v1/pets`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
        // A stream has no length: sent chunked, it comes without Content-Length.
        ...(chunked ? { body: new Blob([body]).stream(), duplex: 'half' } : { body }),
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

describe('the pets router behind a host app body parser', () => {
  const opened: Array<{ close: () => Promise<void> }> = []
  afterEach(async () => {
    for (const host of opened.splice(0)) await host.close()
  })

  it.each(['rawBody', 'parsed'] as const)('adds a pet from the body the parser read (%s)', async (keep) => {
    const host = await hostWithParser(keep)
    opened.push(host)
    const response = await host.post(JSON.stringify({ name: 'Rex', categoryId: 1 }))
    expect(response.status).toBe(201)
    expect(await response.json()).toEqual({ id: 1, name: 'Rex', categoryId: 1, status: 'available' })
  })

  it('still refuses unknown fields and oversize bodies that the host parser let through', async () => {
    const host = await hostWithParser('rawBody')
    opened.push(host)
    const unknown = await host.post(JSON.stringify({ name: 'Rex', categoryId: 1, id: 5 }))
    expect(unknown.status).toBe(400)
    const large = await host.post(JSON.stringify({ name: 'x'.repeat(70_000), categoryId: 1 }))
    expect(large.status).toBe(413)
  })

  // CONTRACT: a body over 64 KiB is 413; one of exactly 64 KiB is served, also when the host read it.
  it.each([false, true])(
    'serves a body of exactly 64 KiB that the host read (chunked: %s)',
    async (chunked) => {
      const host = await hostWithParser('rawBody')
      opened.push(host)
      const pet = JSON.stringify({ name: 'Rex', categoryId: 1 })
      const response = await host.post(pet.padEnd(64 * 1024, ' '), { chunked })
      expect(response.status).toBe(201)
    },
  )

  it('refuses a chunked body over 64 KiB that the host read, though no Content-Length told its size', async () => {
    const host = await hostWithParser('rawBody')
    opened.push(host)
    const pet = JSON.stringify({ name: 'Rex', categoryId: 1 })
    const response = await host.post(pet.padEnd(64 * 1024 + 1, ' '), { chunked: true })
    expect(response.status).toBe(413)
    expect(await response.json()).toMatchObject({ code: 'payload_too_large' })
  })
})
