import { createRequire } from 'node:module'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appOptions, serve } from './serve.js'

const require = createRequire(import.meta.url)
const VERSION = (require('swagger-ui-dist/package.json') as { version: string }).version
const ASSETS = `/docs/assets/${VERSION}`

describe('the docs page at /docs', () => {
  let app: Awaited<ReturnType<typeof serve>>
  beforeAll(async () => {
    app = await serve(
      appOptions({
        servers: [{ url: 'https://api.example.com/v1' }, { url: 'https://staging.example.com/v1' }],
      }),
    )
  })
  afterAll(() => app.close())

  it('is an HTML page, without a key, that loads Swagger UI from this server and the document', async () => {
    const res = await app.fetch('/docs')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const html = await res.text()
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])
    expect(sources).toEqual([
      `${ASSETS}/swagger-ui.css`,
      `${ASSETS}/favicon-32x32.png`,
      `${ASSETS}/swagger-ui-bundle.js`,
      '/docs/init.js',
    ])
    const init = await (await app.fetch('/docs/init.js')).text()
    expect(init).toContain('url: "/openapi.json"')
  })

  it('never lets Swagger UI keep the API key beyond the tab, nor call an outside validator', async () => {
    const init = await (await app.fetch('/docs/init.js')).text()
    expect(init).toMatch(/persistAuthorization: false/)
    expect(init).toMatch(/validatorUrl: null/)
  })

  it('allows the page scripts of this server only, and calls to itself and the API servers', async () => {
    const policy = (await app.fetch('/docs')).headers.get('content-security-policy') ?? ''
    expect(policy).toContain("script-src 'self';")
    expect(policy).toContain("connect-src 'self' https://api.example.com https://staging.example.com;")
    expect(policy).toContain("frame-ancestors 'none'")
  })

  it.each([
    ['swagger-ui.css', 'text/css; charset=utf-8'],
    ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
    ['favicon-32x32.png', 'image/png'],
  ])('serves %s from swagger-ui-dist as %s, cached for good under its version', async (file, type) => {
    const res = await app.fetch(`${ASSETS}/${file}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe(type)
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(500)
  })

  it.each([
    `${ASSETS}/package.json`,
    `${ASSETS}/../package.json`,
    '/docs/assets/0.0.0/swagger-ui.css',
    '/docsx',
  ])('answers 404 for %s, which is not one of its assets', async (path) => {
    expect((await app.fetch(path)).status).toBe(404)
  })

  it('answers 405 with Allow: GET, HEAD for another method', async () => {
    for (const path of ['/docs', `${ASSETS}/swagger-ui.css`, '/openapi.json']) {
      const res = await app.fetch(path, { method: 'POST' })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('GET, HEAD')
    }
  })
})
